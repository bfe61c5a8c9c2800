/* SPDX-License-Identifier: MIT */
/*
 * bare-loop: the least code that does what recorder/ does per frame, on the
 * same pre-generated frames, in one thread: libyuv's ARGBToI420 (yuv420p,
 * BT.601 matrix, limited range: as recorder/encode.c by default) +
 * avcodec_send_frame / avcodec_receive_packet with libx264 preset=ultrafast
 * tune=zerolatency and the same AVCodecContext settings as recorder/ (time
 * base 1/1000000, framerate 60, SMPTE 170M matrix / BT.709 primaries / sRGB /
 * limited range, chroma at the centre), and by default the packets
 * written with av_write_frame() to the same muxer (matroska) on the same
 * kind of output (a file, normally on tmpfs). --no-mux discards the packets
 * instead (no output file).
 * The input is read where it lies, as in recorder/.
 *
 * Measured section: from allocating the muxer/encoder to closing the file,
 * like recorder-bench's create..destroy. One JSON line on stdout.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/buffer.h>
#include <libavutil/opt.h>
#include <libyuv/convert.h>

#include "bench-util.h"

static const char usage[] =
	"--frames FILE --size WxH (--output FILE.mkv | --no-mux) [--count N] "
	"[--threads N] [--label S]";

static const AVRational ns_tb = { 1, 1000000000 };

struct bare {
	AVFormatContext *fmt;
	AVStream *st;
	AVCodecContext *ctx;
	AVFrame *conv;
	AVPacket *pkt;
	int no_mux;
	uint64_t packets, bytes;
};

static int fail(const char *what, int averr)
{
	fprintf(stderr, "bare-loop: %s: %s\n", what, av_err2str(averr));
	return averr < 0 ? averr : AVERROR(EINVAL);
}

static int open_encoder(struct bare *b, const struct bench_args *a)
{
	const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
	char threads[16];
	int ret;

	if (!codec)
		return fail("libx264", AVERROR_ENCODER_NOT_FOUND);
	b->ctx = avcodec_alloc_context3(codec);
	if (!b->ctx)
		return fail("avcodec_alloc_context3", AVERROR(ENOMEM));
	b->ctx->width = (int)a->width;
	b->ctx->height = (int)a->height;
	b->ctx->time_base = (AVRational){ 1, 1000000 };
	b->ctx->framerate = (AVRational){ BENCH_FPS, 1 };
	b->ctx->sample_aspect_ratio = (AVRational){ 1, 1 };
	b->ctx->pix_fmt = AV_PIX_FMT_YUV420P;
	b->ctx->colorspace = AVCOL_SPC_SMPTE170M;
	b->ctx->color_primaries = AVCOL_PRI_BT709;
	b->ctx->color_trc = AVCOL_TRC_IEC61966_2_1;
	b->ctx->color_range = AVCOL_RANGE_MPEG;
	b->ctx->chroma_sample_location = AVCHROMA_LOC_CENTER;
	/* matroska wants global headers; set it with --no-mux as well so the
	 * encoder configuration is the same. */
	if (!b->fmt || (b->fmt->oformat->flags & AVFMT_GLOBALHEADER))
		b->ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
	snprintf(threads, sizeof(threads), "%u", a->threads);
	if ((ret = av_opt_set(b->ctx->priv_data, "preset", "ultrafast", 0)) < 0 ||
			(ret = av_opt_set(b->ctx->priv_data, "tune", "zerolatency", 0)) < 0 ||
			(ret = av_opt_set(b->ctx, "threads", threads, AV_OPT_SEARCH_CHILDREN)) < 0)
		return fail("x264 options", ret);
	ret = avcodec_open2(b->ctx, codec, NULL);
	return ret < 0 ? fail("avcodec_open2", ret) : 0;
}

static int alloc_conv(struct bare *b)
{
	av_frame_unref(b->conv);
	b->conv->format = b->ctx->pix_fmt;
	b->conv->width = b->ctx->width;
	b->conv->height = b->ctx->height;
	b->conv->colorspace = b->ctx->colorspace;
	b->conv->color_range = b->ctx->color_range;
	b->conv->color_primaries = b->ctx->color_primaries;
	b->conv->color_trc = b->ctx->color_trc;
	return av_frame_get_buffer(b->conv, 0);
}

static int open_conversion(struct bare *b)
{
	b->conv = av_frame_alloc();
	b->pkt = av_packet_alloc();
	if (!b->conv || !b->pkt)
		return fail("alloc", AVERROR(ENOMEM));
	return alloc_conv(b) < 0 ? fail("av_frame_get_buffer", AVERROR(ENOMEM)) : 0;
}

static int open_output(struct bare *b, const char *output)
{
	int ret = avformat_alloc_output_context2(&b->fmt, av_guess_format("matroska", NULL,
		NULL), NULL, output);

	if (ret < 0)
		return fail("avformat_alloc_output_context2", ret);
	return 0;
}

static int start_output(struct bare *b, const char *output)
{
	int ret;

	b->st = avformat_new_stream(b->fmt, NULL);
	if (!b->st || avcodec_parameters_from_context(b->st->codecpar, b->ctx) < 0)
		return fail("avformat_new_stream", AVERROR(ENOMEM));
	b->st->time_base = b->ctx->time_base;
	ret = avio_open(&b->fmt->pb, output, AVIO_FLAG_WRITE);
	if (ret < 0)
		return fail(output, ret);
	ret = avformat_write_header(b->fmt, NULL);
	return ret < 0 ? fail("avformat_write_header", ret) : 0;
}

static int drain(struct bare *b)
{
	for (;;) {
		int ret = avcodec_receive_packet(b->ctx, b->pkt);

		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return 0;
		if (ret < 0)
			return fail("avcodec_receive_packet", ret);
		b->packets++;
		b->bytes += (uint64_t)b->pkt->size;
		if (!b->no_mux) {
			b->pkt->stream_index = b->st->index;
			av_packet_rescale_ts(b->pkt, b->ctx->time_base, b->st->time_base);
			ret = av_write_frame(b->fmt, b->pkt);
			if (ret < 0)
				return fail("av_write_frame", ret);
		}
		av_packet_unref(b->pkt);
	}
}

static int encode_frame(struct bare *b, const uint8_t *data, uint32_t stride, int64_t ns)
{
	int ret = 0;

	if (!av_frame_is_writable(b->conv))
		ret = alloc_conv(b);
	if (ret < 0)
		return fail("av_frame_get_buffer", ret);
	if (ARGBToI420(data, (int)stride, b->conv->data[0], b->conv->linesize[0],
			b->conv->data[1], b->conv->linesize[1], b->conv->data[2],
			b->conv->linesize[2], b->ctx->width, b->ctx->height))
		return fail("ARGBToI420", AVERROR(EINVAL));
	b->conv->pts = av_rescale_q(ns, ns_tb, b->ctx->time_base);
	ret = avcodec_send_frame(b->ctx, b->conv);
	if (ret < 0)
		return fail("avcodec_send_frame", ret);
	return drain(b);
}

static int finish(struct bare *b)
{
	int ret = avcodec_send_frame(b->ctx, NULL);

	if (ret < 0 && ret != AVERROR_EOF)
		return fail("flush", ret);
	ret = drain(b);
	if (ret < 0 || b->no_mux)
		return ret;
	ret = av_write_trailer(b->fmt);
	if (ret < 0)
		return fail("av_write_trailer", ret);
	ret = avio_closep(&b->fmt->pb);
	return ret < 0 ? fail("avio_closep", ret) : 0;
}

static void close_all(struct bare *b)
{
	avcodec_free_context(&b->ctx);
	av_frame_free(&b->conv);
	av_packet_free(&b->pkt);
	if (b->fmt) {
		avio_closep(&b->fmt->pb);
		avformat_free_context(b->fmt);
	}
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct bench_pool pool;
	struct bench_meter m;
	struct bare b = { 0 };
	unsigned done = 0;
	int ret;

	bench_parse_args(argc, argv, &a, usage);
	if (!a.output && !a.no_mux) {
		fprintf(stderr, "%s: --output or --no-mux is required\n", argv[0]);
		return 2;
	}
	b.no_mux = a.no_mux;
	ret = bench_pool_load(&pool, a.frames_path, a.width, a.height);
	if (ret < 0) {
		fprintf(stderr, "%s: loading %s: %s\n", argv[0], a.frames_path, strerror(-ret));
		return 1;
	}

	bench_meter_start(&m);
	ret = b.no_mux ? 0 : open_output(&b, a.output);
	if (ret == 0)
		ret = open_encoder(&b, &a);
	if (ret == 0)
		ret = open_conversion(&b);
	if (ret == 0 && !b.no_mux)
		ret = start_output(&b, a.output);
	for (; ret == 0 && done < a.count; done++)
		ret = encode_frame(&b, bench_pool_frame(&pool, done), a.width * BENCH_BPP,
			bench_frame_ns(0, done));
	bench_meter_threads(&m);
	if (ret == 0)
		ret = finish(&b);
	close_all(&b);
	bench_meter_stop(&m);

	bench_json_begin(stdout, b.no_mux ? "bare-nomux" : "bare", &a, &m, done);
	bench_json_str(stdout, "codec", b.no_mux ? "libx264/yuv420p/-" :
		"libx264/yuv420p/matroska");
	bench_json_u64(stdout, "requested", a.count);
	bench_json_u64(stdout, "encoded", done);
	bench_json_u64(stdout, "lost", a.count - done);
	bench_json_u64(stdout, "packets", b.packets);
	bench_json_u64(stdout, "packet_bytes", b.bytes);
	bench_json_end(stdout);
	bench_pool_free(&pool);
	return ret < 0 ? 1 : 0;
}
