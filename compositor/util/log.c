/* Log handlers: quiet (wbc's own errors only, as "wbc: ..." lines) or verbose (all).
 * Also called from the recorder's worker thread: each line is written under the stderr
 * lock so that lines from two threads do not interleave. */
#define _GNU_SOURCE                      /* memfd_create */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "log.h"

static bool verbose_on;
/* wlroots' own error lines since wbc_log_collect_start (main thread only: wlroots logs
 * from it), joined by "; ", so that a failure inside wlroots can be named in wbc's line. */
static bool collecting;
static char collected[512];

__attribute__((format(printf, 1, 0)))
static void collect(const char *fmt, va_list args)
{
	size_t len = strlen(collected);
	if (len + 3 >= sizeof(collected))
		return;
	if (len) {
		strcpy(collected + len, "; ");
		len += 2;
	}
	vsnprintf(collected + len, sizeof(collected) - len, fmt, args);
}

static bool is_own(const char *fmt)
{
	return strncmp(fmt, "wbc: ", 5) == 0;
}

/* While collecting, wlroots' error lines (not wbc's own) are kept; args stay unread. */
__attribute__((format(printf, 2, 0)))
static void collect_if_wanted(enum wlr_log_importance importance, const char *fmt,
		va_list args)
{
	if (!collecting || importance != WLR_ERROR || is_own(fmt))
		return;
	va_list copy;
	va_copy(copy, args);
	collect(fmt, copy);
	va_end(copy);
}

__attribute__((format(printf, 2, 0)))
static void log_quiet(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	collect_if_wanted(importance, fmt, args);
	if (importance > WLR_ERROR || !is_own(fmt))
		return;
	flockfile(stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

__attribute__((format(printf, 2, 0)))
static void log_verbose(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	static const char *const names[] = { "", "ERROR", "INFO", "DEBUG" };
	collect_if_wanted(importance, fmt, args);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	flockfile(stderr);
	fprintf(stderr, "%5ld.%03ld [%s] ", (long)ts.tv_sec, ts.tv_nsec / 1000000L,
		importance < WLR_LOG_IMPORTANCE_LAST ? names[importance] : "?");
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void wbc_log_setup(bool verbose)
{
	verbose_on = verbose;
	wlr_log_init(verbose ? WLR_DEBUG : WLR_ERROR, verbose ? log_verbose : log_quiet);
}

void wbc_log_collect_start(void)
{
	collected[0] = '\0';
	collecting = true;
}

const char *wbc_log_collect_stop(void)
{
	collecting = false;
	return collected;
}

bool wbc_log_verbose(void)
{
	return verbose_on;
}

void wbc_notice(const char *fmt, ...)
{
	char line[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	if (verbose_on) {
		wbc_log(WLR_INFO, "%s", line);
		return;
	}
	flockfile(stderr);
	fprintf(stderr, "wbc: %s\n", line);
	funlockfile(stderr);
}

/* fd 2 goes to a memfd until released; with -v what was written is passed on then (wbc's
 * debug log was in it too), without it is dropped. Returns the saved stderr, or -1 (then
 * nothing moved). */
int wbc_log_hold_stderr(void)
{
	int mem = memfd_create("wbc-egl-stderr", MFD_CLOEXEC);
	int saved = mem >= 0 ? fcntl(2, F_DUPFD_CLOEXEC, 3) : -1;
	fflush(stderr);
	if (saved < 0 || dup2(mem, 2) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (mem >= 0)
		close(mem);
	return saved;
}

void wbc_log_release_stderr(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	int mem = fcntl(2, F_DUPFD_CLOEXEC, 3);
	dup2(saved, 2);
	close(saved);
	if (mem < 0)
		return;
	char buf[4096];
	ssize_t n;
	lseek(mem, 0, SEEK_SET);
	while (wbc_log_verbose() && (n = read(mem, buf, sizeof(buf))) > 0)
		if (write(2, buf, (size_t)n) != n)
			break;
	close(mem);
}
