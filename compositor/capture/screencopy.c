/*
 * wlr-screencopy-unstable-v1 served from the capture hook (capture.h), not from wlroots'
 * wlr_screencopy_v1 (which reads pixels back through the renderer): each frame a client
 * asks for is a one-shot consumer of its output's capture, so the commit that produces it
 * arms writeback (or, where the output has no writeback, is copied after its flip), and
 * the pixels are copied from that frame into the client's wl_shm buffer.
 *
 *   buffer    the output's mode (or the clipped region, given in logical coordinates,
 *             turned and scaled to the panel's pixels) in the capture's format, as
 *             wl_shm format, stride width * 4; no linux_dmabuf: only wl_shm is taken
 *   copy      a frame of the next commit (an idle screen is re-committed to get one)
 *   copy_with_damage  waits until the output shows new content (a wlroots commit with a
 *             buffer) since this manager's previous copy; damage: the whole region
 *   flags     0: writeback and readback frames are top-down
 *   ready     the frame's vblank time (CLOCK_MONOTONIC)
 *   failed    the output or its capture went away, the client's buffer was destroyed,
 *             or the frame's size or format is not what was advertised
 * A buffer of another type, format, size or stride than advertised is the protocol's
 * invalid_buffer error; a second copy on a frame is already_used.
 *
 * The cursor is always in the frame (writeback takes the composed CRTC output with its
 * cursor plane; readback locks software cursors on), whatever overlay_cursor says.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/box.h>
#include "capture.h"
#include "util/log.h"
#include "shell/server.h"
#include "wlr-screencopy-unstable-v1-protocol.h"

#define MANAGER_VERSION 3

/* Owned by the server (server->screencopy). */
struct wbc_screencopy {
	struct wbc_server *server;       /* borrowed: outlives every client */
	struct wl_global *global;
	struct wl_list frames;           /* sc_frame.link */
	bool said[2];                    /* "frames via ..." logged, per wbc_capture_method */
	/* For the line at exit: frames copied, failed, and copy_with_damage requests that
	 * waited for new content. */
	uint64_t copied, failed, waited;
};

/* What a manager resource has copied: for copy_with_damage. Reference counted: by the
 * manager resource and each of its frames (frames outlive their manager). */
struct sc_manager {
	unsigned refs;
	struct wbc_screencopy *sc;       /* borrowed: outlives every client */
	struct wlr_output *output;       /* of the last copy request; only compared */
	uint32_t commit_seq;             /* that output's commit_seq at that request */
	bool copied;                     /* a copy was requested at all */
};

enum frame_state {
	FRAME_NEW,                       /* buffer events sent, waiting for copy */
	FRAME_WAITING,                   /* copy_with_damage: waiting for new content */
	FRAME_CAPTURING,                 /* its consumer asked for a frame */
	FRAME_DONE,                      /* ready or failed sent */
};

/* Owned by its resource (freed in its destroy handler). */
struct sc_frame {
	struct wbc_screencopy *sc;       /* borrowed: outlives every client */
	struct wl_resource *resource;
	struct sc_manager *manager;      /* a reference */
	struct wlr_output *output;       /* NULL once it is gone */
	struct wbc_capture_consumer consumer;
	struct wlr_box box;              /* buffer pixels of the output to copy */
	uint32_t format;                 /* DRM fourcc of the frames and the buffer */
	uint32_t stride;
	bool with_damage;
	enum frame_state state;
	struct wl_resource *buffer;      /* the client's wl_buffer, NULL if destroyed */
	struct wl_listener buffer_destroy, output_commit, output_destroy;
	struct wl_list link;             /* wbc_screencopy.frames */
};

static void manager_unref(struct sc_manager *m)
{
	if (m && --m->refs == 0)
		free(m);
}

/* wl_shm names its two oldest formats differently from DRM. */
static uint32_t shm_format(uint32_t drm)
{
	switch (drm) {
	case DRM_FORMAT_XRGB8888: return WL_SHM_FORMAT_XRGB8888;
	case DRM_FORMAT_ARGB8888: return WL_SHM_FORMAT_ARGB8888;
	}
	return drm;
}

/* ---- Ending a frame ----------------------------------------------------------------- */

static void stop_listening(struct sc_frame *f)
{
	wl_list_remove(&f->output_commit.link);
	wl_list_init(&f->output_commit.link);
	wbc_capture_remove(&f->consumer);
}

static void frame_fail(struct sc_frame *f, const char *why)
{
	if (f->state == FRAME_DONE)
		return;
	wbc_log(WLR_DEBUG, "screencopy: frame failed: %s", why);
	f->sc->failed++;
	f->state = FRAME_DONE;
	stop_listening(f);
	zwlr_screencopy_frame_v1_send_failed(f->resource);
}

static void forget_output(struct sc_frame *f)
{
	wl_list_remove(&f->output_destroy.link);
	wl_list_init(&f->output_destroy.link);
	f->output = NULL;
}

static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct sc_frame *f = wl_container_of(listener, f, output_destroy);
	frame_fail(f, "the output went away");
	forget_output(f);
}

static void handle_buffer_destroy(struct wl_listener *listener, void *data)
{
	struct sc_frame *f = wl_container_of(listener, f, buffer_destroy);
	wl_list_remove(&f->buffer_destroy.link);
	wl_list_init(&f->buffer_destroy.link);
	f->buffer = NULL;
	frame_fail(f, "the client destroyed its buffer");
}

static void frame_resource_destroy(struct wl_resource *resource)
{
	struct sc_frame *f = wl_resource_get_user_data(resource);
	stop_listening(f);
	wl_list_remove(&f->buffer_destroy.link);
	wl_list_remove(&f->output_destroy.link);
	wl_list_remove(&f->link);
	manager_unref(f->manager);
	free(f);
}

/* ---- Copying ------------------------------------------------------------------------ */

static void say_method(struct sc_frame *f, enum wbc_capture_method m, uint64_t seq)
{
	const char *name = m == WBC_CAPTURE_WRITEBACK ? "writeback" : "readback";
	if (!f->sc->said[m]) {
		f->sc->said[m] = true;
		wbc_notice("screencopy: frame via %s (%s, vblank %llu)", name, f->output->name,
			(unsigned long long)seq);
	}
	wbc_log(WLR_DEBUG, "screencopy: frame via %s, vblank %llu", name,
		(unsigned long long)seq);
}

/* The frame's box into the client's buffer; false if the frame is not as advertised. */
static bool copy_pixels(struct sc_frame *f, const struct wbc_kms_wb_frame *src)
{
	if (src->format != f->format || (int64_t)f->box.x + f->box.width > src->width ||
			(int64_t)f->box.y + f->box.height > src->height)
		return false;
	struct wl_shm_buffer *shm = wl_shm_buffer_get(f->buffer);
	wl_shm_buffer_begin_access(shm);
	char *dst = wl_shm_buffer_get_data(shm);
	const char *from = (const char *)src->data + (size_t)f->box.y * src->stride +
		(size_t)f->box.x * 4;
	for (int y = 0; y < f->box.height; y++)
		memcpy(dst + (size_t)y * f->stride, from + (size_t)y * src->stride,
			(size_t)f->box.width * 4);
	wl_shm_buffer_end_access(shm);
	return true;
}

static void handle_frame(struct wbc_capture_consumer *consumer, struct wbc_capture_frame *cf)
{
	struct sc_frame *f = wl_container_of(consumer, f, consumer);
	const struct wbc_kms_wb_frame *src = &cf->frame;
	stop_listening(f);
	if (!f->buffer || f->state != FRAME_CAPTURING)
		return;
	if (!copy_pixels(f, src)) {
		frame_fail(f, "the output's frames are not what was advertised");
		return;
	}
	say_method(f, src->buffer ? WBC_CAPTURE_WRITEBACK : WBC_CAPTURE_READBACK, src->sequence);
	f->state = FRAME_DONE;
	f->sc->copied++;
	zwlr_screencopy_frame_v1_send_flags(f->resource, 0);
	if (f->with_damage)
		zwlr_screencopy_frame_v1_send_damage(f->resource, 0, 0, (uint32_t)f->box.width,
			(uint32_t)f->box.height);
	uint64_t sec = src->timestamp_ns / 1000000000u;
	zwlr_screencopy_frame_v1_send_ready(f->resource, (uint32_t)(sec >> 32), (uint32_t)sec,
		(uint32_t)(src->timestamp_ns % 1000000000u));
}

static void handle_unavailable(struct wbc_capture_consumer *consumer, const char *why)
{
	struct sc_frame *f = wl_container_of(consumer, f, consumer);
	frame_fail(f, why);
}

static void handle_detach(struct wbc_capture_consumer *consumer)
{
	struct sc_frame *f = wl_container_of(consumer, f, consumer);
	frame_fail(f, "the output's capture went away");
}

/* Ask the output's capture for the next frame. */
static void capture_now(struct sc_frame *f)
{
	struct wbc_capture *cap = f->output ?
		wbc_screen_capture_of(f->sc->server, f->output) : NULL;
	if (!cap) {
		frame_fail(f, "the output cannot be captured");
		return;
	}
	f->state = FRAME_CAPTURING;
	f->manager->output = f->output;
	f->manager->commit_seq = f->output->commit_seq;
	f->manager->copied = true;
	wl_list_remove(&f->output_commit.link);
	wl_list_init(&f->output_commit.link);
	wbc_capture_add(cap, &f->consumer);
	wbc_capture_request_frame(&f->consumer);
}

/* copy_with_damage: new content on the output. */
static void handle_output_commit(struct wl_listener *listener, void *data)
{
	struct sc_frame *f = wl_container_of(listener, f, output_commit);
	const struct wlr_output_event_commit *ev = data;
	if (f->state == FRAME_WAITING && (ev->committed & WLR_OUTPUT_STATE_BUFFER))
		capture_now(f);
}

/* The buffer is the one advertised: a wl_shm buffer of the box's size, format, stride. */
static bool buffer_ok(const struct sc_frame *f, struct wl_resource *buffer)
{
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
	return shm && wl_shm_buffer_get_format(shm) == shm_format(f->format) &&
		wl_shm_buffer_get_width(shm) == f->box.width &&
		wl_shm_buffer_get_height(shm) == f->box.height &&
		(uint32_t)wl_shm_buffer_get_stride(shm) == f->stride;
}

static void frame_copy(struct wl_client *client, struct wl_resource *resource,
		struct wl_resource *buffer, bool with_damage)
{
	struct sc_frame *f = wl_resource_get_user_data(resource);
	if (f->state != FRAME_NEW) {
		wl_resource_post_error(resource, ZWLR_SCREENCOPY_FRAME_V1_ERROR_ALREADY_USED,
			"the frame was already used to copy a buffer");
		return;
	}
	if (!buffer_ok(f, buffer)) {
		wl_resource_post_error(resource, ZWLR_SCREENCOPY_FRAME_V1_ERROR_INVALID_BUFFER,
			"want a wl_shm buffer of %dx%d, format 0x%08x, stride %u", f->box.width,
			f->box.height, shm_format(f->format), f->stride);
		return;
	}
	f->buffer = buffer;
	wl_resource_add_destroy_listener(buffer, &f->buffer_destroy);
	f->with_damage = with_damage;
	if (!f->output) {
		frame_fail(f, "the output went away");
		return;
	}
	const struct sc_manager *m = f->manager;
	bool seen = m->copied && m->output == f->output && m->commit_seq == f->output->commit_seq;
	if (with_damage && seen) {
		f->state = FRAME_WAITING;
		f->sc->waited++;
		wl_signal_add(&f->output->events.commit, &f->output_commit);
		return;
	}
	capture_now(f);
}

static void handle_copy(struct wl_client *client, struct wl_resource *resource,
		struct wl_resource *buffer)
{
	frame_copy(client, resource, buffer, false);
}

static void handle_copy_with_damage(struct wl_client *client, struct wl_resource *resource,
		struct wl_resource *buffer)
{
	frame_copy(client, resource, buffer, true);
}

/* The destroy request of both interfaces. */
static void handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct zwlr_screencopy_frame_v1_interface frame_impl = {
	.copy = handle_copy,
	.destroy = handle_destroy,
	.copy_with_damage = handle_copy_with_damage,
};

/* ---- Starting a frame ---------------------------------------------------------------- */

/* The capture's frame format for the buffer event (and its method chosen, as the
 * recorder does); 0 if the output cannot be captured. */
static uint32_t frame_format(struct wbc_screencopy *sc, struct wlr_output *output)
{
	struct wbc_capture *cap = wbc_screen_capture_of(sc->server, output);
	if (!cap)
		return 0;
	uint32_t format = 0;
	char line[1200];
	if (wbc_screen_choose_capture(sc->server, output, cap, wbc_capture_pool_size(cap),
			&format, line, sizeof(line)) < 0) {
		wbc_log(WLR_ERROR, "screencopy: %s", line);
		return 0;
	}
	wbc_log(WLR_DEBUG, "screencopy: %s", line);
	return format;
}

/* A region in the output's logical coordinates to its buffer's pixels (the frames are the
 * panel's picture, as the buffer): scaled to buffer-sized coordinates of the turned
 * picture, then turned back by the inverse of the output's transform, as wlroots' own
 * screencopy does. The edges round outwards: a region never loses a partly covered pixel. */
static void region_to_buffer(struct wlr_output *output, const struct wlr_box *region,
		struct wlr_box *out)
{
	double scale = output->scale > 0 ? output->scale : 1;
	int x0 = (int)floor(region->x * scale), y0 = (int)floor(region->y * scale);
	int x1 = (int)ceil((region->x + (double)region->width) * scale);
	int y1 = (int)ceil((region->y + (double)region->height) * scale);
	struct wlr_box scaled = { x0, y0, x1 - x0, y1 - y0 };
	int tw, th;                      /* the turned picture's size in buffer pixels */
	wlr_output_transformed_resolution(output, &tw, &th);
	wlr_box_transform(out, &scaled, wlr_output_transform_invert(output->transform), tw, th);
}

static void capture_region(struct wl_client *client, struct wl_resource *manager_resource,
		uint32_t id, int32_t overlay_cursor, struct wl_resource *output_resource,
		const struct wlr_box *region)
{
	struct sc_manager *m = wl_resource_get_user_data(manager_resource);
	struct sc_frame *f = calloc(1, sizeof(*f));
	struct wl_resource *resource = f ? wl_resource_create(client,
		&zwlr_screencopy_frame_v1_interface, wl_resource_get_version(manager_resource),
		id) : NULL;
	if (!resource) {
		free(f);
		wl_client_post_no_memory(client);
		return;
	}
	*f = (struct sc_frame){ .sc = m->sc, .resource = resource, .manager = m,
		.consumer = { .frame = handle_frame, .unavailable = handle_unavailable,
			.detach = handle_detach } };
	m->refs++;
	wl_list_init(&f->buffer_destroy.link);
	f->buffer_destroy.notify = handle_buffer_destroy;
	wl_list_init(&f->output_commit.link);
	f->output_commit.notify = handle_output_commit;
	wl_list_init(&f->output_destroy.link);
	f->output_destroy.notify = handle_output_destroy;
	wl_list_insert(&m->sc->frames, &f->link);
	wl_resource_set_implementation(resource, &frame_impl, f, frame_resource_destroy);
	(void)overlay_cursor;            /* the cursor is always in (see the top) */

	struct wlr_output *output = wlr_output_from_resource(output_resource);
	f->format = output && output->enabled ? frame_format(m->sc, output) : 0;
	if (!f->format) {
		frame_fail(f, "the output cannot be captured");
		return;
	}
	f->output = output;
	wl_signal_add(&output->events.destroy, &f->output_destroy);
	struct wlr_box full = { 0, 0, output->width, output->height };
	struct wlr_box want = full;
	if (region)
		region_to_buffer(output, region, &want);
	if (!wlr_box_intersection(&f->box, &full, &want)) {
		frame_fail(f, "the region is outside the output");
		return;
	}
	f->stride = (uint32_t)f->box.width * 4;
	zwlr_screencopy_frame_v1_send_buffer(resource, shm_format(f->format),
		(uint32_t)f->box.width, (uint32_t)f->box.height, f->stride);
	if (wl_resource_get_version(resource) >= ZWLR_SCREENCOPY_FRAME_V1_BUFFER_DONE_SINCE_VERSION)
		zwlr_screencopy_frame_v1_send_buffer_done(resource);
}

static void handle_capture_output(struct wl_client *client, struct wl_resource *resource,
		uint32_t id, int32_t overlay_cursor, struct wl_resource *output)
{
	capture_region(client, resource, id, overlay_cursor, output, NULL);
}

static void handle_capture_output_region(struct wl_client *client,
		struct wl_resource *resource, uint32_t id, int32_t overlay_cursor,
		struct wl_resource *output, int32_t x, int32_t y, int32_t width, int32_t height)
{
	struct wlr_box region = { x, y, width, height };
	capture_region(client, resource, id, overlay_cursor, output, &region);
}

static const struct zwlr_screencopy_manager_v1_interface manager_impl = {
	.capture_output = handle_capture_output,
	.capture_output_region = handle_capture_output_region,
	.destroy = handle_destroy,
};

static void manager_resource_destroy(struct wl_resource *resource)
{
	manager_unref(wl_resource_get_user_data(resource));
}

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wbc_screencopy *sc = data;
	struct sc_manager *m = calloc(1, sizeof(*m));
	struct wl_resource *resource = m ? wl_resource_create(client,
		&zwlr_screencopy_manager_v1_interface, (int)version, id) : NULL;
	if (!resource) {
		free(m);
		wl_client_post_no_memory(client);
		return;
	}
	*m = (struct sc_manager){ .refs = 1, .sc = sc };
	wl_resource_set_implementation(resource, &manager_impl, m, manager_resource_destroy);
}

int wbc_screencopy_init(struct wbc_server *s)
{
	struct wbc_screencopy *sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -1;
	sc->server = s;
	wl_list_init(&sc->frames);
	sc->global = wl_global_create(s->display, &zwlr_screencopy_manager_v1_interface,
		MANAGER_VERSION, sc, bind_manager);
	if (!sc->global) {
		free(sc);
		return -1;
	}
	s->screencopy = sc;
	wbc_log(WLR_DEBUG, "screencopy: zwlr_screencopy_manager_v1 version %d served",
		MANAGER_VERSION);
	return 0;
}

void wbc_screencopy_finish(struct wbc_server *s)
{
	struct wbc_screencopy *sc = s->screencopy;
	if (!sc)
		return;
	/* Clients are gone (wl_display_destroy_clients), and with them every frame. */
	if (!s->failed)                  /* errors are one line: no counters after them */
		fprintf(stderr, "wbc: screencopy copied=%" PRIu64 " failed=%" PRIu64
			" waited_for_damage=%" PRIu64 "\n", sc->copied, sc->failed, sc->waited);
	wl_global_destroy(sc->global);
	free(sc);
	s->screencopy = NULL;
}
