/* What discovery found, as a json-c tree (stable; documented in doc/library.md and
 * wbc-kms-info(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>
#include <xf86drm.h>
#include "info.h"

static json_object *fourcc_obj(uint32_t fourcc)
{
	json_object *o = json_object_new_object();
	char *name = drmGetFormatName(fourcc);
	json_object_object_add(o, "fourcc", json_object_new_int64(fourcc));
	json_object_object_add(o, "name", json_object_new_string(name ? name : "?"));
	free(name);
	return o;
}

static json_object *crtc_mask(const struct wbc_kms_device *dev, uint32_t mask)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < dev->n_crtcs; i++)
		if (mask & (1u << dev->crtcs[i].index))
			json_object_array_add(a, json_object_new_int64(dev->crtcs[i].id));
	return a;
}

static json_object *mode_obj(const drmModeModeInfo *m)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(m->name));
	json_object_object_add(o, "width", json_object_new_int(m->hdisplay));
	json_object_object_add(o, "height", json_object_new_int(m->vdisplay));
	json_object_object_add(o, "refresh", json_object_new_int((int)m->vrefresh));
	json_object_object_add(o, "clock", json_object_new_int((int)m->clock));
	json_object_object_add(o, "preferred",
		json_object_new_boolean(m->type & DRM_MODE_TYPE_PREFERRED));
	return o;
}

static json_object *caps_obj(const struct wbc_kms_caps *c)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "atomic", json_object_new_boolean(c->atomic));
	json_object_object_add(o, "universal_planes", json_object_new_boolean(c->universal_planes));
	json_object_object_add(o, "writeback_connectors",
		json_object_new_boolean(c->writeback_connectors));
	json_object_object_add(o, "dumb_buffer", json_object_new_boolean(c->dumb_buffer));
	json_object_object_add(o, "prime_import", json_object_new_boolean(c->prime_import));
	json_object_object_add(o, "prime_export", json_object_new_boolean(c->prime_export));
	json_object_object_add(o, "timestamp_monotonic",
		json_object_new_boolean(c->timestamp_monotonic));
	json_object_object_add(o, "addfb2_modifiers", json_object_new_boolean(c->addfb2_modifiers));
	json_object_object_add(o, "cursor_width", json_object_new_int64((int64_t)c->cursor_width));
	json_object_object_add(o, "cursor_height", json_object_new_int64((int64_t)c->cursor_height));
	return o;
}

static json_object *plane_obj(const struct wbc_kms_device *dev, const struct wbc_kms_plane *p)
{
	json_object *o = json_object_new_object(), *formats = json_object_new_array();
	json_object_object_add(o, "id", json_object_new_int64(p->id));
	json_object_object_add(o, "type", json_object_new_string(wbc_kms_plane_type_name(p->type)));
	json_object_object_add(o, "possible_crtcs", crtc_mask(dev, p->possible_crtcs));
	json_object_object_add(o, "has_in_formats", json_object_new_boolean(p->has_in_formats));
	for (size_t i = 0; i < p->n_formats; i++) {
		json_object *f = fourcc_obj(p->formats[i].fourcc), *mods = json_object_new_array();
		for (size_t m = 0; m < p->formats[i].n_modifiers; m++)
			json_object_array_add(mods,
				json_object_new_uint64(p->formats[i].modifiers[m]));
		json_object_object_add(f, "modifiers", mods);
		json_object_array_add(formats, f);
	}
	json_object_object_add(o, "formats", formats);
	if (p->has_zpos)
		json_object_object_add(o, "zpos", json_object_new_uint64(p->zpos));
	json_object_object_add(o, "has_alpha", json_object_new_boolean(p->props.alpha != 0));
	json_object_object_add(o, "has_blend_mode",
		json_object_new_boolean(p->props.pixel_blend_mode != 0));
	return o;
}

static const char *status_name(drmModeConnection s)
{
	switch (s) {
	case DRM_MODE_CONNECTED: return "connected";
	case DRM_MODE_DISCONNECTED: return "disconnected";
	default: return "unknown";
	}
}

static json_object *connector_obj(const struct wbc_kms_device *dev,
		const struct wbc_kms_connector *c)
{
	json_object *o = json_object_new_object(), *modes = json_object_new_array();
	json_object *encoders = json_object_new_array();
	json_object_object_add(o, "id", json_object_new_int64(c->id));
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "type", json_object_new_string(wbc_kms_connector_type_name(c->type)));
	json_object_object_add(o, "type_id", json_object_new_int64(c->type));
	json_object_object_add(o, "status", json_object_new_string(status_name(c->status)));
	json_object_object_add(o, "has_edid", json_object_new_boolean(c->has_edid));
	json_object_object_add(o, "possible_crtcs", crtc_mask(dev, c->possible_crtcs));
	for (size_t i = 0; i < c->n_encoders; i++)
		json_object_array_add(encoders, json_object_new_int64(c->encoders[i]));
	json_object_object_add(o, "encoders", encoders);
	for (size_t i = 0; i < c->n_modes; i++)
		json_object_array_add(modes, mode_obj(&c->modes[i]));
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "writeback", json_object_new_boolean(c->writeback));
	if (c->writeback) {
		json_object *wf = json_object_new_array();
		for (size_t i = 0; i < c->n_writeback_formats; i++)
			json_object_array_add(wf, fourcc_obj(c->writeback_formats[i]));
		json_object_object_add(o, "writeback_formats", wf);
	}
	return o;
}

json_object *wbc_kms_info_json(const struct wbc_kms_device *dev)
{
	json_object *root = json_object_new_object(), *drv = json_object_new_object();
	json_object *crtcs = json_object_new_array(), *planes = json_object_new_array();
	json_object *encoders = json_object_new_array(), *conns = json_object_new_array();
	json_object_object_add(root, "device", json_object_new_string(dev->path));
	json_object_object_add(drv, "name", json_object_new_string(dev->driver));
	json_object_object_add(drv, "desc", json_object_new_string(dev->driver_desc));
	char ver[32];
	snprintf(ver, sizeof(ver), "%d.%d.%d", dev->driver_major, dev->driver_minor,
		dev->driver_patch);
	json_object_object_add(drv, "version", json_object_new_string(ver));
	json_object_object_add(root, "driver", drv);
	json_object_object_add(root, "caps", caps_obj(&dev->caps));
	for (size_t i = 0; i < dev->n_crtcs; i++) {
		const struct wbc_kms_crtc *c = &dev->crtcs[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(c->id));
		json_object_object_add(o, "index", json_object_new_int64(c->index));
		json_object_object_add(o, "active", json_object_new_boolean(c->active));
		json_object_object_add(o, "gamma_size", json_object_new_int64(c->gamma_size));
		if (c->mode_valid)
			json_object_object_add(o, "mode", mode_obj(&c->mode));
		json_object_array_add(crtcs, o);
	}
	for (size_t i = 0; i < dev->n_planes; i++)
		json_object_array_add(planes, plane_obj(dev, &dev->planes[i]));
	for (size_t i = 0; i < dev->n_encoders; i++) {
		const struct wbc_kms_encoder *e = &dev->encoders[i];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(e->id));
		json_object_object_add(o, "type", json_object_new_int64(e->type));
		json_object_object_add(o, "possible_crtcs", crtc_mask(dev, e->possible_crtcs));
		json_object_array_add(encoders, o);
	}
	for (size_t i = 0; i < dev->n_connectors; i++)
		json_object_array_add(conns, connector_obj(dev, &dev->connectors[i]));
	json_object_object_add(root, "crtcs", crtcs);
	json_object_object_add(root, "planes", planes);
	json_object_object_add(root, "encoders", encoders);
	json_object_object_add(root, "connectors", conns);
	return root;
}

static void print_formats(FILE *f, const struct wbc_kms_plane *p)
{
	for (size_t i = 0; i < p->n_formats; i++) {
		char *name = drmGetFormatName(p->formats[i].fourcc);
		fprintf(f, "%s%s", i ? " " : "", name ? name : "?");
		free(name);
		if (p->formats[i].n_modifiers > 1 ||
				(p->formats[i].n_modifiers == 1 && p->formats[i].modifiers[0]))
			fprintf(f, "(+%zu modifiers)", p->formats[i].n_modifiers);
	}
}

void wbc_kms_info_print(FILE *f, const struct wbc_kms_device *dev)
{
	const struct wbc_kms_caps *c = &dev->caps;
	fprintf(f, "%s: driver %s %d.%d.%d (%s)\n", dev->path, dev->driver, dev->driver_major,
		dev->driver_minor, dev->driver_patch, dev->driver_desc);
	fprintf(f, "caps: atomic=%d universal_planes=%d writeback=%d dumb=%d prime=%d%d "
		"modifiers=%d cursor=%llux%llu\n", c->atomic, c->universal_planes,
		c->writeback_connectors, c->dumb_buffer, c->prime_import, c->prime_export,
		c->addfb2_modifiers, (unsigned long long)c->cursor_width,
		(unsigned long long)c->cursor_height);
	for (size_t i = 0; i < dev->n_crtcs; i++)
		fprintf(f, "crtc %u: %s\n", dev->crtcs[i].id, dev->crtcs[i].active ? "active" : "off");
	for (size_t i = 0; i < dev->n_planes; i++) {
		const struct wbc_kms_plane *p = &dev->planes[i];
		fprintf(f, "plane %u: %-7s crtcs 0x%x formats ", p->id,
			wbc_kms_plane_type_name(p->type), p->possible_crtcs);
		print_formats(f, p);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < dev->n_encoders; i++)
		fprintf(f, "encoder %u: type %u crtcs 0x%x\n", dev->encoders[i].id,
			dev->encoders[i].type, dev->encoders[i].possible_crtcs);
	for (size_t i = 0; i < dev->n_connectors; i++) {
		const struct wbc_kms_connector *k = &dev->connectors[i];
		fprintf(f, "connector %u: %s %s, %zu modes", k->id, k->name, status_name(k->status),
			k->n_modes);
		if (k->preferred_mode >= 0)
			fprintf(f, ", preferred %s@%u", k->modes[k->preferred_mode].name,
				k->modes[k->preferred_mode].vrefresh);
		if (k->writeback) {
			fprintf(f, ", writeback formats");
			for (size_t w = 0; w < k->n_writeback_formats; w++) {
				char *name = drmGetFormatName(k->writeback_formats[w]);
				fprintf(f, " %s", name ? name : "?");
				free(name);
			}
		}
		fprintf(f, "\n");
	}
}
