/* The capture hook: which commits arm writeback, and where captured frames go. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include "adapter/adapter.h"
#include "util/buffer-check.h"
#include "capture.h"
#include "util/log.h"

#define SPARE_COPIES 4
/* Writeback frames lost in a row (the KMS backend gives a job up when its out-fence has
 * not signalled WBC_KMS_WB_FENCE_TIMEOUT_MS after the flip) before the output is captured
 * by readback instead: one loss may be a stalled machine, three are a broken driver (see
 * writeback_lost). */
#define LOST_LIMIT 3

/* Owned by the screen of its output. */
struct wbc_capture {
	struct wlr_output *output;       /* borrowed */
	struct wl_list consumers;        /* wbc_capture_consumer.link */
	struct wl_list held;             /* wbc_capture_frame.link: frames not yet unreffed */
	unsigned inflight;               /* armed commits whose frame has not come yet */
	bool unavailable;
	enum wbc_capture_method method;
	/* The screen shows content the continuous consumers have not got (a flip that was
	 * not captured): capture it again when they are due. */
	bool stale;
	struct wl_event_source *timer;   /* when a continuous consumer becomes due */
	bool readback_failed;            /* said once */
	unsigned lost_in_row;            /* writeback frames lost since the last delivered */
	bool stalled;                    /* writeback gave up: readback from now on */
	bool cursor_locked;              /* readback: software cursors locked on (see use_readback) */
	bool dropped;                    /* ... and the writeback pool is gone */
	struct wl_event_source *drop_timer; /* drops the pool once no frame of it is held */
	size_t spare_size;               /* readback copies kept for reuse */
	unsigned n_spare;
	void *spare[SPARE_COPIES];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Half a refresh: commits happen at vblank phase, so "due within half a frame" is due. */
static uint64_t slack_ns(const struct wbc_capture *cap)
{
	struct wbc_kms_pipe *pipe = wbc_output_pipe(cap->output);
	uint64_t refresh = pipe ? wbc_kms_pipe_refresh_ns(pipe) : 0;
	return (refresh ? refresh : 16666667u) / 2;
}

/* When a continuous consumer may take its next frame (0: now). */
static uint64_t due_at(const struct wbc_capture *cap, const struct wbc_capture_consumer *c,
		uint64_t interval)
{
	if (!c->last_ns || !interval)
		return 0;
	uint64_t t = c->last_ns + interval, s = slack_ns(cap);
	return t > s ? t - s : 0;
}

/* Every frame armed reaches every continuous consumer (deliver), so those in flight
 * count against its room. */
static bool is_busy(const struct wbc_capture_consumer *c)
{
	unsigned coming = c->capture ? c->capture->inflight : 0;
	return c->busy && c->busy((struct wbc_capture_consumer *)c, coming);
}

/* A continuous consumer that takes a frame now (due and not busy). */
static bool takes_now(const struct wbc_capture *cap, const struct wbc_capture_consumer *c,
		uint64_t now, uint64_t interval)
{
	return c->continuous && now >= due_at(cap, c, interval) && !is_busy(c);
}

static uint64_t repeat_interval(const struct wbc_capture_consumer *c)
{
	return c->repeat_idle && c->interval_ns == 0 ? 1000000000u : c->interval_ns;
}

static unsigned one_shots(const struct wbc_capture *cap)
{
	unsigned wanted = 0;
	const struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link)
		if (!c->continuous)
			wanted += c->requested;
	return wanted;
}

static bool wants_frame(const struct wbc_capture *cap)
{
	if (cap->unavailable)
		return false;
	uint64_t now = now_ns();
	const struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link)
		if (takes_now(cap, c, now, c->interval_ns))
			return true;
	return one_shots(cap) > cap->inflight;
}

static bool wants_repeat(const struct wbc_capture *cap)
{
	if (cap->unavailable)
		return false;
	if (one_shots(cap) > cap->inflight)
		return true;
	uint64_t now = now_ns();
	const struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link) {
		if (cap->stale && takes_now(cap, c, now, c->interval_ns))
			return true;
		if (c->repeat_idle && takes_now(cap, c, now, repeat_interval(c)))
			return true;
	}
	return false;
}

/* Arm the timer for the moment a re-commit becomes wanted (nothing is on its way then:
 * wbc_output_capture_kick checks). */
static void reschedule(struct wbc_capture *cap)
{
	if (!cap->timer)
		return;
	uint64_t when = UINT64_MAX;
	struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link) {
		if (!c->continuous || cap->unavailable || is_busy(c))
			continue;                /* a busy one calls wbc_capture_consumer_ready */
		if (cap->stale) {
			uint64_t t = due_at(cap, c, c->interval_ns);
			when = t < when ? t : when;
		}
		if (c->repeat_idle) {
			uint64_t t = due_at(cap, c, repeat_interval(c));
			when = t < when ? t : when;
		}
	}
	if (when == UINT64_MAX) {
		wl_event_source_timer_update(cap->timer, 0);
		return;
	}
	uint64_t now = now_ns();
	int ms = when > now ? (int)((when - now + 999999) / 1000000) : 1;
	wl_event_source_timer_update(cap->timer, ms > 0 ? ms : 1);
}

static int handle_timer(void *data)
{
	struct wbc_capture *cap = data;
	if (!wants_repeat(cap)) {
		reschedule(cap);             /* not yet (rounding) or no longer */
		return 0;
	}
	/* A commit on its way reschedules at its flip; with nothing to commit (no buffer
	 * shown yet) look again a little later. */
	if (!wbc_output_capture_kick(cap->output))
		wl_event_source_timer_update(cap->timer, 100);
	return 0;
}

static int handle_drop_timer(void *data);
static void listen_to_output(struct wbc_capture *cap);

struct wbc_capture *wbc_capture_create(struct wlr_output *output)
{
	struct wbc_capture *cap = calloc(1, sizeof(*cap));
	if (!cap)
		return NULL;
	cap->output = output;
	wl_list_init(&cap->consumers);
	wl_list_init(&cap->held);
	struct wl_event_loop *loop = wl_display_get_event_loop(output->display);
	cap->timer = wl_event_loop_add_timer(loop, handle_timer, cap);
	cap->drop_timer = wl_event_loop_add_timer(loop, handle_drop_timer, cap);
	if (!cap->timer || !cap->drop_timer) {
		if (cap->timer)
			wl_event_source_remove(cap->timer);
		if (cap->drop_timer)
			wl_event_source_remove(cap->drop_timer);
		free(cap);
		return NULL;
	}
	listen_to_output(cap);
	return cap;
}

static void orphan_frames(struct wbc_capture *cap, bool forget_pipe)
{
	struct wbc_capture_frame *f, *tmp;
	wl_list_for_each_safe(f, tmp, &cap->held, link) {
		wbc_log(WLR_ERROR, "%s: a captured frame is still held while its %s goes away",
			cap->output->name, forget_pipe ? "pipe" : "capture");
		if (forget_pipe)
			f->pipe = NULL;      /* its buffer goes with the pipe */
		if (!forget_pipe) {
			f->capture = NULL;
			wl_list_remove(&f->link);
			wl_list_init(&f->link);
		}
	}
}

static void detach_all(struct wbc_capture *cap)
{
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link)
		if (c->detach)
			c->detach(c);
}

void wbc_capture_destroy(struct wbc_capture *cap)
{
	if (!cap)
		return;
	detach_all(cap);
	wbc_output_set_capture_listener(cap->output, NULL);
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link)
		wbc_capture_remove(c);
	orphan_frames(cap, false);
	for (unsigned i = 0; i < cap->n_spare; i++)
		free(cap->spare[i]);
	wl_event_source_remove(cap->timer);
	wl_event_source_remove(cap->drop_timer);
	if (cap->cursor_locked)
		wlr_output_lock_software_cursors(cap->output, false);
	free(cap);
}

/* The adapter's pipe_closing. */
static void pipe_closing(void *data)
{
	struct wbc_capture *cap = data;
	detach_all(cap);
	orphan_frames(cap, true);
}

/* A readback copies the primary buffer, which a cursor on the cursor plane is not in:
 * while capturing that way, wlroots draws the cursor into the buffer (software cursor). */
static void use_readback(struct wbc_capture *cap)
{
	cap->method = WBC_CAPTURE_READBACK;
	if (!cap->cursor_locked)
		wlr_output_lock_software_cursors(cap->output, true);
	cap->cursor_locked = true;
}

void wbc_capture_set_method(struct wbc_capture *cap, enum wbc_capture_method method)
{
	if (method == WBC_CAPTURE_READBACK)
		use_readback(cap);
	else
		cap->method = method;
}

enum wbc_capture_method wbc_capture_get_method(const struct wbc_capture *cap)
{
	return cap->method;
}

unsigned wbc_capture_pool_size(const struct wbc_capture *cap)
{
	unsigned n = 2;
	const struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link)
		n += c->hold;
	return n < 3 ? 3 : n;
}

void wbc_capture_add(struct wbc_capture *cap, struct wbc_capture_consumer *consumer)
{
	consumer->capture = cap;
	consumer->last_ns = 0;
	wl_list_insert(cap->consumers.prev, &consumer->link);
	if (cap->unavailable && consumer->unavailable)
		consumer->unavailable(consumer, "capture is not available on this output");
}

void wbc_capture_remove(struct wbc_capture_consumer *consumer)
{
	if (!consumer->capture)
		return;
	wl_list_remove(&consumer->link);
	consumer->capture = NULL;
}

void wbc_capture_request_frame(struct wbc_capture_consumer *consumer)
{
	consumer->requested++;
	if (consumer->capture)
		wbc_output_capture_kick(consumer->capture->output);
}

void wbc_capture_consumer_ready(struct wbc_capture_consumer *consumer)
{
	if (consumer->capture)
		reschedule(consumer->capture);
}

void wbc_capture_set_continuous(struct wbc_capture_consumer *consumer, bool on)
{
	consumer->continuous = on;
	if (!consumer->capture)
		return;
	if (on) {
		consumer->capture->stale = true;     /* it has nothing yet */
		wbc_output_capture_kick(consumer->capture->output);
	}
	reschedule(consumer->capture);
}

static void armed(struct wbc_capture *cap)
{
	cap->inflight++;
	uint64_t now = now_ns();
	struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link)
		if (takes_now(cap, c, now, c->interval_ns))
			c->last_ns = now;
	reschedule(cap);
}

/* The adapter's missed: an armed commit brought no frame. */
static void missed(void *data)
{
	struct wbc_capture *cap = data;
	if (cap->inflight)
		cap->inflight--;
	/* What is on screen was not captured: take it when the consumers are next due
	 * (not at once: the pool may be empty because a consumer is behind). */
	cap->stale = true;
	reschedule(cap);
}

/* The adapter's pipe_closed: nothing is armed any more. */
static void pipe_closed(void *data)
{
	struct wbc_capture *cap = data;
	cap->inflight = 0;
}

/* ---- Frames ---------------------------------------------------------------------- */

struct wbc_capture_frame *wbc_capture_frame_ref(struct wbc_capture_frame *f)
{
	f->refs++;
	return f;
}

void wbc_capture_frame_unref(struct wbc_capture_frame *f)
{
	if (!f || --f->refs > 0)
		return;
	if (f->pipe)
		wbc_kms_pipe_release_frame(f->pipe, f->frame.buffer);
	struct wbc_capture *cap = f->capture;
	if (cap && f->pipe && cap->stalled && !cap->dropped)   /* maybe the last one out */
		wl_event_source_timer_update(cap->drop_timer, 1);
	if (f->copy) {
		size_t size = (size_t)f->frame.stride * f->frame.height;
		if (cap && cap->n_spare < SPARE_COPIES && size == cap->spare_size)
			cap->spare[cap->n_spare++] = f->copy;
		else
			free(f->copy);
	}
	wl_list_remove(&f->link);
	free(f);
}

static void deliver(struct wbc_capture *cap, struct wbc_capture_frame *f)
{
	if (cap->inflight)
		cap->inflight--;
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link) {
		if (!c->continuous && c->requested == 0)
			continue;
		if (!c->continuous)
			c->requested--;
		c->frame(c, f);
	}
	wbc_capture_frame_unref(f);
}

static struct wbc_capture_frame *frame_new(struct wbc_capture *cap)
{
	struct wbc_capture_frame *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->refs = 1;
	f->capture = cap;
	wl_list_insert(&cap->held, &f->link);
	return f;
}

/* The adapter's frame: a writeback frame, ours to release to the pipe. */
static void writeback_frame(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_wb_frame *frame)
{
	struct wbc_capture *cap = data;
	if (cap->stalled) {              /* the pool is about to go: lend nothing more */
		wbc_kms_pipe_release_frame(pipe, frame->buffer);
		return;
	}
	struct wbc_capture_frame *f = frame_new(cap);
	if (!f) {
		if (cap->inflight)
			cap->inflight--;
		wbc_kms_pipe_release_frame(pipe, frame->buffer);
		return;
	}
	f->frame = *frame;
	f->pipe = pipe;
	cap->lost_in_row = 0;
	deliver(cap, f);
}

/* ---- Readback -------------------------------------------------------------------- */

/* The formats a copy keeps as they are (alpha is ignored: it is reported as X). */
static uint32_t readback_format(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888: case DRM_FORMAT_ARGB8888:
		return DRM_FORMAT_XRGB8888;
	case DRM_FORMAT_XBGR8888: case DRM_FORMAT_ABGR8888:
		return DRM_FORMAT_XBGR8888;
	}
	return 0;
}

static void copy_rows(void *dst, const void *src, size_t src_stride, uint32_t width,
		uint32_t height)
{
	size_t row = (size_t)width * 4;
	for (uint32_t y = 0; y < height; y++)
		memcpy((char *)dst + y * row, (const char *)src + y * src_stride, row);
}

static void dmabuf_sync(int fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_READ };
	ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

/* A buffer the renderer can draw into (GLES2: GBM buffers, which wlroots 0.15 gives no
 * CPU access, and may be tiled; a client's dma-buf EGL takes as a render target) read
 * back through it, width * 4 bytes a row as the other ways; its format, or 0 where it
 * cannot (pixman: a buffer without a data pointer). */
static uint32_t read_with_renderer(struct wlr_renderer *r, struct wlr_buffer *buffer,
		void *dst)
{
	uint32_t w = (uint32_t)buffer->width, h = (uint32_t)buffer->height;
	/* In the byte order of the buffer's format, as the capture announced it (screen.c). */
	struct wlr_dmabuf_attributes attr;
	uint32_t format = wlr_buffer_get_dmabuf(buffer, &attr) ? readback_format(attr.format) : 0;
	if (!r || !format || !wlr_renderer_begin_with_buffer(r, buffer))
		return 0;
	uint32_t flags = 0;
	bool ok = wlr_renderer_read_pixels(r, format, &flags, w * 4, w, h, 0, 0, 0, 0, dst);
	wlr_renderer_end(r);
	/* wlroots 0.15's renderers read top-down; a y-inverted read would need flipping. */
	return ok && !(flags & WLR_RENDERER_READ_PIXELS_Y_INVERT) ? format : 0;
}

/* Copy the buffer's pixels into dst (width * 4 bytes a row); its format, or 0. r: the
 * output's renderer (borrowed; NULL: none). */
static uint32_t read_buffer(struct wlr_renderer *r, struct wlr_buffer *buffer, void *dst,
		const char **how)
{
	void *data;
	uint32_t format;
	size_t stride;
	uint32_t w = (uint32_t)buffer->width, h = (uint32_t)buffer->height;
	if (wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data,
			&format, &stride)) {
		uint32_t out = readback_format(format);
		if (out)
			copy_rows(dst, data, stride, w, h);
		wlr_buffer_end_data_ptr_access(buffer);
		*how = "data pointer";
		return out;
	}
	uint32_t read = read_with_renderer(r, buffer, dst);
	if (read) {
		*how = "renderer";
		return read;
	}
	/* A client's dma-buf scanned out directly (pixman): map it. */
	struct wlr_dmabuf_attributes attr;
	if (!wlr_buffer_get_dmabuf(buffer, &attr) || attr.n_planes != 1 ||
			(attr.modifier != DRM_FORMAT_MOD_LINEAR &&
			 attr.modifier != DRM_FORMAT_MOD_INVALID) || !readback_format(attr.format))
		return 0;
	size_t size = (size_t)attr.offset[0] + (size_t)attr.stride[0] * h;
	char why[200];
	if (!wbc_buffer_layout_ok(attr.format, w, h, attr.stride[0], attr.offset[0], size, why,
			sizeof(why)))
		return 0;
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, attr.fd[0], 0);
	if (map == MAP_FAILED)
		return 0;
	dmabuf_sync(attr.fd[0], DMA_BUF_SYNC_START);
	copy_rows(dst, (char *)map + attr.offset[0], attr.stride[0], w, h);
	dmabuf_sync(attr.fd[0], DMA_BUF_SYNC_END);
	munmap(map, size);
	*how = "dma-buf mapping";
	return readback_format(attr.format);
}

static bool readback(struct wbc_capture *cap, struct wlr_buffer *buffer,
		const struct wbc_kms_flip_event *ev)
{
	if (!buffer || buffer->width <= 0 || buffer->height <= 0)
		return false;
	uint32_t w = (uint32_t)buffer->width, h = (uint32_t)buffer->height;
	size_t size = (size_t)w * 4 * h;
	if (cap->spare_size != size) {
		for (unsigned i = 0; i < cap->n_spare; i++)
			free(cap->spare[i]);
		cap->n_spare = 0;
		cap->spare_size = size;
	}
	void *copy = cap->n_spare ? cap->spare[--cap->n_spare] : malloc(size);
	struct wbc_capture_frame *f = copy ? frame_new(cap) : NULL;
	if (!f) {
		free(copy);
		return false;
	}
	const char *how = "";
	uint32_t format = read_buffer(cap->output->renderer, buffer, copy, &how);
	if (!format) {
		if (!cap->readback_failed)
			wbc_log(WLR_ERROR, "%s: readback: cannot read the displayed buffer (no CPU "
				"access, or a format other than XRGB/ARGB/XBGR/ABGR8888)",
				cap->output->name);
		cap->readback_failed = true;
		f->copy = copy;
		wbc_capture_frame_unref(f);
		return false;
	}
	f->copy = copy;
	f->frame = (struct wbc_kms_wb_frame){ .data = copy, .stride = w * 4, .format = format,
		.width = w, .height = h, .sequence = ev->sequence,
		.timestamp_ns = ev->timestamp_ns, .signalled_ns = now_ns() /* copy complete */ };
	armed(cap);
	deliver(cap, f);
	return true;
}

/*
 * Lost writeback frames. The KMS backend reports a job lost when its out-fence has not
 * signalled in time, and lets the commits it held back go out. Linux 6.1's VKMS loses
 * jobs: the deferred cleanup of job N-1 (drm_writeback_signal_completion queues it on
 * system_long_wq) calls vkms_set_composer(false), and when that runs after job N's commit
 * already set it true (vkms_wb_atomic_commit), no composer work runs for job N. Userspace
 * sees fence N-1 before that cleanup runs, so a commit armed quickly after it (or a guest
 * vCPU that stalls, as on a loaded TCG host) hits it. From then on every job is completed
 * by the composition of the next one (drm_writeback_signal_completion signals the oldest
 * queued job), so every later fence signals one capture late and is lost as well. So:
 * one loss re-captures what is on screen when due; LOST_LIMIT in a row give writeback up
 * on this output: readback from now on (starting with what is on screen), and once the
 * consumers gave every writeback frame back, the adapter drops the writeback pool.
 */
static void fall_back(struct wbc_capture *cap, const char *why)
{
	cap->stalled = true;
	use_readback(cap);
	cap->inflight = 0;
	wbc_log(WLR_ERROR, "%s: capture: writeback stalled (%u frames in a row lost; the last "
		"because %s; a kernel bug, e.g. Linux 6.1 VKMS): switching to readback",
		cap->output->name, cap->lost_in_row, why);
	struct wlr_buffer *front = wbc_output_front_buffer(cap->output);
	struct wbc_kms_flip_event ev = { .status = WBC_KMS_FLIP_DONE,
		.timestamp_ns = now_ns() };
	cap->stale = !(front && readback(cap, front, &ev));
	wl_event_source_timer_update(cap->drop_timer, 1);
}

/* The adapter's lost: a shown armed commit's writeback job was given up. */
static void writeback_lost(void *data, const char *why)
{
	struct wbc_capture *cap = data;
	if (cap->stalled)
		return;
	if (cap->inflight)
		cap->inflight--;
	cap->lost_in_row++;
	wbc_log(WLR_ERROR, "%s: capture: writeback frame lost (%u in a row): %s",
		cap->output->name, cap->lost_in_row, why);
	if (cap->lost_in_row >= LOST_LIMIT)
		fall_back(cap, why);
	else
		cap->stale = true;       /* what is on screen was not captured */
	reschedule(cap);
}

static bool holds_writeback(const struct wbc_capture *cap)
{
	const struct wbc_capture_frame *f;
	wl_list_for_each(f, &cap->held, link)
		if (f->pipe)
			return true;
	return false;
}

static int handle_drop_timer(void *data)
{
	struct wbc_capture *cap = data;
	if (cap->stalled && !cap->dropped && !holds_writeback(cap)) {
		cap->dropped = true;
		wbc_output_drop_writeback(cap->output);
	}
	reschedule(cap);
	return 0;
}

/* A frame shown without capture: count it for the continuous consumers that were due
 * but busy (the reason it went without). */
static void count_busy_skips(struct wbc_capture *cap)
{
	uint64_t now = now_ns();
	struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link)
		if (c->continuous && now >= due_at(cap, c, c->interval_ns) && is_busy(c))
			c->busy_skips++;
}

/* The adapter's flipped: what is on screen now; readback happens here. */
static void flipped(void *data, struct wlr_buffer *buffer,
		const struct wbc_kms_flip_event *ev, bool internal)
{
	struct wbc_capture *cap = data;
	bool captured = ev->captured;
	if (cap->method == WBC_CAPTURE_READBACK) {
		captured = wants_frame(cap) && readback(cap, buffer, ev);
		if (!captured && !internal)
			count_busy_skips(cap);
	}
	if (captured)
		cap->stale = false;
	else if (!internal)
		cap->stale = true;
	reschedule(cap);
}

/* The adapter's unavailable: writeback cannot be enabled on this output. */
static void writeback_unavailable(void *data, const char *why)
{
	struct wbc_capture *cap = data;
	cap->unavailable = true;
	wbc_log(WLR_ERROR, "%s: writeback capture unavailable: %s", cap->output->name, why);
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link)
		if (c->unavailable)
			c->unavailable(c, why);
}

/* ---- The adapter's capture listener ---------------------------------------------- */

/* Writeback decides at the commit (the frames on their way count against a consumer's
 * room, see is_busy): a commit it does not arm is counted there. */
static bool want_writeback(void *data)
{
	struct wbc_capture *cap = data;
	if (cap->method != WBC_CAPTURE_WRITEBACK)
		return false;
	if (wants_frame(cap))
		return true;
	count_busy_skips(cap);
	return false;
}

static bool want_repeat(void *data)
{
	return wants_repeat(data);
}

static unsigned pool_size(void *data)
{
	return wbc_capture_pool_size(data);
}

static void commit_armed(void *data)
{
	armed(data);
}

static void listen_to_output(struct wbc_capture *cap)
{
	const struct wbc_output_capture_listener listener = {
		.want = want_writeback, .want_repeat = want_repeat, .pool_size = pool_size,
		.armed = commit_armed, .missed = missed, .flipped = flipped,
		.frame = writeback_frame, .lost = writeback_lost,
		.unavailable = writeback_unavailable, .pipe_closing = pipe_closing,
		.pipe_closed = pipe_closed, .data = cap,
	};
	wbc_output_set_capture_listener(cap->output, &listener);
}
