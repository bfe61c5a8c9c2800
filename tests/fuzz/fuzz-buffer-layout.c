/*
 * libFuzzer target: the checks of client-supplied buffer layouts (compositor/util/buffer-check.c,
 * used for wl_shm buffers, mapped client dma-bufs and readback of scanned-out ones) and
 * the recorder's minimum frame stride (recorder/format.c, which wbc_recorder_submit
 * checks before it reads stride * height bytes).
 *
 * Input: 32 bytes, little endian: u32 format (a DRM fourcc; values 0..255 pick one from
 * a table of the formats wbc knows, so the fuzzer reaches them; the raw value is also
 * taken as a wl_shm code), u32 width, u32 height, u32 stride, u64 offset, u64 size. wbc_buffer_layout_ok is checked against a 128-bit
 * oracle; wbc_buffer_shm_to_drm against wayland.xml's rule; wbc_format_min_stride must
 * be 0 or width * bytes-per-pixel, agreeing with wbc_kms_format_cpp where both know a
 * format.
 */
#include <assert.h>
#include <drm_fourcc.h>
#include <stdint.h>
#include <string.h>
#include "../../compositor/util/buffer-check.h"
#include "../../recorder/format.h"
#include "wbc/kms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t known[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGBX8888, DRM_FORMAT_RGBA8888, DRM_FORMAT_BGRX8888, DRM_FORMAT_BGRA8888,
	DRM_FORMAT_XRGB2101010, DRM_FORMAT_ARGB2101010, DRM_FORMAT_XBGR2101010,
	DRM_FORMAT_ABGR2101010, DRM_FORMAT_RGB888, DRM_FORMAT_BGR888, DRM_FORMAT_RGB565,
	DRM_FORMAT_BGR565, DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616,
	DRM_FORMAT_XBGR16161616, DRM_FORMAT_ABGR16161616, DRM_FORMAT_NV12,
};

static uint64_t get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t in[32] = { 0 };
	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	uint32_t raw = (uint32_t)get(in, 4), format = raw;
	if (format < 256)
		format = known[format % (sizeof(known) / sizeof(known[0]))];
	uint32_t width = (uint32_t)get(in + 4, 4), height = (uint32_t)get(in + 8, 4);
	uint32_t stride = (uint32_t)get(in + 12, 4);
	uint64_t offset = get(in + 16, 8), bytes = get(in + 24, 8);

	/* The oracle, in 128-bit arithmetic. */
	__extension__ typedef unsigned __int128 u128;
	unsigned bpp = wbc_kms_format_cpp(format);
	u128 row = (u128)width * bpp;
	bool expect = width && height && bpp && stride >= row &&
		(u128)offset + (u128)stride * (height - 1) + row <= bytes;

	char why[200];
	memset(why, 'X', sizeof(why));
	bool ok = wbc_buffer_layout_ok(format, width, height, stride, offset, bytes, why,
		sizeof(why));
	assert(ok == expect);
	if (!ok)                             /* a reason was written, and terminated */
		assert(why[0] != 'X' && memchr(why, '\0', sizeof(why)));

	/* Short buffers: the reason is cut, never overrun. */
	char tiny[8];
	tiny[7] = 'Y';
	if (!wbc_buffer_layout_ok(format, width, height, stride, offset, bytes, tiny,
			sizeof(tiny) - 1))
		assert(tiny[7] == 'Y' && memchr(tiny, '\0', sizeof(tiny) - 1));

	uint32_t shm = raw;
	uint32_t drm = wbc_buffer_shm_to_drm(shm);
	assert(shm == 0 ? drm == DRM_FORMAT_ARGB8888 :
		shm == 1 ? drm == DRM_FORMAT_XRGB8888 : drm == shm);

	/* The recorder's frame check (stride >= min stride, frames are stride * height). */
	uint32_t min = wbc_format_min_stride(format, width);
	if (min) {
		assert(bpp != 0);
		assert((uint64_t)min == (uint64_t)width * bpp);
	}
	return 0;
}
