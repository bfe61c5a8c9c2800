/* Input: one seat with the keyboards, pointers and touchscreens libinput finds; keyboard
 * focus follows the focused toplevel, pointer focus the surface under the (software)
 * cursor, each touch point the surface it went down on. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>
#include <wlr/backend/session.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_touch.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <xkbcommon/xkbcommon.h>
#include "cursor-image.h"
#include "layer.h"
#include "util/log.h"
#include "server.h"
#include "touch.h"

/* One per keyboard device; freed when the device goes away. */
struct wbc_keyboard {
	struct wbc_server *server;
	struct wlr_input_device *device; /* borrowed */
	/* Keys wbc took on press (VT switch keys): their releases are wbc's too, so that
	 * APP never sees a release without its press. */
	uint32_t taken[4];
	size_t n_taken;
	struct wl_listener modifiers, key, destroy;
	struct wl_list link;             /* wbc_input.keyboards */
};

static void handle_modifiers(struct wl_listener *listener, void *data)
{
	struct wbc_keyboard *k = wl_container_of(listener, k, modifiers);
	wlr_seat_set_keyboard(k->server->input.seat, k->device);
	wlr_seat_keyboard_notify_modifiers(k->server->input.seat, &k->device->keyboard->modifiers);
}

/* Ctrl+Alt+Fn (XF86Switch_VT_n) switches virtual terminals only with --allow-vt-switch
 * (as cage's -s): anyone at a kiosk keyboard could otherwise leave the kiosk for a
 * console. Either way the key is wbc's, never APP's, so that what a key does is the
 * same whatever the flag: true when it was one. */
static bool handle_vt_switch(struct wbc_keyboard *k, uint32_t keycode)
{
	struct wbc_server *s = k->server;
	const xkb_keysym_t *syms;
	int n = xkb_state_key_get_syms(k->device->keyboard->xkb_state, keycode + 8, &syms);
	for (int i = 0; i < n; i++) {
		if (syms[i] < XKB_KEY_XF86Switch_VT_1 || syms[i] > XKB_KEY_XF86Switch_VT_12)
			continue;
		unsigned vt = syms[i] - XKB_KEY_XF86Switch_VT_1 + 1;
		if (!s->opts->allow_vt_switch)
			wbc_log(WLR_DEBUG, "switch to VT %u ignored (no --allow-vt-switch)", vt);
		else if (s->session && !wlr_session_change_vt(s->session, vt))
			wbc_log(WLR_ERROR, "cannot switch to VT %u (run with -v for details)", vt);
		else
			wbc_log(WLR_INFO, "switching to VT %u", vt);
		return true;
	}
	return false;
}

static void handle_key(struct wl_listener *listener, void *data)
{
	struct wbc_keyboard *k = wl_container_of(listener, k, key);
	struct wlr_event_keyboard_key *ev = data;
	wbc_power_activity(k->server);
	if (ev->state == WL_KEYBOARD_KEY_STATE_PRESSED && handle_vt_switch(k, ev->keycode)) {
		if (k->n_taken < sizeof(k->taken) / sizeof(k->taken[0]))
			k->taken[k->n_taken++] = ev->keycode;
		return;
	}
	for (size_t i = 0; ev->state == WL_KEYBOARD_KEY_STATE_RELEASED && i < k->n_taken; i++) {
		if (k->taken[i] == ev->keycode) {
			k->taken[i] = k->taken[--k->n_taken];
			return;
		}
	}
	wlr_seat_set_keyboard(k->server->input.seat, k->device);
	wlr_seat_keyboard_notify_key(k->server->input.seat, ev->time_msec, ev->keycode, ev->state);
}

static void update_caps(struct wbc_server *s)
{
	uint32_t caps = s->input.caps;
	if (!wl_list_empty(&s->input.keyboards))
		caps |= WL_SEAT_CAPABILITY_KEYBOARD;
	else
		caps &= ~(uint32_t)WL_SEAT_CAPABILITY_KEYBOARD;
	/* Each announcement makes clients ask for new wl_pointer etc. objects (wlcs' client
	 * does), each of which gets its own enter: announce changes only. */
	if (caps != s->input.seat->capabilities)
		wlr_seat_set_capabilities(s->input.seat, caps);
}

static void handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_keyboard *k = wl_container_of(listener, k, destroy);
	struct wbc_server *s = k->server;
	wl_list_remove(&k->modifiers.link);
	wl_list_remove(&k->key.link);
	wl_list_remove(&k->destroy.link);
	wl_list_remove(&k->link);
	free(k);
	update_caps(s);
}

static void new_keyboard(struct wbc_server *s, struct wlr_input_device *device)
{
	struct wbc_keyboard *k = calloc(1, sizeof(*k));
	if (!k)
		return;
	k->server = s;
	k->device = device;
	/* Rules, model, layout, variant, options from XKB_DEFAULT_* (NULL names). */
	struct xkb_context *ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	struct xkb_keymap *keymap = ctx ?
		xkb_keymap_new_from_names(ctx, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
	if (keymap)
		wlr_keyboard_set_keymap(device->keyboard, keymap);
	else
		wbc_log(WLR_ERROR, "%s: no xkb keymap (check XKB_DEFAULT_*)", device->name);
	xkb_keymap_unref(keymap);
	xkb_context_unref(ctx);
	wlr_keyboard_set_repeat_info(device->keyboard, 25, 600);
	k->modifiers.notify = handle_modifiers;
	wl_signal_add(&device->keyboard->events.modifiers, &k->modifiers);
	k->key.notify = handle_key;
	wl_signal_add(&device->keyboard->events.key, &k->key);
	k->destroy.notify = handle_keyboard_destroy;
	wl_signal_add(&device->events.destroy, &k->destroy);
	wl_list_insert(&s->input.keyboards, &k->link);
	wlr_seat_set_keyboard(s->input.seat, device);
}

void wbc_input_new_device(struct wbc_server *s, struct wlr_input_device *device)
{
	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		new_keyboard(s, device);
		break;
	case WLR_INPUT_DEVICE_POINTER:
		wlr_cursor_attach_input_device(s->input.cursor, device);
		s->input.caps |= WL_SEAT_CAPABILITY_POINTER;
		break;
	case WLR_INPUT_DEVICE_TOUCH:
		if (wbc_touch_add_device(s, device) < 0) {
			wbc_log(WLR_ERROR, "touch device %s: out of memory: ignored", device->name);
			return;
		}
		s->input.caps |= WL_SEAT_CAPABILITY_TOUCH;
		break;
	default:
		wbc_log(WLR_DEBUG, "ignoring input device %s (type %d)", device->name, device->type);
		return;
	}
	wbc_log(WLR_INFO, "input device %s", device->name);
	update_caps(s);
}

/* ---- Pointer ------------------------------------------------------------------------ */

static void pointer_moved(struct wbc_server *s, uint32_t time_msec)
{
	struct wbc_input *in = &s->input;
	if (wbc_xdg_move_motion(s))
		return;
	/* A button held since the press on a surface: that surface keeps the pointer
	 * (a drag may leave it), its position as it was at the press. */
	struct wlr_seat_pointer_state *ps = &in->seat->pointer_state;
	if (ps->button_count > 0 && ps->focused_surface) {
		wlr_seat_pointer_notify_motion(in->seat, time_msec, in->cursor->x - in->focus_x,
			in->cursor->y - in->focus_y);
		return;
	}
	double sx, sy;
	struct wlr_scene_node *node = wlr_scene_node_at(&s->scene->node, in->cursor->x,
		in->cursor->y, &sx, &sy);
	struct wlr_surface *surface = NULL;
	if (node && node->type == WLR_SCENE_NODE_SURFACE)
		surface = wlr_scene_surface_from_node(node)->surface;
	if (!surface) {
		wbc_cursor_image_set_default(s);
		wlr_seat_pointer_clear_focus(in->seat);
		return;
	}
	in->focus_x = in->cursor->x - sx;
	in->focus_y = in->cursor->y - sy;
	wlr_seat_pointer_notify_enter(in->seat, surface, sx, sy);
	wlr_seat_pointer_notify_motion(in->seat, time_msec, sx, sy);
}

void wbc_input_rebase_pointer(struct wbc_server *s)
{
	struct wlr_seat_pointer_state *ps = &s->input.seat->pointer_state;
	struct wlr_surface *was = ps->focused_surface;
	double sx = ps->sx, sy = ps->sy;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pointer_moved(s, (uint32_t)((uint64_t)now.tv_sec * 1000u +
		(uint64_t)now.tv_nsec / 1000000u));
	/* No device frame comes after these events: close them (wl_pointer v5), if any. */
	if (ps->focused_surface != was || ps->sx != sx || ps->sy != sy)
		wlr_seat_pointer_notify_frame(s->input.seat);
}

static void handle_motion(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.motion);
	struct wlr_event_pointer_motion *ev = data;
	wbc_power_activity(s);       /* here, not in pointer_moved: rebasing is no input */
	wbc_cursor_image_pointer_moved(s);
	wlr_cursor_move(s->input.cursor, ev->device, ev->delta_x, ev->delta_y);
	pointer_moved(s, ev->time_msec);
}

static void handle_motion_absolute(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.motion_absolute);
	struct wlr_event_pointer_motion_absolute *ev = data;
	wbc_power_activity(s);
	wbc_cursor_image_pointer_moved(s);
	wlr_cursor_warp_absolute(s->input.cursor, ev->device, ev->x, ev->y);
	pointer_moved(s, ev->time_msec);
}

static void handle_button(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.button);
	struct wlr_event_pointer_button *ev = data;
	wbc_power_activity(s);
	if (ev->state == WLR_BUTTON_PRESSED) {
		wbc_layer_click(s, s->input.seat->pointer_state.focused_surface);
		wbc_xdg_click(s, s->input.seat->pointer_state.focused_surface);
	}
	/* The seat counts buttons even with no focus (a move clears it). */
	wlr_seat_pointer_notify_button(s->input.seat, ev->time_msec, ev->button, ev->state);
	/* The end of a move or drag: focus goes to what is under the pointer now. */
	bool moved = ev->state == WLR_BUTTON_RELEASED && wbc_xdg_move_end(s);
	if (moved || (ev->state == WLR_BUTTON_RELEASED &&
			s->input.seat->pointer_state.button_count == 0))
		wbc_input_rebase_pointer(s);
}

static void handle_axis(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.axis);
	struct wlr_event_pointer_axis *ev = data;
	wbc_power_activity(s);
	wlr_seat_pointer_notify_axis(s->input.seat, ev->time_msec, ev->orientation, ev->delta,
		ev->delta_discrete, ev->source);
}

static void handle_frame(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.frame);
	wlr_seat_pointer_notify_frame(s->input.seat);
}

static void handle_request_cursor(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.request_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *ev = data;
	if (ev->seat_client == s->input.seat->pointer_state.focused_client)
		wbc_cursor_image_set_client(s, ev->surface, ev->hotspot_x, ev->hotspot_y);
}

static void handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.request_set_selection);
	struct wlr_seat_request_set_selection_event *ev = data;
	wlr_seat_set_selection(s->input.seat, ev->source, ev->serial);
}

/* ---- Touch ---------------------------------------------------------------------------- */

static struct wbc_touch_origin *touch_origin(struct wbc_input *in, int32_t id, bool down)
{
	for (size_t i = 0; i < WBC_MAX_TOUCH_POINTS; i++)
		if (in->touches[i].down == down && (!down || in->touches[i].id == id))
			return &in->touches[i];
	return NULL;
}

static void touch_origin_release(struct wbc_touch_origin *o)
{
	o->down = false;
	wl_list_remove(&o->surface_destroy.link);
}

/* Its surface went with the finger still down: the client gets wl_touch.up (wlroots 0.15
 * would only forget the point). Listened to before wlroots' own listener, which then
 * never runs: notify_up removes the point. */
static void handle_touch_surface_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_touch_origin *o = wl_container_of(listener, o, surface_destroy);
	struct wlr_seat *seat = o->server->input.seat;
	int32_t id = o->id;
	touch_origin_release(o);
	if (!wlr_seat_touch_get_point(seat, id))
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_seat_touch_notify_up(seat, (uint32_t)((uint64_t)now.tv_sec * 1000u +
		(uint64_t)now.tv_nsec / 1000000u), id);
	wlr_seat_touch_notify_frame(seat);
}

static void handle_touch_down(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.touch_down);
	struct wlr_event_touch_down *ev = data;
	struct wbc_input *in = &s->input;
	wbc_power_activity(s);
	wbc_cursor_image_touched(s);     /* even on no surface: touch is in use */
	double lx, ly, sx, sy;
	wlr_cursor_absolute_to_layout_coords(in->cursor, ev->device, ev->x, ev->y, &lx, &ly);
	struct wlr_scene_node *node = wlr_scene_node_at(&s->scene->node, lx, ly, &sx, &sy);
	struct wbc_touch_origin *o = touch_origin(in, ev->touch_id, false);
	struct wlr_surface *surface = node && node->type == WLR_SCENE_NODE_SURFACE ?
		wlr_scene_surface_from_node(node)->surface : NULL;
	wbc_layer_click(s, surface);     /* an on-demand layer surface takes the keyboard */
	if (!surface || !o)
		return;                      /* nothing there, or more fingers than we track */
	*o = (struct wbc_touch_origin){ .server = s, .id = ev->touch_id, .down = true,
		.x = lx - sx, .y = ly - sy };
	o->surface_destroy.notify = handle_touch_surface_destroy;
	wl_signal_add(&surface->events.destroy, &o->surface_destroy);
	wlr_seat_touch_notify_down(in->seat, surface, ev->time_msec, ev->touch_id, sx, sy);
}

static void handle_touch_motion(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.touch_motion);
	struct wlr_event_touch_motion *ev = data;
	struct wbc_input *in = &s->input;
	struct wbc_touch_origin *o = touch_origin(in, ev->touch_id, true);
	if (!o || !wlr_seat_touch_get_point(in->seat, ev->touch_id))
		return;
	double lx, ly;
	wlr_cursor_absolute_to_layout_coords(in->cursor, ev->device, ev->x, ev->y, &lx, &ly);
	/* Relative to the surface it went down on, wherever it is now (as wl_touch says). */
	wlr_seat_touch_notify_motion(in->seat, ev->time_msec, ev->touch_id, lx - o->x,
		ly - o->y);
}

static void handle_touch_up(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.touch_up);
	struct wlr_event_touch_up *ev = data;
	struct wbc_touch_origin *o = touch_origin(&s->input, ev->touch_id, true);
	if (!o)
		return;
	touch_origin_release(o);
	if (wlr_seat_touch_get_point(s->input.seat, ev->touch_id))
		wlr_seat_touch_notify_up(s->input.seat, ev->time_msec, ev->touch_id);
}

static void handle_touch_frame(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.touch_frame);
	wlr_seat_touch_notify_frame(s->input.seat);
}

void wbc_input_focus_surface(struct wbc_server *s, struct wlr_surface *surface,
		bool past_grab)
{
	struct wlr_seat *seat = s->input.seat;
	if (wbc_layer_keeps_keyboard(s, surface))
		return;                      /* an exclusive layer surface has it while mapped */
	if (!surface) {
		if (past_grab)
			wlr_seat_keyboard_clear_focus(seat);
		else
			wlr_seat_keyboard_notify_clear_focus(seat);
		return;
	}
	struct wlr_keyboard *kb = wlr_seat_get_keyboard(seat);
	if (past_grab)
		wlr_seat_keyboard_enter(seat, surface, kb ? kb->keycodes : NULL,
			kb ? kb->num_keycodes : 0, kb ? &kb->modifiers : NULL);
	else
		wlr_seat_keyboard_notify_enter(seat, surface, kb ? kb->keycodes : NULL,
			kb ? kb->num_keycodes : 0, kb ? &kb->modifiers : NULL);
}

int wbc_input_init(struct wbc_server *s)
{
	struct wbc_input *in = &s->input;
	wl_list_init(&in->keyboards);
	wl_list_init(&in->touch_devices);
	in->seat = wlr_seat_create(s->display, "seat0");
	in->cursor = wlr_cursor_create();
	in->xcursor = wlr_xcursor_manager_create(NULL, 24);
	if (!in->seat || !in->cursor || !in->xcursor || wbc_cursor_image_init(s) < 0)
		return -1;
	wlr_cursor_attach_output_layout(in->cursor, s->layout);
	in->motion.notify = handle_motion;
	wl_signal_add(&in->cursor->events.motion, &in->motion);
	in->motion_absolute.notify = handle_motion_absolute;
	wl_signal_add(&in->cursor->events.motion_absolute, &in->motion_absolute);
	in->button.notify = handle_button;
	wl_signal_add(&in->cursor->events.button, &in->button);
	in->axis.notify = handle_axis;
	wl_signal_add(&in->cursor->events.axis, &in->axis);
	in->frame.notify = handle_frame;
	wl_signal_add(&in->cursor->events.frame, &in->frame);
	in->touch_down.notify = handle_touch_down;
	wl_signal_add(&in->cursor->events.touch_down, &in->touch_down);
	in->touch_motion.notify = handle_touch_motion;
	wl_signal_add(&in->cursor->events.touch_motion, &in->touch_motion);
	in->touch_up.notify = handle_touch_up;
	wl_signal_add(&in->cursor->events.touch_up, &in->touch_up);
	in->touch_frame.notify = handle_touch_frame;
	wl_signal_add(&in->cursor->events.touch_frame, &in->touch_frame);
	in->request_cursor.notify = handle_request_cursor;
	wl_signal_add(&in->seat->events.request_set_cursor, &in->request_cursor);
	in->request_set_selection.notify = handle_request_set_selection;
	wl_signal_add(&in->seat->events.request_set_selection, &in->request_set_selection);
	return 0;
}

void wbc_input_finish(struct wbc_server *s)
{
	struct wbc_input *in = &s->input;
	if (in->motion.notify) {             /* the listeners were added */
		wl_list_remove(&in->motion.link);
		wl_list_remove(&in->motion_absolute.link);
		wl_list_remove(&in->button.link);
		wl_list_remove(&in->axis.link);
		wl_list_remove(&in->frame.link);
		wl_list_remove(&in->request_cursor.link);
		wl_list_remove(&in->request_set_selection.link);
		wl_list_remove(&in->touch_down.link);
		wl_list_remove(&in->touch_motion.link);
		wl_list_remove(&in->touch_up.link);
		wl_list_remove(&in->touch_frame.link);
	}
	for (size_t i = 0; i < WBC_MAX_TOUCH_POINTS; i++)
		if (in->touches[i].down)
			touch_origin_release(&in->touches[i]);
	wbc_touch_finish(s);
	wbc_cursor_image_finish(s);
	if (in->cursor)
		wlr_cursor_destroy(in->cursor);
	in->cursor = NULL;
	wlr_xcursor_manager_destroy(in->xcursor);
	in->xcursor = NULL;
}
