/*
 * presentation-client: an xdg toplevel with a small wl_shm surface that either animates
 * for N frames (each with a wp_presentation feedback) or commits one frame and stays
 * still for S seconds.
 *
 *   presentation-client [--frames N] [--static SECONDS] [--size WxH]
 *
 * Prints one line per feedback:  presented <sec>.<nsec> seq=<n> refresh=<ns> flags=0x<f>
 *                           or:  discarded
 * and finally:                   summary committed=<n> presented=<n> discarded=<n>
 * Exit status 0 when every feedback was resolved, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client-globals.h"

#define N_BUFFERS 3

struct buffer {
	struct wl_buffer *wl;
	uint32_t *pixels;
	bool busy;
};

/* Everything the client has; one instance in main(). */
struct client {
	struct wl_display *display;
	struct test_globals g;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct buffer buffers[N_BUFFERS];
	int width, height;
	bool configured, running_frames;
	int frames_wanted, committed, presented, discarded;
	uint32_t clock_id;
};

static void xdg_surface_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(xs, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h,
		struct wl_array *states) {}
static void toplevel_close(void *data, struct xdg_toplevel *t) {}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure, .close = toplevel_close,
};

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk)
{
	((struct client *)data)->clock_id = clk;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void fb_sync_output(void *data, struct wp_presentation_feedback *fb,
		struct wl_output *output) {}

static void fb_presented(void *data, struct wp_presentation_feedback *fb, uint32_t sec_hi,
		uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
		uint32_t flags)
{
	struct client *c = data;
	unsigned long long sec = ((unsigned long long)sec_hi << 32) | sec_lo;
	unsigned long long seq = ((unsigned long long)seq_hi << 32) | seq_lo;
	printf("presented %llu.%09u seq=%llu refresh=%u flags=0x%x\n", sec, nsec, seq, refresh,
		flags);
	c->presented++;
	wp_presentation_feedback_destroy(fb);
}

static void fb_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct client *c = data;
	printf("discarded\n");
	c->discarded++;
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = fb_sync_output, .presented = fb_presented, .discarded = fb_discarded,
};

static void buffer_release(void *data, struct wl_buffer *wl)
{
	((struct buffer *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static int make_buffers(struct client *c)
{
	int stride = c->width * 4;
	size_t one = (size_t)stride * c->height, size = one * N_BUFFERS;
	int fd = memfd_create("presentation-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		return -1;
	void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	struct wl_shm_pool *pool = wl_shm_create_pool(c->g.shm, fd, (int32_t)size);
	for (int i = 0; i < N_BUFFERS; i++) {
		struct buffer *b = &c->buffers[i];
		b->pixels = (uint32_t *)((char *)map + one * i);
		b->wl = wl_shm_pool_create_buffer(pool, (int32_t)(one * i), c->width, c->height,
			stride, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(b->wl, &buffer_listener, b);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
	return 0;
}

static void draw(struct client *c, struct buffer *b, int frame)
{
	/* A moving bar on a colour that changes every frame. */
	uint32_t bg = 0xff000000u | (uint32_t)((frame * 7) & 0xff) << 16 | 0x4080u;
	int bar = (frame * 4) % c->width;
	for (int y = 0; y < c->height; y++)
		for (int x = 0; x < c->width; x++)
			b->pixels[y * c->width + x] = (x >= bar && x < bar + 8) ? 0xffffffffu : bg;
}

static const struct wl_callback_listener frame_listener;

static int commit_frame(struct client *c, bool want_callback)
{
	struct buffer *b = NULL;
	for (int i = 0; i < N_BUFFERS && !b; i++)
		if (!c->buffers[i].busy)
			b = &c->buffers[i];
	if (!b) {
		fprintf(stderr, "presentation-client: no free buffer\n");
		return -1;
	}
	draw(c, b, c->committed);
	b->busy = true;
	wl_surface_attach(c->surface, b->wl, 0, 0);
	wl_surface_damage(c->surface, 0, 0, c->width, c->height);
	if (c->g.presentation) {
		struct wp_presentation_feedback *fb =
			wp_presentation_feedback(c->g.presentation, c->surface);
		wp_presentation_feedback_add_listener(fb, &feedback_listener, c);
	}
	if (want_callback) {
		struct wl_callback *cb = wl_surface_frame(c->surface);
		wl_callback_add_listener(cb, &frame_listener, c);
	}
	wl_surface_commit(c->surface);
	c->committed++;
	return 0;
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;
	wl_callback_destroy(cb);
	if (c->committed < c->frames_wanted)
		commit_frame(c, c->committed + 1 < c->frames_wanted);
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Dispatch until `done` or the deadline; -1 on a connection error. */
static int run_until(struct client *c, bool (*done)(struct client *), double deadline)
{
	while (!done(c)) {
		double left = deadline - now_s();
		if (left <= 0)
			return 0;
		while (wl_display_prepare_read(c->display) != 0)
			wl_display_dispatch_pending(c->display);
		wl_display_flush(c->display);
		struct pollfd p = { .fd = wl_display_get_fd(c->display), .events = POLLIN };
		int n = poll(&p, 1, (int)(left * 1000) + 1);
		if (n > 0)
			wl_display_read_events(c->display);
		else
			wl_display_cancel_read(c->display);
		if (wl_display_dispatch_pending(c->display) < 0)
			return -1;
	}
	return 0;
}

static bool is_configured(struct client *c) { return c->configured; }
static bool all_resolved(struct client *c)
{
	return c->committed >= c->frames_wanted && c->presented + c->discarded >= c->committed;
}
static bool never(struct client *c) { return false; }

/* A test tool, not wbc: it exits without destroying its proxies, so LeakSanitizer is
 * turned off for this process only (wbc, which spawns it, is still leak-checked). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	struct client c = { .frames_wanted = 120, .width = 128, .height = 128 };
	double static_s = -1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			c.frames_wanted = atoi(argv[++i]);
		else if (strcmp(argv[i], "--static") == 0 && i + 1 < argc)
			static_s = atof(argv[++i]);
		else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			sscanf(argv[++i], "%dx%d", &c.width, &c.height);
		else {
			fprintf(stderr, "usage: presentation-client [--frames N] [--static S] [--size WxH]\n");
			return 2;
		}
	}
	if (static_s >= 0)
		c.frames_wanted = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	c.display = wl_display_connect(NULL);
	if (!c.display) {
		fprintf(stderr, "presentation-client: cannot connect: %s\n", strerror(errno));
		return 1;
	}
	if (test_globals_bind(c.display, &c.g) < 0 || !c.g.presentation) {
		fprintf(stderr, "presentation-client: missing globals\n");
		return 1;
	}
	wp_presentation_add_listener(c.g.presentation, &presentation_listener, &c);
	c.surface = wl_compositor_create_surface(c.g.compositor);
	c.xdg_surface = xdg_wm_base_get_xdg_surface(c.g.wm_base, c.surface);
	xdg_surface_add_listener(c.xdg_surface, &xdg_surface_listener, &c);
	c.toplevel = xdg_surface_get_toplevel(c.xdg_surface);
	xdg_toplevel_add_listener(c.toplevel, &toplevel_listener, &c);
	xdg_toplevel_set_title(c.toplevel, "presentation-client");
	wl_surface_commit(c.surface);
	if (run_until(&c, is_configured, now_s() + 10) < 0 || !c.configured || make_buffers(&c) < 0) {
		fprintf(stderr, "presentation-client: no configure / buffers\n");
		return 1;
	}
	printf("clock_id=%u\n", c.clock_id);
	commit_frame(&c, c.frames_wanted > 1);
	int ret = run_until(&c, all_resolved, now_s() + 60);
	if (ret == 0 && static_s > 0)
		ret = run_until(&c, never, now_s() + static_s);
	printf("summary committed=%d presented=%d discarded=%d\n", c.committed, c.presented,
		c.discarded);
	bool ok = ret == 0 && all_resolved(&c);
	wl_display_disconnect(c.display);
	return ok ? 0 : 1;
}
