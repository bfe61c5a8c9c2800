/*
 * libFuzzer target: wbc's command line, wbc_options_parse() (compositor/shell/options.c), on
 * any argv. The input is split at NUL bytes into arguments after argv[0] = "wbc" (at most
 * MAX_ARGS). It prints its one error line (stderr) or --help/--version (stdout): run with
 * -close_fd_mask=3 (tests/fuzz/run.sh does). Checked on every result:
 *   - OK: APP is a non-empty tail of argv; every string the options keep is one of the
 *     arguments; numbers are within the ranges the rest of wbc assumes (mode sizes,
 *     refresh, --fps, --duration and --screenshot-after as timer values, counts of
 *     repeatable options);
 *     recording options only with --record; --codec-opt/--container-opt are KEY=VALUE.
 *   - EXIT: -h, --help or --version is one of the arguments.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../compositor/shell/options.h"
#include "fuzz-util.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_arg(char **argv, int argc, const char *s)
{
	for (int i = 1; i < argc; i++)
		if (argv[i] == s)
			return true;
	return false;
}

static bool seconds_ok(double s)
{
	return isfinite(s) && s >= 0 && s * 1000 <= INT_MAX;
}

static void check_kv(char **argv, int argc, const char *const *list, size_t n)
{
	assert(n <= WBC_MAX_AV_OPTS);
	for (size_t i = 0; i < n; i++) {
		assert(is_arg(argv, argc, list[i]));
		assert(list[i][0] != '=' && strchr(list[i], '='));
	}
}

static void check_ok(char **argv, int argc, const struct wbc_options *o)
{
	assert(o->app_argv && o->app_argv[0]);
	ptrdiff_t at = o->app_argv - argv;
	assert(at >= 1 && at < argc);
	assert(argv[argc] == NULL);
	const char *strings[] = { o->device, o->output, o->record, o->codec, o->container,
		o->frame_checksums, o->control_socket };
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		assert(!strings[i] || is_arg(argv, argc, strings[i]));
	if (o->has_mode) {
		assert(o->mode_width >= 1 && o->mode_width <= 16384);
		assert(o->mode_height >= 1 && o->mode_height <= 16384);
		assert(o->mode_refresh_mhz >= 0 && o->mode_refresh_mhz <= 1000000);
	}
	/* server.c and screenshot.c arm wl_event_source timers with (int)(seconds * 1000)
	 * ms; record.c captures every (uint64_t)(1e9 / fps) ns. */
	assert(seconds_ok(o->duration_s));
	assert(o->fps == 0 || (isfinite(o->fps) && o->fps > 0 && o->fps <= 1000 &&
		1e9 / o->fps < 0x1p64));
	assert(o->n_screenshots <= WBC_MAX_SCREENSHOTS);
	for (size_t i = 0; i < o->n_screenshots; i++) {
		assert(seconds_ok(o->screenshots[i].after_s));
		assert(is_arg(argv, argc, o->screenshots[i].path));
	}
	check_kv(argv, argc, o->codec_opts, o->n_codec_opts);
	check_kv(argv, argc, o->container_opts, o->n_container_opts);
	assert(o->capture == WBC_CAPTURE_AUTO || o->capture == WBC_CAPTURE_FORCE_WRITEBACK ||
		o->capture == WBC_CAPTURE_FORCE_READBACK);
	if (!o->record)
		assert(!o->codec && !o->container && !o->n_codec_opts && !o->n_container_opts &&
			o->fps == 0 && (!o->stats || o->allow_control) && !o->frame_checksums);
	/* control.c: --control-socket PATH implies --allow-control. */
	assert(!o->control_socket || o->allow_control);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size);
	if (!buf)
		return 0;
	char *argv[MAX_ARGS + 2] = { "wbc" };
	int argc = 1;
	for (char *p = buf; argc <= MAX_ARGS && p <= buf + size; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	struct wbc_options o;
	memset(&o, 0xa5, sizeof(o));         /* the parser must set every field */
	enum wbc_parse_result r = wbc_options_parse(argc, argv, &o);
	if (r == WBC_PARSE_OK) {
		check_ok(argv, argc, &o);
	} else if (r == WBC_PARSE_EXIT) {
		bool seen = false;
		for (int i = 1; i < argc && !seen; i++)
			seen = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
				!strcmp(argv[i], "--version");
		assert(seen);
	} else {
		assert(r == WBC_PARSE_ERROR);
	}
	free(buf);
	return 0;
}
