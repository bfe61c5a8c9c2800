/* Touchscreens: each covers exactly one output, so that its corners are that output's
 * corners and a finger lands on what is shown under it, however many outputs the layout
 * holds (wlroots would otherwise spread an unmapped device over the whole layout). The
 * output is the one named by the device's WL_OUTPUT udev property (libinput's output
 * name) while wbc drives it and it is lit, else the first output lit. Mapped again
 * whenever an output comes or goes, so the cursor never keeps a gone output.
 * A touchscreen is fixed to its panel: its 0..1 coordinates are the panel's, unturned.
 * wlr_cursor (0.15) turns a touch event's point by its mapped output's transform before
 * emitting it, so wbc maps it as it comes (wbc-touch-rotated: turning it again here put
 * fingers at the 180-degree point of a 90-degree screen). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_output.h>
#include "touch.h"
#include "util/log.h"
#include "server.h"

/* One per touch device; in server->input.touch_devices, freed when the device goes or at
 * wbc_touch_finish. */
struct wbc_touch_device {
	struct wbc_server *server;
	struct wlr_input_device *device;     /* borrowed */
	struct wlr_output *mapped;           /* borrowed; what it was last mapped to (log) */
	struct wl_listener destroy;
	struct wl_list link;                 /* wbc_input.touch_devices */
};

static void device_free(struct wbc_touch_device *t)
{
	wl_list_remove(&t->destroy.link);
	wl_list_remove(&t->link);
	free(t);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_touch_device *t = wl_container_of(listener, t, destroy);
	device_free(t);
}

static void map_device(struct wbc_touch_device *t)
{
	struct wbc_server *s = t->server;
	struct wlr_output *output = wbc_screen_output_for(s, t->device->output_name);
	wlr_cursor_map_input_to_output(s->input.cursor, t->device, output);
	if (output == t->mapped)
		return;
	t->mapped = output;
	if (output && !s->finishing)
		wbc_log(WLR_INFO, "touch device %s: on output %s%s", t->device->name,
			output->name, t->device->output_name && strcmp(t->device->output_name,
			output->name) != 0 ? " (its own output is not driven)" : "");
}

int wbc_touch_add_device(struct wbc_server *s, struct wlr_input_device *device)
{
	struct wbc_touch_device *t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	t->server = s;
	t->device = device;
	t->destroy.notify = handle_destroy;
	wl_signal_add(&device->events.destroy, &t->destroy);
	wl_list_insert(&s->input.touch_devices, &t->link);
	wlr_cursor_attach_input_device(s->input.cursor, device);
	map_device(t);
	return 0;
}

void wbc_touch_remap(struct wbc_server *s)
{
	struct wbc_touch_device *t;
	wl_list_for_each(t, &s->input.touch_devices, link)
		map_device(t);
}

void wbc_touch_finish(struct wbc_server *s)
{
	struct wbc_touch_device *t, *tmp;
	if (!s->input.touch_devices.next)    /* wbc_input_init never ran */
		return;
	wl_list_for_each_safe(t, tmp, &s->input.touch_devices, link)
		device_free(t);
}
