/* What the test clients share: bind the globals they use (answering xdg_wm_base pings),
 * and make a wl_shm buffer of one colour. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "client-globals.h"

static void *bind(struct wl_registry *reg, uint32_t name, const struct wl_interface *iface,
		uint32_t offered, uint32_t wanted)
{
	return wl_registry_bind(reg, name, iface, offered < wanted ? offered : wanted);
}

static void global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct test_globals *g = data;
	if (strcmp(iface, wl_compositor_interface.name) == 0)
		g->compositor = bind(reg, name, &wl_compositor_interface, version, 4);
	else if (strcmp(iface, wl_shm_interface.name) == 0)
		g->shm = bind(reg, name, &wl_shm_interface, version, 1);
	else if (strcmp(iface, xdg_wm_base_interface.name) == 0)
		g->wm_base = bind(reg, name, &xdg_wm_base_interface, version, 1);
	else if (strcmp(iface, wl_seat_interface.name) == 0)
		g->seat = bind(reg, name, &wl_seat_interface, version, 5);
	else if (strcmp(iface, wp_presentation_interface.name) == 0)
		g->presentation = bind(reg, name, &wp_presentation_interface, version, 1);
	else if (strcmp(iface, zwp_linux_dmabuf_v1_interface.name) == 0)
		g->dmabuf = bind(reg, name, &zwp_linux_dmabuf_v1_interface, version, 3);
}

static void global_remove(void *data, struct wl_registry *reg, uint32_t name) {}

static const struct wl_registry_listener registry_listener = {
	.global = global, .global_remove = global_remove,
};

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_listener = { .ping = wm_ping };

int test_globals_bind(struct wl_display *dpy, struct test_globals *g)
{
	*g = (struct test_globals){ .registry = wl_display_get_registry(dpy) };
	wl_registry_add_listener(g->registry, &registry_listener, g);
	if (wl_display_roundtrip(dpy) < 0 || !g->compositor || !g->shm || !g->wm_base)
		return -1;
	xdg_wm_base_add_listener(g->wm_base, &wm_listener, g);
	return 0;
}

struct wl_buffer *test_solid_buffer(struct wl_shm *shm, int w, int h, uint32_t format,
		uint32_t pixel)
{
	int size = w * h * 4;
	int fd = memfd_create("wbc-test-client", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) != 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	uint32_t *px = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	for (int i = 0; px != MAP_FAILED && i < w * h; i++)
		px[i] = pixel;
	if (px != MAP_FAILED)
		munmap(px, (size_t)size);
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
	struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return b;
}
