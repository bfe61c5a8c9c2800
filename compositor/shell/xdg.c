/* xdg-shell: every toplevel is made fullscreen and sized to the output (centred if it
 * insists on a smaller size) but dialogs (toplevels with a parent), which keep their own
 * size, centred over their parent; under the windowed policy (opts->windowed: tests/wlcs)
 * every toplevel keeps the size it chooses at the place it is given; popups are placed
 * inside the output. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/box.h>
#include "util/log.h"
#include "server.h"
#include "view.h"

/* A toplevel, in server->views from its creation; freed when its xdg_surface is
 * destroyed. base.node goes with the xdg_surface too (the scene's). */
struct wbc_xdg_view {
	struct wbc_view base;
	struct wlr_xdg_surface *xdg;     /* borrowed */
	struct wl_listener map, unmap, destroy, commit, request_fullscreen, request_maximize;
	struct wl_listener request_move, set_parent;
	struct wlr_box sized_to;         /* the box last sent in a configure */
	bool dialog;                     /* kiosk: last sized as a dialog (it has a parent) */
	int x, y;                        /* windowed: its window geometry's top left, layout
	                                  * coordinates */
	int normal_x, normal_y;          /* windowed: x, y before fullscreen or maximized */
};

/* A popup with a parent we know; freed when its xdg_surface is destroyed (or reset by
 * wlr_xdg_popup_destroy). */
struct wbc_popup {
	struct wbc_server *server;
	struct wlr_xdg_surface *xdg;     /* borrowed */
	struct wl_listener map, unmap, destroy;
};

/* The one seam between the kiosk policy and the windowed one; chosen once per server from
 * opts->windowed. */
struct wbc_view_policy {
	void (*size)(struct wbc_xdg_view *v);    /* before a configure goes out */
	void (*place)(struct wbc_xdg_view *v);   /* the node's position in the scene */
	/* The client asked to be (un)fullscreen or (un)maximized: requested says which. */
	void (*request_state)(struct wbc_xdg_view *v);
	bool click_to_focus;                 /* a button press focuses its toplevel */
};

static struct wbc_xdg_view *xdg_view(struct wbc_view *base);

/* A dialog over a kiosk's fullscreen application: the size it chooses (once, so that
 * its acks bring no new configure). */
static void dialog_size(struct wbc_xdg_view *v)
{
	if (v->dialog)
		return;
	v->dialog = true;
	v->sized_to = (struct wlr_box){ 0 };
	wlr_xdg_toplevel_set_fullscreen(v->xdg, false);
	wlr_xdg_toplevel_set_size(v->xdg, 0, 0);
}

/* Centred over its parent's window geometry, and inside the screen where it fits: false
 * when the parent is nowhere (not in the scene). */
static bool dialog_place(struct wbc_xdg_view *v)
{
	struct wlr_xdg_surface *parent = v->xdg->toplevel->parent;
	int px, py;
	if (!parent || !parent->data || !wlr_scene_node_coords(parent->data, &px, &py))
		return false;
	struct wlr_box pgeo, geo, box;
	wlr_xdg_surface_get_geometry(parent, &pgeo);
	wlr_xdg_surface_get_geometry(v->xdg, &geo);
	int x = px + (pgeo.width - geo.width) / 2, y = py + (pgeo.height - geo.height) / 2;
	if (wbc_screen_box(v->base.server, &box)) {
		if (x + geo.width > box.x + box.width)
			x = box.x + box.width - geo.width;
		if (y + geo.height > box.y + box.height)
			y = box.y + box.height - geo.height;
		x = x < box.x ? box.x : x;
		y = y < box.y ? box.y : y;
	}
	wlr_scene_node_set_position(v->base.node, x, y);
	return true;
}

/* A window's dialogs follow it when it moves (a new output size, say). */
static void place_dialogs_of(struct wbc_xdg_view *parent)
{
	struct wbc_view *base;
	wl_list_for_each(base, &parent->base.server->views, link) {
		struct wbc_xdg_view *d = xdg_view(base);
		if (d && d->base.mapped && d->xdg->toplevel->parent == parent->xdg)
			dialog_place(d);
	}
}

/* The window geometry (not the surface: a client-side shadow stays off screen) at the
 * screen's origin, centred when smaller. wlroots' scene already draws the surface at
 * -geometry inside the view's node (scene_xdg_surface_update_position), so the node goes
 * where the geometry's corner belongs. */
static void kiosk_place(struct wbc_xdg_view *v)
{
	if (v->xdg->toplevel->parent && dialog_place(v))
		return;
	struct wlr_box box, geo;
	if (!wbc_screen_box(v->base.server, &box))
		box = (struct wlr_box){ 0 };
	wlr_xdg_surface_get_geometry(v->xdg, &geo);
	int x = box.x, y = box.y;
	if (geo.width > 0 && geo.width < box.width)
		x += (box.width - geo.width) / 2;
	if (geo.height > 0 && geo.height < box.height)
		y += (box.height - geo.height) / 2;
	wlr_scene_node_set_position(v->base.node, x, y);
	place_dialogs_of(v);
}

static void kiosk_size(struct wbc_xdg_view *v)
{
	struct wlr_box box;
	if (v->xdg->toplevel->parent) {
		dialog_size(v);
		return;
	}
	v->dialog = false;
	if (!wbc_screen_box(v->base.server, &box))
		return;
	if (box.width == v->sized_to.width && box.height == v->sized_to.height)
		return;
	v->sized_to = box;
	wlr_xdg_toplevel_set_fullscreen(v->xdg, true);
	wlr_xdg_toplevel_set_size(v->xdg, (uint32_t)box.width, (uint32_t)box.height);
}

/* The client's own size: wlroots' initial configure says 0x0 (client's choice). A
 * maximized or fullscreen window has the box instead, which changes with the outputs and
 * with layer surfaces' exclusive zones: configured again only when it differs (each
 * commit comes here). */
static void windowed_size(struct wbc_xdg_view *v)
{
	const struct wlr_xdg_toplevel_configure *now = &v->xdg->toplevel->scheduled;
	struct wlr_box box;
	if (!(now->maximized || now->fullscreen) || !wbc_screen_box(v->base.server, &box) ||
			(now->width == (uint32_t)box.width && now->height == (uint32_t)box.height))
		return;
	v->x = box.x;
	v->y = box.y;
	wlr_xdg_toplevel_set_size(v->xdg, (uint32_t)box.width, (uint32_t)box.height);
}

/* wlroots' scene puts the surface at minus the window geometry's offset. A geometry the
 * client set is the window (xdg-shell): its top left goes to x, y. Without one, wlroots
 * takes the bounds of the whole surface tree, whose top left moves whenever a subsurface
 * moves past the surface's top or left edge: the main surface goes to x, y instead, so
 * that the window does not jump with its subsurfaces (wlcs' subsurface tests expect it). */
static void windowed_place(struct wbc_xdg_view *v)
{
	struct wlr_box geo = { 0 };
	if (wlr_box_empty(&v->xdg->current.geometry))
		wlr_xdg_surface_get_geometry(v->xdg, &geo);
	wlr_scene_node_set_position(v->base.node, v->x + geo.x, v->y + geo.y);
}

/* Always fullscreen; the protocol wants a configure in reply anyway. */
static void kiosk_request_state(struct wbc_xdg_view *v)
{
	wlr_xdg_surface_schedule_configure(v->xdg);
}

/* Fullscreen or maximized: the first output's box (wbc draws no panels); back to normal:
 * the client's own size at the place it had. */
static void windowed_request_state(struct wbc_xdg_view *v)
{
	const struct wlr_xdg_toplevel_requested *r = &v->xdg->toplevel->requested;
	const struct wlr_xdg_toplevel_configure *now = &v->xdg->toplevel->scheduled;
	bool full = r->fullscreen, max = r->maximized && !full;
	bool was_normal = !now->fullscreen && !now->maximized;
	struct wlr_box box = { 0 };
	wbc_screen_box(v->base.server, &box);
	wlr_xdg_toplevel_set_fullscreen(v->xdg, full);
	wlr_xdg_toplevel_set_maximized(v->xdg, max);
	if (full || max) {
		if (was_normal) {
			v->normal_x = v->x;
			v->normal_y = v->y;
		}
		v->x = box.x;
		v->y = box.y;
		wlr_xdg_toplevel_set_size(v->xdg, (uint32_t)box.width, (uint32_t)box.height);
	} else {
		if (!was_normal) {
			v->x = v->normal_x;
			v->y = v->normal_y;
		}
		wlr_xdg_toplevel_set_size(v->xdg, 0, 0);
	}
}

static const struct wbc_view_policy kiosk = { kiosk_size, kiosk_place, kiosk_request_state,
	false };
static const struct wbc_view_policy windowed = { windowed_size, windowed_place,
	windowed_request_state, true };

static const struct wbc_view_policy *policy(struct wbc_server *s)
{
	return s->opts->windowed ? &windowed : &kiosk;
}

static void view_size(struct wbc_xdg_view *v)
{
	policy(v->base.server)->size(v);
}

static void view_place(struct wbc_xdg_view *v)
{
	policy(v->base.server)->place(v);
	wbc_input_rebase_pointer(v->base.server);
}

/* Menus do not outlive their window's focus (as in sway): popup_done to each popup of v,
 * and to theirs. Their unmap hands a grabbing popup's keyboard focus on. */
static void view_close_popups(struct wbc_xdg_view *v)
{
	struct wlr_xdg_popup *popup, *tmp;
	wl_list_for_each_safe(popup, tmp, &v->xdg->popups, link)
		wlr_xdg_popup_destroy(popup->base);
}

/* ---- The view kind (view.h) --------------------------------------------------------- */

static struct wlr_surface *kind_surface(struct wbc_view *base)
{
	struct wbc_xdg_view *v = wl_container_of(base, v, base);
	return v->xdg->surface;
}

static void kind_activate(struct wbc_view *base, bool on)
{
	struct wbc_xdg_view *v = wl_container_of(base, v, base);
	wlr_xdg_toplevel_set_activated(v->xdg, on);
}

static void kind_blurred(struct wbc_view *base)
{
	struct wbc_xdg_view *v = wl_container_of(base, v, base);
	view_close_popups(v);
}

static void kind_fit(struct wbc_view *base)
{
	struct wbc_xdg_view *v = wl_container_of(base, v, base);
	if (v->xdg->added)
		view_size(v);
	if (v->base.mapped)
		view_place(v);
}

static const struct wbc_view_kind xdg_kind = { kind_surface, kind_activate, kind_blurred,
	kind_fit };

static struct wbc_xdg_view *xdg_view(struct wbc_view *base)
{
	if (!base || base->kind != &xdg_kind)
		return NULL;
	struct wbc_xdg_view *v = wl_container_of(base, v, base);
	return v;
}

/* ---- Events --------------------------------------------------------------------------- */

static void handle_map(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, map);
	v->base.mapped = true;
	view_place(v);
	wbc_view_focus(&v->base);
}

static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, unmap);
	struct wbc_server *s = v->base.server;
	v->base.mapped = false;
	if (s->move.view == v)
		s->move.view = NULL;
	wbc_input_rebase_pointer(s);     /* the scene hid it already (its listener came first) */
	wbc_view_unmapped(&v->base);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, commit);
	/* The first commit is when the initial configure goes out: size it there. */
	view_size(v);
	if (v->base.mapped)
		view_place(v);
}

/* Kiosk policy: a parent given or taken away (wlroots also takes it when the parent
 * unmaps) makes a dialog a fullscreen application or the other way round. (The windowed
 * policy treats both alike.) */
static void handle_set_parent(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, set_parent);
	if (v->base.server->opts->windowed)
		return;
	kind_fit(&v->base);
}

static void handle_request_state(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, request_fullscreen);
	if (v->xdg->added)
		policy(v->base.server)->request_state(v);
}

static void handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, request_maximize);
	if (v->xdg->added)
		policy(v->base.server)->request_state(v);
}

/* Windowed policy: the window follows the pointer until the button goes up; refused
 * unless the serial is that of a button press on it still held. */
static void handle_request_move(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, request_move);
	struct wbc_server *s = v->base.server;
	struct wlr_xdg_toplevel_move_event *ev = data;
	if (!s->opts->windowed || !v->base.mapped ||
			!wlr_seat_validate_pointer_grab_serial(s->input.seat, v->xdg->surface,
				ev->serial))
		return;
	s->move.view = v;
	s->move.dx = s->input.cursor->x - v->x;
	s->move.dy = s->input.cursor->y - v->y;
	wlr_seat_pointer_clear_focus(s->input.seat);
}

bool wbc_xdg_move_motion(struct wbc_server *s)
{
	struct wbc_xdg_view *v = s->move.view;
	if (!v)
		return false;
	v->x = (int)(s->input.cursor->x - s->move.dx);
	v->y = (int)(s->input.cursor->y - s->move.dy);
	windowed_place(v);               /* not view_place: no pointer rebase in a move */
	return true;
}

bool wbc_xdg_move_end(struct wbc_server *s)
{
	if (!s->move.view)
		return false;
	s->move.view = NULL;
	return true;
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_xdg_view *v = wl_container_of(listener, v, destroy);
	if (v->base.server->move.view == v)
		v->base.server->move.view = NULL;
	wl_list_remove(&v->request_move.link);
	wl_list_remove(&v->set_parent.link);
	wl_list_remove(&v->map.link);
	wl_list_remove(&v->unmap.link);
	wl_list_remove(&v->destroy.link);
	wl_list_remove(&v->commit.link);
	wl_list_remove(&v->request_fullscreen.link);
	wl_list_remove(&v->request_maximize.link);
	wbc_view_remove(&v->base);
	free(v);
}

static void new_toplevel(struct wbc_server *s, struct wlr_xdg_surface *xdg)
{
	struct wbc_xdg_view *v = calloc(1, sizeof(*v));
	if (!v) {
		wl_resource_post_no_memory(xdg->resource);
		return;
	}
	v->xdg = xdg;
	v->base.node = wlr_scene_xdg_surface_create(s->view_tree, xdg);
	if (!v->base.node) {
		free(v);
		wl_resource_post_no_memory(xdg->resource);
		return;
	}
	v->base.node->data = &v->base;
	xdg->data = v->base.node;
	v->map.notify = handle_map;
	wl_signal_add(&xdg->events.map, &v->map);
	v->unmap.notify = handle_unmap;
	wl_signal_add(&xdg->events.unmap, &v->unmap);
	v->destroy.notify = handle_destroy;
	wl_signal_add(&xdg->events.destroy, &v->destroy);
	v->commit.notify = handle_commit;
	wl_signal_add(&xdg->surface->events.commit, &v->commit);
	v->request_fullscreen.notify = handle_request_state;
	wl_signal_add(&xdg->toplevel->events.request_fullscreen, &v->request_fullscreen);
	v->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&xdg->toplevel->events.request_maximize, &v->request_maximize);
	v->request_move.notify = handle_request_move;
	wl_signal_add(&xdg->toplevel->events.request_move, &v->request_move);
	v->set_parent.notify = handle_set_parent;
	wl_signal_add(&xdg->toplevel->events.set_parent, &v->set_parent);
	wbc_view_add(&v->base, s, &xdg_kind);
	struct wlr_box box;
	if (wbc_screen_box(s, &box)) {
		v->x = box.x;
		v->y = box.y;
	}
	/* wlroots 0.15 announces the surface on its initial commit, whose configure is
	 * scheduled but not sent yet: this size goes out with it. A state asked for before
	 * (maximized, fullscreen) came while the surface was not added: handled now. */
	if (xdg->toplevel->requested.maximized || xdg->toplevel->requested.fullscreen)
		policy(s)->request_state(v);
	view_size(v);
}

/* xdg_popup.grab: "the top most grabbing popup will always have keyboard focus".
 * wlroots 0.15 grabs the keyboard for it but leaves the focus where it was. */
static void handle_popup_map(struct wl_listener *listener, void *data)
{
	struct wbc_popup *p = wl_container_of(listener, p, map);
	if (p->xdg->popup->seat)
		wbc_input_focus_surface(p->server, p->xdg->surface, true);
}

/* A grabbing popup that had the keyboard goes: the focus goes to the grabbing popup
 * under it, else to the focused toplevel. wlroots emits unmap before it ends the grab,
 * hence past_grab. */
static void handle_popup_unmap(struct wl_listener *listener, void *data)
{
	struct wbc_popup *p = wl_container_of(listener, p, unmap);
	struct wbc_server *s = p->server;
	if (s->input.seat->keyboard_state.focused_surface != p->xdg->surface)
		return;
	struct wlr_surface *parent = p->xdg->popup->parent;
	while (parent && wlr_surface_is_xdg_surface(parent)) {
		struct wlr_xdg_surface *x = wlr_xdg_surface_from_wlr_surface(parent);
		if (x->role != WLR_XDG_SURFACE_ROLE_POPUP)
			break;
		if (x->mapped && x->popup->seat) {
			wbc_input_focus_surface(s, parent, true);
			return;
		}
		parent = x->popup->parent;
	}
	struct wbc_view *first = wbc_view_focused(s);
	wbc_input_focus_surface(s, first ? first->kind->surface(first) : NULL, true);
}

static void handle_popup_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_popup *p = wl_container_of(listener, p, destroy);
	wl_list_remove(&p->map.link);
	wl_list_remove(&p->unmap.link);
	wl_list_remove(&p->destroy.link);
	free(p);
}

static void new_popup(struct wbc_server *s, struct wlr_xdg_surface *xdg)
{
	struct wlr_xdg_popup *popup = xdg->popup;
	if (!popup->parent || !wlr_surface_is_xdg_surface(popup->parent))
		return;                      /* no parent we know: it stays unmapped */
	struct wlr_xdg_surface *parent = wlr_xdg_surface_from_wlr_surface(popup->parent);
	struct wlr_scene_node *parent_node = parent->data;
	if (!parent_node)
		return;
	struct wlr_scene_node *node = wlr_scene_xdg_surface_create(parent_node, xdg);
	if (!node) {
		wl_resource_post_no_memory(xdg->resource);
		return;
	}
	xdg->data = node;
	struct wbc_popup *p = calloc(1, sizeof(*p));
	if (!p) {
		wl_resource_post_no_memory(xdg->resource);
		return;
	}
	p->server = s;
	p->xdg = xdg;
	p->map.notify = handle_popup_map;
	wl_signal_add(&xdg->events.map, &p->map);
	p->unmap.notify = handle_popup_unmap;
	wl_signal_add(&xdg->events.unmap, &p->unmap);
	p->destroy.notify = handle_popup_destroy;
	wl_signal_add(&xdg->events.destroy, &p->destroy);
	/* Keep it inside the output: the box in the coordinates of its toplevel. */
	struct wlr_xdg_surface *top = parent;
	while (top->role == WLR_XDG_SURFACE_ROLE_POPUP && top->popup->parent &&
			wlr_surface_is_xdg_surface(top->popup->parent))
		top = wlr_xdg_surface_from_wlr_surface(top->popup->parent);
	struct wlr_box box;
	int lx = 0, ly = 0;
	if (top->data && wbc_screen_box(s, &box) &&
			wlr_scene_node_coords(top->data, &lx, &ly)) {
		box.x -= lx;
		box.y -= ly;
		wlr_xdg_popup_unconstrain_from_box(popup, &box);
	}
}

static void handle_new_xdg_surface(struct wl_listener *listener, void *data)
{
	struct wbc_server *s = wl_container_of(listener, s, new_xdg_surface);
	struct wlr_xdg_surface *xdg = data;
	if (xdg->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL)
		new_toplevel(s, xdg);
	else if (xdg->role == WLR_XDG_SURFACE_ROLE_POPUP)
		new_popup(s, xdg);
}

/* The view of this xdg_surface, NULL if none. */
static struct wbc_xdg_view *find(struct wbc_server *s, struct wlr_xdg_surface *xdg)
{
	struct wbc_view *base;
	wl_list_for_each(base, &s->views, link) {
		struct wbc_xdg_view *v = xdg_view(base);
		if (v && v->xdg == xdg)
			return v;
	}
	return NULL;
}

void wbc_xdg_click(struct wbc_server *s, struct wlr_surface *surface)
{
	if (!policy(s)->click_to_focus || !surface)
		return;
	struct wlr_surface *root = wlr_surface_get_root_surface(surface);
	if (!wlr_surface_is_xdg_surface(root))
		return;
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(root);
	while (xdg && xdg->role == WLR_XDG_SURFACE_ROLE_POPUP)
		xdg = xdg->popup->parent && wlr_surface_is_xdg_surface(xdg->popup->parent) ?
			wlr_xdg_surface_from_wlr_surface(xdg->popup->parent) : NULL;
	struct wbc_xdg_view *v = xdg ? find(s, xdg) : NULL;
	if (v && v->base.mapped)
		wbc_view_focus(&v->base);
}

int wbc_xdg_move(struct wbc_server *s, struct wlr_surface *surface, int x, int y)
{
	if (!wlr_surface_is_xdg_surface(surface))
		return -1;
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
	struct wbc_xdg_view *v = find(s, xdg);
	if (!v)
		return -1;
	v->x = x;
	v->y = y;
	view_place(v);
	return 0;
}

int wbc_xdg_init(struct wbc_server *s)
{
	s->xdg_shell = wlr_xdg_shell_create(s->display);
	if (!s->xdg_shell)
		return -1;
	s->new_xdg_surface.notify = handle_new_xdg_surface;
	wl_signal_add(&s->xdg_shell->events.new_surface, &s->new_xdg_surface);
	return 0;
}
