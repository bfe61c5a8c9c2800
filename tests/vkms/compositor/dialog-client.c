/*
 * dialog-client: an application window and a dialog over it, as toolkits make them: two
 * xdg toplevels, the second with xdg_toplevel.set_parent(first).
 *
 *   dialog-client    each window takes the size the compositor configures, else its
 *                    own: the window 640x480 of PARENT_XRGB, the dialog DIALOG_W x
 *                    DIALOG_H of DIALOG_XRGB. Prints "configure NAME W H fullscreen|windowed" for
 *                    each one's first configure, and "shown" once both have drawn (each
 *                    first buffer's frame callback came); stays until killed (200 s at
 *                    most, then exits 1).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client-globals.h"

/* wbc-dialog.sh looks for these colours and this size in captured frames. */
enum { DIALOG_W = 200, DIALOG_H = 100 };
#define PARENT_XRGB 0x3060c0u
#define DIALOG_XRGB 0xff8000u

/* One toplevel of the two; part of struct client. */
struct window {
	struct client *client;
	const char *name;
	struct wl_surface *surface;
	struct xdg_surface *xdg;
	struct xdg_toplevel *toplevel;
	int width, height;               /* what it draws */
	int asked_w, asked_h;            /* the last configure's size (0: the client's choice) */
	bool fullscreen;
	bool configured, drawn;
	uint32_t xrgb;
};

/* Everything the client has; one instance in main(). */
struct client {
	struct test_globals g;
	struct window parent, dialog;
};

static void frame_done(void *data, struct wl_callback *cb, uint32_t ms)
{
	struct window *w = data;
	wl_callback_destroy(cb);
	w->drawn = true;
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

static void tl_configure(void *data, struct xdg_toplevel *tl, int32_t width, int32_t height,
		struct wl_array *states)
{
	struct window *w = data;
	uint32_t *st;
	w->fullscreen = false;
	w->asked_w = width;
	w->asked_h = height;
	wl_array_for_each(st, states)
		w->fullscreen = w->fullscreen || *st == XDG_TOPLEVEL_STATE_FULLSCREEN;
	if (width > 0 && height > 0) {          /* as toolkits do: the size asked for */
		w->width = width;
		w->height = height;
	}
}

static void tl_close(void *data, struct xdg_toplevel *tl) {}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = tl_configure, .close = tl_close,
};

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct window *w = data;
	xdg_surface_ack_configure(xs, serial);
	if (w->configured)
		return;
	w->configured = true;
	printf("configure %s %d %d %s\n", w->name, w->asked_w, w->asked_h,
		w->fullscreen ? "fullscreen" : "windowed");
	if (w->width <= 0 || w->height <= 0) {
		w->width = 640;
		w->height = 480;
	}
	wl_surface_attach(w->surface, test_solid_buffer(w->client->g.shm, w->width, w->height,
		WL_SHM_FORMAT_XRGB8888, w->xrgb), 0, 0);
	wl_surface_damage(w->surface, 0, 0, w->width, w->height);
	wl_callback_add_listener(wl_surface_frame(w->surface), &frame_listener, w);
	wl_surface_commit(w->surface);
}

static const struct xdg_surface_listener xs_listener = { .configure = xs_configure };

static void window_create(struct client *c, struct window *w, const char *name,
		struct window *parent)
{
	w->client = c;
	w->name = name;
	w->surface = wl_compositor_create_surface(c->g.compositor);
	w->xdg = xdg_wm_base_get_xdg_surface(c->g.wm_base, w->surface);
	xdg_surface_add_listener(w->xdg, &xs_listener, w);
	w->toplevel = xdg_surface_get_toplevel(w->xdg);
	xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
	xdg_toplevel_set_title(w->toplevel, name);
	if (parent)
		xdg_toplevel_set_parent(w->toplevel, parent->toplevel);
	wl_surface_commit(w->surface);
}

/* A test tool, not wbc: it exits without destroying its proxies (see key-client.c). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(void)
{
	struct client c = { .parent = { .xrgb = PARENT_XRGB },
		.dialog = { .xrgb = DIALOG_XRGB, .width = DIALOG_W, .height = DIALOG_H } };
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy || test_globals_bind(dpy, &c.g) < 0)
		return 1;
	window_create(&c, &c.parent, "parent", NULL);
	/* The dialog once the window is up, as an application opens one. */
	while (!c.parent.drawn && wl_display_dispatch(dpy) >= 0)
		;
	window_create(&c, &c.dialog, "dialog", &c.parent);
	time_t end = time(NULL) + 200;
	bool said = false;
	while (time(NULL) < end) {
		if (!said && c.dialog.drawn) {
			printf("shown\n");
			said = true;
		}
		wl_display_flush(dpy);
		struct pollfd p = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&p, 1, 500) > 0 && wl_display_dispatch(dpy) < 0)
			break;
		wl_display_dispatch_pending(dpy);
	}
	wl_display_disconnect(dpy);
	return 1;
}
