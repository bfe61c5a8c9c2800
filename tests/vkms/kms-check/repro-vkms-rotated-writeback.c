/*
 * A libdrm-only reproducer of wbc-kms-check's finding 1 (doc/kms-check.md): on Linux
 * 6.12's VKMS, one writeback capture of a primary plane with a rotated or Y-reflected
 * overlay on top makes the composer write outside the writeback buffer (an oops in
 * argb_u16_to_XRGB8888); the out-fence never signals. "rotate-0" is the control.
 *   repro-vkms-rotated-writeback [rotate-0|reflect-y|rotate-90|rotate-180|rotate-270]
 * Run it where nothing holds the device (e.g. wbc-vm --param enable_overlay=1 -- ...).
 * Exit 0: the fence signalled; 1: it did not within 5 s; 2: set-up failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static int fd;

static uint32_t prop(uint32_t obj, uint32_t type, const char *name)
{
	drmModeObjectProperties *l = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;
	for (uint32_t i = 0; l && i < l->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, l->props[i]);
		if (p && strcmp(p->name, name) == 0)
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(l);
	return id;
}

/* A w x h XRGB8888 dumb buffer filled with `value`; its framebuffer id. */
static uint32_t buffer(uint32_t w, uint32_t h, uint32_t value)
{
	uint32_t handle, pitch, fb = 0;
	uint64_t size, offset;
	if (drmModeCreateDumbBuffer(fd, w, h, 32, 0, &handle, &pitch, &size) ||
			drmModeMapDumbBuffer(fd, handle, &offset))
		return 0;
	uint32_t *map = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	if (map == MAP_FAILED)
		return 0;
	for (uint64_t i = 0; i < size / 4; i++)
		map[i] = value;
	uint32_t handles[4] = { handle }, pitches[4] = { pitch }, offsets[4] = { 0 };
	drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &fb, 0);
	return fb;
}

static void plane(drmModeAtomicReq *r, uint32_t p, uint32_t crtc, uint32_t fb, uint32_t x,
		uint32_t y, uint32_t sw, uint32_t sh, uint32_t cw, uint32_t ch)
{
	uint32_t t = DRM_MODE_OBJECT_PLANE;
	drmModeAtomicAddProperty(r, p, prop(p, t, "FB_ID"), fb);
	drmModeAtomicAddProperty(r, p, prop(p, t, "CRTC_ID"), crtc);
	drmModeAtomicAddProperty(r, p, prop(p, t, "SRC_W"), (uint64_t)sw << 16);
	drmModeAtomicAddProperty(r, p, prop(p, t, "SRC_H"), (uint64_t)sh << 16);
	drmModeAtomicAddProperty(r, p, prop(p, t, "CRTC_X"), x);
	drmModeAtomicAddProperty(r, p, prop(p, t, "CRTC_Y"), y);
	drmModeAtomicAddProperty(r, p, prop(p, t, "CRTC_W"), cw);
	drmModeAtomicAddProperty(r, p, prop(p, t, "CRTC_H"), ch);
}

static const struct { const char *name; uint64_t bits; } rotations[] = {
	{ "rotate-0", DRM_MODE_ROTATE_0 }, { "reflect-y", DRM_MODE_ROTATE_0 | DRM_MODE_REFLECT_Y },
	{ "rotate-90", DRM_MODE_ROTATE_90 }, { "rotate-180", DRM_MODE_ROTATE_180 },
	{ "rotate-270", DRM_MODE_ROTATE_270 },
};

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "reflect-y";
	uint64_t rot = 0;
	for (size_t i = 0; i < sizeof(rotations) / sizeof(rotations[0]); i++)
		if (strcmp(want, rotations[i].name) == 0)
			rot = rotations[i].bits;
	fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (!rot || fd < 0 || drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) ||
			drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1))
		return fprintf(stderr, "usage: %s [rotate-0|reflect-y|rotate-90|rotate-180|rotate-270]"
			" on a device with atomic and writeback\n", argv[0]), 2;
	drmModeRes *res = drmModeGetResources(fd);
	drmModePlaneRes *pres = drmModeGetPlaneResources(fd);
	drmModeConnector *wb = NULL;
	for (int i = 0; res && i < res->count_connectors && !wb; i++) {
		wb = drmModeGetConnector(fd, res->connectors[i]);
		if (wb && (wb->connector_type != DRM_MODE_CONNECTOR_WRITEBACK || !wb->count_modes)) {
			drmModeFreeConnector(wb);
			wb = NULL;
		}
	}
	uint32_t primary = 0, overlay = 0, crtc = res && res->count_crtcs ? res->crtcs[0] : 0;
	for (uint32_t i = 0; pres && i < pres->count_planes; i++) {
		uint32_t p = pres->planes[i], t = prop(p, DRM_MODE_OBJECT_PLANE, "type");
		drmModeObjectProperties *l = drmModeObjectGetProperties(fd, p, DRM_MODE_OBJECT_PLANE);
		for (uint32_t j = 0; l && j < l->count_props; j++)
			if (l->props[j] == t && l->prop_values[j] == DRM_PLANE_TYPE_PRIMARY && !primary)
				primary = p;
			else if (l->props[j] == t && l->prop_values[j] == DRM_PLANE_TYPE_OVERLAY && !overlay)
				overlay = p;
		drmModeFreeObjectProperties(l);
	}
	drmModeModeInfo *mode = NULL;
	for (int i = 0; wb && i < wb->count_modes && !mode; i++)
		if (wb->modes[i].hdisplay == 640 && wb->modes[i].vdisplay == 480)
			mode = &wb->modes[i];
	uint32_t blob = 0, pfb = buffer(640, 480, 0x204060), ofb = buffer(160, 100, 0xc08040);
	uint32_t wfb = buffer(640, 480, 0);
	if (!wb || !primary || !overlay || !crtc || !mode || !pfb || !ofb || !wfb ||
			drmModeCreatePropertyBlob(fd, mode, sizeof(*mode), &blob))
		return fprintf(stderr, "%s: need a writeback connector with 640x480, a primary and an "
			"overlay plane (vkms enable_overlay=1), and dumb buffers\n", argv[0]), 2;

	int fence = -1;
	uint32_t c = DRM_MODE_OBJECT_CONNECTOR;
	drmModeAtomicReq *r = drmModeAtomicAlloc();
	drmModeAtomicAddProperty(r, crtc, prop(crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
	drmModeAtomicAddProperty(r, crtc, prop(crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID"), blob);
	drmModeAtomicAddProperty(r, wb->connector_id, prop(wb->connector_id, c, "CRTC_ID"), crtc);
	drmModeAtomicAddProperty(r, wb->connector_id, prop(wb->connector_id, c, "WRITEBACK_FB_ID"), wfb);
	drmModeAtomicAddProperty(r, wb->connector_id,
		prop(wb->connector_id, c, "WRITEBACK_OUT_FENCE_PTR"), (uint64_t)(uintptr_t)&fence);
	plane(r, primary, crtc, pfb, 0, 0, 640, 480, 640, 480);
	/* 160x100 at (100,80); rotated by 90 or 270 it shows 100x160. */
	bool swap = rot & (DRM_MODE_ROTATE_90 | DRM_MODE_ROTATE_270);
	plane(r, overlay, crtc, ofb, 100, 80, 160, 100, swap ? 100 : 160, swap ? 160 : 100);
	drmModeAtomicAddProperty(r, overlay, prop(overlay, DRM_MODE_OBJECT_PLANE, "rotation"), rot);
	if (drmModeAtomicCommit(fd, r, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		return perror("atomic commit"), 2;
	struct pollfd pfd = { .fd = fence, .events = POLLIN };
	if (poll(&pfd, 1, 5000) == 1) {
		printf("%s: the writeback out-fence signalled\n", want);
		return 0;
	}
	/* Exiting now blocks in the kernel if the composer died: say so first. */
	printf("%s: the writeback out-fence did not signal within 5 s (see dmesg)\n", want);
	fflush(stdout);
	return 1;
}
