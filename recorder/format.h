/* SPDX-License-Identifier: MIT */
/* Lookups and defaults: DRM fourcc -> AVPixelFormat, encoder selection and
 * per-encoder defaults, muxer selection, lists for error messages.
 * Stateless; all functions are thread-safe. */
#ifndef WBC_RECORDER_FORMAT_H
#define WBC_RECORDER_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

/* AV_PIX_FMT_NONE if the fourcc is not a supported packed RGB format. */
enum AVPixelFormat wbc_format_from_drm(uint32_t drm_format);

/* Mapped and convertible by libswscale (so any encoder can take it). */
int wbc_format_supported(uint32_t drm_format);

/* Minimum stride in bytes of a row of width pixels of drm_format, 0 if
 * unsupported. */
uint32_t wbc_format_min_stride(uint32_t drm_format, uint32_t width);

/* The pixel format to give the encoder for frames in src: src itself if
 * the encoder takes it, else yuv420p if it takes that, else FFmpeg's best
 * match. */
enum AVPixelFormat wbc_format_encoder_input(const AVCodec *codec, enum AVPixelFormat src);

/* Video encoder by encoder name ("libx264") or codec name ("h264");
 * NULL if there is none. */
const AVCodec *wbc_codec_find(const char *name);

/* Encoders to try, in order, when no codec was requested. Returns how many
 * were stored in out (at most max). */
size_t wbc_codec_default_candidates(const AVCodec **out, size_t max);

/* Time base suitable for the encoder (1/1000000 unless the codec limits
 * its time base denominator). */
AVRational wbc_codec_time_base(const AVCodec *codec);

/* Applies wbc's defaults for the encoder (x264 preset/tune, ...) to an
 * allocated, not yet opened context. Human-readable summary of what was
 * set goes to desc. Returns 0 or a negative AVERROR. */
int wbc_codec_apply_defaults(AVCodecContext *ctx, char *desc, size_t desc_len);

/* Reconciles those defaults with the user's codec options, once both are set;
 * user_slices: the user set "slices". */
void wbc_codec_settle_defaults(AVCodecContext *ctx, bool user_slices);

/* Muxer for the output: by name or extension if container is non-NULL,
 * else guessed from the output URL scheme or file extension. */
const AVOutputFormat *wbc_container_find(const char *container, const char *output);

/* ", "-separated lists; snprintf-like return value. */
int wbc_format_list_encoders(char *buf, size_t len);
int wbc_format_list_containers(char *buf, size_t len);

#endif
