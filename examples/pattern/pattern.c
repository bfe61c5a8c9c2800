// SPDX-License-Identifier: MIT
/* wbc test pattern: see include/wbc/pattern.h for the layout. */
#include "wbc/pattern.h"

#include <stddef.h>

#define CELL WBC_PATTERN_CELL
#define GRID_COLS (WBC_PATTERN_COLS + 2u) /* including the marker border */
#define GRID_ROWS (WBC_PATTERN_ROWS + 2u)
/* Central sample window of a cell: [SAMPLE_LO, SAMPLE_LO + SAMPLE_N). */
#define SAMPLE_LO 4u
#define SAMPLE_N 8u
#define MARKER_CELLS (2u * GRID_COLS + 2u * WBC_PATTERN_ROWS)

uint8_t wbc_pattern_check(uint32_t frame)
{
	uint8_t crc = 0;
	frame &= WBC_PATTERN_FRAME_MASK;
	for (int shift = 16; shift >= 0; shift -= 8) {
		crc ^= (uint8_t)(frame >> shift);
		for (int i = 0; i < 8; i++)
			crc = (uint8_t)((crc & 0x80u) ? ((unsigned)crc << 1) ^ 0x07u : (unsigned)crc << 1);
	}
	return (uint8_t)(crc ^ 0xFFu);
}

/* Bit carried by data cell `index` (0..31, left to right, top row first). */
static int cell_bit(uint32_t frame, uint32_t index)
{
	if (index < WBC_PATTERN_DATA_BITS)
		return (int)((frame >> (WBC_PATTERN_DATA_BITS - 1u - index)) & 1u);
	index -= WBC_PATTERN_DATA_BITS;
	return (wbc_pattern_check(frame) >> (WBC_PATTERN_CHECK_BITS - 1u - index)) & 1;
}

static uint32_t background(uint32_t frame, uint32_t x, uint32_t y)
{
	/* Diagonal-ish gradient scrolling right/down by a few px per frame;
	 * all arithmetic is modulo 256 per channel. */
	uint32_t r = (x + 2u * frame) & 0xFFu;
	uint32_t g = (y + frame) & 0xFFu;
	uint32_t b = ((x >> 1) + (y >> 1) + 3u * frame + 0x40u) & 0xFFu;
	return 0xFF000000u | (r << 16) | (g << 8) | b;
}

uint32_t wbc_pattern_pixel(uint32_t width, uint32_t height, uint32_t frame,
			   uint32_t x, uint32_t y)
{
	(void)width;
	(void)height;
	if (x >= WBC_PATTERN_BLOCK_WIDTH || y >= WBC_PATTERN_BLOCK_HEIGHT)
		return background(frame, x, y);

	uint32_t cx = x / CELL, cy = y / CELL;
	if (cx == 0 || cx == GRID_COLS - 1u || cy == 0 || cy == GRID_ROWS - 1u)
		return WBC_PATTERN_MARKER;
	uint32_t index = (cy - 1u) * WBC_PATTERN_COLS + (cx - 1u);
	return cell_bit(frame & WBC_PATTERN_FRAME_MASK, index) ? WBC_PATTERN_WHITE
							       : WBC_PATTERN_BLACK;
}

static void store_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

void wbc_pattern_draw(void *pixels, uint32_t stride, uint32_t width,
		      uint32_t height, uint32_t frame)
{
	if (!pixels)
		return;
	for (uint32_t y = 0; y < height; y++) {
		unsigned char *row = (unsigned char *)pixels + (size_t)y * stride;
		for (uint32_t x = 0; x < width; x++)
			store_le32(row + (size_t)x * 4u,
				   wbc_pattern_pixel(width, height, frame, x, y));
	}
}

struct layout {
	uint32_t bpp;
	uint32_t r, g, b; /* byte offsets inside a pixel */
};

static int get_layout(uint32_t fourcc, struct layout *l)
{
	switch (fourcc) {
	case 0:
	case WBC_PATTERN_FMT_XRGB8888:
	case WBC_PATTERN_FMT_ARGB8888:
		*l = (struct layout){ 4, 2, 1, 0 };
		return 0;
	case WBC_PATTERN_FMT_XBGR8888:
		*l = (struct layout){ 4, 0, 1, 2 };
		return 0;
	case WBC_PATTERN_FMT_BGR888: /* bytes R,G,B: FFmpeg RGB24 */
		*l = (struct layout){ 3, 0, 1, 2 };
		return 0;
	case WBC_PATTERN_FMT_RGB888: /* bytes B,G,R: FFmpeg BGR24 */
		*l = (struct layout){ 3, 2, 1, 0 };
		return 0;
	default:
		return -1;
	}
}

struct rgb_mean {
	uint32_t r, g, b;
};

/* Mean colour of the central SAMPLE_N x SAMPLE_N pixels of grid cell
 * (cx, cy). */
static struct rgb_mean cell_mean(const unsigned char *base, uint32_t stride,
				 const struct layout *l, uint32_t cx, uint32_t cy)
{
	uint32_t r = 0, g = 0, b = 0;
	for (uint32_t dy = 0; dy < SAMPLE_N; dy++) {
		const unsigned char *row =
			base + (size_t)(cy * CELL + SAMPLE_LO + dy) * stride;
		for (uint32_t dx = 0; dx < SAMPLE_N; dx++) {
			const unsigned char *p =
				row + (size_t)(cx * CELL + SAMPLE_LO + dx) * l->bpp;
			r += p[l->r];
			g += p[l->g];
			b += p[l->b];
		}
	}
	return (struct rgb_mean){ r / (SAMPLE_N * SAMPLE_N), g / (SAMPLE_N * SAMPLE_N),
				  b / (SAMPLE_N * SAMPLE_N) };
}

static int is_marker(struct rgb_mean m)
{
	return m.r >= 128 && m.b >= 128 && m.g < 96;
}

int wbc_pattern_decode(const void *pixels, uint32_t stride, uint32_t width,
		       uint32_t height, uint32_t fourcc_or_0, uint32_t *frame)
{
	struct layout l;
	if (!pixels || get_layout(fourcc_or_0, &l) != 0)
		return WBC_PATTERN_EINVAL;
	if (width < WBC_PATTERN_BLOCK_WIDTH || height < WBC_PATTERN_BLOCK_HEIGHT)
		return WBC_PATTERN_EINVAL;
	if ((uint64_t)stride < (uint64_t)WBC_PATTERN_BLOCK_WIDTH * l.bpp)
		return WBC_PATTERN_EINVAL;

	const unsigned char *base = pixels;

	uint32_t markers = 0;
	for (uint32_t cy = 0; cy < GRID_ROWS; cy++) {
		for (uint32_t cx = 0; cx < GRID_COLS; cx++) {
			int border = cx == 0 || cx == GRID_COLS - 1u || cy == 0 ||
				     cy == GRID_ROWS - 1u;
			if (border && is_marker(cell_mean(base, stride, &l, cx, cy)))
				markers++;
		}
	}
	/* Tolerate a few damaged border cells, but not a missing border. */
	if (markers * 4u < MARKER_CELLS * 3u)
		return WBC_PATTERN_EBADBLOCK;

	uint32_t data = 0, check = 0;
	for (uint32_t i = 0; i < WBC_PATTERN_DATA_BITS + WBC_PATTERN_CHECK_BITS; i++) {
		uint32_t cx = 1u + i % WBC_PATTERN_COLS, cy = 1u + i / WBC_PATTERN_COLS;
		struct rgb_mean m = cell_mean(base, stride, &l, cx, cy);
		/* BT.601 luma, 8.8 fixed point; threshold at 50 %. */
		uint32_t luma = (77u * m.r + 150u * m.g + 29u * m.b) >> 8;
		uint32_t bit = luma >= 128u;
		if (i < WBC_PATTERN_DATA_BITS)
			data = (data << 1) | bit;
		else
			check = (check << 1) | bit;
	}
	if (check != wbc_pattern_check(data))
		return WBC_PATTERN_EBADBLOCK;
	if (frame)
		*frame = data;
	return WBC_PATTERN_OK;
}
