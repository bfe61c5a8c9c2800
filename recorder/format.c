/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* Memory byte order of DRM formats is little endian (drm_fourcc.h). */
static const struct {
	uint32_t drm;
	enum AVPixelFormat av;
} pixel_formats[] = {
	{ DRM_FORMAT_XRGB8888, AV_PIX_FMT_BGR0 },
	{ DRM_FORMAT_ARGB8888, AV_PIX_FMT_BGRA },
	{ DRM_FORMAT_XBGR8888, AV_PIX_FMT_RGB0 },
	{ DRM_FORMAT_ABGR8888, AV_PIX_FMT_RGBA },
	{ DRM_FORMAT_RGBX8888, AV_PIX_FMT_0BGR },
	{ DRM_FORMAT_RGBA8888, AV_PIX_FMT_ABGR },
	{ DRM_FORMAT_BGRX8888, AV_PIX_FMT_0RGB },
	{ DRM_FORMAT_BGRA8888, AV_PIX_FMT_ARGB },
	{ DRM_FORMAT_RGB888, AV_PIX_FMT_BGR24 },
	{ DRM_FORMAT_BGR888, AV_PIX_FMT_RGB24 },
	{ DRM_FORMAT_RGB565, AV_PIX_FMT_RGB565LE },
	{ DRM_FORMAT_BGR565, AV_PIX_FMT_BGR565LE },
	{ DRM_FORMAT_XRGB2101010, AV_PIX_FMT_X2RGB10LE },
	{ DRM_FORMAT_XBGR2101010, AV_PIX_FMT_X2BGR10LE },
	{ DRM_FORMAT_XRGB16161616, AV_PIX_FMT_BGRA64LE },
	{ DRM_FORMAT_ARGB16161616, AV_PIX_FMT_BGRA64LE },
	{ DRM_FORMAT_XBGR16161616, AV_PIX_FMT_RGBA64LE },
	{ DRM_FORMAT_ABGR16161616, AV_PIX_FMT_RGBA64LE },
};

enum AVPixelFormat wbc_format_from_drm(uint32_t drm_format)
{
	for (size_t i = 0; i < sizeof(pixel_formats) / sizeof(pixel_formats[0]); i++) {
		if (pixel_formats[i].drm == drm_format)
			return pixel_formats[i].av;
	}
	return AV_PIX_FMT_NONE;
}

int wbc_format_supported(uint32_t drm_format)
{
	enum AVPixelFormat fmt = wbc_format_from_drm(drm_format);

	return fmt != AV_PIX_FMT_NONE && sws_isSupportedInput(fmt) > 0;
}

uint32_t wbc_format_min_stride(uint32_t drm_format, uint32_t width)
{
	enum AVPixelFormat fmt = wbc_format_from_drm(drm_format);
	int size;

	if (fmt == AV_PIX_FMT_NONE || width > INT32_MAX)
		return 0;
	size = av_image_get_linesize(fmt, (int)width, 0);
	return size > 0 ? (uint32_t)size : 0;
}

static int has_pix_fmt(const enum AVPixelFormat *list, enum AVPixelFormat fmt)
{
	for (; list && *list != AV_PIX_FMT_NONE; list++) {
		if (*list == fmt)
			return 1;
	}
	return 0;
}

enum AVPixelFormat wbc_format_encoder_input(const AVCodec *codec, enum AVPixelFormat src)
{
	if (!codec->pix_fmts || has_pix_fmt(codec->pix_fmts, src))
		return src;
	/* 4:2:0 plays everywhere; prefer it over FFmpeg's "least loss" 4:4:4. */
	if (has_pix_fmt(codec->pix_fmts, AV_PIX_FMT_YUV420P))
		return AV_PIX_FMT_YUV420P;
	return avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, src, 0, NULL);
}

static int is_video_encoder(const AVCodec *codec)
{
	return codec && av_codec_is_encoder(codec) && codec->type == AVMEDIA_TYPE_VIDEO;
}

const AVCodec *wbc_codec_find(const char *name)
{
	const AVCodec *codec = avcodec_find_encoder_by_name(name);
	const AVCodecDescriptor *desc;

	if (is_video_encoder(codec))
		return codec;
	desc = avcodec_descriptor_get_by_name(name);
	if (!desc || desc->type != AVMEDIA_TYPE_VIDEO)
		return NULL;
	codec = avcodec_find_encoder(desc->id);
	return is_video_encoder(codec) ? codec : NULL;
}

static size_t add_candidate(const AVCodec **out, size_t n, size_t max, const AVCodec *codec)
{
	if (!is_video_encoder(codec) || n >= max)
		return n;
	if (codec->capabilities & AV_CODEC_CAP_EXPERIMENTAL)
		return n;
	for (size_t i = 0; i < n; i++) {
		if (out[i] == codec)
			return n;
	}
	out[n] = codec;
	return n + 1;
}

size_t wbc_codec_default_candidates(const AVCodec **out, size_t max)
{
	const AVCodec *codec;
	void *iter = NULL;
	size_t n = 0;

	n = add_candidate(out, n, max, avcodec_find_encoder_by_name("libx264"));
	while ((codec = av_codec_iterate(&iter))) {
		/* libx264rgb makes RGB H.264 that few players decode. */
		if (codec->id == AV_CODEC_ID_H264 && strcmp(codec->name, "libx264rgb") != 0)
			n = add_candidate(out, n, max, codec);
	}
	n = add_candidate(out, n, max, avcodec_find_encoder_by_name("libvpx"));
	n = add_candidate(out, n, max, avcodec_find_encoder_by_name("mpeg4"));
	return n;
}

AVRational wbc_codec_time_base(const AVCodec *codec)
{
	switch (codec->id) {
	case AV_CODEC_ID_MPEG4:
	case AV_CODEC_ID_H263:
	case AV_CODEC_ID_H263P:
	case AV_CODEC_ID_MSMPEG4V2:
	case AV_CODEC_ID_MSMPEG4V3:
	case AV_CODEC_ID_FLV1:
		/* MPEG-4 part 2 family: time base denominator <= 65535. */
		return (AVRational){ 1, 1000 };
	default:
		return (AVRational){ 1, 1000000 };
	}
}

static int set_opt(AVCodecContext *ctx, const char *key, const char *value,
		char *desc, size_t desc_len)
{
	size_t used = strlen(desc);
	int ret = av_opt_set(ctx->priv_data, key, value, 0);

	if (ret < 0)
		return ret;
	if (used < desc_len)
		snprintf(desc + used, desc_len - used, "%s%s=%s", used ? " " : "", key, value);
	return 0;
}

int wbc_codec_apply_defaults(AVCodecContext *ctx, char *desc, size_t desc_len)
{
	const char *name = ctx->codec->name;
	int ret = 0;

	if (desc_len)
		desc[0] = '\0';
	if (!strcmp(name, "libx264") || !strcmp(name, "libx264rgb")) {
		ret = set_opt(ctx, "preset", "ultrafast", desc, desc_len);
		if (ret >= 0)
			ret = set_opt(ctx, "tune", "zerolatency", desc, desc_len);
	} else if (!strcmp(name, "libvpx") || !strcmp(name, "libvpx-vp9")) {
		/* libvpx's 256 kbit/s default is unusable for screens. */
		ctx->bit_rate = (int64_t)ctx->width * ctx->height * 4;
		ret = set_opt(ctx, "deadline", "realtime", desc, desc_len);
		if (ret >= 0)
			ret = set_opt(ctx, "cpu-used", "8", desc, desc_len);
		if (ret >= 0)
			ret = set_opt(ctx, "lag-in-frames", "0", desc, desc_len);
	} else if (ctx->codec->id == AV_CODEC_ID_FFV1) {
		/* FFV1 version 3 in slices, coded on a thread per CPU: lavc's default is
		 * version 1 in one slice on one thread, and slices are also what lets a
		 * decoder use more than one thread (bench/README.md, 2026-12-07). */
		ctx->level = 3;
		ctx->slices = 4;
		ctx->thread_count = 0;
		if (desc_len)
			snprintf(desc, desc_len, "level=3 slices=4 threads=auto");
	} else if (ctx->codec->id == AV_CODEC_ID_MPEG4) {
		ctx->flags |= AV_CODEC_FLAG_QSCALE;
		ctx->global_quality = FF_QP2LAMBDA * 3;
		if (desc_len)
			snprintf(desc, desc_len, "qscale=3");
	}
	return ret;
}

void wbc_codec_settle_defaults(AVCodecContext *ctx, bool user_slices)
{
	/* wbc's ffv1 slices need version 3: a lower level asked for without slices gets
	 * FFmpeg's one slice, not an encoder that refuses to open. */
	if (ctx->codec->id == AV_CODEC_ID_FFV1 && ctx->level < 3 && !user_slices)
		ctx->slices = 0;
}

static int is_scheme(const char *output, const char *scheme)
{
	size_t n = strlen(scheme);

	return !strncmp(output, scheme, n) && output[n] == ':';
}

static const AVOutputFormat *guess_from_output(const char *output)
{
	if (is_scheme(output, "udp") || is_scheme(output, "tcp"))
		return av_guess_format("mpegts", NULL, NULL);
	if (is_scheme(output, "rtp"))
		return av_guess_format("rtp", NULL, NULL);
	return av_guess_format(NULL, output, NULL);
}

const AVOutputFormat *wbc_container_find(const char *container, const char *output)
{
	const AVOutputFormat *fmt = NULL;
	void *iter = NULL;
	char name[64];

	if (!container)
		return guess_from_output(output);
	while ((fmt = av_muxer_iterate(&iter))) {
		if (!strcmp(fmt->name, container))
			return fmt;
	}
	/* Not a muxer name: try it as an extension ("mkv", "ts"). */
	if (snprintf(name, sizeof(name), "x.%s", container) >= (int)sizeof(name))
		return NULL;
	return av_guess_format(NULL, name, NULL);
}

static void append(char *buf, size_t len, size_t *total, const char *name)
{
	const char *sep = *total ? ", " : "";

	if (*total < len)
		snprintf(buf + *total, len - *total, "%s%s", sep, name);
	*total += strlen(sep) + strlen(name);
}

static int finish_list(char *buf, size_t len, size_t total)
{
	if (len && total == 0)
		buf[0] = '\0';
	return total > INT32_MAX ? INT32_MAX : (int)total;
}

int wbc_format_list_encoders(char *buf, size_t len)
{
	const AVCodec *codec;
	void *iter = NULL;
	size_t total = 0;

	while ((codec = av_codec_iterate(&iter))) {
		if (is_video_encoder(codec))
			append(buf, len, &total, codec->name);
	}
	return finish_list(buf, len, total);
}

int wbc_format_list_containers(char *buf, size_t len)
{
	const AVOutputFormat *fmt;
	void *iter = NULL;
	size_t total = 0;

	while ((fmt = av_muxer_iterate(&iter))) {
		if (fmt->video_codec != AV_CODEC_ID_NONE)
			append(buf, len, &total, fmt->name);
	}
	return finish_list(buf, len, total);
}
