/* SPDX-License-Identifier: MIT */
/* Message formatting for the recorder: "wbc-recorder: " prefixed log lines
 * through the caller's callback, and error strings for caller buffers. */
#ifndef WBC_RECORDER_MESSAGES_H
#define WBC_RECORDER_MESSAGES_H

#include <stddef.h>

#include "wbc/recorder.h"

#define WBC_LOG_PREFIX "wbc-recorder: "

/* Immutable after creation; may be used from any thread. */
struct wbc_recorder_logger {
	wbc_recorder_log_fn fn; /* NULL: logging disabled */
	void *data;
};

void wbc_recorder_log_msg(const struct wbc_recorder_logger *log, enum wbc_recorder_log_level level,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes WBC_LOG_PREFIX + message into buf (if buf && len). */
void wbc_errf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Maps an AVERROR code to a negative errno (-EIO for FFmpeg's own codes). */
int wbc_averror_to_errno(int averr);

#endif
