/*
 * touch-client: an xdg toplevel that prints the wl_touch events it gets, one a line, in
 * the order they came, positions in surface coordinates exactly as sent (wl_fixed_t,
 * multiples of 1/256, printed with all their digits):
 *
 *   configured W H | touch | shown | down ID X Y | motion ID X Y | up ID | frame | cancel
 *
 * "touch" when the seat has touch (the wl_touch is then asked for), "shown" when the
 * first buffer's frame callback came (wbc drew it: touches can find it).
 *
 *   touch-client [--size WxH] UPS   a WxH buffer (default 640x480, the tests' mode;
 *                   wbc centres a smaller one); exits 0 at the frame after the UPS-th
 *                   up, 1 after 150 s without it
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client-globals.h"

/* Everything the client has; one instance in main(). */
struct client {
	struct test_globals g;
	struct wl_touch *touch;
	struct wl_surface *surface;
	int width, height;
	bool configured;
	int ups, want_ups;
	bool done;                       /* the frame after the last up came */
};

static void t_down(void *data, struct wl_touch *t, uint32_t serial, uint32_t time,
		struct wl_surface *surface, int32_t id, wl_fixed_t x, wl_fixed_t y)
{
	printf("down %d %.8f %.8f\n", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}

static void t_up(void *data, struct wl_touch *t, uint32_t serial, uint32_t time, int32_t id)
{
	struct client *c = data;
	printf("up %d\n", id);
	c->ups++;
}

static void t_motion(void *data, struct wl_touch *t, uint32_t time, int32_t id, wl_fixed_t x,
		wl_fixed_t y)
{
	printf("motion %d %.8f %.8f\n", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
}

static void t_frame(void *data, struct wl_touch *t)
{
	struct client *c = data;
	printf("frame\n");
	c->done = c->ups >= c->want_ups;
}

static void t_cancel(void *data, struct wl_touch *t)
{
	printf("cancel\n");
}

static void t_shape(void *data, struct wl_touch *t, int32_t id, wl_fixed_t major,
		wl_fixed_t minor) {}
static void t_orientation(void *data, struct wl_touch *t, int32_t id, wl_fixed_t o) {}

static const struct wl_touch_listener touch_listener = {
	.down = t_down, .up = t_up, .motion = t_motion, .frame = t_frame, .cancel = t_cancel,
	.shape = t_shape, .orientation = t_orientation,
};

static void seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct client *c = data;
	if ((caps & WL_SEAT_CAPABILITY_TOUCH) && !c->touch) {
		c->touch = wl_seat_get_touch(seat);
		wl_touch_add_listener(c->touch, &touch_listener, c);
		printf("touch\n");
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_caps, .name = seat_name,
};

/* The first buffer's frame callback: wbc drew the surface on an output, so it is in the
 * scene where touches look for surfaces. */
static void first_frame_done(void *data, struct wl_callback *cb, uint32_t ms)
{
	wl_callback_destroy(cb);
	printf("shown\n");
}

static const struct wl_callback_listener first_frame_listener = { .done = first_frame_done };

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(xs, serial);
	if (c->configured)
		return;
	c->configured = true;
	wl_surface_attach(c->surface, test_solid_buffer(c->g.shm, c->width, c->height,
		WL_SHM_FORMAT_XRGB8888, 0x20a050), 0, 0);
	wl_surface_damage(c->surface, 0, 0, c->width, c->height);
	wl_callback_add_listener(wl_surface_frame(c->surface), &first_frame_listener, c);
	wl_surface_commit(c->surface);
	printf("configured %d %d\n", c->width, c->height);
}

static const struct xdg_surface_listener xs_listener = { .configure = xs_configure };

/* A test tool, not wbc: it exits without destroying its proxies (see key-client.c). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	struct client c = { .width = 640, .height = 480 };
	if (argc == 4 && strcmp(argv[1], "--size") == 0 &&
			sscanf(argv[2], "%dx%d", &c.width, &c.height) == 2) {
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || c.width <= 0 || c.height <= 0) {
		fprintf(stderr, "usage: touch-client [--size WxH] UPS\n");
		return 2;
	}
	c.want_ups = atoi(argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy || test_globals_bind(dpy, &c.g) < 0 || !c.g.seat)
		return 1;
	wl_seat_add_listener(c.g.seat, &seat_listener, &c);
	c.surface = wl_compositor_create_surface(c.g.compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c.g.wm_base, c.surface);
	xdg_surface_add_listener(xs, &xs_listener, &c);
	xdg_toplevel_set_title(xdg_surface_get_toplevel(xs), "touch-client");
	wl_surface_commit(c.surface);
	time_t end = time(NULL) + 150;
	while (!c.done && time(NULL) < end) {
		wl_display_flush(dpy);
		struct pollfd p = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&p, 1, 500) > 0 && wl_display_dispatch(dpy) < 0)
			break;
		wl_display_dispatch_pending(dpy);
	}
	wl_display_disconnect(dpy);
	return c.done ? 0 : 1;
}
