/* SPDX-License-Identifier: MIT */
/*
 * The recorder as a loadable module: wbc-recorder.so holds the recorder and FFmpeg, and
 * wbc loads it (dlopen) only when it records, so that a session which never records does
 * not map FFmpeg's hundred-odd libraries (~0.5 s of a start in a TCG guest, and memory on
 * a kiosk). The module exports one symbol, WBC_RECORDER_MODULE_SYMBOL: a table of the
 * functions of wbc/recorder.h that the compositor calls, each as documented there.
 * Programs that link the recorder itself (its tests, the benchmarks) call those functions
 * directly instead.
 */
#ifndef WBC_RECORDER_MODULE_H
#define WBC_RECORDER_MODULE_H

#include <stddef.h>
#include "wbc/recorder.h"

/* Raised whenever the table or a type it passes changes: a module of another version
 * is refused by name. */
#define WBC_RECORDER_MODULE_VERSION 1
#define WBC_RECORDER_MODULE_SYMBOL "wbc_recorder_module"
/* The file name wbc looks for along its library search path (RUNPATH names its directory). */
#define WBC_RECORDER_MODULE_FILE "wbc-recorder.so"

struct wbc_recorder_module {
	unsigned version;                /* WBC_RECORDER_MODULE_VERSION */
	size_t size;                     /* sizeof(struct wbc_recorder_module) */
	int (*check)(const struct wbc_recorder_options *options, char *err, size_t err_len);
	int (*create)(const struct wbc_recorder_options *options, struct wbc_recorder **out,
		char *err, size_t err_len);
	int (*submit)(struct wbc_recorder *rec, const struct wbc_recorder_frame *frame);
	int (*get_event_fd)(struct wbc_recorder *rec);
	void (*dispatch)(struct wbc_recorder *rec);
	int (*drain)(struct wbc_recorder *rec, int timeout_ms);
	int (*stop)(struct wbc_recorder *rec, int64_t stop_timestamp_ns);
	void (*destroy)(struct wbc_recorder *rec);
	const char *(*error)(const struct wbc_recorder *rec);
	void (*get_stats)(struct wbc_recorder *rec, struct wbc_recorder_stats *stats);
	const char *(*codec_name)(const struct wbc_recorder *rec);
	const char *(*container_name)(const struct wbc_recorder *rec);
	const char *(*encoder_pixel_format)(const struct wbc_recorder *rec);
	const char *(*sdp_path)(const struct wbc_recorder *rec);
	bool (*container_untimed)(const char *container);
	const char *(*protocol_name)(const char *output);
	void (*set_library_log)(wbc_recorder_log_fn fn, void *data);
};

#endif /* WBC_RECORDER_MODULE_H */
