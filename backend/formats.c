/*
 * Parsers for the format blobs the kernel hands out: IN_FORMATS (struct
 * drm_format_modifier_blob) and WRITEBACK_PIXEL_FORMATS (an array of u32 fourccs).
 * They take raw bytes so they can be fuzzed; every offset and count is bounds-checked
 * before libdrm's iterator walks the blob, since that iterator trusts its input.
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

	/* The iterator reads through aligned pointers: give it an aligned copy. */
	uint64_t *copy = malloc((len + 7) / 8 * 8);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, blob, len);
	const uint32_t *fourccs = (const uint32_t *)((const char *)copy + hdr.formats_offset);

	struct wbc_kms_format *formats = NULL;
	int ret = formats_from_list(fourccs, hdr.count_formats, &formats);
	if (ret < 0) {
		free(copy);
		return ret;
	}
	drmModePropertyBlobRes res = { .length = (uint32_t)len, .data = copy };
	drmModeFormatModifierIterator it = { 0 };
	while (ret == 0 && drmModeFormatModifierBlobIterNext(&res, &it)) {
		if (it.fmt_idx < hdr.count_formats)
			ret = add_modifier(&formats[it.fmt_idx], it.mod);
	}
	free(copy);
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
	case DRM_FORMAT_XRGB2101010: case DRM_FORMAT_ARGB2101010:
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
