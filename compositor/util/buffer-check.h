/* Checks of client-supplied buffer layouts (format, size, stride, offset) before wbc or
 * pixman reads the pixels. Pure functions (pixel sizes: wbc_kms_format_cpp):
 * tests/fuzz/fuzz-buffer-layout.c fuzzes them. */
#ifndef WBC_BUFFER_CHECK_H
#define WBC_BUFFER_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The DRM format of a wl_shm format code (0 and 1 are ARGB8888 and XRGB8888, the other
 * codes are DRM fourccs). */
uint32_t wbc_buffer_shm_to_drm(uint32_t shm_format);

/* Whether rows of width * bytes-per-pixel bytes, stride bytes apart, starting at offset,
 * lie within size bytes. false with the reason in why (one phrase) for an empty buffer, a
 * format of unknown pixel size, a stride shorter than a row, or bytes beyond size. Exact
 * for all inputs (64-bit arithmetic cannot overflow with 32-bit sizes). */
bool wbc_buffer_layout_ok(uint32_t drm_format, uint32_t width, uint32_t height,
	uint32_t stride, uint64_t offset, uint64_t size, char *why, size_t len);

#endif
