/* Command line parsing: wbc [options] -- APP [ARGS...] */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

#ifndef WBC_VERSION
#define WBC_VERSION "unknown"
#endif

static const char usage[] =
	"usage: wbc [--device PATH] [--mode WxH[@Hz]] [--duration SECONDS] [-v] [-h] [--version]\n"
	"           [--output NAME] [--screenshot-after SECONDS FILE.ppm]... -- APP [ARGS...]\n"
	"\n"
	"A kiosk Wayland compositor: runs APP fullscreen on the first connected display,\n"
	"driving it through wbc's own KMS backend, and exits with APP's exit status.\n"
	"\n"
	"  --device PATH        DRM device to use (default: the session's first GPU)\n"
	"  --mode WxH[@Hz]      display mode (default: the connector's preferred mode)\n"
	"  --output NAME        drive only this connector (e.g. Virtual-1; a writeback\n"
	"                       connector such as Writeback-1 makes a headless output)\n"
	"  --duration SECONDS   stop this long after APP started (exit status 0)\n"
	"  --screenshot-after SECONDS FILE\n"
	"                       debug: write one writeback frame, captured SECONDS after\n"
	"                       APP started, to FILE as a binary PPM (repeatable);\n"
	"                       where the display cannot be captured (VKMS on Linux 6.1)\n"
	"                       wbc drives the writeback connector headless instead\n"
	"  -v, --verbose        debug logging and statistics\n"
	"  -h, --help           this help\n"
	"  --version            print the version\n";

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		return false;
	*out = v;
	return true;
}

static bool parse_mode(const char *s, struct wbc_options *o)
{
	char *end;
	errno = 0;
	long w = strtol(s, &end, 10);
	if (errno || end == s || *end != 'x' || w <= 0 || w > 16384)
		return false;
	s = end + 1;
	long h = strtol(s, &end, 10);
	if (errno || end == s || h <= 0 || h > 16384)
		return false;
	double hz = 0;
	if (*end == '@') {
		s = end + 1;
		hz = strtod(s, &end);
		if (errno || end == s || !isfinite(hz) || hz <= 0 || hz > 1000)
			return false;
	}
	if (*end)
		return false;
	o->has_mode = true;
	o->mode_width = (int32_t)w;
	o->mode_height = (int32_t)h;
	o->mode_refresh_mhz = (int32_t)lround(hz * 1000);
	return true;
}

__attribute__((format(printf, 1, 2)))
static enum wbc_parse_result fail(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "wbc: ");
	vfprintf(stderr, fmt, args);
	fprintf(stderr, " (see wbc --help)\n");
	va_end(args);
	return WBC_PARSE_ERROR;
}

enum wbc_parse_result wbc_options_parse(int argc, char **argv, struct wbc_options *o)
{
	*o = (struct wbc_options){ 0 };
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return WBC_PARSE_EXIT;
		} else if (strcmp(a, "--version") == 0) {
			printf("wbc %s\n", WBC_VERSION);
			return WBC_PARSE_EXIT;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(a, "--device") == 0) {
			if (!next)
				return fail("%s needs a PATH", a);
			o->device = argv[++i];
		} else if (strcmp(a, "--output") == 0) {
			if (!next)
				return fail("%s needs a connector NAME", a);
			o->output = argv[++i];
		} else if (strcmp(a, "--mode") == 0) {
			if (!next || !parse_mode(next, o))
				return fail("--mode wants WxH or WxH@Hz, got '%s'", next ? next : "");
			i++;
		} else if (strcmp(a, "--duration") == 0) {
			if (!next || !parse_seconds(next, &o->duration_s))
				return fail("--duration wants SECONDS, got '%s'", next ? next : "");
			i++;
		} else if (strcmp(a, "--screenshot-after") == 0) {
			if (i + 2 >= argc)
				return fail("%s needs SECONDS and a FILE", a);
			if (o->n_screenshots == WBC_MAX_SCREENSHOTS)
				return fail("at most %d %s", WBC_MAX_SCREENSHOTS, a);
			struct wbc_screenshot_request *r = &o->screenshots[o->n_screenshots];
			if (!parse_seconds(argv[i + 1], &r->after_s))
				return fail("--screenshot-after wants SECONDS, got '%s'", argv[i + 1]);
			r->path = argv[i + 2];
			o->n_screenshots++;
			i += 2;
		} else if (a[0] == '-') {
			return fail("unknown option '%s'", a);
		} else {
			break;                   /* APP without "--" */
		}
	}
	if (i >= argc)
		return fail("%s", "no APP given: wbc [options] -- APP [ARGS...]");
	o->app_argv = &argv[i];
	return WBC_PARSE_OK;
}
