/*
 * Pixels through pixman: it knows most packed RGB layouts DRM uses, converts between
 * them and composes, so the checker hand-writes only what pixman 0.42 lacks: the
 * 16-bit-per-channel formats (see wide_*), and the comparison itself.
 */
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include "image.h"

/* DRM fourcc → pixman format (same bit layout in a little-endian word). */
static const struct {
	uint32_t fourcc;
	pixman_format_code_t pixman;
} formats[] = {
	{ DRM_FORMAT_XRGB8888, PIXMAN_x8r8g8b8 }, { DRM_FORMAT_ARGB8888, PIXMAN_a8r8g8b8 },
	{ DRM_FORMAT_XBGR8888, PIXMAN_x8b8g8r8 }, { DRM_FORMAT_ABGR8888, PIXMAN_a8b8g8r8 },
	{ DRM_FORMAT_RGBX8888, PIXMAN_r8g8b8x8 }, { DRM_FORMAT_RGBA8888, PIXMAN_r8g8b8a8 },
	{ DRM_FORMAT_BGRX8888, PIXMAN_b8g8r8x8 }, { DRM_FORMAT_BGRA8888, PIXMAN_b8g8r8a8 },
	{ DRM_FORMAT_RGB888, PIXMAN_r8g8b8 }, { DRM_FORMAT_BGR888, PIXMAN_b8g8r8 },
	{ DRM_FORMAT_RGB565, PIXMAN_r5g6b5 }, { DRM_FORMAT_BGR565, PIXMAN_b5g6r5 },
	{ DRM_FORMAT_XRGB2101010, PIXMAN_x2r10g10b10 }, { DRM_FORMAT_ARGB2101010, PIXMAN_a2r10g10b10 },
	{ DRM_FORMAT_XBGR2101010, PIXMAN_x2b10g10r10 }, { DRM_FORMAT_ABGR2101010, PIXMAN_a2b10g10r10 },
};

/* 16 bits per channel, little-endian u16s: which channel sits in which 16-bit slot.
 * Static tables only. */
struct wide {
	uint32_t fourcc;
	unsigned r, g, b, a;             /* slot index; a = 4: no alpha (X) */
};
static const struct wide wides[] = {
	{ DRM_FORMAT_XRGB16161616, 2, 1, 0, 4 }, { DRM_FORMAT_ARGB16161616, 2, 1, 0, 3 },
	{ DRM_FORMAT_XBGR16161616, 0, 1, 2, 4 }, { DRM_FORMAT_ABGR16161616, 0, 1, 2, 3 },
};

static pixman_format_code_t to_pixman(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fourcc == fourcc)
			return formats[i].pixman;
	return 0;
}

static const struct wide *to_wide(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(wides) / sizeof(wides[0]); i++)
		if (wides[i].fourcc == fourcc)
			return &wides[i];
	return NULL;
}

bool image_format_supported(uint32_t fourcc, const char **why)
{
	if (to_wide(fourcc) || to_pixman(fourcc))
		return wbc_kms_format_cpp(fourcc) ? true :
			(*why = "libwbc-kms makes no dumb buffer of this format", false);
	*why = "the reference renders packed RGB formats only (no YUV, no palette)";
	return false;
}

unsigned image_format_bits(uint32_t fourcc)
{
	if (to_wide(fourcc))
		return 16;
	pixman_format_code_t f = to_pixman(fourcc);
	unsigned r = PIXMAN_FORMAT_R(f), g = PIXMAN_FORMAT_G(f), b = PIXMAN_FORMAT_B(f);
	unsigned m = r < g ? r : g;
	return m < b ? m : b;
}

bool image_format_has_alpha(uint32_t fourcc)
{
	const struct wide *w = to_wide(fourcc);
	return w ? w->a < 4 : PIXMAN_FORMAT_A(to_pixman(fourcc)) > 0;
}

static pixman_image_t *blank(uint32_t w, uint32_t h)
{
	return pixman_image_create_bits(PIXMAN_a8r8g8b8, (int)w, (int)h, NULL, 0);
}

static uint32_t *row(pixman_image_t *img, uint32_t y)
{
	return (uint32_t *)((char *)pixman_image_get_data(img) +
		(size_t)y * (size_t)pixman_image_get_stride(img));
}

static uint32_t premultiply(uint32_t a, uint32_t rgb)
{
	uint32_t out = a << 24;
	for (int s = 0; s < 24; s += 8)
		out |= (((rgb >> s & 0xffu) * a + 127) / 255) << s;
	return out;
}

pixman_image_t *image_pattern(uint32_t w, uint32_t h, unsigned seed, bool alpha)
{
	static const uint32_t bands[] = { 0x00, 0x40, 0x80, 0xc0, 0xff };
	pixman_image_t *img = blank(w, h);
	for (uint32_t y = 0; img && y < h; y++) {
		uint32_t *r = row(img, y);
		for (uint32_t x = 0; x < w; x++) {
			/* Every channel changes along both axes, so a shifted, mirrored or
			 * rotated copy differs from the original almost everywhere. */
			uint32_t rgb = ((x * 3 + y + seed * 40) & 0xffu) << 16 |
				((y * 3 + x * 2 + seed * 90) & 0xffu) << 8 | ((x ^ y) * 5 + seed * 20) % 256u;
			uint32_t a = alpha ? bands[(x / 16 + y / 16) % 5] : 0xff;
			r[x] = premultiply(a, rgb);
		}
	}
	return img;
}

pixman_image_t *image_diamond(uint32_t w, uint32_t h, unsigned seed)
{
	pixman_image_t *img = image_pattern(w, h, seed, false);
	for (uint32_t y = 0; img && y < h; y++) {
		uint32_t *r = row(img, y);
		for (uint32_t x = 0; x < w; x++) {
			int dx = 2 * (int)x + 1 - (int)w, dy = 2 * (int)y + 1 - (int)h;
			if ((dx < 0 ? -dx : dx) * (int)h + (dy < 0 ? -dy : dy) * (int)w >= (int)(w * h))
				r[x] = 0;
		}
	}
	return img;
}

pixman_image_t *image_solid(uint32_t w, uint32_t h, uint32_t argb)
{
	pixman_image_t *img = blank(w, h);
	for (uint32_t y = 0; img && y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			row(img, y)[x] = argb;
	return img;
}

/* pixman has no 16-bit-per-channel integer formats (0.42), so those are converted here.
 * Content is 8-bit, so v * 257 is exact and >> 8 gets it back; a driver's output is
 * rounded to 8 bits the same way pixman rounds (v * 255 + 32767) / 65535. */
static uint16_t *wide_px(const struct wbc_kms_buffer *buf, uint32_t x, uint32_t y)
{
	return (uint16_t *)((char *)buf->map + (size_t)y * buf->stride) + 4 * (size_t)x;
}

static void wide_write(const struct wide *f, pixman_image_t *content, struct wbc_kms_buffer *buf)
{
	for (uint32_t y = 0; y < buf->fb.height; y++)
		for (uint32_t x = 0; x < buf->fb.width; x++) {
			uint32_t v = row(content, y)[x];
			uint16_t *p = wide_px(buf, x, y);
			p[f->r] = (uint16_t)((v >> 16 & 0xffu) * 257u);
			p[f->g] = (uint16_t)((v >> 8 & 0xffu) * 257u);
			p[f->b] = (uint16_t)((v & 0xffu) * 257u);
			p[3] = f->a < 4 ? (uint16_t)((v >> 24) * 257u) : 0xffffu;
		}
}

static uint32_t to8(uint16_t v)
{
	return ((uint32_t)v * 255u + 32767u) / 65535u;
}

static void wide_read(const struct wide *f, const struct wbc_kms_buffer *buf, pixman_image_t *img)
{
	for (uint32_t y = 0; y < buf->fb.height; y++)
		for (uint32_t x = 0; x < buf->fb.width; x++) {
			const uint16_t *p = wide_px(buf, x, y);
			uint32_t a = f->a < 4 ? to8(p[3]) : 0xffu;
			row(img, y)[x] = a << 24 | to8(p[f->r]) << 16 | to8(p[f->g]) << 8 | to8(p[f->b]);
		}
}

static pixman_image_t *wrap(const struct wbc_kms_buffer *buf)
{
	return pixman_image_create_bits(to_pixman(buf->fb.format), (int)buf->fb.width,
		(int)buf->fb.height, buf->map, (int)buf->stride);
}

int image_to_buffer(pixman_image_t *content, struct wbc_kms_buffer *buf)
{
	const struct wide *f = to_wide(buf->fb.format);
	if (f) {
		wide_write(f, content, buf);
		return 0;
	}
	pixman_image_t *dst = to_pixman(buf->fb.format) ? wrap(buf) : NULL;
	if (!dst)
		return -1;
	pixman_image_composite32(PIXMAN_OP_SRC, content, NULL, dst, 0, 0, 0, 0, 0, 0,
		(int)buf->fb.width, (int)buf->fb.height);
	pixman_image_unref(dst);
	return 0;
}

pixman_image_t *image_from_buffer(const struct wbc_kms_buffer *buf)
{
	pixman_image_t *img = blank(buf->fb.width, buf->fb.height);
	const struct wide *f = to_wide(buf->fb.format);
	if (img && f) {
		wide_read(f, buf, img);
		return img;
	}
	pixman_image_t *src = img && to_pixman(buf->fb.format) ? wrap(buf) : NULL;
	if (!src) {
		if (img)
			pixman_image_unref(img);
		return NULL;
	}
	pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, img, 0, 0, 0, 0, 0, 0,
		(int)buf->fb.width, (int)buf->fb.height);
	pixman_image_unref(src);
	return img;
}

static unsigned delta(uint32_t a, uint32_t b)
{
	unsigned m = 0;
	for (int s = 0; s < 24; s += 8) {
		int d = (int)(a >> s & 0xffu) - (int)(b >> s & 0xffu);
		unsigned ad = (unsigned)(d < 0 ? -d : d);
		m = ad > m ? ad : m;
	}
	return m;
}

void image_compare(pixman_image_t *want, pixman_image_t *got, unsigned tolerance,
		struct image_diff *diff)
{
	memset(diff, 0, sizeof(*diff));
	uint32_t w = (uint32_t)pixman_image_get_width(want), h = (uint32_t)pixman_image_get_height(want);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t a = row(want, y)[x] & 0xffffffu, b = row(got, y)[x] & 0xffffffu;
			unsigned d = delta(a, b);
			diff->max_delta = d > diff->max_delta ? d : diff->max_delta;
			if (d <= tolerance || diff->mismatches++)
				continue;
			diff->x = x;
			diff->y = y;
			diff->want = a;
			diff->got = b;
		}
}

pixman_image_t *image_diff_image(pixman_image_t *want, pixman_image_t *got, unsigned tolerance)
{
	uint32_t w = (uint32_t)pixman_image_get_width(want), h = (uint32_t)pixman_image_get_height(want);
	pixman_image_t *img = blank(w, h);
	for (uint32_t y = 0; img && y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t a = row(want, y)[x], b = row(got, y)[x];
			row(img, y)[x] = delta(a & 0xffffffu, b & 0xffffffu) > tolerance ? 0xffff00ffu :
				0xff000000u | (a >> 2 & 0x3f3f3fu);
		}
	return img;
}
