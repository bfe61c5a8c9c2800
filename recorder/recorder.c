/* SPDX-License-Identifier: MIT */
/* Recorder lifecycle: bounded frame queue, worker thread, release dispatch
 * through an eventfd on the owner thread. */
#define _POSIX_C_SOURCE 200809L

#include "wbc/recorder.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "encode.h"
#include "format.h"
#include "messages.h"
#include "nice.h"
#include "stats.h"

#define DEFAULT_QUEUE_LENGTH 4
#define DEFAULT_STOP_TIMEOUT_MS 5000
#define MAX_DIMENSION 16384

struct item {
	struct wbc_recorder_frame frame; /* the caller's frame, copied */
	struct wbc_recorder *rec;
	struct item *next;
};

struct item_list {
	struct item *head, *tail;
	unsigned len;
};

struct wbc_recorder {
	/* Guards everything up to and including stats. */
	pthread_mutex_t lock;
	pthread_cond_t wake;            /* worker: queue or stop changed */
	struct item_list queue;         /* waiting for the worker */
	struct item_list releases;      /* waiting for dispatch */
	struct item_list spare;         /* free items */
	unsigned encoding;              /* worker holds a frame */
	unsigned lent;                  /* frames accepted whose release has not run yet */
	bool stop_requested;
	bool ended;                     /* worker finished (error or stop) */
	int64_t stop_ns;
	int error;                      /* negative errno that ended it */
	struct wbc_stats stats;

	/* Written once before has_error is set; read lock-free after. */
	atomic_bool has_error;
	char error_msg[512];

	/* Only touched by the worker while it runs: */
	struct wbc_encoder *enc;
	unsigned test_delay_ms;

	/* Set before the worker starts, then constant: */
	struct wbc_recorder_logger log;
	unsigned queue_length, stop_timeout_ms, spare_max;
	uint32_t min_stride;
	int event_fd;
	const char *codec_name, *container_name, *pix_fmt; /* static strings */
	char *sdp_path;

	_Atomic int64_t io_deadline_ns; /* 0: blocking I/O is not aborted */
	pthread_t thread;
	bool joined;                    /* owner thread only */
};

/* ---- small helpers --------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void list_push(struct item_list *l, struct item *it)
{
	it->next = NULL;
	if (l->tail)
		l->tail->next = it;
	else
		l->head = it;
	l->tail = it;
	l->len++;
}

static struct item *list_pop(struct item_list *l)
{
	struct item *it = l->head;

	if (!it)
		return NULL;
	l->head = it->next;
	if (!l->head)
		l->tail = NULL;
	l->len--;
	it->next = NULL;
	return it;
}

static struct item_list list_take(struct item_list *l)
{
	struct item_list all = *l;

	*l = (struct item_list){ 0 };
	return all;
}

static void list_append(struct item_list *dst, struct item_list *src)
{
	struct item *it;

	while ((it = list_pop(src)))
		list_push(dst, it);
}

static void list_free(struct item_list *l)
{
	struct item *it;

	while ((it = list_pop(l)))
		free(it);
}

static void signal_event(struct wbc_recorder *rec)
{
	uint64_t one = 1;

	/* Can only fail if the counter would overflow: still readable. */
	if (write(rec->event_fd, &one, sizeof(one)) < 0)
		return;
}

/* Caller holds the lock. The first error wins. */
static void set_error_locked(struct wbc_recorder *rec, int error, const char *msg)
{
	if (atomic_load(&rec->has_error))
		return;
	rec->error = error;
	snprintf(rec->error_msg, sizeof(rec->error_msg), "%s", msg);
	atomic_store(&rec->has_error, true);
}

/* Caller holds the lock: queued frames will never be encoded. */
static void discard_queue_locked(struct wbc_recorder *rec)
{
	rec->stats.dropped_ended += rec->queue.len;
	list_append(&rec->releases, &rec->queue);
}

/* ---- worker ---------------------------------------------------------- */

/* wbc_encoder_done_fn: the worker no longer needs the frame's memory. */
static void frame_done(void *opaque)
{
	struct item *it = opaque;
	struct wbc_recorder *rec = it->rec;

	pthread_mutex_lock(&rec->lock);
	list_push(&rec->releases, it);
	pthread_mutex_unlock(&rec->lock);
	signal_event(rec);
}

/* FFmpeg interrupt callback, runs on the worker during network I/O. */
static int io_interrupt(void *data)
{
	struct wbc_recorder *rec = data;
	int64_t deadline = atomic_load(&rec->io_deadline_ns);

	return deadline != 0 && now_ns() > deadline;
}

/* Encoder callback, on the worker: a frame's packet went to the muxer. */
static void packet_written(void *data, int64_t frame_ns)
{
	struct wbc_recorder *rec = data;
	int64_t now = now_ns();

	pthread_mutex_lock(&rec->lock);
	wbc_latency_add(&rec->stats.written, now - frame_ns);
	pthread_mutex_unlock(&rec->lock);
}

/* Next frame to encode, or NULL when stopping with an empty queue. */
static struct item *worker_next(struct wbc_recorder *rec)
{
	struct item *it;

	pthread_mutex_lock(&rec->lock);
	while (!rec->queue.head && !rec->stop_requested)
		pthread_cond_wait(&rec->wake, &rec->lock);
	it = list_pop(&rec->queue);
	rec->encoding = it != NULL;
	pthread_mutex_unlock(&rec->lock);
	return it;
}

static void worker_delay(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (ms && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void worker_fail(struct wbc_recorder *rec, int error, const char *msg)
{
	pthread_mutex_lock(&rec->lock);
	set_error_locked(rec, error, msg);
	rec->ended = true;
	discard_queue_locked(rec);
	pthread_mutex_unlock(&rec->lock);
	wbc_recorder_log_msg(&rec->log, WBC_RECORDER_LOG_ERROR, "recording ended: %s",
		msg + strlen(WBC_LOG_PREFIX));
	signal_event(rec);
}

/* Returns false when the recording failed. */
static bool worker_encode(struct wbc_recorder *rec, struct item *it)
{
	const struct wbc_recorder_frame *f = &it->frame;
	char msg[sizeof(rec->error_msg)];
	bool accepted;
	int64_t start;
	int ret;

	worker_delay(rec->test_delay_ms);
	start = now_ns();
	ret = wbc_encoder_encode(rec->enc, f->data, f->stride, f->timestamp_ns, frame_done,
		it, &accepted, msg, sizeof(msg));
	pthread_mutex_lock(&rec->lock);
	rec->encoding = 0;
	if (accepted)
		rec->stats.encoded++;
	else
		rec->stats.dropped_ended++;
	wbc_stats_add_frame_time(&rec->stats, (double)(now_ns() - start) / 1e6);
	rec->stats.bytes_written = (uint64_t)wbc_encoder_bytes_written(rec->enc);
	pthread_mutex_unlock(&rec->lock);
	if (ret < 0)
		worker_fail(rec, ret, msg);
	return ret == 0;
}

static void worker_finish(struct wbc_recorder *rec, bool failed)
{
	char msg[sizeof(rec->error_msg)];
	int64_t stop_ns, bytes;
	int ret;

	pthread_mutex_lock(&rec->lock);
	stop_ns = failed ? INT64_MIN : rec->stop_ns;
	pthread_mutex_unlock(&rec->lock);

	ret = wbc_encoder_finish(rec->enc, stop_ns, msg, sizeof(msg));
	bytes = wbc_encoder_bytes_written(rec->enc);
	wbc_encoder_close(rec->enc); /* may run frame_done() */
	rec->enc = NULL;
	if (ret < 0)
		wbc_recorder_log_msg(&rec->log, WBC_RECORDER_LOG_ERROR, "finishing the recording failed: %s",
			msg + strlen(WBC_LOG_PREFIX));

	pthread_mutex_lock(&rec->lock);
	rec->stats.bytes_written = (uint64_t)bytes;
	if (ret < 0)
		set_error_locked(rec, ret, msg);
	rec->ended = true;
	discard_queue_locked(rec);
	pthread_mutex_unlock(&rec->lock);
	signal_event(rec);
}

static void *worker_main(void *data)
{
	struct wbc_recorder *rec = data;
	bool failed = false;
	struct item *it;

	while (!failed && (it = worker_next(rec)))
		failed = !worker_encode(rec, it);
	worker_finish(rec, failed);
	return NULL;
}

/* The worker runs with all signals blocked (SIGPIPE: see the header). */
static int start_worker(struct wbc_recorder *rec, char *err, size_t len)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&rec->thread, NULL, worker_main, rec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret != 0) {
		wbc_errf(err, len, "cannot start the worker thread: %s", strerror(ret));
		return -ret;
	}
	return 0;
}

/* ---- creation -------------------------------------------------------- */

/* What both check() and create() refuse first: options without an output. */
static int check_output(const struct wbc_recorder_options *o, char *err, size_t len)
{
	if (!o || !o->output || !o->output[0]) {
		wbc_errf(err, len, "no output given");
		return -EINVAL;
	}
	return 0;
}

static int check_options(const struct wbc_recorder_options *o, char *err, size_t len)
{
	int ret = check_output(o, err, len);

	if (ret < 0)
		return ret;
	if (o->width == 0 || o->height == 0 || o->width > MAX_DIMENSION ||
			o->height > MAX_DIMENSION) {
		wbc_errf(err, len, "invalid frame size %ux%u", o->width, o->height);
		return -EINVAL;
	}
	if (o->rotation != 0 && o->rotation != 90 && o->rotation != 180 && o->rotation != 270) {
		wbc_errf(err, len, "invalid rotation %d (0, 90, 180 or 270)", o->rotation);
		return -EINVAL;
	}
	if (!wbc_format_supported(o->format)) {
		wbc_errf(err, len, "unsupported DRM format 0x%08x (%c%c%c%c)", o->format,
			(char)(o->format & 0xff), (char)((o->format >> 8) & 0xff),
			(char)((o->format >> 16) & 0xff), (char)(o->format >> 24));
		return -EINVAL;
	}
	return 0;
}

static void free_recorder(struct wbc_recorder *rec)
{
	list_free(&rec->queue);
	list_free(&rec->releases);
	list_free(&rec->spare);
	if (rec->event_fd >= 0)
		close(rec->event_fd);
	pthread_cond_destroy(&rec->wake);
	pthread_mutex_destroy(&rec->lock);
	free(rec->sdp_path);
	free(rec);
}

static struct wbc_recorder *alloc_recorder(const struct wbc_recorder_options *o)
{
	struct wbc_recorder *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	if (pthread_mutex_init(&rec->lock, NULL) != 0) {
		free(rec);
		return NULL;
	}
	if (pthread_cond_init(&rec->wake, NULL) != 0) {
		pthread_mutex_destroy(&rec->lock);
		free(rec);
		return NULL;
	}
	atomic_init(&rec->has_error, false);
	atomic_init(&rec->io_deadline_ns, 0);
	rec->log = (struct wbc_recorder_logger){ o->log, o->log_data };
	rec->queue_length = o->queue_length ? o->queue_length : DEFAULT_QUEUE_LENGTH;
	rec->stop_timeout_ms = o->stop_timeout_ms ? o->stop_timeout_ms : DEFAULT_STOP_TIMEOUT_MS;
	rec->spare_max = rec->queue_length + 4;
	rec->test_delay_ms = o->test_worker_delay_ms;
	rec->min_stride = wbc_format_min_stride(o->format, o->width);
	rec->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	for (unsigned i = 0; rec->event_fd >= 0 && i < rec->spare_max; i++) {
		struct item *it = calloc(1, sizeof(*it));

		if (!it)
			break;
		list_push(&rec->spare, it);
	}
	if (rec->event_fd < 0 || rec->spare.len < rec->spare_max) {
		free_recorder(rec);
		return NULL;
	}
	return rec;
}

static bool is_network_output(const char *output)
{
	return strstr(output, "://") && strncmp(output, "file:", 5) != 0;
}

/* What the options say of the encoder; rec (for the callbacks) may be NULL to check. */
static struct wbc_encoder_config encoder_config(const struct wbc_recorder_options *o,
		struct wbc_recorder *rec)
{
	return (struct wbc_encoder_config){
		.output = o->output,
		.codec = o->codec,
		.container = o->container,
		.sdp_path = o->sdp_path,
		.codec_opts = o->codec_opts,
		.n_codec_opts = o->codec_opts ? o->n_codec_opts : 0,
		.container_opts = o->container_opts,
		.n_container_opts = o->container_opts ? o->n_container_opts : 0,
		.width = o->width,
		.height = o->height,
		.drm_format = o->format,
		.rotation = o->rotation,
		.log = rec ? &rec->log : NULL,
		.interrupt = rec && is_network_output(o->output) ? io_interrupt : NULL,
		.interrupt_data = rec,
		.written = rec ? packet_written : NULL,
		.written_data = rec,
	};
}

static int open_encoder(struct wbc_recorder *rec, const struct wbc_recorder_options *o,
		char *err, size_t len)
{
	const struct wbc_encoder_config cfg = encoder_config(o, rec);
	const char *sdp;
	int ret = wbc_encoder_open(&cfg, &rec->enc, err, len);

	if (ret < 0)
		return ret;
	rec->codec_name = wbc_encoder_codec_name(rec->enc);
	rec->container_name = wbc_encoder_container_name(rec->enc);
	rec->pix_fmt = wbc_encoder_pixel_format(rec->enc);
	sdp = wbc_encoder_sdp_path(rec->enc);
	if (sdp && !(rec->sdp_path = strdup(sdp))) {
		wbc_encoder_close(rec->enc);
		rec->enc = NULL;
		wbc_errf(err, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int wbc_recorder_create(const struct wbc_recorder_options *o, struct wbc_recorder **out,
		char *err, size_t len)
{
	struct wbc_thread_list before = { .n = 0 }; /* to tell the threads made here */
	struct wbc_recorder *rec;
	int ret;

	if (err && len)
		err[0] = '\0';
	if (!out) {
		wbc_errf(err, len, "no recorder pointer given");
		return -EINVAL;
	}
	*out = NULL;
	ret = check_options(o, err, len);
	if (ret < 0)
		return ret;
	rec = alloc_recorder(o);
	if (!rec) {
		wbc_errf(err, len, "out of memory or file descriptors");
		return -ENOMEM;
	}
	if (o->thread_nice)
		wbc_thread_list_take(&before);
	ret = open_encoder(rec, o, err, len);
	if (ret == 0) {
		ret = start_worker(rec, err, len);
		if (ret < 0)
			wbc_encoder_close(rec->enc);
	}
	if (ret < 0) {
		free_recorder(rec);
		return ret;
	}
	if (o->thread_nice)
		wbc_recorder_log_msg(&rec->log, WBC_RECORDER_LOG_DEBUG,
			"%zu worker/encoder thread(s) at nice %d",
			wbc_thread_renice_new(&before, o->thread_nice), o->thread_nice);
	*out = rec;
	return 0;
}

int wbc_recorder_check(const struct wbc_recorder_options *o, char *err, size_t len)
{
	if (err && len)
		err[0] = '\0';
	int ret = check_output(o, err, len);

	if (ret < 0)
		return ret;
	const struct wbc_encoder_config cfg = encoder_config(o, NULL);
	return wbc_encoder_check(&cfg, err, len);
}

/* ---- owner thread API ------------------------------------------------ */

static int enqueue_locked(struct wbc_recorder *rec, const struct wbc_recorder_frame *frame)
{
	struct item *it;

	if (rec->ended || rec->stop_requested) {
		rec->stats.dropped_ended++;
		return -EPIPE;
	}
	if (rec->queue.len >= rec->queue_length) {
		rec->stats.dropped_queue_full++;
		return -EAGAIN;
	}
	it = list_pop(&rec->spare);
	if (!it)
		it = malloc(sizeof(*it));
	if (!it) {
		rec->stats.dropped_queue_full++;
		return -ENOMEM;
	}
	it->frame = *frame;
	it->rec = rec;
	if (frame->ready_ns > 0)
		wbc_latency_add(&rec->stats.ready, frame->ready_ns - frame->timestamp_ns);
	list_push(&rec->queue, it);
	rec->lent++;
	pthread_cond_signal(&rec->wake);
	return 0;
}

int wbc_recorder_submit(struct wbc_recorder *rec, const struct wbc_recorder_frame *frame)
{
	int ret;

	if (!frame || !frame->data || frame->stride < rec->min_stride ||
			frame->stride > INT32_MAX)
		return -EINVAL;
	pthread_mutex_lock(&rec->lock);
	rec->stats.submitted++;
	ret = enqueue_locked(rec, frame);
	pthread_mutex_unlock(&rec->lock);
	return ret;
}

int wbc_recorder_get_event_fd(struct wbc_recorder *rec)
{
	return rec->event_fd;
}

void wbc_recorder_dispatch(struct wbc_recorder *rec)
{
	struct item_list done;
	uint64_t count;
	struct item *it;

	/* Reset first: a release queued after the take re-arms the fd. */
	if (read(rec->event_fd, &count, sizeof(count)) < 0)
		count = 0;
	pthread_mutex_lock(&rec->lock);
	done = list_take(&rec->releases);
	pthread_mutex_unlock(&rec->lock);

	for (it = done.head; it; it = it->next) {
		if (it->frame.release)
			it->frame.release(it->frame.release_data, &it->frame);
	}

	pthread_mutex_lock(&rec->lock);
	rec->lent -= done.len;
	while ((it = list_pop(&done))) {
		if (rec->spare.len < rec->spare_max)
			list_push(&rec->spare, it);
		else
			free(it);
	}
	pthread_mutex_unlock(&rec->lock);
}

/* Every frame lent is waiting for dispatch: none in the queue, in the worker's hands or
 * referenced by the encoder. */
static bool drained(struct wbc_recorder *rec)
{
	bool done;

	pthread_mutex_lock(&rec->lock);
	done = rec->queue.len == 0 && !rec->encoding && rec->releases.len == rec->lent;
	pthread_mutex_unlock(&rec->lock);
	return done;
}

int wbc_recorder_drain(struct wbc_recorder *rec, int timeout_ms)
{
	int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;

	/* Polled: a drain is rare (an output going away) and short, and a condition
	 * variable would cost the worker a signal on every frame. */
	while (!drained(rec)) {
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		worker_delay(2);
	}
	wbc_recorder_dispatch(rec);
	return 0;
}

static void log_summary(struct wbc_recorder *rec)
{
	struct wbc_recorder_stats s;

	wbc_recorder_get_stats(rec, &s);
	wbc_recorder_log_msg(&rec->log, WBC_RECORDER_LOG_INFO,
		"stopped: %llu frames submitted, %llu encoded, %llu dropped (%llu queue full, %llu after end), %llu bytes, %.2f ms/frame mean, %.2f max",
		(unsigned long long)s.submitted, (unsigned long long)s.encoded,
		(unsigned long long)s.dropped, (unsigned long long)s.dropped_queue_full,
		(unsigned long long)s.dropped_ended, (unsigned long long)s.bytes_written,
		s.encode_ms_mean, s.encode_ms_max);
}

int wbc_recorder_stop(struct wbc_recorder *rec, int64_t stop_timestamp_ns)
{
	int error;

	if (!rec->joined) {
		pthread_mutex_lock(&rec->lock);
		rec->stop_requested = true;
		rec->stop_ns = stop_timestamp_ns;
		pthread_cond_signal(&rec->wake);
		pthread_mutex_unlock(&rec->lock);
		atomic_store(&rec->io_deadline_ns,
			now_ns() + (int64_t)rec->stop_timeout_ms * 1000000);
		pthread_join(rec->thread, NULL);
		rec->joined = true;
		log_summary(rec);
	}
	wbc_recorder_dispatch(rec);
	pthread_mutex_lock(&rec->lock);
	error = rec->error;
	pthread_mutex_unlock(&rec->lock);
	return error;
}

void wbc_recorder_destroy(struct wbc_recorder *rec)
{
	if (!rec)
		return;
	wbc_recorder_stop(rec, INT64_MIN);
	free_recorder(rec);
}

const char *wbc_recorder_error(const struct wbc_recorder *rec)
{
	return atomic_load(&rec->has_error) ? rec->error_msg : NULL;
}

void wbc_recorder_get_stats(struct wbc_recorder *rec, struct wbc_recorder_stats *stats)
{
	*stats = (struct wbc_recorder_stats){ 0 };
	pthread_mutex_lock(&rec->lock);
	wbc_stats_snapshot(&rec->stats, stats);
	stats->queue_depth = rec->queue.len;
	stats->encoding = rec->encoding;
	stats->releases_pending = rec->releases.len;
	pthread_mutex_unlock(&rec->lock);
}

const char *wbc_recorder_codec_name(const struct wbc_recorder *rec)
{
	return rec->codec_name;
}

const char *wbc_recorder_container_name(const struct wbc_recorder *rec)
{
	return rec->container_name;
}

const char *wbc_recorder_encoder_pixel_format(const struct wbc_recorder *rec)
{
	return rec->pix_fmt;
}

const char *wbc_recorder_sdp_path(const struct wbc_recorder *rec)
{
	return rec->sdp_path;
}

int wbc_recorder_format_supported(uint32_t drm_format)
{
	return wbc_format_supported(drm_format);
}

bool wbc_recorder_container_untimed(const char *container)
{
	const AVOutputFormat *fmt = container ? av_guess_format(container, NULL, NULL) : NULL;

	return fmt && (fmt->flags & AVFMT_NOTIMESTAMPS);
}

const char *wbc_recorder_protocol_name(const char *output)
{
	return avio_find_protocol_name(output);
}

int wbc_recorder_list_encoders(char *buf, size_t len)
{
	return wbc_format_list_encoders(buf, len);
}

int wbc_recorder_list_containers(char *buf, size_t len)
{
	return wbc_format_list_containers(buf, len);
}
