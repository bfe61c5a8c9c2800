/*
 * dmabuf-client: an xdg toplevel whose buffer is a dma-buf, as a GPU client's would be:
 * a dumb buffer made on the DRM device (VKMS has no render node), exported with PRIME and
 * handed over through zwp_linux_dmabuf_v1 (XRGB8888 with the LINEAR modifier if the
 * compositor lists it, else the implicit one: wlroots 0.15 lists only INVALID when a
 * format has just INVALID and LINEAR, for Xwayland's sake; a dumb buffer is linear either
 * way). The left half is LEFT_RGB, the right half RIGHT_RGB.
 *
 *   dmabuf-client [--xbgr] WIDTH HEIGHT [DEVICE]
 *
 * --xbgr: the same colours in XBGR8888, which VKMS's planes lack (they take ARGB8888,
 * XRGB8888, the 16-bit ones and RGB565) but pixman composites.
 * Prints "advertised FORMAT: linear|implicit|no", then "created WxH" when the compositor
 * imported the buffer (or "failed" and exit 1), "configured" once it is shown, and stays
 * until killed (200 s at most).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "client-globals.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"

#define LEFT_RGB 0xff8000u
#define RIGHT_RGB 0x0080ffu

/* Everything the client has; one instance in main(). */
struct client {
	struct test_globals g;
	uint32_t format;                 /* XRGB8888, or XBGR8888 with --xbgr */
	bool xrgb_linear, xrgb_implicit; /* format advertised with LINEAR / INVALID */
	int created;                     /* 1 created, -1 failed, 0 not yet */
	struct wl_buffer *buffer;
	bool configured;
};

/* A dumb buffer of the two colours, exported as a dma-buf; its fd and stride. */
/* 0xRRGGBB as a pixel of format (XRGB8888 or XBGR8888). */
static uint32_t pixel(uint32_t format, uint32_t rgb)
{
	if (format == DRM_FORMAT_XRGB8888)
		return rgb;
	return (rgb & 0xff) << 16 | (rgb & 0xff00) | (rgb >> 16 & 0xff);
}

static int make_dmabuf(int drm, uint32_t format, uint32_t w, uint32_t h, uint32_t *stride)
{
	struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
	if (drmIoctl(drm, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
		return -1;
	struct drm_mode_map_dumb map = { .handle = create.handle };
	if (drmIoctl(drm, DRM_IOCTL_MODE_MAP_DUMB, &map) != 0)
		return -1;
	char *px = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, drm,
		(off_t)map.offset);
	if (px == MAP_FAILED)
		return -1;
	for (uint32_t y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(px + (size_t)y * create.pitch);
		for (uint32_t x = 0; x < w; x++)
			row[x] = pixel(format, x < w / 2 ? LEFT_RGB : RIGHT_RGB);
	}
	munmap(px, create.size);
	int fd = -1;
	if (drmPrimeHandleToFD(drm, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd) != 0)
		return -1;
	*stride = create.pitch;
	return fd;
}

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format) {}

static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format,
		uint32_t hi, uint32_t lo)
{
	struct client *c = data;
	uint64_t modifier = (uint64_t)hi << 32 | lo;
	if (format != c->format)
		return;
	c->xrgb_linear = c->xrgb_linear || modifier == DRM_FORMAT_MOD_LINEAR;
	c->xrgb_implicit = c->xrgb_implicit || modifier == DRM_FORMAT_MOD_INVALID;
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format, .modifier = dmabuf_modifier,
};

static void params_created(void *data, struct zwp_linux_buffer_params_v1 *p,
		struct wl_buffer *buffer)
{
	struct client *c = data;
	c->buffer = buffer;
	c->created = 1;
}

static void params_failed(void *data, struct zwp_linux_buffer_params_v1 *p)
{
	struct client *c = data;
	c->created = -1;
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = params_created, .failed = params_failed,
};

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(xs, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xs_listener = { .configure = xs_configure };

static int dispatch(struct wl_display *dpy, int timeout_ms)
{
	wl_display_flush(dpy);
	struct pollfd p = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
	if (poll(&p, 1, timeout_ms) > 0 && wl_display_dispatch(dpy) < 0)
		return -1;
	return wl_display_dispatch_pending(dpy);
}

/* A test tool, not wbc: it exits without destroying its proxies, so LeakSanitizer is
 * turned off for this process only. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	struct client c = { .format = DRM_FORMAT_XRGB8888 };
	if (argc > 1 && strcmp(argv[1], "--xbgr") == 0) {
		c.format = DRM_FORMAT_XBGR8888;
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: dmabuf-client [--xbgr] WIDTH HEIGHT [DEVICE]\n");
		return 2;
	}
	const char *name = c.format == DRM_FORMAT_XRGB8888 ? "XRGB8888" : "XBGR8888";
	uint32_t w = (uint32_t)atoi(argv[1]), h = (uint32_t)atoi(argv[2]), stride = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	int drm = open(argc > 3 ? argv[3] : "/dev/dri/card0", O_RDWR | O_CLOEXEC);
	int fd = drm >= 0 ? make_dmabuf(drm, c.format, w, h, &stride) : -1;
	if (fd < 0) {
		fprintf(stderr, "dmabuf-client: no dma-buf: %s\n", strerror(errno));
		return 1;
	}
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy || test_globals_bind(dpy, &c.g) < 0 || !c.g.dmabuf) {
		fprintf(stderr, "dmabuf-client: no compositor or no zwp_linux_dmabuf_v1\n");
		return 1;
	}
	zwp_linux_dmabuf_v1_add_listener(c.g.dmabuf, &dmabuf_listener, &c);
	wl_display_roundtrip(dpy);
	printf("advertised %s: %s\n", name, c.xrgb_linear ? "linear" :
		c.xrgb_implicit ? "implicit" : "no");
	if (!c.xrgb_linear && !c.xrgb_implicit)
		return 1;
	uint64_t modifier = c.xrgb_linear ? DRM_FORMAT_MOD_LINEAR : DRM_FORMAT_MOD_INVALID;
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(c.g.dmabuf);
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, &c);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, stride,
		(uint32_t)(modifier >> 32), (uint32_t)modifier);
	zwp_linux_buffer_params_v1_create(params, (int32_t)w, (int32_t)h, c.format, 0);
	while (c.created == 0 && dispatch(dpy, 500) >= 0)
		;
	if (c.created < 0) {
		printf("failed\n");
		return 1;
	}
	printf("created %ux%u\n", w, h);
	struct wl_surface *surface = wl_compositor_create_surface(c.g.compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c.g.wm_base, surface);
	xdg_surface_add_listener(xs, &xs_listener, &c);
	xdg_toplevel_set_title(xdg_surface_get_toplevel(xs), "dmabuf-client");
	wl_surface_commit(surface);
	while (!c.configured && dispatch(dpy, 500) >= 0)
		;
	wl_surface_attach(surface, c.buffer, 0, 0);
	wl_surface_damage(surface, 0, 0, (int32_t)w, (int32_t)h);
	wl_surface_commit(surface);
	wl_display_roundtrip(dpy);
	printf("configured\n");
	time_t end = time(NULL) + 200;
	while (time(NULL) < end && dispatch(dpy, 500) >= 0)
		;
	return 0;
}
