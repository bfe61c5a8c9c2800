/*
 * 300 consecutive commits armed for writeback, none after the first a modeset: 300
 * fences signal, each frame carries its own commit's sequence and user data, and its
 * content is the pattern drawn for that commit (the commit number is in the pattern).
 * Then 600 commits that do not wait for the previous capture's fence: on a patched VKMS
 * every one is captured, in order, with its own content; stock VKMS strands a job there
 * (tests/vm/vkms-patches), which is reported, not failed. Then 600 commits that go
 * without capture while one is in flight (WBC_KMS_WB_SKIP). (What waiting for the out-fence
 * costs the display is a benchmark's question: bench/run-vkms.sh.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Run `commits` commits from flip events, each with its own content (when `draw`) and
 * capture; `check`: wait for each commit's frame before the next. Stops early, after the
 * flip, once a job was lost or a frame was not its commit's and `stop_on_loss` (stock
 * VKMS then completes every later fence for the wrong job). */
static double run(struct test_pipe *tp, size_t commits, bool draw, bool check,
		bool stop_on_loss)
{
	struct wbc_kms_buffer *buf[2] = {
		test_buffer(tp, tp->width, tp->height, DRM_FORMAT_XRGB8888),
		test_buffer(tp, tp->width, tp->height, DRM_FORMAT_XRGB8888),
	};
	for (size_t i = 0; i < commits; i++) {
		/* buf[i % 2] is off screen: the commit that showed it has been replaced.
		 * Drawing is the test's CPU work, not the library's: the timing run skips it. */
		if (draw || i < 2)
			test_draw(buf[i % 2], (uint32_t)i);
		struct wbc_kms_pipe_state s = { .primary.fb = &buf[i % 2]->fb, .capture = true,
			.user_data = (void *)(uintptr_t)i };
		if (test_commit_busy_retry(tp, &s) < 0)
			fail_msg("commit %zu: %s", i, wbc_kms_device_error(tp->dev));
		/* Wait until this commit flipped and, when checking, its frame arrived. */
		test_wait_flips(tp, i + 1, 30000);
		assert_int_equal(tp->ev.n_flips, i + 1);
		if (check)
			test_wait_settled(tp, i + 1, 30000);
		if (stop_on_loss && (tp->ev.n_lost ||
				(tp->ev.n_frames && tp->ev.frames[tp->ev.n_frames - 1].content)))
			return 0;
	}
	test_wait_frames(tp, commits - tp->ev.n_lost, 30000);   /* lost ones never come */
	const struct wbc_kms_flip_event *f = tp->ev.flips;
	return (double)(f[commits - 1].timestamp_ns - f[1].timestamp_ns) / (double)(commits - 2);
}

/* Stock VKMS loses jobs (tests/vm/vkms-patches): a run there stops at the first loss and
 * says whether it happened; it passes either way, since the loss depends on host load. */
static void report_stock(struct test_pipe *tp, size_t commits)
{
	size_t wrong = 0;
	for (size_t i = 0; i < tp->ev.n_frames; i++)
		wrong += tp->ev.frames[i].content != 0;
	if (tp->ev.n_lost)
		print_message("stock VKMS (%s): a writeback job was lost after %zu of %zu commits "
			"(%s); the run stops there\n", getenv("WBC_VM_KERNEL"),
			tp->ev.lost[0].flips_before, commits, tp->ev.lost[0].reason);
	if (wrong)
		print_message("stock VKMS (%s): %zu of %zu frames held another commit's content "
			"(a fence completed the wrong job)\n", getenv("WBC_VM_KERNEL"), wrong,
			tp->ev.n_frames);
	if (!tp->ev.n_lost && !wrong)
		print_message("stock VKMS (%s): no job lost in %zu commits this run\n",
			getenv("WBC_VM_KERNEL"), commits);
}

static void every_commit_captured_in_order(void **state)
{
	bool stock = test_vkms_flavour("stock");
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	if (wbc_kms_pipe_enable_writeback(tp.pipe, NULL) < 0)
		fail_msg("writeback: %s", wbc_kms_device_error(tp.dev));
	struct seq_check c = { 0 };
	tp.ev.frame_check = frame_is_its_commit;
	tp.ev.frame_check_data = &c;
	tp.ev.allow_lost = stock;
	double interval = run(&tp, COMMITS, true, true, stock);
	if (stock) {
		report_stock(&tp, COMMITS);
		test_pipe_fini(&tp);
		return;
	}

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


#define DRAWN_ONCE_COMMITS 600
/* Each paced run (two pacings, headless and cloned): four runs of 300 take the time two
 * of 600 took. */
#define PACED_COMMITS 300
/* Four buffers drawn once, so that none is drawn while a job may still read it: with
 * pacing other than WBC_KMS_WB_WAIT a commit goes out while the last one's capture is
 * being composed, and on a patched VKMS the frame after it too. */
#define DRAWN_ONCE_BUFFERS 4

static int frame_is_its_buffer(void *data, const struct wbc_kms_wb_frame *f)
{
	struct wbc_kms_wb_frame g = *f;
	g.user_data = (void *)((uintptr_t)f->user_data % DRAWN_ONCE_BUFFERS);
	return frame_is_its_commit(data, &g);
}

/* A 640x480 pipe with writeback paced so, its frames checked against buffer i % 4:
 * headless (the writeback connector the pipe's), or Virtual-1 cloned to writeback. */
static void init_paced(struct test_pipe *tp, enum wbc_kms_wb_pacing pacing, bool cloned,
		struct seq_check *c)
{
	if (cloned)
		test_pipe_init(tp, 640, 480, false, false);
	else
		test_pipe_init_wb(tp, 640, 480, false, false);
	struct wbc_kms_writeback_options o;
	wbc_kms_writeback_options_init(&o);
	o.pacing = pacing;
	if (wbc_kms_pipe_enable_writeback(tp->pipe, &o) < 0)
		fail_msg("writeback: %s", wbc_kms_device_error(tp->dev));
	tp->ev.frame_check = frame_is_its_buffer;
	tp->ev.frame_check_data = c;
}

/* `commits` commits each made at its predecessor's flip, showing buffer i % 4, all
 * asking for capture; stops after the flip once a job was lost and `stop_on_loss`. */
static void run_drawn_once(struct test_pipe *tp, size_t commits, bool stop_on_loss)
{
	struct wbc_kms_buffer *buf[DRAWN_ONCE_BUFFERS];
	for (uint32_t k = 0; k < DRAWN_ONCE_BUFFERS; k++) {
		buf[k] = test_buffer(tp, tp->width, tp->height, DRM_FORMAT_XRGB8888);
		test_draw(buf[k], k);
	}
	for (size_t i = 0; i < commits; i++) {
		struct wbc_kms_pipe_state s = { .primary.fb = &buf[i % DRAWN_ONCE_BUFFERS]->fb,
			.capture = true, .user_data = (void *)(uintptr_t)i };
		if (wbc_kms_pipe_commit(tp->pipe, &s) < 0)
			fail_msg("commit %zu: %s", i, wbc_kms_device_error(tp->dev));
		test_wait_flips(tp, i + 1, 30000);
		assert_int_equal(tp->ev.n_flips, i + 1);
		if (stop_on_loss && (tp->ev.n_lost ||
				(tp->ev.n_frames && tp->ev.frames[tp->ev.n_frames - 1].content)))
			return;
	}
}

/* After run_drawn_once: every capture armed was delivered, in order, exact, none lost;
 * every commit was either armed or skipped. Prints the counts and the flip rate, which
 * depend on the machine's speed. */
static void check_drawn_once(struct test_pipe *tp, size_t commits, const char *what)
{
	struct seq_check *c = tp->ev.frame_check_data;
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp->pipe, &st);
	test_wait_frames(tp, st.captures_armed, 30000);
	wbc_kms_pipe_get_stats(tp->pipe, &st);
	assert_int_equal(tp->ev.n_lost, 0);
	assert_int_equal(c->bad, 0);
	assert_int_equal(st.captures_armed + st.captures_skipped, commits);
	assert_int_equal(tp->ev.n_frames, st.captures_armed);
	assert_int_equal(st.captures_done, st.captures_armed);
	size_t captured = 0;
	for (size_t i = 0; i < commits; i++)
		captured += tp->ev.flips[i].captured;
	assert_int_equal(captured, st.captures_armed);
	for (size_t i = 0; i < tp->ev.n_frames; i++) {
		assert_int_equal(tp->ev.frames[i].content, 0);
		if (i) {
			assert_true(tp->ev.frames[i].sequence > tp->ev.frames[i - 1].sequence);
			assert_true(tp->ev.frames[i].user_data > tp->ev.frames[i - 1].user_data);
		}
	}
	const struct wbc_kms_flip_event *f = tp->ev.flips;
	double interval = (double)(f[commits - 1].timestamp_ns - f[1].timestamp_ns) /
		(double)(commits - 2);
	print_message("%s: %zu commits flipped, %llu captured exactly, %llu skipped, "
		"0 lost; mean flip interval %.3f ms, missed vblanks %llu\n", what, commits,
		(unsigned long long)st.captures_armed, (unsigned long long)st.captures_skipped,
		interval / 1e6, (unsigned long long)st.missed_vblanks);
}

/* No fence waits (WBC_KMS_WB_OVERLAP): the next capture is committed as soon as the
 * previous commit flipped, so several jobs may be in flight; each completes its own
 * commit's frame. A commit finding no free buffer goes without capture. */
static void no_wait_every_commit_captured(void **state)
{
	bool stock = test_vkms_flavour("stock");
	struct test_pipe tp;
	struct seq_check c = { 0 };
	init_paced(&tp, WBC_KMS_WB_OVERLAP, false, &c);
	/* Stock VKMS: a lost job is what this run looks for, so it is counted, not failed. */
	tp.ev.allow_lost = stock;
	run_drawn_once(&tp, DRAWN_ONCE_COMMITS, stock);
	if (stock) {
		struct wbc_kms_pipe_stats st;
		wbc_kms_pipe_get_stats(tp.pipe, &st);
		test_wait_settled(&tp, st.captures_armed, 30000);
		report_stock(&tp, DRAWN_ONCE_COMMITS);
		test_pipe_fini(&tp);
		return;
	}
	check_drawn_once(&tp, DRAWN_ONCE_COMMITS, "no fence waits");
	test_pipe_fini(&tp);
}

/* WBC_KMS_WB_SKIP (the display never waits for a fence) or _DEADLINE (it waits until
 * shortly before the next vblank), every commit asking for capture, each made at its
 * predecessor's flip; a commit that goes while a capture is in flight goes without one.
 * Every capture made is delivered, exact (the commit's own buffer, one of four drawn
 * once, so none is drawn while a job may still read it), none lost, and every commit
 * flips; headless, and with Virtual-1 cloned to writeback (the screen shown). How many
 * were skipped and how many vblanks were missed depend on the machine's speed: printed,
 * not asserted (bench/run-vkms.sh measures them). */
static void paced_run(enum wbc_kms_wb_pacing pacing, bool cloned)
{
	if (test_vkms_flavour("stock"))
		skip();              /* stock VKMS strands a job whose state is replaced */
	struct test_pipe tp;
	struct seq_check c = { 0 };
	init_paced(&tp, pacing, cloned, &c);
	run_drawn_once(&tp, PACED_COMMITS, false);
	char what[64];
	snprintf(what, sizeof(what), "%s pacing, %s",
		pacing == WBC_KMS_WB_SKIP ? "skip" : "deadline", cloned ? "cloned" : "headless");
	check_drawn_once(&tp, PACED_COMMITS, what);
	test_pipe_fini(&tp);
}

static void skip_display_never_waits(void **state)
{
	paced_run(WBC_KMS_WB_SKIP, false);
}

static void skip_display_never_waits_cloned(void **state)
{
	paced_run(WBC_KMS_WB_SKIP, true);
}

static void deadline_display_waits_until_vblank(void **state)
{
	paced_run(WBC_KMS_WB_DEADLINE, false);
}

static void deadline_display_waits_until_vblank_cloned(void **state)
{
	paced_run(WBC_KMS_WB_DEADLINE, true);
}

/* argv[1], optional: a cmocka test filter (e.g. every_commit_captured_in_order, for the
 * repeated runs under host load that tests/README.md reports). */
int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_commit_captured_in_order, test_teardown),
		cmocka_unit_test_teardown(no_wait_every_commit_captured, test_teardown),
		cmocka_unit_test_teardown(skip_display_never_waits, test_teardown),
		cmocka_unit_test_teardown(skip_display_never_waits_cloned, test_teardown),
		cmocka_unit_test_teardown(deadline_display_waits_until_vblank, test_teardown),
		cmocka_unit_test_teardown(deadline_display_waits_until_vblank_cloned, test_teardown),
		cmocka_unit_test_teardown(idle_route_accepted, test_teardown),
	};
	/* On stock VKMS one lost job poisons every later capture until vkms is reloaded:
	 * there only the two runs that report the loss are meaningful. */
	if (test_vkms_flavour("stock")) {
		print_message("stock VKMS: idle_route_accepted runs on patched kernels only\n");
		return _cmocka_run_group_tests("tests", tests, 2, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
