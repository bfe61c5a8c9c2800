/* SPDX-License-Identifier: MIT */
/* One recording's FFmpeg state: encoder, optional libswscale conversion,
 * muxer and output. Not thread-safe: after wbc_encoder_open() every call
 * must come from one thread at a time (the recorder's worker). */
#ifndef WBC_RECORDER_ENCODE_H
#define WBC_RECORDER_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "messages.h"

struct wbc_encoder;

struct wbc_encoder_config {
	const char *output, *codec, *container, *sdp_path;
	const char *const *codec_opts;
	size_t n_codec_opts;
	const char *const *container_opts;
	size_t n_container_opts;
	uint32_t width, height, drm_format;
	int rotation;                    /* clockwise degrees, see wbc_recorder_options */
	/* Must outlive the encoder. */
	const struct wbc_recorder_logger *log;
	/* FFmpeg I/O interrupt callback (nonzero aborts blocking network
	 * I/O); called on whatever thread does I/O. May be NULL. */
	int (*interrupt)(void *data);
	void *interrupt_data;
	/* Called on the encoding thread after each packet went to the muxer, with the
	 * timestamp_ns of its frame (reconstructed from its pts: exact to a tick of the
	 * encoder's time base). May be NULL. */
	void (*written)(void *data, int64_t frame_ns);
	void *written_data;
};

/* Called exactly once per wbc_encoder_encode() call when the frame's memory
 * is no longer used: during that call, or later during a following
 * encode(), finish() or close() (encoders that keep references). */
typedef void (*wbc_encoder_done_fn)(void *opaque);

/* What wbc_encoder_open() would refuse before it opens the output or knows the frames:
 * the container's name (or the output's), the codec's name and that the container takes
 * it, and the codec options against that codec (none checked without a codec named:
 * which default encoder opens is known only when one does). 0, or what open() would
 * return, with the same message. Any thread. */
int wbc_encoder_check(const struct wbc_encoder_config *config, char *err, size_t err_len);

/* Opens encoder and output and writes the header. 0 or negative errno with
 * a message in err. */
int wbc_encoder_open(const struct wbc_encoder_config *config, struct wbc_encoder **out,
		char *err, size_t err_len);

/* Converts/wraps, encodes and writes one frame. *accepted tells whether the
 * encoder took the frame (even if writing its packets then failed).
 * Returns 0 or a negative errno with a message in err; after an error the
 * encoder is failed and only finish()/close() make sense. */
int wbc_encoder_encode(struct wbc_encoder *enc, const void *data, uint32_t stride,
		int64_t timestamp_ns, wbc_encoder_done_fn done, void *opaque,
		bool *accepted, char *err, size_t err_len);

/* Flushes the encoder (unless failed), makes the last frame last until
 * stop_ns, writes the trailer and closes the output. Returns 0 or the first
 * error (negative errno, message in err). */
int wbc_encoder_finish(struct wbc_encoder *enc, int64_t stop_ns, char *err, size_t err_len);

/* Frees everything (runs pending done callbacks). NULL allowed. */
void wbc_encoder_close(struct wbc_encoder *enc);

int64_t wbc_encoder_bytes_written(const struct wbc_encoder *enc);
const char *wbc_encoder_codec_name(const struct wbc_encoder *enc);
const char *wbc_encoder_container_name(const struct wbc_encoder *enc);
const char *wbc_encoder_pixel_format(const struct wbc_encoder *enc);
const char *wbc_encoder_sdp_path(const struct wbc_encoder *enc);

#endif
