/* Setting the compositor up and tearing it down: session, DRM device, backends,
 * renderer and allocator, protocols, signals, the APP. An embedded core (opts->embedded,
 * tests/wlcs) runs on wlroots' headless backend instead, with nothing process-wide: no
 * session, socket, signal handler, environment variable or APP. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/libinput.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/session.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include "adapter/adapter.h"
#include "control/control.h"
#include "decoration.h"
#include "layer.h"
#include "output-config.h"
#include "util/leak-check.h"
#include "util/log.h"
#include "capture/recording.h"
#include "renderer.h"
#include "server.h"
#include "shm-check.h"

void wbc_server_stop(struct wbc_server *s, int status)
{
	if (!s->failed && s->exit_status == -1)
		s->exit_status = status;
	if (!s->stop_ns) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		s->stop_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	}
	wl_display_terminate(s->display);
}

static void handle_new_output(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, new_output);
	wbc_screen_new_output(s, data);
}

static void handle_new_input(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, new_input);
	wbc_input_new_device(s, data);
}

/* libseat calls this while wbc still holds DRM master (it is taken when the handler
 * returns), so the displays can be turned off cleanly. */
static void handle_session_active(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, session_active);
	wbc_screen_session_active(s, s->session->active);
}

static int handle_signal(int signo, void *data)
{
	struct wbc_server *s = data;
	if (signo == SIGCHLD) {
		wbc_launch_reap(s);
		return 0;
	}
	wbc_log(WLR_INFO, "signal %d: stopping", signo);
	wbc_server_stop(s, 0);
	return 0;
}

static int handle_duration(void *data)
{
	struct wbc_server *s = data;
	wbc_log(WLR_INFO, "--duration reached: stopping");
	wbc_server_stop(s, 0);
	return 0;
}

static int fail(struct wbc_server *s, const char *what)
{
	if (what)
		wbc_log(WLR_ERROR, "%s (run with -v for details)", what);
	s->failed = true;
	return -1;
}

/* What the allocator makes, named by its buffers' caps (wlroots 0.15 does not say which
 * one wlr_allocator_autocreate chose): GBM's are dma-bufs only, dumb buffers are also
 * CPU-mappable, shm's are memory. */
static const char *allocator_name(const struct wlr_allocator *a)
{
	if (a->buffer_caps & WLR_BUFFER_CAP_SHM)
		return "shared memory";
	if (a->buffer_caps & WLR_BUFFER_CAP_DATA_PTR)
		return "DRM dumb buffers";
	return "GBM";
}

/* drm_fd: the KMS device's (borrowed), or -1 without one. */
static int setup_rendering(struct wbc_server *s, struct wlr_backend *target, int drm_fd)
{
	char desc[256];
	s->renderer = wbc_renderer_create(drm_fd, s->opts->renderer, desc, sizeof(desc));
	if (!s->renderer)
		return fail(s, NULL);
	if (wbc_renderer_init_wl_display(s->renderer, s->display) < 0)
		return fail(s, "cannot create wl_shm and zwp_linux_dmabuf_v1");
	s->shm_check = wbc_shm_check_create(s->display);
	if (!s->shm_check)
		return fail(s, "cannot watch wl_shm requests");
	/* With GLES2 (dma-buf render targets) and the adapter (dma-buf scan-out) this is
	 * wlroots' GBM allocator on the device; with pixman, DRM dumb buffers. */
	/* Mesa's GBM device loads its driver again: see renderer.c's gles2_create. */
	int saved = wbc_log_hold_stderr();
	wbc_leak_check_pause();
	s->allocator = wlr_allocator_autocreate(target, s->renderer);
	wbc_leak_check_resume();
	wbc_log_release_stderr(saved);
	if (!s->allocator)
		return fail(s, wbc_renderer_is_gles2(s->renderer) ?
			"cannot create a GBM buffer allocator on the DRM device" :
			"cannot create a buffer allocator (the DRM dumb-buffer allocator "
			"needs DRM master)");
	/* Said without -v for GLES2 only: pixman is what wbc has always used, and its
	 * fallback line (renderer.c) is the one line the user gets about it. */
	if (drm_fd >= 0 && wbc_renderer_is_gles2(s->renderer))
		wbc_notice("renderer: %s; output buffers: %s", desc,
			allocator_name(s->allocator));
	else if (drm_fd >= 0)
		wbc_log(WLR_INFO, "renderer: %s; output buffers: %s", desc,
			allocator_name(s->allocator));
	return 0;
}

static int setup_backends(struct wbc_server *s)
{
	s->session = wlr_session_create(s->display);
	if (!s->session)
		return fail(s, "cannot start a session through libseat (no seatd or logind? "
			"as root without either, set LIBSEAT_BACKEND=noop)");
	s->session_active.notify = handle_session_active;
	wl_signal_add(&s->session->events.active, &s->session_active);
	if (wbc_device_open(s) < 0)
		return fail(s, NULL);
	s->backend = wlr_multi_backend_create(s->display);
	/* Screenshots and recordings want writeback unless told to read the buffers back;
	 * with --allow-control or --allow-capture a recording or a client's capture may
	 * start later, but where capture needs another connector (VKMS: Writeback-1
	 * headless) that is decided now. */
	bool capture = s->opts->n_screenshots > 0 || s->opts->record || s->opts->allow_control ||
		s->opts->allow_capture;
	struct wbc_adapter_options aopts = { .output_name = s->opts->output,
		.headless = s->opts->headless,
		.need_writeback = capture && s->opts->capture != WBC_CAPTURE_FORCE_READBACK,
		.writeback_pacing = s->opts->pacing == WBC_PACING_SKIP ? WBC_KMS_WB_SKIP :
			s->opts->pacing == WBC_PACING_DEADLINE ? WBC_KMS_WB_DEADLINE : WBC_KMS_WB_WAIT };
	s->adapter = wbc_adapter_create(s->display, s->kms, &aopts);
	if (!s->backend || !s->adapter || !wlr_multi_backend_add(s->backend, s->adapter))
		return fail(s, "cannot create the KMS backend");
	return setup_rendering(s, s->adapter, s->kms->fd);
}

/* The embedded core: wlroots' headless backend, one output, the embedder's input. */
static int setup_headless(struct wbc_server *s)
{
	s->backend = wlr_headless_backend_create(s->display);
	if (!s->backend)
		return fail(s, "cannot create the headless backend");
	if (!wlr_headless_add_output(s->backend, (unsigned)s->opts->embedded_width,
			(unsigned)s->opts->embedded_height))
		return fail(s, "cannot add the headless output");
	/* No DRM device: the renderer is pixman's (whatever --renderer says: the embedded
	 * core has no command line), the allocator wlroots' shm one. */
	return setup_rendering(s, s->backend, -1);
}

static int setup_protocols(struct wbc_server *s)
{
	s->compositor = wlr_compositor_create(s->display, s->renderer);
	s->layout = wlr_output_layout_create();
	s->scene = wlr_scene_create();
	if (!s->compositor || !s->layout || !s->scene ||
			!wlr_scene_attach_output_layout(s->scene, s->layout))
		return fail(s, "cannot create the scene");
	/* Toplevels in a tree of their own, so that what xwayland.c puts above them
	 * (override-redirect windows) stays above whichever is raised. */
	struct wlr_scene_tree *views = wlr_scene_tree_create(&s->scene->node);
	if (!views)
		return fail(s, "cannot create the scene");
	s->view_tree = &views->node;
	if (wbc_layer_init(s) < 0)
		return fail(s, "cannot create the layer shell");
	s->presentation = wlr_presentation_create(s->display, s->backend);
	if (!s->presentation)
		return fail(s, "cannot create wp_presentation");
	wlr_scene_set_presentation(s->scene, s->presentation);
	if (!wlr_data_device_manager_create(s->display) ||
			!wlr_xdg_output_manager_v1_create(s->display, s->layout) ||
			!wlr_viewporter_create(s->display) ||
			wbc_decoration_init(s) < 0 || wbc_xdg_init(s) < 0)
		return fail(s, "cannot create the Wayland globals");
	if (wbc_input_init(s) < 0)
		return fail(s, "cannot create the seat");
	if (wbc_xwayland_init(s) < 0)
		return fail(s, NULL);
	if (s->opts->allow_capture && wbc_screencopy_init(s) < 0)
		return fail(s, "cannot create zwlr_screencopy_manager_v1");
	if (wbc_power_init(s) < 0)
		return fail(s, "cannot create the output power and idle inhibit managers");
	if ((s->opts->allow_remote || s->opts->allow_osk) && wbc_remote_init(s) < 0)
		return fail(s, "cannot create the virtual pointer and keyboard managers");
	if (s->opts->allow_output_config && wbc_output_config_init(s) < 0)
		return fail(s, "cannot create zwlr_output_manager_v1");
	return 0;
}

static int setup_loop(struct wbc_server *s)
{
	const int signals[] = { SIGINT, SIGTERM, SIGCHLD };
	/* Signal sources block their signals process-wide (signalfd): not in an embedder's
	 * process, which has its own use for them. */
	for (size_t i = 0; i < 3 && !s->opts->embedded; i++) {
		s->signals[i] = wl_event_loop_add_signal(s->loop, signals[i], handle_signal, s);
		if (!s->signals[i])
			return fail(s, "cannot watch signals");
	}
	if (s->opts->duration_s > 0) {
		s->duration = wl_event_loop_add_timer(s->loop, handle_duration, s);
		if (!s->duration)
			return fail(s, "cannot create the --duration timer");
	}
	return 0;
}

/* libinput, started after the outputs. wlroots 0.15 refuses to start it without input
 * devices unless WLR_LIBINPUT_NO_DEVICES is set, but with that set it also leaves the
 * devices found at start unannounced until libinput's fd next wakes up: so try without,
 * and only when there is no device start again with it (a kiosk may have no input, and
 * devices may be plugged in later). */
static int start_libinput(struct wbc_server *s)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		struct wlr_backend *libinput = wlr_libinput_backend_create(s->display, s->session);
		if (!libinput || !wlr_multi_backend_add(s->backend, libinput))
			return fail(s, "cannot create the libinput backend");
		if (wlr_backend_start(libinput))
			return 0;
		wlr_multi_backend_remove(s->backend, libinput);
		wlr_backend_destroy(libinput);
		if (getenv("WLR_LIBINPUT_NO_DEVICES"))
			break;
		wbc_log(WLR_DEBUG, "no input devices: starting libinput for hotplug only");
		setenv("WLR_LIBINPUT_NO_DEVICES", "1", 1);
	}
	return fail(s, "cannot start the libinput backend");
}

/* The embedder connects its clients itself (wl_client_create): no socket, no APP. */
static int start_embedded(struct wbc_server *s)
{
	if (!wlr_backend_start(s->backend))
		return fail(s, "cannot start the headless backend");
	if (s->exit_status != -1)        /* the output handler stopped us */
		return fail(s, NULL);
	if (wl_list_empty(&s->screens))
		return fail(s, "the headless output did not come up");
	return 0;
}

int wbc_server_init(struct wbc_server *s, const struct wbc_options *opts)
{
	*s = (struct wbc_server){ .opts = opts, .exit_status = -1 };
	wl_list_init(&s->screens);
	wl_list_init(&s->views);
	wl_list_init(&s->screenshots);
	wl_list_init(&s->input.keyboards);
	if (!opts->embedded && wbc_launch_check(opts->app_argv) < 0)
		return fail(s, NULL);
	/* --record: the recorder (FFmpeg) is loaded and what it can check of the options is
	 * checked now, not at the first frame, so that a recorder that cannot be loaded or
	 * an unknown codec stops wbc before any modeset. Without --record, never loaded. */
	if (opts->record) {
		const struct wbc_recording_params p = wbc_screen_record_params(opts);
		char err[16384];             /* an unknown codec's message lists every encoder */
		if (wbc_recording_check(&p, err, sizeof(err)) != 0) {
			wbc_log(WLR_ERROR, "%s", err);
			return fail(s, NULL);
		}
	}
	s->display = wl_display_create();
	if (!s->display)
		return fail(s, "cannot create the Wayland display");
	s->loop = wl_display_get_event_loop(s->display);
	if (setup_loop(s) < 0 || (opts->embedded ? setup_headless(s) : setup_backends(s)) < 0 ||
			setup_protocols(s) < 0 || wbc_screenshots_init(s) < 0)
		return -1;
	s->new_output.notify = handle_new_output;
	wl_signal_add(&s->backend->events.new_output, &s->new_output);
	s->new_input.notify = handle_new_input;
	wl_signal_add(&s->backend->events.new_input, &s->new_input);
	if (opts->embedded)
		return start_embedded(s);
	const char *socket = wl_display_add_socket_auto(s->display);
	if (!socket)
		return fail(s, "cannot create the Wayland socket (is XDG_RUNTIME_DIR set?)");
	setenv("WAYLAND_DISPLAY", socket, 1);
	if (s->opts->allow_control && wbc_control_init(s, socket) < 0)
		return fail(s, NULL);
	if (!wlr_backend_start(s->backend))
		return fail(s, "cannot start the backends");
	if (s->exit_status != -1)        /* an output handler stopped us (mode, modeset) */
		return fail(s, NULL);
	if (start_libinput(s) < 0)
		return -1;
	if (wbc_hotplug_init(s) < 0)
		return fail(s, NULL);
	if (wl_list_empty(&s->screens)) {
		if (s->opts->headless)
			wbc_log(WLR_ERROR, "--headless: no writeback connector with modes on %s",
				s->kms->path);
		else if (s->opts->output)
			wbc_log(WLR_ERROR, "no connector named %s with modes on %s", s->opts->output,
				s->kms->path);
		else
			wbc_log(WLR_ERROR, "no connected display on %s", s->kms->path);
		return fail(s, NULL);
	}
	if (wbc_screen_start_capture(s) < 0)
		return fail(s, NULL);
	wbc_log(WLR_INFO, "WAYLAND_DISPLAY=%s", socket);
	if (wbc_launch_spawn(s, opts->app_argv) < 0)
		return fail(s, NULL);
	/* --duration and --screenshot-after count from APP's start. */
	if (s->duration) {
		int ms = (int)(opts->duration_s * 1000);
		wl_event_source_timer_update(s->duration, ms > 0 ? ms : 1);
	}
	wbc_screenshots_arm(s);
	wbc_power_activity(s);           /* --blank-after counts from APP's start too */
	s->running = true;
	return 0;
}

int wbc_server_run(struct wbc_server *s)
{
	wl_display_run(s->display);
	return s->exit_status < 0 ? 0 : s->exit_status;
}

static void print_stats(struct wbc_server *s)
{
	if (!s->adapter)
		return;
	struct wbc_adapter_stats st;
	wbc_adapter_get_stats(s->adapter, &st);
	if (s->opts->verbose)
		wbc_log(WLR_INFO, "stats: %llu commits reached the KMS backend, %llu shown, "
			"%llu superseded, %llu failed, %llu missed vblanks, %llu writeback frames, "
			"%llu lost", (unsigned long long)st.commits, (unsigned long long)st.flips,
			(unsigned long long)st.superseded, (unsigned long long)st.failed,
			(unsigned long long)st.missed_vblanks, (unsigned long long)st.captures,
			(unsigned long long)st.captures_lost);
	fprintf(stderr, "wbc: stats commits=%llu flips=%llu missed_vblanks=%llu "
		"writeback_lost=%llu writeback_late=%llu cursor_plane_commits=%llu\n",
		(unsigned long long)st.commits, (unsigned long long)st.flips,
		(unsigned long long)st.missed_vblanks, (unsigned long long)st.captures_lost,
		(unsigned long long)st.captures_late, (unsigned long long)st.cursor_commits);
}

void wbc_server_finish(struct wbc_server *s)
{
	s->finishing = true;
	/* First: the recording ends when wbc was told to stop, not after APP's shutdown. */
	wbc_recording_finish(s);
	wbc_launch_stop(s);
	if (!s->display)
		return;
	wbc_xwayland_finish(s);          /* before its windows go with the clients */
	wl_display_destroy_clients(s->display);
	wbc_hotplug_finish(s);
	wbc_power_finish(s);
	wbc_control_finish(s);
	wbc_screencopy_finish(s);
	wbc_remote_finish(s);
	wbc_layer_finish(s);             /* before the outputs go: it follows the layout */
	wbc_output_config_finish(s);
	if (!s->failed)                  /* errors are one line: no stats after them */
		print_stats(s);
	wbc_screenshots_finish(s);
	if (s->new_output.notify) {
		wl_list_remove(&s->new_output.link);
		wl_list_remove(&s->new_input.link);
	}
	if (s->session_active.notify)
		wl_list_remove(&s->session_active.link);
	/* Outputs first (their pipes turn the CRTC off), while renderer, allocator and the
	 * KMS device they use still exist. */
	wbc_leak_check_pause();          /* wlroots' globals of the outputs: leak-check.h */
	if (s->backend)
		wlr_backend_destroy(s->backend);
	else if (s->adapter)
		wlr_backend_destroy(s->adapter);
	wbc_leak_check_resume();
	wbc_screen_finish_all(s);
	wbc_input_finish(s);
	/* The layout before the scene: its destroy signal reaches the scene's output-layout
	 * helper, which reads the scene (memcheck saw the scene read after it was freed). */
	if (s->layout)
		wlr_output_layout_destroy(s->layout);
	if (s->scene)
		wlr_scene_node_destroy(&s->scene->node);
	wlr_allocator_destroy(s->allocator);
	if (s->renderer)
		wlr_renderer_destroy(s->renderer);
	wbc_device_restore(s);
	wbc_kms_device_destroy(s->kms);
	if (s->drm)
		wlr_session_close_file(s->session, s->drm);
	for (size_t i = 0; i < 3; i++)
		if (s->signals[i])
			wl_event_source_remove(s->signals[i]);
	if (s->duration)
		wl_event_source_remove(s->duration);
	if (s->shm_check)
		wl_protocol_logger_destroy(s->shm_check);
	wbc_leak_check_pause();          /* the seat's global, as the outputs': leak-check.h */
	wl_display_destroy(s->display);     /* also the session, seat and globals */
	wbc_leak_check_resume();
}
