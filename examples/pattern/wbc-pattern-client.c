// SPDX-License-Identifier: MIT
/*
 * wbc-pattern-client: a Wayland client that shows the wbc test pattern
 * (include/wbc/pattern.h) with an increasing frame number, one commit per
 * wl_surface.frame callback.  Used to feed known content to the compositor
 * so recordings can be checked frame by frame.
 */
#define _GNU_SOURCE /* memfd_create, getopt_long */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>

#include "wbc/pattern.h"
#include "xdg-shell-client-protocol.h"

#define PROG "wbc-pattern-client"
#define NUM_BUFFERS 3
#define DEFAULT_WIDTH 640u
#define DEFAULT_HEIGHT 480u
#define NSEC_PER_SEC 1000000000LL

#ifdef XDG_TOPLEVEL_WM_CAPABILITIES_SINCE_VERSION
#define XDG_WM_BASE_MAX_VERSION 5u
#elif defined(XDG_TOPLEVEL_CONFIGURE_BOUNDS_SINCE_VERSION)
#define XDG_WM_BASE_MAX_VERSION 4u
#else
#define XDG_WM_BASE_MAX_VERSION 3u
#endif

struct buffer {
	struct wl_buffer *wl;
	void *data;
	size_t size;
	uint32_t width, height, stride;
	bool busy;
};

struct options {
	uint64_t frames;   /* 0: unlimited */
	bool is_static;
	int64_t duration_ns; /* < 0: none */
	bool fps_log;
	bool print_frames;
	uint32_t margin;   /* px of "shadow" around the window geometry */
	bool print_configure;
	uint32_t buffer_scale; /* buffers this many times the configured size; 0: 1 */
};

struct client {
	struct options opt;

	struct wl_display *display;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	uint32_t compositor_version;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;

	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_callback *frame_cb;
	struct buffer buffers[NUM_BUFFERS];

	int32_t pending_width, pending_height; /* from xdg_toplevel.configure */
	uint32_t width, height;                /* size of the next frame */
	bool configured;
	bool ack_pending;
	uint32_t ack_serial;

	bool want_draw;  /* first frame, or a frame callback arrived */
	uint64_t frames_drawn;
	uint32_t next_frame;

	int sigfd;
	int64_t start_ns;
	int64_t next_fps_ns;
	uint64_t fps_frames;

	bool done;
	int exit_code;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void fail(struct client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Report a fatal error (one line on stderr) and stop with exit code 1.
 * Only the first error is reported. */
static void fail(struct client *c, const char *fmt, ...)
{
	if (c->done && c->exit_code != 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	c->done = true;
	c->exit_code = 1;
}

/* Stop for an external reason (duration, signal, close request): success
 * unless --frames N was asked for and not reached. */
static void finish(struct client *c, const char *why)
{
	if (c->done)
		return;
	if (c->opt.frames && c->frames_drawn < c->opt.frames) {
		fail(c, "%s after %" PRIu64 " of %" PRIu64 " frames", why,
		     c->frames_drawn, c->opt.frames);
		return;
	}
	c->done = true;
	c->exit_code = 0;
}

static void connection_lost(struct client *c)
{
	int err = wl_display_get_error(c->display);
	if (err == EPROTO) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(c->display, &iface, &id);
		fail(c, "protocol error on %s@%" PRIu32 ": code %" PRIu32,
		     iface ? iface->name : "unknown", id, code);
	} else {
		fail(c, "lost connection to the Wayland compositor: %s",
		     strerror(err ? err : EPIPE));
	}
}

/* ---- buffers ------------------------------------------------------------ */

static void buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct buffer *b = data;
	(void)wl_buffer;
	b->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

static void buffer_destroy(struct buffer *b)
{
	if (b->wl)
		wl_buffer_destroy(b->wl);
	if (b->data)
		munmap(b->data, b->size);
	*b = (struct buffer){ 0 };
}

static bool buffer_create(struct client *c, struct buffer *b, uint32_t width,
			  uint32_t height)
{
	uint32_t stride = width * 4u;
	size_t size = (size_t)stride * height;
	if (width == 0 || height == 0 || width > 16384 || height > 16384) {
		fail(c, "unsupported surface size %" PRIu32 "x%" PRIu32, width, height);
		return false;
	}

	int fd = memfd_create("wbc-pattern-shm", MFD_CLOEXEC);
	if (fd < 0) {
		fail(c, "memfd_create: %s", strerror(errno));
		return false;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		fail(c, "ftruncate(%zu): %s", size, strerror(errno));
		close(fd);
		return false;
	}
	void *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		fail(c, "mmap(%zu): %s", size, strerror(errno));
		close(fd);
		return false;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(c->shm, fd, (int32_t)size);
	struct wl_buffer *wl = wl_shm_pool_create_buffer(pool, 0, (int32_t)width,
		(int32_t)height, (int32_t)stride, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);

	*b = (struct buffer){
		.wl = wl, .data = data, .size = size,
		.width = width, .height = height, .stride = stride,
	};
	wl_buffer_add_listener(wl, &buffer_listener, b);
	return true;
}

/* A free buffer of the current size, or NULL if all are in use (then a
 * wl_buffer.release will wake the loop up) or on error. */
static struct buffer *get_buffer(struct client *c)
{
	struct buffer *spare = NULL;
	uint32_t bs = c->opt.buffer_scale ? c->opt.buffer_scale : 1;
	uint32_t w = c->width * bs + 2 * c->opt.margin, h = c->height * bs + 2 * c->opt.margin;
	for (int i = 0; i < NUM_BUFFERS; i++) {
		struct buffer *b = &c->buffers[i];
		if (b->busy)
			continue;
		if (b->wl && b->width == w && b->height == h)
			return b;
		if (!spare)
			spare = b;
	}
	if (!spare)
		return NULL;
	buffer_destroy(spare);
	return buffer_create(c, spare, w, h) ? spare : NULL;
}

/* The pattern inside the window geometry; around it, with --margin, what a client-side
 * shadow would be: pixels outside the geometry, which a kiosk must not show at the
 * screen's edge (magenta, so that a frame showing them is plainly wrong). */
static void draw(struct client *c, struct buffer *b, uint32_t frame)
{
	uint32_t m = c->opt.margin;
	if (m) {
		for (uint32_t y = 0; y < b->height; y++) {
			uint32_t *row = (uint32_t *)((char *)b->data + (size_t)y * b->stride);
			for (uint32_t x = 0; x < b->width; x++)
				row[x] = 0xffff00ffu;
		}
		xdg_surface_set_window_geometry(c->xdg_surface, (int32_t)m, (int32_t)m,
			(int32_t)c->width, (int32_t)c->height);
	}
	wbc_pattern_draw((char *)b->data + (size_t)m * b->stride + m * 4u, b->stride,
		b->width - 2 * m, b->height - 2 * m, frame);
}

/* ---- drawing ------------------------------------------------------------ */

static void frame_done(void *data, struct wl_callback *cb, uint32_t time);

static const struct wl_callback_listener frame_listener = {
	.done = frame_done,
};

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;
	(void)time;
	wl_callback_destroy(cb);
	c->frame_cb = NULL;
	if (c->opt.frames && c->frames_drawn >= c->opt.frames) {
		/* The last frame has been shown: done. */
		finish(c, "done");
		return;
	}
	c->want_draw = true;
}

static void maybe_draw(struct client *c)
{
	if (c->done || !c->configured || !c->want_draw)
		return;
	if (c->opt.is_static && c->frames_drawn >= 1)
		return;
	if (c->opt.frames && c->frames_drawn >= c->opt.frames)
		return;

	struct buffer *b = get_buffer(c);
	if (!b)
		return;

	uint32_t frame = c->next_frame;
	draw(c, b, frame);
	if (c->opt.print_frames) {
		printf("frame %" PRIu32 "\n", frame);
		fflush(stdout);
	}

	if (c->ack_pending) {
		xdg_surface_ack_configure(c->xdg_surface, c->ack_serial);
		c->ack_pending = false;
	}
	if (c->opt.buffer_scale > 1)
		wl_surface_set_buffer_scale(c->surface, (int32_t)c->opt.buffer_scale);
	wl_surface_attach(c->surface, b->wl, 0, 0);
	if (c->compositor_version >= WL_SURFACE_DAMAGE_BUFFER_SINCE_VERSION)
		wl_surface_damage_buffer(c->surface, 0, 0, (int32_t)b->width,
					 (int32_t)b->height);
	else
		wl_surface_damage(c->surface, 0, 0, (int32_t)b->width,
				  (int32_t)b->height);
	c->frame_cb = wl_surface_frame(c->surface);
	wl_callback_add_listener(c->frame_cb, &frame_listener, c);
	wl_surface_commit(c->surface);

	b->busy = true;
	c->want_draw = false;
	c->frames_drawn++;
	c->next_frame++;
	c->fps_frames++;
}

/* ---- xdg-shell ---------------------------------------------------------- */

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	(void)data;
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface,
				  uint32_t serial)
{
	struct client *c = data;
	if (c->pending_width > 0 && c->pending_height > 0) {
		c->width = (uint32_t)c->pending_width;
		c->height = (uint32_t)c->pending_height;
	}
	/* else: 0x0 means "client's choice": keep the current size
	 * (DEFAULT_WIDTH x DEFAULT_HEIGHT at first). */
	c->configured = true;
	if (c->opt.is_static && c->frames_drawn >= 1) {
		/* Never commit again: acknowledge, keep the old content. */
		xdg_surface_ack_configure(xdg_surface, serial);
		return;
	}
	/* Acknowledged right before the commit that applies it. */
	c->ack_pending = true;
	c->ack_serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel,
			       int32_t width, int32_t height, struct wl_array *states)
{
	struct client *c = data;
	(void)toplevel;
	(void)states;
	c->pending_width = width;
	c->pending_height = height;
	if (c->opt.print_configure) {
		printf("configure %" PRId32 " %" PRId32 "\n", width, height);
		fflush(stdout);
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	(void)toplevel;
	finish(data, "compositor closed the window");
}

#if XDG_WM_BASE_MAX_VERSION >= 4
static void toplevel_configure_bounds(void *data, struct xdg_toplevel *toplevel,
				      int32_t width, int32_t height)
{
	(void)data;
	(void)toplevel;
	(void)width;
	(void)height;
}
#endif

#if XDG_WM_BASE_MAX_VERSION >= 5
static void toplevel_wm_capabilities(void *data, struct xdg_toplevel *toplevel,
				     struct wl_array *caps)
{
	(void)data;
	(void)toplevel;
	(void)caps;
}
#endif

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
#if XDG_WM_BASE_MAX_VERSION >= 4
	.configure_bounds = toplevel_configure_bounds,
#endif
#if XDG_WM_BASE_MAX_VERSION >= 5
	.wm_capabilities = toplevel_wm_capabilities,
#endif
};

/* ---- registry ----------------------------------------------------------- */

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void registry_global(void *data, struct wl_registry *registry,
			    uint32_t name, const char *interface, uint32_t version)
{
	struct client *c = data;
	if (!c->compositor && strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor_version = min_u32(version, 4);
		c->compositor = wl_registry_bind(registry, name,
			&wl_compositor_interface, c->compositor_version);
	} else if (!c->shm && strcmp(interface, wl_shm_interface.name) == 0) {
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (!c->wm_base && strcmp(interface, xdg_wm_base_interface.name) == 0) {
		c->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface,
			min_u32(version, XDG_WM_BASE_MAX_VERSION));
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
				   uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS]\n"
		"Show the wbc test pattern, one new frame per frame callback.\n"
		"\n"
		"  --frames N        exit 0 once N frames were drawn and the last one\n"
		"                    was shown (its frame callback fired)\n"
		"  --static          draw frame 0 once, then never commit again\n"
		"  --duration SECS   stop after SECS seconds (exit 0, or 1 if --frames N\n"
		"                    was not reached by then)\n"
		"  --fps-log         print \"fps N total M\" to stdout once a second\n"
		"  --print-frames    print \"frame N\" to stdout for every frame drawn\n"
		"  --margin PX       draw PX pixels around the window geometry (as a\n"
		"                    client-side shadow): the pattern fills the geometry\n"
		"  --print-configure print \"configure W H\" to stdout for every toplevel\n"
		"                    configure (0 0: the client's choice)\n"
		"  --buffer-scale N  draw buffers N times the configured size, with\n"
		"                    wl_surface.set_buffer_scale N (a scaled output)\n"
		"  --help            show this help\n");
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	enum { OPT_FRAMES = 1, OPT_STATIC, OPT_DURATION, OPT_FPS_LOG,
	       OPT_PRINT_FRAMES, OPT_MARGIN, OPT_PRINT_CONFIGURE, OPT_BUFFER_SCALE,
	       OPT_HELP };
	static const struct option longopts[] = {
		{ "frames", required_argument, NULL, OPT_FRAMES },
		{ "static", no_argument, NULL, OPT_STATIC },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "fps-log", no_argument, NULL, OPT_FPS_LOG },
		{ "print-frames", no_argument, NULL, OPT_PRINT_FRAMES },
		{ "margin", required_argument, NULL, OPT_MARGIN },
		{ "print-configure", no_argument, NULL, OPT_PRINT_CONFIGURE },
		{ "buffer-scale", required_argument, NULL, OPT_BUFFER_SCALE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};

	*opt = (struct options){ .duration_ns = -1 };
	int ch;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		char *end = NULL;
		switch (ch) {
		case OPT_FRAMES: {
			errno = 0;
			unsigned long long n = strtoull(optarg, &end, 10);
			if (errno || !end || *end || n == 0 || optarg[0] == '-') {
				fprintf(stderr, PROG ": --frames needs a positive integer, got '%s'\n",
					optarg);
				return -1;
			}
			opt->frames = n;
			break;
		}
		case OPT_STATIC:
			opt->is_static = true;
			break;
		case OPT_DURATION: {
			errno = 0;
			double s = strtod(optarg, &end);
			if (errno || !end || *end || !(s > 0) || s > 1e6) {
				fprintf(stderr, PROG ": --duration needs a positive number of seconds, got '%s'\n",
					optarg);
				return -1;
			}
			opt->duration_ns = (int64_t)(s * (double)NSEC_PER_SEC);
			break;
		}
		case OPT_FPS_LOG:
			opt->fps_log = true;
			break;
		case OPT_PRINT_CONFIGURE:
			opt->print_configure = true;
			break;
		case OPT_PRINT_FRAMES:
			opt->print_frames = true;
			break;
		case OPT_MARGIN: {
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || !end || *end || n > 256 || optarg[0] == '-' || !optarg[0]) {
				fprintf(stderr, PROG ": --margin needs 0 to 256 pixels, got '%s'\n",
					optarg);
				return -1;
			}
			opt->margin = (uint32_t)n;
			break;
		}
		case OPT_BUFFER_SCALE: {
			errno = 0;
			unsigned long n = strtoul(optarg, &end, 10);
			if (errno || !end || *end || n < 1 || n > 8 || optarg[0] == '-') {
				fprintf(stderr, PROG ": --buffer-scale needs 1 to 8, got '%s'\n",
					optarg);
				return -1;
			}
			opt->buffer_scale = (uint32_t)n;
			break;
		}
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opt->buffer_scale > 1 && opt->margin) {
		fprintf(stderr, PROG ": --buffer-scale and --margin are mutually exclusive\n");
		return -1;
	}
	if (opt->is_static && opt->frames) {
		fprintf(stderr, PROG ": --static and --frames are mutually exclusive\n");
		return -1;
	}
	return 0;
}

/* ---- main loop ---------------------------------------------------------- */

static void handle_timers(struct client *c)
{
	int64_t now = now_ns();
	if (c->opt.fps_log) {
		while (now >= c->next_fps_ns) {
			printf("fps %" PRIu64 " total %" PRIu64 "\n", c->fps_frames,
			       c->frames_drawn);
			fflush(stdout);
			c->fps_frames = 0;
			c->next_fps_ns += NSEC_PER_SEC;
		}
	}
	if (c->opt.duration_ns >= 0 && now - c->start_ns >= c->opt.duration_ns)
		finish(c, "duration elapsed");
}

static int poll_timeout_ms(const struct client *c)
{
	int64_t next = -1;
	if (c->opt.fps_log)
		next = c->next_fps_ns;
	if (c->opt.duration_ns >= 0) {
		int64_t end = c->start_ns + c->opt.duration_ns;
		if (next < 0 || end < next)
			next = end;
	}
	if (next < 0)
		return -1;
	int64_t left = next - now_ns();
	if (left <= 0)
		return 0;
	return (int)((left + 999999) / 1000000);
}

static void handle_signal(struct client *c)
{
	struct signalfd_siginfo si;
	if (read(c->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		finish(c, si.ssi_signo == SIGINT ? "interrupted" : "terminated");
}

static void run(struct client *c)
{
	while (!c->done) {
		maybe_draw(c);
		if (c->done)
			break;

		while (wl_display_prepare_read(c->display) != 0) {
			if (wl_display_dispatch_pending(c->display) < 0) {
				connection_lost(c);
				return;
			}
		}
		short events = POLLIN;
		if (wl_display_flush(c->display) < 0) {
			if (errno != EAGAIN) {
				wl_display_cancel_read(c->display);
				connection_lost(c);
				return;
			}
			events |= POLLOUT;
		}

		struct pollfd fds[2] = {
			{ .fd = wl_display_get_fd(c->display), .events = events },
			{ .fd = c->sigfd, .events = POLLIN },
		};
		int n = poll(fds, 2, poll_timeout_ms(c));
		if (n < 0) {
			wl_display_cancel_read(c->display);
			if (errno == EINTR)
				continue;
			fail(c, "poll: %s", strerror(errno));
			return;
		}
		if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) {
			if (wl_display_read_events(c->display) < 0) {
				connection_lost(c);
				return;
			}
		} else {
			wl_display_cancel_read(c->display);
		}
		if (wl_display_dispatch_pending(c->display) < 0) {
			connection_lost(c);
			return;
		}
		if (fds[1].revents & POLLIN)
			handle_signal(c);
		handle_timers(c);
	}
}

static int setup(struct client *c)
{
	const char *name = getenv("WAYLAND_DISPLAY");
	c->display = wl_display_connect(NULL);
	if (!c->display) {
		fail(c, "cannot connect to Wayland display '%s': %s",
		     name ? name : "wayland-0", strerror(errno));
		return -1;
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0) {
		connection_lost(c);
		return -1;
	}
	if (!c->compositor || !c->shm || !c->wm_base) {
		fail(c, "compositor lacks required globals:%s%s%s",
		     c->compositor ? "" : " wl_compositor",
		     c->shm ? "" : " wl_shm",
		     c->wm_base ? "" : " xdg_wm_base");
		return -1;
	}

	c->surface = wl_compositor_create_surface(c->compositor);
	c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
	xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
	c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
	xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
	xdg_toplevel_set_title(c->toplevel, PROG);
	xdg_toplevel_set_app_id(c->toplevel, PROG);
	wl_surface_commit(c->surface); /* initial commit, no buffer: ask for configure */
	return 0;
}

static void teardown(struct client *c)
{
	if (c->frame_cb)
		wl_callback_destroy(c->frame_cb);
	for (int i = 0; i < NUM_BUFFERS; i++)
		buffer_destroy(&c->buffers[i]);
	if (c->toplevel)
		xdg_toplevel_destroy(c->toplevel);
	if (c->xdg_surface)
		xdg_surface_destroy(c->xdg_surface);
	if (c->surface)
		wl_surface_destroy(c->surface);
	if (c->wm_base)
		xdg_wm_base_destroy(c->wm_base);
	if (c->shm)
		wl_shm_destroy(c->shm);
	if (c->compositor)
		wl_compositor_destroy(c->compositor);
	if (c->registry)
		wl_registry_destroy(c->registry);
	if (c->display) {
		wl_display_flush(c->display);
		wl_display_disconnect(c->display);
	}
	if (c->sigfd >= 0)
		close(c->sigfd);
}

int main(int argc, char **argv)
{
	struct client c = {
		.width = DEFAULT_WIDTH,
		.height = DEFAULT_HEIGHT,
		.want_draw = true,
		.sigfd = -1,
	};
	if (parse_options(argc, argv, &c.opt) < 0)
		return 2;

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (c.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		fprintf(stderr, PROG ": signalfd: %s\n", strerror(errno));
		return 1;
	}

	c.start_ns = now_ns();
	c.next_fps_ns = c.start_ns + NSEC_PER_SEC;
	if (setup(&c) == 0)
		run(&c);
	teardown(&c);
	return c.exit_code;
}
