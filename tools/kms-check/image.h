/*
 * Pixels: what the checker draws into buffers, reads back from them, and compares.
 * Every image here is a pixman image in a8r8g8b8 (premultiplied, as pixman composes),
 * owned by whoever got it and freed with pixman_image_unref.
 */
#ifndef KMS_CHECK_IMAGE_H
#define KMS_CHECK_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <pixman.h>
#include <wbc/kms.h>

/* Whether buffers of this format can be filled, read and rendered by the reference;
 * if not, *why says so (for a SKIP). */
bool image_format_supported(uint32_t fourcc, const char **why);
/* The smallest number of bits of any colour channel of the format (8 for 8888). */
unsigned image_format_bits(uint32_t fourcc);
bool image_format_has_alpha(uint32_t fourcc);

/* Test content. seed varies the pattern; with alpha, bands of alpha 0, 0x40, 0x80, 0xc0
 * and 0xff run across it (premultiplied). */
pixman_image_t *image_pattern(uint32_t w, uint32_t h, unsigned seed, bool alpha);
/* A diamond of opaque pixels on transparent ones: exact under any blend equation. */
pixman_image_t *image_diamond(uint32_t w, uint32_t h, unsigned seed);
pixman_image_t *image_solid(uint32_t w, uint32_t h, uint32_t argb);

/* Write content (same size) into a buffer in the buffer's format. 0 or -1. */
int image_to_buffer(pixman_image_t *content, struct wbc_kms_buffer *buf);
/* What a buffer holds, as a8r8g8b8; formats without alpha read as opaque. */
pixman_image_t *image_from_buffer(const struct wbc_kms_buffer *buf);

/* The result of comparing two frames' colour (alpha is not compared: a CRTC's output
 * has no meaningful alpha). */
struct image_diff {
	uint64_t mismatches;             /* pixels off by more than the tolerance */
	uint32_t x, y;                   /* the first of them, in row order */
	uint32_t want, got;              /* its pixels, 0xRRGGBB */
	unsigned max_delta;              /* the largest channel difference anywhere */
};
void image_compare(pixman_image_t *want, pixman_image_t *got, unsigned tolerance,
		struct image_diff *diff);
/* Mismatching pixels bright magenta over a dimmed copy of want. */
pixman_image_t *image_diff_image(pixman_image_t *want, pixman_image_t *got, unsigned tolerance);

#endif
