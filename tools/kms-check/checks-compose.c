/*
 * Composition checks: each shows a plane state, captures the whole frame through
 * writeback and compares it with the pixman reference of the same state (reference.c).
 * A state the driver refuses in TEST_ONLY, or a property it lacks, is a SKIP with why.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <drm_fourcc.h>
#include "check.h"
#include "image.h"
#include "reference.h"

/* Buffers of one check's scene, owned by the check (scene_free). */
struct scene {
	struct rig_scene s;
	struct wbc_kms_buffer *bufs[RIG_MAX_PLANES];
	bool failed;                     /* a buffer could not be made (res says why) */
};

static void scene_free(struct check_ctx *ctx, struct scene *sc)
{
	for (unsigned i = 0; i < sc->s.n; i++)
		rig_buffer_free(ctx->rig, sc->bufs[i]);
	memset(sc, 0, sizeof(*sc));
}

/* Add a plane showing `content` (consumed) in a new buffer of `format`; NULL on failure
 * (the check then failed, or skipped when the plane cannot take the format). */
static struct rig_plane *scene_add(struct check_ctx *ctx, struct check_result *res,
		struct scene *sc, struct wbc_kms_plane *plane, uint32_t format, pixman_image_t *content)
{
	char err[RIG_ERR_MAX], name[8];
	const char *why;
	struct wbc_kms_buffer *b = NULL;
	if (!content)
		check_fail(res, "out of memory");
	else if (!wbc_kms_plane_supports(plane, format, DRM_FORMAT_MOD_LINEAR))
		check_skip(res, "plane %u does not list %s", plane->id, check_fourcc(format, name));
	else if (!image_format_supported(format, &why))
		check_skip(res, "%s: %s", check_fourcc(format, name), why);
	else if (!(b = rig_buffer(ctx->rig, (uint32_t)pixman_image_get_width(content),
			(uint32_t)pixman_image_get_height(content), format, err)))
		check_fail(res, "buffer: %s", err);
	else if (image_to_buffer(content, b) < 0)
		check_fail(res, "cannot draw %s", check_fourcc(format, name));
	if (content)
		pixman_image_unref(content);
	if (!b || res->status != REPORT_PASS) {
		rig_buffer_free(ctx->rig, b);
		sc->failed = true;
		return NULL;
	}
	sc->bufs[sc->s.n] = b;
	sc->s.planes[sc->s.n] = (struct rig_plane){ .plane = plane, .buf = b };
	return &sc->s.planes[sc->s.n++];
}

/* The primary plane full-screen with the background pattern: every scene has it, since
 * some drivers refuse a CRTC without a primary plane. */
static struct rig_plane *scene_primary(struct check_ctx *ctx, struct check_result *res,
		struct scene *sc, uint32_t format)
{
	struct wbc_kms_plane *p = rig_plane(ctx->rig, WBC_KMS_PLANE_PRIMARY, 0);
	if (!p) {
		check_skip(res, "no primary plane on CRTC %u", ctx->rig->crtc->id);
		sc->failed = true;
		return NULL;
	}
	bool alpha = image_format_has_alpha(format);
	return scene_add(ctx, res, sc, p, format,
		image_pattern(ctx->rig->width, ctx->rig->height, 0, alpha));
}

static uint32_t output_format(const struct rig *rig)
{
	for (size_t i = 0; i < rig->wb->n_writeback_formats; i++)
		if (rig->wb->writeback_formats[i] == DRM_FORMAT_XRGB8888)
			return DRM_FORMAT_XRGB8888;
	return rig->wb->n_writeback_formats ? rig->wb->writeback_formats[0] : 0;
}

/* A frame that failed against the reference, compared with the reference of another
 * reading of the uAPI (alt): says which one the engine implemented. */
static void explain(struct check_ctx *ctx, struct check_result *res, const struct rig_scene *alt,
		const char *alt_name, const struct wbc_kms_buffer *out)
{
	pixman_image_t *want = reference_render(alt, ctx->rig->width, ctx->rig->height);
	pixman_image_t *got = image_from_buffer(out);
	struct image_diff d = { .mismatches = 1 };
	if (want && got)
		image_compare(want, got, 0, &d);
	if (d.mismatches == 0)
		check_diag(res, "the frame equals the reference of %s", alt_name);
	if (want)
		pixman_image_unref(want);
	if (got)
		pixman_image_unref(got);
}

/* TEST_ONLY, capture, compare. tolerance: per channel, in 8-bit steps. alt (may be NULL):
 * another reading of the uAPI to name when the frame matches it instead. */
static void run_scene_alt(struct check_ctx *ctx, const struct check *c, struct check_result *res,
		struct scene *sc, unsigned tolerance, const struct rig_scene *alt, const char *alt_name)
{
	char err[RIG_ERR_MAX], name[8];
	const char *why;
	uint32_t f = output_format(ctx->rig);
	if (sc->failed || res->status != REPORT_PASS)
		return;
	if (!image_format_supported(f, &why)) {
		check_skip(res, "writeback format %s: %s", check_fourcc(f, name), why);
		return;
	}
	int ret = rig_commit(ctx->rig, &sc->s, NULL, true, err);
	if (ret == -ENOTSUP) {
		check_skip(res, "%s", err);
		return;
	}
	if (ret < 0) {
		check_skip(res, "the driver refuses this plane state (%s)", err);
		return;
	}
	struct wbc_kms_buffer *out = rig_buffer(ctx->rig, ctx->rig->width, ctx->rig->height, f, err);
	if (!out) {
		check_fail(res, "buffer: %s", err);
		return;
	}
	pixman_image_t *want = reference_render(&sc->s, ctx->rig->width, ctx->rig->height);
	if (rig_capture(ctx->rig, &sc->s, out, NULL, err) < 0)
		check_fail(res, "capture: %s", err);
	else if (!check_frame(ctx, c, res, want, out, tolerance + (image_format_bits(f) < 8 ?
			(256u >> image_format_bits(f)) + 1 : 0)) && alt)
		explain(ctx, res, alt, alt_name, out);
	if (want)
		pixman_image_unref(want);
	rig_buffer_free(ctx->rig, out);
}

static void run_scene(struct check_ctx *ctx, const struct check *c, struct check_result *res,
		struct scene *sc, unsigned tolerance)
{
	run_scene_alt(ctx, c, res, sc, tolerance, NULL, NULL);
}

/* ---- the primary plane at each of its formats ------------------------------------ */

static void primary_format(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	scene_primary(ctx, res, &sc, c->format);
	/* Widening a <8-bit channel: exact scaling (VKMS) and bit replication (pixman)
	 * differ by one step; blending per-pixel alpha rounds in the engine's own
	 * precision (VKMS: 16 bits), one step again. */
	unsigned tol = (image_format_bits(c->format) < 8 || image_format_has_alpha(c->format)) ? 1 : 0;
	run_scene(ctx, c, res, &sc, tol);
	scene_free(ctx, &sc);
}

/* A source rectangle inside a larger buffer. */
static void primary_crop(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *p = rig_plane(ctx->rig, WBC_KMS_PLANE_PRIMARY, 0);
	struct rig_plane *rp = p ? scene_add(ctx, res, &sc, p, DRM_FORMAT_XRGB8888,
		image_pattern(ctx->rig->width + 64, ctx->rig->height + 32, 1, false)) : NULL;
	if (!p)
		check_skip(res, "no primary plane");
	if (rp) {
		rp->src_x = 40;
		rp->src_y = 20;
		rp->src_w = ctx->rig->width;
		rp->src_h = ctx->rig->height;
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

/* ---- overlay and cursor placements ------------------------------------------------ */

#define OV_W 200
#define OV_H 150

/* Where the placement variants put a w x h plane: inside, partly off the top-left,
 * partly off the bottom-right, partly off the left edge halfway down, and larger than
 * the screen on every side. */
static const char *const placements[] = { "inside", "off-top-left", "off-bottom-right",
	"off-left", "over-all-edges" };
#define N_PLACEMENTS 5

static void place(const struct rig *rig, int variant, uint32_t w, uint32_t h, int32_t *x, int32_t *y)
{
	int32_t W = (int32_t)rig->width, H = (int32_t)rig->height, pw = (int32_t)w, ph = (int32_t)h;
	switch (variant) {
	case 0: *x = W / 6; *y = H / 8; break;
	case 1: *x = -pw / 3; *y = -ph / 2; break;
	case 2: *x = W - pw / 2; *y = H - ph / 3; break;
	case 3: *x = -pw / 2; *y = H / 2 - ph / 2; break;
	default: *x = -pw / 4; *y = -ph / 4; break;
	}
}

static struct wbc_kms_plane *need_plane(struct check_ctx *ctx, struct check_result *res,
		enum wbc_kms_plane_type type, unsigned index)
{
	struct wbc_kms_plane *p = rig_plane(ctx->rig, type, index);
	if (!p)
		check_skip(res, "no %s plane%s on CRTC %u (VKMS: load it with enable_%s=1)",
			wbc_kms_plane_type_name(type), index ? "s enough" : "", ctx->rig->crtc->id,
			type == WBC_KMS_PLANE_CURSOR ? "cursor" : "overlay");
	return p;
}

static void overlay_at(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	if (ov && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		/* The big variant is larger than the screen, so its content covers it. */
		bool big = c->variant == N_PLACEMENTS - 1;
		uint32_t w = big ? ctx->rig->width * 3 / 2 : OV_W, h = big ? ctx->rig->height * 3 / 2 : OV_H;
		struct rig_plane *p = scene_add(ctx, res, &sc, ov, DRM_FORMAT_XRGB8888,
			image_pattern(w, h, 2, false));
		if (p)
			place(ctx->rig, c->variant, w, h, &p->crtc_x, &p->crtc_y);
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

static uint32_t cursor_size(const struct rig *rig)
{
	uint64_t w = rig->dev->caps.cursor_width;
	return w >= 16 && w <= 256 ? (uint32_t)w : 64;
}

static void cursor_at(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *cur = need_plane(ctx, res, WBC_KMS_PLANE_CURSOR, 0);
	uint32_t n = cursor_size(ctx->rig);
	if (cur && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		/* Only opaque and fully transparent pixels: exact under any blend equation. */
		struct rig_plane *p = scene_add(ctx, res, &sc, cur, DRM_FORMAT_ARGB8888,
			image_diamond(n, n, 3));
		if (p)
			place(ctx->rig, c->variant, n, n, &p->crtc_x, &p->crtc_y);
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

/* Per-pixel alpha on an overlay or the cursor, "Pre-multiplied" (the default). */
static void alpha_pixels(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	enum wbc_kms_plane_type t = c->variant ? WBC_KMS_PLANE_CURSOR : WBC_KMS_PLANE_OVERLAY;
	struct wbc_kms_plane *p = need_plane(ctx, res, t, 0);
	uint32_t w = c->variant ? cursor_size(ctx->rig) : OV_W, h = c->variant ? w : OV_H;
	if (p && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		struct rig_plane *rp = scene_add(ctx, res, &sc, p, DRM_FORMAT_ARGB8888,
			image_pattern(w, h, 4, true));
		if (rp)
			place(ctx->rig, 0, w, h, &rp->crtc_x, &rp->crtc_y);
	}
	run_scene(ctx, c, res, &sc, 1);    /* the engine's blend rounding: one step */
	scene_free(ctx, &sc);
}

/* Primary, overlay and cursor at once (not overlapping: without zpos their order is
 * the driver's choice). */
static void all_planes(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	struct wbc_kms_plane *cur = ov ? need_plane(ctx, res, WBC_KMS_PLANE_CURSOR, 0) : NULL;
	uint32_t n = cursor_size(ctx->rig);
	if (cur && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		struct rig_plane *o = scene_add(ctx, res, &sc, ov, DRM_FORMAT_XRGB8888,
			image_pattern(OV_W, OV_H, 5, false));
		struct rig_plane *k = o ? scene_add(ctx, res, &sc, cur, DRM_FORMAT_ARGB8888,
			image_diamond(n, n, 6)) : NULL;
		if (k) {
			o->crtc_x = 20;
			o->crtc_y = 30;
			k->crtc_x = (int32_t)ctx->rig->width - (int32_t)n - 10;
			k->crtc_y = (int32_t)ctx->rig->height - (int32_t)n - 10;
		}
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

/* A source rectangle of an overlay. */
static void overlay_crop(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	if (ov && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		struct rig_plane *p = scene_add(ctx, res, &sc, ov, DRM_FORMAT_XRGB8888,
			image_pattern(OV_W, OV_H, 7, false));
		if (p)
			*p = (struct rig_plane){ .plane = p->plane, .buf = p->buf, .crtc_x = 50,
				.crtc_y = 70, .src_x = 30, .src_y = 20, .src_w = 120, .src_h = 90 };
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

/* ---- properties: plane alpha, blend mode, zpos ------------------------------------ */

/* An overlay with per-pixel alpha over the pattern, and a property set on it. */
static struct rig_plane *blend_overlay(struct check_ctx *ctx, struct check_result *res,
		struct scene *sc)
{
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	if (!ov || !scene_primary(ctx, res, sc, DRM_FORMAT_XRGB8888))
		return NULL;
	struct rig_plane *p = scene_add(ctx, res, sc, ov, DRM_FORMAT_ARGB8888,
		image_pattern(OV_W, OV_H, 8, true));
	if (p)
		place(ctx->rig, 0, OV_W, OV_H, &p->crtc_x, &p->crtc_y);
	return p;
}

static void plane_alpha(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct rig_plane *p = blend_overlay(ctx, res, &sc);
	if (p && !p->plane->props.alpha)
		check_skip(res, "overlay plane %u has no \"alpha\" property", p->plane->id);
	else if (p) {
		p->has_alpha = true;
		p->alpha = c->variant ? 0x4000 : 0x8000;
	}
	run_scene(ctx, c, res, &sc, 1);
	scene_free(ctx, &sc);
}

static const char *const blend_modes[] = { "None", "Pre-multiplied", "Coverage" };
static const char *const blend_names[] = { "none", "premultiplied", "coverage" };

static void blend_mode(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	uint64_t v;
	struct rig_plane *p = blend_overlay(ctx, res, &sc);
	const char *mode = blend_modes[c->variant];
	if (p && !p->plane->props.pixel_blend_mode)
		check_skip(res, "overlay plane %u has no \"pixel blend mode\" property", p->plane->id);
	else if (p && !rig_plane_value(ctx->rig, p->plane->props.pixel_blend_mode, mode, &v))
		check_skip(res, "overlay plane %u's \"pixel blend mode\" has no \"%s\"", p->plane->id, mode);
	else if (p) {
		p->has_blend = true;
		p->blend = mode;
	}
	run_scene(ctx, c, res, &sc, 1);
	scene_free(ctx, &sc);
}

/* Two overlapping overlays, their zpos set first one way, then the other. */
static void zpos_order(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *a = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	struct wbc_kms_plane *b = a ? need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 1) : NULL;
	if (b && !(a->has_zpos && b->has_zpos && a->zpos_max > a->zpos_min &&
			b->zpos_max > b->zpos_min))
		check_skip(res, "overlay planes %u and %u have no mutable zpos: the uAPI leaves "
			"the order of overlapping overlays to the driver", a->id, b->id);
	else if (b && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		struct rig_plane *pa = scene_add(ctx, res, &sc, a, DRM_FORMAT_XRGB8888,
			image_pattern(OV_W, OV_H, 9, false));
		struct rig_plane *pb = pa ? scene_add(ctx, res, &sc, b, DRM_FORMAT_XRGB8888,
			image_pattern(OV_W, OV_H, 10, false)) : NULL;
		if (pb) {
			uint64_t lo = a->zpos_min > b->zpos_min ? a->zpos_min : b->zpos_min;
			*pa = (struct rig_plane){ .plane = a, .buf = pa->buf, .crtc_x = 60, .crtc_y = 40,
				.has_zpos = true, .zpos = c->variant ? lo + 1 : lo + 2 };
			*pb = (struct rig_plane){ .plane = b, .buf = pb->buf, .crtc_x = 160, .crtc_y = 110,
				.has_zpos = true, .zpos = c->variant ? lo + 2 : lo + 1 };
			sc.s.planes[0].has_zpos = true;
			sc.s.planes[0].zpos = sc.s.planes[0].plane->zpos_min;
		}
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

/* ---- rotation, reflection, scaling ------------------------------------------------ */

static const struct { const char *name, *prop_value; uint32_t bits; } rotations[] = {
	{ "reflect-x", "reflect-x", DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_X },
	{ "reflect-y", "reflect-y", DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_Y },
	{ "rotate-90", "rotate-90", DRM_MODE_ROTATE_90 },
	{ "rotate-180", "rotate-180", DRM_MODE_ROTATE_180 },
	{ "rotate-270", "rotate-270", DRM_MODE_ROTATE_270 },
	{ "rotate-90-reflect-x", "reflect-x", DRM_MODE_ROTATE_90 | DRM_MODE_REFLECT_X },
};
#define N_ROTATIONS 6

/* The unrotated cursor on top, away from the rotated overlay (rotation_checks). */
static void add_top_cursor(struct check_ctx *ctx, struct check_result *res, struct scene *sc)
{
	struct wbc_kms_plane *cur = need_plane(ctx, res, WBC_KMS_PLANE_CURSOR, 0);
	uint32_t n = cursor_size(ctx->rig);
	struct rig_plane *k = cur ? scene_add(ctx, res, sc, cur, DRM_FORMAT_ARGB8888,
		image_diamond(n, n, 13)) : NULL;
	if (k) {
		k->crtc_x = (int32_t)(ctx->rig->width - n - 8);
		k->crtc_y = (int32_t)(ctx->rig->height - n - 8);
	}
}

static void rotation(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	uint64_t v;
	int r = c->variant % N_ROTATIONS;
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	const char *value = rotations[r].prop_value;
	if (ov && !ov->props.rotation)
		check_skip(res, "overlay plane %u has no \"rotation\" property", ov->id);
	else if (ov && (!rig_plane_value(ctx->rig, ov->props.rotation, value, &v) ||
			((rotations[r].bits & DRM_MODE_ROTATE_90) &&
			 !rig_plane_value(ctx->rig, ov->props.rotation, "rotate-90", &v))))
		check_skip(res, "overlay plane %u's \"rotation\" lacks %s", ov->id, rotations[r].name);
	else if (ov && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		/* Not square, so a rotation that swaps the wrong way shows. */
		struct rig_plane *p = scene_add(ctx, res, &sc, ov, DRM_FORMAT_XRGB8888,
			image_pattern(160, 100, 11, false));
		if (p) {
			p->crtc_x = 100;
			p->crtc_y = 80;
			p->has_rotation = true;
			p->rotation = rotations[r].bits;
		}
		if (p && c->variant >= N_ROTATIONS)
			add_top_cursor(ctx, res, &sc);
	}
	/* The other order: reflecting after rotating about the destination's axis is
	 * reflecting the other source axis before it. */
	struct rig_scene alt = sc.s;
	uint32_t bits = rotations[r].bits, refl = DRM_MODE_REFLECT_X | DRM_MODE_REFLECT_Y;
	bool other = (bits & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270)) && (bits & refl) &&
		(bits & refl) != refl && alt.n >= 2;
	if (other)
		alt.planes[1].rotation = bits ^ refl;
	run_scene_alt(ctx, c, res, &sc, 0, other ? &alt : NULL,
		"the reflection applied after the rotation (about the destination's axes)");
	scene_free(ctx, &sc);
}

/* 2x up or 2x down, nearest-neighbour reference: an engine that filters differs at
 * every edge, so a filtering engine needs a filter-aware reference (not written yet). */
static void scaling(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct scene sc = { 0 };
	struct wbc_kms_plane *ov = need_plane(ctx, res, WBC_KMS_PLANE_OVERLAY, 0);
	if (ov && scene_primary(ctx, res, &sc, DRM_FORMAT_XRGB8888)) {
		struct rig_plane *p = scene_add(ctx, res, &sc, ov, DRM_FORMAT_XRGB8888,
			image_pattern(OV_W, OV_H, 12, false));
		if (p) {
			p->crtc_x = 40;
			p->crtc_y = 30;
			p->crtc_w = c->variant ? OV_W / 2 : OV_W * 2;
			p->crtc_h = c->variant ? OV_H / 2 : OV_H * 2;
		}
	}
	run_scene(ctx, c, res, &sc, 0);
	scene_free(ctx, &sc);
}

static int primary_format_checks(struct check_ctx *ctx, struct check_list *l)
{
	struct wbc_kms_plane *p = rig_plane(ctx->rig, WBC_KMS_PLANE_PRIMARY, 0);
	int ret = 0;
	for (size_t i = 0; p && i < p->n_formats; i++) {
		char name[8];
		uint32_t f = p->formats[i].fourcc;
		ret |= check_add(l, "compose", primary_format, f, 0, "compose-primary-%s",
			check_fourcc(f, name));
	}
	return ret;
}

int compose_checks(struct check_ctx *ctx, struct check_list *l)
{
	const char *g = "compose";
	int ret = primary_format_checks(ctx, l);
	ret |= check_add(l, g, primary_crop, 0, 0, "compose-primary-source-crop");
	for (int i = 0; i < N_PLACEMENTS; i++)
		ret |= check_add(l, g, overlay_at, 0, i, "compose-overlay-%s", placements[i]);
	ret |= check_add(l, g, overlay_crop, 0, 0, "compose-overlay-source-crop");
	for (int i = 0; i < N_PLACEMENTS - 1; i++)
		ret |= check_add(l, g, cursor_at, 0, i, "compose-cursor-%s", placements[i]);
	ret |= check_add(l, g, alpha_pixels, 0, 0, "compose-overlay-pixel-alpha");
	ret |= check_add(l, g, alpha_pixels, 0, 1, "compose-cursor-pixel-alpha");
	ret |= check_add(l, g, all_planes, 0, 0, "compose-all-plane-types");
	ret |= check_add(l, g, plane_alpha, 0, 0, "compose-plane-alpha-half");
	ret |= check_add(l, g, plane_alpha, 0, 1, "compose-plane-alpha-quarter");
	for (int i = 0; i < 3; i++)
		ret |= check_add(l, g, blend_mode, 0, i, "compose-blend-%s", blend_names[i]);
	ret |= check_add(l, g, zpos_order, 0, 0, "compose-zpos-order");
	ret |= check_add(l, g, zpos_order, 0, 1, "compose-zpos-swapped");
	ret |= check_add(l, g, scaling, 0, 0, "compose-scale-up");
	ret |= check_add(l, g, scaling, 0, 1, "compose-scale-down");
	return ret;
}

/*
 * Rotation and reflection come last of all: Linux 6.12's VKMS writes the writeback rows
 * of a rotated or Y-reflected *top* plane out of bounds and its composer dies
 * (doc/kms-check.md, kernel findings), after which no commit on the device returns.
 * Each is checked twice: first under an unrotated cursor (so the rotation of the
 * composition itself is checked even on such a driver), then as the top plane.
 */
int compose_rotation_checks(struct check_ctx *ctx, struct check_list *l)
{
	int ret = 0;
	for (int i = 0; i < N_ROTATIONS; i++)
		ret |= check_add(l, "compose", rotation, 0, N_ROTATIONS + i, "compose-%s-under-cursor",
			rotations[i].name);
	for (int i = 0; i < N_ROTATIONS; i++)
		ret |= check_add(l, "compose", rotation, 0, i, "compose-%s", rotations[i].name);
	return ret;
}
