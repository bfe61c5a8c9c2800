/* --allow-remote: the virtual input protocols of remote desktops (wayvnc and the like):
 * zwlr_virtual_pointer_manager_v1 and zwp_virtual_keyboard_manager_v1, both wlroots'.
 * --allow-osk: the keyboard one alone, which is what an on-screen keyboard (wvkbd) needs.
 * Their devices join the one seat exactly as libinput's do (input.c), so their keys go
 * to the client with the keyboard focus; a client that can type into every other client
 * is why this needs its own flag. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include "util/log.h"
#include "server.h"

static void handle_new_pointer(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, remote.new_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *ev = data;
	wbc_input_new_device(s, &ev->new_pointer->input_device);
}

/*
 * wlroots 0.15 leaks each virtual keyboard's wlr_keyboard: it callocs one per keyboard and
 * its destroy hook frees nothing (0.16 embeds it instead). wbc frees it once wlroots is
 * done with it: on the next idle of the event loop after the device's destroy signal, or
 * at exit for keyboards destroyed with the last clients. One per destroyed keyboard;
 * owned by server->remote.orphans.
 */
struct orphan_keyboard {
	struct wlr_keyboard *keyboard;   /* owned: the one wlroots forgot */
	struct wl_event_source *idle;
	struct wl_list link;
};

/* Per virtual keyboard until its device is destroyed. */
struct virtual_keyboard {
	struct wbc_server *server;
	struct wlr_input_device *device; /* borrowed */
	struct wl_listener destroy;
};

static void orphan_free(struct orphan_keyboard *o)
{
	if (o->idle)
		wl_event_source_remove(o->idle);
	wl_list_remove(&o->link);
	free(o->keyboard);
	free(o);
}

static void handle_orphan_idle(void *data)
{
	struct orphan_keyboard *o = data;
	o->idle = NULL;                  /* an idle source is removed after it ran */
	orphan_free(o);
}

static void handle_keyboard_destroy(struct wl_listener *listener, void *data)
{
	struct virtual_keyboard *vk = wl_container_of(listener, vk, destroy);
	struct orphan_keyboard *o = calloc(1, sizeof(*o));
	if (o) {
		o->keyboard = vk->device->keyboard;
		wl_list_insert(&vk->server->remote.orphans, &o->link);
		o->idle = wl_event_loop_add_idle(vk->server->loop, handle_orphan_idle, o);
	}
	wl_list_remove(&vk->destroy.link);
	free(vk);
}

static void handle_new_keyboard(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, remote.new_keyboard);
	struct wlr_virtual_keyboard_v1 *kb = data;
	struct virtual_keyboard *vk = calloc(1, sizeof(*vk));
	if (vk) {
		*vk = (struct virtual_keyboard){ .server = s, .device = &kb->input_device };
		vk->destroy.notify = handle_keyboard_destroy;
		wl_signal_add(&kb->input_device.events.destroy, &vk->destroy);
	}
	wbc_input_new_device(s, &kb->input_device);
}

int wbc_remote_init(struct wbc_server *s)
{
	/* Globals owned by the display (destroyed with it). */
	bool pointer = s->opts->allow_remote;   /* --allow-osk alone: no pointer */
	struct wlr_virtual_pointer_manager_v1 *pointers = pointer ?
		wlr_virtual_pointer_manager_v1_create(s->display) : NULL;
	struct wlr_virtual_keyboard_manager_v1 *keyboards =
		wlr_virtual_keyboard_manager_v1_create(s->display);
	wl_list_init(&s->remote.orphans);
	wl_list_init(&s->remote.new_pointer.link);   /* removable without a pointer manager */
	if ((pointer && !pointers) || !keyboards)
		return -1;
	s->remote.new_pointer.notify = handle_new_pointer;
	if (pointers)
		wl_signal_add(&pointers->events.new_virtual_pointer, &s->remote.new_pointer);
	s->remote.new_keyboard.notify = handle_new_keyboard;
	wl_signal_add(&keyboards->events.new_virtual_keyboard, &s->remote.new_keyboard);
	wbc_log(WLR_DEBUG, "remote: virtual %s served", pointers ?
		"pointer and keyboard managers" : "keyboard manager (--allow-osk)");
	return 0;
}

void wbc_remote_finish(struct wbc_server *s)
{
	if (!s->remote.new_pointer.notify)
		return;
	wl_list_remove(&s->remote.new_pointer.link);
	wl_list_remove(&s->remote.new_keyboard.link);
	s->remote.new_pointer.notify = NULL;
	/* The clients are gone: wlroots is done with their keyboards. */
	struct orphan_keyboard *o, *tmp;
	wl_list_for_each_safe(o, tmp, &s->remote.orphans, link)
		orphan_free(o);
}
