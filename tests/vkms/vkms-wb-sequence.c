/*
 * 300 consecutive commits armed for writeback, none after the first a modeset: 300
 * fences signal, each frame carries its own commit's sequence and user data, and its
 * content is the pattern drawn for that commit (the commit number is in the pattern).
 * Then the cost of honouring the out-fence rule: the same run with and without waiting
 * for the previous capture's fence, as flip intervals (printed, not asserted).
 */
#include <stdio.h>
#include <drm_fourcc.h>
#include "common.h"

#define COMMITS 300

struct seq_check {
	size_t bad;
};

static int frame_is_its_commit(void *data, const struct wbc_kms_wb_frame *f)
{
	struct seq_check *c = data;
	uint32_t n = (uint32_t)(uintptr_t)f->user_data;
	for (uint32_t y = 0; y < f->height; y += 1) {
		const uint32_t *row = (const uint32_t *)((const char *)f->data + (size_t)y * f->stride);
		for (uint32_t x = 0; x < f->width; x++)
			if ((row[x] & 0xffffffu) != test_pixel(x, y, n)) {
				if (c->bad++ < 3)
					print_message("commit %u (%u,%u): %06x != %06x\n", n, x, y,
						row[x] & 0xffffffu, test_pixel(x, y, n));
				return -1;
			}
	}
	return 0;
}

/* Run `commits` commits from flip events, each with its own content and capture. */
static double run(struct test_pipe *tp, size_t commits, bool check)
{
	struct wbc_kms_buffer *buf[2] = {
		test_buffer(tp, tp->width, tp->height, DRM_FORMAT_XRGB8888),
		test_buffer(tp, tp->width, tp->height, DRM_FORMAT_XRGB8888),
	};
	for (size_t i = 0; i < commits; i++) {
		/* buf[i % 2] is off screen: the commit that showed it has been replaced.
		 * Drawing is the test's CPU work, not the library's: the timing run skips it. */
		if (check || i < 2)
			test_draw(buf[i % 2], (uint32_t)i);
		struct wbc_kms_pipe_state s = { .primary.fb = &buf[i % 2]->fb, .capture = true,
			.user_data = (void *)(uintptr_t)i };
		if (test_commit_busy_retry(tp, &s) < 0)
			fail_msg("commit %zu: %s", i, wbc_kms_device_error(tp->dev));
		/* Wait until this commit flipped and, when checking, its frame arrived. */
		test_wait_flips(tp, i + 1, 30000);
		assert_int_equal(tp->ev.n_flips, i + 1);
		if (check)
			test_wait_frames(tp, i + 1, 30000);
	}
	test_wait_frames(tp, commits - tp->ev.n_lost, 30000);   /* lost ones never come */
	const struct wbc_kms_flip_event *f = tp->ev.flips;
	return (double)(f[commits - 1].timestamp_ns - f[1].timestamp_ns) / (double)(commits - 2);
}

static void every_commit_captured_in_order(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	if (wbc_kms_pipe_enable_writeback(tp.pipe, NULL) < 0)
		fail_msg("writeback: %s", wbc_kms_device_error(tp.dev));
	struct seq_check c = { 0 };
	tp.ev.frame_check = frame_is_its_commit;
	tp.ev.frame_check_data = &c;
	double interval = run(&tp, COMMITS, true);

	assert_int_equal(tp.ev.n_frames, COMMITS);
	for (size_t i = 0; i < COMMITS; i++) {
		assert_ptr_equal(tp.ev.frames[i].user_data, (void *)(uintptr_t)i);
		assert_int_equal(tp.ev.frames[i].sequence, tp.ev.flips[i].sequence);
		assert_int_equal(tp.ev.frames[i].timestamp_ns, tp.ev.flips[i].timestamp_ns);
		assert_int_equal(tp.ev.frames[i].content, 0);
		if (i)
			assert_true(tp.ev.frames[i].sequence > tp.ev.frames[i - 1].sequence);
	}
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp.pipe, &st);
	assert_int_equal(st.modesets, 1);
	assert_int_equal(st.captures_armed, COMMITS);
	assert_int_equal(st.captures_done, COMMITS);
	assert_int_equal(st.captures_skipped, 0);
	assert_true(wbc_kms_pipe_writeback_routed(tp.pipe));
	print_message("checked run: %d frames exact, mean flip interval %.3f ms, "
		"missed vblanks %llu\n", COMMITS, interval / 1e6,
		(unsigned long long)st.missed_vblanks);
	test_pipe_fini(&tp);
}

/* A routed writeback connector with no framebuffer: commits without capture. */
static void idle_route_accepted(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, NULL), 0);
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00204060);
	for (size_t i = 0; i < 20; i++) {
		struct wbc_kms_pipe_state s = { .primary.fb = &b->fb, .capture = i % 4 == 3 };
		if (wbc_kms_pipe_commit(tp.pipe, &s) < 0)
			fail_msg("commit %zu: %s", i, wbc_kms_device_error(tp.dev));
		test_wait_flips(&tp, i + 1, 30000);
	}
	test_wait_frames(&tp, 5, 30000);
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp.pipe, &st);
	assert_int_equal(st.flips, 20);
	assert_int_equal(st.modesets, 1);
	assert_int_equal(tp.ev.n_frames, 5);
	assert_true(wbc_kms_pipe_writeback_routed(tp.pipe));
	test_pipe_fini(&tp);
}

static void fence_wait_cost(void **state)
{
	double interval[2];
	uint64_t missed[2];
	for (int wait = 1; wait >= 0; wait--) {
		struct test_pipe tp;
		test_pipe_init_wb(&tp, 640, 480, false, false);
		struct wbc_kms_writeback_options o;
		wbc_kms_writeback_options_init(&o);
		o.wait_fence = wait;
		assert_int_equal(wbc_kms_pipe_enable_writeback(tp.pipe, &o), 0);
		/* A measurement: a job lost to the VKMS 6.1 race costs one fence timeout
		 * here, it is counted and printed, not a failure. */
		tp.ev.allow_lost = true;
		interval[wait] = run(&tp, 120, false);
		if (tp.ev.n_lost)
			print_message("%zu writeback jobs lost (VKMS race) while measuring\n",
				tp.ev.n_lost);
		struct wbc_kms_pipe_stats st;
		wbc_kms_pipe_get_stats(tp.pipe, &st);
		missed[wait] = st.missed_vblanks;
		assert_int_equal(st.flips, 120);
		test_pipe_fini(&tp);
	}
	print_message("fence wait cost: mean flip interval %.3f ms waiting for the previous "
		"capture's fence (%llu missed vblanks), %.3f ms not waiting (%llu missed)\n",
		interval[1] / 1e6, (unsigned long long)missed[1], interval[0] / 1e6,
		(unsigned long long)missed[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_commit_captured_in_order),
		cmocka_unit_test(idle_route_accepted),
		cmocka_unit_test(fence_wait_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
