/*
 * Bad writeback requests get a clear error before the kernel sees them, the kernel
 * agrees (the same request sent raw fails TEST_ONLY), and the display keeps running.
 * Also: on a pipe whose CRTC cannot feed a writeback connector, the API says so.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "common.h"

static void expect(struct test_pipe *tp, int ret, int code, const char *needle)
{
	const char *msg = wbc_kms_device_error(tp->dev);
	print_message("refused (%d): %s\n", ret, msg);
	assert_int_equal(ret, code);
	if (!strstr(msg, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", msg, needle);
}

static void still_running(struct test_pipe *tp, struct wbc_kms_buffer *b, bool capture)
{
	size_t flips = tp->ev.n_flips, frames = tp->ev.n_frames;
	struct wbc_kms_pipe_state s = { .primary.fb = &b->fb, .capture = capture };
	if (wbc_kms_pipe_commit(tp->pipe, &s) < 0)
		fail_msg("good commit refused: %s", wbc_kms_device_error(tp->dev));
	test_wait_flips(tp, flips + 1, 30000);
	assert_int_equal(tp->ev.n_flips, flips + 1);
	assert_int_equal(tp->ev.flips[flips].status, WBC_KMS_FLIP_DONE);
	if (capture) {
		test_wait_frames(tp, frames + 1, 30000);
		assert_int_equal(tp->ev.n_frames, frames + 1);
	}
}

/* Send connector properties raw; returns the kernel's errno (0 = ok). TEST_ONLY unless
 * `real`: the kernel only sets up out-fences (and so checks them) in real commits. */
/* fb: the WRITEBACK_FB_ID to send, 0: none; NO_FB: send WRITEBACK_FB_ID = 0. */
#define NO_FB UINT32_MAX
static int kernel_commit(struct test_pipe *tp, uint32_t fb, bool fence, bool crtc_off, bool real)
{
	struct wbc_kms_connector *c = wbc_kms_pipe_writeback_connector(tp->pipe);
	struct wbc_kms_crtc *crtc = wbc_kms_pipe_crtc(tp->pipe);
	int fence_fd = -1;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	if (fb)
		drmModeAtomicAddProperty(req, c->id, c->props.writeback_fb_id, fb == NO_FB ? 0 : fb);
	if (fence)
		drmModeAtomicAddProperty(req, c->id, c->props.writeback_out_fence_ptr,
			(uint64_t)(uintptr_t)&fence_fd);
	if (crtc_off)
		drmModeAtomicAddProperty(req, crtc->id, crtc->props.active, 0);
	uint32_t flags = real ? 0 : DRM_MODE_ATOMIC_TEST_ONLY | DRM_MODE_ATOMIC_ALLOW_MODESET;
	int ret = drmModeAtomicCommit(tp->dev->fd, req, flags, NULL) ? errno : 0;
	drmModeAtomicFree(req);
	if (fence_fd >= 0)
		fail_msg("the kernel handed out a fence for a refused request");
	return ret;
}

static int kernel_test(struct test_pipe *tp, uint32_t fb, bool fence, bool crtc_off)
{
	return kernel_commit(tp, fb, fence, crtc_off, false);
}

static void bad_writeback_requests(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	struct wbc_kms_buffer *prim = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(prim, 0x00102030);

	/* Capture before writeback is enabled. */
	struct wbc_kms_pipe_state s = { .primary.fb = &prim->fb, .capture = true };
	expect(&tp, wbc_kms_pipe_commit(tp.pipe, &s), -EINVAL, "writeback is not enabled");
	still_running(&tp, prim, false);

	/* Pool of the wrong size; of a format WRITEBACK_PIXEL_FORMATS does not list. */
	struct wbc_kms_writeback_options o;
	wbc_kms_writeback_options_init(&o);
	o.width = 320;
	o.height = 240;
	expect(&tp, wbc_kms_pipe_enable_writeback(tp.pipe, &o), -EINVAL, "does not match the mode");
	/* XBGR8888: in no VKMS's WRITEBACK_PIXEL_FORMATS. */
	wbc_kms_writeback_options_init(&o);
	o.format = DRM_FORMAT_XBGR8888;
	expect(&tp, wbc_kms_pipe_enable_writeback(tp.pipe, &o), -EINVAL, "WRITEBACK_PIXEL_FORMATS");
	still_running(&tp, prim, false);

	struct wbc_kms_buffer *small = test_buffer(&tp, 320, 240, DRM_FORMAT_XRGB8888);
	struct wbc_kms_buffer *good = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	struct wbc_kms_wb_request r = { .fb = &small->fb, .out_fence = true, .crtc_active = true };
	expect(&tp, wbc_kms_pipe_check_writeback(tp.pipe, &r), -EINVAL, "320x240");
	assert_int_equal(kernel_test(&tp, small->fb.id, true, false), EINVAL);
	/* A framebuffer whose format the connector does not list. Where every format a
	 * framebuffer can have is listed (VKMS 6.12), only the backend's check is shown. */
	struct wbc_kms_buffer *xbgr = NULL;
	if (wbc_kms_buffer_create(tp.dev, 640, 480, DRM_FORMAT_XBGR8888, &xbgr) == 0) {
		tp.bufs[tp.n_bufs++] = xbgr;
		r.fb = &xbgr->fb;
		expect(&tp, wbc_kms_pipe_check_writeback(tp.pipe, &r), -EINVAL, "XB24");
		assert_int_equal(kernel_test(&tp, xbgr->fb.id, true, false), EINVAL);
	} else {
		print_message("no XB24 framebuffer here (%s): the backend's check alone\n",
			wbc_kms_device_error(tp.dev));
		struct wbc_kms_fb relabelled = good->fb;
		relabelled.format = DRM_FORMAT_XBGR8888;
		r.fb = &relabelled;
		expect(&tp, wbc_kms_pipe_check_writeback(tp.pipe, &r), -EINVAL, "XB24");
	}
	r = (struct wbc_kms_wb_request){ .fb = &good->fb, .out_fence = true, .crtc_active = false };
	expect(&tp, wbc_kms_pipe_check_writeback(tp.pipe, &r), -EINVAL, "which is off");
	assert_int_equal(kernel_test(&tp, good->fb.id, true, true), EINVAL);
	r = (struct wbc_kms_wb_request){ .fb = NULL, .out_fence = true, .crtc_active = true };
	expect(&tp, wbc_kms_pipe_check_writeback(tp.pipe, &r), -EINVAL, "without a framebuffer");
	/* The kernel refuses an out-fence with WRITEBACK_FB_ID = 0 (as IGT's
	 * writeback-invalid-parameters expects), but with no WRITEBACK_FB_ID in the request
	 * there is no writeback job, and the fence pointer is ignored (no fd written):
	 * drm_atomic_uapi.c's prepare_signaling skips connectors without a job. */
	assert_int_equal(kernel_commit(&tp, NO_FB, true, false, true), EINVAL);
	assert_int_equal(kernel_commit(&tp, 0, true, false, true), 0);
	/* And the good request passes both. */
	r = (struct wbc_kms_wb_request){ .fb = &good->fb, .out_fence = true, .crtc_active = true };
	assert_int_equal(wbc_kms_pipe_check_writeback(tp.pipe, &r), 0);
	assert_int_equal(kernel_test(&tp, good->fb.id, true, false), 0);

	assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, NULL), 0);
	still_running(&tp, prim, true);
	test_pipe_fini(&tp);
}

/* Stock VKMS's encoders have possible_clones of only themselves: its CRTC cannot feed the
 * Virtual and the Writeback connector together. A Virtual pipe must say so plainly. (A
 * patched VKMS declares the clone: vkms-wb-exact's "cloned" case captures it.) */
static void no_writeback_for_this_pipe(void **state)
{
	if (test_vkms_flavour("patched")) {
		print_message("%s declares the clone: nothing to refuse here\n", getenv("WBC_VM_KERNEL"));
		skip();
	}
	struct test_pipe tp;
	test_pipe_init(&tp, 640, 480, false, false);
	assert_false(wbc_kms_writeback_supported(tp.pipe));
	const char *why = wbc_kms_pipe_writeback_unsupported_reason(tp.pipe);
	assert_non_null(why);
	print_message("unsupported: %s\n", why);
	assert_non_null(strstr(why, "possible_clones"));
	expect(&tp, wbc_kms_pipe_enable_writeback(tp.pipe, NULL), -ENOTSUP, "possible_clones");
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	still_running(&tp, b, false);
	test_pipe_fini(&tp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(bad_writeback_requests, test_teardown),
		cmocka_unit_test_teardown(no_writeback_for_this_pipe, test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
