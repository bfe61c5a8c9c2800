/*
 * wbc-wlcs.so: wbc's compositor core under wlcs, the Wayland Conformance Suites
 * (wlcs/display_server.h). One core per wlcs server: created (wbc_server_init with
 * opts.embedded: wlroots' headless backend, one output, no session, socket, signal handler
 * or APP) on wlcs' thread in create_server, run on a thread of ours between start and
 * stop, torn down in destroy_server after that thread is joined.
 *
 * Threading: wlroots is single-threaded, and wlcs calls in from its test thread (wlcs
 * 1.5.0 calls touch devices directly even when given start_on_this_thread, so that entry
 * is no help). While the loop runs, every call that touches the core is handed to the
 * server thread (call_on_server: an eventfd in the core's loop) and waited for; before
 * start and after stop the caller runs it itself, once the server thread is joined.
 * Input goes in as headless input devices' events, through wbc's own cursor, seat, focus
 * and scene code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <wayland-client-core.h>
#include <wayland-client-protocol.h>
#include <wayland-server-core.h>
#include <wlr/backend/headless.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/box.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>
#include "shell/server.h"
#include "util/log.h"

#define OUTPUT_WIDTH 1920
#define OUTPUT_HEIGHT 1080
#define MAX_EXTENSIONS 64

/* One per create_server; owned by wlcs, freed by destroy_server. */
struct wbc_wlcs {
	WlcsDisplayServer base;
	struct wbc_options opts;
	struct wbc_server server;        /* wbc_server_finish'ed in destroy_server */
	bool ready;                      /* wbc_server_init succeeded */
	pthread_t thread;
	bool joinable;                   /* thread started and not joined yet */
	int wake_fd;                     /* eventfd, owned: a call is waiting */
	struct wl_event_source *wake;    /* in the core's loop */
	pthread_mutex_t call_lock;       /* one call in flight at a time */
	pthread_mutex_t lock;            /* guards running and the call below */
	pthread_cond_t done_cond;
	bool running;                    /* the server thread dispatches calls */
	void (*call)(struct wbc_wlcs *ws, void *data);
	void *call_data;
	bool call_done;
	struct wl_list clients;          /* wlcs_client.link, newest first */
	struct wl_protocol_logger *unacked; /* wlcs 1.5.0's unacked first buffer, see below */
	int32_t next_touch_id;
	WlcsIntegrationDescriptor descriptor;
	size_t n_extensions;
	WlcsExtensionDescriptor extensions[MAX_EXTENSIONS];
	char names[MAX_EXTENSIONS][64];
};

/* A client made by create_client_socket; freed when its wl_client is destroyed. */
struct wlcs_client {
	struct wl_client *client;        /* the core's */
	int fd;                          /* wlcs' end (wlcs owns it): how wlcs names the client */
	struct wl_listener destroy;
	struct wl_list link;
};

/* A fake input device; owned by wlcs (its destroy), the device by the headless backend. */
struct wlcs_device {
	union {
		WlcsPointer pointer;
		WlcsTouch touch;
	};
	struct wbc_wlcs *ws;
	struct wlr_input_device *device; /* NULL once the backend destroyed it */
	struct wl_listener device_destroy;
	int32_t touch_id;
};

/* ---- Calls into the server thread ------------------------------------------------------ */

typedef void (*server_call)(struct wbc_wlcs *ws, void *data);

static int handle_wake(int fd, uint32_t mask, void *data)
{
	struct wbc_wlcs *ws = data;
	uint64_t n;
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		wbc_log(WLR_ERROR, "wlcs: reading the call eventfd: %s", strerror(errno));
	pthread_mutex_lock(&ws->lock);
	server_call call = ws->call;
	void *call_data = ws->call_data;
	ws->call = NULL;
	pthread_mutex_unlock(&ws->lock);
	if (!call)
		return 0;
	call(ws, call_data);
	pthread_mutex_lock(&ws->lock);
	ws->call_done = true;
	pthread_cond_signal(&ws->done_cond);
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

static void join_server(struct wbc_wlcs *ws)
{
	if (!ws->joinable)
		return;
	pthread_join(ws->thread, NULL);
	ws->joinable = false;
}

/* Run call(ws, data) where the core may be used: on the server thread while it runs,
 * else here (after the server thread has ended). Returns once it has run. */
static void call_on_server(struct wbc_wlcs *ws, server_call call, void *data)
{
	pthread_mutex_lock(&ws->call_lock);
	pthread_mutex_lock(&ws->lock);
	if (!ws->running) {
		pthread_mutex_unlock(&ws->lock);
		join_server(ws);
		call(ws, data);
		pthread_mutex_unlock(&ws->call_lock);
		return;
	}
	ws->call = call;
	ws->call_data = data;
	ws->call_done = false;
	pthread_mutex_unlock(&ws->lock);
	uint64_t one = 1;
	if (write(ws->wake_fd, &one, sizeof(one)) < 0)
		wbc_log(WLR_ERROR, "wlcs: writing the call eventfd: %s", strerror(errno));
	pthread_mutex_lock(&ws->lock);
	while (!ws->call_done)
		pthread_cond_wait(&ws->done_cond, &ws->lock);
	pthread_mutex_unlock(&ws->lock);
	pthread_mutex_unlock(&ws->call_lock);
}

static uint32_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

/* ---- Start and stop -------------------------------------------------------------------- */

static void *server_main(void *data)
{
	struct wbc_wlcs *ws = data;
	wbc_server_run(&ws->server);
	return NULL;
}

static void wlcs_start(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	if (!ws->ready)
		return;                      /* create_server said why; every call fails */
	pthread_mutex_lock(&ws->lock);
	ws->running = true;
	pthread_mutex_unlock(&ws->lock);
	int err = pthread_create(&ws->thread, NULL, server_main, ws);
	if (err) {
		wbc_log(WLR_ERROR, "wlcs: cannot start the server thread: %s", strerror(err));
		ws->running = false;
		return;
	}
	ws->joinable = true;
}

/* On the server thread: no call is taken after this one, and the loop ends. */
static void do_stop(struct wbc_wlcs *ws, void *data)
{
	pthread_mutex_lock(&ws->lock);
	bool was_running = ws->running;
	ws->running = false;
	pthread_mutex_unlock(&ws->lock);
	if (was_running)
		wbc_server_stop(&ws->server, 0);
}

static void wlcs_stop(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	call_on_server(ws, do_stop, NULL);
	join_server(ws);
}

/* ---- Clients --------------------------------------------------------------------------- */

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct wlcs_client *c = wl_container_of(listener, c, destroy);
	wl_list_remove(&c->link);
	free(c);
}

struct socket_call {
	int fd;                          /* out: wlcs' end, or -1 */
};

static void do_create_client(struct wbc_wlcs *ws, void *data)
{
	struct socket_call *sc = data;
	int fds[2];
	sc->fd = -1;
	struct wlcs_client *c = calloc(1, sizeof(*c));
	if (!c || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		wbc_log(WLR_ERROR, "wlcs: cannot make a client socket: %s", strerror(errno));
		free(c);
		return;
	}
	c->client = wl_client_create(ws->server.display, fds[0]);   /* owns fds[0] */
	if (!c->client) {
		wbc_log(WLR_ERROR, "wlcs: wl_client_create failed");
		close(fds[0]);
		close(fds[1]);
		free(c);
		return;
	}
	c->fd = sc->fd = fds[1];
	c->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(c->client, &c->destroy);
	wl_list_insert(&ws->clients, &c->link);
}

static int wlcs_create_client_socket(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	struct socket_call sc = { .fd = -1 };
	if (ws->ready)
		call_on_server(ws, do_create_client, &sc);
	return sc.fd;
}

struct position_call {
	int fd;                          /* the client's wl_display fd */
	uint32_t id;                     /* its wl_surface's object id */
	int x, y;
};

static struct wlr_surface *find_surface(struct wbc_wlcs *ws, int fd, uint32_t id)
{
	struct wlcs_client *c;
	wl_list_for_each(c, &ws->clients, link) {
		if (c->fd != fd)
			continue;
		struct wl_resource *r = wl_client_get_object(c->client, id);
		if (!r || strcmp(wl_resource_get_class(r), "wl_surface") != 0)
			return NULL;
		return wlr_surface_from_resource(r);
	}
	return NULL;
}

static void do_position(struct wbc_wlcs *ws, void *data)
{
	struct position_call *pc = data;
	struct wlr_surface *surface = find_surface(ws, pc->fd, pc->id);
	if (!surface || wbc_xdg_move(&ws->server, surface, pc->x, pc->y) < 0)
		wbc_log(WLR_ERROR, "wlcs: position_window_absolute: wl_surface %u of the client "
			"on fd %d is no toplevel of wbc's", pc->id, pc->fd);
}

static void wlcs_position_window_absolute(WlcsDisplayServer *base, struct wl_display *client,
		struct wl_surface *surface, int x, int y)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	/* Read on wlcs' side (client objects): the fd names the client, the id its surface. */
	struct position_call pc = { .fd = wl_display_get_fd(client),
		.id = wl_proxy_get_id((struct wl_proxy *)surface), .x = x, .y = y };
	if (ws->ready)
		call_on_server(ws, do_position, &pc);
}

/* ---- Input devices ----------------------------------------------------------------------- */

static void handle_device_destroy(struct wl_listener *listener, void *data)
{
	struct wlcs_device *d = wl_container_of(listener, d, device_destroy);
	wl_list_remove(&d->device_destroy.link);
	d->device = NULL;
}

struct device_call {
	struct wlcs_device *d;
	enum wlr_input_device_type type;
	wl_fixed_t x, y;                 /* position or motion, compositor coordinates */
	uint32_t button;
	bool pressed;
};

static void do_add_device(struct wbc_wlcs *ws, void *data)
{
	struct device_call *dc = data;
	dc->d->device = wlr_headless_add_input_device(ws->server.backend, dc->type);
	if (!dc->d->device) {
		wbc_log(WLR_ERROR, "wlcs: cannot add a headless input device");
		return;
	}
	dc->d->device_destroy.notify = handle_device_destroy;
	wl_signal_add(&dc->d->device->events.destroy, &dc->d->device_destroy);
}

static void do_remove_device(struct wbc_wlcs *ws, void *data)
{
	struct wlcs_device *d = data;
	if (d->device)
		wlr_input_device_destroy(d->device);   /* handle_device_destroy unhooks us */
}

static struct wlcs_device *add_device(struct wbc_wlcs *ws, enum wlr_input_device_type type)
{
	struct wlcs_device *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->ws = ws;
	struct device_call dc = { .d = d, .type = type };
	if (ws->ready)
		call_on_server(ws, do_add_device, &dc);
	return d;                        /* without a device its events go nowhere */
}

static void remove_device(struct wlcs_device *d)
{
	call_on_server(d->ws, do_remove_device, d);
	free(d);
}

/* Compositor coordinates to the 0..1 of absolute events (over the whole layout). */
static void to_unit(struct wbc_wlcs *ws, wl_fixed_t x, wl_fixed_t y, double *ux, double *uy)
{
	struct wlr_box *box = wlr_output_layout_get_box(ws->server.layout, NULL);
	*ux = box && box->width > 0 ? (wl_fixed_to_double(x) - box->x) / box->width : 0;
	*uy = box && box->height > 0 ? (wl_fixed_to_double(y) - box->y) / box->height : 0;
}

static void do_pointer_absolute(struct wbc_wlcs *ws, void *data)
{
	struct device_call *dc = data;
	struct wlr_input_device *dev = dc->d->device;
	if (!dev)
		return;
	struct wlr_event_pointer_motion_absolute ev = { .device = dev, .time_msec = now_ms() };
	to_unit(ws, dc->x, dc->y, &ev.x, &ev.y);
	wl_signal_emit(&dev->pointer->events.motion_absolute, &ev);
	wl_signal_emit(&dev->pointer->events.frame, dev->pointer);
}

static void do_pointer_relative(struct wbc_wlcs *ws, void *data)
{
	struct device_call *dc = data;
	struct wlr_input_device *dev = dc->d->device;
	if (!dev)
		return;
	double dx = wl_fixed_to_double(dc->x), dy = wl_fixed_to_double(dc->y);
	struct wlr_event_pointer_motion ev = { .device = dev, .time_msec = now_ms(),
		.delta_x = dx, .delta_y = dy, .unaccel_dx = dx, .unaccel_dy = dy };
	wl_signal_emit(&dev->pointer->events.motion, &ev);
	wl_signal_emit(&dev->pointer->events.frame, dev->pointer);
}

static void do_pointer_button(struct wbc_wlcs *ws, void *data)
{
	struct device_call *dc = data;
	struct wlr_input_device *dev = dc->d->device;
	if (!dev)
		return;
	struct wlr_event_pointer_button ev = { .device = dev, .time_msec = now_ms(),
		.button = dc->button,
		.state = dc->pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED };
	wl_signal_emit(&dev->pointer->events.button, &ev);
	wl_signal_emit(&dev->pointer->events.frame, dev->pointer);
}

static struct wlcs_device *of_pointer(WlcsPointer *p)
{
	return wl_container_of(p, (struct wlcs_device *)NULL, pointer);
}

static void pointer_move_absolute(WlcsPointer *p, wl_fixed_t x, wl_fixed_t y)
{
	struct device_call dc = { .d = of_pointer(p), .x = x, .y = y };
	call_on_server(dc.d->ws, do_pointer_absolute, &dc);
}

static void pointer_move_relative(WlcsPointer *p, wl_fixed_t dx, wl_fixed_t dy)
{
	struct device_call dc = { .d = of_pointer(p), .x = dx, .y = dy };
	call_on_server(dc.d->ws, do_pointer_relative, &dc);
}

static void pointer_button_down(WlcsPointer *p, int button)
{
	struct device_call dc = { .d = of_pointer(p), .button = (uint32_t)button,
		.pressed = true };
	call_on_server(dc.d->ws, do_pointer_button, &dc);
}

static void pointer_button_up(WlcsPointer *p, int button)
{
	struct device_call dc = { .d = of_pointer(p), .button = (uint32_t)button };
	call_on_server(dc.d->ws, do_pointer_button, &dc);
}

static void pointer_destroy(WlcsPointer *p)
{
	remove_device(of_pointer(p));
}

static WlcsPointer *wlcs_create_pointer(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	struct wlcs_device *d = add_device(ws, WLR_INPUT_DEVICE_POINTER);
	if (!d)
		return NULL;
	d->pointer = (WlcsPointer){ .version = 1, .move_absolute = pointer_move_absolute,
		.move_relative = pointer_move_relative, .button_up = pointer_button_up,
		.button_down = pointer_button_down, .destroy = pointer_destroy };
	return &d->pointer;
}

static void do_touch(struct wbc_wlcs *ws, void *data)
{
	struct device_call *dc = data;
	struct wlr_input_device *dev = dc->d->device;
	if (!dev)
		return;
	struct wlr_touch *t = dev->touch;
	uint32_t time = now_ms();
	if (!dc->pressed) {
		struct wlr_event_touch_up ev = { .device = dev, .time_msec = time,
			.touch_id = dc->d->touch_id };
		wl_signal_emit(&t->events.up, &ev);
	} else if (dc->button) {         /* button: 1 for down, 0 for motion */
		struct wlr_event_touch_down ev = { .device = dev, .time_msec = time,
			.touch_id = dc->d->touch_id };
		to_unit(ws, dc->x, dc->y, &ev.x, &ev.y);
		wl_signal_emit(&t->events.down, &ev);
	} else {
		struct wlr_event_touch_motion ev = { .device = dev, .time_msec = time,
			.touch_id = dc->d->touch_id };
		to_unit(ws, dc->x, dc->y, &ev.x, &ev.y);
		wl_signal_emit(&t->events.motion, &ev);
	}
	wl_signal_emit(&t->events.frame, NULL);
}

static struct wlcs_device *of_touch(WlcsTouch *t)
{
	return wl_container_of(t, (struct wlcs_device *)NULL, touch);
}

/* wlcs 1.5.0 (to 1.8 at least) hands touch positions over as plain ints in the
 * wl_fixed_t parameters (wlcs::Touch::down_at(int x, int y) passes x, y as they are),
 * unlike pointer positions: taken as whole pixels. */
static void touch_down(WlcsTouch *t, wl_fixed_t x, wl_fixed_t y)
{
	struct device_call dc = { .d = of_touch(t), .x = wl_fixed_from_int(x),
		.y = wl_fixed_from_int(y), .button = 1, .pressed = true };
	call_on_server(dc.d->ws, do_touch, &dc);
}

static void touch_move(WlcsTouch *t, wl_fixed_t x, wl_fixed_t y)
{
	struct device_call dc = { .d = of_touch(t), .x = wl_fixed_from_int(x),
		.y = wl_fixed_from_int(y), .pressed = true };
	call_on_server(dc.d->ws, do_touch, &dc);
}

static void touch_up(WlcsTouch *t)
{
	struct device_call dc = { .d = of_touch(t) };
	call_on_server(dc.d->ws, do_touch, &dc);
}

static void touch_destroy(WlcsTouch *t)
{
	remove_device(of_touch(t));
}

static WlcsTouch *wlcs_create_touch(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	struct wlcs_device *d = add_device(ws, WLR_INPUT_DEVICE_TOUCH);
	if (!d)
		return NULL;
	d->touch_id = ws->next_touch_id++;  /* wlcs' touch devices are not concurrent calls */
	d->touch = (WlcsTouch){ .version = 1, .touch_down = touch_down,
		.touch_move = touch_move, .touch_up = touch_up, .destroy = touch_destroy };
	return &d->touch;
}

/* ---- wlcs 1.5.0's window helper ----------------------------------------------------------
 * wlcs 1.5.0 (Debian 12) makes its windows by committing the new toplevel and attaching
 * its first buffer at once, without waiting for and acking the initial configure; xdg-shell
 * forbids that and wlroots disconnects the client ("xdg_surface has never been
 * configured"), which would fail every test that makes a window. wlcs fixed its helper
 * upstream (canonical/wlcs 2a5bfbc, "Fix xdg_shell window construction", 2023). Until
 * Debian ships it, a toplevel's or popup's commit that attaches a buffer before any ack
 * is let through as if the client had acked: only here, never in wbc. (Its own test
 * builders do the same thing in their first commit.) */

static void tolerate_unacked(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST || strcmp(m->message->name, "commit") != 0 ||
			strcmp(wl_resource_get_class(m->resource), "wl_surface") != 0)
		return;
	struct wlr_surface *surface = wlr_surface_from_resource(m->resource);
	if (!wlr_surface_is_xdg_surface(surface))
		return;
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
	bool attaches = (surface->pending.committed & WLR_SURFACE_STATE_BUFFER) &&
		surface->pending.buffer;
	if (xdg && xdg->role != WLR_XDG_SURFACE_ROLE_NONE && !xdg->configured && attaches)
		xdg->configured = true;
}

/* ---- The descriptor: the globals the core really has --------------------------------- */

static bool record_global(const struct wl_client *client, const struct wl_global *global,
		void *data)
{
	struct wbc_wlcs *ws = data;
	const struct wl_interface *iface = wl_global_get_interface(global);
	if (ws->n_extensions == MAX_EXTENSIONS)
		return true;
	char *name = ws->names[ws->n_extensions];
	snprintf(name, sizeof(ws->names[0]), "%s", iface->name);
	ws->extensions[ws->n_extensions++] = (WlcsExtensionDescriptor){ .name = name,
		.version = wl_global_get_version(global) };
	return true;
}

/* Asks the core's registry, as a client would, before the loop runs (on this thread). */
static int list_globals(struct wbc_wlcs *ws)
{
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -1;
	struct wl_client *client = wl_client_create(ws->server.display, fds[0]);
	struct wl_display *peer = wl_display_connect_to_fd(fds[1]);
	if (!client || !peer) {
		if (!client)
			close(fds[0]);
		if (peer)
			wl_display_disconnect(peer);
		else
			close(fds[1]);
		if (client)
			wl_client_destroy(client);
		return -1;
	}
	wl_display_set_global_filter(ws->server.display, record_global, ws);
	struct wl_proxy *registry = (struct wl_proxy *)wl_display_get_registry(peer);
	wl_display_flush(peer);
	wl_event_loop_dispatch(ws->server.loop, 1000);   /* the get_registry request */
	wl_display_set_global_filter(ws->server.display, NULL, NULL);
	wl_proxy_destroy(registry);
	wl_display_disconnect(peer);
	wl_client_destroy(client);
	ws->descriptor = (WlcsIntegrationDescriptor){ .version = 1,
		.num_extensions = ws->n_extensions, .supported_extensions = ws->extensions };
	return ws->n_extensions ? 0 : -1;
}

static const WlcsIntegrationDescriptor *wlcs_get_descriptor(const WlcsDisplayServer *base)
{
	const struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	return &ws->descriptor;
}

/* ---- Create and destroy ------------------------------------------------------------------ */

static int setup_core(struct wbc_wlcs *ws)
{
	ws->opts = (struct wbc_options){ .embedded = true, .embedded_width = OUTPUT_WIDTH,
		.embedded_height = OUTPUT_HEIGHT, .windowed = true,
		.verbose = getenv("WBC_WLCS_VERBOSE") != NULL };
	wbc_log_setup(ws->opts.verbose);
	if (wbc_server_init(&ws->server, &ws->opts) < 0)
		return -1;
	ws->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ws->wake = ws->wake_fd < 0 ? NULL : wl_event_loop_add_fd(ws->server.loop, ws->wake_fd,
		WL_EVENT_READABLE, handle_wake, ws);
	if (!ws->wake) {
		wbc_log(WLR_ERROR, "wlcs: cannot make the call eventfd: %s", strerror(errno));
		return -1;
	}
	ws->unacked = wl_display_add_protocol_logger(ws->server.display, tolerate_unacked, ws);
	if (!ws->unacked) {
		wbc_log(WLR_ERROR, "wlcs: cannot watch wl_surface.commit");
		return -1;
	}
	/* The seat has a keyboard, a pointer and a touchscreen from the start, as a machine
	 * with all three plugged in: wlcs' client asks for a new wl_pointer (and so gets a
	 * second enter) on every capabilities event, so they must not change as tests add
	 * their devices. These three stay idle; the backend owns them. */
	const enum wlr_input_device_type idle[] = { WLR_INPUT_DEVICE_KEYBOARD,
		WLR_INPUT_DEVICE_POINTER, WLR_INPUT_DEVICE_TOUCH };
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		if (!wlr_headless_add_input_device(ws->server.backend, idle[i])) {
			wbc_log(WLR_ERROR, "wlcs: cannot add the seat's idle input devices");
			return -1;
		}
	}
	if (list_globals(ws) < 0) {
		wbc_log(WLR_ERROR, "wlcs: cannot list the core's globals");
		return -1;
	}
	return 0;
}

static WlcsDisplayServer *create_server(int argc, const char **argv)
{
	struct wbc_wlcs *ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->base = (WlcsDisplayServer){ .version = 3, .start = wlcs_start, .stop = wlcs_stop,
		.create_client_socket = wlcs_create_client_socket,
		.position_window_absolute = wlcs_position_window_absolute,
		.create_pointer = wlcs_create_pointer, .create_touch = wlcs_create_touch,
		.get_descriptor = wlcs_get_descriptor };
	ws->wake_fd = -1;
	wl_list_init(&ws->clients);
	pthread_mutex_init(&ws->call_lock, NULL);
	pthread_mutex_init(&ws->lock, NULL);
	pthread_cond_init(&ws->done_cond, NULL);
	ws->descriptor = (WlcsIntegrationDescriptor){ .version = 1,
		.supported_extensions = ws->extensions };
	ws->ready = setup_core(ws) == 0;
	if (!ws->ready)
		wbc_log(WLR_ERROR, "wlcs: the wbc core did not come up (WBC_WLCS_VERBOSE=1 for "
			"details)");
	return &ws->base;
}

static void destroy_server(WlcsDisplayServer *base)
{
	struct wbc_wlcs *ws = wl_container_of(base, ws, base);
	wlcs_stop(base);                 /* in case wlcs did not: joins the thread */
	if (ws->wake)
		wl_event_source_remove(ws->wake);
	if (ws->unacked)
		wl_protocol_logger_destroy(ws->unacked);
	wbc_server_finish(&ws->server);  /* also the clients, whose listeners free them */
	if (ws->wake_fd >= 0)
		close(ws->wake_fd);
	pthread_cond_destroy(&ws->done_cond);
	pthread_mutex_destroy(&ws->lock);
	pthread_mutex_destroy(&ws->call_lock);
	free(ws);
}

const WlcsServerIntegration wlcs_server_integration = {
	.version = 1,
	.create_server = create_server,
	.destroy_server = destroy_server,
};
