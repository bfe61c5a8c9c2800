/* SPDX-License-Identifier: MIT */
/* Latency figures: the histogram's quantiles, and the recorder's ready/written latencies
 * measured from frames with known timestamps. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "latency.h"
#include "test-util.h"
#include "wbc/recorder.h"

#define MS 1000000LL

/* Within the histogram's stated resolution (3.2 %) of want. */
static void assert_near_ms(double got, double want)
{
	if (fabs(got - want) > want * 0.032 + 0.0005)
		fail_msg("%.4f ms, want %.4f ms +-3.2%%", got, want);
}

static void test_histogram(void **state)
{
	struct wbc_latency lat = { 0 };

	(void)state;
	assert_true(wbc_latency_quantile_ms(&lat, 0.5) == 0.0);
	for (int i = 0; i < 900; i++)
		wbc_latency_add(&lat, 5 * MS);
	for (int i = 0; i < 100; i++)
		wbc_latency_add(&lat, 200 * MS);
	assert_int_equal(lat.count, 1000);
	assert_near_ms(wbc_latency_quantile_ms(&lat, 0.50), 5.0);
	assert_near_ms(wbc_latency_quantile_ms(&lat, 0.90), 5.0);
	assert_near_ms(wbc_latency_quantile_ms(&lat, 0.91), 200.0);
	assert_near_ms(wbc_latency_quantile_ms(&lat, 0.99), 200.0);

	/* Every magnitude from 1 us to 10 min lands in a bin holding it within 3.2 %. */
	for (double ms = 0.001; ms < 600e3; ms *= 1.37) {
		struct wbc_latency one = { 0 };
		wbc_latency_add(&one, (int64_t)(ms * MS));
		double got = wbc_latency_quantile_ms(&one, 0.5);
		if (ms >= 0.016)
			assert_near_ms(got, ms);
		else
			assert_true(fabs(got - ms) <= 0.001);   /* 1 us bins below 16 us */
	}

	struct wbc_latency neg = { 0 };
	wbc_latency_add(&neg, -5 * MS);                /* a clock step: counted as 0 */
	assert_int_equal(neg.count, 1);
	assert_true(wbc_latency_quantile_ms(&neg, 0.5) < 0.001);
}

/* Frames stamped 30 ms in the past whose pixels were ready 10 ms after their stamp:
 * ready latency 10 ms; written latency at least 30 ms (the packet is written after the
 * submit) and at most the test's duration. Frames without ready_ns count only for
 * written. */
static void test_recorder_latency(void **state)
{
	enum { N = 20, NO_READY = 5 };
	struct wbc_recorder_options o;
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char dir[256], path[300], err[512];

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/latency.mkv", dir);
	o = tu_options(path);
	o.codec = "ffv1";
	o.queue_length = N;
	assert_int_equal(wbc_recorder_create(&o, &rec, err, sizeof(err)), 0);
	int64_t start = tu_now_ns();
	for (unsigned i = 0; i < N; i++) {
		int64_t ts = tu_now_ns() - 30 * MS;
		struct wbc_recorder_frame f = tu_make_frame(&t, i, ts);
		f.ready_ns = i < NO_READY ? 0 : ts + 10 * MS;
		assert_int_equal(wbc_recorder_submit(rec, &f), 0);
		tu_sleep_ms(3);
	}
	assert_int_equal(wbc_recorder_stop(rec, tu_now_ns()), 0);
	double elapsed_ms = (double)(tu_now_ns() - start) / MS + 30.0;
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.encoded, N);
	assert_int_equal(s.latency_ready_frames, N - NO_READY);
	assert_near_ms(s.ready_ms_p50, 10.0);
	assert_near_ms(s.ready_ms_p99, 10.0);
	assert_int_equal(s.latency_written_frames, N);
	assert_true(s.written_ms_p50 >= 30.0 * 0.968);
	assert_true(s.written_ms_p99 >= s.written_ms_p50);
	assert_true(s.written_ms_p99 <= elapsed_ms * 1.032);
	print_message("written latency p50 %.2f ms p99 %.2f ms (test ran %.0f ms)\n",
		s.written_ms_p50, s.written_ms_p99, elapsed_ms);
	wbc_recorder_destroy(rec);
	assert_int_equal(t.released, N);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_recorder_latency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
