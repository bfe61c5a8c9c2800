/*
 * screencopy-check: wbc's zwlr_screencopy_manager_v1 against the specification, on a
 * screen that does not change (the tests run it over `wbc-pattern-client --static`).
 *
 *   screencopy-check good   buffer events (wl_shm XRGB8888, the output's size, stride
 *                           width * 4, buffer_done); copy: flags 0, ready with a valid
 *                           CLOCK_MONOTONIC time of the last 10 s; capture_output_region
 *                           (10, 20, 200x100): a 200x100 buffer whose pixels equal that
 *                           crop of the whole output; copy_with_damage on a new manager:
 *                           damage + ready at once; again after a copy on the unchanged
 *                           screen: nothing for 2 s (it waits for new content), then
 *                           destroyed while waiting
 *   screencopy-check region-90
 *                           on an output of mode 640x480 turned 90 degrees (480x640
 *                           logical): capture_output_region (10, 20, 200x100), in logical
 *                           coordinates, is a 100x200 buffer equal to the whole buffer's
 *                           crop (20, 270) 100x200: logical (x, y) is the panel's
 *                           (y, 479 - x) (wlroots' drawing; wbc-rotate checks it by pixels)
 *   screencopy-check bad stride|format|size|twice
 *                           a wrong buffer (or a second copy) must end the connection with
 *                           zwlr_screencopy_frame_v1 error invalid_buffer (already_used)
 *   screencopy-check unplug FILE
 *                           hotplug: binds the output, copies one frame, writes "bound" to
 *                           FILE, waits (120 s at most) for the output's global to go (the
 *                           display unplugged), then asks a frame of that wl_output: it
 *                           must fail (failed, within 30 s), not hang
 * Prints what it saw; exit 0 when all is as said, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "wlr-screencopy-unstable-v1-client-protocol.h"

struct globals {
	struct wl_shm *shm;
	struct wl_output *output;
	uint32_t output_name;            /* its global */
	bool output_removed;             /* its global went (unplug mode) */
	struct zwlr_screencopy_manager_v1 *manager;
	struct wl_registry *registry;
	uint32_t manager_name, manager_version;
};

/* One frame's events. */
struct frame {
	struct zwlr_screencopy_frame_v1 *proxy;
	uint32_t format, width, height, stride;
	int buffers, buffer_dones, flags_events, damages;
	uint32_t flags;
	bool ready, failed;
	uint64_t ready_ns;
	void *pixels;
	size_t size;
};

/* fail("what %s", arg): one line on stderr, exit 1. */
__attribute__((format(printf, 1, 2), noreturn))
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "screencopy-check: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void on_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct globals *g = data;
	if (strcmp(iface, wl_shm_interface.name) == 0)
		g->shm = wl_registry_bind(reg, name, &wl_shm_interface, 1);
	else if (strcmp(iface, wl_output_interface.name) == 0 && !g->output) {
		g->output = wl_registry_bind(reg, name, &wl_output_interface, 1);
		g->output_name = name;
	}
	else if (strcmp(iface, zwlr_screencopy_manager_v1_interface.name) == 0) {
		g->manager_name = name;
		g->manager_version = version < 3 ? version : 3;
		g->manager = wl_registry_bind(reg, name, &zwlr_screencopy_manager_v1_interface,
			g->manager_version);
	}
}

static void on_global_remove(void *data, struct wl_registry *reg, uint32_t name)
{
	struct globals *g = data;
	if (g->output && name == g->output_name)
		g->output_removed = true;
}

static const struct wl_registry_listener registry_listener = { on_global, on_global_remove };

static void on_buffer(void *data, struct zwlr_screencopy_frame_v1 *p, uint32_t format,
		uint32_t width, uint32_t height, uint32_t stride)
{
	struct frame *f = data;
	f->buffers++;
	f->format = format, f->width = width, f->height = height, f->stride = stride;
}

static void on_flags(void *data, struct zwlr_screencopy_frame_v1 *p, uint32_t flags)
{
	struct frame *f = data;
	f->flags_events++;
	f->flags = flags;
}

static void on_ready(void *data, struct zwlr_screencopy_frame_v1 *p, uint32_t hi, uint32_t lo,
		uint32_t nsec)
{
	struct frame *f = data;
	f->ready = true;
	if (nsec > 999999999u)
		fail("ready: tv_nsec %u out of range", nsec);
	f->ready_ns = (((uint64_t)hi << 32) | lo) * 1000000000u + nsec;
}

static void on_failed(void *data, struct zwlr_screencopy_frame_v1 *p)
{
	((struct frame *)data)->failed = true;
}

static void on_damage(void *data, struct zwlr_screencopy_frame_v1 *p, uint32_t x, uint32_t y,
		uint32_t w, uint32_t h)
{
	((struct frame *)data)->damages++;
}

static void on_linux_dmabuf(void *data, struct zwlr_screencopy_frame_v1 *p, uint32_t format,
		uint32_t w, uint32_t h)
{
	fail("%s", "linux_dmabuf advertised, but wbc takes wl_shm only");
}

static void on_buffer_done(void *data, struct zwlr_screencopy_frame_v1 *p)
{
	((struct frame *)data)->buffer_dones++;
}

static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
	on_buffer, on_flags, on_ready, on_failed, on_damage, on_linux_dmabuf, on_buffer_done,
};

static void connect_globals(struct wl_display **dpy, struct globals *g)
{
	*dpy = wl_display_connect(NULL);
	if (!*dpy)
		fail("%s", "cannot connect to the Wayland display");
	*g = (struct globals){ 0 };
	g->registry = wl_display_get_registry(*dpy);
	wl_registry_add_listener(g->registry, &registry_listener, g);
	wl_display_roundtrip(*dpy);
	if (!g->shm || !g->output || !g->manager || g->manager_version != 3)
		fail("%s", "wl_shm, wl_output or zwlr_screencopy_manager_v1 version 3 missing");
}

/* A new frame (region NULL: the whole output) with its buffer events received. */
static void frame_start(struct wl_display *dpy, struct globals *g,
		struct zwlr_screencopy_manager_v1 *manager, const int32_t *region, struct frame *f)
{
	*f = (struct frame){ 0 };
	f->proxy = region ? zwlr_screencopy_manager_v1_capture_output_region(manager, 0,
		g->output, region[0], region[1], region[2], region[3]) :
		zwlr_screencopy_manager_v1_capture_output(manager, 0, g->output);
	zwlr_screencopy_frame_v1_add_listener(f->proxy, &frame_listener, f);
	while (f->buffer_dones == 0 && !f->failed)
		if (wl_display_dispatch(dpy) < 0)
			fail("%s", "connection lost waiting for buffer_done");
	if (f->failed || f->buffers != 1)
		fail("%s", "no single buffer event before buffer_done");
}

/* A wl_shm buffer; its pixels stay mapped in f. */
static struct wl_buffer *make_buffer(struct globals *g, struct frame *f, uint32_t format,
		int32_t w, int32_t h, int32_t stride)
{
	f->size = (size_t)stride * (size_t)h;
	int fd = memfd_create("screencopy-check", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)f->size) < 0)
		fail("memfd: %s", strerror(errno));
	f->pixels = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f->pixels == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	memset(f->pixels, 0x55, f->size);
	struct wl_shm_pool *pool = wl_shm_create_pool(g->shm, fd, (int32_t)f->size);
	struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, w, h, stride, format);
	wl_shm_pool_destroy(pool);
	close(fd);
	return b;
}

/* Dispatch until the frame is ready or failed, or timeout_ms passed (-1: no limit). */
static void frame_wait(struct wl_display *dpy, struct frame *f, int timeout_ms)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!f->ready && !f->failed) {
		wl_display_flush(dpy);
		struct pollfd pfd = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(dpy) < 0)
			return;
		wl_display_dispatch_pending(dpy);
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (timeout_ms >= 0 && ms >= timeout_ms)
			return;
	}
}

static struct wl_buffer *copy_whole(struct wl_display *dpy, struct globals *g,
		struct zwlr_screencopy_manager_v1 *m, struct frame *f, bool damage)
{
	frame_start(dpy, g, m, NULL, f);
	struct wl_buffer *b = make_buffer(g, f, f->format, (int32_t)f->width,
		(int32_t)f->height, (int32_t)f->stride);
	if (damage)
		zwlr_screencopy_frame_v1_copy_with_damage(f->proxy, b);
	else
		zwlr_screencopy_frame_v1_copy(f->proxy, b);
	return b;
}

static int check_good(void)
{
	struct wl_display *dpy;
	struct globals g;
	connect_globals(&dpy, &g);

	struct frame whole;
	copy_whole(dpy, &g, g.manager, &whole, false);
	printf("buffer: format %u %ux%u stride %u, buffer_done\n", whole.format, whole.width,
		whole.height, whole.stride);
	if (whole.format != WL_SHM_FORMAT_XRGB8888 || whole.stride != whole.width * 4)
		fail("%s", "the buffer event is not XRGB8888 with stride width * 4");
	frame_wait(dpy, &whole, -1);
	if (!whole.ready || whole.flags_events != 1 || whole.flags != 0 || whole.damages)
		fail("%s", "copy: not flags 0 then ready (or damage without copy_with_damage)");
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	printf("copy: flags 0, ready %.3f s before now (CLOCK_MONOTONIC)\n",
		((double)now_ns - (double)whole.ready_ns) / 1e9);
	if (whole.ready_ns > now_ns || now_ns - whole.ready_ns > 10000000000u)
		fail("%s", "ready's time is not of the last 10 s of CLOCK_MONOTONIC");

	const int32_t box[4] = { 10, 20, 200, 100 };
	struct frame part;
	frame_start(dpy, &g, g.manager, box, &part);
	printf("region buffer: %ux%u stride %u\n", part.width, part.height, part.stride);
	if (part.width != 200 || part.height != 100 || part.stride != 800)
		fail("%s", "the region's buffer is not 200x100, stride 800");
	zwlr_screencopy_frame_v1_copy(part.proxy, make_buffer(&g, &part, part.format, 200, 100,
		800));
	frame_wait(dpy, &part, -1);
	if (!part.ready)
		fail("%s", "the region copy failed");
	for (int y = 0; y < 100; y++)
		if (memcmp((char *)part.pixels + y * 800, (char *)whole.pixels +
				(size_t)(y + 20) * whole.stride + 10 * 4, 800) != 0)
			fail("%s", "the region differs from that crop of the whole output");
	printf("region: equals the crop (10,20) 200x100 of the whole output\n");

	/* copy_with_damage: a manager that never copied gets the frame at once; after
	 * that, on the unchanged screen, it waits. */
	struct zwlr_screencopy_manager_v1 *fresh = wl_registry_bind(g.registry,
		g.manager_name, &zwlr_screencopy_manager_v1_interface, 3);
	struct frame first, second;
	copy_whole(dpy, &g, fresh, &first, true);
	frame_wait(dpy, &first, -1);
	printf("copy_with_damage on a new manager: %s, %d damage event(s)\n",
		first.ready ? "ready" : "failed", first.damages);
	if (!first.ready || first.damages < 1 || first.flags_events != 1)
		fail("%s", "copy_with_damage on a new manager: not flags, damage, ready");
	copy_whole(dpy, &g, fresh, &second, true);
	frame_wait(dpy, &second, 2000);
	printf("copy_with_damage again, screen unchanged: %s after 2 s\n",
		second.ready ? "ready" : second.failed ? "failed" : "still waiting");
	if (second.ready || second.failed)
		fail("%s", "copy_with_damage did not wait for new content");
	zwlr_screencopy_frame_v1_destroy(second.proxy);
	if (wl_display_roundtrip(dpy) < 0)
		fail("%s", "connection lost destroying a waiting frame");
	printf("good: all as specified\n");
	wl_display_disconnect(dpy);
	return 0;
}

/* One wrong use; the compositor must end the connection with the frame's error. */
static int check_bad(const char *how)
{
	struct wl_display *dpy;
	struct globals g;
	connect_globals(&dpy, &g);
	struct frame f;
	frame_start(dpy, &g, g.manager, NULL, &f);
	int32_t w = (int32_t)f.width, h = (int32_t)f.height, stride = (int32_t)f.stride;
	uint32_t format = f.format, want = ZWLR_SCREENCOPY_FRAME_V1_ERROR_INVALID_BUFFER;
	if (strcmp(how, "stride") == 0)
		stride += 64;
	else if (strcmp(how, "format") == 0)
		format = WL_SHM_FORMAT_ARGB8888;
	else if (strcmp(how, "size") == 0)
		w -= 1, stride = w * 4;
	else if (strcmp(how, "twice") == 0)
		want = ZWLR_SCREENCOPY_FRAME_V1_ERROR_ALREADY_USED;
	else
		fail("unknown case %s", how);
	struct wl_buffer *b = make_buffer(&g, &f, format, w, h, stride);
	zwlr_screencopy_frame_v1_copy(f.proxy, b);
	if (want == ZWLR_SCREENCOPY_FRAME_V1_ERROR_ALREADY_USED)
		zwlr_screencopy_frame_v1_copy(f.proxy, b);
	wl_display_roundtrip(dpy);
	const struct wl_interface *iface = NULL;
	uint32_t id;
	int code = wl_display_get_protocol_error(dpy, &iface, &id);
	printf("bad %s: protocol error %d on %s\n", how, code, iface ? iface->name : "(none)");
	if (iface != &zwlr_screencopy_frame_v1_interface || code != (int)want)
		fail("%s", "not the frame's expected protocol error");
	wl_display_disconnect(dpy);
	return 0;
}

static int check_unplug(const char *marker)
{
	struct wl_display *dpy;
	struct globals g;
	connect_globals(&dpy, &g);
	struct frame first;
	copy_whole(dpy, &g, g.manager, &first, false);
	frame_wait(dpy, &first, 60000);
	if (!first.ready)
		fail("%s", "the first frame (before the unplug) did not come");
	printf("before the unplug: a %ux%u frame\n", first.width, first.height);
	FILE *f = fopen(marker, "w");
	if (!f || fputs("bound\n", f) < 0 || fclose(f) != 0)
		fail("cannot write %s", marker);
	for (int i = 0; i < 1200 && !g.output_removed; i++) {
		struct pollfd pfd = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		wl_display_flush(dpy);
		if (poll(&pfd, 1, 100) > 0 && wl_display_dispatch(dpy) < 0)
			fail("%s", "connection lost waiting for the unplug");
	}
	if (!g.output_removed)
		fail("%s", "the output's global never went");
	printf("the output's global went\n");
	struct frame after = { 0 };
	after.proxy = zwlr_screencopy_manager_v1_capture_output(g.manager, 0, g.output);
	zwlr_screencopy_frame_v1_add_listener(after.proxy, &frame_listener, &after);
	frame_wait(dpy, &after, 30000);
	if (after.ready || after.buffer_dones)
		fail("%s", "a frame of the unplugged output was offered");
	if (!after.failed)
		fail("%s", "no failed event within 30 s for the unplugged output");
	printf("after the unplug: failed\n");
	return 0;
}

static int check_region_90(void)
{
	struct wl_display *dpy;
	struct globals g;
	connect_globals(&dpy, &g);
	struct frame whole;
	copy_whole(dpy, &g, g.manager, &whole, false);
	frame_wait(dpy, &whole, -1);
	printf("whole buffer: %ux%u\n", whole.width, whole.height);
	if (!whole.ready || whole.width != 640 || whole.height != 480)
		fail("%s", "the whole output is not a 640x480 buffer (the panel's)");
	const int32_t box[4] = { 10, 20, 200, 100 };
	struct frame part;
	frame_start(dpy, &g, g.manager, box, &part);
	printf("region buffer: %ux%u stride %u\n", part.width, part.height, part.stride);
	if (part.width != 100 || part.height != 200 || part.stride != 400)
		fail("%s", "the region's buffer is not 100x200, stride 400");
	zwlr_screencopy_frame_v1_copy(part.proxy, make_buffer(&g, &part, part.format, 100, 200,
		400));
	frame_wait(dpy, &part, -1);
	if (!part.ready)
		fail("%s", "the region copy failed");
	for (int y = 0; y < 200; y++)
		if (memcmp((char *)part.pixels + y * 400, (char *)whole.pixels +
				(size_t)(y + 270) * whole.stride + 20 * 4, 400) != 0)
			fail("row %d of the region differs from the crop (20,270) 100x200", y);
	printf("region: equals the crop (20,270) 100x200 of the whole buffer\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);    /* lines survive a sanitizer's exit */
	if (argc == 2 && strcmp(argv[1], "good") == 0)
		return check_good();
	if (argc == 2 && strcmp(argv[1], "region-90") == 0)
		return check_region_90();
	if (argc == 3 && strcmp(argv[1], "bad") == 0)
		return check_bad(argv[2]);
	if (argc == 3 && strcmp(argv[1], "unplug") == 0)
		return check_unplug(argv[2]);
	fprintf(stderr, "usage: screencopy-check good | region-90 | bad stride|format|size|twice | "
		"unplug FILE\n");
	return 2;
}
