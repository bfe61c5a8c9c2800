/*
 * kms-writeback-shot: the smallest use of wbc's KMS library. Modeset a pipe, draw
 * known content on the primary plane (and, with --overlay/--cursor, an opaque overlay
 * and a cursor), arm writeback on one commit, and write the captured frame as a PPM.
 *
 * Content: eight vertical colour bars (white yellow cyan green magenta red blue black);
 * overlay: a grey 160x120 box at (64,48); cursor: a red 64x64 square at (500,300).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include "wbc/kms.h"

static const uint32_t bars[8] = { 0xffffff, 0xffff00, 0x00ffff, 0x00ff00, 0xff00ff, 0xff0000,
	0x0000ff, 0x000000 };

struct shot {
	struct wbc_kms_device *dev;
	struct wbc_kms_pipe *pipe;
	const char *out;
	int written;                     /* 1 done, -1 failed */
};

static void fill(struct wbc_kms_buffer *b, uint32_t argb, bool use_bars)
{
	for (uint32_t y = 0; y < b->fb.height; y++) {
		uint32_t *row = (uint32_t *)((char *)b->map + (size_t)y * b->stride);
		for (uint32_t x = 0; x < b->fb.width; x++)
			row[x] = use_bars ? bars[x * 8 / b->fb.width] : argb;
	}
}

static int write_ppm(const char *path, const struct wbc_kms_wb_frame *f)
{
	FILE *out = fopen(path, "wb");
	if (!out)
		return -1;
	fprintf(out, "P6\n%u %u\n255\n", f->width, f->height);
	for (uint32_t y = 0; y < f->height; y++) {
		const uint32_t *row = (const uint32_t *)((const char *)f->data + (size_t)y * f->stride);
		for (uint32_t x = 0; x < f->width; x++) {
			unsigned char rgb[3] = { row[x] >> 16 & 0xff, row[x] >> 8 & 0xff, row[x] & 0xff };
			fwrite(rgb, 1, 3, out);
		}
	}
	return fclose(out) == 0 ? 0 : -1;
}

static void on_frame(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *f)
{
	struct shot *s = data;
	s->written = write_ppm(s->out, f) == 0 ? 1 : -1;
	if (s->written > 0)
		printf("kms-writeback-shot: wrote %ux%u frame of vblank %llu to %s\n", f->width,
			f->height, (unsigned long long)f->sequence, s->out);
	wbc_kms_pipe_release_frame(pipe, f->buffer);
}

/* The display connector if writeback can ride along with it, else the writeback
 * connector alone (drivers such as VKMS 6.1 cannot clone a CRTC to both). */
static int make_pipe(struct shot *s, const drmModeModeInfo *want, bool cursor, bool overlay)
{
	struct wbc_kms_pipe_listener l = { .frame = on_frame, .data = s };
	for (size_t i = 0; i < s->dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &s->dev->connectors[i];
		if (c->writeback || c->status != DRM_MODE_CONNECTED)
			continue;
		struct wbc_kms_pipe_options o = { .connector_id = c->id, .mode = want,
			.want_cursor = cursor, .want_overlay = overlay };
		if (wbc_kms_pipe_create(s->dev, &o, &l, &s->pipe) < 0)
			return -1;
		if (wbc_kms_writeback_supported(s->pipe))
			return 0;
		fprintf(stderr, "kms-writeback-shot: %s\n",
			wbc_kms_pipe_writeback_unsupported_reason(s->pipe));
		wbc_kms_pipe_destroy(s->pipe);
		s->pipe = NULL;
		break;
	}
	struct wbc_kms_connector *wb = wbc_kms_device_writeback_connector(s->dev);
	if (!wb) {
		fprintf(stderr, "kms-writeback-shot: %s has no writeback connector\n", s->dev->path);
		return -1;
	}
	printf("kms-writeback-shot: using %s as a headless output\n", wb->name);
	struct wbc_kms_pipe_options o = { .connector_id = wb->id, .mode = want,
		.want_cursor = cursor, .want_overlay = overlay };
	return wbc_kms_pipe_create(s->dev, &o, &l, &s->pipe);
}

static int shoot(struct shot *s, bool cursor, bool overlay)
{
	const drmModeModeInfo *m = wbc_kms_pipe_mode(s->pipe);
	struct wbc_kms_buffer *prim = NULL, *ov = NULL, *cur = NULL;
	int ret = wbc_kms_pipe_enable_writeback(s->pipe, NULL);
	if (ret == 0)
		ret = wbc_kms_buffer_create(s->dev, m->hdisplay, m->vdisplay, DRM_FORMAT_XRGB8888,
			&prim);
	if (ret == 0 && overlay && wbc_kms_pipe_plane(s->pipe, WBC_KMS_PLANE_OVERLAY))
		ret = wbc_kms_buffer_create(s->dev, 160, 120, DRM_FORMAT_XRGB8888, &ov);
	if (ret == 0 && cursor && wbc_kms_pipe_plane(s->pipe, WBC_KMS_PLANE_CURSOR))
		ret = wbc_kms_buffer_create(s->dev, 64, 64, DRM_FORMAT_ARGB8888, &cur);
	if (ret == 0) {
		fill(prim, 0, true);
		struct wbc_kms_pipe_state st = { .primary.fb = &prim->fb, .capture = true };
		if (ov) {
			fill(ov, 0xff808080, false);
			st.overlay = (struct wbc_kms_plane_state){ .fb = &ov->fb, .crtc_x = 64, .crtc_y = 48 };
		}
		if (cur) {
			fill(cur, 0xffff0000, false);
			st.cursor = (struct wbc_kms_plane_state){ .fb = &cur->fb, .crtc_x = 500, .crtc_y = 300 };
		}
		ret = wbc_kms_pipe_commit(s->pipe, &st);
	}
	for (int i = 0; ret == 0 && !s->written && i < 500; i++)
		ret = wbc_kms_device_wait(s->dev, 10) < 0 ? -1 : 0;
	if (ret < 0)
		fprintf(stderr, "kms-writeback-shot: %s\n", wbc_kms_device_error(s->dev));
	else if (s->written <= 0)
		fprintf(stderr, "kms-writeback-shot: %s\n", s->written < 0 ?
			"cannot write the image" : "no writeback frame arrived");
	wbc_kms_pipe_destroy(s->pipe);
	wbc_kms_buffer_destroy(s->dev, cur);
	wbc_kms_buffer_destroy(s->dev, ov);
	wbc_kms_buffer_destroy(s->dev, prim);
	return ret == 0 && s->written > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/dri/card0";
	struct shot s = { .out = "writeback.ppm" };
	bool cursor = false, overlay = false;
	unsigned w = 0, h = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			device = argv[++i];
		else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc &&
				sscanf(argv[++i], "%ux%u", &w, &h) == 2)
			;
		else if (strcmp(argv[i], "--cursor") == 0)
			cursor = true;
		else if (strcmp(argv[i], "--overlay") == 0)
			overlay = true;
		else if (argv[i][0] != '-')
			s.out = argv[i];
		else {
			fprintf(stderr, "usage: kms-writeback-shot [--device PATH] [--mode WxH] "
				"[--overlay] [--cursor] [OUT.ppm]\n");
			return 2;
		}
	}
	struct wbc_kms_error err;
	if (wbc_kms_device_open(device, NULL, &s.dev, &err) < 0) {
		fprintf(stderr, "kms-writeback-shot: %s\n", err.message);
		return 1;
	}
	const drmModeModeInfo *mode = NULL;
	for (size_t i = 0; w && i < s.dev->n_connectors && !mode; i++)
		for (size_t m = 0; m < s.dev->connectors[i].n_modes && !mode; m++)
			if (s.dev->connectors[i].modes[m].hdisplay == w &&
					s.dev->connectors[i].modes[m].vdisplay == h)
				mode = &s.dev->connectors[i].modes[m];
	if (w && !mode) {
		fprintf(stderr, "kms-writeback-shot: no %ux%u mode on %s\n", w, h, device);
		wbc_kms_device_destroy(s.dev);
		return 1;
	}
	int status = make_pipe(&s, mode, cursor, overlay) < 0 ? 1 : shoot(&s, cursor, overlay);
	if (status && !s.pipe && s.dev->error[0])
		fprintf(stderr, "kms-writeback-shot: %s\n", wbc_kms_device_error(s.dev));
	wbc_kms_device_destroy(s.dev);
	return status;
}
