/* Log handlers: quiet (wbc's own errors only, as "wbc: ..." lines) or verbose (all). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "log.h"

static bool is_own(const char *fmt)
{
	return strncmp(fmt, "wbc: ", 5) == 0;
}

static void log_quiet(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	if (importance > WLR_ERROR || !is_own(fmt))
		return;
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

static void log_verbose(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	static const char *const names[] = { "", "ERROR", "INFO", "DEBUG" };
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "%5ld.%03ld [%s] ", (long)ts.tv_sec, ts.tv_nsec / 1000000L,
		importance < WLR_LOG_IMPORTANCE_LAST ? names[importance] : "?");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
}

void wbc_log_setup(bool verbose)
{
	wlr_log_init(verbose ? WLR_DEBUG : WLR_ERROR, verbose ? log_verbose : log_quiet);
}
