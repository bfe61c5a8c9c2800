/* SPDX-License-Identifier: MIT */
/*
 * sws-bench: cost of the recorder's conversion step alone, to find what
 * bounds the worker. Converts the pool's frames to yuv420p N times with the
 * recorder's settings (SWS_BILINEAR, BT.709 matrix, limited range) and
 * prints one JSON line per variant: wall and thread-CPU ms per frame and an
 * FNV-1a hash of all output planes (same hash = byte-identical output).
 *
 *   sws-bench --frames FILE --size WxH [--count N] [--threads N]
 *
 * Variants (see variants[]): the plain conversion (bgr0, one thread: what
 * recorder/ did until 2026-12-04, the reference for the hash); the source
 * described as bgra (same bytes as bgr0, the 4th byte is ignored for
 * yuv420p); other scaler flags; without the BT.709 matrix; and
 * sws_scale_frame() with the "threads" option (libswscale >= 6, FFmpeg 5.0)
 * set to --threads, of which bgra threaded is what recorder/ does when asked
 * for the BT.709 matrix (colorspace=bt709); and libyuv's ARGBToI420 (BT.601,
 * limited range), what recorder/ does by default.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavutil/buffer.h>
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libyuv/convert.h>

#include "bench-util.h"

static const char usage[] = "--frames FILE --size WxH [--count N] [--threads N]";

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void no_free(void *opaque, uint8_t *data)
{
	(void)opaque;
	(void)data;
}

struct variant {
	enum AVPixelFormat src;
	int frame_api;    /* sws_scale_frame() with the threads option */
	int flags;        /* SWS_* */
	int bt709;        /* recorder's sws_setColorspaceDetails() call */
	const char *name;
	int libyuv;       /* ARGBToI420 instead of libswscale */
};

static struct SwsContext *make_sws(const struct bench_args *a, const struct variant *v,
		unsigned threads)
{
	enum AVPixelFormat src = v->src;
	struct SwsContext *sws = sws_alloc_context();

	if (!sws)
		return NULL;
	av_opt_set_int(sws, "srcw", a->width, 0);
	av_opt_set_int(sws, "srch", a->height, 0);
	av_opt_set_int(sws, "src_format", src, 0);
	av_opt_set_int(sws, "dstw", a->width, 0);
	av_opt_set_int(sws, "dsth", a->height, 0);
	av_opt_set_int(sws, "dst_format", AV_PIX_FMT_YUV420P, 0);
	av_opt_set_int(sws, "sws_flags", v->flags, 0);
	av_opt_set_int(sws, "threads", threads, 0);
	if (sws_init_context(sws, NULL, NULL) < 0) {
		sws_freeContext(sws);
		return NULL;
	}
	/* As recorder/encode.c set_sws_colorspace(). */
	if (v->bt709)
		sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_DEFAULT), 1,
			sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
	return sws;
}

static int run(const struct bench_args *a, const struct bench_pool *pool,
		const struct variant *v)
{
	enum AVPixelFormat src = v->src;
	int use_frame_api = v->frame_api;
	unsigned threads = v->frame_api ? a->threads : 1;
	struct SwsContext *sws = v->libyuv ? NULL : make_sws(a, v, threads);
	AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
	uint64_t hash = 0xcbf29ce484222325ull;
	int64_t t0, c0, wall = 0, cpu = 0;
	int ret = -1;

	if ((!sws && !v->libyuv) || !in || !out)
		goto done;
	out->format = AV_PIX_FMT_YUV420P;
	out->width = (int)a->width;
	out->height = (int)a->height;
	if (av_frame_get_buffer(out, 0) < 0)
		goto done;
	for (unsigned i = 0; i < a->count; i++) {
		const uint8_t *data = bench_pool_frame(pool, i);

		t0 = bench_now_ns();
		c0 = thread_cpu_ns();
		if (v->libyuv) {
			ret = ARGBToI420(data, (int)(a->width * BENCH_BPP), out->data[0],
				out->linesize[0], out->data[1], out->linesize[1], out->data[2],
				out->linesize[2], (int)a->width, (int)a->height) ? -1 : 0;
		} else if (use_frame_api) {
			in->format = src;
			in->width = (int)a->width;
			in->height = (int)a->height;
			/* Wrapped, not copied (av_frame_ref copies unref-counted
			 * frames), like recorder/encode.c wrap_input(). */
			in->buf[0] = av_buffer_create((uint8_t *)(uintptr_t)data,
				pool->frame_size, no_free, NULL, AV_BUFFER_FLAG_READONLY);
			if (!in->buf[0])
				goto done;
			in->data[0] = in->buf[0]->data;
			in->linesize[0] = (int)(a->width * BENCH_BPP);
			ret = sws_scale_frame(sws, out, in);
			av_frame_unref(in);
		} else {
			const uint8_t *s[4] = { data, NULL, NULL, NULL };
			const int ss[4] = { (int)(a->width * BENCH_BPP), 0, 0, 0 };

			ret = sws_scale(sws, s, ss, 0, (int)a->height, out->data, out->linesize);
		}
		wall += bench_now_ns() - t0;
		cpu += thread_cpu_ns() - c0;
		if (ret < 0)
			goto done;
		/* Hash the first pass over the pool only, outside the timing. */
		if (i < pool->n) {
			for (int p = 0; p < 3; p++) {
				int h = p ? ((int)a->height + 1) / 2 : (int)a->height;
				int w = p ? ((int)a->width + 1) / 2 : (int)a->width;

				for (int y = 0; y < h; y++)
					hash = fnv(hash, out->data[p] + (size_t)y * out->linesize[p],
						(size_t)w);
			}
		}
	}
	printf("{\"program\":\"sws-bench\",\"variant\":\"%s\",\"src\":\"%s\","
		"\"api\":\"%s\",\"threads\":%u,\"width\":%u,\"height\":%u,\"frames\":%u,\"wall_ms_per_frame\":%.3f,"
		"\"calling_thread_cpu_ms_per_frame\":%.3f,\"output_hash\":\"%016llx\"}\n",
		v->name, av_get_pix_fmt_name(src),
		v->libyuv ? "libyuv" : use_frame_api ? "sws_scale_frame" : "sws_scale", threads, a->width, a->height, a->count,
		(double)wall / 1e6 / a->count, (double)cpu / 1e6 / a->count,
		(unsigned long long)hash);
	ret = 0;
done:
	av_frame_free(&in);
	av_frame_free(&out);
	sws_freeContext(sws);
	return ret;
}

static const struct variant variants[] = {
	{ AV_PIX_FMT_BGR0, 0, SWS_BILINEAR, 1, "plain (bgr0 bilinear bt709)", 0 },
	{ AV_PIX_FMT_BGRA, 0, SWS_BILINEAR, 1, "bgra bilinear bt709", 0 },
	{ AV_PIX_FMT_BGR0, 0, SWS_BILINEAR, 0, "bgr0 bilinear default-matrix", 0 },
	{ AV_PIX_FMT_BGR0, 0, SWS_FAST_BILINEAR, 1, "bgr0 fast_bilinear bt709", 0 },
	{ AV_PIX_FMT_BGR0, 0, SWS_POINT, 1, "bgr0 point bt709", 0 },
	{ AV_PIX_FMT_BGR0, 0, SWS_BICUBIC, 0, "bgr0 bicubic default-matrix (ffmpeg CLI)", 0 },
	{ AV_PIX_FMT_BGR0, 1, SWS_BILINEAR, 1, "bgr0 bilinear bt709, threaded", 0 },
	{ AV_PIX_FMT_BGRA, 1, SWS_BILINEAR, 1, "bgra bilinear bt709, threaded (recorder/, colorspace=bt709)", 0 },
	{ AV_PIX_FMT_BGR0, 1, SWS_FAST_BILINEAR, 1, "fast_bilinear, threaded", 0 },
	{ AV_PIX_FMT_BGR0, 0, 0, 0, "recorder/ (libyuv ARGBToI420, bt601)", 1 },
};

int main(int argc, char **argv)
{
	struct bench_args a;
	struct bench_pool pool;
	int ret = 0;

	bench_parse_args(argc, argv, &a, usage);
	if (bench_pool_load(&pool, a.frames_path, a.width, a.height) < 0) {
		fprintf(stderr, "%s: cannot load %s\n", argv[0], a.frames_path);
		return 1;
	}
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		ret |= run(&a, &pool, &variants[i]);
	bench_pool_free(&pool);
	if (ret)
		fprintf(stderr, "%s: a conversion failed\n", argv[0]);
	return ret ? 1 : 0;
}
