/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include "encode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/cpu.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libyuv/convert.h>
#include <libyuv/convert_from_argb.h>

#include "format.h"

#define MAX_CANDIDATES 32
#define OPT_KEY_MAX 128

static const AVRational ns_time_base = { 1, 1000000000 };

/* libyuv's 32-bit RGB to 4:2:0 conversions all take these arguments. */
typedef int (*yuv_convert_fn)(const uint8_t *src, int src_stride, uint8_t *y, int y_stride,
	uint8_t *u, int u_stride, uint8_t *v, int v_stride, int width, int height);

struct wbc_encoder {
	AVFormatContext *fmt;
	AVCodecContext *ctx;
	AVStream *st;
	struct SwsContext *sws; /* converts when yuv cannot; both NULL: no conversion */
	yuv_convert_fn yuv;     /* libyuv's conversion, or NULL */
	AVFrame *in;            /* shell wrapping the caller's memory */
	AVFrame *conv;          /* the conversion's output */
	AVPacket *pkt;
	AVPacket *held;         /* newest packet, kept back to set its duration */
	bool have_held;
	bool hold_last;         /* seekable output: durations matter */
	bool have_pts, failed, finished;
	enum AVPixelFormat src_fmt;
	enum AVPixelFormat sws_src_fmt; /* src_fmt as libswscale is told it */
	uint32_t width, height, drm_format;
	int64_t first_ns, last_pts, bytes_written;
	char defaults[160];     /* wbc's encoder defaults, for the log */
	char *output;
	char *sdp_path;
	const struct wbc_recorder_logger *log;
	void (*written)(void *data, int64_t frame_ns);
	void *written_data;
};

/* Ties a wrapped frame's AVBufferRef to the done callback. */
struct done_ticket {
	wbc_encoder_done_fn fn;
	void *opaque;
};

/* ---- errors ---------------------------------------------------------- */

static int encode_error(struct wbc_encoder *e, int averr, char *err, size_t len)
{
	e->failed = true;
	wbc_errf(err, len, "encoding with %s failed: %s", e->ctx->codec->name,
		av_err2str(averr));
	return wbc_averror_to_errno(averr);
}

static int write_error(struct wbc_encoder *e, int averr, char *err, size_t len)
{
	e->failed = true;
	wbc_errf(err, len, "writing %s failed: %s", e->output, av_err2str(averr));
	return wbc_averror_to_errno(averr);
}

static int list_error(const char *what, const char *name,
		int (*list)(char *, size_t), char *err, size_t len)
{
	int n = list(NULL, 0);
	char *names = malloc((size_t)n + 1);

	if (names)
		list(names, (size_t)n + 1);
	wbc_errf(err, len, "%s '%s'; available: %s", what, name, names ? names : "?");
	free(names);
	return -EINVAL;
}

/* ---- options --------------------------------------------------------- */

static int split_opt(const char *opt, char key[OPT_KEY_MAX], const char **value)
{
	const char *eq = opt ? strchr(opt, '=') : NULL;
	size_t n = eq ? (size_t)(eq - opt) : 0;

	if (!eq || n == 0 || n >= OPT_KEY_MAX)
		return -EINVAL;
	memcpy(key, opt, n);
	key[n] = '\0';
	*value = eq + 1;
	return 0;
}

static int apply_codec_opts(AVCodecContext *ctx, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	char key[OPT_KEY_MAX];
	const char *value;
	int ret;

	for (size_t i = 0; i < cfg->n_codec_opts; i++) {
		if (split_opt(cfg->codec_opts[i], key, &value) < 0) {
			wbc_errf(err, len, "invalid codec option '%s' (expected KEY=VALUE)",
				cfg->codec_opts[i] ? cfg->codec_opts[i] : "(null)");
			return -EINVAL;
		}
		ret = av_opt_set(ctx, key, value, AV_OPT_SEARCH_CHILDREN);
		if (ret == AVERROR_OPTION_NOT_FOUND) {
			wbc_errf(err, len, "unknown option '%s' for encoder %s",
				key, ctx->codec->name);
			return -EINVAL;
		}
		if (ret < 0) {
			wbc_errf(err, len, "invalid value '%s' for option '%s' of encoder %s: %s",
				value, key, ctx->codec->name, av_err2str(ret));
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether the user gave KEY among the codec options (they are valid once applied). */
static bool has_codec_opt(const struct wbc_encoder_config *cfg, const char *key)
{
	char k[OPT_KEY_MAX];
	const char *value;

	for (size_t i = 0; i < cfg->n_codec_opts; i++)
		if (split_opt(cfg->codec_opts[i], k, &value) == 0 && !strcmp(k, key))
			return true;
	return false;
}

static int container_dict(const struct wbc_encoder_config *cfg, AVDictionary **dict,
		char *err, size_t len)
{
	char key[OPT_KEY_MAX];
	const char *value;

	for (size_t i = 0; i < cfg->n_container_opts; i++) {
		if (split_opt(cfg->container_opts[i], key, &value) < 0) {
			wbc_errf(err, len, "invalid container option '%s' (expected KEY=VALUE)",
				cfg->container_opts[i] ? cfg->container_opts[i] : "(null)");
			return -EINVAL;
		}
		if (av_dict_set(dict, key, value, 0) < 0) {
			wbc_errf(err, len, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- encoder --------------------------------------------------------- */

/* libyuv's conversion from src to 4:2:0 with the encoder's matrix and range, or NULL.
 * It does what libswscale does for the common case, 32-bit RGB to BT.601 4:2:0, at a
 * fraction of the cost (bench/recorder/sws-bench: 0.6 against 4.4 ms per 1920x1080
 * frame on the host, 2.6 against 12 ms per 640x480 frame in the VKMS guest). */
static yuv_convert_fn yuv_conversion(const AVCodecContext *ctx, enum AVPixelFormat src)
{
	bool full = ctx->color_range == AVCOL_RANGE_JPEG;
	bool argb = src == AV_PIX_FMT_BGR0 || src == AV_PIX_FMT_BGRA; /* B,G,R,X in memory */
	bool abgr = src == AV_PIX_FMT_RGB0 || src == AV_PIX_FMT_RGBA; /* R,G,B,X */

	if (ctx->colorspace != AVCOL_SPC_SMPTE170M && ctx->colorspace != AVCOL_SPC_BT470BG)
		return NULL;
	if (ctx->pix_fmt != AV_PIX_FMT_YUV420P && ctx->pix_fmt != AV_PIX_FMT_YUVJ420P)
		return NULL;
	if (argb)
		return full ? ARGBToJ420 : ARGBToI420;
	if (abgr)
		return full ? ABGRToJ420 : ABGRToI420;
	return NULL;
}

static void set_color_defaults(AVCodecContext *ctx, enum AVPixelFormat src)
{
	const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(ctx->pix_fmt);

	if (!desc || (desc->flags & AV_PIX_FMT_FLAG_RGB))
		return;
	/* Screens are sRGB (BT.709 primaries). The matrix is BT.601's, which libyuv
	 * converts to (yuv_conversion()); tagged, players decode it as exactly. */
	if (ctx->colorspace == AVCOL_SPC_UNSPECIFIED)
		ctx->colorspace = AVCOL_SPC_SMPTE170M;
	if (ctx->color_primaries == AVCOL_PRI_UNSPECIFIED)
		ctx->color_primaries = AVCOL_PRI_BT709;
	if (ctx->color_trc == AVCOL_TRC_UNSPECIFIED)
		ctx->color_trc = AVCOL_TRC_IEC61966_2_1;
	if (ctx->color_range == AVCOL_RANGE_UNSPECIFIED)
		ctx->color_range = strncmp(desc->name, "yuvj", 4) ?
			AVCOL_RANGE_MPEG : AVCOL_RANGE_JPEG;
	/* libyuv averages each 2x2 block: chroma sits at its centre. */
	if (ctx->chroma_sample_location == AVCHROMA_LOC_UNSPECIFIED && yuv_conversion(ctx, src))
		ctx->chroma_sample_location = AVCHROMA_LOC_CENTER;
}

static void configure_codec(struct wbc_encoder *e, AVCodecContext *ctx)
{
	ctx->width = (int)e->width;
	ctx->height = (int)e->height;
	ctx->time_base = wbc_codec_time_base(ctx->codec);
	/* Nominal rate for rate control and level selection only: the
	 * timestamps stay variable. */
	ctx->framerate = (AVRational){ 60, 1 };
	ctx->sample_aspect_ratio = (AVRational){ 1, 1 };
	ctx->pix_fmt = wbc_format_encoder_input(ctx->codec, e->src_fmt);
	if (e->fmt->oformat->flags & AVFMT_GLOBALHEADER)
		ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
}

/* *unusable: the encoder itself failed to open (not our options). */
static int try_codec(struct wbc_encoder *e, const AVCodec *codec,
		const struct wbc_encoder_config *cfg, bool *unusable, char *err, size_t len)
{
	AVCodecContext *ctx = avcodec_alloc_context3(codec);
	int ret;

	if (!ctx) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	configure_codec(e, ctx);
	ret = wbc_codec_apply_defaults(ctx, e->defaults, sizeof(e->defaults));
	if (ret < 0) {
		wbc_errf(err, len, "setting defaults for encoder %s failed: %s",
			codec->name, av_err2str(ret));
		ret = wbc_averror_to_errno(ret);
	} else {
		ret = apply_codec_opts(ctx, cfg, err, len);
		if (ret == 0)
			wbc_codec_settle_defaults(ctx, has_codec_opt(cfg, "slices"));
	}
	*unusable = false;
	if (ret == 0) {
		set_color_defaults(ctx, e->src_fmt);
		ret = avcodec_open2(ctx, codec, NULL);
		*unusable = ret < 0;
		if (ret < 0) {
			wbc_errf(err, len, "cannot open encoder %s: %s", codec->name,
				av_err2str(ret));
			ret = wbc_averror_to_errno(ret);
		}
	}
	if (ret < 0) {
		avcodec_free_context(&ctx);
		return ret;
	}
	e->ctx = ctx;
	return 0;
}

static int container_takes(const AVOutputFormat *ofmt, const AVCodec *codec)
{
	return avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_NORMAL) != 0;
}

/* The encoder cfg->codec names, which the container must take. */
static int find_codec(const struct wbc_encoder_config *cfg, const AVOutputFormat *ofmt,
		const AVCodec **codec, char *err, size_t len)
{
	*codec = wbc_codec_find(cfg->codec);
	if (!*codec)
		return list_error("unknown video encoder", cfg->codec,
			wbc_format_list_encoders, err, len);
	if (!container_takes(ofmt, *codec)) {
		wbc_errf(err, len, "container %s cannot hold %s video", ofmt->name,
			avcodec_get_name((*codec)->id));
		return -EINVAL;
	}
	return 0;
}

static int open_default_codec(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	const AVCodec *cands[MAX_CANDIDATES];
	size_t n = wbc_codec_default_candidates(cands, MAX_CANDIDATES);
	char tried[256] = "";
	bool unusable;
	int ret = -ENOENT;

	wbc_errf(err, len, "no default encoder available");
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(tried);

		if (!container_takes(e->fmt->oformat, cands[i]))
			continue;
		ret = try_codec(e, cands[i], cfg, &unusable, err, len);
		/* Bad options are reported as such, not retried elsewhere. */
		if (ret == 0 || !unusable)
			return ret;
		wbc_recorder_log_msg(e->log, WBC_RECORDER_LOG_DEBUG, "default encoder candidate %s: %s",
			cands[i]->name, err ? err : "failed");
		if (used < sizeof(tried))
			snprintf(tried + used, sizeof(tried) - used, "%s%s",
				used ? ", " : "", cands[i]->name);
	}
	if (tried[0])
		wbc_errf(err, len, "no default encoder could be opened (tried %s)", tried);
	return ret;
}

static int open_codec(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	const AVCodec *codec;
	bool unusable;

	if (!cfg->codec)
		return open_default_codec(e, cfg, err, len);
	int ret = find_codec(cfg, e->fmt->oformat, &codec, err, len);
	if (ret < 0)
		return ret;
	return try_codec(e, codec, cfg, &unusable, err, len);
}

/* ---- conversion ------------------------------------------------------ */

static int alloc_conv(struct wbc_encoder *e)
{
	av_frame_unref(e->conv);
	e->conv->format = e->ctx->pix_fmt;
	e->conv->width = e->ctx->width;
	e->conv->height = e->ctx->height;
	e->conv->colorspace = e->ctx->colorspace;
	e->conv->color_range = e->ctx->color_range;
	e->conv->color_primaries = e->ctx->color_primaries;
	e->conv->color_trc = e->ctx->color_trc;
	return av_frame_get_buffer(e->conv, 0);
}

static void set_sws_colorspace(struct wbc_encoder *e)
{
	const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(e->ctx->pix_fmt);
	int full = e->ctx->color_range == AVCOL_RANGE_JPEG;

	if (desc->flags & AV_PIX_FMT_FLAG_RGB)
		return;
	/* SWS_CS_* values equal the AVColorSpace ones. */
	sws_setColorspaceDetails(e->sws, sws_getCoefficients(SWS_CS_DEFAULT), 1,
		sws_getCoefficients((int)e->ctx->colorspace), full, 0, 1 << 16, 1 << 16);
}

/* The alpha twin of a padded 32-bit RGB format, or the format itself.
 * libswscale 6 (FFmpeg 5.1) reads bgra/rgba/argb/abgr through its fast input
 * path but bgr0 & co. through the generic one: the same output at about half
 * the time (bench/recorder/sws-bench: 4.07 vs 1.98 ms per 1280x720 frame).
 * Only valid when the output has no alpha, which would expose the X byte. */
static enum AVPixelFormat sws_input_format(enum AVPixelFormat src, enum AVPixelFormat dst)
{
	static const enum AVPixelFormat twins[][2] = {
		{ AV_PIX_FMT_BGR0, AV_PIX_FMT_BGRA },
		{ AV_PIX_FMT_RGB0, AV_PIX_FMT_RGBA },
		{ AV_PIX_FMT_0RGB, AV_PIX_FMT_ARGB },
		{ AV_PIX_FMT_0BGR, AV_PIX_FMT_ABGR },
	};
	const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(dst);

	if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_RGB)))
		return src;
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++)
		if (twins[i][0] == src)
			return twins[i][1];
	return src;
}

/* A scaler that splits each frame into slices over one thread per CPU
 * ("threads" = auto): converting is a third of the per-frame work and would
 * otherwise run on the worker thread alone, leaving the other cores idle
 * between encoder calls. With one CPU, one thread asked for by number: libswscale 6
 * (FFmpeg 5.1) given "auto" where there is one CPU leaks two AVFrames per scaler, which
 * sws_init_context allocates and sws_freeContext does not free (LeakSanitizer; seen in
 * a one-vCPU guest, and on the host under taskset -c 0: recorder-encode-one-cpu). */
static struct SwsContext *create_scaler(const struct wbc_encoder *e,
		enum AVPixelFormat src, enum AVPixelFormat dst)
{
	struct SwsContext *sws = sws_alloc_context();
	int threads = av_cpu_count() > 1 ? 0 : 1;

	if (!sws)
		return NULL;
	if (av_opt_set_int(sws, "srcw", e->ctx->width, 0) < 0 ||
			av_opt_set_int(sws, "srch", e->ctx->height, 0) < 0 ||
			av_opt_set_int(sws, "src_format", src, 0) < 0 ||
			av_opt_set_int(sws, "dstw", e->ctx->width, 0) < 0 ||
			av_opt_set_int(sws, "dsth", e->ctx->height, 0) < 0 ||
			av_opt_set_int(sws, "dst_format", dst, 0) < 0 ||
			av_opt_set_int(sws, "sws_flags", SWS_BILINEAR, 0) < 0 ||
			av_opt_set_int(sws, "threads", threads, 0) < 0 ||
			sws_init_context(sws, NULL, NULL) < 0) {
		sws_freeContext(sws);
		return NULL;
	}
	return sws;
}

static int setup_conversion(struct wbc_encoder *e, char *err, size_t len)
{
	enum AVPixelFormat dst = e->ctx->pix_fmt;
	int ret;

	if (dst == e->src_fmt)
		return 0;
	e->yuv = yuv_conversion(e->ctx, e->src_fmt);
	if (e->yuv) {
		ret = alloc_conv(e);
		if (ret < 0)
			wbc_errf(err, len, "out of memory");
		return ret < 0 ? wbc_averror_to_errno(ret) : 0;
	}
	if (!sws_isSupportedInput(e->src_fmt) || !sws_isSupportedOutput(dst)) {
		wbc_errf(err, len, "libswscale cannot convert %s to %s for encoder %s",
			av_get_pix_fmt_name(e->src_fmt), av_get_pix_fmt_name(dst),
			e->ctx->codec->name);
		return -EINVAL;
	}
	e->sws_src_fmt = sws_input_format(e->src_fmt, dst);
	e->sws = create_scaler(e, e->sws_src_fmt, dst);
	if (!e->sws) {
		wbc_errf(err, len, "cannot set up libswscale");
		return -ENOMEM;
	}
	set_sws_colorspace(e);
	ret = alloc_conv(e);
	if (ret < 0) {
		wbc_errf(err, len, "out of memory");
		return wbc_averror_to_errno(ret);
	}
	return 0;
}

/* ---- output ---------------------------------------------------------- */

/* The muxer cfg->container names, or the one the output's name implies. */
static int find_muxer(const struct wbc_encoder_config *cfg, const AVOutputFormat **ofmt,
		char *err, size_t len)
{
	*ofmt = wbc_container_find(cfg->container, cfg->output);
	if (!*ofmt && cfg->container)
		return list_error("unknown container", cfg->container,
			wbc_format_list_containers, err, len);
	if (!*ofmt)
		return list_error("cannot guess the container from the name of output",
			cfg->output, wbc_format_list_containers, err, len);
	return 0;
}

static int open_muxer(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	const AVOutputFormat *ofmt;
	int ret = find_muxer(cfg, &ofmt, err, len);

	if (ret < 0)
		return ret;
	if (avformat_alloc_output_context2(&e->fmt, ofmt, NULL, cfg->output) < 0) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	e->written = cfg->written;
	e->written_data = cfg->written_data;
	e->fmt->interrupt_callback.callback = cfg->interrupt;
	e->fmt->interrupt_callback.opaque = cfg->interrupt_data;
	return 0;
}

static char *default_sdp_path(const char *output)
{
	size_t n = strlen(output);
	char *path = malloc(n + sizeof(".sdp"));

	if (!path)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = output[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '.' || c == '-';
		path[i] = ok ? c : '_';
	}
	memcpy(path + n, ".sdp", sizeof(".sdp"));
	return path;
}

static int write_sdp(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	char sdp[4096];
	FILE *f;
	int ret;

	if (strcmp(e->fmt->oformat->name, "rtp") != 0)
		return 0;
	e->sdp_path = cfg->sdp_path ? strdup(cfg->sdp_path) : default_sdp_path(cfg->output);
	if (!e->sdp_path) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = av_sdp_create(&e->fmt, 1, sdp, sizeof(sdp));
	if (ret < 0) {
		wbc_errf(err, len, "creating the SDP for %s failed: %s", e->output,
			av_err2str(ret));
		return wbc_averror_to_errno(ret);
	}
	f = fopen(e->sdp_path, "w");
	ret = f ? 0 : -errno;
	if (f && fprintf(f, "%s\n", sdp) < 0)
		ret = -EIO;
	if (f && fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret < 0) {
		wbc_errf(err, len, "writing SDP file %s failed: %s", e->sdp_path,
			strerror(-ret));
		return ret;
	}
	wbc_recorder_log_msg(e->log, WBC_RECORDER_LOG_INFO, "SDP for %s written to %s", e->output,
		e->sdp_path);
	return 0;
}

/*
 * Recordings are private to their user: a file output is created with mode 0600, and an
 * existing regular file is made 0600 before it is truncated, whatever the umask (FFmpeg's
 * file protocol creates with 0666 & ~umask and has no option for the mode). Opening
 * errors are left to avio_open2, which words them as for any output; a file that stays
 * readable by others (a file system without modes, not ours to chmod) is refused.
 */
static int make_private(const char *url, char *err, size_t len)
{
	const char *proto = avio_find_protocol_name(url);
	const char *path = strncmp(url, "file:", 5) == 0 ? url + 5 : url;
	struct stat st;
	int fd, ret = 0;

	if (!proto || strcmp(proto, "file") != 0)
		return 0;
	/* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting here. */
	fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0077)) {
		if (fchmod(fd, 0600) != 0)
			ret = -errno;
		else if (fstat(fd, &st) == 0 && (st.st_mode & 0077))
			ret = -EPERM;        /* the file system keeps its own modes */
		if (ret < 0)
			wbc_errf(err, len, "cannot make %s private (mode %04o, want 0600): %s", path,
				(unsigned)(st.st_mode & 07777), strerror(-ret));
	}
	close(fd);
	return ret;
}

static int open_io(struct wbc_encoder *e, AVDictionary **opts, char *err, size_t len)
{
	int ret;

	if (e->fmt->oformat->flags & AVFMT_NOFILE)
		return 0;
	ret = make_private(e->output, err, len);
	if (ret < 0)
		return ret;
	ret = avio_open2(&e->fmt->pb, e->output, AVIO_FLAG_WRITE,
		&e->fmt->interrupt_callback, opts);
	if (ret < 0) {
		wbc_errf(err, len, "cannot open %s: %s", e->output, av_err2str(ret));
		return wbc_averror_to_errno(ret);
	}
	e->hold_last = e->fmt->pb->seekable & AVIO_SEEKABLE_NORMAL;
	/* Live outputs: send each packet at once. Options may override. */
	if (!e->hold_last)
		e->fmt->flush_packets = 1;
	return 0;
}

/* Whether KEY is an option of the muxer (or of every muxer), of the output's protocol, or
 * of every protocol connection (libavformat's URLContext options, not public). */
static bool known_container_key(struct wbc_encoder *e, const char *key)
{
	static const char *const url_options[] = { "protocol_whitelist", "protocol_blacklist",
		"rw_timeout" };

	if (av_opt_find(e->fmt, key, NULL, 0, AV_OPT_SEARCH_CHILDREN))
		return true;
	if (e->fmt->oformat->flags & AVFMT_NOFILE)
		return false;
	const char *proto = avio_find_protocol_name(e->output);
	const AVClass *pc = proto ? avio_protocol_get_class(proto) : NULL;
	if (pc && av_opt_find(&pc, key, NULL, 0, AV_OPT_SEARCH_FAKE_OBJ))
		return true;
	for (size_t i = 0; i < sizeof(url_options) / sizeof(url_options[0]); i++)
		if (strcmp(key, url_options[i]) == 0)
			return true;
	return false;
}

/* Unknown container options are refused before the output is opened: opening a file
 * truncates it, and a typo must not cost an existing recording. (start_muxer checks
 * again what is left after libavformat took its options.) */
static int check_container_keys(struct wbc_encoder *e, const AVDictionary *opts,
		char *err, size_t len)
{
	const AVDictionaryEntry *t = NULL;

	while ((t = av_dict_get(opts, "", t, AV_DICT_IGNORE_SUFFIX))) {
		if (!known_container_key(e, t->key)) {
			wbc_errf(err, len, "unknown option '%s' for container %s", t->key,
				e->fmt->oformat->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* What a recording keeps if wbc is killed (SIGKILL, power loss) before the trailer:
 * Matroska writes a cluster when the first packet more than cluster_time_limit after its
 * start comes (FFmpeg's default allows 5 s, and 5 MiB), and the AVIO buffer holds up to
 * 32 KiB more; with a 1 s limit and the buffer flushed after every packet, a killed
 * recording keeps every cluster but the open one: all frames but those of about the last
 * second. The file then lacks its index and duration; players and ffmpeg read it to
 * the end. --container-opt overrides both (applied later by avformat_init_output). */
static int crash_safe_defaults(struct wbc_encoder *e, AVDictionary **opts, char *err,
		size_t len)
{
	if (strcmp(e->fmt->oformat->name, "matroska") != 0 &&
			strcmp(e->fmt->oformat->name, "webm") != 0)
		return 0;
	if (av_dict_set(opts, "cluster_time_limit", "1000", AV_DICT_DONT_OVERWRITE) < 0) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	e->fmt->flush_packets = 1;
	return 0;
}

static int start_muxer(struct wbc_encoder *e, AVDictionary **opts, char *err, size_t len)
{
	const AVDictionaryEntry *left;
	int ret = avformat_init_output(e->fmt, opts);

	if (ret < 0) {
		wbc_errf(err, len, "cannot start %s output %s: %s", e->fmt->oformat->name,
			e->output, av_err2str(ret));
		return wbc_averror_to_errno(ret);
	}
	left = av_dict_get(*opts, "", NULL, AV_DICT_IGNORE_SUFFIX);
	if (left) {
		wbc_errf(err, len, "unknown option '%s' for container %s", left->key,
			e->fmt->oformat->name);
		return -EINVAL;
	}
	ret = avformat_write_header(e->fmt, NULL);
	if (ret < 0)
		return write_error(e, ret, err, len);
	return 0;
}

/* The player turns the frames (no per-frame work here): the stream's display matrix.
 * av_display_rotation_set takes a clockwise angle (av_display_rotation_get, and so
 * ffprobe's "rotation", gives the same matrix's counterclockwise one: -degrees). Only the mov family of
 * muxers (mp4, mov, ...) writes it (FFmpeg 5.1); elsewhere it would silently vanish. */
static int set_rotation(struct wbc_encoder *e, int degrees, char *err, size_t len)
{
	if (degrees == 0)
		return 0;
	int32_t *m = (int32_t *)av_stream_new_side_data(e->st, AV_PKT_DATA_DISPLAYMATRIX,
		9 * sizeof(int32_t));
	if (!m) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	av_display_rotation_set(m, (double)degrees);
	const char *mux = e->fmt->oformat->name;
	if (!strstr(mux, "mp4") && !strstr(mux, "mov"))
		wbc_recorder_log_msg(e->log, WBC_RECORDER_LOG_WARNING, "container %s keeps no "
			"rotation: players show the frames as they are, not turned %d degrees "
			"clockwise (use .mp4 or .mov)",
			mux, degrees);
	return 0;
}

static int open_output(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	AVDictionary *opts = NULL;
	int ret;

	e->st = avformat_new_stream(e->fmt, NULL);
	if (!e->st || avcodec_parameters_from_context(e->st->codecpar, e->ctx) < 0) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	e->st->time_base = e->ctx->time_base;
	ret = set_rotation(e, cfg->rotation, err, len);
	if (ret == 0)
		ret = container_dict(cfg, &opts, err, len);
	if (ret == 0)
		ret = check_container_keys(e, opts, err, len);
	if (ret == 0)
		ret = crash_safe_defaults(e, &opts, err, len);
	if (ret == 0)
		ret = open_io(e, &opts, err, len);
	if (ret == 0)
		ret = start_muxer(e, &opts, err, len);
	av_dict_free(&opts);
	if (ret == 0)
		ret = write_sdp(e, cfg, err, len);
	return ret;
}

/* ---- open/close ------------------------------------------------------ */

static int init_encoder(struct wbc_encoder *e, const struct wbc_encoder_config *cfg,
		char *err, size_t len)
{
	e->log = cfg->log;
	e->width = cfg->width;
	e->height = cfg->height;
	e->drm_format = cfg->drm_format;
	e->src_fmt = wbc_format_from_drm(cfg->drm_format);
	if (e->src_fmt == AV_PIX_FMT_NONE) {
		wbc_errf(err, len, "unsupported DRM format 0x%08x", cfg->drm_format);
		return -EINVAL;
	}
	e->output = strdup(cfg->output);
	e->in = av_frame_alloc();
	e->conv = av_frame_alloc();
	e->pkt = av_packet_alloc();
	e->held = av_packet_alloc();
	if (!e->output || !e->in || !e->conv || !e->pkt || !e->held) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void log_setup(const struct wbc_encoder *e)
{
	uint32_t f = e->drm_format;

	wbc_recorder_log_msg(e->log, WBC_RECORDER_LOG_INFO,
		"recording %ux%u %c%c%c%c (%s) to %s: encoder %s%s%s%s, pixel format %s%s%s, container %s",
		e->width, e->height, (char)(f & 0xff), (char)((f >> 8) & 0xff),
		(char)((f >> 16) & 0xff), (char)(f >> 24), av_get_pix_fmt_name(e->src_fmt),
		e->output, e->ctx->codec->name, e->defaults[0] ? " (" : "", e->defaults,
		e->defaults[0] ? ")" : "", av_get_pix_fmt_name(e->ctx->pix_fmt),
		e->yuv ? ", converted by libyuv" : e->sws ? ", converted by libswscale" :
		", no conversion",
		e->hold_last ? "" : ", live output", e->fmt->oformat->name);
}

int wbc_encoder_check(const struct wbc_encoder_config *cfg, char *err, size_t len)
{
	const AVOutputFormat *ofmt;
	const AVCodec *codec = NULL;
	char defaults[256];
	int ret = find_muxer(cfg, &ofmt, err, len);

	if (ret == 0 && cfg->codec)
		ret = find_codec(cfg, ofmt, &codec, err, len);
	if (ret < 0 || !codec)
		return ret;
	AVCodecContext *ctx = avcodec_alloc_context3(codec);
	if (!ctx) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	/* As try_codec() sets them: the user's options may be checked against the defaults. */
	ret = wbc_codec_apply_defaults(ctx, defaults, sizeof(defaults));
	if (ret < 0) {
		wbc_errf(err, len, "setting defaults for encoder %s failed: %s", codec->name,
			av_err2str(ret));
		ret = wbc_averror_to_errno(ret);
	} else {
		ret = apply_codec_opts(ctx, cfg, err, len);
	}
	avcodec_free_context(&ctx);
	return ret;
}

int wbc_encoder_open(const struct wbc_encoder_config *cfg, struct wbc_encoder **out,
		char *err, size_t len)
{
	struct wbc_encoder *e = calloc(1, sizeof(*e));
	int ret;

	*out = NULL;
	if (!e) {
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = init_encoder(e, cfg, err, len);
	if (ret == 0)
		ret = open_muxer(e, cfg, err, len);
	if (ret == 0)
		ret = open_codec(e, cfg, err, len);
	if (ret == 0)
		ret = setup_conversion(e, err, len);
	if (ret == 0)
		ret = open_output(e, cfg, err, len);
	if (ret < 0) {
		wbc_encoder_close(e);
		return ret;
	}
	log_setup(e);
	*out = e;
	return 0;
}

void wbc_encoder_close(struct wbc_encoder *e)
{
	if (!e)
		return;
	/* Drops the encoder's references to wrapped frames: done callbacks. */
	avcodec_free_context(&e->ctx);
	av_frame_free(&e->in);
	av_frame_free(&e->conv);
	av_packet_free(&e->pkt);
	av_packet_free(&e->held);
	sws_freeContext(e->sws);
	if (e->fmt) {
		if (!(e->fmt->oformat->flags & AVFMT_NOFILE))
			avio_closep(&e->fmt->pb);
		avformat_free_context(e->fmt);
	}
	free(e->output);
	free(e->sdp_path);
	free(e);
}

/* ---- per frame ------------------------------------------------------- */

/* Timestamp in the encoder's time base relative to the first frame. */
static int64_t rel_pts(const struct wbc_encoder *e, int64_t ns)
{
	int64_t d;

	if (__builtin_sub_overflow(ns, e->first_ns, &d))
		d = ns < e->first_ns ? INT64_MIN / 2 : INT64_MAX / 2;
	return av_rescale_q(d, ns_time_base, e->ctx->time_base);
}

/* Encoder ticks per tick of the (coarser or equal) stream time base. */
static int64_t pts_step(const struct wbc_encoder *e)
{
	int64_t step = av_rescale_q_rnd(1, e->st->time_base, e->ctx->time_base,
		AV_ROUND_UP);

	return step > 0 ? step : 1;
}

/* Strictly increasing once rounded to the stream time base, which the
 * muxer requires (mkv stores ms: frames 0.3 ms apart would collide). */
static int64_t next_pts(struct wbc_encoder *e, int64_t ns)
{
	int64_t pts;

	if (!e->have_pts)
		e->first_ns = ns;
	pts = rel_pts(e, ns);
	if (e->have_pts && av_rescale_q(pts, e->ctx->time_base, e->st->time_base) <=
			av_rescale_q(e->last_pts, e->ctx->time_base, e->st->time_base))
		pts = e->last_pts + pts_step(e);
	e->have_pts = true;
	e->last_pts = pts;
	return pts;
}

static void ticket_free(void *opaque, uint8_t *data)
{
	struct done_ticket *t = opaque;
	wbc_encoder_done_fn fn = t->fn;
	void *fn_opaque = t->opaque;

	(void)data;
	av_free(t);
	fn(fn_opaque);
}

/* Makes e->in reference the caller's memory without copying. */
static int wrap_input(struct wbc_encoder *e, const void *data, uint32_t stride,
		wbc_encoder_done_fn done, void *opaque)
{
	struct done_ticket *t = av_malloc(sizeof(*t));
	AVBufferRef *buf;

	if (!t)
		return AVERROR(ENOMEM);
	t->fn = done;
	t->opaque = opaque;
	buf = av_buffer_create((uint8_t *)(uintptr_t)data, (size_t)stride * e->height,
		ticket_free, t, AV_BUFFER_FLAG_READONLY);
	if (!buf) {
		av_free(t);
		return AVERROR(ENOMEM);
	}
	e->in->buf[0] = buf;
	e->in->data[0] = buf->data;
	e->in->linesize[0] = (int)stride;
	e->in->format = e->src_fmt;
	e->in->width = (int)e->width;
	e->in->height = (int)e->height;
	return 0;
}

static void keep_caller_memory(void *opaque, uint8_t *data)
{
	(void)opaque;
	(void)data;
}

/* sws_scale_frame() needs a reference-counted input, or it copies it; the
 * reference is dropped before it returns, so the caller's memory need not
 * outlive this call. */
static int convert_input(struct wbc_encoder *e, const void *data, uint32_t stride)
{
	int ret = 0;

	/* The encoder may still reference the previous conversion. */
	if (!av_frame_is_writable(e->conv))
		ret = alloc_conv(e);
	if (ret < 0)
		return ret;
	if (e->yuv) {
		AVFrame *c = e->conv;

		return e->yuv(data, (int)stride, c->data[0], c->linesize[0], c->data[1],
			c->linesize[1], c->data[2], c->linesize[2], (int)e->width,
			(int)e->height) ? AVERROR(EINVAL) : 0;
	}
	e->in->buf[0] = av_buffer_create((uint8_t *)(uintptr_t)data, (size_t)stride * e->height,
		keep_caller_memory, NULL, AV_BUFFER_FLAG_READONLY);
	if (!e->in->buf[0])
		return AVERROR(ENOMEM);
	e->in->data[0] = e->in->buf[0]->data;
	e->in->linesize[0] = (int)stride;
	e->in->format = e->sws_src_fmt;
	e->in->width = (int)e->width;
	e->in->height = (int)e->height;
	ret = sws_scale_frame(e->sws, e->conv, e->in);
	av_frame_unref(e->in);
	return ret < 0 ? ret : 0;
}

static int mux(struct wbc_encoder *e, AVPacket *pkt, char *err, size_t len)
{
	int ret;

	int64_t frame_ns = pkt->pts == AV_NOPTS_VALUE ? INT64_MIN :
		e->first_ns + av_rescale_q(pkt->pts, e->ctx->time_base, ns_time_base);
	pkt->stream_index = e->st->index;
	av_packet_rescale_ts(pkt, e->ctx->time_base, e->st->time_base);
	ret = av_write_frame(e->fmt, pkt);
	av_packet_unref(pkt);
	if (e->fmt->pb)
		e->bytes_written = e->fmt->pb->bytes_written;
	if (ret >= 0 && e->written && frame_ns != INT64_MIN)
		e->written(e->written_data, frame_ns);
	return ret < 0 ? write_error(e, ret, err, len) : 0;
}

/* Writes the held packet, now that the next one tells its duration. */
static int queue_packet(struct wbc_encoder *e, AVPacket *pkt, char *err, size_t len)
{
	int ret;

	if (!e->hold_last)
		return mux(e, pkt, err, len);
	if (e->have_held) {
		if (pkt->dts > e->held->dts)
			e->held->duration = pkt->dts - e->held->dts;
		e->have_held = false;
		ret = mux(e, e->held, err, len);
		if (ret < 0) {
			av_packet_unref(pkt);
			return ret;
		}
	}
	av_packet_move_ref(e->held, pkt);
	e->have_held = true;
	return 0;
}

static int drain(struct wbc_encoder *e, char *err, size_t len)
{
	for (;;) {
		int ret = avcodec_receive_packet(e->ctx, e->pkt);

		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			return encode_error(e, ret, err, len);
		ret = queue_packet(e, e->pkt, err, len);
		if (ret < 0)
			return ret;
	}
}

int wbc_encoder_encode(struct wbc_encoder *e, const void *data, uint32_t stride,
		int64_t timestamp_ns, wbc_encoder_done_fn done, void *opaque,
		bool *accepted, char *err, size_t len)
{
	bool convert = e->sws || e->yuv;
	AVFrame *frame = convert ? e->conv : e->in;
	int ret;

	*accepted = false;
	if (e->failed || e->finished) {
		done(opaque);
		wbc_errf(err, len, "encoder already stopped");
		return -EPIPE;
	}
	if (convert) {
		ret = convert_input(e, data, stride);
		done(opaque);
	} else {
		ret = wrap_input(e, data, stride, done, opaque);
		if (ret < 0)
			done(opaque);
	}
	if (ret < 0)
		return encode_error(e, ret, err, len);
	frame->pts = next_pts(e, timestamp_ns);
	ret = avcodec_send_frame(e->ctx, frame);
	if (frame == e->in)
		av_frame_unref(e->in);
	if (ret < 0)
		return encode_error(e, ret, err, len);
	*accepted = true;
	return drain(e, err, len);
}

/* ---- end ------------------------------------------------------------- */

static int write_held(struct wbc_encoder *e, int64_t stop_ns, char *err, size_t len)
{
	if (!e->have_held)
		return 0;
	if (stop_ns != INT64_MIN) {
		int64_t stop_pts = rel_pts(e, stop_ns);

		if (stop_pts > e->held->pts)
			e->held->duration = stop_pts - e->held->pts;
	}
	e->have_held = false;
	return mux(e, e->held, err, len);
}

static int flush_encoder(struct wbc_encoder *e, char *err, size_t len)
{
	int ret = avcodec_send_frame(e->ctx, NULL);

	if (ret < 0 && ret != AVERROR_EOF)
		return encode_error(e, ret, err, len);
	return drain(e, err, len);
}

static int close_output(struct wbc_encoder *e, char *err, size_t len)
{
	int ret = av_write_trailer(e->fmt);
	int ret2 = 0;

	if (e->fmt->pb && !(e->fmt->oformat->flags & AVFMT_NOFILE)) {
		avio_flush(e->fmt->pb);
		e->bytes_written = e->fmt->pb->bytes_written;
		if (ret >= 0 && e->fmt->pb->error < 0)
			ret = e->fmt->pb->error;
		ret2 = avio_closep(&e->fmt->pb);
	}
	if (ret >= 0)
		ret = ret2;
	return ret < 0 ? write_error(e, ret, err, len) : 0;
}

int wbc_encoder_finish(struct wbc_encoder *e, int64_t stop_ns, char *err, size_t len)
{
	bool was_failed = e->failed;
	int ret = 0, ret2;

	if (e->finished)
		return 0;
	e->finished = true;
	if (!was_failed) {
		ret = flush_encoder(e, err, len);
		if (ret == 0)
			ret = write_held(e, stop_ns, err, len);
	}
	av_packet_unref(e->held);
	e->have_held = false;
	/* Trailer attempted even after a failure; report only new errors. */
	ret2 = close_output(e, ret == 0 && !was_failed ? err : NULL, len);
	return ret < 0 ? ret : (was_failed ? 0 : ret2);
}

int64_t wbc_encoder_bytes_written(const struct wbc_encoder *e)
{
	return e->bytes_written;
}

const char *wbc_encoder_codec_name(const struct wbc_encoder *e)
{
	return e->ctx->codec->name;
}

const char *wbc_encoder_container_name(const struct wbc_encoder *e)
{
	return e->fmt->oformat->name;
}

const char *wbc_encoder_pixel_format(const struct wbc_encoder *e)
{
	return av_get_pix_fmt_name(e->ctx->pix_fmt);
}

const char *wbc_encoder_sdp_path(const struct wbc_encoder *e)
{
	return e->sdp_path;
}
