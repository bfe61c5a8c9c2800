/*
 * Putting the display back the way discovery found it (wbc_kms_device_restore), like
 * wlroots' DRM backend does at exit, but atomically: one blocking ALLOW_MODESET commit
 * with the found ACTIVE and mode of every CRTC, CRTC_ID of every connector, and FB_ID,
 * CRTC_ID and placement of every plane. Objects nobody changed get their own values back,
 * which the kernel treats as no change.
 *
 * What "found" can mean: the mode, routing and placement are plain values and always
 * come back; a framebuffer belongs to the DRM file that made it and is gone once that
 * file is closed, so a plane whose framebuffer no longer exists stays off.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>
#include "private.h"

/* A short, growing description of what the restore did. */
struct summary {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void say(struct summary *s, const char *fmt, ...)
{
	if (!s->len || s->used >= s->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->buf + s->used, s->len - s->used, fmt, ap);
	va_end(ap);
	s->used += n > 0 ? (size_t)n : 0;
}

static bool fb_exists(int fd, uint32_t id)
{
	drmModeFB *fb = drmModeGetFB(fd, id);
	if (fb && fb->handle)            /* GETFB gave a master a handle of its own to it */
		drmCloseBufferHandle(fd, fb->handle);
	drmModeFreeFB(fb);
	return fb != NULL;
}

static bool crtc_lit(const struct wbc_kms_crtc *crtc)
{
	return crtc && crtc->active && crtc->mode_valid;
}

static int add_crtc(struct wbc_kms_device *dev, drmModeAtomicReq *req,
		const struct wbc_kms_crtc *crtc, uint32_t *blob, struct summary *s)
{
	int ret = 0;
	*blob = 0;
	if (crtc_lit(crtc) && drmModeCreatePropertyBlob(dev->fd, &crtc->mode,
			sizeof(crtc->mode), blob) != 0)
		return wbc_kms_fail(dev, -errno, "mode blob: %s", strerror(errno));
	ADD(crtc, crtc->props, active, crtc_lit(crtc));
	ADD(crtc, crtc->props, mode_id, *blob);
	if (crtc_lit(crtc))
		say(s, "%sCRTC %u on, %s", s->used ? "; " : "", crtc->id, crtc->mode.name);
	else
		say(s, "%sCRTC %u off", s->used ? "; " : "", crtc->id);
	return ret;
}

static int add_connector(struct wbc_kms_device *dev, drmModeAtomicReq *req,
		const struct wbc_kms_connector *c, struct summary *s)
{
	int ret = 0;
	uint32_t crtc = crtc_lit(wbc_kms_device_crtc(dev, c->crtc_id)) ? c->crtc_id : 0;
	ADD(c, c->props, crtc_id, crtc);
	if (crtc)
		say(s, ", %s", c->name);
	return ret;
}

static int add_plane(struct wbc_kms_device *dev, drmModeAtomicReq *req,
		const struct wbc_kms_plane *p, struct summary *s)
{
	int ret = 0;
	bool shown = p->fb_id && crtc_lit(wbc_kms_device_crtc(dev, p->crtc_id));
	if (shown && !fb_exists(dev->fd, p->fb_id)) {
		say(s, ", %s plane %u stays off (its framebuffer %u is gone)",
			wbc_kms_plane_type_name(p->type), p->id, p->fb_id);
		shown = false;
	}
	if (!shown) {
		ADD(p, p->props, fb_id, 0);
		ADD(p, p->props, crtc_id, 0);
		return ret;
	}
	const struct wbc_kms_plane_placement *f = &p->found;
	ADD(p, p->props, fb_id, p->fb_id);
	ADD(p, p->props, crtc_id, p->crtc_id);
	ADD(p, p->props, src_x, f->src_x);
	ADD(p, p->props, src_y, f->src_y);
	ADD(p, p->props, src_w, f->src_w);
	ADD(p, p->props, src_h, f->src_h);
	ADD(p, p->props, crtc_x, (uint64_t)f->crtc_x);
	ADD(p, p->props, crtc_y, (uint64_t)f->crtc_y);
	ADD(p, p->props, crtc_w, f->crtc_w);
	ADD(p, p->props, crtc_h, f->crtc_h);
	say(s, ", %s plane %u with framebuffer %u", wbc_kms_plane_type_name(p->type), p->id,
		p->fb_id);
	return ret;
}

/* The found state of the connectors and planes on CRTC crtc_id (0: on none). */
static int add_routed(struct wbc_kms_device *dev, drmModeAtomicReq *req, uint32_t crtc_id,
		struct summary *s)
{
	int ret = 0;
	for (size_t i = 0; ret == 0 && i < dev->n_connectors; i++)
		if (dev->connectors[i].crtc_id == crtc_id)
			ret = add_connector(dev, req, &dev->connectors[i], s);
	for (size_t i = 0; ret == 0 && i < dev->n_planes; i++)
		if (dev->planes[i].crtc_id == crtc_id)
			ret = add_plane(dev, req, &dev->planes[i], s);
	return ret;
}

int wbc_kms_device_restore(struct wbc_kms_device *dev, char *summary, size_t len)
{
	struct summary s = { .buf = summary, .len = len };
	if (len)
		summary[0] = '\0';
	if (!dev->changed) {
		say(&s, "nothing changed");
		return 0;
	}
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t *blobs = calloc(dev->n_crtcs + 1, sizeof(*blobs));
	int ret = req && blobs ? 0 : wbc_kms_fail(dev, -ENOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < dev->n_crtcs; i++) {
		ret = add_crtc(dev, req, &dev->crtcs[i], &blobs[i], &s);
		ret = ret ? ret : add_routed(dev, req, dev->crtcs[i].id, &s);
	}
	ret = ret ? ret : add_routed(dev, req, 0, &s);
	if (ret == 0 && drmModeAtomicCommit(dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET,
			NULL) != 0)
		ret = wbc_kms_fail(dev, -errno, "%s: restoring the display state found at open "
			"(%s): %s", dev->path, s.used ? summary : "", strerror(errno));
	for (size_t i = 0; blobs && i < dev->n_crtcs; i++)
		if (blobs[i])
			drmModeDestroyPropertyBlob(dev->fd, blobs[i]);
	free(blobs);
	drmModeAtomicFree(req);
	dev->changed = ret < 0;
	return ret;
}
