/*
 * wbc test pattern: a moving background plus a machine-readable block that
 * encodes the frame number, so a recorder test can tell which client frame
 * ended up in which writeback / encoded video frame.
 *
 * No dependencies beyond libc (no Wayland, no libdrm).
 *
 * Pixel format of wbc_pattern_draw(): XRGB8888 as DRM / wl_shm define it,
 * i.e. a little-endian 32-bit word 0xXXRRGGBB, bytes B,G,R,X in memory.
 * The X byte is always written as 0xFF (so the buffer is also valid opaque
 * ARGB8888); compare colours with WBC_PATTERN_RGB_MASK when the producer of
 * the buffer under test may not preserve X.
 *
 * Layout (all in pixels, origin at the top-left of the buffer, cells aligned
 * to a 16 px grid so they coincide with H.264 macroblocks):
 *
 *   x:  0    16   32  ...               256  272  288
 *   y 0 +----+----+----+ ... +----+----+----+
 *       | M  | M  | M  |     | M  | M  | M  |   M = marker cell, pure magenta
 *    16 +----+----+----+ ... +----+----+----+       (WBC_PATTERN_MARKER)
 *       | M  |d23 |d22 |     |d9  |d8  | M  |   row 0: frame bits 23..8
 *    32 +----+----+----+ ... +----+----+----+
 *       | M  |d7  |d6  | ..d0|c7 ..  c0 | M  |   row 1: frame bits 7..0, then
 *    48 +----+----+----+ ... +----+----+----+          check bits 7..0
 *       | M  | M  | M  |     | M  | M  | M  |
 *    64 +----+----+----+ ... +----+----+----+
 *
 *   - 16 columns x 2 rows of 16x16 px data cells (WBC_PATTERN_CELL), inside a
 *     one-cell-wide marker border: the whole block is 288 x 64 px.
 *   - A data cell is pure white (0xFFFFFF) for a 1 bit and pure black
 *     (0x000000) for a 0 bit; bits are MSB first, left to right, top row
 *     first.
 *   - 24 data bits: frame & WBC_PATTERN_FRAME_MASK (frame numbers wrap
 *     modulo 2^24).
 *   - 8 check bits: wbc_pattern_check() = CRC-8 (poly 0x07, init 0x00) of
 *     the three data bytes, MSB byte first, XOR 0xFF.  The final inversion
 *     makes an all-black and an all-white block invalid; the CRC catches
 *     any single flipped cell (and any two).
 *   - Everything outside the block is the background: a colour gradient
 *     that scrolls with the frame number (see wbc_pattern_pixel()).
 *
 * Widths >= 320 (WBC_PATTERN_MIN_WIDTH is the hard minimum, 288) and heights
 * >= WBC_PATTERN_MIN_HEIGHT (64) carry a decodable block; smaller buffers
 * are drawn clipped and cannot be decoded.
 */
#ifndef WBC_PATTERN_H
#define WBC_PATTERN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WBC_PATTERN_CELL 16u        /* cell edge in px */
#define WBC_PATTERN_COLS 16u        /* data cells per row */
#define WBC_PATTERN_ROWS 2u         /* data rows */
#define WBC_PATTERN_DATA_BITS 24u
#define WBC_PATTERN_CHECK_BITS 8u
#define WBC_PATTERN_BLOCK_WIDTH ((WBC_PATTERN_COLS + 2u) * WBC_PATTERN_CELL)  /* 288 */
#define WBC_PATTERN_BLOCK_HEIGHT ((WBC_PATTERN_ROWS + 2u) * WBC_PATTERN_CELL) /* 64 */
#define WBC_PATTERN_MIN_WIDTH WBC_PATTERN_BLOCK_WIDTH
#define WBC_PATTERN_MIN_HEIGHT WBC_PATTERN_BLOCK_HEIGHT

#define WBC_PATTERN_FRAME_MASK 0x00FFFFFFu
#define WBC_PATTERN_RGB_MASK 0x00FFFFFFu
#define WBC_PATTERN_WHITE 0xFFFFFFFFu  /* XRGB with X = 0xFF */
#define WBC_PATTERN_BLACK 0xFF000000u
#define WBC_PATTERN_MARKER 0xFFFF00FFu /* pure magenta */

/* Pixel formats understood by wbc_pattern_decode().  The values are the DRM
 * fourcc codes (identical to DRM_FORMAT_* in drm_fourcc.h), defined here so
 * that this header needs no libdrm. */
#define WBC_PATTERN_FOURCC(a, b, c, d)                                   \
	((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) |  \
	 ((uint32_t)(d) << 24))
/* 4 bytes/pixel, memory order B,G,R,X (wl_shm / DRM XRGB8888). */
#define WBC_PATTERN_FMT_XRGB8888 WBC_PATTERN_FOURCC('X', 'R', '2', '4')
/* 4 bytes/pixel, memory order B,G,R,A; decoded exactly like XRGB8888. */
#define WBC_PATTERN_FMT_ARGB8888 WBC_PATTERN_FOURCC('A', 'R', '2', '4')
/* 4 bytes/pixel, memory order R,G,B,X (FFmpeg AV_PIX_FMT_RGB0). */
#define WBC_PATTERN_FMT_XBGR8888 WBC_PATTERN_FOURCC('X', 'B', '2', '4')
/* 3 bytes/pixel, memory order R,G,B.  This is FFmpeg's AV_PIX_FMT_RGB24,
 * i.e. what a decoder followed by swscale to RGB24 gives.  (DRM names it
 * BGR888 because DRM fourccs describe a little-endian word.) */
#define WBC_PATTERN_FMT_BGR888 WBC_PATTERN_FOURCC('B', 'G', '2', '4')
#define WBC_PATTERN_FMT_RGB24 WBC_PATTERN_FMT_BGR888
/* 3 bytes/pixel, memory order B,G,R (FFmpeg AV_PIX_FMT_BGR24). */
#define WBC_PATTERN_FMT_RGB888 WBC_PATTERN_FOURCC('R', 'G', '2', '4')

/* Return values of wbc_pattern_decode(). */
#define WBC_PATTERN_OK 0
#define WBC_PATTERN_EBADBLOCK (-1) /* marker not found or check bits wrong */
#define WBC_PATTERN_EINVAL (-2)    /* NULL pointer, buffer smaller than the
				      block, stride too small, unknown fourcc */

/*
 * Draw frame `frame` into `pixels` (XRGB8888, `stride` bytes per row,
 * stride >= 4 * width).  Writes exactly width*4 bytes of each of the
 * `height` rows; row padding is left untouched.  Every pixel written equals
 * wbc_pattern_pixel(width, height, frame, x, y).
 */
void wbc_pattern_draw(void *pixels, uint32_t stride, uint32_t width,
		      uint32_t height, uint32_t frame);

/*
 * Read the frame number back.  `fourcc_or_0` is one of WBC_PATTERN_FMT_*,
 * or 0 for XRGB8888.  Each cell is judged by the mean luma
 * (BT.601 weights) of its central 8x8 px: >= 128 is a 1 bit.  The marker
 * border is checked loosely (a majority of border cells must look magenta:
 * R and B >= 128, G < 96 on average), so lossy (H.264, yuv420p) copies still
 * decode.  On success stores the 24-bit frame number in *frame (when frame
 * is not NULL) and returns WBC_PATTERN_OK; otherwise returns
 * WBC_PATTERN_EBADBLOCK or WBC_PATTERN_EINVAL and leaves *frame alone.
 * Only the top-left WBC_PATTERN_BLOCK_WIDTH x WBC_PATTERN_BLOCK_HEIGHT
 * pixels are read.
 */
int wbc_pattern_decode(const void *pixels, uint32_t stride, uint32_t width,
		       uint32_t height, uint32_t fourcc_or_0, uint32_t *frame);

/*
 * The exact XRGB8888 value (X = 0xFF) that wbc_pattern_draw() writes at
 * (x, y) of a width x height buffer for `frame`.  Pure function, cheap
 * enough to call per pixel; for x >= width or y >= height the value is
 * still defined (the pattern is not clipped by this function).
 */
uint32_t wbc_pattern_pixel(uint32_t width, uint32_t height, uint32_t frame,
			   uint32_t x, uint32_t y);

/* The 8 check bits stored for a frame number (only its low 24 bits count). */
uint8_t wbc_pattern_check(uint32_t frame);

#ifdef __cplusplus
}
#endif

#endif /* WBC_PATTERN_H */
