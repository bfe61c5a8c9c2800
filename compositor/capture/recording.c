/* Recordings: captured frames -> wbc_recorder (see recording.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <drm_fourcc.h>
#include <wlr/types/wlr_output.h>
#include "adapter/adapter.h"
#include "capture.h"
#include "util/log.h"
#include "recorder-loader.h"
#include "recording.h"
#include "shell/server.h"

/* Frames waiting for the encoder; a frame beyond that is dropped and counted. */
#define QUEUE_LENGTH 4
/* Frames the recorder may hold besides its queue: the one being encoded, the one an
 * encoder such as ffv1 keeps referencing, and one whose release is not dispatched yet. */
#define HOLD_EXTRA 3
/* The recorder's worker and the encoder's own threads run at a lower priority than the
 * compositor and its clients: on a busy machine the encoder drops frames (counted) rather
 * than slowing the display down. */
#define RECORDER_NICE 10

/* Owned by the server (server->recording). */
struct wbc_recording {
	struct wbc_server *server;
	struct wbc_capture_consumer consumer;
	const struct wbc_recorder_module *m; /* the loaded recorder (recorder-loader.h) */
	struct wbc_recorder *rec;        /* owned */
	struct wl_event_source *rec_source; /* the recorder's event fd */
	struct wl_event_source *stats_timer;
	FILE *checksums;                 /* --debug-frame-checksums */
	char *checksums_path;            /* owned */
	char target[4096];               /* what it records to */
	char output[64];                 /* the output's name */
	uint32_t width, height, format;
	enum wl_output_transform transform; /* the output's at the start (file's rotation) */
	uint64_t captured;               /* frames offered to the recorder */
	bool started;                    /* a first frame was accepted */
	bool ended;                      /* no more frames: failed, or stopping */
	bool paused;                     /* the output went away: waiting for it to come back */
	bool stopped;                    /* r->m->stop() was called */
	char error[1024];                /* what ended it early (said once), or "" */
	uint64_t stats_bytes;
	int64_t stats_ns;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The recorder's messages start "wbc-recorder: "; ours start "wbc: ". */
static const char *bare(const char *msg)
{
	static const char prefix[] = "wbc-recorder: ";
	if (msg && strncmp(msg, prefix, sizeof(prefix) - 1) == 0)
		return msg + sizeof(prefix) - 1;
	return msg ? msg : "unknown error";
}

/* Thread-safe (the worker logs too). Errors that end a recording are said by
 * check_ended() as one line; everything else is for -v. */
static void recorder_log(void *data, enum wbc_recorder_log_level level, const char *msg)
{
	switch (level) {
	case WBC_RECORDER_LOG_ERROR:
	case WBC_RECORDER_LOG_WARNING:
	case WBC_RECORDER_LOG_INFO:
		wbc_log(WLR_INFO, "%s", msg);
		break;
	case WBC_RECORDER_LOG_DEBUG:
		wbc_log(WLR_DEBUG, "%s", msg);
		break;
	}
}

/* FFmpeg's own messages (thread-safe, like wlr_log). */
static void ffmpeg_log(void *data, enum wbc_recorder_log_level level, const char *msg)
{
	wbc_log(WLR_DEBUG, "ffmpeg: %s", msg);
}

/* FFmpeg's own messages: into the debug log with -v, else nowhere (the recorder's
 * messages say what went wrong; FFmpeg's would break the one-line errors). */
static void route_ffmpeg_log(const struct wbc_recorder_module *m)
{
	m->set_library_log(wbc_log_verbose() ? ffmpeg_log : NULL, NULL);
}

/* ---- Stopping ------------------------------------------------------------------------ */

static void say_error(struct wbc_recording *r, const char *msg)
{
	if (r->error[0])
		return;
	/* Bounded: a longer message is cut (and GCC -O3 knows it: no format-truncation). */
	snprintf(r->error, sizeof(r->error), "%.*s", (int)sizeof(r->error) - 1, bare(msg));
	wbc_log(WLR_ERROR, "recording stopped: %s", r->error);
}

/* Ends the recording: the worker finishes, every frame comes back. */
static int stop(struct wbc_recording *r, int64_t at_ns)
{
	r->ended = true;
	if (r->consumer.capture)
		wbc_capture_set_continuous(&r->consumer, false);
	if (r->stopped)
		return 0;
	r->stopped = true;
	int ret = r->m->stop(r->rec, at_ns);
	if (ret < 0)
		say_error(r, r->m->error(r->rec));
	return ret;
}

/* The recording may have ended with an error (write failed, receiver gone). */
static void check_ended(struct wbc_recording *r)
{
	if (r->stopped || !r->m->error(r->rec))
		return;
	say_error(r, r->m->error(r->rec));
	stop(r, INT64_MIN);              /* releases what it still holds; display goes on */
}

static int handle_recorder_event(int fd, uint32_t mask, void *data)
{
	struct wbc_recording *r = data;
	r->m->dispatch(r->rec);
	check_ended(r);
	wbc_capture_consumer_ready(&r->consumer);   /* frames went back: room, maybe */
	return 0;
}

/* The recorder's queue will be full once the frames on their way arrive: a frame
 * captured now would be dropped. Not capturing it saves the display engine the write (and
 * readback the copy). */
static bool recorder_busy(struct wbc_capture_consumer *consumer, unsigned coming)
{
	struct wbc_recording *r = wl_container_of(consumer, r, consumer);
	struct wbc_recorder_stats st;
	if (r->ended)
		return false;
	r->m->get_stats(r->rec, &st);
	return st.queue_depth + coming >= QUEUE_LENGTH;
}

/* ---- Frames ---------------------------------------------------------------------------- */

static void release_frame(void *data, const struct wbc_recorder_frame *f)
{
	wbc_capture_frame_unref(f->user);
}

/* FNV-1a 64 over the first three bytes of every pixel (B,G,R for XRGB8888: what FFmpeg
 * calls bgr0 without its 0), row by row; the test helper computes the same. */
static uint64_t frame_hash(const struct wbc_kms_wb_frame *f)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (uint32_t y = 0; y < f->height; y++) {
		const unsigned char *p = (const unsigned char *)f->data + (size_t)y * f->stride;
		for (uint32_t x = 0; x < f->width; x++, p += 4) {
			h = (h ^ p[0]) * 0x100000001b3u;
			h = (h ^ p[1]) * 0x100000001b3u;
			h = (h ^ p[2]) * 0x100000001b3u;
		}
	}
	return h;
}

static void handle_frame(struct wbc_capture_consumer *consumer, struct wbc_capture_frame *cf)
{
	struct wbc_recording *r = wl_container_of(consumer, r, consumer);
	const struct wbc_kms_wb_frame *f = &cf->frame;
	if (r->ended)
		return;
	if (f->width != r->width || f->height != r->height || f->format != r->format) {
		char msg[160];
		snprintf(msg, sizeof(msg), "the output's frames changed from %ux%u 0x%08x to "
			"%ux%u 0x%08x", r->width, r->height, r->format, f->width, f->height, f->format);
		say_error(r, msg);
		stop(r, (int64_t)f->timestamp_ns);
		return;
	}
	struct wbc_recorder_frame rf = {
		.data = f->data, .stride = f->stride, .timestamp_ns = (int64_t)f->timestamp_ns,
		.release = release_frame, .release_data = r, .user = cf,
		.ready_ns = (int64_t)f->signalled_ns,
	};
	int ret = r->m->submit(r->rec, &rf);
	if (ret == -EINVAL) {            /* not counted by the recorder either */
		wbc_log(WLR_ERROR, "recording: frame refused (stride %u)", f->stride);
		return;
	}
	r->captured++;
	if (ret == -EPIPE) {
		check_ended(r);
		return;
	}
	if (ret < 0)
		return;                      /* queue full: dropped and counted */
	wbc_capture_frame_ref(cf);
	if (!r->started) {
		r->started = true;
		wbc_notice("recording: first frame, vblank %" PRIu64 " at %" PRIu64 ".%09" PRIu64
			" (CLOCK_MONOTONIC)", f->sequence, f->timestamp_ns / 1000000000u,
			f->timestamp_ns % 1000000000u);
	}
	if (r->checksums)
		fprintf(r->checksums, "%" PRIu64 " seq=%" PRIu64 " ts=%" PRIu64 " fnv1a64=%016" PRIx64
			"\n", r->captured, f->sequence, f->timestamp_ns, frame_hash(f));
}

/* How long the output's going may wait for the encoder to give its frames back. */
#define DRAIN_TIMEOUT_MS 3000

/* The output's pipe is going (unplugged, turned off, wbc stopping): the frames lent to the
 * recorder must come back now. The recording pauses and waits for an output of the same
 * name (wbc_recording_resume); when the encoder cannot give its frames back without
 * ending, it ends instead. */
static void handle_detach(struct wbc_capture_consumer *consumer)
{
	struct wbc_recording *r = wl_container_of(consumer, r, consumer);
	if (r->stopped || r->paused)
		return;
	wbc_capture_set_continuous(consumer, false);
	if (r->m->drain(r->rec, DRAIN_TIMEOUT_MS) < 0) {
		say_error(r, "the output went away and the encoder did not give its frames back "
			"in time: cannot pause");
		stop(r, now_ns());
	} else {
		r->paused = true;
		wbc_notice("recording %s paused: the output went away (%" PRIu64 " frames so far)",
			r->output, r->captured);
	}
	wbc_capture_remove(consumer);
}

static void handle_unavailable(struct wbc_capture_consumer *consumer, const char *why)
{
	struct wbc_recording *r = wl_container_of(consumer, r, consumer);
	char msg[600];
	snprintf(msg, sizeof(msg), "capture failed: %s", why);
	say_error(r, msg);
	stop(r, now_ns());
}

/* ---- Statistics ------------------------------------------------------------------------ */

static int handle_stats(void *data)
{
	struct wbc_recording *r = data;
	struct wbc_recorder_stats st;
	r->m->get_stats(r->rec, &st);
	struct wbc_adapter_stats as = { 0 };
	if (r->server->adapter)
		wbc_adapter_get_stats(r->server->adapter, &as);
	int64_t now = now_ns();
	int64_t ms = (now - r->stats_ns) / 1000000;
	uint64_t kbps = ms > 0 ? (st.bytes_written - r->stats_bytes) * 8 / (uint64_t)ms : 0;
	r->stats_ns = now;
	r->stats_bytes = st.bytes_written;
	flockfile(stderr);
	fprintf(stderr, "wbc: rec captured=%" PRIu64 " encoded=%" PRIu64 " muxed=%" PRIu64
		" dropped=%" PRIu64 " skipped_busy=%" PRIu64 " queue=%u kbps=%" PRIu64
		" encode_ms=%.1f flips=%" PRIu64 "\n", r->captured, st.encoded,
		st.latency_written_frames, st.dropped, r->consumer.busy_skips, st.queue_depth,
		kbps, st.encode_ms_mean, as.flips);
	funlockfile(stderr);
	wl_event_source_timer_update(r->stats_timer, 1000);
	return 0;
}

/* ---- Setting up ------------------------------------------------------------------------ */

static bool is_live(const struct wbc_recorder_module *m, const char *output,
		const char *container)
{
	if (strncmp(output, "pipe:", 5) == 0)
		return true;
	if (strstr(output, "://") && strncmp(output, "file:", 5) != 0)
		return true;
	/* A container without timestamps (raw streams) needs a steady frame rate. */
	return m->container_untimed(container);
}

static const char *format_name(uint32_t f)
{
	switch (f) {
	case DRM_FORMAT_XRGB8888: return "XRGB8888";
	case DRM_FORMAT_XBGR8888: return "XBGR8888";
	case DRM_FORMAT_ARGB8888: return "ARGB8888";
	case DRM_FORMAT_ABGR8888: return "ABGR8888";
	}
	return "other";
}

static void record_free(struct wbc_recording *r)
{
	if (r->rec_source)
		wl_event_source_remove(r->rec_source);
	if (r->stats_timer)
		wl_event_source_remove(r->stats_timer);
	wbc_capture_remove(&r->consumer);
	if (r->rec)
		r->m->destroy(r->rec);       /* stops first if not stopped */
	if (r->checksums && fclose(r->checksums) != 0)
		wbc_log(WLR_ERROR, "--debug-frame-checksums %s: write failed: %s",
			r->checksums_path, strerror(errno));
	free(r->checksums_path);
	free(r);
}

static enum wbc_recording_error error_kind(int recorder_errno)
{
	switch (recorder_errno) {
	case -EINVAL: return WBC_RECORDING_ERR_INVALID;
	case -ENOMEM: return WBC_RECORDING_ERR_INTERNAL;
	}
	return WBC_RECORDING_ERR_OUTPUT;    /* opening or writing the target */
}

/* The frames are the panel's picture (the CRTC's: writeback or the displayed buffer),
 * which wlroots drew turned by the inverse of the output's transform: a player turns
 * them back by the transform's angle (wl_output's angles are counterclockwise, the
 * recorder's clockwise; the picture is turned the other way, so they are the same
 * number). Flipped transforms are not kept in the file (say_started says so). */
static int rotation_of(enum wl_output_transform t)
{
	switch (t) {
	case WL_OUTPUT_TRANSFORM_90: return 90;
	case WL_OUTPUT_TRANSFORM_180: return 180;
	case WL_OUTPUT_TRANSFORM_270: return 270;
	default: return 0;
	}
}

static const char *transform_name(enum wl_output_transform t)
{
	static const char *const names[] = { "normal", "90", "180", "270", "flipped",
		"flipped-90", "flipped-180", "flipped-270" };
	return names[t & 7];
}

/* What params say of the recorder; the frames' part is the caller's. */
static struct wbc_recorder_options recorder_options(const struct wbc_recording_params *p)
{
	return (struct wbc_recorder_options){
		.output = p->target, .codec = p->codec, .container = p->container,
		.codec_opts = p->codec_opts, .n_codec_opts = p->n_codec_opts,
		.container_opts = p->container_opts, .n_container_opts = p->n_container_opts,
		.queue_length = QUEUE_LENGTH, .thread_nice = RECORDER_NICE,
	};
}

/* Creates (rec) or checks (!rec) the recorder ro describes; the refusal into err. */
static int create_or_check(const struct wbc_recorder_module *m,
		const struct wbc_recorder_options *ro, struct wbc_recorder **rec, char *err,
		size_t len)
{
	enum { MSG = 16384 };            /* an unknown codec's message lists every encoder */
	char *msg = malloc(MSG);
	if (!msg) {
		snprintf(err, len, "recording: out of memory");
		return WBC_RECORDING_ERR_INTERNAL;
	}
	int ret = rec ? m->create(ro, rec, msg, MSG) : m->check(ro, msg, MSG);
	if (ret < 0)
		snprintf(err, len, "cannot record to %s: %s", ro->output, bare(msg));
	free(msg);
	return ret < 0 ? error_kind(ret) : 0;
}

/* The recorder and what feeds it; r->consumer is registered already. */
static int open_recorder(struct wbc_recording *r, const struct wbc_recording_params *p,
		char *err, size_t len)
{
	struct wbc_recorder_options ro = recorder_options(p);
	ro.width = r->width;
	ro.height = r->height;
	ro.format = r->format;
	ro.rotation = rotation_of(r->transform);
	ro.log = recorder_log;
	ro.log_data = r;
	int ret = create_or_check(r->m, &ro, &r->rec, err, len);
	if (ret)
		return ret;
	r->consumer.repeat_idle = is_live(r->m, p->target, r->m->container_name(r->rec));
	struct wl_event_loop *loop = wl_display_get_event_loop(r->server->display);
	r->rec_source = wl_event_loop_add_fd(loop, r->m->get_event_fd(r->rec),
		WL_EVENT_READABLE, handle_recorder_event, r);
	if (!r->rec_source) {
		snprintf(err, len, "recording: cannot watch the recorder's events");
		return WBC_RECORDING_ERR_INTERNAL;
	}
	if (r->server->opts->stats) {
		r->stats_timer = wl_event_loop_add_timer(loop, handle_stats, r);
		if (!r->stats_timer) {
			snprintf(err, len, "recording: cannot create the --stats timer");
			return WBC_RECORDING_ERR_INTERNAL;
		}
		r->stats_ns = now_ns();
		wl_event_source_timer_update(r->stats_timer, 1000);
	}
	return 0;
}

/* Whether the container stores the display matrix (the mov family, FFmpeg 5.1). */
static bool keeps_rotation(const struct wbc_recording *r)
{
	const char *mux = r->m->container_name(r->rec);
	return strstr(mux, "mp4") || strstr(mux, "mov");
}

static void say_started(const struct wbc_recording *r, const char *method, double fps)
{
	wbc_notice("%s", method);
	char rate[64] = "every frame shown";
	if (fps > 0)
		snprintf(rate, sizeof(rate), "at most %g frames/s", fps);
	wbc_notice("recording %s to %s: %s (%s) in %s, %ux%u %s, %s%s", r->output, r->target,
		r->m->codec_name(r->rec), r->m->encoder_pixel_format(r->rec),
		r->m->container_name(r->rec), r->width, r->height, format_name(r->format),
		rate, r->consumer.repeat_idle ? ", idle screen repeated (live output)" : "");
	if (r->transform >= WL_OUTPUT_TRANSFORM_FLIPPED)
		wbc_notice("recording: %s is flipped: the file shows the panel's picture (not "
			"flipped back)", r->output);
	else if (r->transform != WL_OUTPUT_TRANSFORM_NORMAL && keeps_rotation(r))
		wbc_notice("recording: frames are the panel's picture; the file says to turn them "
			"by %d degrees clockwise", rotation_of(r->transform));
	else if (r->transform != WL_OUTPUT_TRANSFORM_NORMAL)
		wbc_notice("recording: frames are the panel's picture, and %s keeps no rotation: "
			"players show them as they are, not turned %d degrees clockwise (use .mp4 or "
			".mov)", r->m->container_name(r->rec), rotation_of(r->transform));
	if (r->m->sdp_path(r->rec))
		wbc_notice("recording: SDP written to %s", r->m->sdp_path(r->rec));
}

static void fill_status(const struct wbc_recording *r, enum wbc_recording_state state,
		struct wbc_recording_status *st)
{
	struct wbc_recorder_stats rs;
	r->m->get_stats(r->rec, &rs);
	*st = (struct wbc_recording_status){ .state = state, .captured = r->captured,
		.encoded = rs.encoded, .dropped = rs.dropped, .bytes = rs.bytes_written,
		.queue_depth = rs.queue_depth };
	snprintf(st->target, sizeof(st->target), "%s", r->target);
	snprintf(st->output, sizeof(st->output), "%s", r->output);
	snprintf(st->codec, sizeof(st->codec), "%s", r->m->codec_name(r->rec));
	snprintf(st->container, sizeof(st->container), "%s", r->m->container_name(r->rec));
	snprintf(st->error, sizeof(st->error), "%s", r->error);
}

/* Stop at at_ns, print the final counters, fill *summary, free. */
static void finish(struct wbc_server *s, int64_t at_ns, struct wbc_recording_status *summary)
{
	struct wbc_recording *r = s->recording;
	s->recording = NULL;
	stop(r, at_ns);
	struct wbc_recording_status st;
	fill_status(r, WBC_RECORDING_STOPPED, &st);
	struct wbc_recorder_stats rs;
	r->m->get_stats(r->rec, &rs);
	if (rs.submitted != r->captured)
		wbc_log(WLR_ERROR, "recording: %" PRIu64 " frames captured but the recorder counted %"
			PRIu64, r->captured, rs.submitted);
	if (!s->failed)                  /* errors are one line: no counters after them */
		fprintf(stderr, "wbc: rec final captured=%" PRIu64 " encoded=%" PRIu64
			" dropped=%" PRIu64 " skipped_busy=%" PRIu64 " ready_ms_p50=%.2f"
			" ready_ms_p99=%.2f written_ms_p50=%.2f written_ms_p99=%.2f\n", st.captured,
			st.encoded, st.dropped, r->consumer.busy_skips, rs.ready_ms_p50,
			rs.ready_ms_p99, rs.written_ms_p50, rs.written_ms_p99);
	if (summary)
		*summary = st;
	record_free(r);
}

int wbc_recording_check(const struct wbc_recording_params *p, char *err, size_t len)
{
	const struct wbc_recorder_module *m = wbc_recorder_loader_get(err, len);
	if (!m)
		return WBC_RECORDING_ERR_INTERNAL;
	const struct wbc_recorder_options ro = recorder_options(p);
	return create_or_check(m, &ro, NULL, err, len);
}

int wbc_recording_start(struct wbc_server *s, struct wlr_output *output, struct wbc_capture *cap,
		const struct wbc_recording_params *p, char *err, size_t len)
{
	if (s->recording && !s->recording->ended) {
		snprintf(err, len, "already recording %s to %s (stop it first)", s->recording->output,
			s->recording->target);
		return WBC_RECORDING_ERR_BUSY;
	}
	if (s->recording)                   /* it failed: make way */
		finish(s, now_ns(), NULL);
	const struct wbc_recorder_module *m = wbc_recorder_loader_get(err, len);
	if (!m)
		return WBC_RECORDING_ERR_INTERNAL;
	route_ffmpeg_log(m);
	struct wbc_recording *r = calloc(1, sizeof(*r));
	if (!r || (p->frame_checksums && !(r->checksums_path = strdup(p->frame_checksums)))) {
		free(r);
		snprintf(err, len, "recording: out of memory");
		return WBC_RECORDING_ERR_INTERNAL;
	}
	r->server = s;
	r->m = m;
	snprintf(r->target, sizeof(r->target), "%s", p->target);
	snprintf(r->output, sizeof(r->output), "%s", output->name);
	r->consumer = (struct wbc_capture_consumer){
		.frame = handle_frame, .detach = handle_detach, .unavailable = handle_unavailable,
		.busy = recorder_busy, .hold = QUEUE_LENGTH + HOLD_EXTRA,
		.interval_ns = p->fps > 0 ? (uint64_t)(1e9 / p->fps) : 0,
	};
	wbc_capture_add(cap, &r->consumer);  /* not continuous yet: counted for the pool */
	char method[1200];
	int ret = 0;
	if (wbc_screen_choose_capture(s, output, cap, wbc_capture_pool_size(cap), &r->format, method,
			sizeof(method)) < 0) {
		snprintf(err, len, "%s", method);
		ret = WBC_RECORDING_ERR_CAPTURE;
	}
	r->width = (uint32_t)output->width;
	r->height = (uint32_t)output->height;
	r->transform = output->transform;
	if (!ret && p->frame_checksums && !(r->checksums = fopen(p->frame_checksums, "w"))) {
		snprintf(err, len, "--debug-frame-checksums %s: %s", p->frame_checksums,
			strerror(errno));
		ret = WBC_RECORDING_ERR_OUTPUT;
	}
	if (!ret)
		ret = open_recorder(r, p, err, len);
	if (ret) {
		record_free(r);
		return ret;
	}
	s->recording = r;
	say_started(r, method, p->fps);
	wbc_capture_set_continuous(&r->consumer, true);
	return 0;
}

void wbc_recording_resume(struct wbc_server *s, struct wlr_output *output, struct wbc_capture *cap)
{
	struct wbc_recording *r = s->recording;
	if (!r || !r->paused || r->stopped || strcmp(r->output, output->name) != 0)
		return;
	r->paused = false;
	wbc_capture_add(cap, &r->consumer);  /* counted for the pool, as at start */
	char method[1200];
	uint32_t format;
	if (wbc_screen_choose_capture(s, output, cap, wbc_capture_pool_size(cap), &format, method,
			sizeof(method)) < 0) {
		say_error(r, method);
		stop(r, now_ns());
		return;
	}
	if ((uint32_t)output->width != r->width || (uint32_t)output->height != r->height ||
			format != r->format || output->transform != r->transform) {
		char msg[240];
		snprintf(msg, sizeof(msg), "%s came back as %dx%d 0x%08x transform %s, the "
			"recording is %ux%u 0x%08x transform %s", output->name, output->width,
			output->height, format, transform_name(output->transform), r->width,
			r->height, r->format, transform_name(r->transform));
		say_error(r, msg);
		stop(r, now_ns());
		return;
	}
	wbc_notice("recording %s resumed (%s)", r->output, method);
	wbc_capture_set_continuous(&r->consumer, true);
}

void wbc_recording_output_changed(struct wbc_server *s, struct wlr_output *output)
{
	struct wbc_recording *r = s->recording;
	if (!r || r->ended || r->paused || strcmp(r->output, output->name) != 0)
		return;
	if ((uint32_t)output->width == r->width && (uint32_t)output->height == r->height &&
			output->transform == r->transform)
		return;                      /* a new scale: the frames stay as they are */
	wbc_notice("recording %s ended: the output changed from %ux%u transform %s to %dx%d "
		"transform %s, and a file keeps one size and rotation (start a new recording)",
		r->output, r->width, r->height, transform_name(r->transform), output->width,
		output->height, transform_name(output->transform));
	finish(s, now_ns(), NULL);
}

int wbc_recording_stop(struct wbc_server *s, struct wbc_recording_status *summary)
{
	if (!s->recording)
		return -1;
	finish(s, now_ns(), summary);
	return 0;
}

void wbc_recording_get_status(struct wbc_server *s, struct wbc_recording_status *st)
{
	if (!s->recording) {
		*st = (struct wbc_recording_status){ .state = WBC_RECORDING_IDLE };
		return;
	}
	fill_status(s->recording, s->recording->ended ? WBC_RECORDING_FAILED : WBC_RECORDING_RECORDING, st);
}

void wbc_recording_finish(struct wbc_server *s)
{
	if (s->recording)
		finish(s, s->stop_ns ? (int64_t)s->stop_ns : now_ns(), NULL);
}
