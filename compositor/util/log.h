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
/* A "wbc: ..." line shown even without -v (what the user asked to be told: how the screen
 * is captured, what is recorded). With -v it is an INFO line of the debug log. */
__attribute__((format(printf, 1, 2)))
void wbc_notice(const char *fmt, ...);

#endif
