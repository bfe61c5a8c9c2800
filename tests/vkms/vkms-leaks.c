/* No fd, buffer or framebuffer leaks: after teardown the process's fd count and the
 * device's framebuffer list are back where they started — after plain flips, and after
 * 1000 commits armed for writeback (sync_file fds included), sampled midway too. */
#include <drm_fourcc.h>
#include "common.h"

static void cycle(size_t commits, bool capture, int *fds_midway)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, true, true);
	if (capture)
		assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, NULL), 0);
	struct wbc_kms_buffer *b[2] = {
		test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888),
		test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888),
	};
	for (size_t i = 0; i < commits; i++) {
		struct wbc_kms_pipe_state s = { .primary.fb = &b[i % 2]->fb, .capture = capture };
		if (wbc_kms_pipe_commit(tp.pipe, &s) < 0)
			fail_msg("commit %zu: %s", i, wbc_kms_device_error(tp.dev));
		test_wait_flips(&tp, i + 1, 30000);
		assert_int_equal(tp.ev.n_flips, i + 1);
		if (i == commits / 2 && fds_midway)
			*fds_midway = test_count_fds();
	}
	if (capture) {
		test_wait_frames(&tp, commits, 30000);
		assert_int_equal(tp.ev.n_frames, commits);
	}
	test_pipe_fini(&tp);
}

static void flips_leave_nothing(void **state)
{
	int fds = test_count_fds(), fbs = test_count_framebuffers();
	assert_true(fds > 0);
	assert_true(fbs >= 0);
	cycle(60, false, NULL);
	assert_int_equal(test_count_fds(), fds);
	assert_int_equal(test_count_framebuffers(), fbs);
}

static void armed_commits_leave_nothing(void **state)
{
	int fds = test_count_fds(), fbs = test_count_framebuffers(), midway = -1;
	cycle(1000, true, &midway);
	print_message("fds: %d before, %d after 500 armed commits (device open), %d after\n",
		fds, midway, test_count_fds());
	/* Midway the device fd and its epoll fd are open, and at most the one in-flight fence. */
	assert_true(midway <= fds + 3);
	assert_int_equal(test_count_fds(), fds);
	assert_int_equal(test_count_framebuffers(), fbs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flips_leave_nothing),
		cmocka_unit_test(armed_commits_leave_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
