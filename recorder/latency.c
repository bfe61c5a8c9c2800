/* SPDX-License-Identifier: MIT */
#include <math.h>
#include "latency.h"

static unsigned bin_of(uint64_t us)
{
	if (us < 16)
		return (unsigned)us;
	unsigned e = 63u - (unsigned)__builtin_clzll(us);   /* 2^e <= us, e >= 4 */
	if (e >= 36)
		return WBC_LATENCY_BINS - 1;
	unsigned m = (unsigned)(us >> (e - 4)) & 15u;        /* the 4 bits after the top one */
	return 16u * (e - 3u) + m;
}

/* The middle of a bin, in us. */
static double bin_mid_us(unsigned bin)
{
	if (bin < 16)
		return bin + 0.5;
	unsigned e = bin / 16u + 3u, m = bin % 16u;
	double lo = ldexp(16.0 + m, (int)e - 4);
	return lo + ldexp(0.5, (int)e - 4);
}

void wbc_latency_add(struct wbc_latency *lat, int64_t ns)
{
	uint64_t us = ns > 0 ? (uint64_t)ns / 1000u : 0;
	unsigned b = bin_of(us);
	if (lat->bins[b] < UINT32_MAX) {
		lat->bins[b]++;
		lat->count++;
	}
}

double wbc_latency_quantile_ms(const struct wbc_latency *lat, double q)
{
	if (lat->count == 0)
		return 0.0;
	uint64_t rank = (uint64_t)ceil(q * (double)lat->count), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < WBC_LATENCY_BINS; b++) {
		seen += lat->bins[b];
		if (seen >= rank)
			return bin_mid_us(b) / 1000.0;
	}
	return bin_mid_us(WBC_LATENCY_BINS - 1) / 1000.0;
}
