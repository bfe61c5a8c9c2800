/* SPDX-License-Identifier: MIT */
/* Shared helpers of the recorder benchmarks (bench/recorder/): argument
 * parsing, the synthetic frame pool, wall/CPU/RSS measurement and the one
 * JSON line each benchmark program prints on stdout. */
#ifndef WBC_BENCH_UTIL_H
#define WBC_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Frames are XRGB8888 (bytes B,G,R,X in memory = FFmpeg bgr0), packed:
 * stride = width * 4. */
#define BENCH_BPP 4
/* Nominal rate of the synthetic timestamps (same as ffmpeg -r 60). */
#define BENCH_FPS 60

struct bench_args {
	const char *frames_path; /* --frames: raw bgr0 file (gen-frames) */
	const char *output;      /* --output: container file (tmpfs) */
	uint32_t width, height;  /* --size WxH */
	unsigned count;          /* --count: frames to encode */
	unsigned threads;        /* --threads: x264 threads */
	unsigned queue_length;   /* --queue-length (recorder only), 0: default */
	int no_mux;              /* --no-mux (bare loop only) */
	int gate;                /* --gate (recorder only), see recorder-bench.c */
	const char *label;       /* --label: copied into the JSON line */
};

/* Exits with a usage message on bad arguments. */
void bench_parse_args(int argc, char **argv, struct bench_args *a, const char *usage);

/* In-memory pool of n frames loaded from a file, filled before timing. */
struct bench_pool {
	uint8_t *data;
	size_t frame_size;
	unsigned n;
};

int bench_pool_load(struct bench_pool *pool, const char *path, uint32_t width,
		uint32_t height);
const uint8_t *bench_pool_frame(const struct bench_pool *pool, unsigned i);
void bench_pool_free(struct bench_pool *pool);

/* Timestamp of frame i at BENCH_FPS, in ns, from base. */
int64_t bench_frame_ns(int64_t base, unsigned i);

int64_t bench_now_ns(void);

/* Per-thread scheduler statistics from /proc/self/task/TID/schedstat:
 * time on a CPU, time runnable but waiting for a CPU (run queue), and the
 * number of times the thread was scheduled in. */
#define BENCH_MAX_THREADS 64
struct bench_sched {
	unsigned n;
	struct {
		int tid;
		unsigned long long run_ns, wait_ns, slices;
	} t[BENCH_MAX_THREADS];
};

/* Wall clock, rusage and RSS around the measured section. */
struct bench_meter {
	struct bench_sched s0, s1; /* at start / at bench_meter_threads() */
	int64_t t0, t1;
	double user0, sys0, user1, sys1;
	long maxrss_before_kb, maxrss_kb;
	long nvcsw, nivcsw; /* context switches during the section */
};

void bench_meter_start(struct bench_meter *m);
void bench_meter_stop(struct bench_meter *m);
/* Samples the threads' schedstat; call once all frames are encoded but
 * before the encoder is closed (its threads end then). The JSON line then
 * gets the per-thread run/wait times since bench_meter_start(). */
void bench_meter_threads(struct bench_meter *m);

/* Starts the JSON line with the common fields; the caller adds its own
 * fields with bench_json_* and ends it with bench_json_end(). */
void bench_json_begin(FILE *f, const char *program, const struct bench_args *a,
		const struct bench_meter *m, unsigned frames);
void bench_json_u64(FILE *f, const char *key, uint64_t v);
void bench_json_double(FILE *f, const char *key, double v);
void bench_json_str(FILE *f, const char *key, const char *v);
void bench_json_end(FILE *f);

/* The frame pattern: frame i of n, written to dst (stride width * 4). */
void bench_pattern_draw(uint8_t *dst, uint32_t width, uint32_t height, unsigned i,
		unsigned n);

#endif
