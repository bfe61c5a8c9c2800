/* SPDX-License-Identifier: MIT */
/* Queue, drops, accounting, event fd and release dispatch. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <libavutil/log.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define FRAME_NS (TU_NS_PER_S / 60)

static struct wbc_recorder *create_codec(const char *dir, const char *codec,
		unsigned queue_length, unsigned delay_ms)
{
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	char path[300], err[512];

	snprintf(path, sizeof(path), "%s/queue.mkv", dir);
	o = tu_options(path);
	o.codec = codec;
	o.queue_length = queue_length;
	o.test_worker_delay_ms = delay_ms;
	assert_int_equal(wbc_recorder_create(&o, &rec, err, sizeof(err)), 0);
	return rec;
}

/* ffv1 takes XRGB8888 directly: frames are wrapped, not copied. */
static struct wbc_recorder *create_ffv1(const char *dir, unsigned queue_length,
		unsigned delay_ms)
{
	return create_codec(dir, "ffv1", queue_length, delay_ms);
}

static void wait_encoded(struct wbc_recorder *rec, uint64_t n)
{
	struct wbc_recorder_stats s;

	for (int i = 0; i < 1000; i++) {
		wbc_recorder_get_stats(rec, &s);
		if (s.encoded >= n)
			return;
		tu_sleep_ms(2);
	}
	fail_msg("frame %llu never encoded", (unsigned long long)n);
}

static void assert_accounted(struct wbc_recorder *rec)
{
	struct wbc_recorder_stats s;

	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.dropped, s.dropped_queue_full + s.dropped_ended);
	assert_int_equal(s.submitted, s.encoded + s.dropped + s.queue_depth + s.encoding);
}

/* A worker slower than the producer: submit() keeps returning at once,
 * overflow is dropped and counted, and everything adds up after stop. */
static void test_slow_sink_drops(void **state)
{
	enum { N = 40 };
	struct wbc_recorder_frame frames[N];
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	unsigned queued = 0, full = 0, other = 0;
	struct tu_tracker t;
	char dir[256];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_ffv1(dir, 4, 100);
	/* Frames prepared up front so the submit loop itself is fast. */
	for (unsigned i = 0; i < N; i++)
		frames[i] = tu_make_frame(&t, i, i * FRAME_NS);
	for (unsigned i = 0; i < N; i++) {
		int ret = wbc_recorder_submit(rec, &frames[i]);

		queued += ret == 0;
		full += ret == -EAGAIN;
		other += ret != 0 && ret != -EAGAIN;
		if (ret != 0)
			free(frames[i].user); /* still ours: no release coming */
	}
	/* All N calls returned (none waited for room): 4 queued + maybe the
	 * one the worker picked up, the rest dropped. */
	assert_int_equal(other, 0);
	assert_int_equal(queued + full, N);
	assert_true(queued >= 4 && queued <= 6);
	assert_true(full > 0);
	assert_int_equal(t.released, 0); /* only dispatch releases */
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.submitted, N);
	assert_int_equal(s.dropped_queue_full, full);
	assert_true(s.queue_depth <= 4);
	assert_accounted(rec);

	assert_int_equal(wbc_recorder_stop(rec, N * FRAME_NS), 0);
	wbc_recorder_get_stats(rec, &s);
	fprintf(stderr, "slow sink: %u submitted, %llu encoded, %llu dropped, encode %.1f ms mean\n",
		N, (unsigned long long)s.encoded, (unsigned long long)s.dropped,
		s.encode_ms_mean);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_int_equal(s.encoded, queued);
	assert_int_equal(s.dropped, full);
	assert_int_equal(s.queue_depth, 0);
	assert_int_equal(s.releases_pending, 0);
	assert_int_equal(t.released, queued);
	assert_int_equal(t.wrong_thread, 0);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* The event fd signals pending releases; dispatch runs and resets them.
 * (libx264 needs libswscale, so the release follows the conversion.) */
static void test_event_fd_dispatch(void **state)
{
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	struct pollfd pfd;
	char dir[256];
	int n = 0;

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_codec(dir, "libx264", 4, 0);
	pfd = (struct pollfd){ .fd = wbc_recorder_get_event_fd(rec), .events = POLLIN };
	assert_true(pfd.fd >= 0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(tu_submit(rec, &t, 0, 0), 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	/* The release is pending, not run, until dispatch. */
	for (int i = 0; i < 500; i++) {
		wbc_recorder_get_stats(rec, &s);
		if (s.releases_pending == 1)
			break;
		tu_sleep_ms(2);
	}
	assert_int_equal(s.releases_pending, 1);
	assert_int_equal(t.released, 0);
	wbc_recorder_dispatch(rec);
	assert_int_equal(t.released, 1);
	assert_int_equal(poll(&pfd, 1, 0), 0); /* reset */
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.releases_pending, 0);
	wait_encoded(rec, 1); /* released after conversion, maybe before encode */

	/* Drive a few frames through the fd only. */
	for (unsigned i = 1; i <= 5; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, i * FRAME_NS, 4), 0);
	while (t.released < 6 && n++ < 100)
		tu_pump(rec, 50);
	assert_int_equal(t.released, 6);
	assert_int_equal(wbc_recorder_stop(rec, 6 * FRAME_NS), 0);
	assert_int_equal(t.wrong_thread, 0);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* A wrapped (zero-copy) frame is released only once the encoder dropped
 * its reference -- ffv1 keeps the previous picture until the next one. */
static void test_direct_input_release(void **state)
{
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char dir[256];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_ffv1(dir, 4, 0);
	assert_int_equal(tu_submit(rec, &t, 0, 0), 0);
	wait_encoded(rec, 1);
	assert_int_equal(tu_submit(rec, &t, 1, FRAME_NS), 0);
	wait_encoded(rec, 2);
	for (int i = 0; i < 100 && t.released < 1; i++)
		tu_pump(rec, 20);
	assert_true(t.released >= 1);
	assert_true(t.released <= 2);
	assert_int_equal(wbc_recorder_stop(rec, 2 * FRAME_NS), 0);
	assert_int_equal(t.released, 2);
	assert_int_equal(t.wrong_thread, 0);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* Drain (an output going away): with a converting encoder (libx264) every frame comes
 * back and the recording goes on; with a wrapping one (ffv1 keeps the last picture) it
 * times out, and stop still gives everything back. */
static void test_drain(void **state)
{
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char dir[256];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_codec(dir, "libx264", 4, 20);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(tu_submit(rec, &t, i, i * FRAME_NS), 0);
	assert_int_equal(wbc_recorder_drain(rec, 5000), 0);
	assert_int_equal(t.released, 3);
	/* The gap: the next frame 10 s later, accepted and encoded. */
	assert_int_equal(tu_submit(rec, &t, 3, 10 * TU_NS_PER_S), 0);
	assert_int_equal(wbc_recorder_stop(rec, 11 * TU_NS_PER_S), 0);
	assert_int_equal(t.released, 4);
	assert_accounted(rec);
	wbc_recorder_destroy(rec);

	tu_tracker_init(&t);
	rec = create_ffv1(dir, 4, 0);
	assert_int_equal(tu_submit(rec, &t, 0, 0), 0);
	wait_encoded(rec, 1);
	assert_int_equal(wbc_recorder_drain(rec, 200), -ETIMEDOUT);
	assert_int_equal(wbc_recorder_stop(rec, FRAME_NS), 0);
	assert_int_equal(t.released, 1);
	assert_int_equal(t.wrong_thread, 0);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* After stop, submit() refuses with -EPIPE, counted as dropped. */
static void test_submit_after_stop(void **state)
{
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char dir[256];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_ffv1(dir, 4, 0);
	assert_int_equal(tu_submit(rec, &t, 0, 0), 0);
	assert_int_equal(wbc_recorder_stop(rec, FRAME_NS), 0);
	assert_int_equal(t.released, 1); /* stop() dispatches */
	assert_int_equal(tu_submit(rec, &t, 1, FRAME_NS), -EPIPE);
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.submitted, 2);
	assert_int_equal(s.encoded, 1);
	assert_int_equal(s.dropped_ended, 1);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_int_equal(t.released, 1);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* destroy() without stop() still encodes/releases everything queued. */
static void test_destroy_without_stop(void **state)
{
	struct wbc_recorder *rec;
	unsigned queued = 0;
	struct tu_tracker t;
	char dir[256];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_ffv1(dir, 8, 5);
	for (unsigned i = 0; i < 8; i++)
		queued += tu_submit(rec, &t, i, i * FRAME_NS) == 0;
	assert_true(queued >= 8);
	wbc_recorder_destroy(rec);
	assert_int_equal(t.released, queued);
	assert_int_equal(t.wrong_thread, 0);
	tu_rmtree(dir);
}

/* Invalid frames are refused without being counted or released. */
static void test_invalid_frames(void **state)
{
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct wbc_recorder_frame f = { 0 };
	static uint8_t small[16];
	char dir[256];

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	rec = create_ffv1(dir, 4, 0);
	assert_int_equal(wbc_recorder_submit(rec, NULL), -EINVAL);
	f.stride = tu_stride(TU_W);
	assert_int_equal(wbc_recorder_submit(rec, &f), -EINVAL); /* NULL data */
	f.data = small;
	f.stride = TU_W * 4 - 1;
	assert_int_equal(wbc_recorder_submit(rec, &f), -EINVAL); /* stride */
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.submitted, 0);
	assert_int_equal(wbc_recorder_stop(rec, 0), 0);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_sink_drops),
		cmocka_unit_test(test_event_fd_dispatch),
		cmocka_unit_test(test_direct_input_release),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_submit_after_stop),
		cmocka_unit_test(test_destroy_without_stop),
		cmocka_unit_test(test_invalid_frames),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
