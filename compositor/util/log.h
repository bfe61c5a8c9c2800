/* Logging: wlr_log with a "wbc: " prefix for wbc's own messages (see server.c's handlers:
 * without -v only wbc's own errors are printed, one line each). */
#ifndef WBC_LOG_H
#define WBC_LOG_H

#include <stdbool.h>
#include <wlr/util/log.h>

/* wbc_log(WLR_ERROR, "format", args...): the format must be a string literal. */
#define wbc_log(verb, ...) _wlr_log((verb), "wbc: " __VA_ARGS__)

void wbc_log_setup(bool verbose);
bool wbc_log_verbose(void);
/* Keep wlroots' error lines from now until stop, which returns them joined by "; " (""
 * if there were none; valid until the next start). Main thread only. */
void wbc_log_collect_start(void);
const char *wbc_log_collect_stop(void);
/* Hold back what anything in the process writes to stderr (libraries that write there
 * themselves: Mesa's loader while it looks for a driver) until release: with -v it is
 * written out then, without it is dropped (wbc names the cause in its own line). hold
 * returns what release takes (-1 when it could not hold: release does nothing). No
 * other thread may log meanwhile (call it before the recorder starts). */
int wbc_log_hold_stderr(void);
void wbc_log_release_stderr(int saved);
/* A "wbc: ..." line shown even without -v (what the user asked to be told: how the screen
 * is captured, what is recorded). With -v it is an INFO line of the debug log. */
__attribute__((format(printf, 1, 2)))
void wbc_notice(const char *fmt, ...);

#endif
