/* Command line of wbc. */
#ifndef WBC_OPTIONS_H
#define WBC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#define WBC_MAX_SCREENSHOTS 8
#define WBC_MAX_AV_OPTS 32

/* --capture */
enum wbc_capture_choice {
	WBC_CAPTURE_AUTO,                /* writeback where the device has it, else readback */
	WBC_CAPTURE_FORCE_WRITEBACK,
	WBC_CAPTURE_FORCE_READBACK,
};

/* --writeback-pacing (server.c passes it on as WBC_KMS_WB_WAIT, _SKIP or _DEADLINE; the
 * option parser stays free of libdrm's headers for its fuzzer, tests/fuzz/run.sh). */
enum wbc_pacing_choice {
	WBC_PACING_WAIT,                 /* the default */
	WBC_PACING_SKIP,
	WBC_PACING_DEADLINE,
};

/* --renderer */
enum wbc_renderer_choice {
	WBC_RENDERER_AUTO,               /* GLES2 where it can be created, else pixman */
	WBC_RENDERER_GLES2,              /* GLES2 or exit status 1 */
	WBC_RENDERER_PIXMAN,
};

/* --outputs: what the connected outputs show (screen.c). */
enum wbc_outputs_policy {
	WBC_OUTPUTS_EXTEND,              /* all lit, left to right; APP spans them (as cage) */
	WBC_OUTPUTS_MIRROR,              /* all lit at the same place: each shows APP */
	WBC_OUTPUTS_LAST,                /* only the one connected last is lit */
};

/* --screenshot-after: the first frame captured (writeback or readback, as for recording)
 * once after_s has passed. */
struct wbc_screenshot_request {
	double after_s;                  /* seconds after APP was started (server.c arms it) */
	const char *path;                /* borrowed from argv */
};

/* Filled by wbc_options_parse; every string is borrowed from argv. */
struct wbc_options {
	const char *device;              /* --device PATH, or NULL: ask the session for a GPU */
	const char *output;              /* --output NAME: drive only this connector */
	enum wbc_outputs_policy outputs; /* --outputs */
	const char *record_output;       /* --record-output NAME: what is recorded (NULL: the
	                                    first output) */
	bool has_mode;
	int32_t mode_width, mode_height;
	int32_t mode_refresh_mhz;        /* 0: any refresh */
	double duration_s;               /* --duration; 0: until APP exits or a signal */
	/* --rotate: degrees (0, 90, 180, 270) the picture is turned on every output, as
	 * wl_output's transform (a portrait panel); --scale: the outputs' scale (0: 1). */
	int rotate;
	double scale;
	/* --allow-output-config: serve wlr-output-management (wlr-randr) to clients. */
	bool allow_output_config;
	bool verbose;
	size_t n_screenshots;
	struct wbc_screenshot_request screenshots[WBC_MAX_SCREENSHOTS];
	/* Recording (capture/recording.c); all NULL/0 without --record. */
	const char *record;              /* --record PATH|URL */
	const char *codec;               /* --codec NAME, NULL: the recorder's default */
	const char *container;           /* --container NAME, NULL: from the output's name */
	size_t n_codec_opts, n_container_opts;
	const char *codec_opts[WBC_MAX_AV_OPTS];     /* --codec-opt KEY=VALUE */
	const char *container_opts[WBC_MAX_AV_OPTS]; /* --container-opt KEY=VALUE */
	double fps;                      /* --fps cap; 0: every frame shown */
	enum wbc_capture_choice capture; /* --capture */
	enum wbc_renderer_choice renderer; /* --renderer */
	enum wbc_pacing_choice pacing;   /* --writeback-pacing */
	bool stats;                      /* --stats */
	/* Recording control (control/control.c): --allow-control, --control-socket PATH (implies it). */
	bool allow_control;
	const char *control_socket;      /* NULL: $XDG_RUNTIME_DIR/wbc-control-N */
	const char *frame_checksums;     /* --debug-frame-checksums FILE */
	/* Screen capture for clients (capture/screencopy.c): --allow-capture; --allow-remote
	 * (implies it) adds the virtual pointer and keyboard of remote desktops (remote.c). */
	bool allow_capture;
	bool allow_remote;
	/* --allow-osk: zwp_virtual_keyboard_manager_v1 alone, for on-screen keyboards (remote.c). */
	bool allow_osk;
	bool allow_vt_switch;            /* --allow-vt-switch: Ctrl+Alt+Fn switches VT */
	double blank_after_s;            /* --blank-after; 0: never blank */
	double hide_cursor_s;            /* --hide-cursor; 0: only touch hides it */
	bool headless;                   /* --headless: the writeback connector is the screen */
	/* X11 clients through Xwayland, started when the first connects (xwayland.c): true
	 * unless --no-xwayland. Embedders (tests/wlcs) leave it false unless they want it. */
	bool xwayland;
	char **app_argv;                 /* NULL-terminated, never empty after a successful parse */
	/* Set only by embedders (tests/wlcs), never by the command line (which leaves them 0):
	 * a core with no screen, no session, no socket, no signal handlers and no APP, on
	 * wlroots' headless backend with one output of this size; input devices are the
	 * embedder's (wlr_headless_add_input_device on server->backend). */
	bool embedded;
	int32_t embedded_width, embedded_height;
	/* Toplevels keep the size they choose and the place they are given (xdg.c's windowed
	 * policy) instead of the kiosk's one fullscreen application. */
	bool windowed;
};

enum wbc_parse_result {
	WBC_PARSE_OK,
	WBC_PARSE_EXIT,                  /* --help or --version printed: exit 0 */
	WBC_PARSE_ERROR,                 /* one "wbc: ..." line printed: exit 2 */
};

enum wbc_parse_result wbc_options_parse(int argc, char **argv, struct wbc_options *out);

#endif
