/*
 * Writeback: a pool of dumb buffers the CRTC's composed output is written into, armed one
 * commit at a time (WRITEBACK_FB_ID + WRITEBACK_OUT_FENCE_PTR are one-shot), with the
 * out-fence polled in the device's event loop. A frame reaches the consumer once both its
 * fence has signalled and its commit's flip event (which carries the sequence) arrived.
 * A fence still unsignalled fence_timeout_ms after the flip is given up (a timerfd in the
 * same event loop): the job is reported lost and its buffer kept out of use until the
 * fence signals after all. The same timer ends WBC_KMS_WB_DEADLINE's wait for a fence.
 *
 * A driver that lost one job may complete later fences for the wrong job (Linux VKMS
 * signals the oldest queued job whatever its composition wrote): each armed buffer is
 * stamped with a marker at its first and last pixels, and a buffer whose fence signalled
 * with both stamps intact was not written by the engine. It is reported lost, never
 * delivered, and kept out of use for good (the engine may yet write it).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "pipe.h"

#define WBC_KMS_WB_MAX_BUFFERS 16

enum wb_state {
	WB_FREE,        /* may be armed */
	WB_ARMED,       /* in a commit: fence and/or flip outstanding */
	WB_HELD,        /* with the consumer until wbc_kms_pipe_release_frame */
	WB_LOST,        /* given up on; the engine may still write it: unused until its fence
	                   signals (then FREE) or the pool goes */
	WB_UNWRITTEN,   /* its fence signalled but the engine had not written it: its own job
	                   may still be pending, so unused until the pool goes */
};

/* 8 bytes no engine writes by chance at both ends of a frame: as XRGB8888 two pixels
 * whose X bytes (0xa5, 0x96) are neither 0x00 nor 0xff. */
static const uint8_t stamp[8] = { 0x77, 0x62, 0x63, 0xa5, 0x5a, 0xc3, 0x3c, 0x96 };

/* One pool slot; the buffer is owned by the pool. */
struct wbc_kms_wb_buffer {
	struct wbc_kms_writeback *wb;
	struct wbc_kms_buffer *buf;
	enum wb_state state;
	int fence_fd;                    /* sync_file from the kernel, -1 when none */
	bool fence_polled, signalled, flipped;
	bool unfenced;                   /* no fence came back: complete at the flip, unchecked */
	uint64_t deadline_ns;            /* shown, fence outstanding: lost at this time; 0: none */
	uint64_t seq, ts_ns;
	uint64_t signalled_ns;           /* when the fence signalled, 0: unknown */
	void *user_data;
	struct wbc_kms_event_source src;
};

/* Owned by its pipe. */
struct wbc_kms_writeback {
	struct wbc_kms_pipe *pipe;
	uint32_t format, width, height;
	enum wbc_kms_wb_pacing pacing;
	unsigned n_buffers;
	struct wbc_kms_wb_buffer slots[WBC_KMS_WB_MAX_BUFFERS];
	unsigned fences_outstanding;     /* armed jobs whose fence has not signalled (not lost) */
	uint64_t armed, done, skipped, lost, late;
	int test_fence_fd;               /* target of OUT_FENCE_PTR in TEST_ONLY requests */
	int fence_timeout_ms;            /* < 0: wait for ever */
	uint64_t pace_deadline_ns;       /* WBC_KMS_WB_DEADLINE: the queued state stops waiting
	                                    for the fence at this time; 0: none set */
	struct wbc_kms_event_source timer; /* timerfd at the earliest deadline; fd -1: none */
	int (*debug_fence)(void *data, int fence_fd);
	void *debug_fence_data;
};

static int timer_create_source(struct wbc_kms_writeback *wb);

void wbc_kms_writeback_options_init(struct wbc_kms_writeback_options *opts)
{
	*opts = (struct wbc_kms_writeback_options){ .n_buffers = 3, .pacing = WBC_KMS_WB_WAIT };
}

bool wbc_kms_writeback_supported(const struct wbc_kms_pipe *pipe)
{
	return pipe->wb_usable;
}

const char *wbc_kms_pipe_writeback_unsupported_reason(const struct wbc_kms_pipe *pipe)
{
	return pipe->wb_usable ? NULL : pipe->wb_reason;
}

struct wbc_kms_connector *wbc_kms_pipe_writeback_connector(const struct wbc_kms_pipe *pipe)
{
	return pipe->wb_connector;
}

bool wbc_kms_pipe_writeback_routed(const struct wbc_kms_pipe *pipe)
{
	return pipe->wb_usable && !pipe->wb_route_per_capture;
}

static bool format_listed(const struct wbc_kms_connector *c, uint32_t format)
{
	for (size_t i = 0; i < c->n_writeback_formats; i++)
		if (c->writeback_formats[i] == format)
			return true;
	return false;
}

static void list_formats(const struct wbc_kms_connector *c, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < c->n_writeback_formats && used < len; i++) {
		char *name = drmGetFormatName(c->writeback_formats[i]);
		int n = snprintf(out + used, len - used, "%s%s", i ? " " : "", name ? name : "?");
		free(name);
		used += n > 0 ? (size_t)n : 0;
	}
}

int wbc_kms_pipe_check_writeback(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_request *r)
{
	struct wbc_kms_device *dev = pipe->dev;
	struct wbc_kms_connector *c = pipe->wb_connector;
	if (!pipe->wb_usable)
		return wbc_kms_fail(dev, -ENOTSUP, "%s", pipe->wb_reason);
	if (r->out_fence && !r->fb)
		return wbc_kms_fail(dev, -EINVAL, "writeback out-fence requested without a "
			"framebuffer on %s", c->name);
	if (!r->fb)
		return 0;
	if (!r->crtc_active)
		return wbc_kms_fail(dev, -EINVAL, "writeback requested on CRTC %u, which is off",
			pipe->crtc->id);
	if (!format_listed(c, r->fb->format)) {
		char have[128], *name = drmGetFormatName(r->fb->format);
		list_formats(c, have, sizeof(have));
		wbc_kms_fail(dev, -EINVAL, "writeback format %s is not in %s's "
			"WRITEBACK_PIXEL_FORMATS (%s)", name ? name : "?", c->name, have);
		free(name);
		return -EINVAL;
	}
	if (r->fb->width != pipe->mode.hdisplay || r->fb->height != pipe->mode.vdisplay)
		return wbc_kms_fail(dev, -EINVAL, "writeback framebuffer %ux%u does not match the "
			"mode %ux%u", r->fb->width, r->fb->height, pipe->mode.hdisplay,
			pipe->mode.vdisplay);
	return 0;
}

/* A lost buffer may still be the target of a writeback job in the kernel: freeing it is
 * still safe, because the job holds its own references on the framebuffer and its memory
 * (drm_writeback_job, the driver's prepare_writeback_job) until it is cleaned up. */
static void free_slots(struct wbc_kms_writeback *wb)
{
	for (unsigned i = 0; i < wb->n_buffers; i++) {
		struct wbc_kms_wb_buffer *b = &wb->slots[i];
		if (b->fence_polled)
			wbc_kms_events_remove(wb->pipe->dev, &b->src);
		if (b->fence_fd >= 0)
			close(b->fence_fd);
		wbc_kms_buffer_destroy(wb->pipe->dev, b->buf);
		*b = (struct wbc_kms_wb_buffer){ .fence_fd = -1 };
	}
}

static int alloc_slots(struct wbc_kms_writeback *wb)
{
	for (unsigned i = 0; i < wb->n_buffers; i++) {
		struct wbc_kms_wb_buffer *b = &wb->slots[i];
		*b = (struct wbc_kms_wb_buffer){ .wb = wb, .fence_fd = -1 };
		int ret = wbc_kms_buffer_create(wb->pipe->dev, wb->width, wb->height, wb->format,
			&b->buf);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int wbc_kms_pipe_enable_writeback(struct wbc_kms_pipe *pipe,
		const struct wbc_kms_writeback_options *opts)
{
	struct wbc_kms_device *dev = pipe->dev;
	struct wbc_kms_writeback_options defaults;
	wbc_kms_writeback_options_init(&defaults);
	if (!opts)
		opts = &defaults;
	if (pipe->wb)
		return wbc_kms_fail(dev, -EBUSY, "writeback is already enabled on CRTC %u",
			pipe->crtc->id);
	if (!pipe->wb_usable)
		return wbc_kms_fail(dev, -ENOTSUP, "%s", pipe->wb_reason);
	uint32_t format = opts->format;
	if (!format)
		format = format_listed(pipe->wb_connector, DRM_FORMAT_XRGB8888) ?
			DRM_FORMAT_XRGB8888 : pipe->wb_connector->writeback_formats[0];
	unsigned n = opts->n_buffers ? opts->n_buffers : 3;
	if (n > WBC_KMS_WB_MAX_BUFFERS)
		return wbc_kms_fail(dev, -EINVAL, "at most %d writeback buffers", WBC_KMS_WB_MAX_BUFFERS);
	struct wbc_kms_fb probe = {
		.width = opts->width ? opts->width : pipe->mode.hdisplay,
		.height = opts->height ? opts->height : pipe->mode.vdisplay, .format = format,
	};
	struct wbc_kms_wb_request req = { .fb = &probe, .out_fence = true, .crtc_active = true };
	int ret = wbc_kms_pipe_check_writeback(pipe, &req);
	if (ret < 0)
		return ret;
	struct wbc_kms_writeback *wb = calloc(1, sizeof(*wb));
	if (!wb)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	*wb = (struct wbc_kms_writeback){ .pipe = pipe, .format = format, .width = probe.width,
		.height = probe.height, .pacing = opts->pacing, .n_buffers = n,
		.test_fence_fd = -1, .timer.fd = -1,
		.fence_timeout_ms = opts->fence_timeout_ms ? opts->fence_timeout_ms :
			WBC_KMS_WB_FENCE_TIMEOUT_MS,
		.debug_fence = opts->debug_fence, .debug_fence_data = opts->debug_fence_data };
	ret = alloc_slots(wb);
	if (ret == 0 && (wb->fence_timeout_ms > 0 || wb->pacing == WBC_KMS_WB_DEADLINE))
		ret = timer_create_source(wb);
	if (ret < 0) {
		free_slots(wb);
		free(wb);
		return ret;
	}
	pipe->wb = wb;
	return 0;
}

void wbc_kms_pipe_disable_writeback(struct wbc_kms_pipe *pipe)
{
	/* The commit in flight may point at a pool buffer: let it land first, and if it
	 * does not within the bound, forget its job so the flip never touches the pool.
	 * A queued state goes out without capture (reported with captured = false). */
	wbc_kms_pipe_drain(pipe);
	pipe->flip_job = NULL;
	pipe->queued.capture = false;
	wbc_kms_writeback_destroy(pipe->wb);
	pipe->wb = NULL;
	wbc_kms_pipe_kick(pipe);
}

void wbc_kms_writeback_destroy(struct wbc_kms_writeback *wb)
{
	if (!wb)
		return;
	wbc_kms_writeback_drain(wb, 1000);
	free_slots(wb);
	if (wb->timer.fd >= 0) {
		wbc_kms_events_remove(wb->pipe->dev, &wb->timer);
		close(wb->timer.fd);
	}
	free(wb);
}

uint32_t wbc_kms_pipe_writeback_format(const struct wbc_kms_pipe *pipe)
{
	return pipe->wb ? pipe->wb->format : 0;
}

/*
 * Routing. The writeback connector is routed to the CRTC in the modeset and left there:
 * changing a connector's CRTC marks the CRTC connectors_changed, a full modeset. Kernels
 * since the writeback uAPI landed accept a routed connector with no framebuffer; for one
 * that does not (wb_route_per_capture, found by the first modeset's TEST_ONLY), each
 * capture commit routes it and the next commit unroutes it, both with ALLOW_MODESET.
 */
int wbc_kms_writeback_add_route(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req,
		bool modeset, bool capturing)
{
	struct wbc_kms_connector *c = pipe->wb_connector;
	if (!c || !pipe->wb_route)
		return 0;
	uint32_t crtc = pipe->crtc->id;
	if (pipe->wb_route_per_capture)
		crtc = capturing ? crtc : 0;
	else if (!modeset)
		return 0;
	return wbc_kms_atomic_add(pipe->dev, req, c->id, c->props.crtc_id, crtc, "CRTC_ID");
}

int wbc_kms_writeback_route_refused(struct wbc_kms_pipe *pipe)
{
	if (!pipe->wb_route || pipe->wb_route_per_capture)
		return 0;
	pipe->wb_route_per_capture = true;
	return 1;
}

/* Where the stamps go: the first 8 bytes of the frame and the last 8 of its last row. */
static uint8_t *stamp_at(const struct wbc_kms_wb_buffer *b, int end)
{
	const struct wbc_kms_buffer *buf = b->buf;
	size_t row = (size_t)buf->fb.width * wbc_kms_format_cpp(buf->fb.format);
	if (row < sizeof(stamp))
		return NULL;
	uint8_t *p = buf->map;
	return end ? p + (size_t)(buf->fb.height - 1) * buf->stride + row - sizeof(stamp) : p;
}

static void stamp_buffer(struct wbc_kms_wb_buffer *b)
{
	for (int end = 0; end < 2; end++) {
		uint8_t *p = stamp_at(b, end);
		if (p)
			memcpy(p, stamp, sizeof(stamp));
	}
}

static bool unwritten(const struct wbc_kms_wb_buffer *b)
{
	for (int end = 0; end < 2; end++) {
		const uint8_t *p = stamp_at(b, end);
		if (!p || memcmp(p, stamp, sizeof(stamp)) != 0)
			return false;
	}
	return true;
}

static int free_index(const struct wbc_kms_writeback *wb)
{
	for (unsigned i = 0; i < wb->n_buffers; i++)
		if (wb->slots[i].state == WB_FREE)
			return (int)i;
	return -1;
}

static struct wbc_kms_wb_buffer *free_slot(struct wbc_kms_writeback *wb)
{
	int i = free_index(wb);
	return i < 0 ? NULL : &wb->slots[i];
}

static bool in_flight(const struct wbc_kms_writeback *wb)
{
	return (wb->pacing == WBC_KMS_WB_SKIP || wb->pacing == WBC_KMS_WB_DEADLINE) &&
		wb->fences_outstanding > 0;
}

enum wbc_kms_capture_ready wbc_kms_pipe_capture_ready(const struct wbc_kms_pipe *pipe)
{
	struct wbc_kms_writeback *wb = pipe->wb;
	if (!wb)
		return WBC_KMS_CAPTURE_NO_WRITEBACK;
	if (in_flight(wb))
		return WBC_KMS_CAPTURE_IN_FLIGHT;
	return free_index(wb) < 0 ? WBC_KMS_CAPTURE_NO_BUFFER : WBC_KMS_CAPTURE_READY;
}

int wbc_kms_writeback_arm(struct wbc_kms_writeback *wb, drmModeAtomicReq *req, bool test_only,
		void *user_data, struct wbc_kms_wb_buffer **job)
{
	struct wbc_kms_pipe *pipe = wb->pipe;
	struct wbc_kms_connector *c = pipe->wb_connector;
	struct wbc_kms_wb_buffer *b = in_flight(wb) ? NULL : free_slot(wb);
	*job = NULL;
	if (!b) {
		/* The display never waits for capture: this commit goes out without it. */
		wb->skipped += !test_only;
		return 0;
	}
	struct wbc_kms_wb_request check = { .fb = &b->buf->fb, .out_fence = true,
		.crtc_active = true };
	int ret = wbc_kms_pipe_check_writeback(pipe, &check);
	int *fence = test_only ? &wb->test_fence_fd : &b->fence_fd;
	*fence = -1;
	ret = ret ? ret : wbc_kms_atomic_add(pipe->dev, req, c->id, c->props.writeback_fb_id,
		b->buf->fb.id, "WRITEBACK_FB_ID");
	ret = ret ? ret : wbc_kms_atomic_add(pipe->dev, req, c->id,
		c->props.writeback_out_fence_ptr, (uint64_t)(uintptr_t)fence,
		"WRITEBACK_OUT_FENCE_PTR");
	if (ret < 0 || test_only)
		return ret;
	stamp_buffer(b);
	b->state = WB_ARMED;
	b->signalled = b->flipped = b->unfenced = false;
	b->user_data = user_data;
	*job = b;
	return 0;
}

static void report_lost(struct wbc_kms_wb_buffer *b, const char *reason)
{
	struct wbc_kms_wb_lost ev = { .sequence = b->seq, .timestamp_ns = b->ts_ns,
		.user_data = b->user_data, .timeout_ms = b->wb->fence_timeout_ms, .reason = reason };
	b->wb->lost++;
	wbc_kms_pipe_report_lost(b->wb->pipe, &ev);
}

static void maybe_deliver(struct wbc_kms_wb_buffer *b)
{
	if (b->state != WB_ARMED || !b->signalled || !b->flipped)
		return;
	struct wbc_kms_writeback *wb = b->wb;
	if (!b->unfenced && unwritten(b)) {
		b->state = WB_UNWRITTEN;
		char reason[200];
		snprintf(reason, sizeof(reason), "the writeback out-fence of %s signalled, but the "
			"engine had not written its buffer (vblank %llu): the driver completed "
			"another job's fence", wb->pipe->wb_connector->name,
			(unsigned long long)b->seq);
		report_lost(b, reason);
		return;
	}
	b->state = WB_HELD;
	wb->done++;
	struct wbc_kms_wb_frame frame = {
		.buffer = b, .data = b->buf->map, .stride = b->buf->stride, .format = wb->format,
		.width = wb->width, .height = wb->height, .sequence = b->seq,
		.timestamp_ns = b->ts_ns, .signalled_ns = b->signalled_ns,
		.user_data = b->user_data,
	};
	wbc_kms_pipe_deliver_frame(wb->pipe, &frame);
}

static void close_fence(struct wbc_kms_wb_buffer *b)
{
	if (b->fence_polled)
		wbc_kms_events_remove(b->wb->pipe->dev, &b->src);
	b->fence_polled = false;
	b->signalled_ns = 0;
	if (b->fence_fd >= 0) {
		if (wbc_kms_sync_file_signal_time(b->fence_fd, &b->signalled_ns) < 0)
			b->signalled_ns = 0;
		close(b->fence_fd);
	}
	b->fence_fd = -1;
}

static void fence_signalled(struct wbc_kms_wb_buffer *b)
{
	close_fence(b);
	b->signalled = true;
	b->deadline_ns = 0;
	b->wb->fences_outstanding--;
}

static void handle_fence(struct wbc_kms_event_source *src, uint32_t events)
{
	struct wbc_kms_wb_buffer *b = src->data;
	struct wbc_kms_pipe *pipe = b->wb->pipe;
	if (b->state == WB_LOST) {
		/* Complete after all: nothing writes into it any more. Its content belongs to
		 * a frame already reported lost, so it goes back to the pool unseen. */
		close_fence(b);
		b->state = WB_FREE;
		b->wb->late++;
		wbc_kms_pipe_kick(pipe);
		return;
	}
	fence_signalled(b);
	maybe_deliver(b);
	wbc_kms_pipe_kick(pipe);
}

/* ---- Fence timeout ----------------------------------------------------------------- */

/* Arm the timer for the earliest deadline: of a shown job still waiting for its fence, or
 * of the queued state's wait (WBC_KMS_WB_DEADLINE). */
static void timer_update(struct wbc_kms_writeback *wb)
{
	if (wb->timer.fd < 0)
		return;
	uint64_t next = wb->pace_deadline_ns;
	for (unsigned i = 0; i < wb->n_buffers; i++) {
		const struct wbc_kms_wb_buffer *b = &wb->slots[i];
		if (b->state == WB_ARMED && b->deadline_ns && (!next || b->deadline_ns < next))
			next = b->deadline_ns;
	}
	struct itimerspec its = { .it_value = {
		.tv_sec = (time_t)(next / 1000000000u), .tv_nsec = (long)(next % 1000000000u) } };
	timerfd_settime(wb->timer.fd, TFD_TIMER_ABSTIME, &its, NULL);   /* 0: disarm */
}

static void lose(struct wbc_kms_wb_buffer *b)
{
	struct wbc_kms_writeback *wb = b->wb;
	struct wbc_kms_pipe *pipe = wb->pipe;
	b->state = WB_LOST;                  /* its fence stays polled: see handle_fence */
	b->deadline_ns = 0;
	wb->fences_outstanding--;
	char reason[160];
	snprintf(reason, sizeof(reason), "the writeback out-fence of %s had not signalled %d ms "
		"after its commit was shown (vblank %llu)", pipe->wb_connector->name,
		wb->fence_timeout_ms, (unsigned long long)b->seq);
	report_lost(b, reason);
}

static void handle_timer(struct wbc_kms_event_source *src, uint32_t events)
{
	struct wbc_kms_writeback *wb = src->data;
	uint64_t expirations;
	if (read(wb->timer.fd, &expirations, sizeof(expirations)) < 0)
		expirations = 0;             /* EAGAIN: re-armed meanwhile; look anyway */
	uint64_t now = wbc_kms_now_ns();
	for (unsigned i = 0; i < wb->n_buffers; i++) {
		struct wbc_kms_wb_buffer *b = &wb->slots[i];
		if (b->state == WB_ARMED && b->deadline_ns && b->deadline_ns <= now)
			lose(b);
	}
	timer_update(wb);
	wbc_kms_pipe_kick(wb->pipe);
}

static int timer_create_source(struct wbc_kms_writeback *wb)
{
	struct wbc_kms_device *dev = wb->pipe->dev;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return wbc_kms_fail(dev, -errno, "timerfd_create: %s", strerror(errno));
	wb->timer = (struct wbc_kms_event_source){ .fd = fd, .handle = handle_timer, .data = wb };
	int ret = wbc_kms_events_add(dev, &wb->timer);
	if (ret < 0) {
		close(fd);
		wb->timer.fd = -1;
	}
	return ret;
}

/* ---- Commits ---------------------------------------------------------------------- */

void wbc_kms_writeback_committed(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *b)
{
	wb->armed++;
	wb->fences_outstanding++;
	b->signalled_ns = 0;
	if (wb->debug_fence)
		b->fence_fd = wb->debug_fence(wb->debug_fence_data, b->fence_fd);
	if (b->fence_fd < 0) {
		/* No fence came back: treat the write as complete at the flip. */
		b->signalled = b->unfenced = true;
		wb->fences_outstanding--;
		return;
	}
	b->src = (struct wbc_kms_event_source){ .fd = b->fence_fd, .handle = handle_fence,
		.data = b };
	if (wbc_kms_events_add(wb->pipe->dev, &b->src) == 0) {
		b->fence_polled = true;
		return;
	}
	/* Cannot poll it: wait for it here rather than lose the frame. */
	struct pollfd p = { .fd = b->fence_fd, .events = POLLIN };
	poll(&p, 1, 1000);
	fence_signalled(b);
}

void wbc_kms_writeback_commit_failed(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *b)
{
	if (b->fence_fd >= 0)
		close(b->fence_fd);
	b->fence_fd = -1;
	b->state = WB_FREE;
}

void wbc_kms_writeback_flipped(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *b,
		uint64_t seq, uint64_t ts_ns)
{
	b->seq = seq;
	b->ts_ns = ts_ns;
	b->flipped = true;
	if (!b->signalled && wb->fence_timeout_ms > 0) {
		/* From now: the write cannot start before the commit is on screen. */
		b->deadline_ns = wbc_kms_now_ns() + (uint64_t)wb->fence_timeout_ms * 1000000u;
		timer_update(wb);
	}
	maybe_deliver(b);
}

bool wbc_kms_writeback_blocks_commit(const struct wbc_kms_writeback *wb)
{
	if (wb->fences_outstanding == 0)
		return false;
	if (wb->pacing == WBC_KMS_WB_DEADLINE)
		return !wb->pace_deadline_ns || wbc_kms_now_ns() < wb->pace_deadline_ns;
	return wb->pacing == WBC_KMS_WB_WAIT;
}

/* A quarter of a period before the first vblank after now, counted from the last flip,
 * but not before now; 0 without a period or a flip. The quarter (4 ms at 60 Hz) is left
 * for the commit to reach the driver before that vblank: the frame is composed already. */
static uint64_t pace_deadline(const struct wbc_kms_pipe *pipe, uint64_t now)
{
	uint64_t period = wbc_kms_pipe_refresh_ns(pipe), base = pipe->flip_ns;
	if (!period || !base)
		return 0;
	uint64_t vblank = base + period * ((now > base ? (now - base) / period : 0) + 1);
	uint64_t deadline = vblank - period / 4;
	return deadline > now ? deadline : now;
}

void wbc_kms_writeback_pace(struct wbc_kms_writeback *wb)
{
	const struct wbc_kms_pipe *pipe = wb->pipe;
	if (wb->pacing != WBC_KMS_WB_DEADLINE)
		return;
	bool waiting = pipe->has_queued && !pipe->flip_pending && wb->fences_outstanding > 0;
	uint64_t deadline = wb->pace_deadline_ns;
	if (!waiting)
		deadline = 0;
	else if (!deadline)
		deadline = pace_deadline(pipe, wbc_kms_now_ns());
	if (deadline == wb->pace_deadline_ns)
		return;
	wb->pace_deadline_ns = deadline;
	timer_update(wb);
}

void wbc_kms_writeback_drain(struct wbc_kms_writeback *wb, int timeout_ms)
{
	uint64_t end = wbc_kms_now_ns() + (uint64_t)timeout_ms * 1000000u;
	while (wb->fences_outstanding > 0 && wbc_kms_now_ns() < end)
		wbc_kms_device_wait(wb->pipe->dev, 20);
}

int wbc_kms_writeback_resize(struct wbc_kms_writeback *wb, uint32_t width, uint32_t height)
{
	/* Lost buffers may go (see free_slots); armed and lent ones may not. */
	for (unsigned i = 0; i < wb->n_buffers; i++)
		if (wb->slots[i].state == WB_ARMED || wb->slots[i].state == WB_HELD)
			return wbc_kms_fail(wb->pipe->dev, -EBUSY, "writeback buffer %u is still in use",
				i);
	free_slots(wb);
	wb->width = width;
	wb->height = height;
	int ret = alloc_slots(wb);
	if (ret < 0)
		free_slots(wb);
	return ret;
}

void wbc_kms_writeback_count(const struct wbc_kms_writeback *wb, struct wbc_kms_pipe_stats *out)
{
	out->captures_armed = wb->armed;
	out->captures_done = wb->done;
	out->captures_skipped = wb->skipped;
	out->captures_lost = wb->lost;
	out->captures_late = wb->late;
}

void wbc_kms_pipe_release_frame(struct wbc_kms_pipe *pipe, struct wbc_kms_wb_buffer *b)
{
	if (b && b->state == WB_HELD)
		b->state = WB_FREE;
	if (pipe)
		wbc_kms_pipe_kick(pipe);
}
