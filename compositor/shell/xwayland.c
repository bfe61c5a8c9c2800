/* X11 clients through Xwayland (wlroots' wlr_xwayland). The X display exists from the
 * start (its sockets, DISPLAY for APP); Xwayland itself starts when the first X client
 * connects. Managed X windows are views (view.h) like xdg toplevels: under the kiosk
 * policy each is given the output's box and told it is fullscreen, and the focused one
 * has the keyboard; pointer and touch reach them as any surface in the scene.
 * Override-redirect windows (menus, tooltips) are shown where they put themselves, above
 * every view (X root coordinates are layout coordinates: managed windows are configured
 * where the scene shows them), and take the keyboard only when wlroots guesses they want
 * it (wlr_xwayland_or_surface_wants_focus). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/socket.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/util/box.h>
#include <wlr/xcursor.h>
#include <wlr/xwayland.h>
#include "util/log.h"
#include "cursor-image.h"
#include "server.h"
#include "view.h"

/* Owned by the server (server->xwayland) from wbc_xwayland_init to wbc_xwayland_finish.
 * wlr (and the XWM wlroots makes in it once Xwayland runs) is the display's: see
 * wbc_xwayland_finish. */
struct wbc_xwayland {
	struct wbc_server *server;
	struct wlr_xwayland *wlr;
	struct wlr_scene_node *unmanaged;   /* the scene's tree of override-redirect windows,
	                                       above server->view_tree */
	struct wl_list windows;             /* wbc_xwindow.link */
	struct wl_listener ready, new_surface;
};

/* An X window; owned by xwayland->windows, freed when its wlr_xwayland_surface is
 * destroyed (or by wbc_xwayland_finish). While mapped it is either a view in
 * server->views (managed) or an override-redirect window in xwayland->unmanaged;
 * base.node exists only while it is mapped. */
struct wbc_xwindow {
	struct wbc_view base;
	struct wbc_xwayland *xw;
	struct wlr_xwayland_surface *xs;    /* borrowed */
	bool managed;                       /* mapped as a view */
	struct wl_listener map, unmap, destroy, request_configure, request_fullscreen;
	struct wl_listener request_activate, set_geometry, node_destroy;
	struct wl_list link;                /* wbc_xwayland.windows */
};

/* ---- Placement ------------------------------------------------------------------------- */

/* Kiosk: the output's box and fullscreen, whatever it asked; windowed (tests/wlcs, which
 * has no X11 so far): what it asked. The scene shows it where X has it (set_geometry). */
static void fit_window(struct wbc_xwindow *w, int x, int y, int width, int height)
{
	struct wlr_box box;
	if (!w->xw->server->opts->windowed && wbc_screen_box(w->xw->server, &box)) {
		x = box.x;
		y = box.y;
		width = box.width;
		height = box.height;
		wlr_xwayland_surface_set_fullscreen(w->xs, true);
	}
	if (width <= 0 || height <= 0)
		return;
	wlr_xwayland_surface_configure(w->xs, (int16_t)x, (int16_t)y, (uint16_t)width,
		(uint16_t)height);
}

static void place_node(struct wbc_xwindow *w)
{
	if (w->base.node)
		wlr_scene_node_set_position(w->base.node, w->xs->x, w->xs->y);
}

/* ---- The view kind (view.h) -------------------------------------------------------------- */

static struct wlr_surface *kind_surface(struct wbc_view *base)
{
	struct wbc_xwindow *w = wl_container_of(base, w, base);
	return w->xs->surface;
}

static void kind_activate(struct wbc_view *base, bool on)
{
	struct wbc_xwindow *w = wl_container_of(base, w, base);
	if (on)
		wlr_xwayland_surface_restack(w->xs, NULL, XCB_STACK_MODE_ABOVE);
	wlr_xwayland_surface_activate(w->xs, on);
}

static void kind_fit(struct wbc_view *base)
{
	struct wbc_xwindow *w = wl_container_of(base, w, base);
	fit_window(w, w->xs->x, w->xs->y, w->xs->width, w->xs->height);
	place_node(w);
}

static const struct wbc_view_kind x11_kind = { kind_surface, kind_activate, NULL, kind_fit };

/* ---- Map and unmap ----------------------------------------------------------------------- */

/* The scene destroys the node itself when the surface goes (before the XWM's unmap). */
static void handle_node_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, node_destroy);
	wl_list_remove(&w->node_destroy.link);
	w->base.node = NULL;
}

static bool make_node(struct wbc_xwindow *w, struct wlr_scene_node *parent)
{
	w->base.node = wlr_scene_subsurface_tree_create(parent, w->xs->surface);
	if (!w->base.node)
		return false;
	w->node_destroy.notify = handle_node_destroy;
	wl_signal_add(&w->base.node->events.destroy, &w->node_destroy);
	place_node(w);
	return true;
}

static void map_managed(struct wbc_xwindow *w)
{
	struct wbc_server *s = w->xw->server;
	w->managed = true;
	wbc_view_add(&w->base, s, &x11_kind);
	w->base.mapped = true;
	kind_fit(&w->base);
	wbc_view_focus(&w->base);
}

static void map_unmanaged(struct wbc_xwindow *w)
{
	w->managed = false;
	wlr_scene_node_raise_to_top(w->base.node);
	if (wlr_xwayland_or_surface_wants_focus(w->xs))
		wbc_input_focus_surface(w->xw->server, w->xs->surface, false);
}

static void handle_map(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, map);
	struct wbc_server *s = w->xw->server;
	bool managed = !w->xs->override_redirect;
	if (!make_node(w, managed ? s->view_tree : w->xw->unmanaged)) {
		wbc_log(WLR_ERROR, "X11 window 0x%x: no memory to show it", w->xs->window_id);
		return;
	}
	if (managed)
		map_managed(w);
	else
		map_unmanaged(w);
	wbc_input_rebase_pointer(s);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, unmap);
	struct wbc_server *s = w->xw->server;
	bool had_keyboard = w->xs->surface &&
		s->input.seat->keyboard_state.focused_surface == w->xs->surface;
	if (w->base.node) {
		wl_list_remove(&w->node_destroy.link);
		wlr_scene_node_destroy(w->base.node);
		w->base.node = NULL;
	}
	if (w->managed) {
		w->base.mapped = false;
		wbc_view_unmapped(&w->base);
		wbc_view_remove(&w->base);
		w->managed = false;
	} else if (had_keyboard) {
		struct wbc_view *v = wbc_view_focused(s);
		wbc_input_focus_surface(s, v ? v->kind->surface(v) : NULL, false);
	}
	wbc_input_rebase_pointer(s);
}

/* ---- Requests ------------------------------------------------------------------------------ */

static void handle_request_configure(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, request_configure);
	struct wlr_xwayland_surface_configure_event *ev = data;
	fit_window(w, ev->x, ev->y, ev->width, ev->height);
}

/* Always fullscreen in the kiosk; X wants an answer anyway. */
static void handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, request_fullscreen);
	fit_window(w, w->xs->x, w->xs->y, w->xs->width, w->xs->height);
}

/* _NET_ACTIVE_WINDOW from the client itself: a mapped window of its gets the focus. */
static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, request_activate);
	if (w->managed && w->base.mapped)
		wbc_view_focus(&w->base);
}

static void handle_set_geometry(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, set_geometry);
	place_node(w);
}

static void window_free(struct wbc_xwindow *w)
{
	if (w->base.node) {
		wl_list_remove(&w->node_destroy.link);
		wlr_scene_node_destroy(w->base.node);
	}
	if (w->managed)
		wbc_view_remove(&w->base);
	wl_list_remove(&w->map.link);
	wl_list_remove(&w->unmap.link);
	wl_list_remove(&w->destroy.link);
	wl_list_remove(&w->request_configure.link);
	wl_list_remove(&w->request_fullscreen.link);
	wl_list_remove(&w->request_activate.link);
	wl_list_remove(&w->set_geometry.link);
	wl_list_remove(&w->link);
	free(w);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_xwindow *w = wl_container_of(listener, w, destroy);
	window_free(w);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct wbc_xwayland *xw = wl_container_of(listener, xw, new_surface);
	struct wlr_xwayland_surface *xs = data;
	struct wbc_xwindow *w = calloc(1, sizeof(*w));
	if (!w) {
		wbc_log(WLR_ERROR, "X11 window 0x%x: no memory to manage it", xs->window_id);
		return;
	}
	w->xw = xw;
	w->xs = xs;
	wl_list_init(&w->base.link);
	w->map.notify = handle_map;
	wl_signal_add(&xs->events.map, &w->map);
	w->unmap.notify = handle_unmap;
	wl_signal_add(&xs->events.unmap, &w->unmap);
	w->destroy.notify = handle_destroy;
	wl_signal_add(&xs->events.destroy, &w->destroy);
	w->request_configure.notify = handle_request_configure;
	wl_signal_add(&xs->events.request_configure, &w->request_configure);
	w->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&xs->events.request_fullscreen, &w->request_fullscreen);
	w->request_activate.notify = handle_request_activate;
	wl_signal_add(&xs->events.request_activate, &w->request_activate);
	w->set_geometry.notify = handle_set_geometry;
	wl_signal_add(&xs->events.set_geometry, &w->set_geometry);
	wl_list_insert(&xw->windows, &w->link);
}

/* ---- The server ------------------------------------------------------------------------- */

/* Xwayland runs and wlroots' window manager is connected: the root window's cursor. */
static void handle_ready(struct wl_listener *listener, void *data)
{
	struct wbc_xwayland *xw = wl_container_of(listener, xw, ready);
	struct wbc_server *s = xw->server;
	wbc_log(WLR_INFO, "Xwayland ready on DISPLAY=%s", xw->wlr->display_name);
	if (!s->opts->embedded)          /* an embedder's children are its own */
		wbc_launch_reap(s);      /* what ended while Xwayland's starter was wlroots' */
	struct wlr_xcursor *cursor = s->input.xcursor && wbc_cursor_theme_load(s) ?
		wlr_xcursor_manager_get_xcursor(s->input.xcursor, "left_ptr", 1) : NULL;
	if (!cursor || cursor->image_count == 0)
		return;
	struct wlr_xcursor_image *img = cursor->images[0];
	wlr_xwayland_set_cursor(xw->wlr, img->buffer, img->width * 4, img->width, img->height,
		(int32_t)img->hotspot_x, (int32_t)img->hotspot_y);
}

int wbc_xwayland_init(struct wbc_server *s)
{
	if (!s->opts->xwayland)
		return 0;
	struct wbc_xwayland *xw = calloc(1, sizeof(*xw));
	struct wlr_scene_tree *tree = wlr_scene_tree_create(&s->scene->node);
	if (!xw || !tree) {
		free(xw);
		wbc_log(WLR_ERROR, "cannot set up X11 support: out of memory");
		return -1;
	}
	xw->server = s;
	xw->unmanaged = &tree->node;
	wl_list_init(&xw->windows);
	/* lazy: the X sockets now, Xwayland when a client connects to them. */
	xw->wlr = wlr_xwayland_create(s->display, s->compositor, true);
	if (!xw->wlr) {
		wlr_scene_node_destroy(xw->unmanaged);
		free(xw);
		wbc_log(WLR_ERROR, "no X11 for APP: cannot set up Xwayland (is the xwayland "
			"package installed? -v says why; --no-xwayland not to try)");
		return 0;
	}
	wlr_xwayland_set_seat(xw->wlr, s->input.seat);
	xw->ready.notify = handle_ready;
	wl_signal_add(&xw->wlr->events.ready, &xw->ready);
	xw->new_surface.notify = handle_new_surface;
	wl_signal_add(&xw->wlr->events.new_surface, &xw->new_surface);
	s->xwayland = xw;
	wbc_log(WLR_DEBUG, "X11: DISPLAY=%s (Xwayland starts with the first X client)",
		xw->wlr->display_name);
	return 0;
}

const char *wbc_xwayland_display(struct wbc_server *s)
{
	return s->xwayland ? s->xwayland->wlr->display_name : NULL;
}

pid_t wbc_xwayland_starter_pid(struct wbc_server *s)
{
	return s->xwayland && s->xwayland->wlr->server ? s->xwayland->wlr->server->pid : 0;
}

/* wlroots 0.15's wlr_xwayland_destroy leaves the window manager (XWM) it made when
 * Xwayland came up: the XWM goes later with the compositor, through the freed
 * wlr_xwayland (and left to the display's destroy, wlr_xwayland frees its server twice).
 * The XWM goes by itself when Xwayland hangs up its connection: so end Xwayland's Wayland
 * connection for writing (Xwayland reads its end and exits) and let the loop run until
 * the XWM has gone. Hanging the XWM's connection up from this side instead makes
 * Xwayland 22 crash (seen: a segfault and its backtrace on wbc's stderr). */
static void close_xwm(struct wbc_xwayland *xw)
{
	struct wlr_xwayland_server *server = xw->wlr->server;
	if (!xw->wlr->xwm || !server || !server->client)
		return;
	if (shutdown(wl_client_get_fd(server->client), SHUT_WR) != 0)
		return;
	for (int i = 0; i < 500 && xw->wlr->xwm; i++)
		wl_event_loop_dispatch(xw->server->loop, 10);
	if (xw->wlr->xwm)
		wbc_log(WLR_ERROR, "X11: Xwayland did not exit (wbc's exit may crash)");
}

/* Every X window let go, the XWM closed, then wlr_xwayland destroyed: Xwayland loses its
 * Wayland connection and exits, and the X sockets are removed. Before the clients go. */
void wbc_xwayland_finish(struct wbc_server *s)
{
	struct wbc_xwayland *xw = s->xwayland;
	if (!xw)
		return;
	struct wbc_xwindow *w, *tmp;
	wl_list_for_each_safe(w, tmp, &xw->windows, link)
		window_free(w);
	wl_list_remove(&xw->ready.link);
	wl_list_remove(&xw->new_surface.link);
	close_xwm(xw);
	wlr_xwayland_destroy(xw->wlr);
	free(xw);
	s->xwayland = NULL;
}
