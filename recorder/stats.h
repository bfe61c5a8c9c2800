/* SPDX-License-Identifier: MIT */
/* Recording counters. Not synchronised: the recorder guards them with its
 * mutex. */
#ifndef WBC_RECORDER_STATS_H
#define WBC_RECORDER_STATS_H

#include <stdint.h>

#include "latency.h"
#include "wbc/recorder.h"

struct wbc_stats {
	uint64_t submitted, encoded, dropped_queue_full, dropped_ended;
	uint64_t bytes_written;
	uint64_t timed_frames;
	double encode_ms_total, encode_ms_max;
	struct wbc_latency ready, written;   /* from the frames' timestamps */
};

/* One frame went through the worker (encoded or not) in ms. */
void wbc_stats_add_frame_time(struct wbc_stats *stats, double ms);

/* Fills the counter fields of out; leaves the queue fields alone. */
void wbc_stats_snapshot(const struct wbc_stats *stats, struct wbc_recorder_stats *out);

#endif
