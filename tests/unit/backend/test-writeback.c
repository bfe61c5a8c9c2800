/*
 * backend/writeback.c on the fake libdrm: the buffer pool, arming one commit at a time,
 * commits waiting for the previous out-fence (for ever, or until before the next
 * vblank), the fence timeout, and the unwritten-buffer (stamp) check. The guest tests (tests/vkms/vkms-wb-*.c) check the same against VKMS,
 * where a lost job cannot be made on purpose; here each case is made exactly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <xf86drm.h>
#include "harness.h"

static const struct wbc_kms_writeback_options two_buffers = {
	.n_buffers = 2, .pacing = WBC_KMS_WB_WAIT, .fence_timeout_ms = -1 };
static const struct wbc_kms_writeback_options one_buffer = {
	.n_buffers = 1, .pacing = WBC_KMS_WB_WAIT, .fence_timeout_ms = -1 };
static const struct wbc_kms_writeback_options one_buffer_30ms = {
	.n_buffers = 1, .pacing = WBC_KMS_WB_WAIT, .fence_timeout_ms = 30 };
static const struct wbc_kms_writeback_options overlap = {
	.n_buffers = 2, .pacing = WBC_KMS_WB_OVERLAP, .fence_timeout_ms = -1 };
static const struct wbc_kms_writeback_options skip = {
	.n_buffers = 2, .pacing = WBC_KMS_WB_SKIP, .fence_timeout_ms = -1 };
static const struct wbc_kms_writeback_options deadline = {
	.n_buffers = 3, .pacing = WBC_KMS_WB_DEADLINE, .fence_timeout_ms = -1 };

/* *state holds the writeback options (cmocka's prestate) until setup replaces them. */
static int setup(void **state)
{
	*state = harness_setup(*state);
	return 0;
}

static int teardown(void **state)
{
	harness_teardown(*state);
	return 0;
}

static uint64_t wb_fb_of(const struct fake_drm_commit *c)
{
	uint64_t fb = 0;
	fake_drm_commit_value(c, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_WB_FB_ID, &fb);
	return fb;
}

static void commit(struct harness *h, unsigned fb, bool capture, uintptr_t tag)
{
	struct wbc_kms_pipe_state s = harness_state(h, fb, capture, tag);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &s), 0);
}

static bool is_primary_fb(struct harness *h, uint64_t id)
{
	for (size_t i = 0; i < HARNESS_LEN(h->fbs); i++)
		if (h->fbs[i]->fb.id == id)
			return true;
	return false;
}

/* The writeback connector is routed in the modeset; a capture commit (and its
 * TEST_ONLY) carries a pool buffer and an out-fence pointer, a later commit without
 * capture carries neither (the properties are one-shot). */
static void capture_arms_pool_buffer_and_fence_on_its_commit_only(void **state)
{
	struct harness *h = *state;
	uint64_t v = 0;
	assert_true(fake_drm_commit_value(fake_drm_commit_at(1), FAKE_DRM_WB_CONNECTOR,
		FAKE_PROP_CRTC_ID, &v));
	assert_int_equal(v, FAKE_DRM_CRTC);

	commit(h, 1, true, 1);
	const struct fake_drm_commit *test = fake_drm_commit_at(fake_drm_n_commits() - 2);
	const struct fake_drm_commit *armed = fake_drm_last_commit(false);
	assert_true(test->flags & DRM_MODE_ATOMIC_TEST_ONLY);
	uint64_t fb = wb_fb_of(armed);
	assert_int_not_equal(fb, 0);
	assert_false(is_primary_fb(h, fb));
	assert_int_equal(wb_fb_of(test), fb);
	assert_true(fake_drm_commit_value(armed, FAKE_DRM_WB_CONNECTOR,
		FAKE_PROP_WB_OUT_FENCE_PTR, &v));
	assert_int_not_equal(v, 0);
	assert_int_equal(armed->fence, 0);
	assert_int_equal(fake_drm_n_fences(), 1);
	assert_int_equal(harness_stats(h).captures_armed, 1);

	harness_vblank(h, 1, 0);
	assert_true(h->flips[0].captured);
	fake_drm_fence_signal(0, true, 0x42);
	harness_dispatch(h);
	commit(h, 2, false, 2);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	assert_false(fake_drm_commit_value(fake_drm_last_commit(false), FAKE_DRM_WB_CONNECTOR,
		FAKE_PROP_WB_OUT_FENCE_PTR, &v));
	assert_int_equal(fake_drm_n_fences(), 1);
	harness_vblank(h, 1, 0);
	assert_false(h->flips[1].captured);
}

/* A frame reaches the consumer when both its fence signalled and its flip arrived,
 * whichever comes last, with the flip's sequence and time, the fence's signal time,
 * and the pixels the engine wrote. */
static void frame_delivered_once_fence_and_flip_both_arrived(void **state)
{
	struct harness *h = *state;
	/* Fence first, then flip. */
	commit(h, 1, true, 1);
	fake_drm_fence_signal(0, true, 0x42);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->n_frames, 1);
	const struct wbc_kms_wb_frame *f = &h->frames[0].frame;
	assert_ptr_equal(f->user_data, TAG(1));
	assert_int_equal(f->sequence, h->flips[0].sequence);
	assert_int_equal(f->timestamp_ns, h->flips[0].timestamp_ns);
	assert_int_equal(f->signalled_ns, fake_drm_fence_time(0));
	assert_int_equal(f->width, FAKE_DRM_WIDTH);
	assert_int_equal(f->height, FAKE_DRM_HEIGHT);
	assert_int_equal(h->frames[0].first_byte, 0x42);

	/* Flip first, then fence. */
	commit(h, 2, true, 2);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_int_equal(h->n_frames, 1);
	fake_drm_fence_signal(1, true, 0x43);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 2);
	assert_ptr_equal(h->frames[1].frame.user_data, TAG(2));
	assert_int_equal(h->frames[1].first_byte, 0x43);
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.captures_done, 2);
	assert_int_equal(st.captures_lost, 0);
}

/* With WBC_KMS_WB_WAIT, a commit made while the last armed commit's fence is outstanding
 * waits (even after that commit's flip), and goes out when the fence signals, armed with
 * another buffer: one capture armed per commit. */
static void next_commit_waits_for_previous_out_fence(void **state)
{
	struct harness *h = *state;
	commit(h, 1, true, 1);
	uint64_t fb_a = wb_fb_of(fake_drm_last_commit(false));
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_true(wbc_kms_pipe_busy(h->pipe));
	size_t before = fake_drm_n_commits();
	commit(h, 2, true, 2);
	harness_vblank(h, 1, 0);
	harness_dispatch(h);
	assert_int_equal(fake_drm_n_commits(), before + 1);  /* its TEST_ONLY only */
	assert_int_equal(h->n_flips, 1);

	fake_drm_fence_signal(0, true, 0x10);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 1);
	const struct fake_drm_commit *b = fake_drm_last_commit(false);
	assert_int_equal(fake_drm_n_commits(), before + 2);
	assert_int_equal(harness_commit_fb(b), h->fbs[2]->fb.id);
	uint64_t fb_b = wb_fb_of(b);
	assert_int_not_equal(fb_b, 0);
	assert_int_not_equal(fb_b, fb_a);            /* a's buffer is with the consumer */
	assert_int_equal(b->fence, 1);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_ptr_equal(h->flips[1].user_data, TAG(2));
}

/* With WBC_KMS_WB_OVERLAP the display does not wait for capture: the next commit goes out
 * at the flip although the fence is still outstanding. */
static void overlap_commits_do_not_wait_for_fence(void **state)
{
	struct harness *h = *state;
	commit(h, 1, true, 1);
	harness_vblank(h, 1, 0);
	assert_false(wbc_kms_pipe_busy(h->pipe));
	commit(h, 2, false, 2);
	assert_int_equal(harness_commit_fb(fake_drm_last_commit(false)), h->fbs[2]->fb.id);
	assert_false(fake_drm_fence_signalled(0));
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	fake_drm_fence_signal(0, true, 0x11);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 1);
	assert_ptr_equal(h->frames[0].frame.user_data, TAG(1));
}

/* With WBC_KMS_WB_SKIP a capture commit made while a capture is in flight goes out at
 * once without one (no WRITEBACK_FB_ID, its flip reported not captured, counted skipped);
 * once the fence signalled, the next capture commit is armed again. */
static void skip_commits_at_once_without_capture_while_one_in_flight(void **state)
{
	struct harness *h = *state;
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_READY);
	commit(h, 1, true, 1);
	assert_int_not_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_IN_FLIGHT);
	harness_vblank(h, 1, 0);
	assert_false(wbc_kms_pipe_busy(h->pipe));
	commit(h, 2, true, 2);
	const struct fake_drm_commit *c2 = fake_drm_last_commit(false);
	assert_int_equal(harness_commit_fb(c2), h->fbs[2]->fb.id);
	assert_int_equal(wb_fb_of(c2), 0);
	assert_int_equal(c2->fence, -1);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_true(h->flips[0].captured);
	assert_false(h->flips[1].captured);
	fake_drm_fence_signal(0, true, 0x12);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 1);
	assert_ptr_equal(h->frames[0].frame.user_data, TAG(1));
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_READY);
	commit(h, 3, true, 3);
	assert_int_not_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.captures_armed, 2);
	assert_int_equal(st.captures_skipped, 1);
}

/* What harness_wait_for waits on: the commits the fake device has seen, and the
 * writeback frames the pipe reported lost. */
static size_t n_commits(const struct harness *h)
{
	return fake_drm_n_commits();
}

static size_t n_lost(const struct harness *h)
{
	return h->n_lost;
}

/* With WBC_KMS_WB_DEADLINE a capture commit made while a capture is in flight waits for
 * its fence, and goes out armed when the fence comes in time; a fence that does not
 * come lets it go without capture a quarter period (the fake mode's is 1 s) before the
 * next vblank, never after it. The late fence's frame is still delivered, and the next
 * commit is armed again. */
static void deadline_waits_for_fence_until_before_next_vblank(void **state)
{
	struct harness *h = *state;
	commit(h, 1, true, 1);
	harness_vblank(h, 1, 0);
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_IN_FLIGHT);
	size_t before = fake_drm_n_commits();
	commit(h, 2, true, 2);
	assert_int_equal(fake_drm_n_commits(), before + 1);  /* its TEST_ONLY only */
	fake_drm_fence_signal(0, true, 0x60);
	harness_dispatch(h);
	const struct fake_drm_commit *c2 = fake_drm_last_commit(false);
	assert_int_equal(fake_drm_n_commits(), before + 2);
	assert_int_equal(harness_commit_fb(c2), h->fbs[2]->fb.id);
	assert_int_not_equal(wb_fb_of(c2), 0);

	/* Fence 1 stays out: commit 3 waits, then goes without capture in time. */
	harness_vblank(h, 1, 0);
	uint64_t flip_ns = h->flips[1].timestamp_ns;
	before = fake_drm_n_commits();
	commit(h, 3, true, 3);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_true(wbc_kms_pipe_busy(h->pipe));
	assert_true(harness_wait_for(h, n_commits, before + 1, 2000));
	uint64_t sent_ns = harness_now_ns();
	assert_true(sent_ns >= flip_ns + 750000000u);
	assert_true(sent_ns < flip_ns + 1000000000u);
	const struct fake_drm_commit *c3 = fake_drm_last_commit(false);
	assert_int_equal(harness_commit_fb(c3), h->fbs[3]->fb.id);
	assert_int_equal(wb_fb_of(c3), 0);
	assert_int_equal(c3->fence, -1);
	harness_vblank(h, 1, 0);
	assert_false(h->flips[2].captured);
	assert_int_equal(harness_stats(h).captures_skipped, 1);

	fake_drm_fence_signal(1, true, 0x61);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 2);
	assert_ptr_equal(h->frames[1].frame.user_data, TAG(2));
	harness_release(h, 0);
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_READY);
	commit(h, 0, true, 4);
	assert_int_not_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	assert_int_equal(harness_stats(h).captures_armed, 3);
}

/* Buffers held by the consumer are not armed; with none free a capture commit goes out
 * without capture (counted skipped), and a released buffer is armed again. */
static void pool_buffers_handed_out_and_released(void **state)
{
	struct harness *h = *state;
	uint64_t fbs[2];
	for (size_t i = 0; i < 2; i++) {
		commit(h, 1 + (unsigned)i, true, 1 + i);
		fbs[i] = wb_fb_of(fake_drm_last_commit(false));
		harness_vblank(h, 1, 0);
		fake_drm_fence_signal(i, true, 0x20);
		harness_dispatch(h);
	}
	assert_int_equal(h->n_frames, 2);
	assert_int_not_equal(fbs[0], 0);
	assert_int_not_equal(fbs[1], 0);
	assert_int_not_equal(fbs[0], fbs[1]);

	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_NO_BUFFER);
	commit(h, 3, true, 3);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 3);
	assert_false(h->flips[2].captured);
	assert_int_equal(harness_stats(h).captures_skipped, 1);
	assert_int_equal(fake_drm_n_fences(), 2);

	harness_release(h, 0);
	assert_int_equal(wbc_kms_pipe_capture_ready(h->pipe), WBC_KMS_CAPTURE_READY);
	commit(h, 0, true, 4);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), fbs[0]);
	harness_vblank(h, 1, 0);
	assert_true(h->flips[3].captured);
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.captures_armed, 3);
	assert_int_equal(st.captures_skipped, 1);
}

/* An out-fence still unsignalled fence_timeout_ms after the flip: the job is reported
 * lost and the commit waiting for it goes out. Its buffer stays out of use until the
 * fence signals after all (counted late), then is reused, its content never delivered. */
static void fence_timeout_reports_lost_and_releases_waiting_commit(void **state)
{
	struct harness *h = *state;
	commit(h, 1, true, 1);
	uint64_t fb_a = wb_fb_of(fake_drm_last_commit(false));
	harness_vblank(h, 1, 0);
	commit(h, 2, false, 2);
	assert_int_not_equal(harness_commit_fb(fake_drm_last_commit(false)), h->fbs[2]->fb.id);

	uint64_t t0 = harness_now_ns();
	assert_true(harness_wait_for(h, n_lost, 0, 2000));
	assert_true(harness_now_ns() - t0 < 1000000000u);
	assert_int_equal(h->n_lost, 1);
	assert_ptr_equal(h->lost[0].ev.user_data, TAG(1));
	assert_int_equal(h->lost[0].ev.timeout_ms, 30);
	assert_int_equal(h->lost[0].ev.sequence, h->flips[0].sequence);
	assert_non_null(strstr(h->lost[0].reason, "had not signalled"));
	assert_int_equal(harness_commit_fb(fake_drm_last_commit(false)), h->fbs[2]->fb.id);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_ptr_equal(h->flips[1].user_data, TAG(2));

	/* Out of use while its fence is outstanding: the one-buffer pool has none free. */
	commit(h, 3, true, 3);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(harness_stats(h).captures_skipped, 1);

	fake_drm_fence_signal(0, true, 0x30);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 0);
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.captures_lost, 1);
	assert_int_equal(st.captures_late, 1);
	assert_int_equal(st.captures_done, 0);

	commit(h, 0, true, 4);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), fb_a);
	harness_vblank(h, 1, 0);
	fake_drm_fence_signal(1, true, 0x31);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 1);
	assert_ptr_equal(h->frames[0].frame.user_data, TAG(4));
	assert_int_equal(h->frames[0].first_byte, 0x31);
}

/* A fence that signals while its buffer still bears the pool's stamps (the driver
 * completed another job's fence) is reported lost, never delivered, and its buffer
 * stays out of use. */
static void fence_signalled_on_unwritten_buffer_reported_lost(void **state)
{
	struct harness *h = *state;
	commit(h, 1, true, 1);
	harness_vblank(h, 1, 0);
	fake_drm_fence_signal(0, false, 0);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 0);
	assert_int_equal(h->n_lost, 1);
	assert_ptr_equal(h->lost[0].ev.user_data, TAG(1));
	assert_non_null(strstr(h->lost[0].reason, "had not written"));
	assert_false(wbc_kms_pipe_busy(h->pipe));
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.captures_lost, 1);
	assert_int_equal(st.captures_done, 0);

	commit(h, 2, true, 2);
	assert_int_equal(wb_fb_of(fake_drm_last_commit(false)), 0);
	harness_vblank(h, 1, 0);
	assert_false(h->flips[1].captured);
	assert_int_equal(harness_stats(h).captures_skipped, 1);
}

/* A kernel that refuses a writeback connector routed without a framebuffer (the rule
 * before idle routes were accepted; see "Routing" in backend/writeback.c). */
static int refuse_idle_route(const struct fake_drm_commit *c, void *data)
{
	uint64_t crtc = 0, fb = 0;
	(void)data;
	if (fake_drm_commit_value(c, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_CRTC_ID, &crtc) && crtc &&
			!fake_drm_commit_value(c, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_WB_FB_ID, &fb))
		return EINVAL;
	return 0;
}

static int setup_refusing_idle_route(void **state)
{
	fake_drm_set_policy(refuse_idle_route, NULL);
	*state = harness_setup(&two_buffers);
	return 0;
}

/* The first modeset's TEST_ONLY with the idle route refused, the pipe retries without
 * it and from then on routes the connector only on capture commits, which go out as
 * modesets; the capture still completes. */
static void refused_idle_route_falls_back_to_routing_per_capture(void **state)
{
	struct harness *h = *state;
	uint64_t v = 0;
	const struct fake_drm_commit *first = fake_drm_commit_at(0);
	assert_true(first->flags & DRM_MODE_ATOMIC_TEST_ONLY);
	assert_int_equal(first->result, -EINVAL);
	assert_true(fake_drm_commit_value(first, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_CRTC_ID, &v));
	assert_int_equal(v, FAKE_DRM_CRTC);
	const struct fake_drm_commit *modeset = fake_drm_last_commit(false);
	assert_int_equal(modeset->result, 0);
	assert_true(modeset->flags & DRM_MODE_ATOMIC_ALLOW_MODESET);
	v = 0;
	fake_drm_commit_value(modeset, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_CRTC_ID, &v);
	assert_int_equal(v, 0);
	assert_false(wbc_kms_pipe_writeback_routed(h->pipe));

	commit(h, 1, true, 1);
	const struct fake_drm_commit *armed = fake_drm_last_commit(false);
	assert_int_equal(armed->result, 0);
	assert_true(armed->flags & DRM_MODE_ATOMIC_ALLOW_MODESET);
	assert_false(armed->flags & DRM_MODE_ATOMIC_NONBLOCK);
	assert_true(fake_drm_commit_value(armed, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_CRTC_ID, &v));
	assert_int_equal(v, FAKE_DRM_CRTC);
	assert_int_not_equal(wb_fb_of(armed), 0);
	harness_vblank(h, 1, 0);
	fake_drm_fence_signal(0, true, 0x50);
	harness_dispatch(h);
	assert_int_equal(h->n_frames, 1);
	assert_ptr_equal(h->frames[0].frame.user_data, TAG(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f, opts) cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, \
	(void *)&(opts))
		T(capture_arms_pool_buffer_and_fence_on_its_commit_only, two_buffers),
		T(frame_delivered_once_fence_and_flip_both_arrived, two_buffers),
		T(next_commit_waits_for_previous_out_fence, two_buffers),
		T(overlap_commits_do_not_wait_for_fence, overlap),
		T(skip_commits_at_once_without_capture_while_one_in_flight, skip),
		T(deadline_waits_for_fence_until_before_next_vblank, deadline),
		T(pool_buffers_handed_out_and_released, two_buffers),
		T(fence_timeout_reports_lost_and_releases_waiting_commit, one_buffer_30ms),
		T(fence_signalled_on_unwritten_buffer_reported_lost, one_buffer),
#undef T
		cmocka_unit_test_setup_teardown(refused_idle_route_falls_back_to_routing_per_capture,
			setup_refusing_idle_route, teardown),
	};
	return cmocka_run_group_tests_name("backend-writeback", tests, NULL, NULL);
}
