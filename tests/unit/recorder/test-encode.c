/* SPDX-License-Identifier: MIT */
/* Round trips: lossless ffv1/mkv bit-exactness (wbc's version 3 and version 1),
 * default libx264 quality, and recorder/'s RGB -> YUV conversion (threaded,
 * alpha-twin input format) equal to the plain one. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define N_FRAMES 30
#define FRAME_NS (TU_NS_PER_S / 30)
#define BASE_NS (INT64_C(1000) * TU_NS_PER_S)

struct compare {
	uint8_t *expected, *actual;
	uint32_t stride;
	unsigned bad_pixels, bad_format;
	double sq_err;
	double max_diff;        /* check_yuv_bt601: the largest difference, for the log */
	uint64_t samples;
};

static void compare_init(struct compare *c)
{
	*c = (struct compare){ .stride = tu_stride(TU_W) };
	c->expected = malloc((size_t)c->stride * TU_H);
	c->actual = malloc((size_t)c->stride * TU_H);
	assert_non_null(c->expected);
	assert_non_null(c->actual);
}

static void compare_fini(struct compare *c)
{
	free(c->expected);
	free(c->actual);
}

static void check_exact(void *data, const AVFrame *f, unsigned index)
{
	struct compare *c = data;

	if (f->format != AV_PIX_FMT_BGR0 || f->width != TU_W || f->height != TU_H) {
		c->bad_format++;
		return;
	}
	tu_fill_pattern(c->expected, c->stride, TU_W, TU_H, index);
	for (int y = 0; y < TU_H; y++) {
		const uint8_t *e = c->expected + (size_t)y * c->stride;
		const uint8_t *a = f->data[0] + (size_t)y * (size_t)f->linesize[0];

		for (int x = 0; x < TU_W; x++) /* bytes B, G, R; X ignored */
			c->bad_pixels += memcmp(e + 4 * x, a + 4 * x, 3) != 0;
	}
}

static void accumulate_error(void *data, const AVFrame *f, unsigned index)
{
	struct compare *c = data;

	if (f->width != TU_W || f->height != TU_H) {
		c->bad_format++;
		return;
	}
	tu_fill_pattern(c->expected, c->stride, TU_W, TU_H, index);
	tu_frame_to_bgr0(f, c->actual, (int)c->stride);
	for (size_t y = 0; y < TU_H; y++) {
		for (size_t x = 0; x < TU_W; x++) {
			for (size_t k = 0; k < 3; k++) {
				size_t o = y * c->stride + 4 * x + k;
				double d = (double)c->expected[o] - (double)c->actual[o];

				c->sq_err += d * d;
			}
		}
	}
	c->samples += (uint64_t)TU_W * TU_H * 3;
}

/* Where libswscale converts (here: the BT.709 matrix asked for), recorder/ tells
 * it its bgr0 frames are bgra and splits them over threads: the planes must
 * equal those of the one-thread bgr0 conversion with the same flags and
 * matrix, whatever the X byte holds (the pattern puts 0x5a + i there). libx264
 * qp=0 is lossless, so the decoded planes are the converted ones. */
static void check_yuv_exact(void *data, const AVFrame *f, unsigned index)
{
	struct compare *c = data;
	struct SwsContext *sws;
	AVFrame *want = av_frame_alloc();
	const uint8_t *src[4] = { c->expected, NULL, NULL, NULL };
	const int src_stride[4] = { (int)c->stride, 0, 0, 0 };

	assert_non_null(want);
	/* libswscale's chroma is not at the centre: not tagged so. */
	if (f->format != AV_PIX_FMT_YUV420P || f->width != TU_W || f->height != TU_H ||
			f->colorspace != AVCOL_SPC_BT709 || f->chroma_location == AVCHROMA_LOC_CENTER) {
		c->bad_format++;
		av_frame_free(&want);
		return;
	}
	want->format = AV_PIX_FMT_YUV420P;
	want->width = TU_W;
	want->height = TU_H;
	assert_int_equal(av_frame_get_buffer(want, 0), 0);
	tu_fill_pattern(c->expected, c->stride, TU_W, TU_H, index);
	sws = sws_getContext(TU_W, TU_H, AV_PIX_FMT_BGR0, TU_W, TU_H, AV_PIX_FMT_YUV420P,
		SWS_BILINEAR, NULL, NULL, NULL);
	assert_non_null(sws);
	sws_setColorspaceDetails(sws, sws_getCoefficients(SWS_CS_DEFAULT), 1,
		sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
	assert_int_equal(sws_scale(sws, src, src_stride, 0, TU_H, want->data, want->linesize),
		TU_H);
	sws_freeContext(sws);
	for (int p = 0; p < 3; p++) {
		int w = p ? TU_W / 2 : TU_W, h = p ? TU_H / 2 : TU_H;

		for (int y = 0; y < h; y++) {
			const uint8_t *a = f->data[p] + (size_t)y * (size_t)f->linesize[p];
			const uint8_t *e = want->data[p] + (size_t)y * (size_t)want->linesize[p];

			for (int x = 0; x < w; x++)
				c->bad_pixels += a[x] != e[x];
		}
	}
	c->samples++;
	av_frame_free(&want);
}

/* The default conversion (libyuv's): the decoded planes are the source
 * converted as the stream is tagged, BT.601 matrix, limited range, chroma at
 * the centre of each 2x2 block, computed here from the definitions: within 1
 * of Y and 2 of Cb and Cr (libyuv works in 8-bit fixed point). */
static const double bt601_kr = 0.299, bt601_kb = 0.114;

static double luma(double r, double g, double b)
{
	return bt601_kr * r + (1.0 - bt601_kr - bt601_kb) * g + bt601_kb * b;
}

static void tally(struct compare *c, int got, double want, int tolerance)
{
	double d = fabs((double)got - want);

	c->bad_pixels += d > tolerance;
	if (d > c->max_diff)
		c->max_diff = d;
}

static void check_chroma(struct compare *c, const AVFrame *f, int x, int y)
{
	const uint8_t *p[4];
	double r = 0, g = 0, b = 0, lum, cb, cr;

	for (int k = 0; k < 4; k++) {
		p[k] = c->expected + (size_t)(2 * y + k / 2) * c->stride + 4 * (2 * x + k % 2);
		b += p[k][0] / 4.0;
		g += p[k][1] / 4.0;
		r += p[k][2] / 4.0;
	}
	lum = luma(r, g, b);
	cb = 128.0 + 224.0 / 255.0 * (b - lum) / (2.0 * (1.0 - bt601_kb));
	cr = 128.0 + 224.0 / 255.0 * (r - lum) / (2.0 * (1.0 - bt601_kr));
	tally(c, f->data[1][(size_t)y * (size_t)f->linesize[1] + (size_t)x], cb, 2);
	tally(c, f->data[2][(size_t)y * (size_t)f->linesize[2] + (size_t)x], cr, 2);
}

static void check_yuv_bt601(void *data, const AVFrame *f, unsigned index)
{
	struct compare *c = data;

	if (f->format != AV_PIX_FMT_YUV420P || f->width != TU_W || f->height != TU_H ||
			f->colorspace != AVCOL_SPC_SMPTE170M || f->color_range != AVCOL_RANGE_MPEG ||
			f->chroma_location != AVCHROMA_LOC_CENTER) {
		c->bad_format++;
		return;
	}
	tu_fill_pattern(c->expected, c->stride, TU_W, TU_H, index);
	for (int y = 0; y < TU_H; y++) {
		for (int x = 0; x < TU_W; x++) {
			const uint8_t *p = c->expected + (size_t)y * c->stride + 4 * (size_t)x;

			tally(c, f->data[0][(size_t)y * (size_t)f->linesize[0] + (size_t)x],
				16.0 + 219.0 / 255.0 * luma(p[2], p[1], p[0]), 1);
		}
	}
	for (int y = 0; y < TU_H / 2; y++)
		for (int x = 0; x < TU_W / 2; x++)
			check_chroma(c, f, x, y);
	c->samples++;
}

/* Records N_FRAMES at 30 fps to path; returns stop()'s result. */
static int record(struct wbc_recorder_options *o, const char *codec, const char *pixfmt)
{
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char err[1024];
	int ret;

	tu_tracker_init(&t);
	o->queue_length = 8;
	ret = wbc_recorder_create(o, &rec, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(ret, 0);
	assert_string_equal(wbc_recorder_codec_name(rec), codec);
	assert_string_equal(wbc_recorder_encoder_pixel_format(rec), pixfmt);
	for (unsigned i = 0; i < N_FRAMES; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, BASE_NS + i * FRAME_NS, 8), 0);
	ret = wbc_recorder_stop(rec, BASE_NS + N_FRAMES * FRAME_NS);
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.submitted, N_FRAMES);
	assert_int_equal(s.encoded, N_FRAMES);
	assert_int_equal(s.dropped, 0);
	assert_true(s.bytes_written > 0);
	assert_int_equal(t.released, N_FRAMES);
	assert_int_equal(t.wrong_thread, 0);
	assert_null(wbc_recorder_error(rec));
	wbc_recorder_destroy(rec);
	return ret;
}

/* opts: codec options; version1: whether they ask for FFV1 version 1 (no header of its
 * own) rather than wbc's default version 3. */
static void check_ffv1_lossless(const char *const *opts, size_t n_opts, bool version1)
{
	struct wbc_recorder_options o;
	struct tu_media m;
	struct compare c;
	char dir[256], path[300];

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/lossless.mkv", dir);
	o = tu_options(path);
	o.codec = "ffv1";
	o.codec_opts = opts;
	o.n_codec_opts = n_opts;
	/* bgr0 goes straight into ffv1: no libswscale. */
	assert_int_equal(record(&o, "ffv1", "bgr0"), 0);

	compare_init(&c);
	assert_int_equal(tu_decode_file(path, NULL, check_exact, &c, &m), 0);
	assert_int_equal(m.nb_streams, 1);
	assert_int_equal(m.codec_id, AV_CODEC_ID_FFV1);
	if (version1)
		assert_int_equal(m.extradata_size, 0);
	else
		assert_true(m.extradata_size > 0);
	assert_int_equal(m.frames, N_FRAMES);
	assert_int_equal(c.bad_format, 0);
	assert_int_equal(c.bad_pixels, 0);
	for (unsigned i = 0; i < N_FRAMES; i++) {
		double want = (double)(i * FRAME_NS) / 1e9;

		assert_true(fabs(m.pts_s[i] - want) <= 0.001);
		if (i)
			assert_true(m.pts_s[i] > m.pts_s[i - 1]);
	}
	compare_fini(&c);
	tu_rmtree(dir);
}

static void test_ffv1_lossless_mkv(void **state)
{
	(void)state;
	check_ffv1_lossless(NULL, 0, false);
}

/* level=1 alone: FFV1 version 1 in one slice (wbc's 4 slices would need version 3). */
static void test_ffv1_level1(void **state)
{
	static const char *const opts[] = { "level=1" };

	(void)state;
	check_ffv1_lossless(opts, 1, true);
}

static void test_default_x264_psnr(void **state)
{
	struct wbc_recorder_options o;
	struct tu_media m;
	struct compare c;
	char dir[256], path[300];
	double mse, psnr;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/default.mkv", dir);
	o = tu_options(path);
	assert_int_equal(record(&o, "libx264", "yuv420p"), 0);

	compare_init(&c);
	assert_int_equal(tu_decode_file(path, NULL, accumulate_error, &c, &m), 0);
	assert_int_equal(m.nb_streams, 1);
	assert_int_equal(m.nb_video, 1);
	assert_int_equal(m.codec_id, AV_CODEC_ID_H264);
	assert_int_equal(m.width, TU_W);
	assert_int_equal(m.height, TU_H);
	assert_int_equal(m.frames, N_FRAMES);
	assert_int_equal(c.bad_format, 0);
	assert_true(c.samples > 0);
	mse = c.sq_err / (double)c.samples;
	psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;
	fprintf(stderr, "libx264 default: RGB PSNR %.2f dB over %u frames\n", psnr, m.frames);
	assert_true(psnr >= 35.0);
	compare_fini(&c);
	tu_rmtree(dir);
}

/* Records N_FRAMES losslessly (libx264 qp=0) with the codec options opts and runs
 * check on every decoded frame: no frame of another format or tagging, no pixel off. */
static void check_lossless_conversion(const char *const *opts, size_t n_opts,
		tu_frame_fn check, const char *what)
{
	struct wbc_recorder_options o;
	struct tu_media m;
	struct compare c;
	char dir[256], path[300];

	tu_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/lossless-%s.mkv", dir, what);
	o = tu_options(path);
	o.codec = "libx264";
	o.codec_opts = opts;
	o.n_codec_opts = n_opts;
	assert_int_equal(record(&o, "libx264", "yuv420p"), 0);

	compare_init(&c);
	assert_int_equal(tu_decode_file(path, NULL, check, &c, &m), 0);
	fprintf(stderr, "%s: largest difference %.2f\n", what, c.max_diff);
	assert_int_equal(m.frames, N_FRAMES);
	assert_int_equal(c.samples, N_FRAMES);
	assert_int_equal(c.bad_format, 0);
	assert_int_equal(c.bad_pixels, 0);
	compare_fini(&c);
	tu_rmtree(dir);
}

static void test_conversion_exact_swscale(void **state)
{
	static const char *const opts[] = { "qp=0", "preset=ultrafast", "colorspace=bt709" };

	(void)state;
	check_lossless_conversion(opts, 3, check_yuv_exact, "swscale-bt709");
}

static void test_conversion_bt601(void **state)
{
	static const char *const opts[] = { "qp=0", "preset=ultrafast" };

	(void)state;
	check_lossless_conversion(opts, 2, check_yuv_bt601, "libyuv-bt601");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ffv1_lossless_mkv),
		cmocka_unit_test(test_ffv1_level1),
		cmocka_unit_test(test_default_x264_psnr),
		cmocka_unit_test(test_conversion_exact_swscale),
		cmocka_unit_test(test_conversion_bt601),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
