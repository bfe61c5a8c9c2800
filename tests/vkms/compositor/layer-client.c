/*
 * layer-client: one zwlr_layer_surface_v1, for wbc-layer-shell.sh.
 *
 *   layer-client LAYER ANCHORS W H ZONE SECONDS
 *     LAYER: background|bottom|top|overlay; ANCHORS: letters of t, b, l, r (or "-" for
 *     none); W H: set_size; ZONE: set_exclusive_zone. Prints "configure W H" for each
 *     configure, answers it with a solid 0xffc03030 buffer of that size, and exits 0 after
 *     SECONDS (or 1 without a configure by then).
 *   A protocol error (a size of 0 without both opposite anchors, say) is one line,
 *   "protocol error: INTERFACE CODE", and exit status 3 (libwayland prints the message).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "client-globals.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

/* The client's state; one in main(). */
struct client {
	struct test_globals g;
	struct zwlr_layer_shell_v1 *shell;
	struct wl_surface *surface;
	bool configured;
};

static void reg_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct client *c = data;
	if (strcmp(iface, zwlr_layer_shell_v1_interface.name) == 0)
		c->shell = wl_registry_bind(reg, name, &zwlr_layer_shell_v1_interface, 1);
}

static void reg_remove(void *data, struct wl_registry *reg, uint32_t name) {}

static const struct wl_registry_listener reg_listener = {
	.global = reg_global, .global_remove = reg_remove,
};

static void ls_configure(void *data, struct zwlr_layer_surface_v1 *ls, uint32_t serial,
		uint32_t w, uint32_t h)
{
	struct client *c = data;
	printf("configure %u %u\n", w, h);
	zwlr_layer_surface_v1_ack_configure(ls, serial);
	wl_surface_attach(c->surface, test_solid_buffer(c->g.shm, (int)w, (int)h,
		WL_SHM_FORMAT_XRGB8888, 0xffc03030u), 0, 0);
	wl_surface_damage(c->surface, 0, 0, (int)w, (int)h);
	wl_surface_commit(c->surface);
	c->configured = true;
}

static void ls_closed(void *data, struct zwlr_layer_surface_v1 *ls)
{
	printf("closed\n");
}

static const struct zwlr_layer_surface_v1_listener ls_listener = {
	.configure = ls_configure, .closed = ls_closed,
};

static uint32_t parse_anchors(const char *s)
{
	uint32_t a = 0;
	for (; *s; s++) {
		a |= *s == 't' ? ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP :
			*s == 'b' ? ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM :
			*s == 'l' ? ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT :
			*s == 'r' ? ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT : 0;
	}
	return a;
}

static int parse_layer(const char *s)
{
	const char *names[] = { "background", "bottom", "top", "overlay" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* A test tool: it exits without destroying its proxies (see key-client.c). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	struct client c = { 0 };
	int layer = argc == 7 ? parse_layer(argv[1]) : -1;
	if (layer < 0) {
		fprintf(stderr, "usage: layer-client LAYER ANCHORS W H ZONE SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy || test_globals_bind(dpy, &c.g) < 0)
		return 1;
	struct wl_registry *reg = wl_display_get_registry(dpy);
	wl_registry_add_listener(reg, &reg_listener, &c);
	wl_display_roundtrip(dpy);
	if (!c.shell) {
		printf("no zwlr_layer_shell_v1\n");
		return 1;
	}
	c.surface = wl_compositor_create_surface(c.g.compositor);
	struct zwlr_layer_surface_v1 *ls = zwlr_layer_shell_v1_get_layer_surface(c.shell,
		c.surface, NULL, (uint32_t)layer, "layer-client");
	zwlr_layer_surface_v1_add_listener(ls, &ls_listener, &c);
	zwlr_layer_surface_v1_set_anchor(ls, parse_anchors(argv[2]));
	zwlr_layer_surface_v1_set_size(ls, (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]));
	zwlr_layer_surface_v1_set_exclusive_zone(ls, atoi(argv[5]));
	wl_surface_commit(c.surface);
	time_t end = time(NULL) + atoi(argv[6]);
	while (time(NULL) < end) {
		wl_display_flush(dpy);
		struct pollfd p = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&p, 1, 200) > 0 && wl_display_dispatch(dpy) < 0)
			break;
		wl_display_dispatch_pending(dpy);
	}
	const struct wl_interface *iface = NULL;
	uint32_t code = wl_display_get_protocol_error(dpy, &iface, NULL);
	if (iface) {
		printf("protocol error: %s %u\n", iface->name, code);
		return 3;
	}
	if (wl_display_get_error(dpy)) {
		printf("connection error: %s\n", strerror(wl_display_get_error(dpy)));
		return 1;
	}
	wl_display_disconnect(dpy);
	return c.configured ? 0 : 1;
}
