/* SPDX-License-Identifier: MIT */
/* Helpers shared by the recorder unit tests: synthetic frames, release
 * tracking, temp dirs and decoding of the produced files with libavformat. */
#ifndef WBC_TEST_RECORDER_UTIL_H
#define WBC_TEST_RECORDER_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libavutil/frame.h>

#include "wbc/recorder.h"

#define TU_W 320
#define TU_H 240
#define TU_NS_PER_MS INT64_C(1000000)
#define TU_NS_PER_S INT64_C(1000000000)

/* Counts release callbacks; each frame's user pointer is its buffer,
 * freed by the callback (so ASan catches any read after release). */
struct tu_tracker {
	pthread_t owner;
	unsigned released;
	unsigned wrong_thread;
};

void tu_tracker_init(struct tu_tracker *t);

/* Writes frame number i of a smooth moving XRGB8888 test pattern. */
void tu_fill_pattern(uint8_t *buf, uint32_t stride, uint32_t w, uint32_t h, unsigned i);
uint32_t tu_stride(uint32_t w);

/* Allocates and fills frame i (user = the buffer, freed by the release
 * callback, which counts into t). */
struct wbc_recorder_frame tu_make_frame(struct tu_tracker *t, unsigned i, int64_t ts_ns);
/* Allocates and fills frame i and submits it. On failure the buffer is
 * freed here. Returns submit()'s result. */
int tu_submit(struct wbc_recorder *rec, struct tu_tracker *t, unsigned i, int64_t ts_ns);
/* Waits (dispatching) until the queue has room, then tu_submit()s; so no
 * frame is dropped. Fails the test if room never comes (bounded). */
int tu_submit_wait(struct wbc_recorder *rec, struct tu_tracker *t, unsigned i,
		int64_t ts_ns, unsigned queue_length);
/* Polls the event fd for up to timeout_ms and dispatches; returns poll(). */
int tu_pump(struct wbc_recorder *rec, int timeout_ms);

/* Default options for TU_W x TU_H XRGB8888 with the test log callback. */
struct wbc_recorder_options tu_options(const char *output);
void tu_log(void *data, enum wbc_recorder_log_level level, const char *msg);

void tu_mkdtemp(char *buf, size_t len);
void tu_rmtree(const char *dir);
int tu_count_fds(void);
int tu_count_threads(void);
int64_t tu_now_ns(void);
void tu_sleep_ms(unsigned ms);

/* Tries a private mount namespace + tmpfs at dir (root only); returns 0 on
 * success, negative errno if the host does not allow it. */
int tu_mount_tmpfs(const char *dir, const char *options, bool read_only);
void tu_umount(const char *dir);

struct tu_media {
	unsigned nb_streams, nb_video;
	int codec_id;          /* enum AVCodecID of the first video stream */
	int extradata_size;    /* its codec header's size (ffv1: 0 for version 1) */
	int width, height;
	double duration_s;     /* AVFormatContext.duration, -1 if unknown */
	double stream_duration_s;
	unsigned frames;
	double pts_s[512];     /* decoded frames' pts, relative to stream start 0 */
};

typedef void (*tu_frame_fn)(void *data, const AVFrame *frame, unsigned index);

/* Demuxes and decodes every frame of path (format NULL: probe). Returns 0
 * or a negative AVERROR. */
int tu_decode_file(const char *path, const char *format, tu_frame_fn fn, void *data,
		struct tu_media *media);
/* Same, from memory. */
int tu_decode_buffer(const uint8_t *buf, size_t size, const char *format, tu_frame_fn fn,
		void *data, struct tu_media *media);

/* Converts a decoded frame to BGR0 (honouring its colorspace and range). */
void tu_frame_to_bgr0(const AVFrame *frame, uint8_t *dst, int dst_stride);

#endif
