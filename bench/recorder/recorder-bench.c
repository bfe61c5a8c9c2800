/* SPDX-License-Identifier: MIT */
/*
 * recorder-bench: throughput of recorder/ (wbc_recorder_create -> submit ->
 * worker -> libswscale -> libavcodec -> libavformat) on pre-generated frames.
 *
 * The frames are loaded into memory before timing starts and cycled. The
 * producer never loses a frame: when wbc_recorder_submit() returns -EAGAIN
 * (queue full) it blocks on the recorder's event fd, dispatches the release
 * callbacks and submits the same frame again, so the run measures how fast
 * the worker drains the queue, not how many frames a 60 Hz producer would
 * drop. Note that the recorder counts every -EAGAIN in stats.dropped
 * (dropped_queue_full) although the frame is then resubmitted; the frames
 * actually lost are count - stats.encoded, reported as "lost" (must be 0).
 * With --gate the producer instead keeps at most queue_length frames
 * unreleased, so submit never returns -EAGAIN and stats.dropped stays 0.
 *
 * After each successful submit the producer also dispatches if the event fd
 * is readable (poll with timeout 0), like a compositor event loop would.
 *
 * Measured section: wbc_recorder_create() .. wbc_recorder_destroy(), i.e.
 * encoder open, header, all frames, flush, trailer. One JSON line on stdout.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include "bench-util.h"
#include "wbc/recorder.h"

static const char usage[] =
	"--frames FILE --size WxH --output FILE.mkv [--count N] [--threads N] "
	"[--queue-length N] [--gate] [--label S]";

struct producer {
	struct wbc_recorder *rec;
	int efd;
	uint64_t released, blocking_waits, dispatches;
};

static void on_release(void *data, const struct wbc_recorder_frame *f)
{
	struct producer *p = data;

	(void)f;
	p->released++;
}

static void on_log(void *data, enum wbc_recorder_log_level level, const char *msg)
{
	(void)data;
	if (level <= WBC_RECORDER_LOG_INFO)
		fprintf(stderr, "%s\n", msg);
}

static void dispatch(struct producer *p)
{
	wbc_recorder_dispatch(p->rec);
	p->dispatches++;
}

/* Blocks until the recorder signals (releases pending or error). Returns
 * -EPIPE if the recording ended with an error. */
static int wait_and_dispatch(struct producer *p)
{
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };

	p->blocking_waits++;
	while (poll(&pfd, 1, -1) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	dispatch(p);
	return wbc_recorder_error(p->rec) ? -EPIPE : 0;
}

static void dispatch_if_ready(struct producer *p)
{
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };

	if (poll(&pfd, 1, 0) > 0)
		dispatch(p);
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct bench_pool pool;
	struct bench_meter m;
	struct producer p = { 0 };
	struct wbc_recorder_stats st;
	char threads_opt[32], err[512], names[128];
	const char *codec_opts[1];
	uint64_t submitted_ok = 0, eagain = 0;
	unsigned qlen;
	int64_t base;
	int ret;

	bench_parse_args(argc, argv, &a, usage);
	if (!a.output) {
		fprintf(stderr, "%s: --output is required\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	ret = bench_pool_load(&pool, a.frames_path, a.width, a.height);
	if (ret < 0) {
		fprintf(stderr, "%s: loading %s: %s\n", argv[0], a.frames_path, strerror(-ret));
		return 1;
	}
	snprintf(threads_opt, sizeof(threads_opt), "threads=%u", a.threads);
	codec_opts[0] = threads_opt;
	qlen = a.queue_length ? a.queue_length : 4; /* 4: recorder.h's default */

	const struct wbc_recorder_options opts = {
		.output = a.output,
		.codec = "libx264", /* recorder defaults: preset=ultrafast tune=zerolatency */
		.container = "matroska",
		.codec_opts = codec_opts,
		.n_codec_opts = 1,
		.width = a.width,
		.height = a.height,
		.format = DRM_FORMAT_XRGB8888,
		.queue_length = a.queue_length,
		.log = on_log,
	};

	bench_meter_start(&m);
	ret = wbc_recorder_create(&opts, &p.rec, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	p.efd = wbc_recorder_get_event_fd(p.rec);
	base = bench_now_ns();
	for (unsigned i = 0; i < a.count; i++) {
		const struct wbc_recorder_frame f = {
			.data = bench_pool_frame(&pool, i),
			.stride = a.width * BENCH_BPP,
			.timestamp_ns = bench_frame_ns(base, i),
			.release = on_release,
			.release_data = &p,
		};

		while (a.gate && submitted_ok - p.released >= qlen && ret == 0)
			ret = wait_and_dispatch(&p);
		while (ret == 0) {
			ret = wbc_recorder_submit(p.rec, &f);
			if (ret == 0)
				break;
			if (ret != -EAGAIN && ret != -ENOMEM)
				break;
			eagain++;
			ret = wait_and_dispatch(&p);
		}
		if (ret < 0) {
			fprintf(stderr, "%s: frame %u: %s (%s)\n", argv[0], i, strerror(-ret),
				wbc_recorder_error(p.rec) ? wbc_recorder_error(p.rec) : "-");
			break;
		}
		submitted_ok++;
		dispatch_if_ready(&p);
	}
	/* Let the worker finish the queue so the per-thread figures cover all
	 * frames (the encoder's threads end in stop()). Adds < 1 ms. */
	while (ret == 0) {
		struct pollfd pfd = { .fd = p.efd, .events = POLLIN };

		wbc_recorder_get_stats(p.rec, &st);
		if ((st.queue_depth == 0 && st.encoding == 0) || wbc_recorder_error(p.rec))
			break;
		if (poll(&pfd, 1, 1) > 0)
			dispatch(&p);
	}
	bench_meter_threads(&m);
	if (wbc_recorder_stop(p.rec, bench_frame_ns(base, a.count)) < 0 && ret == 0) {
		fprintf(stderr, "%s: %s\n", argv[0], wbc_recorder_error(p.rec));
		ret = -EIO;
	}
	wbc_recorder_get_stats(p.rec, &st);
	snprintf(names, sizeof(names), "%s/%s/%s", wbc_recorder_codec_name(p.rec),
		wbc_recorder_encoder_pixel_format(p.rec), wbc_recorder_container_name(p.rec));
	wbc_recorder_destroy(p.rec);
	bench_meter_stop(&m);

	bench_json_begin(stdout, "recorder", &a, &m, (unsigned)st.encoded);
	bench_json_str(stdout, "codec", names);
	bench_json_u64(stdout, "queue_length", qlen);
	bench_json_u64(stdout, "gate", (uint64_t)a.gate);
	bench_json_u64(stdout, "requested", a.count);
	bench_json_u64(stdout, "encoded", st.encoded);
	bench_json_u64(stdout, "lost", a.count - st.encoded);
	bench_json_u64(stdout, "submit_calls", st.submitted);
	bench_json_u64(stdout, "eagain_retries", eagain);
	bench_json_u64(stdout, "stats_dropped", st.dropped);
	bench_json_u64(stdout, "stats_dropped_queue_full", st.dropped_queue_full);
	bench_json_u64(stdout, "stats_dropped_ended", st.dropped_ended);
	bench_json_u64(stdout, "released", p.released);
	bench_json_u64(stdout, "blocking_waits", p.blocking_waits);
	bench_json_u64(stdout, "dispatches", p.dispatches);
	bench_json_u64(stdout, "bytes_written", st.bytes_written);
	bench_json_double(stdout, "worker_ms_per_frame_mean", st.encode_ms_mean);
	bench_json_double(stdout, "worker_ms_per_frame_max", st.encode_ms_max);
	bench_json_end(stdout);
	bench_pool_free(&pool);
	if (ret == 0 && (st.encoded != a.count || p.released != submitted_ok)) {
		fprintf(stderr, "%s: encoded %llu of %u frames, %llu of %llu released\n",
			argv[0], (unsigned long long)st.encoded, a.count,
			(unsigned long long)p.released, (unsigned long long)submitted_ok);
		ret = -EIO;
	}
	return ret < 0 ? 1 : 0;
}
