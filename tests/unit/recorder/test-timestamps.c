/* SPDX-License-Identifier: MIT */
/* Variable frame rate timestamps and the stop-time extension of the last
 * frame, in mkv and mp4. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define BASE_NS (INT64_C(5000) * TU_NS_PER_S)

/* Irregular: 0.5 s gaps, sub-millisecond parts, one 20 ms step. In us. */
static const int64_t offsets_us[] = {
	0, 500333, 1000667, 1020000, 1520500, 2020001, 2520900,
};
#define N_OFFSETS (sizeof(offsets_us) / sizeof(offsets_us[0]))
#define STOP_US INT64_C(3250000)

static void record_irregular(const char *path, const char *codec, int64_t stop_ns)
{
	struct wbc_recorder_options o = tu_options(path);
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char err[1024];
	int ret;

	tu_tracker_init(&t);
	o.codec = codec;
	ret = wbc_recorder_create(&o, &rec, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(ret, 0);
	for (unsigned i = 0; i < N_OFFSETS; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, BASE_NS + offsets_us[i] * 1000, 4), 0);
	assert_int_equal(wbc_recorder_stop(rec, stop_ns), 0);
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.encoded, N_OFFSETS);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_int_equal(t.released, N_OFFSETS);
	wbc_recorder_destroy(rec);
}

static void check_irregular(const char *ext, const char *codec, bool mp4)
{
	char dir[256], path[300];
	struct tu_media m;

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/vfr.%s", dir, ext);
	record_irregular(path, codec, BASE_NS + STOP_US * 1000);
	assert_int_equal(tu_decode_file(path, NULL, NULL, NULL, &m), 0);
	assert_int_equal(m.frames, N_OFFSETS);
	for (unsigned i = 0; i < N_OFFSETS; i++) {
		double want = (double)offsets_us[i] / 1e6;

		if (fabs(m.pts_s[i] - want) > 0.001)
			fprintf(stderr, "frame %u: pts %.6f, want %.6f\n", i, m.pts_s[i], want);
		assert_true(fabs(m.pts_s[i] - want) <= 0.001);
	}
	fprintf(stderr, "%s/%s: duration %.6f s (stream %.6f s), stop at %.6f s\n", ext,
		codec, m.duration_s, m.stream_duration_s, (double)STOP_US / 1e6);
	/* Container durations are stored in ms: allow that rounding. */
	assert_true(fabs(m.duration_s - (double)STOP_US / 1e6) <= 0.002);
	if (mp4)
		assert_true(fabs(m.stream_duration_s - (double)STOP_US / 1e6) <= 0.002);
	tu_rmtree(dir);
}

static void test_vfr_mkv_x264(void **state)
{
	(void)state;
	check_irregular("mkv", "libx264", false);
}

static void test_vfr_mp4_x264(void **state)
{
	(void)state;
	check_irregular("mp4", "libx264", true);
}

static void test_vfr_mkv_ffv1(void **state)
{
	(void)state;
	check_irregular("mkv", "ffv1", false);
}

/* Without a later stop time the file ends at the last frame. */
static void test_no_extension(void **state)
{
	char dir[256], path[300];
	struct tu_media m;
	double last = (double)offsets_us[N_OFFSETS - 1] / 1e6;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/noext.mkv", dir);
	record_irregular(path, "ffv1", 0);
	assert_int_equal(tu_decode_file(path, NULL, NULL, NULL, &m), 0);
	assert_int_equal(m.frames, N_OFFSETS);
	assert_true(m.duration_s >= last - 0.002);
	assert_true(m.duration_s < last + 0.1);
	tu_rmtree(dir);
}

/* Repeated and backwards timestamps still give strictly increasing pts. */
static void test_non_monotonic(void **state)
{
	static const int64_t ms[] = { 0, 0, 100, 50, 200 };
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	char dir[256], path[300];
	struct tu_tracker t;
	struct tu_media m;

	(void)state;
	tu_tracker_init(&t);
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/mono.mkv", dir);
	o = tu_options(path);
	o.codec = "libx264";
	assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, BASE_NS + ms[i] * TU_NS_PER_MS, 4), 0);
	assert_int_equal(wbc_recorder_stop(rec, BASE_NS + 300 * TU_NS_PER_MS), 0);
	wbc_recorder_destroy(rec);
	assert_int_equal(t.released, 5);
	assert_int_equal(tu_decode_file(path, NULL, NULL, NULL, &m), 0);
	assert_int_equal(m.frames, 5);
	for (unsigned i = 1; i < 5; i++)
		assert_true(m.pts_s[i] > m.pts_s[i - 1]);
	assert_true(fabs(m.pts_s[2] - 0.100) <= 0.001);
	assert_true(fabs(m.pts_s[4] - 0.200) <= 0.001);
	tu_rmtree(dir);
}

/* A recording without frames stops cleanly and leaves the container
 * header behind. (FFmpeg 5.1 itself cannot read zero-packet mkv/mp4 files
 * back -- the ffmpeg CLI produces the same -- so the content is not
 * decoded here.) */
static void test_zero_frames(void **state)
{
	static const char *const exts[] = { "mkv", "mp4" };
	char dir[256], path[300];
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct stat st;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	for (unsigned i = 0; i < 2; i++) {
		struct wbc_recorder_options o;

		snprintf(path, sizeof(path), "%s/empty.%s", dir, exts[i]);
		o = tu_options(path);
		assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
		assert_int_equal(wbc_recorder_stop(rec, tu_now_ns()), 0);
		/* stop() is idempotent */
		assert_int_equal(wbc_recorder_stop(rec, tu_now_ns()), 0);
		wbc_recorder_get_stats(rec, &s);
		assert_int_equal(s.submitted, 0);
		assert_int_equal(s.encoded, 0);
		assert_null(wbc_recorder_error(rec));
		wbc_recorder_destroy(rec);
		assert_int_equal(stat(path, &st), 0);
		assert_true(st.st_size > 0);
	}
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vfr_mkv_x264),
		cmocka_unit_test(test_vfr_mp4_x264),
		cmocka_unit_test(test_vfr_mkv_ffv1),
		cmocka_unit_test(test_no_extension),
		cmocka_unit_test(test_non_monotonic),
		cmocka_unit_test(test_zero_frames),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
