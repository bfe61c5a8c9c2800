/* SPDX-License-Identifier: MIT */
#include "messages.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/error.h>

static void vformat(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void vformat(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t prefix = strlen(WBC_LOG_PREFIX);

	if (!buf || len == 0)
		return;
	snprintf(buf, len, "%s", WBC_LOG_PREFIX);
	if (len > prefix)
		vsnprintf(buf + prefix, len - prefix, fmt, ap);
}

void wbc_recorder_log_msg(const struct wbc_recorder_logger *log, enum wbc_recorder_log_level level,
		const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log || !log->fn)
		return;
	va_start(ap, fmt);
	vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log->fn(log->data, level, msg);
}

void wbc_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(buf, len, fmt, ap);
	va_end(ap);
}

int wbc_averror_to_errno(int averr)
{
	if (averr >= 0)
		return 0;
	/* AVERROR(e) is -e for POSIX codes; FFmpeg's tags are far below. */
	if (averr > -4096)
		return averr;
	if (averr == AVERROR_ENCODER_NOT_FOUND || averr == AVERROR_MUXER_NOT_FOUND ||
			averr == AVERROR_OPTION_NOT_FOUND)
		return -EINVAL;
	if (averr == AVERROR_PROTOCOL_NOT_FOUND)
		return -EPROTONOSUPPORT;
	return -EIO;
}
