/* SPDX-License-Identifier: MIT */
#include "stats.h"

void wbc_stats_add_frame_time(struct wbc_stats *stats, double ms)
{
	stats->timed_frames++;
	stats->encode_ms_total += ms;
	if (ms > stats->encode_ms_max)
		stats->encode_ms_max = ms;
}

void wbc_stats_snapshot(const struct wbc_stats *stats, struct wbc_recorder_stats *out)
{
	out->submitted = stats->submitted;
	out->encoded = stats->encoded;
	out->dropped_queue_full = stats->dropped_queue_full;
	out->dropped_ended = stats->dropped_ended;
	out->dropped = stats->dropped_queue_full + stats->dropped_ended;
	out->bytes_written = stats->bytes_written;
	out->encode_ms_mean = stats->timed_frames ?
		stats->encode_ms_total / (double)stats->timed_frames : 0.0;
	out->encode_ms_max = stats->encode_ms_max;
	out->latency_ready_frames = stats->ready.count;
	out->ready_ms_p50 = wbc_latency_quantile_ms(&stats->ready, 0.50);
	out->ready_ms_p99 = wbc_latency_quantile_ms(&stats->ready, 0.99);
	out->latency_written_frames = stats->written.count;
	out->written_ms_p50 = wbc_latency_quantile_ms(&stats->written, 0.50);
	out->written_ms_p99 = wbc_latency_quantile_ms(&stats->written, 0.99);
}
