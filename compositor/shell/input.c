/* Input: one seat with the keyboards and pointers libinput finds; keyboard focus follows
 * the focused toplevel, pointer focus the surface under the (software) cursor. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/backend/session.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <xkbcommon/xkbcommon.h>
#include "util/log.h"
#include "server.h"

/* One per keyboard device; freed when the device goes away. */
struct wbc_keyboard {
	struct wbc_server *server;
	struct wlr_input_device *device; /* borrowed */
	struct wl_listener modifiers, key, destroy;
	struct wl_list link;             /* wbc_input.keyboards */
};

static void handle_modifiers(struct wl_listener *listener, void *data)
{
	struct wbc_keyboard *k = wl_container_of(listener, k, modifiers);
	wlr_seat_set_keyboard(k->server->input.seat, k->device);
	wlr_seat_keyboard_notify_modifiers(k->server->input.seat, &k->device->keyboard->modifiers);
}

/* Ctrl+Alt+Fn switches virtual terminals, as on any console compositor. */
static bool handle_vt_switch(struct wbc_keyboard *k, uint32_t keycode)
{
	struct wlr_session *session = k->server->session;
	const xkb_keysym_t *syms;
	int n = xkb_state_key_get_syms(k->device->keyboard->xkb_state, keycode + 8, &syms);
	for (int i = 0; i < n; i++) {
		if (syms[i] >= XKB_KEY_XF86Switch_VT_1 && syms[i] <= XKB_KEY_XF86Switch_VT_12) {
			if (session)
				wlr_session_change_vt(session, syms[i] - XKB_KEY_XF86Switch_VT_1 + 1);
			return true;
		}
	}
	return false;
}

static void handle_key(struct wl_listener *listener, void *data)
{
	struct wbc_keyboard *k = wl_container_of(listener, k, key);
	struct wlr_event_keyboard_key *ev = data;
	if (ev->state == WL_KEYBOARD_KEY_STATE_PRESSED && handle_vt_switch(k, ev->keycode))
		return;
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
	double sx, sy;
	struct wlr_scene_node *node = wlr_scene_node_at(&s->scene->node, in->cursor->x,
		in->cursor->y, &sx, &sy);
	struct wlr_surface *surface = NULL;
	if (node && node->type == WLR_SCENE_NODE_SURFACE)
		surface = wlr_scene_surface_from_node(node)->surface;
	if (!surface) {
		wlr_xcursor_manager_set_cursor_image(in->xcursor, "left_ptr", in->cursor);
		wlr_seat_pointer_clear_focus(in->seat);
		return;
	}
	wlr_seat_pointer_notify_enter(in->seat, surface, sx, sy);
	wlr_seat_pointer_notify_motion(in->seat, time_msec, sx, sy);
}

static void handle_motion(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.motion);
	struct wlr_event_pointer_motion *ev = data;
	wlr_cursor_move(s->input.cursor, ev->device, ev->delta_x, ev->delta_y);
	pointer_moved(s, ev->time_msec);
}

static void handle_motion_absolute(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.motion_absolute);
	struct wlr_event_pointer_motion_absolute *ev = data;
	wlr_cursor_warp_absolute(s->input.cursor, ev->device, ev->x, ev->y);
	pointer_moved(s, ev->time_msec);
}

static void handle_button(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.button);
	struct wlr_event_pointer_button *ev = data;
	wlr_seat_pointer_notify_button(s->input.seat, ev->time_msec, ev->button, ev->state);
}

static void handle_axis(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.axis);
	struct wlr_event_pointer_axis *ev = data;
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
		wlr_cursor_set_surface(s->input.cursor, ev->surface, ev->hotspot_x, ev->hotspot_y);
}

static void handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, input.request_set_selection);
	struct wlr_seat_request_set_selection_event *ev = data;
	wlr_seat_set_selection(s->input.seat, ev->source, ev->serial);
}

void wbc_input_focus_surface(struct wbc_server *s, struct wlr_surface *surface)
{
	struct wlr_seat *seat = s->input.seat;
	if (!surface) {
		wlr_seat_keyboard_notify_clear_focus(seat);
		return;
	}
	struct wlr_keyboard *kb = wlr_seat_get_keyboard(seat);
	wlr_seat_keyboard_notify_enter(seat, surface, kb ? kb->keycodes : NULL,
		kb ? kb->num_keycodes : 0, kb ? &kb->modifiers : NULL);
}

int wbc_input_init(struct wbc_server *s)
{
	struct wbc_input *in = &s->input;
	wl_list_init(&in->keyboards);
	in->seat = wlr_seat_create(s->display, "seat0");
	in->cursor = wlr_cursor_create();
	in->xcursor = wlr_xcursor_manager_create(NULL, 24);
	if (!in->seat || !in->cursor || !in->xcursor)
		return -1;
	wlr_xcursor_manager_load(in->xcursor, 1);
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
	}
	if (in->cursor)
		wlr_cursor_destroy(in->cursor);
	in->cursor = NULL;
	wlr_xcursor_manager_destroy(in->xcursor);
	in->xcursor = NULL;
}
