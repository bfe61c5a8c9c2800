/* The pixman reference renderer (see reference.h for the rules it follows). */
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include "image.h"
#include "reference.h"

/* Stacking order: an explicit zpos, else the plane's own (immutable or current) zpos,
 * else by type (primary, overlays as listed, cursor on top), as drivers without a zpos
 * property stack them. */
static uint64_t stack_key(const struct rig_plane *p, unsigned index)
{
	uint64_t z = p->has_zpos ? p->zpos : p->plane->has_zpos ? p->plane->zpos :
		p->plane->type == WBC_KMS_PLANE_PRIMARY ? 0 :
		p->plane->type == WBC_KMS_PLANE_CURSOR ? 2 : 1;
	return z << 8 | index;
}

static void stacking_order(const struct rig_scene *scene, unsigned order[RIG_MAX_PLANES])
{
	for (unsigned i = 0; i < scene->n; i++)
		order[i] = i;
	for (unsigned i = 1; i < scene->n; i++)    /* insertion sort: at most 8 planes */
		for (unsigned j = i; j > 0 && stack_key(&scene->planes[order[j]], order[j]) <
				stack_key(&scene->planes[order[j - 1]], order[j - 1]); j--) {
			unsigned t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

static void mul(struct pixman_f_transform *m, const double step[3][3])
{
	struct pixman_f_transform s, out;
	memcpy(s.m, step, sizeof(s.m));
	pixman_f_transform_multiply(&out, m, &s);
	*m = out;
}

/*
 * CRTC-rectangle coordinates (u, v) → source pixel coordinates, undoing in reverse what
 * the engine does: scale back to the rotated source size, rotate back, reflect back,
 * offset by the source rectangle.
 */
static void plane_transform(const struct rig_plane *p, uint32_t sw, uint32_t sh, uint32_t cw,
		uint32_t ch, struct pixman_f_transform *m)
{
	uint32_t rot = p->has_rotation ? p->rotation : DRM_MODE_ROTATE_0;
	bool swap = rot & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
	double rw = swap ? sh : sw, rh = swap ? sw : sh, w = sw, h = sh;
	pixman_f_transform_init_identity(m);
	mul(m, (const double[3][3]){ { 1, 0, p->src_x }, { 0, 1, p->src_y }, { 0, 0, 1 } });
	if (rot & DRM_MODE_REFLECT_X)
		mul(m, (const double[3][3]){ { -1, 0, w }, { 0, 1, 0 }, { 0, 0, 1 } });
	if (rot & DRM_MODE_REFLECT_Y)
		mul(m, (const double[3][3]){ { 1, 0, 0 }, { 0, -1, h }, { 0, 0, 1 } });
	/* Counter-clockwise on screen (y down): rotated (u, v) came from source (x, y). */
	if (rot & DRM_MODE_ROTATE_90)
		mul(m, (const double[3][3]){ { 0, -1, w }, { 1, 0, 0 }, { 0, 0, 1 } });
	if (rot & DRM_MODE_ROTATE_180)
		mul(m, (const double[3][3]){ { -1, 0, w }, { 0, -1, h }, { 0, 0, 1 } });
	if (rot & DRM_MODE_ROTATE_270)
		mul(m, (const double[3][3]){ { 0, 1, 0 }, { -1, 0, h }, { 0, 0, 1 } });
	mul(m, (const double[3][3]){ { rw / cw, 0, 0 }, { 0, rh / ch, 0 }, { 0, 0, 1 } });
}

/* The plane's pixels as its blend mode makes them: "None" opaque, "Coverage"
 * premultiplied here (pixman composes premultiplied), else as they are. */
static pixman_image_t *blend_source(const struct rig_plane *p)
{
	pixman_image_t *src = image_from_buffer(p->buf);
	const char *mode = p->has_blend ? p->blend : "Pre-multiplied";
	if (!src || strcmp(mode, "Pre-multiplied") == 0)
		return src;
	uint32_t *d = pixman_image_get_data(src);
	size_t n = (size_t)pixman_image_get_stride(src) / 4 * (size_t)pixman_image_get_height(src);
	for (size_t i = 0; i < n; i++) {
		uint32_t a = d[i] >> 24;
		if (strcmp(mode, "None") == 0) {
			d[i] |= 0xff000000u;
			continue;
		}
		uint32_t v = a << 24;
		for (int s = 0; s < 24; s += 8)
			v |= (((d[i] >> s & 0xffu) * a + 127) / 255) << s;
		d[i] = v;
	}
	return src;
}

static void draw_plane(pixman_image_t *dst, const struct rig_plane *p)
{
	const struct wbc_kms_fb *fb = &p->buf->fb;
	uint32_t sw = p->src_w ? p->src_w : fb->width, sh = p->src_h ? p->src_h : fb->height;
	bool swap = p->has_rotation && (p->rotation & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270));
	uint32_t cw = p->crtc_w ? p->crtc_w : (swap ? sh : sw);
	uint32_t ch = p->crtc_h ? p->crtc_h : (swap ? sw : sh);
	pixman_image_t *src = blend_source(p);
	if (!src)
		return;
	struct pixman_f_transform f;
	pixman_transform_t t;
	plane_transform(p, sw, sh, cw, ch, &f);
	pixman_transform_from_pixman_f_transform(&t, &f);
	pixman_image_set_transform(src, &t);
	pixman_image_set_filter(src, PIXMAN_FILTER_NEAREST, NULL, 0);
	pixman_image_set_repeat(src, PIXMAN_REPEAT_NONE);
	pixman_image_t *mask = NULL;
	if (p->has_alpha && p->alpha != 0xffff)
		mask = pixman_image_create_solid_fill(&(pixman_color_t){ 0, 0, 0, p->alpha });
	/* Source and mask coordinates are relative to the CRTC rectangle; pixman clips to
	 * the destination, which is how a plane partly off-screen is cut. */
	pixman_image_composite32(PIXMAN_OP_OVER, src, mask, dst, 0, 0, 0, 0, p->crtc_x,
		p->crtc_y, (int)cw, (int)ch);
	if (mask)
		pixman_image_unref(mask);
	pixman_image_unref(src);
}

pixman_image_t *reference_render(const struct rig_scene *scene, uint32_t width, uint32_t height)
{
	pixman_image_t *dst = image_solid(width, height, 0xff000000u);
	unsigned order[RIG_MAX_PLANES];
	stacking_order(scene, order);
	for (unsigned i = 0; dst && i < scene->n; i++)
		draw_plane(dst, &scene->planes[order[i]]);
	return dst;
}
