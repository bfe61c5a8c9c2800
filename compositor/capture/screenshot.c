/* --screenshot-after SECONDS FILE: a one-shot capture consumer that writes the first
 * frame it gets after SECONDS (from APP's start) as a binary PPM. A debug and test aid;
 * the recorder (recording.c) is the other consumer of capture.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include "capture.h"
#include "util/log.h"
#include "shell/server.h"

/* One per --screenshot-after; owned by server->screenshots. */
struct wbc_screenshot {
	struct wbc_capture_consumer consumer;
	const struct wbc_screenshot_request *req; /* borrowed from the options */
	struct wl_event_source *timer;
	struct wl_list link;
	bool done;
};

/* Byte offsets of R, G, B in a little-endian 32-bit pixel; false if not such a format. */
static bool rgb_offsets(uint32_t format, int *r, int *g, int *b)
{
	switch (format) {
	case DRM_FORMAT_XRGB8888: case DRM_FORMAT_ARGB8888:
		*r = 2, *g = 1, *b = 0;
		return true;
	case DRM_FORMAT_XBGR8888: case DRM_FORMAT_ABGR8888:
		*r = 0, *g = 1, *b = 2;
		return true;
	}
	return false;
}

static int write_ppm(const char *path, const struct wbc_kms_wb_frame *f)
{
	int ro, go, bo;
	if (!rgb_offsets(f->format, &ro, &go, &bo)) {
		wbc_log(WLR_ERROR, "screenshot %s: writeback format 0x%08x not supported", path,
			f->format);
		return -1;
	}
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		wbc_log(WLR_ERROR, "screenshot %s: %s", path, strerror(errno));
		return -1;
	}
	unsigned char *row = malloc((size_t)f->width * 3);
	int ret = row ? 0 : -1;
	fprintf(fp, "P6\n%u %u\n255\n", f->width, f->height);
	for (uint32_t y = 0; ret == 0 && y < f->height; y++) {
		const unsigned char *src = (const unsigned char *)f->data + (size_t)y * f->stride;
		for (uint32_t x = 0; x < f->width; x++) {
			row[x * 3 + 0] = src[x * 4 + ro];
			row[x * 3 + 1] = src[x * 4 + go];
			row[x * 3 + 2] = src[x * 4 + bo];
		}
		if (fwrite(row, 3, f->width, fp) != f->width)
			ret = -1;
	}
	free(row);
	if (fclose(fp) != 0 || ret != 0) {
		wbc_log(WLR_ERROR, "screenshot %s: write failed", path);
		return -1;
	}
	return 0;
}

static void handle_frame(struct wbc_capture_consumer *consumer, struct wbc_capture_frame *cf)
{
	struct wbc_screenshot *shot = wl_container_of(consumer, shot, consumer);
	const struct wbc_kms_wb_frame *f = &cf->frame;
	shot->done = true;
	if (write_ppm(shot->req->path, f) == 0)
		wbc_log(WLR_INFO, "screenshot %s: %ux%u, vblank %llu", shot->req->path, f->width,
			f->height, (unsigned long long)f->sequence);
	wbc_capture_remove(consumer);
}

static void handle_unavailable(struct wbc_capture_consumer *consumer, const char *why)
{
	struct wbc_screenshot *shot = wl_container_of(consumer, shot, consumer);
	if (!shot->done)
		wbc_log(WLR_ERROR, "screenshot %s: not taken: %s", shot->req->path, why);
	shot->done = true;
}

static int handle_timer(void *data)
{
	struct wbc_screenshot *shot = data;
	if (!shot->done)
		wbc_capture_request_frame(&shot->consumer);
	return 0;
}

int wbc_screenshots_init(struct wbc_server *s)
{
	wl_list_init(&s->screenshots);
	for (size_t i = 0; i < s->opts->n_screenshots; i++) {
		struct wbc_screenshot *shot = calloc(1, sizeof(*shot));
		if (!shot)
			return -1;
		shot->req = &s->opts->screenshots[i];
		shot->consumer.frame = handle_frame;
		shot->consumer.unavailable = handle_unavailable;
		wl_list_insert(s->screenshots.prev, &shot->link);
		shot->timer = wl_event_loop_add_timer(s->loop, handle_timer, shot);
		if (!shot->timer)
			return -1;
	}
	return 0;
}

void wbc_screenshots_attach(struct wbc_server *s, struct wbc_capture *capture)
{
	struct wbc_screenshot *shot;
	wl_list_for_each(shot, &s->screenshots, link) {
		if (shot->consumer.capture || shot->done)
			continue;
		wbc_capture_add(capture, &shot->consumer);
	}
}

void wbc_screenshots_arm(struct wbc_server *s)
{
	struct wbc_screenshot *shot;
	wl_list_for_each(shot, &s->screenshots, link) {
		int ms = (int)(shot->req->after_s * 1000);
		wl_event_source_timer_update(shot->timer, ms > 0 ? ms : 1);
	}
}

void wbc_screenshots_finish(struct wbc_server *s)
{
	struct wbc_screenshot *shot, *tmp;
	wl_list_for_each_safe(shot, tmp, &s->screenshots, link) {
		if (!shot->done)
			wbc_log(WLR_ERROR, "screenshot %s: not taken (wbc stopped first)",
				shot->req->path);
		wbc_capture_remove(&shot->consumer);
		if (shot->timer)
			wl_event_source_remove(shot->timer);
		wl_list_remove(&shot->link);
		free(shot);
	}
}
