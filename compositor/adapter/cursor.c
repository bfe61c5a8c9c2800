/*
 * The adapter's hardware cursor: wlroots renders the cursor image into a buffer from the
 * output's cursor swapchain (get_cursor_formats/size say what the plane takes) and hands
 * it to set_cursor; the next commit shows it on the pipe's cursor plane at the position
 * move_cursor gave. Any change asks wlroots for a frame (wlr_output_update_needs_frame),
 * so cursor changes ride on ordinary commits, at most one per vblank.
 *
 * Software fallback: an output whose CRTC has no cursor plane locks software cursors on
 * (wlroots then draws the cursor into the primary buffer); an image the plane cannot show
 * (format, size, refused by TEST_ONLY) makes set_cursor fail, and wlroots draws that one
 * in software; a commit that goes through only without the cursor plane locks software
 * cursors on for good.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <wlr/types/wlr_buffer.h>
#include "adapter-private.h"
#include "util/log.h"

/* The image size asked of wlroots: what cursor images need (xcursor themes at 24-48 px),
 * 64x64 being the size every cursor plane takes, and below DRM_CAP_CURSOR_WIDTH/HEIGHT,
 * which is a maximum on atomic drivers (VKMS says 512: compositing a 512x512 plane every
 * frame would cost VKMS more than the primary plane at 640x480). */
#define CURSOR_SIZE 64

static const struct wbc_kms_plane *cursor_plane(const struct wbc_output *out)
{
	return out->pipe ? wbc_kms_pipe_plane(out->pipe, WBC_KMS_PLANE_CURSOR) : NULL;
}

static void lock_software(struct wbc_output *out, const char *why)
{
	if (out->cursor.software)
		return;
	out->cursor.software = true;
	wbc_log(WLR_INFO, "%s: cursor: software (%s)", out->base.name, why);
	wlr_output_lock_software_cursors(&out->base, true);
}

void wbc_cursor_init(struct wbc_output *out)
{
	const struct wbc_kms_plane *p = cursor_plane(out);
	if (!p) {
		char why[64];
		snprintf(why, sizeof(why), "CRTC %u has no cursor plane",
			wbc_kms_pipe_crtc(out->pipe)->id);
		lock_software(out, why);
		return;
	}
	wbc_plane_format_set(p, &out->cursor.formats);
	wbc_log(WLR_INFO, "%s: cursor: cursor plane %u available (%dx%d images)",
		out->base.name, p->id, CURSOR_SIZE, CURSOR_SIZE);
}

void wbc_cursor_finish(struct wbc_output *out)
{
	struct wbc_cursor *cur = &out->cursor;
	if (cur->fallback_idle)
		wl_event_source_remove(cur->fallback_idle);
	wlr_buffer_unlock(cur->buffer);
	wlr_drm_format_set_finish(&cur->formats);
	*cur = (struct wbc_cursor){ 0 };
}

/* Whether the cursor plane can show this image at the current position (TEST_ONLY with
 * what is on screen, when something is). */
static bool fits(struct wbc_output *out, struct wlr_buffer *buffer, int hotspot_x,
		int hotspot_y)
{
	const struct wbc_kms_plane *p = cursor_plane(out);
	struct wbc_fb *fb = wbc_fb_get(out->backend, buffer);
	if (!p || !fb)
		return false;
	const struct wbc_kms_caps *caps = &out->backend->dev->caps;
	if (!wbc_kms_plane_supports(p, fb->fb.format, fb->fb.modifier) ||
			fb->fb.width > caps->cursor_width || fb->fb.height > caps->cursor_height) {
		wbc_log(WLR_DEBUG, "%s: cursor: a %ux%u image does not fit cursor plane %u",
			out->base.name, fb->fb.width, fb->fb.height, p->id);
		return false;
	}
	struct wbc_fb *front = out->front ? wbc_fb_get(out->backend, out->front) : NULL;
	if (!front)
		return true;             /* the first commit tests it (and falls back) */
	struct wbc_kms_pipe_state test = { .primary.fb = &front->fb, .cursor = { .fb = &fb->fb,
		.crtc_x = out->cursor.x - hotspot_x, .crtc_y = out->cursor.y - hotspot_y } };
	if (wbc_kms_pipe_test(out->pipe, &test) < 0) {
		wbc_log(WLR_DEBUG, "%s: cursor: %s", out->base.name,
			wbc_kms_device_error(out->backend->dev));
		return false;
	}
	return true;
}

bool wbc_cursor_set(struct wlr_output *wo, struct wlr_buffer *buffer, int hotspot_x,
		int hotspot_y)
{
	struct wbc_output *out = wbc_output_from(wo);
	struct wbc_cursor *cur = &out->cursor;
	if (buffer && (cur->software || !fits(out, buffer, hotspot_x, hotspot_y))) {
		if (cur->hardware_said)
			wbc_log(WLR_INFO, "%s: cursor: software for a %dx%d image the cursor plane "
				"cannot show", wo->name, buffer->width, buffer->height);
		cur->hardware_said = false;
		return false;
	}
	wlr_buffer_unlock(cur->buffer);
	cur->buffer = buffer ? wlr_buffer_lock(buffer) : NULL;
	cur->hotspot_x = hotspot_x;
	cur->hotspot_y = hotspot_y;
	if (buffer && !cur->hardware_said)
		wbc_log(WLR_INFO, "%s: cursor: hardware, on cursor plane %u", wo->name,
			cursor_plane(out)->id);
	cur->hardware_said = cur->hardware_said || buffer;
	wlr_output_update_needs_frame(wo);
	return true;
}

bool wbc_cursor_move(struct wlr_output *wo, int x, int y)
{
	struct wbc_cursor *cur = &wbc_output_from(wo)->cursor;
	if (cur->x == x && cur->y == y)
		return true;
	cur->x = x;
	cur->y = y;
	if (cur->buffer)
		wlr_output_update_needs_frame(wo);
	return true;
}

const struct wlr_drm_format_set *wbc_cursor_formats(struct wlr_output *wo, uint32_t buffer_caps)
{
	struct wbc_output *out = wbc_output_from(wo);
	if (!(buffer_caps & WLR_BUFFER_CAP_DMABUF) || out->cursor.formats.len == 0)
		return NULL;
	return &out->cursor.formats;
}

void wbc_cursor_size(struct wlr_output *wo, int *width, int *height)
{
	const struct wbc_kms_caps *caps = &wbc_output_from(wo)->backend->dev->caps;
	*width = caps->cursor_width < CURSOR_SIZE ? (int)caps->cursor_width : CURSOR_SIZE;
	*height = caps->cursor_height < CURSOR_SIZE ? (int)caps->cursor_height : CURSOR_SIZE;
}

struct wlr_buffer *wbc_cursor_plane_state(struct wbc_output *out, struct wbc_kms_plane_state *ps)
{
	struct wbc_cursor *cur = &out->cursor;
	*ps = (struct wbc_kms_plane_state){ 0 };
	struct wbc_fb *fb = cur->buffer && !cur->software && cursor_plane(out) ?
		wbc_fb_get(out->backend, cur->buffer) : NULL;
	if (!fb)
		return NULL;
	*ps = (struct wbc_kms_plane_state){ .fb = &fb->fb, .crtc_x = cur->x - cur->hotspot_x,
		.crtc_y = cur->y - cur->hotspot_y };
	return wlr_buffer_lock(cur->buffer);
}

/* Not from inside the commit: wlroots damages the cursor's area for the software path,
 * and a commit in progress would clear that damage when it completes. */
static void fall_back(void *data)
{
	struct wbc_output *out = data;
	out->cursor.fallback_idle = NULL;
	lock_software(out, out->cursor.fallback_why);
}

void wbc_cursor_refused(struct wbc_output *out, const char *why)
{
	struct wbc_cursor *cur = &out->cursor;
	if (cur->software || cur->fallback_idle)
		return;
	snprintf(cur->fallback_why, sizeof(cur->fallback_why), "the kernel refused the "
		"cursor plane: %s", why);
	wlr_buffer_unlock(cur->buffer);
	cur->buffer = NULL;
	cur->fallback_idle = wl_event_loop_add_idle(wl_display_get_event_loop(out->base.display),
		fall_back, out);
}
