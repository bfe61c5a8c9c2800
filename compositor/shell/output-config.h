/* Output configuration by clients: wlr-output-management-unstable-v1 (output-config.c),
 * and what screen.c offers it. */
#ifndef WBC_OUTPUT_CONFIG_H
#define WBC_OUTPUT_CONFIG_H

#include <stddef.h>
#include <wayland-server-protocol.h>

struct wbc_server;
struct wlr_output;

/* --allow-output-config: the zwlr_output_manager_v1 global. -1 if it cannot be made. */
int wbc_output_config_init(struct wbc_server *server);
/* An output came, went or changed: clients get the outputs' state again. Nothing
 * without --allow-output-config. */
void wbc_output_config_update(struct wbc_server *server);
void wbc_output_config_finish(struct wbc_server *server);

/* screen.c */
/* --rotate's degrees as a wl_output transform. */
enum wl_output_transform wbc_transform_of(int degrees);
/* output's modes in one line ("640x480@60.00 800x600@60.00 ..."), for messages. */
void wbc_screen_describe_modes(struct wlr_output *output, char *buf, size_t len);
/* output's mode, transform or scale was changed (committed): said in one line; APP is
 * fitted to the new logical size, touchscreens mapped again, a recording whose frames
 * change ends, clients of the output manager are told. */
void wbc_screen_changed(struct wbc_server *server, struct wlr_output *output);

#endif
