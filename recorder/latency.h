/* SPDX-License-Identifier: MIT */
/* A latency distribution in fixed, log-spaced bins: O(1) to add, no allocation, so the
 * recorder can keep one per recording for hours. Bins are 1 us wide below 16 us and 1/16
 * of an octave above, so a quantile is reported within 3.2 % (its bin's middle). Not
 * synchronised: the recorder guards it with its mutex. */
#ifndef WBC_RECORDER_LATENCY_H
#define WBC_RECORDER_LATENCY_H

#include <stdint.h>

/* 16 linear bins, then 16 per octave of microseconds from 2^4 to 2^36 us (19 hours). */
#define WBC_LATENCY_BINS (16 + 16 * 32)

struct wbc_latency {
	uint32_t bins[WBC_LATENCY_BINS];
	uint64_t count;
};

/* One sample in ns; negative samples (clock steps) count as 0. */
void wbc_latency_add(struct wbc_latency *lat, int64_t ns);
/* The q-quantile (0 < q <= 1) in ms, 0 when there is no sample. */
double wbc_latency_quantile_ms(const struct wbc_latency *lat, double q);

#endif
