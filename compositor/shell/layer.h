/* wlr-layer-shell-unstable-v1 (layer.c): panels, overlays, wallpapers and on-screen
 * keyboards, placed by their anchors and margins on their output; their exclusive zones
 * shrink the area toplevels fill (wbc_screen_box). */
#ifndef WBC_LAYER_H
#define WBC_LAYER_H

#include <stdbool.h>

struct wbc_server;
struct wlr_output;
struct wlr_surface;
struct wlr_box;

/* The global and the four layers' scene trees (background and bottom below
 * server->view_tree, top and overlay above it). Call after view_tree exists. */
int wbc_layer_init(struct wbc_server *server);
void wbc_layer_finish(struct wbc_server *server);
/* Shrink box (output's box in layout coordinates) by the exclusive zones of the layer
 * surfaces mapped on output. */
void wbc_layer_usable_box(struct wbc_server *server, struct wlr_output *output,
		struct wlr_box *box);
/* A button or a finger went down on surface (NULL: on nothing): a layer surface there
 * that wants the keyboard on demand gets it; anywhere else, one that had it gives it
 * back to the app. Nothing changes while an exclusive one holds it. */
void wbc_layer_click(struct wbc_server *server, struct wlr_surface *surface);
/* True while an exclusive-interactivity layer surface holds the keyboard and surface is
 * not it: nothing else is to get the keyboard then. */
bool wbc_layer_keeps_keyboard(struct wbc_server *server, struct wlr_surface *surface);

#endif
