/*
 * Atomic requests for a pipe: every state is checked with TEST_ONLY first; the first
 * commit (and any mode change) is a blocking ALLOW_MODESET commit, later ones are
 * NONBLOCK with a page-flip event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "pipe.h"

int wbc_kms_atomic_add(struct wbc_kms_device *dev, drmModeAtomicReq *req, uint32_t obj,
		uint32_t prop, uint64_t value, const char *what)
{
	if (!prop)
		return wbc_kms_fail(dev, -ENOTSUP, "object %u has no %s property", obj, what);
	if (drmModeAtomicAddProperty(req, obj, prop, value) < 0)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory building atomic request");
	return 0;
}

static void format_name(uint32_t fourcc, char out[8])
{
	char *name = drmGetFormatName(fourcc);
	snprintf(out, 8, "%s", name ? name : "?");
	free(name);
}

/* Checks that need no kernel round trip, with messages that say what is wrong. */
static int check_plane(struct wbc_kms_pipe *pipe, const struct wbc_kms_plane *plane,
		const char *role, const struct wbc_kms_plane_state *ps)
{
	struct wbc_kms_device *dev = pipe->dev;
	if (!ps->fb)
		return 0;
	if (!plane)
		return wbc_kms_fail(dev, -ENOENT, "this pipe has no %s plane", role);
	if (!wbc_kms_plane_supports(plane, ps->fb->format, ps->fb->modifier)) {
		char name[8];
		format_name(ps->fb->format, name);
		return wbc_kms_fail(dev, -EINVAL, "%s plane %u does not support format %s "
			"(modifier 0x%llx)", role, plane->id, name,
			(unsigned long long)ps->fb->modifier);
	}
	if (!(plane->possible_crtcs & (1u << pipe->crtc->index)))
		return wbc_kms_fail(dev, -EINVAL, "%s plane %u cannot be used on CRTC %u "
			"(possible_crtcs 0x%x)", role, plane->id, pipe->crtc->id,
			plane->possible_crtcs);
	return 0;
}

static int add_plane(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req,
		const struct wbc_kms_plane *plane, const struct wbc_kms_plane_state *ps, bool primary)
{
	struct wbc_kms_device *dev = pipe->dev;
	int ret = 0;
	if (!plane)
		return 0;
	if (!ps->fb) {
		ADD(plane, plane->props, fb_id, 0);
		ADD(plane, plane->props, crtc_id, 0);
		return ret;
	}
	const struct wbc_kms_fb *fb = ps->fb;
	uint32_t sw = ps->src_w ? ps->src_w : fb->width, sh = ps->src_h ? ps->src_h : fb->height;
	/* A primary plane covers the mode unless told otherwise, as wlroots does. */
	uint32_t cw = ps->crtc_w ? ps->crtc_w : (primary ? pipe->mode.hdisplay : sw);
	uint32_t ch = ps->crtc_h ? ps->crtc_h : (primary ? pipe->mode.vdisplay : sh);
	ADD(plane, plane->props, fb_id, fb->id);
	ADD(plane, plane->props, crtc_id, pipe->crtc->id);
	ADD(plane, plane->props, src_x, (uint64_t)ps->src_x << 16);
	ADD(plane, plane->props, src_y, (uint64_t)ps->src_y << 16);
	ADD(plane, plane->props, src_w, (uint64_t)sw << 16);
	ADD(plane, plane->props, src_h, (uint64_t)sh << 16);
	ADD(plane, plane->props, crtc_x, (uint64_t)(int64_t)ps->crtc_x);
	ADD(plane, plane->props, crtc_y, (uint64_t)(int64_t)ps->crtc_y);
	ADD(plane, plane->props, crtc_w, cw);
	ADD(plane, plane->props, crtc_h, ch);
	return ret;
}

static bool pipe_owns(const struct wbc_kms_pipe *pipe, const void *object)
{
	return object == pipe->connector || object == pipe->primary || object == pipe->cursor ||
		object == pipe->overlay || (pipe->wb_route && object == pipe->wb_connector);
}

/* The first modeset of a pipe takes its CRTC over from whoever lit it before: connectors
 * and planes found on the CRTC at open that the pipe does not drive are turned off (a
 * connector left routed could not share the CRTC with the pipe's, e.g. Virtual-1 with a
 * headless Writeback-1 on VKMS). wbc_kms_device_restore puts them back. */
static int take_over(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req)
{
	struct wbc_kms_device *dev = pipe->dev;
	int ret = 0;
	for (size_t i = 0; i < dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &dev->connectors[i];
		if (c->crtc_id == pipe->crtc->id && !pipe_owns(pipe, c))
			ADD(c, c->props, crtc_id, 0);
	}
	for (size_t i = 0; i < dev->n_planes; i++) {
		struct wbc_kms_plane *p = &dev->planes[i];
		if (p->crtc_id != pipe->crtc->id || pipe_owns(pipe, p))
			continue;
		ADD(p, p->props, fb_id, 0);
		ADD(p, p->props, crtc_id, 0);
	}
	return ret;
}

static int build(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req,
		const struct wbc_kms_pipe_state *state, bool modeset)
{
	struct wbc_kms_device *dev = pipe->dev;
	int ret = check_plane(pipe, pipe->primary, "primary", &state->primary);
	ret = ret ? ret : check_plane(pipe, pipe->cursor, "cursor", &state->cursor);
	ret = ret ? ret : check_plane(pipe, pipe->overlay, "overlay", &state->overlay);
	if (ret == 0 && !state->primary.fb)
		ret = wbc_kms_fail(dev, -EINVAL, "a commit needs a framebuffer on the primary plane");
	if (modeset) {
		ADD(pipe->crtc, pipe->crtc->props, mode_id, pipe->mode_blob);
		ADD(pipe->crtc, pipe->crtc->props, active, 1);
		ADD(pipe->connector, pipe->connector->props, crtc_id, pipe->crtc->id);
		if (!pipe->active)
			ret = ret ? ret : take_over(pipe, req);
	}
	ret = ret ? ret : add_plane(pipe, req, pipe->primary, &state->primary, true);
	ret = ret ? ret : add_plane(pipe, req, pipe->cursor, &state->cursor, false);
	ret = ret ? ret : add_plane(pipe, req, pipe->overlay, &state->overlay, false);
	return ret;
}

static void describe(const struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *s,
		char *out, size_t len)
{
	const struct wbc_kms_fb *fb = s->primary.fb;
	char name[8] = "-";
	if (fb)
		format_name(fb->format, name);
	snprintf(out, len, "mode %ux%u, primary fb %ux%u %s%s%s%s", pipe->mode.hdisplay,
		pipe->mode.vdisplay, fb ? fb->width : 0, fb ? fb->height : 0, name,
		s->cursor.fb ? ", cursor" : "", s->overlay.fb ? ", overlay" : "",
		s->capture ? ", writeback" : "");
}

static int kernel_refused(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state,
		int err, bool test_only)
{
	char what[160];
	describe(pipe, state, what, sizeof(what));
	pipe->stats.failed += !test_only;
	return wbc_kms_fail(pipe->dev, err, "%s: the kernel refused the %s (%s): %s",
		pipe->dev->path, test_only ? "configuration (TEST_ONLY)" : "commit", what,
		strerror(-err));
}

/* Issue the request for real; on success the pipe has a commit in flight. */
static int send(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req,
		const struct wbc_kms_pipe_state *state, bool modeset, struct wbc_kms_wb_buffer *job)
{
	struct wbc_kms_device *dev = pipe->dev;
	uint32_t flags = DRM_MODE_PAGE_FLIP_EVENT |
		(modeset ? DRM_MODE_ATOMIC_ALLOW_MODESET : DRM_MODE_ATOMIC_NONBLOCK);
	uint64_t seq = 0, ns = 0;
	if (!modeset && drmCrtcGetSequence(dev->fd, pipe->crtc->id, &seq, &ns) != 0)
		seq = 0;
	/* Taken before the ioctl: a nonblocking commit can be shown before the ioctl
	 * returns (a slow or preempted caller), and its vblank time must not then look stale. */
	uint64_t submit_ns = wbc_kms_now_ns();
	if (drmModeAtomicCommit(dev->fd, req, flags, dev->events) != 0) {
		int err = -errno;
		if (job)
			wbc_kms_writeback_commit_failed(pipe->wb, job);
		return kernel_refused(pipe, state, err, false);
	}
	pipe->stats.commits++;
	pipe->stats.modesets += modeset;
	dev->changed = true;
	pipe->flip_pending = true;
	pipe->flip_user_data = state->user_data;
	pipe->flip_job = job;
	pipe->submit_seq = seq;
	pipe->submit_ns = submit_ns;
	pipe->needs_modeset = false;
	pipe->active = true;
	pipe->maybe_lit = false;
	if (job)
		wbc_kms_writeback_committed(pipe->wb, job);
	return 0;
}

static int submit_once(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state,
		bool test_only)
{
	struct wbc_kms_device *dev = pipe->dev;
	if (state->capture && !pipe->wb)
		return wbc_kms_fail(dev, -EINVAL, "capture requested but writeback is not enabled "
			"on CRTC %u", pipe->crtc->id);
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	if (!req)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	bool modeset = pipe->needs_modeset;
	struct wbc_kms_wb_buffer *job = NULL;
	int ret = build(pipe, req, state, modeset);
	if (ret == 0)
		ret = wbc_kms_writeback_add_route(pipe, req, modeset, false);
	if (ret == 0 && state->capture)
		ret = wbc_kms_writeback_arm(pipe->wb, req, test_only, state->user_data, &job);
	if (ret == 0 && job && pipe->wb_route_per_capture) {
		ret = wbc_kms_writeback_add_route(pipe, req, modeset, true);
		modeset = true;
	}
	if (ret == 0 && test_only) {
		uint32_t flags = DRM_MODE_ATOMIC_TEST_ONLY | (modeset ? DRM_MODE_ATOMIC_ALLOW_MODESET : 0);
		pipe->stats.test_only++;
		if (drmModeAtomicCommit(dev->fd, req, flags, NULL) != 0)
			ret = kernel_refused(pipe, state, -errno, true);
	} else if (ret == 0) {
		ret = send(pipe, req, state, modeset, job);
		job = NULL;
	}
	if (job)
		wbc_kms_writeback_commit_failed(pipe->wb, job);
	drmModeAtomicFree(req);
	return ret;
}

int wbc_kms_pipe_submit(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state,
		bool test_only)
{
	int ret = submit_once(pipe, state, test_only);
	/* A modeset refused with the writeback connector routed but idle: retry once the
	 * old way (route only with a framebuffer) before giving up. */
	if (ret == -EINVAL && test_only && pipe->needs_modeset && !state->capture &&
			wbc_kms_writeback_route_refused(pipe)) {
		char first[WBC_KMS_ERROR_MAX];
		memcpy(first, pipe->dev->error, sizeof(first));
		if (submit_once(pipe, state, test_only) < 0) {
			pipe->wb_route_per_capture = false;
			memcpy(pipe->dev->error, first, sizeof(first));
		} else {
			ret = 0;
		}
	}
	return ret;
}

/* Turn off what the pipe turned on: planes, connector routing, CRTC. */
int wbc_kms_pipe_disable(struct wbc_kms_pipe *pipe)
{
	struct wbc_kms_device *dev = pipe->dev;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	if (!req)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	struct wbc_kms_plane_state off = { 0 };
	int ret = add_plane(pipe, req, pipe->primary, &off, true);
	ret = ret ? ret : add_plane(pipe, req, pipe->cursor, &off, false);
	ret = ret ? ret : add_plane(pipe, req, pipe->overlay, &off, false);
	ADD(pipe->connector, pipe->connector->props, crtc_id, 0);
	if (pipe->wb_route && pipe->wb_connector)
		ADD(pipe->wb_connector, pipe->wb_connector->props, crtc_id, 0);
	ADD(pipe->crtc, pipe->crtc->props, active, 0);
	ADD(pipe->crtc, pipe->crtc->props, mode_id, 0);
	if (ret == 0 && drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) != 0)
		ret = wbc_kms_fail(dev, -errno, "disabling CRTC %u: %s", pipe->crtc->id,
			strerror(errno));
	dev->changed = dev->changed || ret == 0;
	drmModeAtomicFree(req);
	pipe->active = false;
	pipe->maybe_lit = ret != 0;
	pipe->needs_modeset = true;
	return ret;
}
