/* Host tests of backend/'s blob parsers (IN_FORMATS, WRITEBACK_PIXEL_FORMATS) on
 * hand-built blobs: the VKMS layout, and malformed ones that must be refused. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <drm_fourcc.h>
#include "private.h"

struct blob {
	struct drm_format_modifier_blob hdr;
	uint32_t formats[4];
	struct drm_format_modifier mods[2];
};

static struct blob vkms_blob(void)
{
	struct blob b;
	memset(&b, 0, sizeof(b));
	b.hdr = (struct drm_format_modifier_blob){ .version = FORMAT_BLOB_CURRENT,
		.count_formats = 3, .formats_offset = offsetof(struct blob, formats),
		.count_modifiers = 1, .modifiers_offset = offsetof(struct blob, mods) };
	b.formats[0] = DRM_FORMAT_XRGB8888;
	b.formats[1] = DRM_FORMAT_XRGB16161616;
	b.formats[2] = DRM_FORMAT_RGB565;
	b.mods[0] = (struct drm_format_modifier){ .formats = 0x7, .offset = 0,
		.modifier = DRM_FORMAT_MOD_LINEAR };
	return b;
}

static void vkms_layout(void **state)
{
	struct blob b = vkms_blob();
	struct wbc_kms_format *f;
	size_t n;
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(f[i].fourcc, b.formats[i]);
		/* Every format, the first included, carries LINEAR. */
		assert_int_equal(f[i].n_modifiers, 1);
		assert_true(f[i].modifiers[0] == DRM_FORMAT_MOD_LINEAR);
	}
	wbc_kms_formats_free(f, n);
}

static void bitmask_offset(void **state)
{
	struct blob b = vkms_blob();
	/* A second modifier covering only formats[1]: bit 0 of a mask starting at 1. */
	b.hdr.count_modifiers = 2;
	b.mods[1] = (struct drm_format_modifier){ .formats = 0x1, .offset = 1,
		.modifier = I915_FORMAT_MOD_X_TILED };
	struct wbc_kms_format *f;
	size_t n;
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), 0);
	assert_int_equal(f[0].n_modifiers, 1);
	assert_int_equal(f[1].n_modifiers, 2);
	assert_true(f[1].modifiers[1] == I915_FORMAT_MOD_X_TILED);
	assert_int_equal(f[2].n_modifiers, 1);
	wbc_kms_formats_free(f, n);
}

static void malformed_refused(void **state)
{
	struct wbc_kms_format *f = (void *)1;
	size_t n = 99;
	struct blob b = vkms_blob();
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b.hdr) - 1, &f, &n), -EINVAL);
	assert_null(f);
	assert_int_equal(n, 0);
	b.hdr.version = 2;
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), -EINVAL);
	b = vkms_blob();
	b.hdr.count_formats = 1000;     /* runs past the blob */
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), -EINVAL);
	b = vkms_blob();
	b.hdr.modifiers_offset = sizeof(b);   /* modifiers past the end */
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), -EINVAL);
	b = vkms_blob();
	b.hdr.formats_offset = 0xffffffffu;
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), -EINVAL);
	/* A mask offset beyond count_formats is ignored, not read. */
	b = vkms_blob();
	b.mods[0].offset = 1000;
	assert_int_equal(wbc_kms_parse_in_formats(&b, sizeof(b), &f, &n), 0);
	assert_int_equal(f[0].n_modifiers, 0);
	wbc_kms_formats_free(f, n);
}

static void fourcc_lists(void **state)
{
	const uint32_t wb[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_XRGB16161616,
		DRM_FORMAT_ARGB16161616, DRM_FORMAT_RGB565 };
	uint32_t *out;
	size_t n;
	assert_int_equal(wbc_kms_parse_fourcc_list(wb, sizeof(wb), &out, &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(out, wb, sizeof(wb));
	free(out);
	assert_int_equal(wbc_kms_parse_fourcc_list(wb, 7, &out, &n), -EINVAL);
	assert_int_equal(wbc_kms_parse_fourcc_list(wb, 0, &out, &n), 0);
	assert_int_equal(n, 0);
	free(out);
}

static void bytes_per_pixel(void **state)
{
	assert_int_equal(wbc_kms_format_cpp(DRM_FORMAT_XRGB8888), 4);
	assert_int_equal(wbc_kms_format_cpp(DRM_FORMAT_RGB565), 2);
	assert_int_equal(wbc_kms_format_cpp(DRM_FORMAT_XRGB16161616), 8);
	assert_int_equal(wbc_kms_format_cpp(DRM_FORMAT_NV12), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vkms_layout),
		cmocka_unit_test(bitmask_offset),
		cmocka_unit_test(malformed_refused),
		cmocka_unit_test(fourcc_lists),
		cmocka_unit_test(bytes_per_pixel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
