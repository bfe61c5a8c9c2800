/* A toplevel window, of either kind: an xdg-shell toplevel (xdg.c) or a managed X11
 * window (xwayland.c). Focus, stacking and the server's list of them are the same for
 * both (view.c); the kind says how to tell its client. */
#ifndef WBC_VIEW_H
#define WBC_VIEW_H

#include <stdbool.h>
#include <wayland-server-core.h>

struct wbc_server;
struct wbc_view;
struct wlr_surface;

/* The one seam between the kinds of toplevels; each kind has one static instance. */
struct wbc_view_kind {
	/* The surface that gets keyboard focus (the toplevel's own wl_surface). */
	struct wlr_surface *(*surface)(struct wbc_view *v);
	/* Tell the client it is (no longer) the active window. */
	void (*activate)(struct wbc_view *v, bool on);
	/* It lost the focus to another view: its menus go. NULL: nothing to do. */
	void (*blurred)(struct wbc_view *v);
	/* The output's box changed: size and place it again. */
	void (*fit)(struct wbc_view *v);
};

/* Embedded in its kind's own struct, which owns it; linked in server->views (focused
 * first) from wbc_view_add until wbc_view_remove. */
struct wbc_view {
	struct wbc_server *server;
	const struct wbc_view_kind *kind;
	struct wlr_scene_node *node;     /* owned by the scene; NULL while it has none */
	struct wl_list link;             /* server->views */
	bool mapped;
};

/* Link v last in server->views (unfocused, unmapped). */
void wbc_view_add(struct wbc_view *v, struct wbc_server *server,
		const struct wbc_view_kind *kind);
void wbc_view_remove(struct wbc_view *v);
/* Raise v, make it the active window and give it the keyboard. */
void wbc_view_focus(struct wbc_view *v);
/* v was just unmapped (v->mapped already false): if it had the focus, the next mapped
 * view gets it, else nobody. */
void wbc_view_unmapped(struct wbc_view *v);
/* The focused view (the first of server->views) if it is mapped, else NULL. */
struct wbc_view *wbc_view_focused(struct wbc_server *server);
/* Every view sized and placed again for the output's box (an output came or changed). */
void wbc_view_fit_all(struct wbc_server *server);

#endif
