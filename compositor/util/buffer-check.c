/* Checks of client-supplied buffer layouts (see buffer-check.h). */
#include <stdio.h>
#include <drm_fourcc.h>
#include "buffer-check.h"
#include "wbc/kms.h"

uint32_t wbc_buffer_shm_to_drm(uint32_t shm_format)
{
	/* wl_shm's two original codes are not fourccs; the rest are (wayland.xml). */
	if (shm_format == 0)
		return DRM_FORMAT_ARGB8888;
	if (shm_format == 1)
		return DRM_FORMAT_XRGB8888;
	return shm_format;
}

bool wbc_buffer_layout_ok(uint32_t drm_format, uint32_t width, uint32_t height,
		uint32_t stride, uint64_t offset, uint64_t size, char *why, size_t len)
{
	uint32_t bpp = wbc_kms_format_cpp(drm_format);
	if (width == 0 || height == 0) {
		snprintf(why, len, "empty buffer (%ux%u)", width, height);
		return false;
	}
	if (bpp == 0) {
		snprintf(why, len, "format 0x%08x is not one wbc can read", drm_format);
		return false;
	}
	uint64_t row = (uint64_t)width * bpp;      /* < 2^34: no overflow below */
	if (stride < row) {
		snprintf(why, len, "stride %u is less than a row of %u pixels (%llu bytes)",
			stride, width, (unsigned long long)row);
		return false;
	}
	uint64_t span = (uint64_t)stride * (height - 1) + row;   /* < 2^64 */
	if (offset > size || span > size - offset) {
		snprintf(why, len, "%ux%u with stride %u at offset %llu needs %llu bytes, "
			"has %llu", width, height, stride, (unsigned long long)offset,
			(unsigned long long)span, (unsigned long long)size);
		return false;
	}
	return true;
}
