/* The cursor's image and when it is hidden (cursor-image.c). */
#ifndef WBC_CURSOR_IMAGE_H
#define WBC_CURSOR_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

struct wbc_server;
struct wlr_surface;

/* Creates server->input.image; the cursor (server->input.cursor) must exist. -1 when out
 * of memory. The cursor starts hidden: it appears with the first pointer motion. */
int wbc_cursor_image_init(struct wbc_server *server);
void wbc_cursor_image_finish(struct wbc_server *server);
/* What the cursor shows while it is shown: the image a client set (wl_pointer.set_cursor;
 * a NULL surface means none), or the default arrow (the pointer is over no surface).
 * Applied at once unless the cursor is hidden, else kept for when it comes back. */
void wbc_cursor_image_set_client(struct wbc_server *server, struct wlr_surface *surface,
		int32_t hotspot_x, int32_t hotspot_y);
void wbc_cursor_image_set_default(struct wbc_server *server);
/* The pointer moved (a device, not a rebase): the cursor shows again, and
 * --hide-cursor's time counts from now. */
void wbc_cursor_image_pointer_moved(struct wbc_server *server);
/* A finger went down: the cursor hides until the pointer moves again. */
void wbc_cursor_image_touched(struct wbc_server *server);
/* Reads the cursor theme at scale 1 into server->input.xcursor, once; false (said once)
 * when it cannot be read. */
bool wbc_cursor_theme_load(struct wbc_server *server);

#endif
