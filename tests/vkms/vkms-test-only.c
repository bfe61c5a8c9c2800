/* TEST_ONLY (and the checks before it) stop bad configurations before they reach the
 * screen, each with a clear error, and the display keeps running afterwards. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "common.h"

static void commit_ok(struct test_pipe *tp, struct wbc_kms_buffer *buf)
{
	struct wbc_kms_pipe_state s = { .primary.fb = &buf->fb };
	size_t before = tp->ev.n_flips;
	if (wbc_kms_pipe_commit(tp->pipe, &s) < 0)
		fail_msg("good commit refused: %s", wbc_kms_device_error(tp->dev));
	test_wait_flips(tp, before + 1, 30000);
	assert_int_equal(tp->ev.n_flips, before + 1);
	assert_int_equal(tp->ev.flips[before].status, WBC_KMS_FLIP_DONE);
}

static void expect_refusal(struct test_pipe *tp, const struct wbc_kms_pipe_state *s,
		const char *needle)
{
	struct wbc_kms_pipe_stats before, after;
	wbc_kms_pipe_get_stats(tp->pipe, &before);
	int ret = wbc_kms_pipe_commit(tp->pipe, s);
	const char *msg = wbc_kms_device_error(tp->dev);
	print_message("refused (%d): %s\n", ret, msg);
	assert_true(ret < 0);
	if (!strstr(msg, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", msg, needle);
	wbc_kms_pipe_get_stats(tp->pipe, &after);
	assert_int_equal(after.commits, before.commits);   /* nothing reached the kernel */
}

static void oversized_primary(void **state)
{
	struct test_pipe tp;
	test_pipe_init(&tp, 640, 480, false, false);
	struct wbc_kms_buffer *good = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	struct wbc_kms_buffer *big = test_buffer(&tp, 1024, 768, DRM_FORMAT_XRGB8888);
	test_fill(good, 0x00336699);
	test_fill(big, 0x00ff0000);
	/* Before the first modeset and while running. */
	struct wbc_kms_pipe_state s = { .primary.fb = &big->fb };
	expect_refusal(&tp, &s, "TEST_ONLY");
	commit_ok(&tp, good);
	expect_refusal(&tp, &s, "1024x768");
	commit_ok(&tp, good);
	test_pipe_fini(&tp);
}

/* A format the primary plane does not list is refused by the backend before the kernel
 * sees it, and the kernel agrees: where no plane lists the format (VKMS 6.12) it refuses
 * the framebuffer itself, else (6.1) the raw plane state fails TEST_ONLY. */
static void unlisted_format(void **state)
{
	struct test_pipe tp;
	test_pipe_init(&tp, 640, 480, false, false);
	struct wbc_kms_buffer *good = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	struct wbc_kms_plane *primary = wbc_kms_pipe_plane(tp.pipe, WBC_KMS_PLANE_PRIMARY);
	assert_false(wbc_kms_plane_supports(primary, DRM_FORMAT_XBGR8888, DRM_FORMAT_MOD_LINEAR));
	commit_ok(&tp, good);

	struct wbc_kms_buffer *xbgr = NULL;
	if (wbc_kms_buffer_create(tp.dev, 640, 480, DRM_FORMAT_XBGR8888, &xbgr) < 0) {
		print_message("the kernel refuses an XB24 framebuffer: %s\n",
			wbc_kms_device_error(tp.dev));
		/* The backend's own check, on a framebuffer described as XB24. */
		struct wbc_kms_fb relabelled = good->fb;
		relabelled.format = DRM_FORMAT_XBGR8888;
		struct wbc_kms_pipe_state s = { .primary.fb = &relabelled };
		expect_refusal(&tp, &s, "does not support format XB24");
	} else {
		tp.bufs[tp.n_bufs++] = xbgr;
		struct wbc_kms_pipe_state s = { .primary.fb = &xbgr->fb };
		expect_refusal(&tp, &s, "does not support format XB24");
		drmModeAtomicReq *req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, primary->id, primary->props.fb_id, xbgr->fb.id);
		assert_int_not_equal(drmModeAtomicCommit(tp.dev->fd, req, DRM_MODE_ATOMIC_TEST_ONLY,
			NULL), 0);
		assert_int_equal(errno, EINVAL);
		drmModeAtomicFree(req);
	}
	commit_ok(&tp, good);
	test_pipe_fini(&tp);
}

/* VKMS has one CRTC, so a plane that cannot reach it is made by editing the discovered
 * mask, as a second CRTC's plane would look. */
static void plane_outside_possible_crtcs(void **state)
{
	struct wbc_kms_device *dev = test_open();
	struct wbc_kms_connector *c = test_virtual_connector(dev);
	struct wbc_kms_plane *primary = NULL;
	for (size_t i = 0; i < dev->n_planes; i++)
		if (dev->planes[i].type == WBC_KMS_PLANE_PRIMARY)
			primary = &dev->planes[i];
	assert_non_null(primary);
	primary->possible_crtcs = 0x2;
	struct wbc_kms_pipe_options opts = { .connector_id = c->id,
		.primary_plane_id = primary->id };
	struct wbc_kms_pipe *pipe = NULL;
	int ret = wbc_kms_pipe_create(dev, &opts, NULL, &pipe);
	print_message("refused (%d): %s\n", ret, wbc_kms_device_error(dev));
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(wbc_kms_device_error(dev), "possible_crtcs"));
	wbc_kms_device_destroy(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(oversized_primary, test_teardown),
		cmocka_unit_test_teardown(unlisted_format, test_teardown),
		cmocka_unit_test_teardown(plane_outside_possible_crtcs, test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
