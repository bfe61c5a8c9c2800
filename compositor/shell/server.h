/* The compositor: struct wbc_server and what each part of it provides. */
#ifndef WBC_SERVER_H
#define WBC_SERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include "options.h"

struct wlr_output;
struct wlr_device;
struct wlr_input_device;
struct wlr_xdg_surface;
struct wlr_surface;
struct wlr_box;
struct wbc_capture;
struct wbc_recording;
struct wbc_control;
struct wbc_screencopy;
struct wbc_xdg_view;
struct wbc_xwayland;
struct wbc_hotplug;
struct wbc_power;
struct wbc_cursor_image;
struct wbc_layers;
struct wbc_output_config;

/* The one APP wbc runs (launch.c). */
struct wbc_child {
	pid_t pid;                       /* 0: none, or reaped */
	bool exited;
	int status;                      /* exit status, 128+N when killed by signal N */
};

#define WBC_MAX_TOUCH_POINTS 16

/* A touch point down on a surface: where that surface's origin was at touch-down (layout
 * coordinates), so that motion is reported relative to it. Part of wbc_input. */
struct wbc_touch_origin {
	struct wbc_server *server;
	int32_t id;
	bool down;
	double x, y;
	struct wl_listener surface_destroy;  /* while down */
};

/* Input state (input.c); everything is owned by the server and freed in wbc_input_finish. */
struct wbc_input {
	struct wlr_seat *seat;
	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *xcursor;
	struct wl_list keyboards;        /* wbc_keyboard.link */
	uint32_t caps;                   /* WL_SEAT_CAPABILITY_* */
	struct wl_listener motion, motion_absolute, button, axis, frame;
	struct wl_listener request_cursor, request_set_selection;
	struct wl_listener touch_down, touch_up, touch_motion, touch_frame;
	struct wbc_touch_origin touches[WBC_MAX_TOUCH_POINTS];
	struct wl_list touch_devices;    /* touch.c's wbc_touch_device.link */
	struct wbc_cursor_image *image;  /* cursor-image.c: what the cursor shows, if shown */
	double focus_x, focus_y;         /* the pointer focus's origin, layout coordinates */
};

/* Owned by main() or an embedder (tests/wlcs: one per wlcs server, many in a process);
 * everything in it is owned by it and torn down by wbc_server_finish. */
struct wbc_server {
	const struct wbc_options *opts;  /* borrowed */
	struct wl_display *display;
	struct wl_event_loop *loop;
	struct wlr_session *session;
	struct wlr_device *drm;          /* opened through the session */
	struct wbc_kms_device *kms;
	struct wlr_backend *backend;     /* the multi-backend: adapter + libinput */
	struct wlr_backend *adapter;     /* owned by backend */
	struct wlr_renderer *renderer;
	struct wlr_compositor *compositor;  /* the display's */
	struct wlr_allocator *allocator;
	struct wlr_output_layout *layout;
	struct wlr_scene *scene;
	struct wlr_scene_node *view_tree;   /* the scene's; toplevels of every kind (view.h) */
	struct wlr_xdg_shell *xdg_shell;
	struct wlr_xdg_decoration_manager_v1 *xdg_decoration;
	struct wlr_presentation *presentation;
	struct wl_protocol_logger *shm_check;   /* shm-check.c */
	struct wbc_input input;
	struct wl_list screens;          /* wbc_screen.link */
	struct wl_list views;            /* wbc_view.link, focused first */
	struct wl_list screenshots;      /* wbc_screenshot.link */
	struct wbc_recording *recording;    /* the recording (capture/recording.c), NULL without */
	struct wbc_control *control;     /* --allow-control (control.c), NULL without */
	struct wbc_screencopy *screencopy; /* --allow-capture (screencopy.c), NULL without */
	struct wbc_hotplug *hotplug;     /* DRM uevents (hotplug.c); NULL when embedded */
	struct wbc_power *power;         /* output power and --blank-after (power.c) */
	struct wbc_layers *layers;       /* layer-shell (layer.c); NULL before its init */
	struct wbc_output_config *output_config; /* --allow-output-config (output-config.c),
	                                    NULL without */
	struct wbc_xwayland *xwayland;   /* X11 clients (xwayland.c); NULL: --no-xwayland,
	                                    embedded, or Xwayland unavailable */
	struct {                         /* --allow-remote (remote.c); the managers are the display's */
		struct wl_listener new_pointer, new_keyboard;
		struct wl_list orphans;  /* remote.c's orphan_keyboard.link */
	} remote;
	struct wbc_child child;
	struct {                         /* an interactive move (xdg.c, windowed policy) */
		struct wbc_xdg_view *view; /* borrowed; NULL: none (cleared when it goes) */
		double dx, dy;           /* pointer minus the window's top left */
	} move;
	struct wl_listener new_output, new_input, new_xdg_surface, new_decoration;
	struct wl_listener session_active;   /* session->events.active; NULL notify without */
	struct wl_event_source *signals[3], *duration;
	int exit_status;
	uint64_t stop_ns;                /* CLOCK_MONOTONIC of the first wbc_server_stop */
	bool failed;                     /* stopping because of an error */
	bool running;                    /* set up and APP started: outputs that come now are
	                                    hotplugged (a --mode they lack is no error) */
	bool finishing;                  /* wbc_server_finish has begun: outputs that go now
	                                    are torn down, not unplugged */
};

/* server.c */
int wbc_server_init(struct wbc_server *server, const struct wbc_options *opts);
int wbc_server_run(struct wbc_server *server);   /* returns the exit status */
void wbc_server_finish(struct wbc_server *server);
/* Stop the event loop with this exit status (the first caller wins). */
void wbc_server_stop(struct wbc_server *server, int status);

/* drm-device.c: the DRM device through the session (--device PATH or the first KMS card). */
int wbc_device_open(struct wbc_server *server);
/* Once the outputs are gone: the display back as wbc found it (said with -v; a failure is
 * an error line). */
void wbc_device_restore(struct wbc_server *server);

/* screen.c: outputs on the compositor side (mode, layout, frame scheduling, capture). */
void wbc_screen_new_output(struct wbc_server *server, struct wlr_output *output);
/* --record's recording as the options say it (o->record set); checked at start-up. */
struct wbc_recording_params wbc_screen_record_params(const struct wbc_options *o);
void wbc_screen_finish_all(struct wbc_server *server);
/* Turn output's display off (its pipe goes: CRTC off, no commits, no frame events and so
 * no frame callbacks; capture consumers detach, a recording pauses) or on again (a fresh
 * modeset and a full redraw; a paused recording of it resumes). Said in one line. false
 * when the commit failed (said too). */
bool wbc_screen_set_power(struct wbc_server *server, struct wlr_output *output, bool on);
void wbc_screen_set_power_all(struct wbc_server *server, bool on);
/* The session went away (a VT switch, another seat user: DRM master and input are about
 * to be taken) or came back: the displays on go off while away (as wbc_screen_set_power:
 * nothing committed or captured, a recording pauses), and those come back with a fresh
 * modeset (someone else may have changed the display meanwhile). */
void wbc_screen_session_active(struct wbc_server *server, bool active);
/* The output a touchscreen belongs on: the one called name (libinput's WL_OUTPUT; may be
 * NULL) while wbc drives it and it is lit, else the first output lit; NULL while there is
 * none. */
struct wlr_output *wbc_screen_output_for(struct wbc_server *server, const char *name);
/* The area toplevels fill, in layout coordinates, less the exclusive zones of the first
 * lit output's layer surfaces (layer.c): --outputs extend: the whole layout's; mirror:
 * the first output's (every output shows it); last: the lit output's. */
bool wbc_screen_box(struct wbc_server *server, struct wlr_box *box);
/* Once the outputs wbc starts with are up, before APP: --screenshot-after and --record
 * take the output recorded (wbc_screen_capture's default; --outputs last: the one lit).
 * -1 (said in one line) when --record-output names no output or the recording cannot
 * start. */
int wbc_screen_start_capture(struct wbc_server *server);
/* The output called name (NULL: the one recorded by default, --record-output's, else the
 * first lit that can be captured) and its capture hook; NULL while there is none (or it
 * is off for --outputs last). */
struct wbc_capture *wbc_screen_capture(struct wbc_server *server, const char *name,
	struct wlr_output **output);
/* The capture hook of this output, NULL if it has none. */
struct wbc_capture *wbc_screen_capture_of(struct wbc_server *server, struct wlr_output *output);
/* Writeback or readback for output's capture, following --capture: writeback if the
 * output can be captured that way (its pool made with pool buffers), else readback.
 * *format is the frames' format, line what the log is to say. -1 and the reason in line
 * when --capture writeback is impossible. Shared by the recorder and screencopy. */
int wbc_screen_choose_capture(struct wbc_server *server, struct wlr_output *output,
		struct wbc_capture *capture, unsigned pool, uint32_t *format, char *line,
		size_t len);

/* hotplug.c: the kernel's DRM hotplug uevents for the card make the adapter re-read its
 * connectors (wbc_adapter_reprobe). */
int wbc_hotplug_init(struct wbc_server *server);
void wbc_hotplug_finish(struct wbc_server *server);

/* power.c: wlr-output-power-management and --blank-after with idle inhibitors. */
int wbc_power_init(struct wbc_server *server);
/* Input happened (or APP started): --blank-after counts from now, and displays it
 * blanked come back on. */
void wbc_power_activity(struct wbc_server *server);
void wbc_power_finish(struct wbc_server *server);

/* screenshot.c: --screenshot-after, attached to the first screen that comes up, timed
 * from APP's start (wbc_screenshots_arm). */
int wbc_screenshots_init(struct wbc_server *server);
void wbc_screenshots_attach(struct wbc_server *server, struct wbc_capture *capture);
void wbc_screenshots_arm(struct wbc_server *server);
void wbc_screenshots_finish(struct wbc_server *server);

/* screencopy.c: zwlr_screencopy_manager_v1 from the capture hook (--allow-capture). */
int wbc_screencopy_init(struct wbc_server *server);
void wbc_screencopy_finish(struct wbc_server *server);

/* remote.c: virtual pointer and keyboard for remote desktops (--allow-remote). */
int wbc_remote_init(struct wbc_server *server);
void wbc_remote_finish(struct wbc_server *server);

/* xdg.c */
int wbc_xdg_init(struct wbc_server *server);
/* Under the windowed policy: put the toplevel whose surface this is with its window
 * geometry's top left at x, y (layout coordinates). -1 if surface is no toplevel's. */
int wbc_xdg_move(struct wbc_server *server, struct wlr_surface *surface, int x, int y);
/* A button went down on surface (NULL: on nothing): under the windowed policy its
 * toplevel gets the focus. */
void wbc_xdg_click(struct wbc_server *server, struct wlr_surface *surface);
/* During an interactive move: the window follows the cursor, true (the pointer's events
 * are the move's). False when there is no move. */
bool wbc_xdg_move_motion(struct wbc_server *server);
/* The button went up: the move, if any, ends (true). */
bool wbc_xdg_move_end(struct wbc_server *server);

/* xwayland.c: X11 clients through Xwayland, started by the first one that connects
 * (opts->xwayland). A missing Xwayland is said in one line and is no error: 0 then too,
 * with server->xwayland NULL; -1 (said) when it cannot be set up otherwise. */
int wbc_xwayland_init(struct wbc_server *server);
/* The X display (":N") APP is to get as DISPLAY, NULL without Xwayland. */
const char *wbc_xwayland_display(struct wbc_server *server);
/* The pid of the process wlroots forked to start Xwayland and waits for itself (0: none):
 * wbc must not reap it. */
pid_t wbc_xwayland_starter_pid(struct wbc_server *server);
/* Before the display goes: X windows, the window manager and Xwayland. */
void wbc_xwayland_finish(struct wbc_server *server);

/* input.c */
int wbc_input_init(struct wbc_server *server);
void wbc_input_new_device(struct wbc_server *server, struct wlr_input_device *device);
/* Keyboard focus to surface (NULL: to none). past_grab: even during a keyboard grab,
 * which otherwise keeps the focus where it is (wlroots 0.15's xdg popup grab ignores
 * every change: a grabbing popup's focus comes and goes past it, xdg.c). Nothing
 * changes while an exclusive layer surface holds the keyboard (layer.c). */
void wbc_input_focus_surface(struct wbc_server *server, struct wlr_surface *surface,
		bool past_grab);
/* The scene changed under a still pointer (a toplevel mapped, moved, went): pointer focus
 * and position follow, as if it had moved there. */
void wbc_input_rebase_pointer(struct wbc_server *server);
void wbc_input_finish(struct wbc_server *server);

/* launch.c */
/* 0 if argv[0] looks runnable, else one "wbc: ..." line printed and -1. */
int wbc_launch_check(char *const argv[]);
int wbc_launch_spawn(struct wbc_server *server, char *const argv[]);
void wbc_launch_reap(struct wbc_server *server);    /* on SIGCHLD */
void wbc_launch_stop(struct wbc_server *server);    /* SIGTERM, then SIGKILL, reap */

#endif
