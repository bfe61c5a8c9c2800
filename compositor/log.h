/* Logging: wlr_log with a "wbc: " prefix for wbc's own messages (see server.c's handlers:
 * without -v only wbc's own errors are printed, one line each). */
#ifndef WBC_LOG_H
#define WBC_LOG_H

#include <wlr/util/log.h>

/* wbc_log(WLR_ERROR, "format", args...): the format must be a string literal. */
#define wbc_log(verb, ...) _wlr_log((verb), "wbc: " __VA_ARGS__)

void wbc_log_setup(bool verbose);

#endif
