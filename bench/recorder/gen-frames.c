/* SPDX-License-Identifier: MIT */
/* gen-frames WxH N FILE: writes N distinct frames of the benchmark pattern
 * (raw XRGB8888 = FFmpeg bgr0, packed) to FILE. The benchmarks cycle them. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "bench-util.h"

int main(int argc, char **argv)
{
	unsigned w, h, n;
	char c;
	uint8_t *buf;
	FILE *f;

	if (argc != 4 || sscanf(argv[1], "%ux%u%c", &w, &h, &c) != 2 || !w || !h ||
			w > 16384 || h > 16384 || sscanf(argv[2], "%u%c", &n, &c) != 1 || !n) {
		fprintf(stderr, "usage: %s WxH N FILE\n", argv[0]);
		return 2;
	}
	buf = malloc((size_t)w * h * BENCH_BPP);
	f = fopen(argv[3], "wb");
	if (!buf || !f) {
		perror(argv[3]);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		bench_pattern_draw(buf, w, h, i, n);
		if (fwrite(buf, (size_t)w * h * BENCH_BPP, 1, f) != 1) {
			perror(argv[3]);
			return 1;
		}
	}
	if (fclose(f) != 0) {
		perror(argv[3]);
		return 1;
	}
	free(buf);
	return 0;
}
