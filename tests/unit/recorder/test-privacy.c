/* SPDX-License-Identifier: MIT */
/* Recordings are private (issue 8): a file output is mode 0600 whatever the
 * umask, including an existing file that is recorded over. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <libavutil/log.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define N_FRAMES 3
#define FRAME_NS (TU_NS_PER_S / 30)

/* Records N_FRAMES ffv1 frames to output under the given umask; returns the
 * file's permission bits and checks that it decodes with all its frames. */
static unsigned record_with_umask(const char *output, const char *path, mode_t mask)
{
	struct wbc_recorder_options o = tu_options(output);
	struct wbc_recorder *rec = NULL;
	struct tu_tracker t;
	struct tu_media m;
	struct stat st;
	char err[512];
	mode_t old = umask(mask);

	o.codec = "ffv1";
	tu_tracker_init(&t);
	assert_int_equal(wbc_recorder_create(&o, &rec, err, sizeof(err)), 0);
	umask(old);
	for (unsigned i = 0; i < N_FRAMES; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, i * FRAME_NS, 4), 0);
	assert_int_equal(wbc_recorder_stop(rec, N_FRAMES * FRAME_NS), 0);
	wbc_recorder_destroy(rec);
	assert_int_equal(t.released, N_FRAMES);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(tu_decode_file(path, NULL, NULL, NULL, &m), 0);
	assert_int_equal(m.frames, N_FRAMES);
	fprintf(stderr, "%s (umask %03o): mode %04o, %u frames\n", output, (unsigned)mask,
		(unsigned)(st.st_mode & 07777), m.frames);
	return (unsigned)(st.st_mode & 07777);
}

static void test_new_file(void **state)
{
	char dir[256], path[300];

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/new.mkv", dir);
	assert_int_equal(record_with_umask(path, path, 0), 0600);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(record_with_umask(path, path, 022), 0600);
	tu_rmtree(dir);
}

static void test_file_url(void **state)
{
	char dir[256], path[300], url[310];

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/url.mkv", dir);
	snprintf(url, sizeof(url), "file:%s", path);
	assert_int_equal(record_with_umask(url, path, 0), 0600);
	tu_rmtree(dir);
}

/* A readable file recorded over: made 0600 and truncated. */
static void test_existing_file(void **state)
{
	char dir[256], path[300];
	int fd;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/old.mkv", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(write(fd, "not a video\n", 12), 12);
	assert_int_equal(close(fd), 0);
	assert_int_equal(record_with_umask(path, path, 0), 0600);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_existing_file),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
