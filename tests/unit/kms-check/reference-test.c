/*
 * wbc-kms-check's reference renderer against the uAPI's rules, written out by hand for
 * a 4x2 source whose every pixel differs: rotation counter-clockwise, reflection in the
 * source's axes before the rotation (drm_blend.c), clipping at the screen's edges,
 * stacking by type, premultiplied blending over black. A driver that passes a check
 * agrees with these, so they must be right on their own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <drm_fourcc.h>
#include "image.h"
#include "reference.h"

#define SW 4
#define SH 2
#define DST 8

static uint32_t src_px[SH][SW];
static struct wbc_kms_buffer src_buf = {
	.fb = { .width = SW, .height = SH, .format = DRM_FORMAT_XRGB8888 },
	.stride = SW * 4, .map = src_px,
};
static struct wbc_kms_plane overlay = { .type = WBC_KMS_PLANE_OVERLAY };

/* Source pixel (x, y): red = x + 1, green = y + 1 (opaque). */
static uint32_t S(int x, int y)
{
	return 0xff000000u | (uint32_t)(x + 1) << 16 | (uint32_t)(y + 1) << 8;
}

static pixman_image_t *render(uint32_t rotation, int32_t x, int32_t y)
{
	for (int j = 0; j < SH; j++)
		for (int i = 0; i < SW; i++)
			src_px[j][i] = S(i, j);
	struct rig_scene s = { .n = 1 };
	s.planes[0] = (struct rig_plane){ .plane = &overlay, .buf = &src_buf, .crtc_x = x,
		.crtc_y = y, .has_rotation = rotation != 0, .rotation = rotation };
	pixman_image_t *img = reference_render(&s, DST, DST);
	assert_non_null(img);
	return img;
}

static uint32_t D(pixman_image_t *img, int u, int v)
{
	const uint32_t *row = (const uint32_t *)((const char *)pixman_image_get_data(img) +
		(size_t)v * (size_t)pixman_image_get_stride(img));
	return row[u];
}

/* want(u, v): the source pixel displayed at (u, v) of a w x h rectangle at the origin;
 * everything else black. */
static void expect(pixman_image_t *img, int w, int h, uint32_t (*want)(int u, int v))
{
	for (int v = 0; v < DST; v++)
		for (int u = 0; u < DST; u++) {
			uint32_t exp = u < w && v < h ? want(u, v) : 0xff000000u;
			if (D(img, u, v) != exp)
				fail_msg("(%d,%d): got %08x, want %08x", u, v, D(img, u, v), exp);
		}
	pixman_image_unref(img);
}

static uint32_t identity(int u, int v) { return S(u, v); }
/* rotate-90, counter-clockwise: the source's top-right corner comes to the top-left. */
static uint32_t rot90(int u, int v) { return S(SW - 1 - v, u); }
static uint32_t rot180(int u, int v) { return S(SW - 1 - u, SH - 1 - v); }
static uint32_t rot270(int u, int v) { return S(v, SH - 1 - u); }
static uint32_t reflect_x(int u, int v) { return S(SW - 1 - u, v); }
static uint32_t reflect_y(int u, int v) { return S(u, SH - 1 - v); }
/* reflect-x first (source axes), then rotate-90: a transpose; the top-left corner stays
 * and the top-right one ends bottom-left, as the 2024 drm_blend.c example draws it. */
static uint32_t rot90_reflect_x(int u, int v) { return S(v, u); }

static void plain(void **state) { expect(render(0, 0, 0), SW, SH, identity); }
static void rotate_90(void **state) { expect(render(DRM_MODE_ROTATE_90, 0, 0), SH, SW, rot90); }
static void rotate_180(void **state) { expect(render(DRM_MODE_ROTATE_180, 0, 0), SW, SH, rot180); }
static void rotate_270(void **state) { expect(render(DRM_MODE_ROTATE_270, 0, 0), SH, SW, rot270); }
static void reflect_x_only(void **state)
{
	expect(render(DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X, 0, 0), SW, SH, reflect_x);
}
static void reflect_y_only(void **state)
{
	expect(render(DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_Y, 0, 0), SW, SH, reflect_y);
}
static void rotate_90_reflect_x(void **state)
{
	expect(render(DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_X, 0, 0), SH, SW, rot90_reflect_x);
}

/* Partly off the top-left: the visible part is the source from (1,1) on. */
static void clipped(void **state)
{
	pixman_image_t *img = render(0, -1, -1);
	for (int u = 0; u < SW - 1; u++)
		assert_int_equal(D(img, u, 0), S(u + 1, 1));
	assert_int_equal(D(img, SW - 1, 0), 0xff000000u);
	assert_int_equal(D(img, 0, 1), 0xff000000u);
	pixman_image_unref(img);
}

/* Premultiplied ARGB over the black background: the colour as stored. */
static void premultiplied(void **state)
{
	uint32_t px[1] = { 0x80402010u };
	struct wbc_kms_buffer b = { .fb = { .width = 1, .height = 1, .format = DRM_FORMAT_ARGB8888 },
		.stride = 4, .map = px };
	struct rig_scene s = { .n = 1 };
	s.planes[0] = (struct rig_plane){ .plane = &overlay, .buf = &b, .crtc_x = 2, .crtc_y = 3 };
	pixman_image_t *img = reference_render(&s, DST, DST);
	assert_int_equal(D(img, 2, 3), 0xff402010u);
	pixman_image_unref(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain), cmocka_unit_test(rotate_90), cmocka_unit_test(rotate_180),
		cmocka_unit_test(rotate_270), cmocka_unit_test(reflect_x_only),
		cmocka_unit_test(reflect_y_only), cmocka_unit_test(rotate_90_reflect_x),
		cmocka_unit_test(clipped), cmocka_unit_test(premultiplied),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
