/*
 * bad-client: breaks the Wayland protocol on purpose and checks that the compositor
 * disconnects it with a protocol error.
 *
 *   bad-client double-toplevel | unconfigured-buffer | garbage | short-stride
 *
 * short-stride: a configured toplevel gets a 640x32 XRGB8888 wl_shm buffer whose stride is
 * its width in pixels, 640, not in bytes (libwayland-server 1.21 only checks stride >=
 * width), in a pool of exactly stride * height bytes: drawing its last three rows would
 * read up to 1920 bytes past the pool (seen before wbc checked: they showed memory that
 * is not the client's).
 *
 * Exit status 0 when the compositor disconnected us with an error, 1 when it did not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "client-globals.h"

/* Globals the violations need; one instance in main(). */
struct globals {
	struct test_globals g;
	bool configured;                 /* short-stride: the toplevel got its configure */
};

static struct wl_buffer *make_buffer(struct wl_shm *shm, int32_t width, int32_t height,
		int32_t stride)
{
	int32_t size = stride * height;
	int fd = memfd_create("bad-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) != 0)
		return NULL;
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
	struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, width, height, stride,
		WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return b;
}

static void xdg_surface_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	xdg_surface_ack_configure(xs, serial);
	struct globals *g = data;
	g->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static int violate(struct wl_display *dpy, struct globals *g, const char *how)
{
	if (strcmp(how, "garbage") == 0) {
		/* wl_display (object 1), opcode 77, size 8: no such request. */
		uint32_t msg[2] = { 1, (8u << 16) | 77u };
		wl_display_flush(dpy);
		return write(wl_display_get_fd(dpy), msg, sizeof(msg)) == sizeof(msg) ? 0 : -1;
	}
	struct wl_surface *surface = wl_compositor_create_surface(g->g.compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(g->g.wm_base, surface);
	if (strcmp(how, "double-toplevel") == 0) {
		xdg_surface_get_toplevel(xs);
		wl_surface_commit(surface);
		xdg_surface_get_toplevel(xs);   /* xdg_surface.already_constructed */
		return 0;
	}
	if (strcmp(how, "unconfigured-buffer") == 0) {
		xdg_surface_get_toplevel(xs);
		wl_surface_attach(surface, make_buffer(g->g.shm, 64, 64, 256), 0, 0);
		wl_surface_commit(surface);      /* xdg_surface.unconfigured_buffer */
		return 0;
	}
	if (strcmp(how, "short-stride") == 0) {
		xdg_surface_add_listener(xs, &xdg_surface_listener, g);
		xdg_surface_get_toplevel(xs);
		wl_surface_commit(surface);
		while (!g->configured)
			if (wl_display_dispatch(dpy) < 0)
				return -1;
		wl_surface_attach(surface, make_buffer(g->g.shm, 640, 32, 640), 0, 0);
		wl_surface_damage(surface, 0, 0, INT32_MAX, INT32_MAX);
		wl_surface_commit(surface);
		return 0;
	}
	fprintf(stderr, "bad-client: unknown violation '%s'\n", how);
	return -1;
}

/* A test tool, not wbc: it exits without destroying its proxies, so LeakSanitizer is
 * turned off for this process only (wbc, which spawns it, is still leak-checked). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bad-client double-toplevel|unconfigured-buffer|garbage|short-stride\n");
		return 2;
	}
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy) {
		fprintf(stderr, "bad-client: cannot connect: %s\n", strerror(errno));
		return 1;
	}
	struct globals g = { 0 };
	if (test_globals_bind(dpy, &g.g) < 0) {
		fprintf(stderr, "bad-client: missing globals\n");
		return 1;
	}
	if (violate(dpy, &g, argv[1]) < 0)
		return 1;
	for (int i = 0; i < 10 && wl_display_roundtrip(dpy) >= 0; i++)
		;
	int err = wl_display_get_error(dpy);
	if (err == 0) {
		printf("bad-client %s: still connected\n", argv[1]);
		return 1;
	}
	const struct wl_interface *iface = NULL;
	uint32_t id = 0, code = err == EPROTO ? wl_display_get_protocol_error(dpy, &iface, &id) : 0;
	printf("bad-client %s: disconnected: %s (protocol error %u on %s@%u)\n", argv[1],
		strerror(err), code, iface ? iface->name : "?", id);
	wl_display_disconnect(dpy);
	return 0;
}
