/*
 * cursor-plane: whether the kernel shows a cursor, read from the first cursor plane's
 * FB_ID (0: off). Polls every 20 ms, so that a state that lasts a few seconds is not
 * missed in the slow guest (kms-state.py's drm_info takes seconds there).
 *
 *   cursor-plane                       prints "fb=N"
 *   cursor-plane wait shown|hidden SECONDS
 *                  until the plane has a framebuffer (shown) or none (hidden); prints
 *                  "fb=N at T" (T: CLOCK_REALTIME seconds, as date +%s.%N) when it is so
 * Exit status 0; 1 when the state never came; 2 on an error (no cursor plane: said).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static uint64_t prop_value(int fd, uint32_t plane, const char *name, int *found)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, plane,
		DRM_MODE_OBJECT_PLANE);
	uint64_t v = 0;
	*found = 0;
	for (uint32_t i = 0; props && i < props->count_props && !*found; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);
		if (p && strcmp(p->name, name) == 0) {
			v = props->prop_values[i];
			*found = 1;
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return v;
}

/* The first cursor plane's id, 0 when there is none. */
static uint32_t cursor_plane(int fd)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(fd);
	uint32_t id = 0;
	for (uint32_t i = 0; res && i < res->count_planes && !id; i++) {
		int found;
		if (prop_value(fd, res->planes[i], "type", &found) == DRM_PLANE_TYPE_CURSOR && found)
			id = res->planes[i];
	}
	drmModeFreePlaneResources(res);
	return id;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int want = -1;                   /* -1: just print; 1: shown; 0: hidden */
	double limit = 0;
	if (argc == 4 && strcmp(argv[1], "wait") == 0 &&
			(strcmp(argv[2], "shown") == 0 || strcmp(argv[2], "hidden") == 0)) {
		want = strcmp(argv[2], "shown") == 0;
		limit = atof(argv[3]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: cursor-plane [wait shown|hidden SECONDS]\n");
		return 2;
	}
	int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	/* Atomic: without it the kernel hides the planes' FB_ID property. */
	if (fd < 0 || drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) != 0) {
		fprintf(stderr, "cursor-plane: /dev/dri/card0: %s\n", strerror(errno));
		return 2;
	}
	uint32_t plane = cursor_plane(fd);
	if (!plane) {
		fprintf(stderr, "cursor-plane: /dev/dri/card0 has no cursor plane\n");
		return 2;
	}
	double end = now_s() + limit;
	for (;;) {
		int found;
		uint64_t fb = prop_value(fd, plane, "FB_ID", &found);
		if (!found) {
			fprintf(stderr, "cursor-plane: plane %u has no FB_ID property\n", plane);
			return 2;
		}
		if (want < 0) {
			printf("fb=%llu\n", (unsigned long long)fb);
			return 0;
		}
		if ((fb != 0) == want) {
			printf("fb=%llu at %.3f\n", (unsigned long long)fb, now_s());
			return 0;
		}
		if (now_s() > end)
			return 1;
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	}
}
