// SPDX-License-Identifier: MIT
/* Host unit tests of the wbc test pattern (include/wbc/pattern.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wbc/pattern.h"

static const uint32_t frames[] = { 0, 1, 255, 65535, (1u << 24) - 1u };
static const uint32_t sizes[][2] = { { 320, 240 }, { 640, 480 }, { 1280, 720 } };

struct image {
	unsigned char *px;
	uint32_t width, height, stride;
};

static struct image image_new(uint32_t width, uint32_t height, uint32_t pad)
{
	struct image im = { .width = width, .height = height,
			    .stride = width * 4u + pad };
	im.px = malloc((size_t)im.stride * height);
	assert_non_null(im.px);
	memset(im.px, 0xA5, (size_t)im.stride * height);
	return im;
}

/* Packed 3-byte copy: bytes R,G,B (rgb_order) or B,G,R. */
static unsigned char *to_rgb24(const struct image *im, int rgb_order, uint32_t *stride)
{
	*stride = im->width * 3u + 5u; /* deliberately unaligned */
	unsigned char *out = calloc((size_t)*stride * im->height, 1);
	assert_non_null(out);
	for (uint32_t y = 0; y < im->height; y++) {
		for (uint32_t x = 0; x < im->width; x++) {
			const unsigned char *s = im->px + (size_t)y * im->stride + x * 4u;
			unsigned char *d = out + (size_t)y * *stride + x * 3u;
			d[0] = rgb_order ? s[2] : s[0];
			d[1] = s[1];
			d[2] = rgb_order ? s[0] : s[2];
		}
	}
	return out;
}

static void test_roundtrip(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
			struct image im = image_new(sizes[s][0], sizes[s][1], 64);
			wbc_pattern_draw(im.px, im.stride, im.width, im.height, frames[f]);

			uint32_t got = 0xDEADBEEF;
			assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width,
							    im.height, 0, &got),
					 WBC_PATTERN_OK);
			assert_int_equal(got, frames[f]);

			got = 0xDEADBEEF;
			assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width,
							    im.height, WBC_PATTERN_FMT_XRGB8888,
							    &got),
					 WBC_PATTERN_OK);
			assert_int_equal(got, frames[f]);

			uint32_t stride3;
			unsigned char *rgb = to_rgb24(&im, 1, &stride3);
			got = 0xDEADBEEF;
			assert_int_equal(wbc_pattern_decode(rgb, stride3, im.width, im.height,
							    WBC_PATTERN_FMT_RGB24, &got),
					 WBC_PATTERN_OK);
			assert_int_equal(got, frames[f]);
			free(rgb);

			unsigned char *bgr = to_rgb24(&im, 0, &stride3);
			got = 0xDEADBEEF;
			assert_int_equal(wbc_pattern_decode(bgr, stride3, im.width, im.height,
							    WBC_PATTERN_FMT_RGB888, &got),
					 WBC_PATTERN_OK);
			assert_int_equal(got, frames[f]);
			free(bgr);

			/* Row padding is never written. */
			for (uint32_t y = 0; y < im.height; y++)
				for (uint32_t i = im.width * 4u; i < im.stride; i++)
					assert_int_equal(im.px[(size_t)y * im.stride + i], 0xA5);
			free(im.px);
		}
	}
}

static void test_frame_wraps(void **state)
{
	(void)state;
	struct image im = image_new(320, 240, 0);
	uint32_t got = 0;
	wbc_pattern_draw(im.px, im.stride, im.width, im.height, (1u << 24) + 7u);
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width, im.height, 0, &got),
			 WBC_PATTERN_OK);
	assert_int_equal(got, 7);
	free(im.px);
}

/* Flip one data/check cell (every one in turn): decode must fail. */
static void test_rejects_flipped_cell(void **state)
{
	(void)state;
	const uint32_t frame = 0x5A3C96;
	for (uint32_t cell = 0; cell < WBC_PATTERN_DATA_BITS + WBC_PATTERN_CHECK_BITS; cell++) {
		struct image im = image_new(640, 480, 0);
		wbc_pattern_draw(im.px, im.stride, im.width, im.height, frame);
		uint32_t x0 = (1u + cell % WBC_PATTERN_COLS) * WBC_PATTERN_CELL;
		uint32_t y0 = (1u + cell / WBC_PATTERN_COLS) * WBC_PATTERN_CELL;
		for (uint32_t y = y0; y < y0 + WBC_PATTERN_CELL; y++)
			for (uint32_t x = x0; x < x0 + WBC_PATTERN_CELL; x++) {
				unsigned char *p = im.px + (size_t)y * im.stride + x * 4u;
				p[0] ^= 0xFF;
				p[1] ^= 0xFF;
				p[2] ^= 0xFF;
			}
		uint32_t got = 0xDEADBEEF;
		assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width, im.height, 0, &got),
				 WBC_PATTERN_EBADBLOCK);
		assert_int_equal(got, 0xDEADBEEF);
		free(im.px);
	}
}

static void test_rejects_flat_images(void **state)
{
	(void)state;
	struct image im = image_new(640, 480, 0);
	uint32_t got = 0xDEADBEEF;

	memset(im.px, 0, (size_t)im.stride * im.height); /* all black */
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width, im.height, 0, &got),
			 WBC_PATTERN_EBADBLOCK);

	memset(im.px, 0xFF, (size_t)im.stride * im.height); /* all white */
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width, im.height, 0, &got),
			 WBC_PATTERN_EBADBLOCK);

	/* All-black data cells inside an intact marker border: the inverted
	 * check bits make this invalid too. */
	wbc_pattern_draw(im.px, im.stride, im.width, im.height, 0);
	for (uint32_t y = WBC_PATTERN_CELL; y < WBC_PATTERN_BLOCK_HEIGHT - WBC_PATTERN_CELL; y++)
		memset(im.px + (size_t)y * im.stride + WBC_PATTERN_CELL * 4u, 0,
		       WBC_PATTERN_COLS * WBC_PATTERN_CELL * 4u);
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, im.width, im.height, 0, &got),
			 WBC_PATTERN_EBADBLOCK);
	assert_int_equal(got, 0xDEADBEEF);
	free(im.px);
}

static void test_rejects_bad_args(void **state)
{
	(void)state;
	struct image im = image_new(320, 240, 0);
	uint32_t got;
	wbc_pattern_draw(im.px, im.stride, im.width, im.height, 42);
	assert_int_equal(wbc_pattern_decode(NULL, im.stride, 320, 240, 0, &got),
			 WBC_PATTERN_EINVAL);
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, 287, 240, 0, &got),
			 WBC_PATTERN_EINVAL);
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, 320, 63, 0, &got),
			 WBC_PATTERN_EINVAL);
	assert_int_equal(wbc_pattern_decode(im.px, 100, 320, 240, 0, &got),
			 WBC_PATTERN_EINVAL);
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, 320, 240,
					    WBC_PATTERN_FOURCC('N', 'V', '1', '2'), &got),
			 WBC_PATTERN_EINVAL);
	/* NULL out pointer is allowed. */
	assert_int_equal(wbc_pattern_decode(im.px, im.stride, 320, 240, 0, NULL),
			 WBC_PATTERN_OK);
	free(im.px);
}

static void test_pixel_matches_draw(void **state)
{
	(void)state;
	const uint32_t test_frames[] = { 0, 1, 77, 123456, (1u << 24) - 1u };
	for (size_t f = 0; f < sizeof(test_frames) / sizeof(test_frames[0]); f++) {
		struct image im = image_new(320, 240, 12);
		wbc_pattern_draw(im.px, im.stride, im.width, im.height, test_frames[f]);
		for (uint32_t y = 0; y < im.height; y++) {
			for (uint32_t x = 0; x < im.width; x++) {
				const unsigned char *p = im.px + (size_t)y * im.stride + x * 4u;
				uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
					     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
				uint32_t want = wbc_pattern_pixel(im.width, im.height,
								  test_frames[f], x, y);
				if (v != want)
					fail_msg("frame %u pixel (%u,%u): drew 0x%08x, pixel() 0x%08x",
						 test_frames[f], x, y, v, want);
			}
		}
		free(im.px);
	}
}

static void test_layout(void **state)
{
	(void)state;
	/* Frame 0x800001: first data cell white, 24th white, the rest black. */
	const uint32_t f = 0x800001;
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 0, 0), WBC_PATTERN_MARKER);
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 287, 63), WBC_PATTERN_MARKER);
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 16, 16), WBC_PATTERN_WHITE);
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 31, 31), WBC_PATTERN_WHITE);
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 32, 16), WBC_PATTERN_BLACK);
	/* bit 0 is data cell 23: row 1, column 7 -> x 128..143, y 32..47 */
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 128, 32), WBC_PATTERN_WHITE);
	assert_int_equal(wbc_pattern_pixel(640, 480, f, 112, 32), WBC_PATTERN_BLACK);
	/* Background moves with the frame. */
	assert_int_not_equal(wbc_pattern_pixel(640, 480, 0, 400, 300),
			     wbc_pattern_pixel(640, 480, 1, 400, 300));
	/* Check bits are inverted: frame 0 does not give all-zero check. */
	assert_int_not_equal(wbc_pattern_check(0), 0);
	assert_int_not_equal(wbc_pattern_check(0xFFFFFF), 0xFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_frame_wraps),
		cmocka_unit_test(test_rejects_flipped_cell),
		cmocka_unit_test(test_rejects_flat_images),
		cmocka_unit_test(test_rejects_bad_args),
		cmocka_unit_test(test_pixel_matches_draw),
		cmocka_unit_test(test_layout),
	};
	return cmocka_run_group_tests_name("pattern", tests, NULL, NULL);
}
