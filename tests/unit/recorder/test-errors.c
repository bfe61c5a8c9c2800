/* SPDX-License-Identifier: MIT */
/* create() failures (clear message, nothing leaked) and write errors that
 * end a recording (disk full). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <drm_fourcc.h>
#include <libavutil/log.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define FRAME_NS (TU_NS_PER_S / 60)

/* create()'s last message, for check() to be compared with. */
static char create_err[8192];

/* create() must fail with want_errno and a message containing all of the
 * NULL-terminated needles, leaving no recorder, fd or thread behind. */
static void expect_create_error(const struct wbc_recorder_options *o, int want_errno,
		const char *const *needles)
{
	struct wbc_recorder *rec = (struct wbc_recorder *)&rec; /* poison */
	int fds = tu_count_fds(), threads = tu_count_threads();
	char *err = create_err;
	int ret;

	memset(err, 'x', sizeof(create_err));
	ret = wbc_recorder_create(o, &rec, err, sizeof(create_err));
	fprintf(stderr, "create(%s) = %d: %.200s%s\n", o && o->output ? o->output : "NULL", ret,
		err, strlen(err) > 200 ? "..." : "");
	assert_int_equal(ret, -want_errno);
	assert_null(rec);
	assert_non_null(memchr(err, '\0', sizeof(create_err)));
	assert_int_equal(strncmp(err, "wbc-recorder: ", 14), 0);
	for (; *needles; needles++) {
		if (!strstr(err, *needles))
			fail_msg("'%s' not in message '%s'", *needles, err);
	}
	assert_int_equal(tu_count_fds(), fds);
	assert_int_equal(tu_count_threads(), threads);
}

/* check() must see what create() just refused (before_output: the same errno and
 * message), or pass what only create() can see (the output, the frames), leaving
 * nothing behind. */
static void expect_precheck(const struct wbc_recorder_options *o, int want_errno,
		bool before_output)
{
	int fds = tu_count_fds(), threads = tu_count_threads();
	char err[8192];
	int ret = wbc_recorder_check(o, err, sizeof(err));

	fprintf(stderr, "check(%s) = %d: %.200s%s\n", o && o->output ? o->output : "NULL", ret,
		err, strlen(err) > 200 ? "..." : "");
	assert_int_equal(ret, before_output ? -want_errno : 0);
	assert_string_equal(err, before_output ? create_err : "");
	assert_int_equal(tu_count_fds(), fds);
	assert_int_equal(tu_count_threads(), threads);
}

/* Refused by create() and by check() alike. */
static void expect_refused_early(const struct wbc_recorder_options *o, int want_errno,
		const char *const *needles)
{
	expect_create_error(o, want_errno, needles);
	expect_precheck(o, want_errno, true);
}

/* Refused by create() only: the output, the frames, the container options or the
 * options of a codec not named are what is wrong. */
static void expect_refused_late(const struct wbc_recorder_options *o, int want_errno,
		const char *const *needles)
{
	expect_create_error(o, want_errno, needles);
	expect_precheck(o, want_errno, false);
}

static void test_unknown_codec(void **state)
{
	struct wbc_recorder_options o = tu_options("/tmp/never-created.mkv");
	static const char *const needles[] = {
		"unknown video encoder 'nosuchcodec'", "available:", "libx264", "ffv1",
		"mpeg4", NULL,
	};

	(void)state;
	o.codec = "nosuchcodec";
	expect_refused_early(&o, EINVAL, needles);
	o.codec = "aac"; /* an audio encoder is not a video encoder */
	expect_refused_early(&o, EINVAL, (const char *const[]){ "'aac'", NULL });
	assert_int_equal(access("/tmp/never-created.mkv", F_OK), -1);
}

static void test_unknown_container(void **state)
{
	struct wbc_recorder_options o = tu_options("/tmp/never-created.mkv");
	static const char *const needles[] = {
		"unknown container 'nosuchmux'", "available:", "matroska", "mp4", "mpegts",
		NULL,
	};

	(void)state;
	o.container = "nosuchmux";
	expect_refused_early(&o, EINVAL, needles);
	o = tu_options("/tmp/never-created.nosuchext");
	expect_refused_early(&o, EINVAL, (const char *const[]){
		"cannot guess the container", "never-created.nosuchext", "matroska", NULL });
	assert_int_equal(access("/tmp/never-created.mkv", F_OK), -1);
}

static void test_unwritable_path(void **state)
{
	struct wbc_recorder_options o = tu_options("/proc/nonexistent/x.mkv");

	(void)state;
	expect_refused_late(&o, ENOENT, (const char *const[]){
		"cannot open /proc/nonexistent/x.mkv", "No such file or directory", NULL });
}

static void test_output_is_directory(void **state)
{
	char dir[256], path[300];
	struct wbc_recorder_options o;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.mkv", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	o = tu_options(path);
	expect_refused_late(&o, EISDIR, (const char *const[]){
		"cannot open", path, "Is a directory", NULL });
	tu_rmtree(dir);
}

static void test_read_only_dir(void **state)
{
	char dir[256], path[300];
	struct wbc_recorder_options o;
	int ret;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.mkv", dir);
	o = tu_options(path);
	ret = tu_mount_tmpfs(dir, "size=64k", true);
	if (ret == 0) {
		expect_refused_late(&o, EROFS, (const char *const[]){
			"cannot open", path, "Read-only file system", NULL });
		tu_umount(dir);
	} else if (geteuid() != 0) {
		assert_int_equal(chmod(dir, 0500), 0);
		expect_refused_late(&o, EACCES, (const char *const[]){
			"cannot open", path, "Permission denied", NULL });
	} else {
		tu_rmtree(dir);
		skip(); /* root without mount rights: permissions do not apply */
	}
	tu_rmtree(dir);
}

static void test_bad_options(void **state)
{
	static const char *const no_kv[] = { "crf" };
	static const char *const unknown_opt[] = { "nosuchopt=1" };
	static const char *const bad_value[] = { "crf=abc" };
	static const char *const unknown_mux_opt[] = { "nosuchmuxopt=1" };
	char dir[256], path[300];
	struct wbc_recorder_options o;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.mkv", dir);

	o = tu_options(NULL);
	expect_refused_early(&o, EINVAL, (const char *const[]){ "no output", NULL });
	expect_refused_early(NULL, EINVAL, (const char *const[]){ "no output", NULL });
	o = tu_options(path);
	o.width = 0;
	expect_refused_late(&o, EINVAL, (const char *const[]){ "invalid frame size 0x240", NULL });
	o = tu_options(path);
	o.rotation = 45;
	expect_refused_late(&o, EINVAL, (const char *const[]){ "invalid rotation 45", NULL });
	o = tu_options(path);
	o.format = DRM_FORMAT_NV12;
	expect_refused_late(&o, EINVAL, (const char *const[]){ "unsupported DRM format", "NV12", NULL });
	/* Codec options: checked early only with the codec named (the default one is known
	 * only once one opens). */
	for (int named = 0; named < 2; named++) {
		void (*expect)(const struct wbc_recorder_options *, int, const char *const *) =
			named ? expect_refused_early : expect_refused_late;
		o = tu_options(path);
		o.codec = named ? "libx264" : NULL;
		o.codec_opts = no_kv;
		o.n_codec_opts = 1;
		expect(&o, EINVAL, (const char *const[]){ "'crf'", "KEY=VALUE", NULL });
		o.codec_opts = unknown_opt;
		expect(&o, EINVAL, (const char *const[]){
			"unknown option 'nosuchopt' for encoder libx264", NULL });
		o.codec_opts = bad_value;
		expect(&o, EINVAL, (const char *const[]){
			"invalid value 'abc' for option 'crf'", NULL });
	}
	o = tu_options(path);
	o.container_opts = unknown_mux_opt;
	o.n_container_opts = 1;
	expect_refused_late(&o, EINVAL, (const char *const[]){
		"unknown option 'nosuchmuxopt' for container matroska", NULL });
	o = tu_options(path);
	o.container = "mp4";
	o.codec = "ffv1";
	expect_refused_early(&o, EINVAL, (const char *const[]){ "mp4 cannot hold ffv1", NULL });
	tu_rmtree(dir);
}

/* An unknown container option is refused before the output is opened (opening truncates
 * it); muxer, generic, file-protocol and connection options are all still accepted. */
static void test_container_option_keeps_file(void **state)
{
	static const char *const unknown[] = { "cluster_time_limit=1000", "nosuchmuxopt=1" };
	static const char *const known[] = { "cluster_time_limit=1000", "flush_packets=1",
		"blocksize=65536", "rw_timeout=5000000" };
	static const char precious[] = "an earlier recording\n";
	char dir[256], path[300], buf[64] = "";
	struct wbc_recorder_options o;
	struct wbc_recorder *rec = NULL;
	char err[512];
	FILE *f;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.mkv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(precious, f);
	assert_int_equal(fclose(f), 0);

	o = tu_options(path);
	o.container_opts = unknown;
	o.n_container_opts = 2;
	expect_refused_late(&o, EINVAL, (const char *const[]){
		"unknown option 'nosuchmuxopt' for container matroska", NULL });
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, precious);

	o.container_opts = known;
	o.n_container_opts = 4;
	if (wbc_recorder_create(&o, &rec, err, sizeof(err)) < 0)
		fail_msg("known container options refused: %s", err);
	wbc_recorder_destroy(rec);
	tu_rmtree(dir);
}

/* Records ffv1 into a sink that fills up: the recording must end by itself
 * with ENOSPC, later submits get -EPIPE, stop() reports the error. */
static void record_until_full(const char *path, const char *container, const char *codec)
{
	struct wbc_recorder_options o = tu_options(path);
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	unsigned queued = 0, i;
	struct tu_tracker t;
	char err[1024], want[512];
	int ret = 0;

	tu_tracker_init(&t);
	o.codec = codec;
	o.container = container;
	ret = wbc_recorder_create(&o, &rec, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(ret, 0);
	for (i = 0; i < 400; i++) {
		ret = tu_submit_wait(rec, &t, i, i * FRAME_NS, 4);
		if (ret == -EPIPE)
			break;
		assert_int_equal(ret, 0);
		queued++;
	}
	assert_int_equal(ret, -EPIPE);
	snprintf(want, sizeof(want), "wbc-recorder: writing %s failed: No space left on device",
		path);
	assert_non_null(wbc_recorder_error(rec));
	assert_string_equal(wbc_recorder_error(rec), want);
	assert_int_equal(tu_submit(rec, &t, i + 1, (i + 1) * FRAME_NS), -EPIPE);
	assert_int_equal(wbc_recorder_stop(rec, (i + 2) * FRAME_NS), -ENOSPC);
	assert_int_equal(wbc_recorder_stop(rec, (i + 2) * FRAME_NS), -ENOSPC);
	wbc_recorder_get_stats(rec, &s);
	fprintf(stderr, "%s: ended after %u frames: %llu encoded, %llu dropped (%llu after end)\n",
		path, queued, (unsigned long long)s.encoded, (unsigned long long)s.dropped,
		(unsigned long long)s.dropped_ended);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_int_equal(s.submitted, queued + 2);
	assert_true(s.dropped_ended >= 2);
	assert_int_equal(t.released, queued);
	assert_int_equal(t.wrong_thread, 0);
	wbc_recorder_destroy(rec);
}

static void test_dev_full(void **state)
{
	(void)state;
	record_until_full("/dev/full", "matroska", "ffv1");
}

static void test_small_tmpfs(void **state)
{
	char dir[256], path[300];

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	if (tu_mount_tmpfs(dir, "size=512k", false) < 0) {
		tu_rmtree(dir);
		skip(); /* no mount rights; test_dev_full covers ENOSPC */
	}
	snprintf(path, sizeof(path), "%s/full.mkv", dir);
	record_until_full(path, NULL, "ffv1");
	tu_umount(dir);
	/* mp4 with the default H.264: small frames, so a smaller fs. */
	assert_int_equal(tu_mount_tmpfs(dir, "size=64k", false), 0);
	snprintf(path, sizeof(path), "%s/full.mp4", dir);
	record_until_full(path, NULL, NULL);
	tu_umount(dir);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_codec),
		cmocka_unit_test(test_unknown_container),
		cmocka_unit_test(test_unwritable_path),
		cmocka_unit_test(test_output_is_directory),
		cmocka_unit_test(test_read_only_dir),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_container_option_keeps_file),
		cmocka_unit_test(test_dev_full),
		cmocka_unit_test(test_small_tmpfs),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
