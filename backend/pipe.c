/* Pipes: a connector + CRTC + planes, with one commit in flight and one queued. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>
#include "pipe.h"

static struct wbc_kms_crtc *pick_crtc(struct wbc_kms_device *dev,
		const struct wbc_kms_connector *conn, uint32_t crtc_id)
{
	for (size_t i = 0; i < dev->n_crtcs; i++) {
		struct wbc_kms_crtc *crtc = &dev->crtcs[i];
		if (crtc_id ? crtc->id == crtc_id : (conn->possible_crtcs & (1u << crtc->index)))
			return crtc;
	}
	return NULL;
}

static int pick_plane(struct wbc_kms_pipe *pipe, enum wbc_kms_plane_type type, uint32_t id,
		struct wbc_kms_plane **out)
{
	struct wbc_kms_device *dev = pipe->dev;
	uint32_t mask = 1u << pipe->crtc->index;
	if (id) {
		struct wbc_kms_plane *p = wbc_kms_device_plane(dev, id);
		if (!p)
			return wbc_kms_fail(dev, -ENOENT, "no plane %u on %s", id, dev->path);
		if (!(p->possible_crtcs & mask))
			return wbc_kms_fail(dev, -EINVAL, "plane %u (%s) cannot be used on CRTC %u: "
				"its possible_crtcs are 0x%x", id, wbc_kms_plane_type_name(p->type),
				pipe->crtc->id, p->possible_crtcs);
		*out = p;
		return 0;
	}
	for (size_t i = 0; i < dev->n_planes; i++) {
		struct wbc_kms_plane *p = &dev->planes[i];
		if (p->type == type && (p->possible_crtcs & mask)) {
			*out = p;
			return 0;
		}
	}
	*out = NULL;
	return 0;
}

static const struct wbc_kms_encoder *find_encoder(const struct wbc_kms_device *dev, uint32_t id)
{
	for (size_t i = 0; i < dev->n_encoders; i++)
		if (dev->encoders[i].id == id)
			return &dev->encoders[i];
	return NULL;
}

/* Can some encoder of `a` share a CRTC with some encoder of `b`? */
static bool clonable(const struct wbc_kms_device *dev, const struct wbc_kms_connector *a,
		const struct wbc_kms_connector *b)
{
	for (size_t i = 0; i < a->n_encoders; i++) {
		const struct wbc_kms_encoder *ea = find_encoder(dev, a->encoders[i]);
		for (size_t j = 0; ea && j < b->n_encoders; j++) {
			const struct wbc_kms_encoder *eb = find_encoder(dev, b->encoders[j]);
			if (eb && (ea->possible_clones & (1u << eb->index)) &&
					(eb->possible_clones & (1u << ea->index)))
				return true;
		}
	}
	return false;
}

/* The writeback connector for this pipe: the connector itself for a headless pipe,
 * else one that reaches the CRTC and may be cloned with the display connector. */
static void find_writeback(struct wbc_kms_pipe *pipe)
{
	struct wbc_kms_device *dev = pipe->dev;
	unsigned crtc_index = pipe->crtc->index;
	snprintf(pipe->wb_reason, sizeof(pipe->wb_reason), "%s (driver %s) has no writeback "
		"connector for CRTC %u", dev->path, dev->driver, pipe->crtc->id);
	if (pipe->connector->writeback) {
		pipe->wb_connector = pipe->connector;
		pipe->wb_usable = true;
		return;
	}
	for (size_t i = 0; i < dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &dev->connectors[i];
		if (!c->writeback || !(c->possible_crtcs & (1u << crtc_index)))
			continue;
		pipe->wb_connector = c;
		if (clonable(dev, c, pipe->connector)) {
			pipe->wb_usable = true;
			pipe->wb_route = true;
			return;
		}
		snprintf(pipe->wb_reason, sizeof(pipe->wb_reason), "%s (driver %s) cannot drive "
			"%s and %s from one CRTC (encoder possible_clones); use %s as a headless "
			"output instead", dev->path, dev->driver, pipe->connector->name, c->name,
			c->name);
	}
}

static int set_mode_blob(struct wbc_kms_pipe *pipe, const drmModeModeInfo *mode)
{
	uint32_t blob = 0;
	if (drmModeCreatePropertyBlob(pipe->dev->fd, mode, sizeof(*mode), &blob) != 0)
		return wbc_kms_fail(pipe->dev, -errno, "mode blob: %s", strerror(errno));
	if (pipe->mode_blob)
		drmModeDestroyPropertyBlob(pipe->dev->fd, pipe->mode_blob);
	pipe->mode_blob = blob;
	pipe->mode = *mode;
	return 0;
}

static const drmModeModeInfo *pick_mode(const struct wbc_kms_connector *conn,
		const drmModeModeInfo *want)
{
	if (want)
		return want;
	if (conn->preferred_mode >= 0)
		return &conn->modes[conn->preferred_mode];
	return conn->n_modes ? &conn->modes[0] : NULL;
}

static void free_pipe(struct wbc_kms_pipe *pipe)
{
	if (pipe->mode_blob)
		drmModeDestroyPropertyBlob(pipe->dev->fd, pipe->mode_blob);
	free(pipe);
}

/* A new pipe on a parked pipe's CRTC takes it over at its modeset, so the parked one
 * goes; until that modeset the CRTC may still be lit, which the new pipe now answers for
 * (destroyed before it, it turns the CRTC off). */
static void take_parked(struct wbc_kms_pipe *pipe)
{
	for (struct wbc_kms_pipe **link = &pipe->dev->parked; *link; ) {
		struct wbc_kms_pipe *p = *link;
		if (p->crtc != pipe->crtc) {
			link = &p->parked_next;
			continue;
		}
		*link = p->parked_next;
		free_pipe(p);
		pipe->maybe_lit = true;
	}
}

static int pipe_init(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_options *opts)
{
	struct wbc_kms_device *dev = pipe->dev;
	pipe->connector = wbc_kms_device_connector(dev, opts->connector_id);
	if (!pipe->connector)
		return wbc_kms_fail(dev, -ENOENT, "no connector %u on %s",
			opts->connector_id, dev->path);
	pipe->crtc = pick_crtc(dev, pipe->connector, opts->crtc_id);
	if (!pipe->crtc)
		return wbc_kms_fail(dev, -ENOENT, "no CRTC%s%.0u reachable from connector %s",
			opts->crtc_id ? " " : "", opts->crtc_id, pipe->connector->name);
	const drmModeModeInfo *mode = pick_mode(pipe->connector, opts->mode);
	if (!mode)
		return wbc_kms_fail(dev, -ENOENT, "connector %s has no modes", pipe->connector->name);
	int ret = pick_plane(pipe, WBC_KMS_PLANE_PRIMARY, opts->primary_plane_id, &pipe->primary);
	if (ret == 0 && !pipe->primary)
		ret = wbc_kms_fail(dev, -ENOENT, "no primary plane for CRTC %u", pipe->crtc->id);
	if (ret == 0 && (opts->want_cursor || opts->cursor_plane_id))
		ret = pick_plane(pipe, WBC_KMS_PLANE_CURSOR, opts->cursor_plane_id, &pipe->cursor);
	if (ret == 0 && (opts->want_overlay || opts->overlay_plane_id))
		ret = pick_plane(pipe, WBC_KMS_PLANE_OVERLAY, opts->overlay_plane_id, &pipe->overlay);
	if (ret == 0)
		ret = set_mode_blob(pipe, mode);
	find_writeback(pipe);
	pipe->wb_route = pipe->wb_route && !opts->no_writeback_route;
	pipe->needs_modeset = true;
	return ret;
}

int wbc_kms_pipe_create(struct wbc_kms_device *dev, const struct wbc_kms_pipe_options *opts,
		const struct wbc_kms_pipe_listener *listener, struct wbc_kms_pipe **out)
{
	struct wbc_kms_pipe *pipe = calloc(1, sizeof(*pipe));
	if (!pipe)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	pipe->dev = dev;
	if (listener)
		pipe->listener = *listener;
	int ret = pipe_init(pipe, opts);
	if (ret < 0) {
		if (pipe->mode_blob)
			drmModeDestroyPropertyBlob(dev->fd, pipe->mode_blob);
		free(pipe);
		return ret;
	}
	take_parked(pipe);
	wbc_kms_events_set_pipe(dev, pipe->crtc->index, pipe);
	*out = pipe;
	return 0;
}

static void report(struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev);

/* Let the in-flight commit and capture finish, bounded, so nothing is freed under them. */
void wbc_kms_pipe_drain(struct wbc_kms_pipe *pipe)
{
	for (int i = 0; i < 20 && pipe->flip_pending; i++)
		wbc_kms_device_wait(pipe->dev, 50);
	if (pipe->wb)
		wbc_kms_writeback_drain(pipe->wb, 1000);
}

void wbc_kms_pipe_destroy(struct wbc_kms_pipe *pipe)
{
	if (!pipe)
		return;
	if (pipe->has_queued) {
		struct wbc_kms_flip_event ev = { .status = WBC_KMS_FLIP_SUPERSEDED,
			.user_data = pipe->queued.user_data };
		pipe->has_queued = false;
		pipe->stats.superseded++;
		report(pipe, &ev);
	}
	wbc_kms_pipe_drain(pipe);
	if (pipe->active || pipe->maybe_lit)
		wbc_kms_pipe_disable(pipe);
	wbc_kms_writeback_destroy(pipe->wb);
	pipe->wb = NULL;
	wbc_kms_events_set_pipe(pipe->dev, pipe->crtc->index, NULL);
	if (pipe->maybe_lit) {
		/* Refused (another session has the device): the CRTC shows our last frame
		 * until someone turns it off. Kept, without its caller, to try again. */
		pipe->listener = (struct wbc_kms_pipe_listener){ 0 };
		pipe->parked_next = pipe->dev->parked;
		pipe->dev->parked = pipe;
		return;
	}
	free_pipe(pipe);
}

void wbc_kms_pipe_retry_parked(struct wbc_kms_device *dev)
{
	struct wbc_kms_pipe **link = &dev->parked;
	while (*link) {
		struct wbc_kms_pipe *p = *link;
		wbc_kms_pipe_disable(p);
		if (p->maybe_lit) {
			link = &p->parked_next;
			continue;
		}
		*link = p->parked_next;
		free_pipe(p);
	}
}

void wbc_kms_pipe_free_parked(struct wbc_kms_device *dev)
{
	while (dev->parked) {
		struct wbc_kms_pipe *p = dev->parked;
		dev->parked = p->parked_next;
		free_pipe(p);
	}
}


bool wbc_kms_pipe_busy(const struct wbc_kms_pipe *pipe)
{
	return pipe->flip_pending || (pipe->wb && wbc_kms_writeback_blocks_commit(pipe->wb));
}

static void report(struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev)
{
	if (pipe->listener.flip)
		pipe->listener.flip(pipe->listener.data, pipe, ev);
}

int wbc_kms_pipe_test(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state)
{
	return wbc_kms_pipe_submit(pipe, state, true);
}

int wbc_kms_pipe_commit(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state)
{
	int ret = wbc_kms_pipe_submit(pipe, state, true);
	if (ret < 0)
		return ret;
	if (!wbc_kms_pipe_busy(pipe))
		return wbc_kms_pipe_submit(pipe, state, false);
	if (pipe->has_queued) {
		struct wbc_kms_flip_event ev = { .status = WBC_KMS_FLIP_SUPERSEDED,
			.user_data = pipe->queued.user_data };
		pipe->stats.superseded++;
		report(pipe, &ev);
	}
	pipe->queued = *state;
	pipe->has_queued = true;
	if (pipe->wb)
		wbc_kms_writeback_pace(pipe->wb);
	return 0;
}

/* Send the queued state if the pipe became free. Called after flips, fences and
 * writeback's timer. */
void wbc_kms_pipe_kick(struct wbc_kms_pipe *pipe)
{
	if (pipe->wb)
		wbc_kms_writeback_pace(pipe->wb);
	if (!pipe->has_queued || wbc_kms_pipe_busy(pipe))
		return;
	struct wbc_kms_pipe_state state = pipe->queued;
	pipe->has_queued = false;
	int ret = wbc_kms_pipe_submit(pipe, &state, false);
	if (pipe->wb)
		wbc_kms_writeback_pace(pipe->wb);
	if (ret < 0) {
		struct wbc_kms_flip_event ev = { .status = WBC_KMS_FLIP_FAILED, .error = ret,
			.user_data = state.user_data };
		report(pipe, &ev);
	}
}

static uint64_t extend_seq(uint64_t near, unsigned seq32)
{
	uint64_t seq = (near & ~(uint64_t)0xffffffffu) | seq32;
	if (seq + 0x80000000u < near)
		seq += (uint64_t)1 << 32;
	return seq;
}

/* Vblanks between the commit and the flip that showed it, beyond the first. Bounded by
 * the time that passed: the kernel can re-base a CRTC's vblank counter while its
 * interrupt is off, and a flip then appears to come billions of vblanks late
 * (bench/results/vkms-20261205-205758.json: 1900060704 in one 30 s run on VKMS). */
static uint64_t missed_vblanks(const struct wbc_kms_pipe *pipe, uint64_t seq, uint64_t ts_ns)
{
	uint64_t gap = seq - pipe->submit_seq - 1;
	uint64_t frame_ns = wbc_kms_pipe_refresh_ns(pipe);
	if (!frame_ns || ts_ns < pipe->submit_ns)
		return gap;
	uint64_t bound = (ts_ns - pipe->submit_ns) / frame_ns + 1;
	return gap < bound ? gap : bound;
}

void wbc_kms_pipe_handle_flip(struct wbc_kms_pipe *pipe, unsigned seq32, uint64_t ts_ns)
{
	if (!pipe->flip_pending)
		return;
	uint64_t seq = extend_seq(pipe->submit_seq, seq32);
	pipe->flip_pending = false;
	pipe->stats.flips++;
	if (pipe->submit_seq && seq > pipe->submit_seq + 1)
		pipe->stats.missed_vblanks += missed_vblanks(pipe, seq, ts_ns);
	/* A page can only be shown after it was committed: an earlier time is a stale
	 * vblank timestamp (see timestamp_estimated in kms.h). */
	bool estimated = ts_ns < pipe->submit_ns;
	if (estimated) {
		ts_ns = wbc_kms_now_ns();
		pipe->stats.estimated_timestamps++;
	}
	struct wbc_kms_flip_event ev = {
		.status = WBC_KMS_FLIP_DONE, .sequence = seq, .timestamp_ns = ts_ns,
		.timestamp_estimated = estimated,
		.user_data = pipe->flip_user_data, .captured = pipe->flip_job != NULL,
	};
	pipe->flip_ns = ts_ns;
	struct wbc_kms_wb_buffer *job = pipe->flip_job;
	pipe->flip_job = NULL;
	report(pipe, &ev);
	if (job)
		wbc_kms_writeback_flipped(pipe->wb, job, seq, ts_ns);
	wbc_kms_pipe_kick(pipe);
}

void wbc_kms_pipe_deliver_frame(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *frame)
{
	if (pipe->listener.frame)
		pipe->listener.frame(pipe->listener.data, pipe, frame);
	else
		wbc_kms_pipe_release_frame(pipe, frame->buffer);
}

void wbc_kms_pipe_report_lost(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_lost *lost)
{
	if (pipe->listener.frame_lost)
		pipe->listener.frame_lost(pipe->listener.data, pipe, lost);
}

int wbc_kms_pipe_set_mode(struct wbc_kms_pipe *pipe, const drmModeModeInfo *mode,
		const struct wbc_kms_pipe_state *state)
{
	wbc_kms_pipe_drain(pipe);
	if (pipe->flip_pending)
		return wbc_kms_fail(pipe->dev, -EBUSY, "a commit is still in flight");
	drmModeModeInfo old = pipe->mode;
	int ret = set_mode_blob(pipe, mode);
	if (ret == 0 && pipe->wb)
		ret = wbc_kms_writeback_resize(pipe->wb, mode->hdisplay, mode->vdisplay);
	if (ret == 0) {
		pipe->needs_modeset = true;
		ret = wbc_kms_pipe_commit(pipe, state);
	}
	if (ret < 0) {
		char msg[WBC_KMS_ERROR_MAX];
		memcpy(msg, pipe->dev->error, sizeof(msg));
		set_mode_blob(pipe, &old);
		if (pipe->wb)
			wbc_kms_writeback_resize(pipe->wb, old.hdisplay, old.vdisplay);
		pipe->needs_modeset = false;
		memcpy(pipe->dev->error, msg, sizeof(msg));
	}
	return ret;
}

const drmModeModeInfo *wbc_kms_pipe_mode(const struct wbc_kms_pipe *pipe)
{
	return &pipe->mode;
}

struct wbc_kms_crtc *wbc_kms_pipe_crtc(const struct wbc_kms_pipe *pipe)
{
	return pipe->crtc;
}

struct wbc_kms_connector *wbc_kms_pipe_connector(const struct wbc_kms_pipe *pipe)
{
	return pipe->connector;
}

struct wbc_kms_plane *wbc_kms_pipe_plane(const struct wbc_kms_pipe *pipe,
		enum wbc_kms_plane_type type)
{
	switch (type) {
	case WBC_KMS_PLANE_PRIMARY: return pipe->primary;
	case WBC_KMS_PLANE_CURSOR: return pipe->cursor;
	case WBC_KMS_PLANE_OVERLAY: return pipe->overlay;
	}
	return NULL;
}

uint64_t wbc_kms_pipe_refresh_ns(const struct wbc_kms_pipe *pipe)
{
	const drmModeModeInfo *m = &pipe->mode;
	if (!m->clock || !m->htotal || !m->vtotal)
		return 0;
	/* clock is in kHz: period = htotal * vtotal / (clock * 1000) seconds. */
	return (uint64_t)m->htotal * m->vtotal * 1000000u / m->clock;
}

void wbc_kms_pipe_get_stats(const struct wbc_kms_pipe *pipe, struct wbc_kms_pipe_stats *out)
{
	*out = pipe->stats;
	if (pipe->wb)
		wbc_kms_writeback_count(pipe->wb, out);
}

struct wbc_kms_device *wbc_kms_pipe_device(const struct wbc_kms_pipe *pipe)
{
	return pipe->dev;
}
