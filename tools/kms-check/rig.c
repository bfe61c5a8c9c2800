/* The rig: a headless CRTC + writeback connector, and raw atomic commits on it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "rig.h"

static int fail(char err[RIG_ERR_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char err[RIG_ERR_MAX], const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, RIG_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t rig_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct wbc_kms_connector *find_writeback(struct wbc_kms_device *dev, const char *name)
{
	for (size_t i = 0; i < dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &dev->connectors[i];
		if (c->writeback && (!name || strcmp(c->name, name) == 0))
			return c;
	}
	return NULL;
}

/* Open one path; 0 with the device, or -1 with why it does not fit. */
static int open_path(struct rig *rig, const char *path, const char *conn, char err[RIG_ERR_MAX])
{
	struct wbc_kms_error e = { 0 };
	struct wbc_kms_device_options o = { .master = true };
	if (wbc_kms_device_open(path, &o, &rig->dev, &e) < 0)
		return fail(err, "%s", e.message);  /* it names the path */
	const char *why = NULL;
	if (!rig->dev->caps.atomic)
		why = "has no atomic modesetting";
	else if (!rig->dev->caps.writeback_connectors)
		why = "does not offer writeback connectors (DRM_CLIENT_CAP_WRITEBACK_CONNECTORS)";
	else if (!(rig->wb = find_writeback(rig->dev, conn)))
		why = conn ? "has no writeback connector of that name" : "has no writeback connector";
	if (!why)
		return 0;
	fail(err, "%s (%s) %s%s%s", path, rig->dev->driver, why, conn ? ": " : "", conn ? conn : "");
	wbc_kms_device_destroy(rig->dev);
	rig->dev = NULL;
	return -1;
}

/* No device given: the first card that has a writeback connector. */
static int open_any(struct rig *rig, const char *conn, char err[RIG_ERR_MAX])
{
	char first[RIG_ERR_MAX] = "";
	for (int i = 0; i < 16; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (access(path, F_OK) != 0)
			continue;
		if (open_path(rig, path, conn, err) == 0)
			return 0;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", err);
	}
	if (first[0])
		return fail(err, "%s", first);
	return fail(err, "no DRM device: /dev/dri/card0 to card15 do not exist");
}

static const drmModeModeInfo *pick_mode(const struct wbc_kms_connector *c, uint32_t w, uint32_t h)
{
	/* 640x480 unless told: big enough for every placement the checks use, small enough
	 * that a software-composing driver under emulation stays quick. */
	uint32_t want_w = w ? w : 640, want_h = w ? h : 480;
	for (size_t i = 0; i < c->n_modes; i++)
		if (c->modes[i].hdisplay == want_w && c->modes[i].vdisplay == want_h)
			return &c->modes[i];
	if (w || c->n_modes == 0)
		return NULL;
	return &c->modes[c->preferred_mode >= 0 ? c->preferred_mode : 0];
}

static struct wbc_kms_crtc *pick_crtc(struct rig *rig)
{
	for (size_t i = 0; i < rig->dev->n_crtcs; i++)
		if (rig->wb->possible_crtcs & (1u << rig->dev->crtcs[i].index))
			return &rig->dev->crtcs[i];
	return NULL;
}

int rig_open(struct rig *rig, const struct rig_options *opts, char err[RIG_ERR_MAX])
{
	memset(rig, 0, sizeof(*rig));
	rig->fence_timeout_ms = opts->fence_timeout_ms;
	int ret = opts->device ? open_path(rig, opts->device, opts->connector, err) :
		open_any(rig, opts->connector, err);
	if (ret < 0)
		return -1;
	const drmModeModeInfo *mode = pick_mode(rig->wb, opts->width, opts->height);
	rig->crtc = pick_crtc(rig);
	if (!mode)
		ret = opts->width ? fail(err, "%s has no %ux%u mode", rig->wb->name, opts->width,
			opts->height) : fail(err, "%s lists no mode", rig->wb->name);
	else if (!rig->crtc)
		ret = fail(err, "%s reaches no CRTC", rig->wb->name);
	else if (drmModeCreatePropertyBlob(rig->dev->fd, mode, sizeof(*mode), &rig->mode_blob) != 0)
		ret = fail(err, "MODE_ID blob: %s", strerror(errno));
	if (ret < 0) {
		rig_close(rig);
		return -1;
	}
	rig->mode = *mode;
	rig->width = mode->hdisplay;
	rig->height = mode->vdisplay;
	return 0;
}

/* Leaves the CRTC off: a checker has no display state worth putting back. */
void rig_close(struct rig *rig)
{
	if (!rig->dev)
		return;
	/* After a lost job no commit is made (see rig_buffer_free). */
	if (rig->modeset_done && !rig->lost) {
		drmModeAtomicReq *req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, rig->crtc->id, rig->crtc->props.active, 0);
		drmModeAtomicAddProperty(req, rig->crtc->id, rig->crtc->props.mode_id, 0);
		drmModeAtomicAddProperty(req, rig->wb->id, rig->wb->props.crtc_id, 0);
		for (size_t i = 0; i < rig->dev->n_planes; i++) {
			struct wbc_kms_plane *p = &rig->dev->planes[i];
			if (p->possible_crtcs & (1u << rig->crtc->index)) {
				drmModeAtomicAddProperty(req, p->id, p->props.fb_id, 0);
				drmModeAtomicAddProperty(req, p->id, p->props.crtc_id, 0);
			}
		}
		drmModeAtomicCommit(rig->dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
		drmModeAtomicFree(req);
	}
	if (rig->mode_blob)
		drmModeDestroyPropertyBlob(rig->dev->fd, rig->mode_blob);
	wbc_kms_device_destroy(rig->dev);
	rig->dev = NULL;
}

struct wbc_kms_plane *rig_plane(struct rig *rig, enum wbc_kms_plane_type type, unsigned index)
{
	for (size_t i = 0; i < rig->dev->n_planes; i++) {
		struct wbc_kms_plane *p = &rig->dev->planes[i];
		if (p->type == type && (p->possible_crtcs & (1u << rig->crtc->index)) &&
				index-- == 0)
			return p;
	}
	return NULL;
}

struct wbc_kms_buffer *rig_buffer(struct rig *rig, uint32_t w, uint32_t h, uint32_t format,
		char err[RIG_ERR_MAX])
{
	struct wbc_kms_buffer *buf = NULL;
	if (wbc_kms_buffer_create(rig->dev, w, h, format, &buf) < 0) {
		fail(err, "%s", wbc_kms_device_error(rig->dev));
		return NULL;
	}
	return buf;
}

static void keep(struct wbc_kms_buffer *buf);

void rig_buffer_free(struct rig *rig, struct wbc_kms_buffer *buf)
{
	/* After a lost job the device may still hold the buffer, and removing a
	 * framebuffer in use is a commit, which blocks for ever when the driver's composer
	 * died (VKMS 6.12): the buffer is left to the end of the process. */
	if (rig->lost)
		keep(buf);
	else
		wbc_kms_buffer_destroy(rig->dev, buf);
}

bool rig_plane_value(struct rig *rig, uint32_t prop_id, const char *name, uint64_t *value)
{
	return prop_id && wbc_kms_property_value(rig->dev, prop_id, name, value) == 0;
}

/* A request being built (owns req until rig_commit frees it); stops at the first
 * property that cannot be added, and says which. */
struct req {
	drmModeAtomicReq *req;
	bool failed;
	char what[64];
};

static void add(struct req *r, uint32_t obj, uint32_t prop, uint64_t value, const char *what)
{
	if (r->failed)
		return;
	if (!prop || drmModeAtomicAddProperty(r->req, obj, prop, value) < 0) {
		r->failed = true;
		snprintf(r->what, sizeof(r->what), "%s of object %u", what, obj);
	}
}

static bool prop_mutable(struct rig *rig, uint32_t prop_id)
{
	drmModePropertyRes *p = prop_id ? drmModeGetProperty(rig->dev->fd, prop_id) : NULL;
	bool ok = p && !(p->flags & DRM_MODE_PROP_IMMUTABLE);
	drmModeFreeProperty(p);
	return ok;
}

/* Plane properties the checks may change are put back to their defaults when a scene
 * does not set them, so one check's alpha or rotation never leaks into the next. */
static void add_defaults(struct rig *rig, struct req *r, const struct rig_plane *s)
{
	const struct wbc_kms_plane *p = s->plane;
	uint64_t v;
	if (p->props.alpha)
		add(r, p->id, p->props.alpha, s->has_alpha ? s->alpha : 0xffff, "alpha");
	if (p->props.pixel_blend_mode && rig_plane_value(rig, p->props.pixel_blend_mode,
			s->has_blend ? s->blend : "Pre-multiplied", &v))
		add(r, p->id, p->props.pixel_blend_mode, v, "pixel blend mode");
	if (p->props.rotation)
		add(r, p->id, p->props.rotation, s->has_rotation ? s->rotation : DRM_MODE_ROTATE_0,
			"rotation");
	if (s->has_zpos || (p->has_zpos && prop_mutable(rig, p->props.zpos)))
		add(r, p->id, p->props.zpos, s->has_zpos ? s->zpos : p->zpos, "zpos");
}

static void add_plane(struct rig *rig, struct req *r, const struct rig_plane *s)
{
	const struct wbc_kms_plane *p = s->plane;
	const struct wbc_kms_fb *fb = &s->buf->fb;
	uint32_t sw = s->src_w ? s->src_w : fb->width, sh = s->src_h ? s->src_h : fb->height;
	bool swap = s->has_rotation && (s->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270));
	uint32_t cw = s->crtc_w ? s->crtc_w : (swap ? sh : sw);
	uint32_t ch = s->crtc_h ? s->crtc_h : (swap ? sw : sh);
	add(r, p->id, p->props.fb_id, fb->id, "FB_ID");
	add(r, p->id, p->props.crtc_id, rig->crtc->id, "CRTC_ID");
	add(r, p->id, p->props.src_x, (uint64_t)s->src_x << 16, "SRC_X");
	add(r, p->id, p->props.src_y, (uint64_t)s->src_y << 16, "SRC_Y");
	add(r, p->id, p->props.src_w, (uint64_t)sw << 16, "SRC_W");
	add(r, p->id, p->props.src_h, (uint64_t)sh << 16, "SRC_H");
	add(r, p->id, p->props.crtc_x, (uint64_t)(int64_t)s->crtc_x, "CRTC_X");
	add(r, p->id, p->props.crtc_y, (uint64_t)(int64_t)s->crtc_y, "CRTC_Y");
	add(r, p->id, p->props.crtc_w, cw, "CRTC_W");
	add(r, p->id, p->props.crtc_h, ch, "CRTC_H");
	add_defaults(rig, r, s);
}

static bool in_scene(const struct rig_scene *scene, const struct wbc_kms_plane *p)
{
	for (unsigned i = 0; scene && i < scene->n; i++)
		if (scene->planes[i].plane == p)
			return true;
	return false;
}

/* The CRTC on with the mode, the writeback connector routed, the scene's planes shown
 * and every other plane (and any connector found on the CRTC) off. */
static void add_scene(struct rig *rig, struct req *r, const struct rig_scene *scene, bool active)
{
	struct wbc_kms_device *dev = rig->dev;
	add(r, rig->crtc->id, rig->crtc->props.active, active, "ACTIVE");
	add(r, rig->crtc->id, rig->crtc->props.mode_id, rig->mode_blob, "MODE_ID");
	add(r, rig->wb->id, rig->wb->props.crtc_id, rig->crtc->id, "CRTC_ID");
	for (size_t i = 0; i < dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &dev->connectors[i];
		if (c != rig->wb && c->crtc_id == rig->crtc->id)
			add(r, c->id, c->props.crtc_id, 0, "CRTC_ID");
	}
	for (size_t i = 0; i < dev->n_planes; i++) {
		struct wbc_kms_plane *p = &dev->planes[i];
		if (!(p->possible_crtcs & (1u << rig->crtc->index)) || in_scene(scene, p))
			continue;
		add(r, p->id, p->props.fb_id, 0, "FB_ID");
		add(r, p->id, p->props.crtc_id, 0, "CRTC_ID");
	}
	for (unsigned i = 0; scene && i < scene->n; i++)
		add_plane(rig, r, &scene->planes[i]);
}

static void add_wb(struct rig *rig, struct req *r, struct rig_wb *wb)
{
	wb->fence_fd = -1;
	if (wb->set_fb)
		add(r, rig->wb->id, rig->wb->props.writeback_fb_id, wb->fb_id, "WRITEBACK_FB_ID");
	if (wb->set_fence)
		add(r, rig->wb->id, rig->wb->props.writeback_out_fence_ptr,
			wb->fence_ptr ? wb->fence_ptr : (uint64_t)(uintptr_t)&wb->fence_fd,
			"WRITEBACK_OUT_FENCE_PTR");
}

int rig_commit(struct rig *rig, const struct rig_scene *scene, struct rig_wb *wb,
		bool test_only, char err[RIG_ERR_MAX])
{
	struct req r = { .req = drmModeAtomicAlloc() };
	if (!r.req)
		return fail(err, "out of memory"), -ENOMEM;
	add_scene(rig, &r, scene, !(wb && wb->crtc_off));
	if (wb)
		add_wb(rig, &r, wb);
	int ret = 0;
	if (r.failed) {
		ret = -ENOTSUP;
		fail(err, "cannot build the request: no %s", r.what);
	} else {
		/* ALLOW_MODESET always: the first commit needs it, and later ones change no
		 * mode, so the kernel does not modeset for them. */
		uint32_t flags = DRM_MODE_ATOMIC_ALLOW_MODESET |
			(test_only ? DRM_MODE_ATOMIC_TEST_ONLY : 0);
		if (drmModeAtomicCommit(rig->dev->fd, r.req, flags, NULL) != 0) {
			ret = -errno;
			fail(err, "%s refused: %s", test_only ? "TEST_ONLY commit" : "commit",
				strerror(errno));
		} else if (!test_only) {
			rig->modeset_done = true;
		}
	}
	drmModeAtomicFree(r.req);
	return ret;
}

/* Captures are spaced by two refresh periods: the composition checks are about what is
 * composed, not how fast jobs may follow each other (writeback-back-to-back checks that
 * on its own, so a driver that loses jobs at full rate fails that check by name instead
 * of failing composition checks at random). */
static void settle(const struct rig *rig)
{
	uint64_t period_ns = rig->mode.vrefresh ? 1000000000u / rig->mode.vrefresh : 16666667u;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(2 * period_ns) };
	nanosleep(&ts, NULL);
}

/* A fence that has not signalled this long is a lost job, not a slow one: three times the
 * bound and at least 10 s, since an emulated guest on a busy host composes slowly (seen:
 * a 640x480 RGB565 frame took over 1 s in TCG with five other guests' vCPUs on 2 cores). */
static int lost_after_ms(const struct rig *rig)
{
	return 3 * rig->fence_timeout_ms >= 10000 ? 3 * rig->fence_timeout_ms : 10000;
}

static int lose(struct rig *rig, char err[RIG_ERR_MAX])
{
	rig->lost = true;
	snprintf(rig->lost_reason, sizeof(rig->lost_reason), "the out-fence did not signal "
		"within %d ms", lost_after_ms(rig));
	return fail(err, "%s: the driver lost the writeback job", rig->lost_reason);
}

int rig_capture(struct rig *rig, const struct rig_scene *scene, struct wbc_kms_buffer *out,
		uint64_t *latency_ns, char err[RIG_ERR_MAX])
{
	if (rig->lost)
		return fail(err, "an earlier capture was lost (%s): captures on this device are "
			"no longer trusted", rig->lost_reason);
	struct rig_wb wb = { .set_fb = true, .fb_id = out->fb.id, .set_fence = true };
	uint64_t t0 = rig_now_ns(), signalled = 0;
	if (rig_commit(rig, scene, &wb, false, err) < 0)
		return -1;
	if (wb.fence_fd < 0)
		return fail(err, "the commit succeeded but gave no out-fence");
	int ret = wbc_kms_fence_wait(wb.fence_fd, lost_after_ms(rig), &signalled);
	close(wb.fence_fd);
	if (ret == -ETIME)
		return lose(rig, err);
	if (ret < 0)
		return fail(err, "waiting for the out-fence: %s", strerror(-ret));
	if (latency_ns)
		*latency_ns = signalled > t0 ? signalled - t0 : 0;
	if (!rig->back_to_back)
		settle(rig);
	return 0;
}

/* Buffers left after a lost job (rig_buffer_free): kept reachable, as they are meant to
 * stay, so that the leak checker does not report them. */
static struct wbc_kms_buffer *kept[64];
static size_t n_kept;

static void keep(struct wbc_kms_buffer *buf)
{
	if (buf && n_kept < sizeof(kept) / sizeof(kept[0]))
		kept[n_kept++] = buf;
}

int rig_read_wb_fb_id(struct rig *rig, uint64_t *value, char err[RIG_ERR_MAX])
{
	drmModeObjectProperties *l = drmModeObjectGetProperties(rig->dev->fd, rig->wb->id,
		DRM_MODE_OBJECT_CONNECTOR);
	if (!l)
		return fail(err, "reading %s's properties: %s", rig->wb->name, strerror(errno));
	int ret = fail(err, "%s has no WRITEBACK_FB_ID", rig->wb->name);
	for (uint32_t i = 0; i < l->count_props; i++)
		if (l->props[i] == rig->wb->props.writeback_fb_id) {
			*value = l->prop_values[i];
			ret = 0;
		}
	drmModeFreeObjectProperties(l);
	return ret;
}
