/*
 * The writeback fence timeout (backend/writeback.c). A job whose out-fence does not signal
 * is reported lost fence_timeout_ms after its commit was shown; the commit held back for
 * it goes out then; the lost buffer stays out of the pool until its fence signals after
 * all; a pool with a lost buffer can still be freed without leaks.
 *
 * The fence that does not signal is a real sync_file: through the backend's debug_fence
 * hook a sw_sync fence (the kernel's software timeline) stands in for the kernel's
 * out-fence of chosen commits, and the test decides when, if ever, it signals. The
 * kernel's own fence is closed: its write still happens, unobserved.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include "common.h"

#define TIMEOUT_MS 1500
#define MAX_JOBS 16

/* Which armed commits (in order) get a sw_sync fence at which point; 0: the kernel's. */
struct fence_swap {
	int timeline;
	unsigned calls;
	uint32_t point[MAX_JOBS];
};

static int swap_fence(void *data, int fence_fd)
{
	struct fence_swap *fs = data;
	unsigned i = fs->calls++;
	if (i >= MAX_JOBS || !fs->point[i])
		return fence_fd;
	close(fence_fd);
	return test_sw_sync_fence(fs->timeline, fs->point[i]);
}

static void enable(struct test_pipe *tp, struct fence_swap *fs, int timeout_ms)
{
	struct wbc_kms_writeback_options o;
	wbc_kms_writeback_options_init(&o);
	o.n_buffers = 3;
	o.fence_timeout_ms = timeout_ms;
	o.debug_fence = swap_fence;
	o.debug_fence_data = fs;
	assert_int_equal(wbc_kms_pipe_enable_writeback(tp->pipe, &o), 0);
}

static void commit(struct test_pipe *tp, struct wbc_kms_buffer *b, bool capture, uintptr_t tag)
{
	struct wbc_kms_pipe_state s = { .primary.fb = &b->fb, .capture = capture,
		.user_data = (void *)tag };
	if (wbc_kms_pipe_commit(tp->pipe, &s) < 0)
		fail_msg("commit %zu: %s", (size_t)tag, wbc_kms_device_error(tp->dev));
}

static void commit_wait(struct test_pipe *tp, struct wbc_kms_buffer *b, bool capture,
		uintptr_t tag)
{
	size_t flips = tp->ev.n_flips;
	commit(tp, b, capture, tag);
	test_wait_flips(tp, flips + 1, 30000);
	assert_int_equal(tp->ev.n_flips, flips + 1);
	assert_int_equal(tp->ev.flips[flips].status, WBC_KMS_FLIP_DONE);
}

static void wait_lost(struct test_pipe *tp, size_t n)
{
	test_wait_lost(tp, n, 30000);
	assert_int_equal(tp->ev.n_lost, n);
}

static struct wbc_kms_pipe_stats stats(struct test_pipe *tp)
{
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp->pipe, &st);
	return st;
}

static bool frame_tagged(const struct test_pipe *tp, uintptr_t tag)
{
	for (size_t i = 0; i < tp->ev.n_frames; i++)
		if (tp->ev.frames[i].user_data == (void *)tag)
			return true;
	return false;
}

/* Lost, commits resume, the buffer is kept out until its fence signals late. */
static void lost_then_late(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	tp.ev.allow_lost = true;
	struct fence_swap fs = { .timeline = test_sw_sync_timeline(), .point = { [1] = 1 } };
	enable(&tp, &fs, TIMEOUT_MS);
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00336699);

	commit_wait(&tp, b, true, 1);                /* the modeset, captured */
	test_wait_frames(&tp, 1, 30000);
	assert_int_equal(tp.ev.n_frames, 1);

	commit(&tp, b, true, 2);                     /* its fence will not signal */
	commit(&tp, b, false, 3);                    /* held back for it */
	wait_lost(&tp, 1);
	const struct test_lost *l = &tp.ev.lost[0];
	const struct wbc_kms_flip_event *shown = &tp.ev.flips[1];
	print_message("lost: vblank %llu, %.0f ms after its flip's vblank: %s\n",
		(unsigned long long)l->sequence, (double)(l->at_ns - shown->timestamp_ns) / 1e6,
		l->reason);
	assert_ptr_equal(l->user_data, (void *)2);
	assert_int_equal(l->timeout_ms, TIMEOUT_MS);
	assert_int_equal(l->sequence, shown->sequence);
	assert_true(l->at_ns >= shown->timestamp_ns + (uint64_t)TIMEOUT_MS * 1000000u);
	assert_non_null(strstr(l->reason, "had not signalled 1500 ms"));
	assert_int_equal(l->flips_before, 2);        /* commit 3 waited for it */
	test_wait_flips(&tp, 3, 30000);
	assert_int_equal(tp.ev.n_flips, 3);
	assert_int_equal(tp.ev.flips[2].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(tp.ev.flips[2].user_data, (void *)3);

	/* Two of the three buffers are left: a consumer holding two frames leaves none. */
	tp.ev.hold_frames = true;
	commit_wait(&tp, b, true, 4);
	commit_wait(&tp, b, true, 5);
	commit_wait(&tp, b, true, 6);
	test_wait_frames(&tp, 3, 30000);
	struct wbc_kms_pipe_stats st = stats(&tp);
	assert_int_equal(tp.ev.n_frames, 3);
	assert_false(tp.ev.flips[5].captured);
	assert_int_equal(st.captures_skipped, 1);
	assert_int_equal(st.captures_lost, 1);
	assert_int_equal(st.captures_late, 0);

	/* The fence signals after all: the buffer is usable again, its frame never shown. */
	test_sw_sync_advance(fs.timeline, 1);
	for (int i = 0; i < 3000 && stats(&tp).captures_late == 0; i++)
		wbc_kms_device_wait(tp.dev, 10);
	assert_int_equal(stats(&tp).captures_late, 1);
	commit_wait(&tp, b, true, 7);
	test_wait_frames(&tp, 4, 30000);
	st = stats(&tp);
	print_message("armed %llu, done %llu, skipped %llu, lost %llu, late %llu\n",
		(unsigned long long)st.captures_armed, (unsigned long long)st.captures_done,
		(unsigned long long)st.captures_skipped, (unsigned long long)st.captures_lost,
		(unsigned long long)st.captures_late);
	assert_int_equal(tp.ev.n_frames, 4);
	assert_true(frame_tagged(&tp, 7));
	assert_false(frame_tagged(&tp, 2));
	assert_int_equal(st.captures_armed, 5);
	assert_int_equal(st.captures_done, 4);
	test_pipe_fini(&tp);
	close(fs.timeline);
}

/* A fence that never signals, with the default timeout: the pool is freed with the lost
 * buffer still out, and nothing leaks (fds, framebuffers). */
static void never_signals_default_timeout(void **state)
{
	int fds = test_count_fds(), fbs = test_count_framebuffers();
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	tp.ev.allow_lost = true;
	struct fence_swap fs = { .timeline = test_sw_sync_timeline(), .point = { [0] = 1000 } };
	enable(&tp, &fs, 0);
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00102030);
	commit_wait(&tp, b, true, 1);
	commit(&tp, b, false, 2);
	wait_lost(&tp, 1);
	assert_int_equal(tp.ev.lost[0].timeout_ms, WBC_KMS_WB_FENCE_TIMEOUT_MS);
	assert_int_equal(tp.ev.lost[0].flips_before, 1);
	test_wait_flips(&tp, 2, 30000);
	assert_int_equal(tp.ev.n_flips, 2);
	assert_int_equal(tp.ev.n_frames, 0);
	test_pipe_fini(&tp);
	close(fs.timeline);
	int fbs_after = test_settled_framebuffers(fbs, 5000);
	print_message("fds %d -> %d, framebuffers %d -> %d\n", fds, test_count_fds(), fbs,
		fbs_after);
	assert_int_equal(test_count_fds(), fds);
	assert_int_equal(fbs_after, fbs);
}

/* fence_timeout_ms < 0 keeps the old rule: the next commit waits as long as it takes. */
static void negative_timeout_waits(void **state)
{
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	tp.ev.allow_lost = true;
	struct fence_swap fs = { .timeline = test_sw_sync_timeline(), .point = { [0] = 1 } };
	enable(&tp, &fs, -1);
	struct wbc_kms_buffer *b = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_fill(b, 0x00abcdef);
	commit_wait(&tp, b, true, 1);
	commit(&tp, b, false, 2);
	for (int i = 0; i < 250; i++)                /* 2.5 s: past any default timeout */
		wbc_kms_device_wait(tp.dev, 10);
	assert_int_equal(tp.ev.n_lost, 0);
	assert_int_equal(tp.ev.n_flips, 1);
	assert_true(wbc_kms_pipe_busy(tp.pipe));
	test_sw_sync_advance(fs.timeline, 1);
	test_wait_flips(&tp, 2, 30000);
	assert_int_equal(tp.ev.n_flips, 2);
	assert_int_equal(tp.ev.n_frames, 1);
	assert_ptr_equal(tp.ev.frames[0].user_data, (void *)1);
	test_pipe_fini(&tp);
	close(fs.timeline);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(lost_then_late, test_teardown),
		cmocka_unit_test_teardown(never_signals_default_timeout, test_teardown),
		cmocka_unit_test_teardown(negative_timeout_waits, test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
