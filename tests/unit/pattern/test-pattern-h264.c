// SPDX-License-Identifier: MIT
/*
 * Robustness of the wbc test pattern against lossy video: frames 0..59 at
 * 640x480 are drawn (XRGB8888), converted to yuv420p with libswscale,
 * encoded in memory with libx264 at its default rate control (CRF 23),
 * decoded with FFmpeg's h264 decoder, converted back to packed RGB24 and
 * fed to wbc_pattern_decode(): every frame must come back, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "wbc/pattern.h"

#define W 640
#define H 480
#define N_FRAMES 60

struct ctx {
	AVCodecContext *enc, *dec;
	AVFrame *yuv, *out, *rgb;
	AVPacket *pkt;
	struct SwsContext *to_yuv, *to_rgb;
	unsigned char *xrgb;
	uint32_t decoded[N_FRAMES];
	int n_decoded;
	int n_bad;
	size_t bytes;
};

static void check_av(int ret, const char *what)
{
	if (ret < 0) {
		char buf[AV_ERROR_MAX_STRING_SIZE] = { 0 };
		av_strerror(ret, buf, sizeof(buf));
		fail_msg("%s: %s", what, buf);
	}
}

static void consume_decoded(struct ctx *c)
{
	for (;;) {
		int ret = avcodec_receive_frame(c->dec, c->out);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return;
		check_av(ret, "avcodec_receive_frame");
		assert_int_equal(c->out->width, W);
		assert_int_equal(c->out->height, H);
		sws_scale(c->to_rgb, (const uint8_t *const *)c->out->data, c->out->linesize,
			  0, H, c->rgb->data, c->rgb->linesize);
		uint32_t frame = 0xFFFFFFFF;
		int r = wbc_pattern_decode(c->rgb->data[0], (uint32_t)c->rgb->linesize[0], W, H,
					   WBC_PATTERN_FMT_RGB24, &frame);
		if (r != WBC_PATTERN_OK) {
			print_error("decoded picture %d: wbc_pattern_decode returned %d\n",
				    c->n_decoded, r);
			c->n_bad++;
		}
		assert_true(c->n_decoded < N_FRAMES);
		c->decoded[c->n_decoded++] = r == WBC_PATTERN_OK ? frame : 0xFFFFFFFF;
		av_frame_unref(c->out);
	}
}

static void drain_encoder(struct ctx *c)
{
	for (;;) {
		int ret = avcodec_receive_packet(c->enc, c->pkt);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return;
		check_av(ret, "avcodec_receive_packet");
		c->bytes += (size_t)c->pkt->size;
		check_av(avcodec_send_packet(c->dec, c->pkt), "avcodec_send_packet");
		av_packet_unref(c->pkt);
		consume_decoded(c);
	}
}

static void test_h264_roundtrip(void **state)
{
	(void)state;
	struct ctx c = { 0 };

	const AVCodec *x264 = avcodec_find_encoder_by_name("libx264");
	if (!x264)
		fail_msg("libavcodec has no libx264 encoder (FFmpeg built without x264?)");
	const AVCodec *h264 = avcodec_find_decoder(AV_CODEC_ID_H264);
	assert_non_null(h264);

	c.enc = avcodec_alloc_context3(x264);
	assert_non_null(c.enc);
	c.enc->width = W;
	c.enc->height = H;
	c.enc->pix_fmt = AV_PIX_FMT_YUV420P;
	c.enc->time_base = (AVRational){ 1, 60 };
	c.enc->framerate = (AVRational){ 60, 1 };
	/* No bit rate, no crf option: libx264's default CRF 23, default preset. */
	check_av(avcodec_open2(c.enc, x264, NULL), "avcodec_open2(libx264)");

	c.dec = avcodec_alloc_context3(h264);
	assert_non_null(c.dec);
	check_av(avcodec_open2(c.dec, h264, NULL), "avcodec_open2(h264)");

	c.pkt = av_packet_alloc();
	c.yuv = av_frame_alloc();
	c.out = av_frame_alloc();
	c.rgb = av_frame_alloc();
	assert_non_null(c.pkt);
	assert_non_null(c.yuv);
	assert_non_null(c.out);
	assert_non_null(c.rgb);
	c.yuv->format = AV_PIX_FMT_YUV420P;
	c.yuv->width = W;
	c.yuv->height = H;
	check_av(av_frame_get_buffer(c.yuv, 0), "av_frame_get_buffer(yuv)");
	c.rgb->format = AV_PIX_FMT_RGB24;
	c.rgb->width = W;
	c.rgb->height = H;
	check_av(av_frame_get_buffer(c.rgb, 0), "av_frame_get_buffer(rgb)");

	/* XRGB8888 little-endian = bytes B,G,R,X = AV_PIX_FMT_BGR0. */
	c.to_yuv = sws_getContext(W, H, AV_PIX_FMT_BGR0, W, H, AV_PIX_FMT_YUV420P,
				  SWS_BILINEAR, NULL, NULL, NULL);
	c.to_rgb = sws_getContext(W, H, AV_PIX_FMT_YUV420P, W, H, AV_PIX_FMT_RGB24,
				  SWS_BILINEAR, NULL, NULL, NULL);
	assert_non_null(c.to_yuv);
	assert_non_null(c.to_rgb);

	c.xrgb = malloc((size_t)W * 4 * H);
	assert_non_null(c.xrgb);

	for (int i = 0; i < N_FRAMES; i++) {
		wbc_pattern_draw(c.xrgb, W * 4, W, H, (uint32_t)i);
		check_av(av_frame_make_writable(c.yuv), "av_frame_make_writable");
		const uint8_t *src[1] = { c.xrgb };
		const int src_stride[1] = { W * 4 };
		sws_scale(c.to_yuv, src, src_stride, 0, H, c.yuv->data, c.yuv->linesize);
		c.yuv->pts = i;
		check_av(avcodec_send_frame(c.enc, c.yuv), "avcodec_send_frame");
		drain_encoder(&c);
	}
	check_av(avcodec_send_frame(c.enc, NULL), "avcodec_send_frame(flush)");
	drain_encoder(&c);
	check_av(avcodec_send_packet(c.dec, NULL), "avcodec_send_packet(flush)");
	consume_decoded(&c);

	print_message("h264: %d pictures decoded, %zu bytes of H.264, %d undecodable\n",
		      c.n_decoded, c.bytes, c.n_bad);
	assert_int_equal(c.n_decoded, N_FRAMES);
	assert_int_equal(c.n_bad, 0);
	for (int i = 0; i < N_FRAMES; i++)
		assert_int_equal(c.decoded[i], (uint32_t)i);

	free(c.xrgb);
	sws_freeContext(c.to_yuv);
	sws_freeContext(c.to_rgb);
	av_frame_free(&c.yuv);
	av_frame_free(&c.out);
	av_frame_free(&c.rgb);
	av_packet_free(&c.pkt);
	avcodec_free_context(&c.enc);
	avcodec_free_context(&c.dec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h264_roundtrip),
	};
	return cmocka_run_group_tests_name("pattern-h264", tests, NULL, NULL);
}
