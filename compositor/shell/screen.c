/* Outputs on the compositor side: mode choice, layout, scene output, frame scheduling
 * (render only on a frame event with damage: no commits at all when idle), capture. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <drm_fourcc.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/box.h>
#include "adapter/adapter.h"
#include "capture/capture.h"
#include "util/log.h"
#include "capture/recording.h"
#include "layer.h"
#include "output-config.h"
#include "renderer.h"
#include "server.h"
#include "touch.h"
#include "view.h"

/* One per wlr_output; owned by server->screens, freed when the output is destroyed. */
struct wbc_screen {
	struct wbc_server *server;
	struct wlr_output *output;       /* borrowed */
	struct wlr_scene_output *scene_output; /* owned by the scene (made by the layout);
	                                          NULL while out of the layout (unused) */
	struct wbc_capture *capture;     /* owned */
	struct wl_listener frame, destroy;
	struct wl_listener precommit;    /* GLES2 only (else its link is empty) */
	struct wl_list link;
	bool session_off;                /* turned off because the session went away */
	bool unused;                     /* --outputs last: off and out of the layout, as
	                                    another output came later */
};

static void screen_free(struct wbc_screen *sc)
{
	wl_list_remove(&sc->frame.link);
	wl_list_remove(&sc->destroy.link);
	wl_list_remove(&sc->precommit.link);
	wl_list_remove(&sc->link);
	wbc_capture_destroy(sc->capture);
	free(sc);
}

static void handle_frame(struct wl_listener *listener, void *data)
{
	struct wbc_screen *sc = wl_container_of(listener, sc, frame);
	struct wlr_scene_output *so = sc->scene_output;
	if (!so)
		return;
	/* wlr_scene_output_commit renders only with damage, but its direct scan-out path
	 * commits unconditionally: check first so that an idle screen commits nothing. */
	if (sc->output->needs_frame || pixman_region32_not_empty(&so->damage->current))
		wlr_scene_output_commit(so);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(so, &now);
}

/* A buffer is about to go to the display: let the GPU finish drawing it first
 * (wbc_renderer_finish_rendering says why). */
static void handle_precommit(struct wl_listener *listener, void *data)
{
	struct wbc_screen *sc = wl_container_of(listener, sc, precommit);
	if (sc->output->pending.committed & WLR_OUTPUT_STATE_BUFFER)
		wbc_renderer_finish_rendering(sc->server->renderer);
}

static void place(struct wbc_server *s, struct wbc_screen *sc);

/* --outputs last: the one connected last of those left is lit again (gone: the name of
 * the output that went). */
static void use_latest(struct wbc_server *s, const char *gone)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link)
		if (!sc->unused)
			return;                  /* one is lit */
	wl_list_for_each_reverse(sc, &s->screens, link) {
		if (!wbc_screen_set_power(s, sc->output, true))
			continue;
		sc->unused = false;
		place(s, sc);
		wbc_notice("%s: lit again (--outputs last: %s went)", sc->output->name, gone);
		return;
	}
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_screen *sc = wl_container_of(listener, sc, destroy);
	struct wbc_server *s = sc->server;
	char gone[64];
	snprintf(gone, sizeof(gone), "%s", sc->output->name);
	screen_free(sc);
	if (s->opts->outputs == WBC_OUTPUTS_LAST && s->running && !s->finishing)
		use_latest(s, gone);
	wbc_touch_remap(s);          /* off the output before it is freed */
	if (!s->finishing)
		wbc_view_fit_all(s); /* the area APP spans may have shrunk */
	wbc_output_config_update(s);
}

void wbc_screen_describe_modes(struct wlr_output *output, char *buf, size_t len)
{
	size_t used = 0;
	struct wlr_output_mode *m;
	buf[0] = '\0';
	int shown = 0;
	wl_list_for_each(m, &output->modes, link) {
		if (used >= len || shown == 8)
			break;
		int n = snprintf(buf + used, len - used, "%s%dx%d@%.2f", shown ? " " : "",
			m->width, m->height, m->refresh / 1000.0);
		used += n > 0 ? (size_t)n : 0;
		shown++;
	}
	if (shown == 8 && used < len)
		snprintf(buf + used, len - used, " ...");
}

struct wbc_recording_params wbc_screen_record_params(const struct wbc_options *o)
{
	return (struct wbc_recording_params){ .target = o->record, .codec = o->codec,
		.container = o->container, .codec_opts = o->codec_opts,
		.n_codec_opts = o->n_codec_opts, .container_opts = o->container_opts,
		.n_container_opts = o->n_container_opts, .fps = o->fps,
		.frame_checksums = o->frame_checksums };
}

/* --record: output is recorded from its first frame; a recording paused because this
 * output went away goes on. */
static int start_recording(struct wbc_server *s, struct wlr_output *output,
		struct wbc_capture *capture)
{
	const struct wbc_options *o = s->opts;
	if (s->recording)
		wbc_recording_resume(s, output, capture);
	if (!o->record || s->recording)
		return 0;
	struct wbc_recording_params p = wbc_screen_record_params(o);
	char err[16384];                 /* an unknown codec's message lists every encoder */
	if (wbc_recording_start(s, output, capture, &p, err, sizeof(err)) == 0)
		return 0;
	wbc_log(WLR_ERROR, "%s", err);
	return -1;
}

static struct wlr_output_mode *find_mode(struct wbc_server *s, struct wlr_output *output);
static void say_output(struct wlr_output *output, const char *what);

static struct wlr_output_mode *pick_mode(struct wbc_server *s, struct wlr_output *output)
{
	const struct wbc_options *o = s->opts;
	if (!o->has_mode)
		return wlr_output_preferred_mode(output);
	struct wlr_output_mode *m = find_mode(s, output);
	if (m || !s->running)
		return m;
	/* Plugged in while running (another monitor, maybe): better its own mode than none. */
	char have[256];
	wbc_screen_describe_modes(output, have, sizeof(have));
	wbc_notice("%s has no mode %dx%d%s (it has: %s): using its preferred mode", output->name,
		o->mode_width, o->mode_height, o->mode_refresh_mhz ? " at that refresh" : "", have);
	return wlr_output_preferred_mode(output);
}

static struct wlr_output_mode *find_mode(struct wbc_server *s, struct wlr_output *output)
{
	const struct wbc_options *o = s->opts;
	struct wlr_output_mode *m, *best = NULL;
	wl_list_for_each(m, &output->modes, link) {
		if (m->width != o->mode_width || m->height != o->mode_height)
			continue;
		if (o->mode_refresh_mhz) {
			if (abs(m->refresh - o->mode_refresh_mhz) < 500)
				return m;
		} else if (!best || m->preferred || m->refresh > best->refresh) {
			best = m;
		}
	}
	return best;
}

/* wlroots 0.15's scene works out which outputs a surface is on (its enter events and the
 * primary output that its frame callbacks follow) only when a node or a scene output moves.
 * An output plugged back in at the place of the one that went moves nothing, so the
 * surfaces would stay on no output and never get a frame callback again: move the whole
 * tree away and back to make the scene look again. */
static void rescan_surface_outputs(struct wbc_server *s)
{
	wlr_scene_node_set_position(&s->scene->node, 1, 0);
	wlr_scene_node_set_position(&s->scene->node, 0, 0);
}

/* Into the layout as --outputs says: extend left to right, mirror all at the origin
 * (each shows APP at its top left), last alone. */
static void place(struct wbc_server *s, struct wbc_screen *sc)
{
	if (s->opts->outputs == WBC_OUTPUTS_MIRROR)
		wlr_output_layout_add(s->layout, sc->output, 0, 0);
	else
		wlr_output_layout_add_auto(s->layout, sc->output);
	sc->scene_output = wlr_scene_get_scene_output(s->scene, sc->output);
	if (!sc->scene_output)
		sc->scene_output = wlr_scene_output_create(s->scene, sc->output);
}

/* --outputs last: every other output off and out of the layout (its scene output goes
 * with it); a recording of one pauses, as when it is turned off. */
static void retire_others(struct wbc_server *s, struct wbc_screen *latest)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link) {
		if (sc == latest || sc->unused)
			continue;
		wlr_output_layout_remove(s->layout, sc->output);
		sc->scene_output = NULL;
		wbc_screen_set_power(s, sc->output, false);
		sc->unused = true;
		wbc_notice("%s: unused (--outputs last: %s came later)", sc->output->name,
			latest->output->name);
	}
}

/* Whether this output is the one recorded and screenshot: --record-output's, or any
 * (the first to come is taken). */
static bool recorded(struct wbc_server *s, struct wlr_output *output)
{
	return !s->opts->record_output || strcmp(s->opts->record_output, output->name) == 0;
}

void wbc_screen_new_output(struct wbc_server *s, struct wlr_output *output)
{
	if (!wlr_output_init_render(output, s->allocator, s->renderer)) {
		wbc_log(WLR_ERROR, "%s: cannot set up rendering (allocator/renderer mismatch)",
			output->name);
		wbc_server_stop(s, 1);
		return;
	}
	if (!wl_list_empty(&output->modes)) {
		struct wlr_output_mode *mode = pick_mode(s, output);
		if (!mode) {
			char have[256];
			wbc_screen_describe_modes(output, have, sizeof(have));
			wbc_log(WLR_ERROR, "no mode %dx%d%s on %s (it has: %s)", s->opts->mode_width,
				s->opts->mode_height, s->opts->mode_refresh_mhz ? " at that refresh" : "",
				output->name, have);
			wbc_server_stop(s, 1);
			return;
		}
		wlr_output_set_mode(output, mode);
	}
	/* Backend-optional state for the adapter: wlr_scene draws turned and scaled into
	 * a buffer of the mode's size, so the CRTC shows (and writeback takes) the panel's
	 * picture. */
	wlr_output_set_transform(output, wbc_transform_of(s->opts->rotate));
	wlr_output_set_scale(output, s->opts->scale > 0 ? (float)s->opts->scale : 1.0f);
	wlr_output_enable(output, true);
	if (!wlr_output_commit(output)) {
		wbc_log(WLR_ERROR, "%s: cannot light up the display (run with -v for details)",
			output->name);
		wbc_server_stop(s, 1);
		return;
	}
	struct wbc_screen *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		wbc_server_stop(s, 1);
		return;
	}
	sc->server = s;
	sc->output = output;
	sc->frame.notify = handle_frame;
	wl_signal_add(&output->events.frame, &sc->frame);
	sc->destroy.notify = handle_destroy;
	wl_signal_add(&output->events.destroy, &sc->destroy);
	sc->precommit.notify = handle_precommit;
	if (wbc_renderer_is_gles2(s->renderer))
		wl_signal_add(&output->events.precommit, &sc->precommit);
	else
		wl_list_init(&sc->precommit.link);
	wl_list_insert(s->screens.prev, &sc->link);
	if (s->opts->outputs == WBC_OUTPUTS_LAST)
		retire_others(s, sc);
	place(s, sc);
	if (wbc_output_is_adapter(output)) {
		sc->capture = wbc_capture_create(output);
		if (sc->capture && s->opts->capture == WBC_CAPTURE_FORCE_READBACK)
			wbc_capture_set_method(sc->capture, WBC_CAPTURE_READBACK);
		/* Plugged in while running: what is recorded may be this one (at start:
		 * wbc_screen_start_capture, once every output is there). */
		bool rec = sc->capture && s->running && recorded(s, output);
		if (rec)
			wbc_screenshots_attach(s, sc->capture);
		if (rec && start_recording(s, output, sc->capture) < 0) {
			wbc_server_stop(s, 1);
			return;
		}
	}
	say_output(output, "");
	if (s->running)
		rescan_surface_outputs(s);
	wbc_touch_remap(s);
	wbc_view_fit_all(s);
	wbc_output_config_update(s);
}

enum wl_output_transform wbc_transform_of(int degrees)
{
	switch (degrees) {
	case 90: return WL_OUTPUT_TRANSFORM_90;
	case 180: return WL_OUTPUT_TRANSFORM_180;
	case 270: return WL_OUTPUT_TRANSFORM_270;
	default: return WL_OUTPUT_TRANSFORM_NORMAL;
	}
}

/* "NAME: WxH@Hz" (a -v line), with the transform, scale and logical size where they are
 * not the identity, or when they changed (then shown without -v: what the user or a
 * client asked for). */
static void say_output(struct wlr_output *output, const char *what)
{
	static const char *const names[] = { "normal", "90", "180", "270", "flipped",
		"flipped-90", "flipped-180", "flipped-270" };
	int w, h;
	wlr_output_effective_resolution(output, &w, &h);
	if (output->transform == WL_OUTPUT_TRANSFORM_NORMAL && output->scale == 1.0f &&
			!what[0]) {
		wbc_log(WLR_INFO, "%s: %dx%d@%.3f Hz", output->name, output->width,
			output->height, output->refresh / 1000.0);
		return;
	}
	wbc_notice("%s: %s%dx%d@%.3f Hz, transform %s, scale %g: %dx%d logical", output->name,
		what, output->width, output->height, output->refresh / 1000.0,
		names[output->transform & 7], (double)output->scale, w, h);
}

void wbc_screen_changed(struct wbc_server *s, struct wlr_output *output)
{
	say_output(output, "now ");
	wbc_recording_output_changed(s, output);
	wbc_touch_remap(s);
	wbc_view_fit_all(s);
	wlr_output_schedule_frame(output);
	wbc_output_config_update(s);
}

bool wbc_screen_set_power(struct wbc_server *s, struct wlr_output *output, bool on)
{
	if (output->enabled == on)
		return true;
	wlr_output_enable(output, on);
	if (!wlr_output_commit(output)) {
		wlr_output_rollback(output);
		wbc_log(WLR_ERROR, "%s: cannot turn the display %s (run with -v for details)",
			output->name, on ? "on" : "off");
		return false;
	}
	wbc_notice("%s: display %s", output->name, on ? "on" : "off");
	struct wbc_capture *cap = on ? wbc_screen_capture_of(s, output) : NULL;
	if (cap)
		wbc_recording_resume(s, output, cap);
	if (on)
		wlr_output_schedule_frame(output);
	return true;
}

void wbc_screen_set_power_all(struct wbc_server *s, bool on)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link)
		if (!sc->unused)
			wbc_screen_set_power(s, sc->output, on);
}

void wbc_screen_session_active(struct wbc_server *s, bool active)
{
	wbc_notice("session %s", active ? "back: displays on again" :
		"gone (VT switch?): displays off until it comes back");
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link) {
		if (!active && sc->output->enabled)
			sc->session_off = wbc_screen_set_power(s, sc->output, false);
		else if (active && sc->session_off)
			sc->session_off = !wbc_screen_set_power(s, sc->output, true);
	}
	/* Displays may have come or gone while another session had the device, and no
	 * uevent then could be acted on (hotplug.c). After the outputs are back, so that
	 * one still connected keeps its CRTC lit; one gone is removed and turned off. */
	if (active)
		wbc_adapter_reprobe(s->adapter);
}

int wbc_screen_start_capture(struct wbc_server *s)
{
	const char *name = s->opts->record_output;
	struct wbc_screen *sc;
	bool found = !name;
	wl_list_for_each(sc, &s->screens, link)
		found = found || strcmp(sc->output->name, name) == 0;
	if (!found) {
		char have[256] = "";
		wl_list_for_each(sc, &s->screens, link) {
			size_t used = strlen(have);
			snprintf(have + used, sizeof(have) - used, "%s%s", used ? " " : "",
				sc->output->name);
		}
		wbc_log(WLR_ERROR, "--record-output %s: no such output (wbc drives: %s)", name,
			have);
		return -1;
	}
	struct wlr_output *output;
	struct wbc_capture *capture = wbc_screen_capture(s, NULL, &output);
	if (!capture)
		return 0;
	wbc_screenshots_attach(s, capture);
	return start_recording(s, output, capture);
}

struct wbc_capture *wbc_screen_capture(struct wbc_server *s, const char *name,
		struct wlr_output **output)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link) {
		bool wanted = name ? strcmp(name, sc->output->name) == 0 : recorded(s, sc->output);
		if (sc->capture && !sc->unused && wanted) {
			*output = sc->output;
			return sc->capture;
		}
	}
	return NULL;
}

/* What the capture line adds about --writeback-pacing. */
static const char *pacing_note(enum wbc_pacing_choice pacing)
{
	switch (pacing) {
	case WBC_PACING_SKIP:
		return "; the display never waits for it";
	case WBC_PACING_DEADLINE:
		return "; the display waits for it until shortly before the next vblank";
	case WBC_PACING_WAIT:
		break;
	}
	return "";
}

int wbc_screen_choose_capture(struct wbc_server *s, struct wlr_output *output,
		struct wbc_capture *cap, unsigned pool, uint32_t *format, char *line, size_t len)
{
	char how[800] = "";
	/* Readback, once chosen (or fallen back to after writeback stalled), stays. */
	bool readback = wbc_capture_get_method(cap) == WBC_CAPTURE_READBACK;
	if (readback && s->opts->capture != WBC_CAPTURE_FORCE_READBACK)
		snprintf(how, sizeof(how), "readback chosen earlier");
	if (!readback && s->opts->capture != WBC_CAPTURE_FORCE_READBACK) {
		if (wbc_output_prepare_writeback(output, pool, format, how, sizeof(how)) == 0) {
			wbc_capture_set_method(cap, WBC_CAPTURE_WRITEBACK);
			snprintf(line, len, "capture: writeback (%s; %u buffers%s)", how, pool,
				pacing_note(s->opts->pacing));
			return 0;
		}
		if (s->opts->capture == WBC_CAPTURE_FORCE_WRITEBACK) {
			snprintf(line, len, "--capture writeback: %s cannot be captured: %s",
				output->name, how);
			return -1;
		}
	}
	wbc_capture_set_method(cap, WBC_CAPTURE_READBACK);
	/* The renderer draws into the output's swapchain in its render format; readback
	 * copies XRGB/ARGB as XRGB (alpha unused) and XBGR/ABGR as XBGR. */
	uint32_t rf = output->render_format ? output->render_format : DRM_FORMAT_XRGB8888;
	*format = (rf == DRM_FORMAT_XBGR8888 || rf == DRM_FORMAT_ABGR8888) ?
		DRM_FORMAT_XBGR8888 : DRM_FORMAT_XRGB8888;
	bool forced = s->opts->capture == WBC_CAPTURE_FORCE_READBACK;
	snprintf(line, len, "capture: readback (%s%s%s%.800s; copying each displayed buffer "
		"through %s, after render)",
		forced ? "--capture readback" : "no writeback for ", forced ? "" : output->name,
		forced ? "" : ": ", forced ? "" : how, wbc_renderer_is_gles2(s->renderer) ?
		"wlr_renderer_read_pixels" : "wlr_buffer data-pointer access");
	return 0;
}

struct wbc_capture *wbc_screen_capture_of(struct wbc_server *s, struct wlr_output *output)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link)
		if (sc->output == output)
			return sc->capture;
	return NULL;
}

/* The first output lit (--outputs last: the only one), NULL while there is none. */
static struct wbc_screen *first_lit(struct wbc_server *s)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link)
		if (!sc->unused)
			return sc;
	return NULL;
}

struct wlr_output *wbc_screen_output_for(struct wbc_server *s, const char *name)
{
	struct wbc_screen *sc;
	wl_list_for_each(sc, &s->screens, link)
		if (name && !sc->unused && strcmp(sc->output->name, name) == 0)
			return sc->output;
	sc = first_lit(s);
	return sc ? sc->output : NULL;
}

bool wbc_screen_box(struct wbc_server *s, struct wlr_box *box)
{
	struct wbc_screen *sc = first_lit(s);
	if (!sc)
		return false;
	/* extend: the whole layout (wlroots 0.15: a NULL reference gives its extents). */
	const struct wlr_box *b = wlr_output_layout_get_box(s->layout,
		s->opts->outputs == WBC_OUTPUTS_EXTEND ? NULL : sc->output);
	if (!b || wlr_box_empty(b))
		return false;
	*box = *b;
	wbc_layer_usable_box(s, sc->output, box);
	return true;
}

void wbc_screen_finish_all(struct wbc_server *s)
{
	struct wbc_screen *sc, *tmp;
	wl_list_for_each_safe(sc, tmp, &s->screens, link)
		screen_free(sc);
}
