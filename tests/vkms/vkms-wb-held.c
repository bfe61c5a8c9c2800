/* A consumer that holds every buffer never slows the display: commits keep flowing at
 * vblank rate, captures are skipped and counted; releasing the buffers resumes capture. */
#include <drm_fourcc.h>
#include "common.h"

static void commit_n(struct test_pipe *tp, struct wbc_kms_buffer *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t flips = tp->ev.n_flips;
		struct wbc_kms_pipe_state s = { .primary.fb = &b->fb, .capture = true };
		if (wbc_kms_pipe_commit(tp->pipe, &s) < 0)
			fail_msg("commit: %s", wbc_kms_device_error(tp->dev));
		test_wait_flips(tp, flips + 1, 30000);
		assert_int_equal(tp->ev.n_flips, flips + 1);
	}
}

static void held_buffers_skip_captures(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, NULL), 0);   /* 3 buffers */
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00808080);
	tp.ev.hold_frames = true;
	commit_n(&tp, b, 60);
	test_wait_frames(&tp, 3, 30000);
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp.pipe, &st);
	print_message("held: flips %llu captured %llu skipped %llu missed vblanks %llu\n",
		(unsigned long long)st.flips, (unsigned long long)st.captures_done,
		(unsigned long long)st.captures_skipped, (unsigned long long)st.missed_vblanks);
	assert_int_equal(st.flips, 60);
	assert_int_equal(tp.ev.n_frames, 3);
	assert_int_equal(st.captures_done, 3);
	assert_int_equal(st.captures_skipped, 57);
	for (size_t i = 1; i < 60; i++)
		assert_int_equal(tp.ev.flips[i].status, WBC_KMS_FLIP_DONE);

	/* Give them back: every later commit is captured again. */
	for (size_t i = 0; i < tp.ev.n_held; i++)
		wbc_kms_pipe_release_frame(tp.pipe, tp.ev.held[i]);
	tp.ev.n_held = 0;
	tp.ev.hold_frames = false;
	commit_n(&tp, b, 10);
	test_wait_frames(&tp, 13, 30000);
	wbc_kms_pipe_get_stats(tp.pipe, &st);
	assert_int_equal(tp.ev.n_frames, 13);
	assert_int_equal(st.captures_done, 13);
	assert_int_equal(st.captures_skipped, 57);
	test_pipe_fini(&tp);
}

/* Turning writeback off while a captured commit is in flight: the display keeps flipping
 * and nothing touches the freed pool. On VKMS the flip usually arrives while the pool
 * drains its fences, so this passes with or without the pipe drain in
 * wbc_kms_pipe_disable_writeback; it covers the other order (fence first) only when the
 * timing gives it. */
static void disable_while_capture_in_flight(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, NULL), 0);
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00405060);
	commit_n(&tp, b, 1);                       /* the blocking modeset */
	struct wbc_kms_pipe_state s = { .primary.fb = &b->fb, .capture = true };
	assert_int_equal(wbc_kms_pipe_commit(tp.pipe, &s), 0);   /* NONBLOCK, in flight */
	wbc_kms_pipe_disable_writeback(tp.pipe);
	assert_int_equal(wbc_kms_pipe_writeback_format(tp.pipe), 0);
	test_wait_flips(&tp, 2, 30000);
	assert_int_equal(tp.ev.n_flips, 2);
	assert_int_equal(tp.ev.flips[1].status, WBC_KMS_FLIP_DONE);
	s.capture = false;
	assert_int_equal(wbc_kms_pipe_commit(tp.pipe, &s), 0);
	test_wait_flips(&tp, 3, 30000);
	assert_int_equal(tp.ev.n_flips, 3);
	test_pipe_fini(&tp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(held_buffers_skip_captures, test_teardown),
		cmocka_unit_test_teardown(disable_while_capture_in_flight, test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
