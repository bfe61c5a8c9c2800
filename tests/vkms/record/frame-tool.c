/*
 * frame-tool: reads what ffmpeg decoded (rawvideo on stdin) or a PPM, for the recording
 * tests (tests/vkms/record/).
 *
 *   frame-tool pattern W H rgb24|bgr0 < RAW   one line per frame: the wbc_pattern frame
 *                                            number, or "bad" if the block does not decode
 *   frame-tool fnv W H < BGR0RAW              one line per frame: FNV-1a 64 of the B,G,R
 *                                            bytes of every pixel (the 0 byte skipped), the
 *                                            hash wbc --debug-frame-checksums writes
 *   frame-tool ppm-pattern FILE.ppm           the frame number in a binary PPM, or "bad"
 *
 * Exit status 0 once the whole input was read in whole frames; 1 on a short last frame or
 * bad arguments.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wbc/pattern.h"

static int usage(void)
{
	fprintf(stderr, "usage: frame-tool pattern W H rgb24|bgr0 | fnv W H | ppm-pattern FILE\n");
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

static void print_pattern(const unsigned char *px, uint32_t w, uint32_t h, uint32_t stride,
		uint32_t fourcc)
{
	uint32_t frame;
	if (wbc_pattern_decode(px, stride, w, h, fourcc, &frame) == WBC_PATTERN_OK)
		printf("%" PRIu32 "\n", frame);
	else
		printf("bad\n");
}

static int raw(int mode_fnv, uint32_t w, uint32_t h, const char *fmt)
{
	uint32_t bpp = 4, fourcc = WBC_PATTERN_FMT_XRGB8888;  /* bgr0 = B,G,R,0 in memory */
	if (fmt && strcmp(fmt, "rgb24") == 0)
		bpp = 3, fourcc = WBC_PATTERN_FMT_RGB24;
	else if (fmt && strcmp(fmt, "bgr0") != 0)
		return usage();
	size_t size = (size_t)w * h * bpp;
	unsigned char *buf = malloc(size);
	if (!buf)
		return 1;
	size_t n;
	int ret = 0;
	while ((n = fread(buf, 1, size, stdin)) == size) {
		if (mode_fnv)
			printf("%016" PRIx64 "\n", fnv_bgr0(buf, (size_t)w * h));
		else
			print_pattern(buf, w, h, w * bpp, fourcc);
	}
	if (n != 0) {
		fprintf(stderr, "frame-tool: short last frame (%zu of %zu bytes)\n", n, size);
		ret = 1;
	}
	free(buf);
	return ret;
}

static int ppm(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned w, h, max;
	if (!f || fscanf(f, "P6 %u %u %u", &w, &h, &max) != 3 || max != 255 || fgetc(f) == EOF) {
		fprintf(stderr, "frame-tool: %s: not a binary PPM\n", path);
		return 1;
	}
	size_t size = (size_t)w * h * 3;
	unsigned char *buf = malloc(size);
	int ret = buf && fread(buf, 1, size, f) == size ? 0 : 1;
	if (ret == 0)
		print_pattern(buf, w, h, w * 3, WBC_PATTERN_FMT_RGB24);
	else
		fprintf(stderr, "frame-tool: %s: truncated\n", path);
	free(buf);
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "ppm-pattern") == 0)
		return ppm(argv[2]);
	if (argc < 4)
		return usage();
	uint32_t w = (uint32_t)strtoul(argv[2], NULL, 10), h = (uint32_t)strtoul(argv[3], NULL, 10);
	if (!w || !h || w > 16384 || h > 16384)
		return usage();
	if (strcmp(argv[1], "pattern") == 0 && argc == 5)
		return raw(0, w, h, argv[4]);
	if (strcmp(argv[1], "fnv") == 0 && argc == 4)
		return raw(1, w, h, "bgr0");
	return usage();
}
