/*
 * key-client: an xdg toplevel that prints the text typed into it.
 *
 *   key-client N     prints "focused" on keyboard enter, then "typed: <text>" and exits 0
 *                    once N characters arrived; exits 1 after 60 s without them.
 *   key-client --pointer N   prints "enter X Y" / "motion X Y" for pointer events and
 *                    exits 0 after N motions. Prints "configured" once its buffer is up.
 *   key-client --pointer --cursor N   also sets its own cursor image on pointer enter,
 *                    16x16 of CURSOR_ARGB with its hotspot at (2, 3), and after N motions
 *                    prints "motions: N" and stays (the cursor with it) until killed.
 *   Every mode prints "size W H" for each xdg_toplevel.configure with a size (the area wbc
 *   gives it: wbc-layer-shell.sh checks that an on-screen keyboard's zone shrinks it).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>
#include "client-globals.h"

/* The surface covers a 640x480 output (the tests' mode). */
enum { W = 640, H = 480 };
/* The cursor image of --cursor (wbc-pointer.sh looks for it in captured frames). */
enum { CURSOR_SIZE = 16, CURSOR_HOTSPOT_X = 2, CURSOR_HOTSPOT_Y = 3 };
#define CURSOR_ARGB 0xffff00ffu

/* Everything the client has; one instance in main(). */
struct client {
	struct test_globals g;
	struct wl_keyboard *keyboard;
	struct wl_pointer *pointer;
	bool pointer_mode;            /* count pointer motions instead of typed letters */
	bool cursor_mode;             /* set a cursor image and stay */
	struct wl_surface *cursor;
	struct wl_surface *surface;
	struct xkb_context *xkb;
	struct xkb_keymap *keymap;
	struct xkb_state *state;
	bool configured;
	char text[256];
	size_t len, want;
};

static void kb_keymap(void *data, struct wl_keyboard *kb, uint32_t format, int fd, uint32_t size)
{
	struct client *c = data;
	char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	xkb_state_unref(c->state);
	xkb_keymap_unref(c->keymap);
	c->keymap = xkb_keymap_new_from_string(c->xkb, map, XKB_KEYMAP_FORMAT_TEXT_V1,
		XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(map, size);
	c->state = c->keymap ? xkb_state_new(c->keymap) : NULL;
}

static void kb_enter(void *data, struct wl_keyboard *kb, uint32_t serial,
		struct wl_surface *surface, struct wl_array *keys)
{
	printf("focused\n");
}

static void kb_leave(void *data, struct wl_keyboard *kb, uint32_t serial,
		struct wl_surface *surface) {}

static void kb_key(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t time,
		uint32_t key, uint32_t state)
{
	struct client *c = data;
	if (state != WL_KEYBOARD_KEY_STATE_PRESSED || !c->state)
		return;
	char buf[16];
	int n = xkb_state_key_get_utf8(c->state, key + 8, buf, sizeof(buf));
	if (n > 0 && c->len + (size_t)n < sizeof(c->text)) {
		memcpy(c->text + c->len, buf, (size_t)n);
		c->len += (size_t)n;
		printf("key %u -> '%s'\n", key, buf);
	} else if (n <= 0) {             /* modifiers, function keys: wbc-vt-switch.sh */
		printf("key %u -> no text\n", key);
	}
}

static void kb_modifiers(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t dep,
		uint32_t lat, uint32_t lock, uint32_t group)
{
	struct client *c = data;
	if (c->state)
		xkb_state_update_mask(c->state, dep, lat, lock, 0, 0, group);
}

static void kb_repeat(void *data, struct wl_keyboard *kb, int32_t rate, int32_t delay) {}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = kb_keymap, .enter = kb_enter, .leave = kb_leave, .key = kb_key,
	.modifiers = kb_modifiers, .repeat_info = kb_repeat,
};

/* Pointer mode: print each position the compositor reports, in surface coordinates. */
static void ptr_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s,
		wl_fixed_t x, wl_fixed_t y)
{
	struct client *c = data;
	printf("enter %d %d\n", wl_fixed_to_int(x), wl_fixed_to_int(y));
	if (!c->cursor_mode)
		return;
	if (!c->cursor) {
		c->cursor = wl_compositor_create_surface(c->g.compositor);
		wl_surface_attach(c->cursor, test_solid_buffer(c->g.shm, CURSOR_SIZE, CURSOR_SIZE,
			WL_SHM_FORMAT_ARGB8888, CURSOR_ARGB), 0, 0);
		wl_surface_damage(c->cursor, 0, 0, CURSOR_SIZE, CURSOR_SIZE);
		wl_surface_commit(c->cursor);
	}
	wl_pointer_set_cursor(p, serial, c->cursor, CURSOR_HOTSPOT_X, CURSOR_HOTSPOT_Y);
	printf("cursor set\n");
}

static void ptr_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) {}

static void ptr_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct client *c = data;
	printf("motion %d %d\n", wl_fixed_to_int(x), wl_fixed_to_int(y));
	c->len++;
}

static void ptr_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
		uint32_t button, uint32_t state) {}
static void ptr_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis,
		wl_fixed_t value) {}
static void ptr_frame(void *data, struct wl_pointer *p) {}
static void ptr_axis_source(void *data, struct wl_pointer *p, uint32_t source) {}
static void ptr_axis_stop(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis) {}
static void ptr_axis_discrete(void *data, struct wl_pointer *p, uint32_t axis, int32_t d) {}

static const struct wl_pointer_listener pointer_listener = {
	.enter = ptr_enter, .leave = ptr_leave, .motion = ptr_motion, .button = ptr_button,
	.axis = ptr_axis, .frame = ptr_frame, .axis_source = ptr_axis_source,
	.axis_stop = ptr_axis_stop, .axis_discrete = ptr_axis_discrete,
};

static void seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct client *c = data;
	if (c->pointer_mode && (caps & WL_SEAT_CAPABILITY_POINTER) && !c->pointer) {
		c->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(c->pointer, &pointer_listener, c);
	}
	if (c->pointer_mode)
		return;
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !c->keyboard) {
		c->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(c->keyboard, &keyboard_listener, c);
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_caps, .name = seat_name,
};

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	struct client *c = data;
	xdg_surface_ack_configure(xs, serial);
	if (c->configured)
		return;
	c->configured = true;
	wl_surface_attach(c->surface, test_solid_buffer(c->g.shm, W, H, WL_SHM_FORMAT_XRGB8888, 0xff3060c0u),
		0, 0);
	wl_surface_damage(c->surface, 0, 0, W, H);
	printf("configured\n");
	wl_surface_commit(c->surface);
}

static const struct xdg_surface_listener xs_listener = { .configure = xs_configure };

static void tl_configure(void *data, struct xdg_toplevel *tl, int32_t w, int32_t h,
		struct wl_array *states)
{
	if (w > 0 && h > 0)
		printf("size %d %d\n", w, h);
}

static void tl_close(void *data, struct xdg_toplevel *tl) {}

static const struct xdg_toplevel_listener tl_listener = {
	.configure = tl_configure, .close = tl_close,
};

/* A test tool, not wbc: it exits without destroying its proxies, so LeakSanitizer is
 * turned off for this process only (wbc, which spawns it, is still leak-checked). */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	struct client c = { .want = 5 };
	if (argc > 1 && strcmp(argv[1], "--pointer") == 0) {
		c.pointer_mode = true;
		argv++;
		argc--;
	}
	if (c.pointer_mode && argc > 1 && strcmp(argv[1], "--cursor") == 0) {
		c.cursor_mode = true;
		argv++;
		argc--;
	}
	if (argc > 1)
		c.want = (size_t)atoi(argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy)
		return 1;
	c.xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (test_globals_bind(dpy, &c.g) < 0 || !c.g.seat)
		return 1;
	wl_seat_add_listener(c.g.seat, &seat_listener, &c);
	c.surface = wl_compositor_create_surface(c.g.compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(c.g.wm_base, c.surface);
	xdg_surface_add_listener(xs, &xs_listener, &c);
	struct xdg_toplevel *tl = xdg_surface_get_toplevel(xs);
	xdg_toplevel_add_listener(tl, &tl_listener, NULL);
	xdg_toplevel_set_title(tl, "key-client");
	wl_surface_commit(c.surface);
	time_t end = time(NULL) + (c.cursor_mode ? 200 : 60);
	bool said = false;
	while ((c.cursor_mode || c.len < c.want) && time(NULL) < end) {
		if (c.cursor_mode && !said && c.len >= c.want) {
			printf("motions: %zu\n", c.len);
			said = true;
		}
		wl_display_flush(dpy);
		struct pollfd p = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&p, 1, 500) > 0 && wl_display_dispatch(dpy) < 0)
			break;
		wl_display_dispatch_pending(dpy);
	}
	if (c.pointer_mode)
		printf("motions: %zu\n", c.len);
	else
		printf("typed: %.*s\n", (int)c.len, c.text);
	wl_display_disconnect(dpy);
	return c.len >= c.want ? 0 : 1;
}
