/* Discovery: every CRTC, plane, encoder and connector, with property ids by name, and
 * the lookups by id over them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>
#include "pipe.h"

#define PROP(s, field, name) { name, offsetof(struct s, field) }

static const struct wbc_kms_prop_spec crtc_specs[] = {
	PROP(wbc_kms_crtc_props, active, "ACTIVE"),
	PROP(wbc_kms_crtc_props, mode_id, "MODE_ID"),
	PROP(wbc_kms_crtc_props, out_fence_ptr, "OUT_FENCE_PTR"),
	PROP(wbc_kms_crtc_props, vrr_enabled, "VRR_ENABLED"),
};

enum { PLANE_TYPE, PLANE_IN_FORMATS, PLANE_ZPOS, PLANE_SRC_X, PLANE_SRC_Y, PLANE_SRC_W,
	PLANE_SRC_H, PLANE_CRTC_X, PLANE_CRTC_Y, PLANE_CRTC_W, PLANE_CRTC_H };
static const struct wbc_kms_prop_spec plane_specs[] = {
	[PLANE_TYPE] = PROP(wbc_kms_plane_props, type, "type"),
	[PLANE_IN_FORMATS] = PROP(wbc_kms_plane_props, in_formats, "IN_FORMATS"),
	[PLANE_ZPOS] = PROP(wbc_kms_plane_props, zpos, "zpos"),
	[PLANE_SRC_X] = PROP(wbc_kms_plane_props, src_x, "SRC_X"),
	[PLANE_SRC_Y] = PROP(wbc_kms_plane_props, src_y, "SRC_Y"),
	[PLANE_SRC_W] = PROP(wbc_kms_plane_props, src_w, "SRC_W"),
	[PLANE_SRC_H] = PROP(wbc_kms_plane_props, src_h, "SRC_H"),
	[PLANE_CRTC_X] = PROP(wbc_kms_plane_props, crtc_x, "CRTC_X"),
	[PLANE_CRTC_Y] = PROP(wbc_kms_plane_props, crtc_y, "CRTC_Y"),
	[PLANE_CRTC_W] = PROP(wbc_kms_plane_props, crtc_w, "CRTC_W"),
	[PLANE_CRTC_H] = PROP(wbc_kms_plane_props, crtc_h, "CRTC_H"),
	PROP(wbc_kms_plane_props, fb_id, "FB_ID"),
	PROP(wbc_kms_plane_props, crtc_id, "CRTC_ID"),
	PROP(wbc_kms_plane_props, in_fence_fd, "IN_FENCE_FD"),
	PROP(wbc_kms_plane_props, alpha, "alpha"),
	PROP(wbc_kms_plane_props, pixel_blend_mode, "pixel blend mode"),
	PROP(wbc_kms_plane_props, rotation, "rotation"),
};

enum { CONN_EDID, CONN_WB_FORMATS, CONN_CRTC_ID };
static const struct wbc_kms_prop_spec connector_specs[] = {
	[CONN_EDID] = PROP(wbc_kms_connector_props, edid, "EDID"),
	[CONN_WB_FORMATS] = PROP(wbc_kms_connector_props, writeback_pixel_formats,
		"WRITEBACK_PIXEL_FORMATS"),
	[CONN_CRTC_ID] = PROP(wbc_kms_connector_props, crtc_id, "CRTC_ID"),
	PROP(wbc_kms_connector_props, dpms, "DPMS"),
	PROP(wbc_kms_connector_props, link_status, "link-status"),
	PROP(wbc_kms_connector_props, writeback_fb_id, "WRITEBACK_FB_ID"),
	PROP(wbc_kms_connector_props, writeback_out_fence_ptr, "WRITEBACK_OUT_FENCE_PTR"),
};

static int discover_crtc(struct wbc_kms_device *dev, uint32_t id, unsigned index)
{
	struct wbc_kms_crtc *crtc = &dev->crtcs[index];
	drmModeCrtc *c = drmModeGetCrtc(dev->fd, id);
	if (!c)
		return wbc_kms_fail(dev, -errno, "drmModeGetCrtc(%u): %s", id, strerror(errno));
	crtc->id = id;
	crtc->index = index;
	crtc->gamma_size = (uint32_t)c->gamma_size;
	crtc->mode_valid = c->mode_valid;
	crtc->mode = c->mode;
	crtc->active = c->mode_valid && c->buffer_id;
	drmModeFreeCrtc(c);
	uint64_t values[WBC_ARRAY_LEN(crtc_specs)] = { 0 };
	int ret = wbc_kms_props_lookup(dev->fd, id, DRM_MODE_OBJECT_CRTC, crtc_specs,
		WBC_ARRAY_LEN(crtc_specs), &crtc->props, values);
	if (ret < 0)
		return wbc_kms_fail(dev, ret, "properties of CRTC %u: %s", id, strerror(-ret));
	if (crtc->props.active)
		crtc->active = values[0] != 0;
	return 0;
}

static int read_plane_formats(struct wbc_kms_device *dev, struct wbc_kms_plane *plane,
		const drmModePlane *p, uint64_t in_formats_blob)
{
	if (plane->props.in_formats && in_formats_blob) {
		void *blob;
		size_t len;
		int ret = wbc_kms_blob_read(dev->fd, (uint32_t)in_formats_blob, &blob, &len);
		if (ret == 0) {
			ret = wbc_kms_parse_in_formats(blob, len, &plane->formats, &plane->n_formats);
			free(blob);
		}
		if (ret < 0)
			return wbc_kms_fail(dev, ret, "IN_FORMATS of plane %u is malformed: %s",
				plane->id, strerror(-ret));
		plane->has_in_formats = true;
		return 0;
	}
	/* No IN_FORMATS: the plane takes its formats with implicit (linear) layout only. */
	plane->formats = calloc(p->count_formats ? p->count_formats : 1, sizeof(*plane->formats));
	if (!plane->formats)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < p->count_formats; i++)
		plane->formats[i].fourcc = p->formats[i];
	plane->n_formats = p->count_formats;
	return 0;
}

static int discover_plane(struct wbc_kms_device *dev, uint32_t id, struct wbc_kms_plane *plane)
{
	drmModePlane *p = drmModeGetPlane(dev->fd, id);
	if (!p)
		return wbc_kms_fail(dev, -errno, "drmModeGetPlane(%u): %s", id, strerror(errno));
	plane->id = id;
	plane->possible_crtcs = p->possible_crtcs;
	plane->crtc_id = p->crtc_id;
	plane->fb_id = p->fb_id;
	uint64_t values[WBC_ARRAY_LEN(plane_specs)] = { 0 };
	int ret = wbc_kms_props_lookup(dev->fd, id, DRM_MODE_OBJECT_PLANE, plane_specs,
		WBC_ARRAY_LEN(plane_specs), &plane->props, values);
	if (ret < 0) {
		drmModeFreePlane(p);
		return wbc_kms_fail(dev, ret, "properties of plane %u: %s", id, strerror(-ret));
	}
	plane->type = (enum wbc_kms_plane_type)values[PLANE_TYPE];
	plane->found = (struct wbc_kms_plane_placement){
		.src_x = values[PLANE_SRC_X], .src_y = values[PLANE_SRC_Y],
		.src_w = values[PLANE_SRC_W], .src_h = values[PLANE_SRC_H],
		.crtc_x = (int64_t)values[PLANE_CRTC_X], .crtc_y = (int64_t)values[PLANE_CRTC_Y],
		.crtc_w = values[PLANE_CRTC_W], .crtc_h = values[PLANE_CRTC_H],
	};
	if (plane->props.zpos) {
		drmModePropertyRes *zp = drmModeGetProperty(dev->fd, plane->props.zpos);
		plane->has_zpos = true;
		plane->zpos = values[PLANE_ZPOS];
		if (zp && (zp->flags & DRM_MODE_PROP_RANGE) && zp->count_values == 2) {
			plane->zpos_min = zp->values[0];
			plane->zpos_max = zp->values[1];
		}
		drmModeFreeProperty(zp);
	}
	ret = read_plane_formats(dev, plane, p, values[PLANE_IN_FORMATS]);
	drmModeFreePlane(p);
	return ret;
}

static int discover_encoder(struct wbc_kms_device *dev, uint32_t id, unsigned index,
		struct wbc_kms_encoder *enc)
{
	enc->index = index;
	drmModeEncoder *e = drmModeGetEncoder(dev->fd, id);
	if (!e)
		return wbc_kms_fail(dev, -errno, "drmModeGetEncoder(%u): %s", id, strerror(errno));
	enc->id = id;
	enc->type = e->encoder_type;
	enc->possible_crtcs = e->possible_crtcs;
	enc->possible_clones = e->possible_clones;
	enc->crtc_id = e->crtc_id;
	drmModeFreeEncoder(e);
	return 0;
}

static uint32_t encoder_crtcs(const struct wbc_kms_device *dev, uint32_t encoder_id)
{
	for (size_t i = 0; i < dev->n_encoders; i++)
		if (dev->encoders[i].id == encoder_id)
			return dev->encoders[i].possible_crtcs;
	return 0;
}

static int read_writeback_formats(struct wbc_kms_device *dev, struct wbc_kms_connector *conn,
		uint64_t blob_id)
{
	if (!conn->props.writeback_pixel_formats || !blob_id)
		return wbc_kms_fail(dev, -ENOENT,
			"writeback connector %u has no WRITEBACK_PIXEL_FORMATS", conn->id);
	void *blob;
	size_t len;
	int ret = wbc_kms_blob_read(dev->fd, (uint32_t)blob_id, &blob, &len);
	if (ret == 0) {
		ret = wbc_kms_parse_fourcc_list(blob, len, &conn->writeback_formats,
			&conn->n_writeback_formats);
		free(blob);
	}
	if (ret < 0)
		return wbc_kms_fail(dev, ret, "WRITEBACK_PIXEL_FORMATS of connector %u: %s",
			conn->id, strerror(-ret));
	return 0;
}

static int discover_connector(struct wbc_kms_device *dev, uint32_t id,
		struct wbc_kms_connector *conn)
{
	drmModeConnector *c = drmModeGetConnector(dev->fd, id);
	if (!c)
		return wbc_kms_fail(dev, -errno, "drmModeGetConnector(%u): %s", id, strerror(errno));
	conn->id = id;
	conn->type = c->connector_type;
	conn->type_id = c->connector_type_id;
	snprintf(conn->name, sizeof(conn->name), "%s-%u",
		wbc_kms_connector_type_name(c->connector_type), c->connector_type_id);
	conn->status = c->connection;
	conn->mm_width = c->mmWidth;
	conn->mm_height = c->mmHeight;
	conn->writeback = c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK;
	conn->preferred_mode = -1;
	int nm = c->count_modes > 0 ? c->count_modes : 0;
	int ne = c->count_encoders > 0 ? c->count_encoders : 0;
	conn->modes = calloc((size_t)nm + 1, sizeof(*conn->modes));
	conn->encoders = calloc((size_t)ne + 1, sizeof(*conn->encoders));
	if (!conn->modes || !conn->encoders) {
		drmModeFreeConnector(c);
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < nm; i++) {
		conn->modes[i] = c->modes[i];
		if (conn->preferred_mode < 0 && (c->modes[i].type & DRM_MODE_TYPE_PREFERRED))
			conn->preferred_mode = i;
	}
	conn->n_modes = (size_t)nm;
	for (int i = 0; i < ne; i++) {
		conn->encoders[i] = c->encoders[i];
		conn->possible_crtcs |= encoder_crtcs(dev, c->encoders[i]);
	}
	conn->n_encoders = (size_t)ne;
	drmModeFreeConnector(c);

	uint64_t values[WBC_ARRAY_LEN(connector_specs)] = { 0 };
	int ret = wbc_kms_props_lookup(dev->fd, id, DRM_MODE_OBJECT_CONNECTOR, connector_specs,
		WBC_ARRAY_LEN(connector_specs), &conn->props, values);
	if (ret < 0)
		return wbc_kms_fail(dev, ret, "properties of connector %u: %s", id, strerror(-ret));
	conn->has_edid = conn->props.edid && values[CONN_EDID] != 0;
	conn->crtc_id = (uint32_t)values[CONN_CRTC_ID];
	if (conn->writeback)
		return read_writeback_formats(dev, conn, values[CONN_WB_FORMATS]);
	return 0;
}

static int alloc_arrays(struct wbc_kms_device *dev, const drmModeRes *res,
		const drmModePlaneRes *pres)
{
	dev->crtcs = calloc((size_t)res->count_crtcs + 1, sizeof(*dev->crtcs));
	dev->encoders = calloc((size_t)res->count_encoders + 1, sizeof(*dev->encoders));
	dev->connectors = calloc((size_t)res->count_connectors + 1, sizeof(*dev->connectors));
	dev->planes = calloc((size_t)pres->count_planes + 1, sizeof(*dev->planes));
	if (!dev->crtcs || !dev->encoders || !dev->connectors || !dev->planes)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	return 0;
}

static int discover_all(struct wbc_kms_device *dev, const drmModeRes *res,
		const drmModePlaneRes *pres)
{
	int ret = alloc_arrays(dev, res, pres);
	for (int i = 0; ret == 0 && i < res->count_crtcs; i++, dev->n_crtcs++)
		ret = discover_crtc(dev, res->crtcs[i], (unsigned)i);
	for (uint32_t i = 0; ret == 0 && i < pres->count_planes; i++, dev->n_planes++)
		ret = discover_plane(dev, pres->planes[i], &dev->planes[i]);
	for (int i = 0; ret == 0 && i < res->count_encoders; i++, dev->n_encoders++)
		ret = discover_encoder(dev, res->encoders[i], (unsigned)i, &dev->encoders[i]);
	for (int i = 0; ret == 0 && i < res->count_connectors; i++, dev->n_connectors++)
		ret = discover_connector(dev, res->connectors[i], &dev->connectors[i]);
	dev->caps.min_width = res->min_width;
	dev->caps.max_width = res->max_width;
	dev->caps.min_height = res->min_height;
	dev->caps.max_height = res->max_height;
	return ret;
}

int wbc_kms_discover(struct wbc_kms_device *dev)
{
	drmModeRes *res = drmModeGetResources(dev->fd);
	if (!res)
		return wbc_kms_fail(dev, -errno, "%s: drmModeGetResources: %s (not a KMS device?)",
			dev->path, strerror(errno));
	drmModePlaneRes *pres = drmModeGetPlaneResources(dev->fd);
	if (!pres) {
		int err = errno;
		drmModeFreeResources(res);
		return wbc_kms_fail(dev, -err, "%s: drmModeGetPlaneResources: %s", dev->path,
			strerror(err));
	}
	int ret = discover_all(dev, res, pres);
	drmModeFreePlaneResources(pres);
	drmModeFreeResources(res);
	return ret;
}

void wbc_kms_discovery_free(struct wbc_kms_device *dev)
{
	for (size_t i = 0; dev->planes && i < dev->n_planes; i++)
		wbc_kms_formats_free(dev->planes[i].formats, dev->planes[i].n_formats);
	for (size_t i = 0; dev->connectors && i < dev->n_connectors; i++) {
		free(dev->connectors[i].modes);
		free(dev->connectors[i].encoders);
		free(dev->connectors[i].writeback_formats);
	}
	free(dev->crtcs);
	free(dev->planes);
	free(dev->encoders);
	free(dev->connectors);
	dev->crtcs = NULL;
	dev->planes = NULL;
	dev->encoders = NULL;
	dev->connectors = NULL;
}

/* Lookups by id over what discovery found; the objects live until the device goes. */
struct wbc_kms_crtc *wbc_kms_device_crtc(struct wbc_kms_device *dev, uint32_t id)
{
	for (size_t i = 0; i < dev->n_crtcs; i++)
		if (dev->crtcs[i].id == id)
			return &dev->crtcs[i];
	return NULL;
}

struct wbc_kms_plane *wbc_kms_device_plane(struct wbc_kms_device *dev, uint32_t id)
{
	for (size_t i = 0; i < dev->n_planes; i++)
		if (dev->planes[i].id == id)
			return &dev->planes[i];
	return NULL;
}

struct wbc_kms_connector *wbc_kms_device_connector(struct wbc_kms_device *dev, uint32_t id)
{
	for (size_t i = 0; i < dev->n_connectors; i++)
		if (dev->connectors[i].id == id)
			return &dev->connectors[i];
	return NULL;
}

struct wbc_kms_connector *wbc_kms_device_writeback_connector(struct wbc_kms_device *dev)
{
	for (size_t i = 0; i < dev->n_connectors; i++)
		if (dev->connectors[i].writeback)
			return &dev->connectors[i];
	return NULL;
}

/* ---- Re-reading connectors (hotplug) ------------------------------------------------ */

static bool modes_equal(const struct wbc_kms_connector *a, const drmModeConnector *b)
{
	if (a->n_modes != (size_t)(b->count_modes > 0 ? b->count_modes : 0))
		return false;
	for (size_t i = 0; i < a->n_modes; i++)
		if (memcmp(&a->modes[i], &b->modes[i], sizeof(a->modes[i])) != 0)
			return false;
	return true;
}

/* Take status, size and modes from c; what changed in *changes. */
static int update_connector(struct wbc_kms_device *dev, struct wbc_kms_connector *conn,
		const drmModeConnector *c, unsigned *changes)
{
	*changes = 0;
	if (c->connection != conn->status)
		*changes |= WBC_KMS_CONNECTOR_STATUS_CHANGED;
	if (!modes_equal(conn, c))
		*changes |= WBC_KMS_CONNECTOR_MODES_CHANGED;
	conn->status = c->connection;
	conn->mm_width = c->mmWidth;
	conn->mm_height = c->mmHeight;
	if (!(*changes & WBC_KMS_CONNECTOR_MODES_CHANGED))
		return 0;
	size_t nm = c->count_modes > 0 ? (size_t)c->count_modes : 0;
	drmModeModeInfo *modes = calloc(nm + 1, sizeof(*modes));
	if (!modes)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	free(conn->modes);
	conn->modes = modes;
	conn->n_modes = nm;
	conn->preferred_mode = -1;
	for (size_t i = 0; i < nm; i++) {
		modes[i] = c->modes[i];
		if (conn->preferred_mode < 0 && (modes[i].type & DRM_MODE_TYPE_PREFERRED))
			conn->preferred_mode = (int)i;
	}
	return 0;
}

int wbc_kms_device_reprobe(struct wbc_kms_device *dev,
		const struct wbc_kms_connector_listener *listener)
{
	int ret = 0;
	wbc_kms_pipe_retry_parked(dev);
	for (size_t i = 0; i < dev->n_connectors; i++) {
		struct wbc_kms_connector *conn = &dev->connectors[i];
		if (conn->writeback)         /* never plugged: always "unknown", fixed modes */
			continue;
		/* The full call: the kernel probes the connector (drmModeGetConnectorCurrent
		 * would only return what it knew). */
		drmModeConnector *c = drmModeGetConnector(dev->fd, conn->id);
		if (!c) {
			ret = wbc_kms_fail(dev, -errno, "drmModeGetConnector(%u): %s", conn->id,
				strerror(errno));
			continue;
		}
		unsigned changes;
		int r = update_connector(dev, conn, c, &changes);
		drmModeFreeConnector(c);
		if (r < 0) {
			ret = r;
			continue;
		}
		if (changes && listener && listener->changed)
			listener->changed(listener->data, conn, changes);
	}
	return ret;
}
