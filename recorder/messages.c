/* SPDX-License-Identifier: MIT */
#include "messages.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/error.h>
#include <libavutil/log.h>

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

/* FFmpeg's logger is process-wide, so its destination is too (see
 * wbc_recorder_set_library_log: set while no recorder runs, read by any). */
static wbc_recorder_log_fn library_log;
static void *library_log_data;

static void forward_av_log(void *avcl, int level, const char *fmt, va_list args)
	__attribute__((format(printf, 3, 0)));

static void forward_av_log(void *avcl, int level, const char *fmt, va_list args)
{
	char line[1024];
	int print_prefix = 1;
	size_t n;

	if (!library_log || level > av_log_get_level())
		return;
	av_log_format_line2(avcl, level, fmt, args, line, sizeof(line), &print_prefix);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (n)
		library_log(library_log_data, WBC_RECORDER_LOG_DEBUG, line);
}

void wbc_recorder_set_library_log(wbc_recorder_log_fn fn, void *data)
{
	library_log = fn;
	library_log_data = data;
	if (fn) {
		av_log_set_level(AV_LOG_VERBOSE);
		av_log_set_callback(forward_av_log);
	} else {
		av_log_set_level(AV_LOG_QUIET);
		av_log_set_callback(av_log_default_callback);
	}
}
