/*
 * Parsers for the format blobs the kernel hands out: IN_FORMATS (struct
 * drm_format_modifier_blob) and WRITEBACK_PIXEL_FORMATS (an array of u32 fourccs).
 * They take raw bytes so they can be fuzzed; every offset and count is bounds-checked
 * before the blob is walked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "private.h"

static bool range_ok(size_t len, uint64_t offset, uint64_t count, size_t size)
{
	return offset <= len && count <= (len - offset) / size;
}

static int add_modifier(struct wbc_kms_format *f, uint64_t mod)
{
	uint64_t *mods = realloc(f->modifiers, (f->n_modifiers + 1) * sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	mods[f->n_modifiers++] = mod;
	f->modifiers = mods;
	return 0;
}

static int formats_from_list(const uint32_t *list, size_t n, struct wbc_kms_format **out)
{
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*out)[i].fourcc = list[i];
	return 0;
}

int wbc_kms_parse_in_formats(const void *blob, size_t len, struct wbc_kms_format **out,
		size_t *n_out)
{
	struct drm_format_modifier_blob hdr;
	*out = NULL;
	*n_out = 0;
	if (len < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, blob, sizeof(hdr));
	if (hdr.version != FORMAT_BLOB_CURRENT ||
			!range_ok(len, hdr.formats_offset, hdr.count_formats, sizeof(uint32_t)) ||
			!range_ok(len, hdr.modifiers_offset, hdr.count_modifiers,
				sizeof(struct drm_format_modifier)) ||
			hdr.formats_offset % 4 != 0 || hdr.modifiers_offset % 8 != 0)
		return -EINVAL;

	const char *base = blob;
	struct wbc_kms_format *formats = NULL;
	uint32_t *fourccs = malloc(((size_t)hdr.count_formats + 1) * sizeof(uint32_t));
	if (!fourccs)
		return -ENOMEM;
	memcpy(fourccs, base + hdr.formats_offset, (size_t)hdr.count_formats * sizeof(uint32_t));
	int ret = formats_from_list(fourccs, hdr.count_formats, &formats);
	free(fourccs);
	if (ret < 0)
		return ret;
	/* Walked by hand: libdrm 2.4.114's drmModeFormatModifierBlobIterNext skips the first
	 * (format, modifier) pair (seen on VKMS: XR24/LINEAR went missing). Each entry's
	 * bitmask covers formats[offset .. offset + 63]. */
	for (uint32_t m = 0; m < hdr.count_modifiers && ret == 0; m++) {
		struct drm_format_modifier mod;
		memcpy(&mod, base + hdr.modifiers_offset + (size_t)m * sizeof(mod), sizeof(mod));
		for (uint32_t bit = 0; bit < 64 && ret == 0; bit++) {
			uint64_t idx = (uint64_t)mod.offset + bit;
			if ((mod.formats >> bit & 1) && idx < hdr.count_formats)
				ret = add_modifier(&formats[idx], mod.modifier);
		}
	}
	if (ret < 0) {
		wbc_kms_formats_free(formats, hdr.count_formats);
		return ret;
	}
	*out = formats;
	*n_out = hdr.count_formats;
	return 0;
}

int wbc_kms_parse_fourcc_list(const void *blob, size_t len, uint32_t **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	if (len % sizeof(uint32_t) != 0)
		return -EINVAL;
	size_t n = len / sizeof(uint32_t);
	*out = calloc(n ? n : 1, sizeof(uint32_t));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, blob, len);
	*n_out = n;
	return 0;
}

void wbc_kms_formats_free(struct wbc_kms_format *formats, size_t n)
{
	for (size_t i = 0; formats && i < n; i++)
		free(formats[i].modifiers);
	free(formats);
}

unsigned wbc_kms_format_cpp(uint32_t fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888: case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XBGR8888: case DRM_FORMAT_ABGR8888:
	case DRM_FORMAT_RGBX8888: case DRM_FORMAT_RGBA8888:
	case DRM_FORMAT_BGRX8888: case DRM_FORMAT_BGRA8888:
	case DRM_FORMAT_XRGB2101010: case DRM_FORMAT_ARGB2101010:
	case DRM_FORMAT_XBGR2101010: case DRM_FORMAT_ABGR2101010:
		return 4;
	case DRM_FORMAT_RGB565: case DRM_FORMAT_BGR565:
		return 2;
	case DRM_FORMAT_RGB888: case DRM_FORMAT_BGR888:
		return 3;
	case DRM_FORMAT_XRGB16161616: case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XBGR16161616: case DRM_FORMAT_ABGR16161616:
		return 8;
	default:
		return 0;
	}
}
