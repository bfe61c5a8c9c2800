/*
 * The adapter's wlr_output: wlroots output commits to wbc_kms_pipe calls.
 *
 *   commit with a buffer  -> wbc_fb_get(buffer) (dma-buf import, cached) ->
 *                            wbc_kms_pipe_commit(pipe, {primary fb, capture?})
 *   ... with a new mode   -> wbc_kms_pipe_set_mode(pipe, mode, state)
 *   enable                -> wbc_kms_pipe_create (then the commit above is the modeset)
 *   disable               -> wbc_kms_pipe_destroy (turns the CRTC off)
 * The pipe's flip events come back through flip.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <wlr/types/wlr_buffer.h>
#include "adapter-private.h"
#include "util/log.h"

static const struct wlr_output_impl output_impl;

struct wbc_output *wbc_output_from(struct wlr_output *wo)
{
	return wl_container_of(wo, (struct wbc_output *)NULL, base);
}

bool wbc_output_is_adapter(struct wlr_output *output)
{
	return output->impl == &output_impl;
}

struct wbc_kms_pipe *wbc_output_pipe(struct wlr_output *output)
{
	return wbc_output_is_adapter(output) ? wbc_output_from(output)->pipe : NULL;
}

void wbc_output_set_capture_listener(struct wlr_output *output,
		const struct wbc_output_capture_listener *listener)
{
	if (!wbc_output_is_adapter(output))
		return;
	struct wbc_output *out = wbc_output_from(output);
	out->has_capture = listener != NULL;
	out->capture = listener ? *listener : (struct wbc_output_capture_listener){ 0 };
}

static int32_t mode_refresh_mhz(const drmModeModeInfo *m)
{
	if (!m->htotal || !m->vtotal)
		return 0;
	int64_t mhz = ((int64_t)m->clock * 1000000 / m->htotal + m->vtotal / 2) / m->vtotal;
	if (m->flags & DRM_MODE_FLAG_INTERLACE)
		mhz *= 2;
	if (m->flags & DRM_MODE_FLAG_DBLSCAN)
		mhz /= 2;
	if (m->vscan > 1)
		mhz /= m->vscan;
	return (int32_t)mhz;
}

/* ---- Pipe lifetime ----------------------------------------------------------------- */

void wbc_plane_format_set(const struct wbc_kms_plane *p, struct wlr_drm_format_set *set)
{
	wlr_drm_format_set_finish(set);
	for (size_t i = 0; p && i < p->n_formats; i++) {
		const struct wbc_kms_format *f = &p->formats[i];
		wlr_drm_format_set_add(set, f->fourcc, DRM_FORMAT_MOD_INVALID);
		if (!p->has_in_formats)
			wlr_drm_format_set_add(set, f->fourcc, DRM_FORMAT_MOD_LINEAR);
		for (size_t m = 0; p->has_in_formats && m < f->n_modifiers; m++)
			wlr_drm_format_set_add(set, f->fourcc, f->modifiers[m]);
	}
}

static int pipe_open(struct wbc_output *out, const drmModeModeInfo *mode)
{
	struct wbc_kms_pipe_options opts = { .connector_id = out->connector_id, .mode = mode,
		.want_cursor = true };
	struct wbc_kms_pipe_listener listener = {
		.flip = wbc_output_handle_flip, .frame = wbc_output_handle_wb_frame,
		.frame_lost = wbc_output_handle_wb_lost, .data = out,
	};
	int ret = wbc_kms_pipe_create(out->backend->dev, &opts, &listener, &out->pipe);
	if (ret < 0) {
		wbc_log(WLR_ERROR, "%s: %s", out->base.name, wbc_kms_device_error(out->backend->dev));
		return ret;
	}
	wbc_plane_format_set(wbc_kms_pipe_plane(out->pipe, WBC_KMS_PLANE_PRIMARY),
		&out->primary_formats);
	return 0;
}

static void pipe_close(struct wbc_output *out)
{
	if (!out->pipe)
		return;
	struct wbc_kms_pipe_stats ps;
	wbc_kms_pipe_get_stats(out->pipe, &ps);
	out->in_call++;
	bool was = out->destroying;
	out->destroying = true;          /* flips reported while draining: bookkeeping only */
	if (out->has_capture)            /* frames lent out come back first */
		out->capture.pipe_closing(out->capture.data);
	wbc_kms_pipe_destroy(out->pipe);
	out->destroying = was;
	out->in_call--;
	out->pipe = NULL;
	out->stats.missed_vblanks += ps.missed_vblanks;
	/* States the pipe dropped without a report (queued at destroy), and captures that
	 * will never complete. */
	struct wbc_commit *c, *tmp;
	wl_list_for_each_safe(c, tmp, &out->commits, link)
		wbc_commit_free(c);
	if (out->has_capture)
		out->capture.pipe_closed(out->capture.data);
	wbc_output_release_capturing(out, true);
	wlr_buffer_unlock(out->front);
	out->front = NULL;
	wlr_buffer_unlock(out->cursor_front);
	out->cursor_front = NULL;
}

/* The oldest capture in flight was delivered or lost (all: the pipe is gone). */
void wbc_output_release_capturing(struct wbc_output *out, bool all)
{
	while (out->n_capturing) {
		wlr_buffer_unlock(out->capturing[0][0]);
		wlr_buffer_unlock(out->capturing[0][1]);
		out->n_capturing--;
		memmove(out->capturing[0], out->capturing[1],
			out->n_capturing * sizeof(out->capturing[0]));
		if (!all)
			return;
	}
}

/* ---- Commit and test ---------------------------------------------------------------- */

#define SUPPORTED_STATE (WLR_OUTPUT_STATE_BUFFER | WLR_OUTPUT_STATE_MODE | \
	WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_BACKEND_OPTIONAL)

/* What a pending output state asks of the pipe. */
struct plan {
	bool enabled;
	const struct wbc_output_mode *mode; /* the mode to show (pending or current) */
	bool modeset;                    /* the pipe must be (re)made or change mode */
	struct wbc_fb *fb;               /* the pending buffer's framebuffer, if any */
};

static const struct wbc_output_mode *find_mode(struct wbc_output *out, int32_t w, int32_t h,
		int32_t mhz)
{
	struct wbc_output_mode *m, *best = NULL;
	wl_list_for_each(m, &out->base.modes, base.link) {
		if (m->base.width != w || m->base.height != h)
			continue;
		if (mhz == 0 ? (!best || m->base.preferred) : abs(m->base.refresh - mhz) < 500)
			best = m;
		if (mhz && best)
			break;
	}
	return best;
}

static bool make_plan(struct wbc_output *out, struct plan *p)
{
	struct wlr_output *wo = &out->base;
	const struct wlr_output_state *st = &wo->pending;
	*p = (struct plan){ .enabled = (st->committed & WLR_OUTPUT_STATE_ENABLED) ?
		st->enabled : wo->enabled };
	if (st->committed & ~SUPPORTED_STATE) {
		if ((st->committed & WLR_OUTPUT_STATE_GAMMA_LUT) && st->gamma_lut_size == 0)
			;                        /* resetting gamma: nothing to do */
		else {
			wbc_log(WLR_DEBUG, "%s: unsupported output state 0x%x", wo->name,
				st->committed & ~SUPPORTED_STATE);
			return false;
		}
	}
	if (!p->enabled)
		return true;
	if (st->committed & WLR_OUTPUT_STATE_MODE) {
		if (st->mode_type == WLR_OUTPUT_STATE_MODE_FIXED)
			p->mode = wl_container_of(st->mode, p->mode, base);
		else
			p->mode = find_mode(out, st->custom_mode.width, st->custom_mode.height,
				st->custom_mode.refresh);
	} else if (wo->current_mode) {
		p->mode = wl_container_of(wo->current_mode, p->mode, base);
	} else {
		p->mode = (const struct wbc_output_mode *)wlr_output_preferred_mode(wo);
	}
	if (!p->mode) {
		wbc_log(WLR_DEBUG, "%s: no such mode", wo->name);
		return false;
	}
	const drmModeModeInfo *cur = out->pipe ? wbc_kms_pipe_mode(out->pipe) : NULL;
	p->modeset = !out->pipe || !out->front || memcmp(cur, &p->mode->info, sizeof(*cur)) != 0;
	if (!(st->committed & WLR_OUTPUT_STATE_BUFFER))  /* a modeset needs a buffer: */
		return !(p->modeset && (st->committed & (WLR_OUTPUT_STATE_ENABLED |
			WLR_OUTPUT_STATE_MODE)));        /* failing makes wlroots add one */
	p->fb = wbc_fb_get(out->backend, st->buffer);
	if (!p->fb)
		return false;
	if (p->fb->fb.width != p->mode->info.hdisplay || p->fb->fb.height != p->mode->info.vdisplay) {
		wbc_log(WLR_DEBUG, "%s: buffer %ux%u does not match the mode %dx%d", wo->name,
			p->fb->fb.width, p->fb->fb.height, p->mode->base.width, p->mode->base.height);
		return false;
	}
	return true;
}

/* Size, format import and mode are checked by make_plan; a new buffer on a pipe that keeps
 * its mode is also put to the kernel (TEST_ONLY), so that wlr_scene's choice to scan a
 * client's buffer out directly falls back to composition when the primary plane cannot
 * show it. The cursor plane is left out: a commit that it breaks goes out without it.
 * A modeset is tested by the commit itself (a fresh pipe's mode exists only then). */
static bool output_test(struct wlr_output *wo)
{
	struct wbc_output *out = wbc_output_from(wo);
	struct plan p;
	if (!make_plan(out, &p))
		return false;
	if (!p.fb || p.modeset)
		return true;
	struct wbc_kms_pipe_state state = { .primary = { .fb = &p.fb->fb } };
	out->in_call++;
	int ret = wbc_kms_pipe_test(out->pipe, &state);
	out->in_call--;
	if (ret < 0)
		wbc_log(WLR_DEBUG, "%s: test: %s", wo->name, wbc_kms_device_error(out->backend->dev));
	return ret == 0;
}

/* Test hook: WBC_DEBUG_LOSE_WRITEBACK_AFTER=N hands the KMS backend, for every capture
 * after the Nth, a fence that never signals (an eventfd nobody writes) instead of the
 * kernel's out-fence: the backend gives those jobs up after its fence timeout, as it does
 * the jobs Linux 6.1 VKMS loses (see struct wbc_kms_wb_lost in wbc/kms.h). */
static int debug_lose_fence(void *data, int fence_fd)
{
	struct wbc_output *out = data;
	if (++out->debug_fences <= out->debug_lose_after)
		return fence_fd;
	close(fence_fd);
	return eventfd(0, EFD_CLOEXEC);
}

static int enable_writeback(struct wbc_output *out, unsigned n_buffers)
{
	if (wbc_kms_pipe_writeback_format(out->pipe))
		return 0;
	if (out->writeback_failed)
		return -1;
	struct wbc_kms_writeback_options o;
	wbc_kms_writeback_options_init(&o);
	o.pacing = out->backend->opts.writeback_pacing;
	if (!n_buffers && out->has_capture)
		n_buffers = out->capture.pool_size(out->capture.data);
	o.n_buffers = n_buffers > WBC_OUTPUT_MAX_WB_BUFFERS ? WBC_OUTPUT_MAX_WB_BUFFERS :
		n_buffers;
	if (out->debug_lose_after >= 0) {
		o.debug_fence = debug_lose_fence;
		o.debug_fence_data = out;
	}
	if (wbc_kms_pipe_enable_writeback(out->pipe, &o) == 0) {
		wbc_log(WLR_DEBUG, "%s: writeback pool of %u buffers", out->base.name,
			o.n_buffers ? o.n_buffers : 3);
		return 0;
	}
	out->writeback_failed = true;
	return -1;
}

/* Whether this commit should arm writeback; enables the writeback pool on first use. */
static bool want_capture(struct wbc_output *out)
{
	if (!out->has_capture || !out->capture.want(out->capture.data))
		return false;
	bool failed = out->writeback_failed;
	if (enable_writeback(out, 0) == 0)
		return true;
	if (!failed)
		out->capture.unavailable(out->capture.data, wbc_kms_device_error(out->backend->dev));
	return false;
}

int wbc_output_prepare_writeback(struct wlr_output *wo, unsigned n_buffers, uint32_t *format,
		char *how, size_t len)
{
	if (!wbc_output_is_adapter(wo)) {
		snprintf(how, len, "%s is not driven by the wbc KMS backend", wo->name);
		return -1;
	}
	struct wbc_output *out = wbc_output_from(wo);
	if (!out->pipe) {
		snprintf(how, len, "%s is off", wo->name);
		return -1;
	}
	if (!wbc_kms_writeback_supported(out->pipe)) {
		snprintf(how, len, "%s", wbc_kms_pipe_writeback_unsupported_reason(out->pipe));
		return -1;
	}
	bool failed = out->writeback_failed;
	if (enable_writeback(out, n_buffers) < 0) {
		snprintf(how, len, "%s", failed ? "enabling writeback failed earlier" :
			wbc_kms_device_error(out->backend->dev));
		return -1;
	}
	*format = wbc_kms_pipe_writeback_format(out->pipe);
	const struct wbc_kms_connector *conn = wbc_kms_pipe_connector(out->pipe);
	const struct wbc_kms_connector *wb = wbc_kms_pipe_writeback_connector(out->pipe);
	if (conn && conn->writeback && out->backend->headless_why[0])
		snprintf(how, len, "%s as a headless output, because %s", wo->name,
			out->backend->headless_why);
	else if (conn && conn->writeback)
		snprintf(how, len, "%s as a headless output", wo->name);
	else
		snprintf(how, len, "%s captures %s's CRTC %u", wb ? wb->name : "writeback",
			wo->name, wbc_kms_pipe_crtc(out->pipe)->id);
	return 0;
}

static int pipe_call(struct wbc_output *out, const struct wbc_output_mode *modeset,
		const struct wbc_kms_pipe_state *state)
{
	out->in_call++;
	int ret = modeset ? wbc_kms_pipe_set_mode(out->pipe, &modeset->info, state) :
		wbc_kms_pipe_commit(out->pipe, state);
	out->in_call--;
	return ret;
}

/* Hand one state to the pipe; the commit record is owned by out->commits on success. */
static int submit(struct wbc_output *out, struct wlr_buffer *buffer, struct wbc_fb *fb,
		const struct wbc_output_mode *modeset, bool internal)
{
	struct wbc_commit *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	*c = (struct wbc_commit){ .output = out, .commit_seq = out->base.commit_seq + 1,
		.internal = internal, .buffer = wlr_buffer_lock(buffer) };
	wl_list_insert(out->commits.prev, &c->link);
	struct wbc_kms_pipe_state state = { .primary = { .fb = &fb->fb }, .user_data = c };
	c->cursor = wbc_cursor_plane_state(out, &state.cursor);
	state.capture = c->capture = want_capture(out);
	int ret = pipe_call(out, modeset, &state);
	if (ret < 0 && c->cursor) {
		/* Maybe the cursor plane: the screen matters more than a hardware cursor. */
		char why[WBC_KMS_ERROR_MAX];
		snprintf(why, sizeof(why), "%s", wbc_kms_device_error(out->backend->dev));
		state.cursor = (struct wbc_kms_plane_state){ 0 };
		wlr_buffer_unlock(c->cursor);
		c->cursor = NULL;
		ret = pipe_call(out, modeset, &state);
		if (ret == 0)
			wbc_cursor_refused(out, why);
	}
	if (ret < 0) {
		wbc_log(WLR_ERROR, "%s: %s", out->base.name, wbc_kms_device_error(out->backend->dev));
		wbc_commit_free(c);
		return ret;
	}
	out->stats.commits++;
	out->stats.cursor_commits += c->cursor != NULL;
	wbc_log(WLR_DEBUG, "%s: commit %llu%s%s%s%s", out->base.name,
		(unsigned long long)out->stats.commits, internal ? " (internal)" : "",
		modeset ? " (mode change)" : "", c->capture ? " (capture)" : "",
		c->cursor ? " (cursor plane)" : "");
	if (c->capture)
		out->capture.armed(out->capture.data);
	return 0;
}

static bool output_commit(struct wlr_output *wo)
{
	struct wbc_output *out = wbc_output_from(wo);
	const struct wlr_output_state *st = &wo->pending;
	struct plan p;
	if (!make_plan(out, &p))
		return false;
	if (!p.enabled) {
		pipe_close(out);
		if (wo->enabled)
			wlr_output_update_enabled(wo, false);
		return true;
	}
	if (!(st->committed & WLR_OUTPUT_STATE_BUFFER))
		return true;                 /* nothing for the display (scale, damage, ...) */
	bool fresh = !out->pipe;
	if (fresh && pipe_open(out, &p.mode->info) < 0)
		return false;
	/* A fresh pipe's first commit is its modeset; a live one changes mode explicitly. */
	const struct wbc_output_mode *new_mode = p.modeset && !fresh &&
		memcmp(wbc_kms_pipe_mode(out->pipe), &p.mode->info, sizeof(p.mode->info)) ?
		p.mode : NULL;
	if (submit(out, st->buffer, p.fb, new_mode, false) < 0) {
		if (fresh)
			pipe_close(out);
		return false;
	}
	if (!wo->current_mode || &p.mode->base != wo->current_mode)
		wlr_output_update_mode(wo, (struct wlr_output_mode *)&p.mode->base);
	if (!wo->enabled)
		wlr_output_update_enabled(wo, true);
	return true;
}

bool wbc_output_capture_kick(struct wlr_output *wo)
{
	if (!wbc_output_is_adapter(wo))
		return false;
	struct wbc_output *out = wbc_output_from(wo);
	if (!wl_list_empty(&out->commits))
		return true;                 /* its flip event kicks again */
	if (!out->pipe || !out->front || !out->has_capture ||
			!out->capture.want_repeat(out->capture.data))
		return false;
	/* A re-commit the pipe would send without capture only takes a display slot. */
	switch (wbc_kms_pipe_capture_ready(out->pipe)) {
	case WBC_KMS_CAPTURE_IN_FLIGHT:
		return true;                 /* its frame or loss kicks again */
	case WBC_KMS_CAPTURE_NO_BUFFER:
		return false;                /* the caller looks again later */
	case WBC_KMS_CAPTURE_READY:
	case WBC_KMS_CAPTURE_NO_WRITEBACK:  /* readback, or enabled by this commit */
		break;
	}
	struct wbc_fb *fb = wbc_fb_get(out->backend, out->front);
	return fb && submit(out, out->front, fb, NULL, true) == 0;
}

struct wlr_buffer *wbc_output_front_buffer(struct wlr_output *wo)
{
	return wbc_output_is_adapter(wo) ? wbc_output_from(wo)->front : NULL;
}

void wbc_output_drop_writeback(struct wlr_output *wo)
{
	if (!wbc_output_is_adapter(wo))
		return;
	struct wbc_output *out = wbc_output_from(wo);
	out->writeback_failed = true;
	if (!out->pipe || !wbc_kms_pipe_writeback_format(out->pipe))
		return;
	/* The backend lets the commit in flight land first (bounded) and sends a queued
	 * state without capture; buffers of lost jobs go with the pool. */
	out->in_call++;
	wbc_kms_pipe_disable_writeback(out->pipe);
	out->in_call--;
	wbc_log(WLR_INFO, "%s: writeback disabled", wo->name);
}

static const struct wlr_drm_format_set *output_get_primary_formats(struct wlr_output *wo,
		uint32_t buffer_caps)
{
	struct wbc_output *out = wbc_output_from(wo);
	if (!(buffer_caps & WLR_BUFFER_CAP_DMABUF))
		return NULL;
	return out->primary_formats.len ? &out->primary_formats : NULL;
}

static void output_destroy(struct wlr_output *wo)
{
	struct wbc_output *out = wbc_output_from(wo);
	out->destroying = true;
	pipe_close(out);
	if (out->frame_idle)
		wl_event_source_remove(out->frame_idle);
	if (out->capture_idle)
		wl_event_source_remove(out->capture_idle);
	wl_event_source_remove(out->retry_timer);
	struct wbc_output_mode *m, *tmp;
	wl_list_for_each_safe(m, tmp, &wo->modes, base.link) {
		wl_list_remove(&m->base.link);
		free(m);
	}
	wlr_drm_format_set_finish(&out->primary_formats);
	wbc_cursor_finish(out);
	struct wbc_adapter_stats sum = { 0 };
	wbc_output_add_stats(out, &sum);
	wbc_adapter_stats_add(&out->backend->retired, &sum);
	wl_list_remove(&out->link);
	free(out);
}

static const struct wlr_output_impl output_impl = {
	.set_cursor = wbc_cursor_set,
	.move_cursor = wbc_cursor_move,
	.commit = output_commit,
	.test = output_test,
	.destroy = output_destroy,
	.get_cursor_formats = wbc_cursor_formats,
	.get_cursor_size = wbc_cursor_size,
	.get_primary_formats = output_get_primary_formats,
};

void wbc_output_add_stats(struct wbc_output *out, struct wbc_adapter_stats *sum)
{
	struct wbc_kms_pipe_stats ps = { 0 };
	if (out->pipe)
		wbc_kms_pipe_get_stats(out->pipe, &ps);
	sum->commits += out->stats.commits;
	sum->flips += out->stats.flips;
	sum->superseded += out->stats.superseded;
	sum->failed += out->stats.failed;
	sum->missed_vblanks += out->stats.missed_vblanks + ps.missed_vblanks;
	sum->captures += out->stats.captures;
	sum->captures_lost += out->stats.captures_lost;
	sum->captures_late += ps.captures_late;
	sum->cursor_commits += out->stats.cursor_commits;
}

/* ---- Creation ------------------------------------------------------------------------ */

static int add_modes(struct wbc_output *out, const struct wbc_kms_connector *conn)
{
	for (size_t i = 0; i < conn->n_modes; i++) {
		struct wbc_output_mode *m = calloc(1, sizeof(*m));
		if (!m)
			return -1;
		m->info = conn->modes[i];
		m->base.width = m->info.hdisplay;
		m->base.height = m->info.vdisplay;
		m->base.refresh = mode_refresh_mhz(&m->info);
		m->base.preferred = conn->preferred_mode >= 0 ? (size_t)conn->preferred_mode == i :
			i == 0;
		wl_list_insert(out->base.modes.prev, &m->base.link);
	}
	return 0;
}

int wbc_output_create(struct wbc_backend *b, struct wbc_kms_connector *conn)
{
	struct wbc_output *out = calloc(1, sizeof(*out));
	if (!out)
		return -1;
	out->backend = b;
	out->connector_id = conn->id;
	const char *lose = getenv("WBC_DEBUG_LOSE_WRITEBACK_AFTER");
	out->debug_lose_after = lose && *lose ? atol(lose) : -1;
	wl_list_init(&out->commits);
	wlr_output_init(&out->base, &b->base, &output_impl, b->display);
	wl_list_insert(b->outputs.prev, &out->link);
	out->retry_timer = wl_event_loop_add_timer(wl_display_get_event_loop(b->display),
		wbc_output_retry_frame, out);
	if (!out->retry_timer || add_modes(out, conn) < 0) {
		wlr_output_destroy(&out->base);
		return -1;
	}
	/* Made now so that the primary plane's formats are known before the first commit;
	 * the modeset happens with the first buffer. */
	const drmModeModeInfo *pref = conn->preferred_mode >= 0 ?
		&conn->modes[conn->preferred_mode] : &conn->modes[0];
	if (pipe_open(out, pref) < 0) {
		wlr_output_destroy(&out->base);
		return -1;
	}
	wlr_output_set_name(&out->base, conn->name);
	char desc[128];
	snprintf(desc, sizeof(desc), "%s %s connector (wbc KMS backend)", b->dev->driver,
		wbc_kms_connector_type_name(conn->type));
	wlr_output_set_description(&out->base, desc);
	snprintf(out->base.make, sizeof(out->base.make), "wbc");
	snprintf(out->base.model, sizeof(out->base.model), "%.15s", b->dev->driver);
	out->base.phys_width = (int32_t)conn->mm_width;
	out->base.phys_height = (int32_t)conn->mm_height;
	wbc_log(WLR_INFO, "output %s: %zu modes, CRTC %u", conn->name, conn->n_modes,
		wbc_kms_pipe_crtc(out->pipe)->id);
	wbc_cursor_init(out);
	wl_signal_emit(&b->base.events.new_output, &out->base);
	return 0;
}
