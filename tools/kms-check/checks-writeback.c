/*
 * Checks of writeback itself, after IGT's kms_writeback and the uAPI's rules
 * (drm_writeback.c): the formats blob, bad requests refused, WRITEBACK_FB_ID one-shot,
 * output equal to input in each listed format, buffers not armed stay untouched, fences
 * signal within the bound, and jobs may follow each other at full rate.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include "check.h"
#include "image.h"
#include "reference.h"

#define LATENCY_CAPTURES 10
#define BACK_TO_BACK_CAPTURES 60

/* What most writeback checks show: the primary plane with a pattern, and where it goes.
 * Owned by the check that made it (wb_setup_free). */
struct wb_setup {
	struct wbc_kms_buffer *primary, *out;
	struct rig_scene scene;
};

static void wb_setup_free(struct check_ctx *ctx, struct wb_setup *s)
{
	rig_buffer_free(ctx->rig, s->primary);
	rig_buffer_free(ctx->rig, s->out);
	memset(s, 0, sizeof(*s));
}

static uint32_t wb_default_format(const struct rig *rig)
{
	for (size_t i = 0; i < rig->wb->n_writeback_formats; i++)
		if (rig->wb->writeback_formats[i] == DRM_FORMAT_XRGB8888)
			return DRM_FORMAT_XRGB8888;
	return rig->wb->n_writeback_formats ? rig->wb->writeback_formats[0] : 0;
}

/* Fill the primary with pattern `seed`. 0, or -1 with the check failed. */
static int draw(struct wbc_kms_buffer *b, unsigned seed, struct check_result *res)
{
	pixman_image_t *img = image_pattern(b->fb.width, b->fb.height, seed, false);
	int ret = img ? image_to_buffer(img, b) : -1;
	if (img)
		pixman_image_unref(img);
	if (ret < 0)
		check_fail(res, "cannot draw into the primary buffer");
	return ret;
}

/* A primary plane (XRGB8888, the mode's size, pattern `seed`) and an output buffer of
 * out_format (0: none). 0, or -1 with the verdict set (skip when the device cannot). */
static int wb_setup(struct check_ctx *ctx, struct check_result *res, struct wb_setup *s,
		unsigned seed, uint32_t out_format)
{
	struct rig *rig = ctx->rig;
	char err[RIG_ERR_MAX];
	memset(s, 0, sizeof(*s));
	struct wbc_kms_plane *primary = rig_plane(rig, WBC_KMS_PLANE_PRIMARY, 0);
	if (!primary || !wbc_kms_plane_supports(primary, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR)) {
		check_skip(res, "no primary plane taking XRGB8888 on CRTC %u", rig->crtc->id);
		return -1;
	}
	s->primary = rig_buffer(rig, rig->width, rig->height, DRM_FORMAT_XRGB8888, err);
	if (out_format && s->primary)
		s->out = rig_buffer(rig, rig->width, rig->height, out_format, err);
	if (!s->primary || (out_format && !s->out)) {
		check_fail(res, "buffer: %s", err);
		wb_setup_free(ctx, s);
		return -1;
	}
	s->scene.n = 1;
	s->scene.planes[0] = (struct rig_plane){ .plane = primary, .buf = s->primary };
	return draw(s->primary, seed, res);
}

/* Magenta: what a capture that never happened leaves, unlike any pattern pixel run. */
static void poison(struct wbc_kms_buffer *b)
{
	pixman_image_t *img = image_solid(b->fb.width, b->fb.height, 0xffff00ffu);
	if (img) {
		image_to_buffer(img, b);
		pixman_image_unref(img);
	}
}

/* Capture the setup's scene into `out` and compare it with the reference. */
static bool capture_and_compare(struct check_ctx *ctx, const struct check *c,
		struct check_result *res, struct wb_setup *s, struct wbc_kms_buffer *out,
		unsigned tolerance, uint64_t *latency_ns)
{
	char err[RIG_ERR_MAX];
	poison(out);
	if (rig_capture(ctx->rig, &s->scene, out, latency_ns, err) < 0) {
		check_fail(res, "capture: %s", err);
		return false;
	}
	pixman_image_t *want = reference_render(&s->scene, ctx->rig->width, ctx->rig->height);
	bool ok = check_frame(ctx, c, res, want, out, tolerance);
	if (want)
		pixman_image_unref(want);
	return ok;
}

/* ---- writeback-pixel-formats -------------------------------------------------- */

static bool fourcc_sane(uint32_t f)
{
	for (int i = 0; i < 4; i++) {
		char ch = (char)(f >> (8 * i) & 0xffu);
		if (!(ch == ' ' || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')))
			return false;
	}
	return true;
}

static void pixel_formats(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	const struct wbc_kms_connector *wb = ctx->rig->wb;
	char name[8], list[CHECK_TEXT_MAX] = "";
	if (!wb->props.writeback_pixel_formats || wb->n_writeback_formats == 0) {
		check_fail(res, "%s: WRITEBACK_PIXEL_FORMATS is missing, empty or not a whole "
			"number of fourccs", wb->name);
		return;
	}
	for (size_t i = 0; i < wb->n_writeback_formats; i++) {
		uint32_t f = wb->writeback_formats[i];
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "", check_fourcc(f, name));
		if (!fourcc_sane(f))
			check_fail(res, "entry %zu, 0x%08x, is no fourcc", i, f);
		for (size_t j = 0; j < i; j++)
			if (wb->writeback_formats[j] == f)
				check_fail(res, "%s is listed twice", name);
	}
	check_diag(res, "%s lists %s", wb->name, list);
}

/* ---- invalid parameters ----------------------------------------------------------- */

enum bad_case { BAD_FENCE_NO_FB, BAD_FB_SIZE, BAD_FB_FORMAT, BAD_FENCE_PTR, BAD_FB_OBJECT,
	BAD_CRTC_OFF, BAD_COUNT };
static const char *const bad_names[BAD_COUNT] = {
	"writeback-invalid-fence-without-fb", "writeback-invalid-fb-size",
	"writeback-invalid-fb-format", "writeback-invalid-fence-pointer",
	"writeback-invalid-fb-object", "writeback-invalid-crtc-off",
};

static bool wb_listed(const struct rig *rig, uint32_t f)
{
	for (size_t j = 0; j < rig->wb->n_writeback_formats; j++)
		if (rig->wb->writeback_formats[j] == f)
			return true;
	return false;
}

/* A full-size framebuffer of a format the connector does not list, or NULL: the kernel
 * makes framebuffers only of formats some plane takes, which may all be listed. */
static struct wbc_kms_buffer *unlisted_buffer(struct rig *rig)
{
	static const uint32_t candidates[] = { DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
		DRM_FORMAT_BGRX8888, DRM_FORMAT_RGB888, DRM_FORMAT_BGR888, DRM_FORMAT_XRGB2101010,
		DRM_FORMAT_BGR565, DRM_FORMAT_RGB565, DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB8888,
		DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616 };
	char err[RIG_ERR_MAX];
	struct wbc_kms_buffer *b = NULL;
	for (size_t i = 0; !b && i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (!wb_listed(rig, candidates[i]))
			b = rig_buffer(rig, rig->width, rig->height, candidates[i], err);
	return b;
}

/* The bad request of each case, built on a good one; *extra holds a buffer the case made. */
static int bad_request(struct check_ctx *ctx, enum bad_case k, struct wb_setup *s,
		struct rig_wb *wb, struct wbc_kms_buffer **extra, struct check_result *res)
{
	struct rig *rig = ctx->rig;
	char err[RIG_ERR_MAX], name[8];
	*wb = (struct rig_wb){ .set_fb = true, .fb_id = s->out->fb.id, .set_fence = true };
	uint32_t f = wb_default_format(rig);
	switch (k) {
	case BAD_FENCE_NO_FB: wb->fb_id = 0; return 0;
	case BAD_FENCE_PTR: wb->fence_ptr = 8; return 0;   /* as IGT: an unmapped address */
	case BAD_FB_OBJECT: wb->fb_id = rig->wb->id; wb->set_fence = false; return 0;
	case BAD_CRTC_OFF: wb->crtc_off = true; return 0;
	case BAD_FB_FORMAT:
		if (!(*extra = unlisted_buffer(rig))) {
			check_skip(res, "the device makes no framebuffer of a format %s does not "
				"list (every format its planes take is listed)", rig->wb->name);
			return -1;
		}
		check_diag(res, "a %s framebuffer", check_fourcc((*extra)->fb.format, name));
		break;
	default:
		*extra = rig_buffer(rig, rig->width / 2, rig->height / 2, f, err);
	}
	if (!*extra) {
		check_skip(res, "cannot make a %s framebuffer for the case: %s",
			check_fourcc(f, name), err);
		return -1;
	}
	wb->fb_id = (*extra)->fb.id;
	return 0;
}

static void invalid(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	struct wbc_kms_buffer *extra = NULL;
	struct rig_wb good = { .set_fb = true, .set_fence = true }, bad;
	char err[RIG_ERR_MAX];
	if (wb_setup(ctx, res, &s, 1, wb_default_format(ctx->rig)) < 0)
		return;
	/* The control: the same request with good parameters passes TEST_ONLY, so the
	 * refusal below is the bad parameter's doing. */
	good.fb_id = s.out->fb.id;
	if (rig_commit(ctx->rig, &s.scene, &good, true, err) < 0)
		check_fail(res, "the good request (control) was refused: %s", err);
	else if (bad_request(ctx, (enum bad_case)c->variant, &s, &bad, &extra, res) == 0) {
		/* Out-fences are only set up by a real commit, so bad ones are sent real (as
		 * IGT does); the CRTC-off case TEST_ONLY, so an accepted one turns nothing off. */
		int ret = rig_commit(ctx->rig, &s.scene, &bad, c->variant == BAD_CRTC_OFF, err);
		if (ret == 0)
			check_fail(res, "the kernel accepted the bad request");
		else
			check_diag(res, "refused: %s", strerror(-ret));
		if (bad.fence_fd >= 0) {
			check_fail(res, "the kernel wrote an out-fence fd (%d) for a refused request",
				bad.fence_fd);
			close(bad.fence_fd);
		}
	}
	rig_buffer_free(ctx->rig, extra);
	wb_setup_free(ctx, &s);
}

/* ---- WRITEBACK_FB_ID rules ------------------------------------------------------- */

static void sleep_periods(const struct rig *rig, unsigned n)
{
	uint64_t ns = (uint64_t)n * (rig->mode.vrefresh ? 1000000000u / rig->mode.vrefresh : 16666667u);
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

/* WRITEBACK_FB_ID 0 and no fence: no job, accepted (IGT writeback-fb-id). */
static void fb_id_zero(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	char err[RIG_ERR_MAX];
	if (wb_setup(ctx, res, &s, 1, 0) < 0)
		return;
	struct rig_wb wb = { .set_fb = true, .fb_id = 0 };
	if (rig_commit(ctx->rig, &s.scene, &wb, false, err) < 0)
		check_fail(res, "WRITEBACK_FB_ID = 0 without a fence: %s", err);
	wb_setup_free(ctx, &s);
}

/* A framebuffer without an out-fence is a job too: accepted, and the frame is written. */
static void fb_id_no_fence(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	char err[RIG_ERR_MAX];
	if (wb_setup(ctx, res, &s, 2, wb_default_format(ctx->rig)) < 0)
		return;
	poison(s.out);
	struct rig_wb wb = { .set_fb = true, .fb_id = s.out->fb.id };
	if (rig_commit(ctx->rig, &s.scene, &wb, false, err) < 0) {
		check_fail(res, "a framebuffer without an out-fence: %s", err);
	} else {
		/* No fence to wait for: a healthy engine is done within a few refreshes. */
		sleep_periods(ctx->rig, 6);
		pixman_image_t *want = reference_render(&s.scene, ctx->rig->width, ctx->rig->height);
		check_frame(ctx, c, res, want, s.out, 0);
		if (want)
			pixman_image_unref(want);
	}
	wb_setup_free(ctx, &s);
}

/* One-shot: after a capture the property reads 0 again. */
static void fb_id_reads_zero(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	char err[RIG_ERR_MAX];
	uint64_t v = 0;
	if (wb_setup(ctx, res, &s, 3, wb_default_format(ctx->rig)) < 0)
		return;
	if (rig_capture(ctx->rig, &s.scene, s.out, NULL, err) < 0)
		check_fail(res, "capture: %s", err);
	else if (rig_read_wb_fb_id(ctx->rig, &v, err) < 0)
		check_fail(res, "%s", err);
	else if (v != 0)
		check_fail(res, "WRITEBACK_FB_ID reads %llu after the capture, not 0",
			(unsigned long long)v);
	wb_setup_free(ctx, &s);
}

/* ---- output equals input, per listed format --------------------------------------- */

/* Formats with fewer than 8 bits a channel: the engine may round or truncate to them,
 * and they read back widened by bit replication, so one step of theirs (plus one for
 * the rounding) is tolerated. */
static unsigned format_tolerance(uint32_t format)
{
	unsigned bits = image_format_bits(format);
	return bits >= 8 ? 0 : (256u >> bits) + 1;
}

static void output_format(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	const char *why;
	struct wb_setup s;
	if (!image_format_supported(c->format, &why)) {
		check_skip(res, "%s", why);
		return;
	}
	if (wb_setup(ctx, res, &s, 4, c->format) < 0)
		return;
	capture_and_compare(ctx, c, res, &s, s.out, format_tolerance(c->format), NULL);
	wb_setup_free(ctx, &s);
}

/* ---- buffers not armed stay untouched --------------------------------------------- */

/* Capture into A; then a commit without writeback (different content) leaves A as it
 * was (IGT writeback-check-output, "the second with no writeback"). */
static void without_capture(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	char err[RIG_ERR_MAX];
	if (wb_setup(ctx, res, &s, 5, wb_default_format(ctx->rig)) < 0)
		return;
	pixman_image_t *first = reference_render(&s.scene, ctx->rig->width, ctx->rig->height);
	if (capture_and_compare(ctx, c, res, &s, s.out, 0, NULL) && draw(s.primary, 6, res) == 0) {
		if (rig_commit(ctx->rig, &s.scene, NULL, false, err) < 0)
			check_fail(res, "commit without writeback: %s", err);
		sleep_periods(ctx->rig, 4);
		check_frame(ctx, c, res, first, s.out, 0);
	}
	if (first)
		pixman_image_unref(first);
	wb_setup_free(ctx, &s);
}

/* Capture into A, then into B with other content: B has it, A still has the first. */
static void second_buffer(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	char err[RIG_ERR_MAX];
	if (wb_setup(ctx, res, &s, 7, wb_default_format(ctx->rig)) < 0)
		return;
	struct wbc_kms_buffer *b = rig_buffer(ctx->rig, ctx->rig->width, ctx->rig->height,
		s.out->fb.format, err);
	pixman_image_t *first = reference_render(&s.scene, ctx->rig->width, ctx->rig->height);
	if (!b)
		check_fail(res, "buffer: %s", err);
	else if (capture_and_compare(ctx, c, res, &s, s.out, 0, NULL) && draw(s.primary, 8, res) == 0 &&
			capture_and_compare(ctx, c, res, &s, b, 0, NULL))
		check_frame(ctx, c, res, first, s.out, 0);
	if (first)
		pixman_image_unref(first);
	rig_buffer_free(ctx->rig, b);
	wb_setup_free(ctx, &s);
}

/* ---- fences --------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void fence_bound(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	uint64_t lat[LATENCY_CAPTURES] = { 0 };
	if (wb_setup(ctx, res, &s, 9, wb_default_format(ctx->rig)) < 0)
		return;
	int n = 0;
	for (; n < LATENCY_CAPTURES && res->status != REPORT_FAIL; n++)
		if (draw(s.primary, 10 + (unsigned)n, res) == 0)
			capture_and_compare(ctx, c, res, &s, s.out, 0, &lat[n]);
	for (int i = 0; i < n; i++)
		if (lat[i] > (uint64_t)ctx->rig->fence_timeout_ms * 1000000u)
			check_fail(res, "out-fence %d of %d signalled %.1f ms after its commit, beyond "
				"the bound of %d ms", i + 1, n, lat[i] / 1e6, ctx->rig->fence_timeout_ms);
	if (n == LATENCY_CAPTURES) {
		qsort(lat, LATENCY_CAPTURES, sizeof(lat[0]), cmp_u64);
		check_diag(res, "%d out-fences, commit to signal: min %.1f ms, median %.1f ms, "
			"max %.1f ms (bound %d ms)", n, lat[0] / 1e6, lat[n / 2] / 1e6,
			lat[n - 1] / 1e6, ctx->rig->fence_timeout_ms);
	}
	wb_setup_free(ctx, &s);
}

/* Each commit the moment the previous fence signalled (what a recorder at full frame
 * rate does). Last in the list: a driver that loses a job here (stock VKMS can:
 * doc/vkms.md) may spoil every later capture. */
static void back_to_back(struct check_ctx *ctx, const struct check *c, struct check_result *res)
{
	struct wb_setup s;
	if (wb_setup(ctx, res, &s, 11, wb_default_format(ctx->rig)) < 0)
		return;
	ctx->rig->back_to_back = true;
	int i = 0;
	for (; i < BACK_TO_BACK_CAPTURES && res->status != REPORT_FAIL; i++)
		if (draw(s.primary, 12 + (unsigned)(i % 2), res) == 0 &&
				!capture_and_compare(ctx, c, res, &s, s.out, 0, NULL))
			check_diag(res, "at capture %d of %d", i + 1, BACK_TO_BACK_CAPTURES);
	ctx->rig->back_to_back = false;
	if (res->status != REPORT_FAIL)
		check_diag(res, "%d captures, each committed as the previous fence signalled", i);
	wb_setup_free(ctx, &s);
}

int writeback_checks(struct check_ctx *ctx, struct check_list *l)
{
	const char *g = "writeback";
	int ret = check_add(l, g, pixel_formats, 0, 0, "writeback-pixel-formats");
	for (int k = 0; k < BAD_COUNT; k++)
		ret |= check_add(l, g, invalid, 0, k, "%s", bad_names[k]);
	ret |= check_add(l, g, fb_id_zero, 0, 0, "writeback-fb-id-zero");
	ret |= check_add(l, g, fb_id_no_fence, 0, 0, "writeback-fb-id-without-fence");
	ret |= check_add(l, g, fb_id_reads_zero, 0, 0, "writeback-fb-id-reads-zero");
	for (size_t i = 0; i < ctx->rig->wb->n_writeback_formats; i++) {
		char name[8];
		uint32_t f = ctx->rig->wb->writeback_formats[i];
		ret |= check_add(l, g, output_format, f, 0, "writeback-output-%s", check_fourcc(f, name));
	}
	ret |= check_add(l, g, without_capture, 0, 0, "writeback-commit-without-capture");
	ret |= check_add(l, g, second_buffer, 0, 0, "writeback-second-buffer");
	ret |= check_add(l, g, fence_bound, 0, 0, "writeback-fence-bound");
	return ret;
}

/* Separate so main can put it after the composition checks. */
int writeback_last_checks(struct check_ctx *ctx, struct check_list *l)
{
	return check_add(l, "writeback", back_to_back, 0, 0, "writeback-back-to-back");
}
