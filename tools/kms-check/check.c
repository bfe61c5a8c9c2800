/* The check list, the verdict helpers and the frame comparison shared by all checks. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "image.h"
#include "pngout.h"

int check_add(struct check_list *l, const char *group, check_fn run, uint32_t format,
		int variant, const char *fmt, ...)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct check *items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			return -1;
		l->items = items;
		l->cap = cap;
	}
	struct check *c = &l->items[l->n++];
	*c = (struct check){ .group = group, .run = run, .format = format, .variant = variant };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	return 0;
}

void check_list_free(struct check_list *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static void vappend(char *buf, const char *fmt, va_list ap)
{
	size_t len = strlen(buf);
	if (len && len < CHECK_TEXT_MAX - 1)
		buf[len++] = '\n';
	if (len < CHECK_TEXT_MAX)
		vsnprintf(buf + len, CHECK_TEXT_MAX - len, fmt, ap);
}

void check_fail(struct check_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	/* The first failure is the verdict's reason; later ones add to it. */
	if (res->status != REPORT_FAIL)
		res->reason[0] = '\0';
	res->status = REPORT_FAIL;
	vappend(res->reason, fmt, ap);
	va_end(ap);
}

void check_skip(struct check_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (res->status != REPORT_FAIL) {
		res->status = REPORT_SKIP;
		vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	}
	va_end(ap);
}

void check_diag(struct check_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vappend(res->diag, fmt, ap);
	va_end(ap);
}

const char *check_fourcc(uint32_t f, char out[8])
{
	for (int i = 0; i < 4; i++) {
		char ch = (char)(f >> (8 * i) & 0xffu);
		out[i] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	/* Trailing spaces (e.g. "R8  ") make poor file and check names. */
	int n = 4;
	while (n > 1 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

/* The test hook's damage: an inverted 8x8 square at (width/4, height/4). */
static void spoil(pixman_image_t *img)
{
	int w = pixman_image_get_width(img), h = pixman_image_get_height(img);
	int stride = pixman_image_get_stride(img);
	for (int y = h / 4; y < h / 4 + 8 && y < h; y++)
		for (int x = w / 4; x < w / 4 + 8 && x < w; x++) {
			uint32_t *p = (uint32_t *)((char *)pixman_image_get_data(img) +
				(size_t)y * (size_t)stride) + x;
			*p ^= 0x00ffffffu;
		}
}

static void write_pngs(struct check_ctx *ctx, const struct check *c, struct check_result *res,
		pixman_image_t *want, pixman_image_t *got, unsigned tolerance)
{
	pixman_image_t *diff = image_diff_image(want, got, tolerance);
	struct { const char *kind; pixman_image_t *img; } files[] = {
		{ "expected", want }, { "actual", got }, { "diff", diff },
	};
	for (size_t i = 0; i < 3; i++) {
		char path[4096], err[4200];
		snprintf(path, sizeof(path), "%s/%s-%s.png", ctx->out_dir, c->name, files[i].kind);
		if (!files[i].img || png_write(path, files[i].img, err, sizeof(err)) < 0)
			check_diag(res, "could not write the %s image: %s", files[i].kind,
				files[i].img ? err : "out of memory");
		else
			check_diag(res, "%s: %s", files[i].kind, path);
	}
	if (diff)
		pixman_image_unref(diff);
}

bool check_frame(struct check_ctx *ctx, const struct check *c, struct check_result *res,
		pixman_image_t *want, const struct wbc_kms_buffer *got_buf, unsigned tolerance)
{
	pixman_image_t *got = image_from_buffer(got_buf);
	if (!got || !want) {
		check_fail(res, "out of memory reading the frame");
		if (got)
			pixman_image_unref(got);
		return false;
	}
	if (ctx->wrong_reference)
		spoil(want);
	struct image_diff d;
	image_compare(want, got, tolerance, &d);
	if (d.mismatches) {
		check_fail(res, "first differing pixel (%u,%u): expected #%06x, got #%06x; %llu "
			"pixels differ by more than %u (largest difference %u)", d.x, d.y, d.want,
			d.got, (unsigned long long)d.mismatches, tolerance, d.max_delta);
		write_pngs(ctx, c, res, want, got, tolerance);
	} else if (d.max_delta) {
		check_diag(res, "largest channel difference %u (tolerance %u)", d.max_delta,
			tolerance);
	}
	pixman_image_unref(got);
	return d.mismatches == 0;
}
