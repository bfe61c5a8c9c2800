/*
 * kms-hold: leave a known display state for another DRM client to find. Lights the
 * Virtual connector with a WIDTHxHEIGHT mode and a framebuffer of its own through legacy
 * drmModeSetCrtc (as a console or an older compositor would), drops DRM master so that
 * the next client becomes master, prints "ready FB CRTC CONNECTOR" and keeps the
 * framebuffer alive (a framebuffer dies with the DRM file that made it) until its stdin
 * reaches end of file.
 *
 *   kms-hold WIDTH HEIGHT [DEVICE]
 *   kms-hold --keep-master WIDTH HEIGHT [DEVICE]
 *                 the same, but stays DRM master, as a running compositor or X server does
 * When another process is master, drmModeSetCrtc fails: "kms-hold: drmModeSetCrtc:
 * Permission denied", status 1 (the refusal wbc-drm-master.sh looks for).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static int die(const char *what)
{
	fprintf(stderr, "kms-hold: %s: %s\n", what, strerror(errno));
	return 1;
}

static drmModeConnector *virtual_connector(int fd, const drmModeRes *res)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
		if (c && c->connector_type == DRM_MODE_CONNECTOR_VIRTUAL)
			return c;
		drmModeFreeConnector(c);
	}
	return NULL;
}

static const drmModeModeInfo *find_mode(const drmModeConnector *c, int w, int h)
{
	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].hdisplay == w && c->modes[i].vdisplay == h)
			return &c->modes[i];
	return NULL;
}

/* A dumb buffer filled with one colour, as a framebuffer; its id, 0 on failure. */
static uint32_t make_fb(int fd, uint32_t w, uint32_t h, uint32_t argb)
{
	struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
		return 0;
	struct drm_mode_map_dumb map = { .handle = create.handle };
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) != 0)
		return 0;
	uint32_t *px = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		(off_t)map.offset);
	if (px == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < create.size / 4; i++)
		px[i] = argb;
	munmap(px, create.size);
	uint32_t handles[4] = { create.handle }, pitches[4] = { create.pitch }, offsets[4] = { 0 };
	uint32_t id = 0;
	if (drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &id, 0) != 0)
		return 0;
	return id;
}

int main(int argc, char **argv)
{
	bool keep_master = argc > 1 && strcmp(argv[1], "--keep-master") == 0;
	if (keep_master) {
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: kms-hold [--keep-master] WIDTH HEIGHT [DEVICE]\n");
		return 2;
	}
	int w = atoi(argv[1]), h = atoi(argv[2]);
	int fd = open(argc > 3 ? argv[3] : "/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return die("open");
	drmModeRes *res = drmModeGetResources(fd);
	drmModeConnector *conn = res ? virtual_connector(fd, res) : NULL;
	if (!conn || res->count_crtcs < 1) {
		fprintf(stderr, "kms-hold: no Virtual connector or CRTC\n");
		return 1;
	}
	const drmModeModeInfo *mode = find_mode(conn, w, h);
	if (!mode) {
		fprintf(stderr, "kms-hold: %s has no %dx%d mode\n", "the Virtual connector", w, h);
		return 1;
	}
	uint32_t crtc = res->crtcs[0], fb = make_fb(fd, (uint32_t)w, (uint32_t)h, 0x00208040);
	if (!fb)
		return die("framebuffer");
	drmModeModeInfo m = *mode;
	if (drmModeSetCrtc(fd, crtc, fb, 0, 0, &conn->connector_id, 1, &m) != 0) {
		int ret = die("drmModeSetCrtc");
		drmModeFreeConnector(conn);      /* the refusal is expected: no leak report */
		drmModeFreeResources(res);
		return ret;
	}
	if (!keep_master && drmDropMaster(fd) != 0)
		return die("drmDropMaster");
	printf("ready %u %u %u\n", fb, crtc, conn->connector_id);
	fflush(stdout);
	char buf[64];
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
	close(fd);
	return 0;
}
