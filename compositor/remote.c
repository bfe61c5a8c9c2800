/* --allow-remote: the virtual input protocols of remote desktops (wayvnc and the like):
 * zwlr_virtual_pointer_manager_v1 and zwp_virtual_keyboard_manager_v1, both wlroots'.
 * Their devices join the one seat exactly as libinput's do (input.c); a client that can
 * type into every other client is why this needs its own flag. */
#define _POSIX_C_SOURCE 200809L
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include "log.h"
#include "server.h"

static void handle_new_pointer(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, remote.new_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *ev = data;
	wbc_input_new_device(s, &ev->new_pointer->input_device);
}

static void handle_new_keyboard(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, remote.new_keyboard);
	struct wlr_virtual_keyboard_v1 *kb = data;
	wbc_input_new_device(s, &kb->input_device);
}

int wbc_remote_init(struct wbc_server *s)
{
	/* Globals owned by the display (destroyed with it). */
	struct wlr_virtual_pointer_manager_v1 *pointers =
		wlr_virtual_pointer_manager_v1_create(s->display);
	struct wlr_virtual_keyboard_manager_v1 *keyboards =
		wlr_virtual_keyboard_manager_v1_create(s->display);
	if (!pointers || !keyboards)
		return -1;
	s->remote.new_pointer.notify = handle_new_pointer;
	wl_signal_add(&pointers->events.new_virtual_pointer, &s->remote.new_pointer);
	s->remote.new_keyboard.notify = handle_new_keyboard;
	wl_signal_add(&keyboards->events.new_virtual_keyboard, &s->remote.new_keyboard);
	wbc_log(WLR_DEBUG, "remote: virtual pointer and keyboard managers served");
	return 0;
}

void wbc_remote_finish(struct wbc_server *s)
{
	if (!s->remote.new_pointer.notify)
		return;
	wl_list_remove(&s->remote.new_pointer.link);
	wl_list_remove(&s->remote.new_keyboard.link);
	s->remote.new_pointer.notify = NULL;
}
