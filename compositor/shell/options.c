/* Command line parsing: wbc [options] -- APP [ARGS...] */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

#ifndef WBC_VERSION
#define WBC_VERSION "unknown"
#endif

static const char usage[] =
	"usage: wbc [--device PATH] [--mode WxH[@Hz]] [--duration SECONDS] [-v] [-h] [--version]\n"
	"           [--output NAME] [--outputs extend|mirror|last] [--record-output NAME]\n"
	"           [--rotate 0|90|180|270] [--scale N] [--allow-output-config]\n"
	"           [--screenshot-after SECONDS FILE.ppm]...\n"
	"           [--record PATH|URL [--codec NAME] [--codec-opt KEY=VALUE]... [--container NAME]\n"
	"            [--container-opt KEY=VALUE]... [--fps N] [--capture auto|writeback|readback]\n"
	"            [--stats]] [--allow-control [--control-socket PATH]]\n"
	"           [--allow-capture] [--allow-remote] [--allow-osk] [--headless]\n"
	"           [--writeback-pacing wait|skip|deadline]\n"
	"           [--allow-vt-switch] [--renderer auto|gles2|pixman]"
	"           [--blank-after SECONDS] [--hide-cursor SECONDS] [--no-xwayland]\n"
	"           -- APP [ARGS...]\n"
	"\n"
	"A kiosk Wayland compositor: runs APP fullscreen on the connected displays, driving\n"
	"them through wbc's own KMS backend, and exits with APP's exit status.\n"
	"\n"
	"  --device PATH        DRM device to use (default: the session's first GPU)\n"
	"  --mode WxH[@Hz]      display mode (default: the connector's preferred mode)\n"
	"  --output NAME        drive only this connector (e.g. Virtual-1; a writeback\n"
	"                       connector such as Writeback-1 makes a headless output)\n"
	"  --outputs extend|mirror|last\n"
	"                       with several displays: extend (default): all lit, left to\n"
	"                       right, APP spanning them; mirror: each shows APP at its\n"
	"                       top left; last: only the display connected last is lit\n"
	"  --record-output NAME  record (--record, wbcctl) and screenshot this output\n"
	"                       (default: the first)\n"
	"  --duration SECONDS   stop this long after APP started (exit status 0)\n"
	"  --screenshot-after SECONDS FILE\n"
	"                       debug: write one captured frame (writeback, or readback\n"
	"                       where wbc fell back), SECONDS after APP started, to FILE\n"
	"                       as a binary PPM (repeatable);\n"
	"                       where the display cannot be captured (VKMS on Linux 6.1)\n"
	"                       wbc drives the writeback connector headless instead\n"
	"\n"
	"Recording (the first output or --record-output's, from its first frame until wbc\n"
	"stops):\n"
	"  --record PATH|URL    record the screen to a file (.mkv, .mp4, ...) or stream it\n"
	"                       (udp://HOST:PORT and tcp://HOST:PORT as MPEG-TS, rtp://HOST:PORT\n"
	"                       with an SDP file); where writeback needs it (VKMS on Linux 6.1)\n"
	"                       wbc drives the writeback connector headless, as above\n"
	"  --codec NAME         encoder (default: libx264 ultrafast/zerolatency if present,\n"
	"                       else the best H.264/VP8/MPEG-4 encoder; the log says which)\n"
	"  --codec-opt KEY=VALUE  encoder AVOption, e.g. crf=18, g=60 (repeatable)\n"
	"  --container NAME     muxer (default: from the file extension; mpegts for udp/tcp)\n"
	"  --container-opt KEY=VALUE  muxer/protocol AVOption (repeatable)\n"
	"  --fps N              capture at most N frames a second (writeback is armed only\n"
	"                       on the vblanks needed); default: every frame shown\n"
	"  --capture auto|writeback|readback\n"
	"                       writeback: the display engine writes each frame to memory;\n"
	"                       readback: copy the displayed buffer; auto (default):\n"
	"                       writeback where the device has it, else readback\n"
	"  --stats              print recorder counters once a second\n"
	"  --allow-control      let wbcctl start and stop recordings while wbc runs, through\n"
	"                       a control socket of mode 0600 (and let APP itself do it);\n"
	"                       capture is set up at start as for --record\n"
	"  --control-socket PATH  where that socket is (implies --allow-control; default\n"
	"                       $XDG_RUNTIME_DIR/wbc-control-N for wayland-N)\n"
	"  --debug-frame-checksums FILE\n"
	"                       debug: a line per frame given to the encoder (FNV-1a 64 of\n"
	"                       its B,G,R bytes; see compositor/capture/recording.c)\n"
	"\n";
/* In two parts: C11 compilers need not take string literals over 4095 characters. */
static const char usage_more[] =
	"Capture and remote control by clients (off by default: any client could read the\n"
	"screen or type):\n"
	"  --allow-capture      serve zwlr_screencopy_manager_v1 (grim, wf-recorder, wayvnc)\n"
	"                       from writeback frames (readback where there is no\n"
	"                       writeback); capture is set up at start as for --record\n"
	"  --allow-remote       also zwlr_virtual_pointer_manager_v1 and\n"
	"                       zwp_virtual_keyboard_manager_v1 (e.g. for wayvnc); implies\n"
	"                       --allow-capture\n"
	"  --allow-osk          serve zwp_virtual_keyboard_manager_v1 alone, for an on-screen\n"
	"                       keyboard (wvkbd) APP starts; its keys go to the focused client\n"
	"  --headless           no physical screen: drive the device's writeback connector\n"
	"                       as the only output (serve it with --allow-remote and wayvnc)\n"
	"  --writeback-pacing wait|skip|deadline\n"
	"                       wait (default): a commit waits for the last capture's\n"
	"                       out-fence, so every shown frame is captured; skip: the\n"
	"                       display never waits, frames shown while a capture is\n"
	"                       written are not captured; deadline: a commit waits for\n"
	"                       the fence until shortly before the next vblank, then goes\n"
	"                       without capture (skip and deadline need a driver that\n"
	"                       allows it, see wbc(1))\n"
	"\n"
	"Rendering:\n"
	"  --renderer auto|gles2|pixman\n"
	"                       how to compose: gles2 (OpenGL ES 2 through EGL on the DRM\n"
	"                       device, e.g. Mesa), pixman (CPU), auto (default): gles2\n"
	"                       where the device has GL of its own and it can be created,\n"
	"                       else pixman (one line says why; with -v where the GL\n"
	"                       would be software)\n"
	"\n"
	"Rotation and scale (every output):\n"
	"  --rotate 0|90|180|270  turn the picture by this many degrees on every output\n"
	"                       (wl_output transform: a portrait panel; APP gets the\n"
	"                       turned size and touchscreens follow)\n"
	"  --scale N            output scale (e.g. 2: APP gets half the size in logical\n"
	"                       pixels and draws at N times that; default 1)\n"
	"  --allow-output-config  serve wlr-output-management (wlr-randr): clients may list\n"
	"                       the outputs and change their mode, rotation and scale\n"
	"\n"
	"X11 applications:\n"
	"  --no-xwayland        do not offer X11: no Xwayland, no DISPLAY for APP (default:\n"
	"                       DISPLAY is set and Xwayland starts when an X client connects)\n"
	"\n"
	"Lockdown:\n"
	"  --allow-vt-switch    let Ctrl+Alt+F1..F12 switch virtual terminals (default: these\n"
	"                       keys do nothing and APP never sees them, so a kiosk keyboard\n"
	"                       cannot leave the kiosk for a console)\n"
	"\n"
	"Display power:\n"
	"  --blank-after SECONDS  turn the display off after SECONDS without input, unless a\n"
	"                       client holds an idle inhibitor; input turns it on again\n"
	"                       (clients can also turn it off and on through\n"
	"                       wlr-output-power-management, e.g. wlopm)\n"
	"\n"
	"Cursor (hidden until the pointer moves, and whenever a finger touches a screen):\n"
	"  --hide-cursor SECONDS  also hide it after SECONDS without pointer motion\n"
	"\n"
	"  -v, --verbose        debug logging and statistics\n"
	"  -h, --help           this help\n"
	"  --version            print the version\n";

/* Seconds become wl_event_source timers of (int) milliseconds: at most INT_MAX ms
 * (24.8 days). */
#define MAX_SECONDS (INT_MAX / 1000)
/* --fps below this would make the capture interval (ns, 64-bit) meaningless. */
#define MIN_FPS 0.001

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > MAX_SECONDS)
		return false;
	*out = v;
	return true;
}

static bool parse_mode(const char *s, struct wbc_options *o)
{
	char *end;
	errno = 0;
	long w = strtol(s, &end, 10);
	if (errno || end == s || *end != 'x' || w <= 0 || w > 16384)
		return false;
	s = end + 1;
	long h = strtol(s, &end, 10);
	if (errno || end == s || h <= 0 || h > 16384)
		return false;
	double hz = 0;
	if (*end == '@') {
		s = end + 1;
		hz = strtod(s, &end);
		if (errno || end == s || !isfinite(hz) || hz <= 0 || hz > 1000)
			return false;
	}
	if (*end)
		return false;
	o->has_mode = true;
	o->mode_width = (int32_t)w;
	o->mode_height = (int32_t)h;
	o->mode_refresh_mhz = (int32_t)lround(hz * 1000);
	return true;
}

/* Scales outside this range make no sense for a screen (and wlroots takes any > 0). */
#define MIN_SCALE 0.25
#define MAX_SCALE 8.0

static bool parse_scale(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < MIN_SCALE || v > MAX_SCALE)
		return false;
	*out = v;
	return true;
}

__attribute__((format(printf, 1, 2)))
static enum wbc_parse_result fail(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "wbc: ");
	vfprintf(stderr, fmt, args);
	fprintf(stderr, " (see wbc --help)\n");
	va_end(args);
	return WBC_PARSE_ERROR;
}

/* An option that takes one word of a fixed set: the words and what each sets. */
struct choice {
	const char *word;
	int value;
};

static const struct choice outputs_choices[] = {
	{ "extend", WBC_OUTPUTS_EXTEND }, { "mirror", WBC_OUTPUTS_MIRROR },
	{ "last", WBC_OUTPUTS_LAST }, { NULL, 0 },
};
static const struct choice rotate_choices[] = {
	{ "0", 0 }, { "90", 90 }, { "180", 180 }, { "270", 270 }, { NULL, 0 },
};
static const struct choice capture_choices[] = {
	{ "auto", WBC_CAPTURE_AUTO }, { "writeback", WBC_CAPTURE_FORCE_WRITEBACK },
	{ "readback", WBC_CAPTURE_FORCE_READBACK }, { NULL, 0 },
};
static const struct choice renderer_choices[] = {
	{ "auto", WBC_RENDERER_AUTO }, { "gles2", WBC_RENDERER_GLES2 },
	{ "pixman", WBC_RENDERER_PIXMAN }, { NULL, 0 },
};
static const struct choice pacing_choices[] = {
	{ "wait", WBC_PACING_WAIT }, { "skip", WBC_PACING_SKIP },
	{ "deadline", WBC_PACING_DEADLINE }, { NULL, 0 },
};

/* The value `word` names among `choices` (ended by a NULL word) into *out; otherwise
 * false after one line naming every word `option` takes ("wants a, b or c"). */
static bool parse_choice(const char *option, const char *word,
		const struct choice *choices, int *out)
{
	size_t n = 0;
	for (; choices[n].word; n++) {
		if (word && strcmp(word, choices[n].word) == 0) {
			*out = choices[n].value;
			return true;
		}
	}
	char words[128] = "";
	for (size_t i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " or ";
		size_t len = strlen(words);
		snprintf(words + len, sizeof(words) - len, "%s%s", sep, choices[i].word);
	}
	fail("%s wants %s, got '%s'", option, words, word ? word : "");
	return false;
}

enum wbc_parse_result wbc_options_parse(int argc, char **argv, struct wbc_options *o)
{
	*o = (struct wbc_options){ .xwayland = true };
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			fputs(usage_more, stdout);
			return WBC_PARSE_EXIT;
		} else if (strcmp(a, "--version") == 0) {
			printf("wbc %s\n", WBC_VERSION);
			return WBC_PARSE_EXIT;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(a, "--device") == 0) {
			if (!next)
				return fail("%s needs a PATH", a);
			o->device = argv[++i];
		} else if (strcmp(a, "--output") == 0) {
			if (!next)
				return fail("%s needs a connector NAME", a);
			o->output = argv[++i];
		} else if (strcmp(a, "--outputs") == 0) {
			int v;
			if (!parse_choice(a, next, outputs_choices, &v))
				return WBC_PARSE_ERROR;
			o->outputs = (enum wbc_outputs_policy)v;
			i++;
		} else if (strcmp(a, "--record-output") == 0) {
			if (!next || !*next)
				return fail("%s needs an output NAME", a);
			o->record_output = argv[++i];
		} else if (strcmp(a, "--mode") == 0) {
			if (!next || !parse_mode(next, o))
				return fail("--mode wants WxH or WxH@Hz, got '%s'", next ? next : "");
			i++;
		} else if (strcmp(a, "--rotate") == 0) {
			if (!parse_choice(a, next, rotate_choices, &o->rotate))
				return WBC_PARSE_ERROR;
			i++;
		} else if (strcmp(a, "--scale") == 0) {
			if (!next || !parse_scale(next, &o->scale))
				return fail("--scale wants a number from %g to %g, got '%s'", MIN_SCALE,
					MAX_SCALE, next ? next : "");
			i++;
		} else if (strcmp(a, "--allow-output-config") == 0) {
			o->allow_output_config = true;
		} else if (strcmp(a, "--duration") == 0) {
			if (!next || !parse_seconds(next, &o->duration_s))
				return fail("--duration wants SECONDS (0 to %d), got '%s'", MAX_SECONDS,
					next ? next : "");
			i++;
		} else if (strcmp(a, "--screenshot-after") == 0) {
			if (i + 2 >= argc)
				return fail("%s needs SECONDS and a FILE", a);
			if (o->n_screenshots == WBC_MAX_SCREENSHOTS)
				return fail("at most %d %s", WBC_MAX_SCREENSHOTS, a);
			struct wbc_screenshot_request *r = &o->screenshots[o->n_screenshots];
			if (!parse_seconds(argv[i + 1], &r->after_s))
				return fail("--screenshot-after wants SECONDS (0 to %d), got '%s'",
					MAX_SECONDS, argv[i + 1]);
			r->path = argv[i + 2];
			o->n_screenshots++;
			i += 2;
		} else if (strcmp(a, "--record") == 0) {
			if (!next || !*next)
				return fail("%s needs a PATH or URL", a);
			o->record = argv[++i];
		} else if (strcmp(a, "--codec") == 0) {
			if (!next || !*next)
				return fail("%s needs an encoder NAME", a);
			o->codec = argv[++i];
		} else if (strcmp(a, "--container") == 0) {
			if (!next || !*next)
				return fail("%s needs a muxer NAME", a);
			o->container = argv[++i];
		} else if (strcmp(a, "--codec-opt") == 0 || strcmp(a, "--container-opt") == 0) {
			bool codec = strcmp(a, "--codec-opt") == 0;
			size_t *n = codec ? &o->n_codec_opts : &o->n_container_opts;
			const char **list = codec ? o->codec_opts : o->container_opts;
			if (!next || !strchr(next, '=') || next[0] == '=')
				return fail("%s wants KEY=VALUE, got '%s'", a, next ? next : "");
			if (*n == WBC_MAX_AV_OPTS)
				return fail("at most %d %s", WBC_MAX_AV_OPTS, a);
			list[(*n)++] = argv[++i];
		} else if (strcmp(a, "--fps") == 0) {
			if (!next || !parse_seconds(next, &o->fps) || o->fps < MIN_FPS ||
					o->fps > 1000)
				return fail("--fps wants a number of frames per second (%g to 1000), "
					"got '%s'", MIN_FPS, next ? next : "");
			i++;
		} else if (strcmp(a, "--capture") == 0) {
			int v;
			if (!parse_choice(a, next, capture_choices, &v))
				return WBC_PARSE_ERROR;
			o->capture = (enum wbc_capture_choice)v;
			i++;
		} else if (strcmp(a, "--renderer") == 0) {
			int v;
			if (!parse_choice(a, next, renderer_choices, &v))
				return WBC_PARSE_ERROR;
			o->renderer = (enum wbc_renderer_choice)v;
			i++;
		} else if (strcmp(a, "--writeback-pacing") == 0) {
			int v;
			if (!parse_choice(a, next, pacing_choices, &v))
				return WBC_PARSE_ERROR;
			o->pacing = (enum wbc_pacing_choice)v;
			i++;
		} else if (strcmp(a, "--stats") == 0) {
			o->stats = true;
		} else if (strcmp(a, "--allow-control") == 0) {
			o->allow_control = true;
		} else if (strcmp(a, "--control-socket") == 0) {
			if (!next || !*next)
				return fail("%s needs a PATH", a);
			o->control_socket = argv[++i];
			o->allow_control = true;
		} else if (strcmp(a, "--allow-capture") == 0) {
			o->allow_capture = true;
		} else if (strcmp(a, "--blank-after") == 0) {
			if (!next || !parse_seconds(next, &o->blank_after_s) || o->blank_after_s <= 0)
				return fail("--blank-after wants SECONDS (more than 0, at most %d), "
					"got '%s'", MAX_SECONDS, next ? next : "");
			i++;
		} else if (strcmp(a, "--hide-cursor") == 0) {
			if (!next || !parse_seconds(next, &o->hide_cursor_s) || o->hide_cursor_s <= 0)
				return fail("--hide-cursor wants SECONDS (more than 0, at most %d), "
					"got '%s'", MAX_SECONDS, next ? next : "");
			i++;
		} else if (strcmp(a, "--allow-vt-switch") == 0) {
			o->allow_vt_switch = true;
		} else if (strcmp(a, "--no-xwayland") == 0) {
			o->xwayland = false;
		} else if (strcmp(a, "--headless") == 0) {
			o->headless = true;
		} else if (strcmp(a, "--allow-osk") == 0) {
			o->allow_osk = true;
		} else if (strcmp(a, "--allow-remote") == 0) {
			o->allow_remote = true;
			o->allow_capture = true;
		} else if (strcmp(a, "--debug-frame-checksums") == 0) {
			if (!next || !*next)
				return fail("%s needs a FILE", a);
			o->frame_checksums = argv[++i];
		} else if (a[0] == '-') {
			return fail("unknown option '%s'", a);
		} else {
			break;                   /* APP without "--" */
		}
	}
	if (!o->record) {
		const char *needs = o->codec ? "--codec" : o->container ? "--container" :
			o->n_codec_opts ? "--codec-opt" : o->n_container_opts ? "--container-opt" :
			o->fps > 0 ? "--fps" : o->frame_checksums ? "--debug-frame-checksums" : NULL;
		if (needs)
			return fail("%s only makes sense with --record", needs);
		if (o->stats && !o->allow_control)
			return fail("%s", "--stats only makes sense with --record or --allow-control");
	}
	if (o->output && o->record_output && strcmp(o->output, o->record_output) != 0)
		return fail("--record-output %s: wbc drives only --output %s", o->record_output,
			o->output);
	if (o->headless && o->output)
		return fail("%s", "--headless and --output both choose the output: give one");
	if (i >= argc)
		return fail("%s", "no APP given: wbc [options] -- APP [ARGS...]");
	o->app_argv = &argv[i];
	return WBC_PARSE_OK;
}
