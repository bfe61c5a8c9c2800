/*
 * frame-tool: reads what ffmpeg decoded (rawvideo on stdin) or a PPM, for the recording
 * tests (tests/vkms/record/).
 *
 *   frame-tool pattern W H rgb24|bgr0 < RAW   one line per frame: the wbc_pattern frame
 *                                            number, or "bad" if the block does not decode
 *   frame-tool fnv W H [NUMBERS] < BGR0RAW    one line per frame: FNV-1a 64 of the B,G,R
 *                                            bytes of every pixel (the 0 byte skipped), the
 *                                            hash wbc --debug-frame-checksums writes; with
 *                                            NUMBERS, also pattern's lines into that file
 *                                            (one decode of a recording for both)
 *   frame-tool pattern-fnv W H FIRST LAST     one line per frame N from FIRST to LAST:
 *                                            "N HASH", the fnv of the pattern client's
 *                                            frame N (to match wbc's checksums of
 *                                            writeback frames, whatever the encoder)
 *   frame-tool ppm-pattern FILE.ppm           the frame number in a binary PPM, or "bad"
 *   frame-tool ppm-exact FILE.ppm             the same check for a binary PPM
 *   frame-tool ppm-beside FILE.ppm X          for a PPM of what lies right of column X
 *                                            (>= the pattern's block) of a pattern frame
 *                                            (another display's part of a wide client):
 *                                            "mod256 N" if every pixel is the background
 *                                            of a frame N modulo 256 (the background
 *                                            repeats every 256 frames), else "differs"
 *   frame-tool exact W H < BGR0RAW            one line per frame: its frame number N if
 *                                            every pixel's B,G,R equals the pattern
 *                                            client's frame N (wbc_pattern_draw), else
 *                                            "N differs" or "bad": an oracle that does
 *                                            not trust wbc
 *
 * Exit status 0 once the whole input was read in whole frames; 1 on a short last frame or
 * bad arguments.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wbc/pattern.h"

static int usage(void)
{
	fprintf(stderr, "usage: frame-tool pattern W H rgb24|bgr0 | fnv W H [NUMBERS] | exact W H | "
		"pattern-fnv W H FIRST LAST | ppm-pattern FILE | ppm-exact FILE | "
		"ppm-beside FILE X\n");
	return 1;
}

static uint64_t fnv_bgr0(const unsigned char *p, size_t pixels)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < pixels; i++, p += 4) {
		h = (h ^ p[0]) * 0x100000001b3u;
		h = (h ^ p[1]) * 0x100000001b3u;
		h = (h ^ p[2]) * 0x100000001b3u;
	}
	return h;
}

static void print_pattern(FILE *f, const unsigned char *px, uint32_t w, uint32_t h,
		uint32_t stride, uint32_t fourcc)
{
	uint32_t frame;
	if (wbc_pattern_decode(px, stride, w, h, fourcc, &frame) == WBC_PATTERN_OK)
		fprintf(f, "%" PRIu32 "\n", frame);
	else
		fprintf(f, "bad\n");
}

/* The frame's number, if the whole frame is the pattern client's frame of that number.
 * px: B,G,R,X (bpp 4) or R,G,B (bpp 3); want: room for the frame as XRGB8888. */
static void print_exact(const unsigned char *px, unsigned bpp, unsigned char *want, uint32_t w,
		uint32_t h)
{
	uint32_t frame;
	if (wbc_pattern_decode(px, w * bpp, w, h, bpp == 4 ? WBC_PATTERN_FMT_XRGB8888 :
			WBC_PATTERN_FMT_RGB24, &frame) != WBC_PATTERN_OK) {
		printf("bad\n");
		return;
	}
	wbc_pattern_draw(want, w * 4, w, h, frame);
	for (size_t i = 0; i < (size_t)w * h; i++) {
		const unsigned char *p = px + i * bpp, *q = want + i * 4;   /* q: B,G,R,X */
		bool same = bpp == 4 ? memcmp(p, q, 3) == 0 :
			p[0] == q[2] && p[1] == q[1] && p[2] == q[0];
		if (!same) {
			printf("%" PRIu32 " differs\n", frame);
			return;
		}
	}
	printf("%" PRIu32 "\n", frame);
}

enum raw_mode { RAW_PATTERN, RAW_FNV, RAW_EXACT };

/* numbers: where RAW_FNV also writes RAW_PATTERN's lines, or NULL. */
static int raw(enum raw_mode mode, uint32_t w, uint32_t h, const char *fmt, FILE *numbers)
{
	uint32_t bpp = 4, fourcc = WBC_PATTERN_FMT_XRGB8888;  /* bgr0 = B,G,R,0 in memory */
	if (fmt && strcmp(fmt, "rgb24") == 0)
		bpp = 3, fourcc = WBC_PATTERN_FMT_RGB24;
	else if (fmt && strcmp(fmt, "bgr0") != 0)
		return usage();
	size_t size = (size_t)w * h * bpp;
	unsigned char *buf = malloc(size), *want = malloc(size);
	if (!buf || !want) {
		free(buf);
		free(want);
		return 1;
	}
	size_t n;
	int ret = 0;
	while ((n = fread(buf, 1, size, stdin)) == size) {
		if (mode == RAW_FNV)
			printf("%016" PRIx64 "\n", fnv_bgr0(buf, (size_t)w * h));
		else if (mode == RAW_EXACT)
			print_exact(buf, 4, want, w, h);
		else
			print_pattern(stdout, buf, w, h, w * bpp, fourcc);
		if (numbers)
			print_pattern(numbers, buf, w, h, w * bpp, fourcc);
	}
	if (n != 0) {
		fprintf(stderr, "frame-tool: short last frame (%zu of %zu bytes)\n", n, size);
		ret = 1;
	}
	free(buf);
	free(want);
	return ret;
}

/* ppm-beside: px (R,G,B) is a pattern frame's columns x0.. (background only). */
static void print_beside(const unsigned char *px, uint32_t w, uint32_t h, uint32_t x0)
{
	uint32_t frame = px[1];          /* green at y = 0 is the frame, modulo 256 */
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			const unsigned char *p = px + ((size_t)y * w + x) * 3;
			uint32_t v = wbc_pattern_pixel(x0 + w, h, frame, x0 + x, y);
			if (p[0] != ((v >> 16) & 0xff) || p[1] != ((v >> 8) & 0xff) ||
					p[2] != (v & 0xff)) {
				printf("differs\n");
				return;
			}
		}
	}
	printf("mod256 %" PRIu32 "\n", frame);
}

/* ppm-pattern, ppm-exact (beside < 0) or ppm-beside from column beside. */
static int ppm(const char *path, bool exact, long beside)
{
	FILE *f = fopen(path, "rb");
	unsigned w, h, max;
	if (!f || fscanf(f, "P6 %u %u %u", &w, &h, &max) != 3 || max != 255 || fgetc(f) == EOF) {
		fprintf(stderr, "frame-tool: %s: not a binary PPM\n", path);
		return 1;
	}
	size_t size = (size_t)w * h * 3;
	unsigned char *buf = malloc(size), *want = malloc((size_t)w * h * 4);
	int ret = buf && want && fread(buf, 1, size, f) == size ? 0 : 1;
	if (ret == 0 && beside >= 0)
		print_beside(buf, w, h, (uint32_t)beside);
	else if (ret == 0 && exact)
		print_exact(buf, 3, want, w, h);
	else if (ret == 0)
		print_pattern(stdout, buf, w, h, w * 3, WBC_PATTERN_FMT_RGB24);
	else
		fprintf(stderr, "frame-tool: %s: truncated\n", path);
	free(buf);
	free(want);
	fclose(f);
	return ret;
}

static int pattern_fnv(uint32_t w, uint32_t h, uint32_t first, uint32_t last)
{
	unsigned char *px = malloc((size_t)w * h * 4);
	if (!px)
		return 1;
	for (uint32_t n = first; n <= last; n++) {
		wbc_pattern_draw(px, w * 4, w, h, n);
		printf("%" PRIu32 " %016" PRIx64 "\n", n, fnv_bgr0(px, (size_t)w * h));
	}
	free(px);
	return 0;
}

static int fnv_and_numbers(uint32_t w, uint32_t h, const char *path)
{
	FILE *numbers = fopen(path, "w");
	if (!numbers) {
		fprintf(stderr, "frame-tool: cannot create %s\n", path);
		return 1;
	}
	int ret = raw(RAW_FNV, w, h, "bgr0", numbers);
	if (fclose(numbers) != 0) {
		fprintf(stderr, "frame-tool: cannot write %s\n", path);
		ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "ppm-pattern") == 0)
		return ppm(argv[2], false, -1);
	if (argc == 3 && strcmp(argv[1], "ppm-exact") == 0)
		return ppm(argv[2], true, -1);
	if (argc == 4 && strcmp(argv[1], "ppm-beside") == 0) {
		long x = strtol(argv[3], NULL, 10);
		if (x < WBC_PATTERN_BLOCK_WIDTH || x > 16384)
			return usage();
		return ppm(argv[2], false, x);
	}
	if (argc < 4)
		return usage();
	uint32_t w = (uint32_t)strtoul(argv[2], NULL, 10), h = (uint32_t)strtoul(argv[3], NULL, 10);
	if (!w || !h || w > 16384 || h > 16384)
		return usage();
	if (strcmp(argv[1], "pattern") == 0 && argc == 5)
		return raw(RAW_PATTERN, w, h, argv[4], NULL);
	if (strcmp(argv[1], "fnv") == 0 && argc == 4)
		return raw(RAW_FNV, w, h, "bgr0", NULL);
	if (strcmp(argv[1], "fnv") == 0 && argc == 5)
		return fnv_and_numbers(w, h, argv[4]);
	if (strcmp(argv[1], "exact") == 0 && argc == 4)
		return raw(RAW_EXACT, w, h, "bgr0", NULL);
	if (strcmp(argv[1], "pattern-fnv") == 0 && argc == 6)
		return pattern_fnv(w, h, (uint32_t)strtoul(argv[4], NULL, 10),
			(uint32_t)strtoul(argv[5], NULL, 10));
	return usage();
}
