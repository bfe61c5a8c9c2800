/* wlr-layer-shell-unstable-v1: panels, overlays, wallpapers and on-screen keyboards.
 * wlroots 0.15 implements the protocol (wlr_layer_shell_v1) but leaves the arrangement to
 * the compositor (wlr_scene's layer-shell helper came with 0.16): this file sizes and
 * places each layer surface on its output by its anchors, margins and size, shows it in
 * its layer's scene tree, and takes the exclusive zones off the area toplevels fill.
 * Pointer and touch reach layer surfaces as any surface in the scene (input.c asks the
 * scene what is under a point); the keyboard goes to them as the interactivity they ask
 * for says. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/box.h>
#include "layer.h"
#include "util/log.h"
#include "server.h"
#include "view.h"

#define ANCHOR_TOP ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP
#define ANCHOR_BOTTOM ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM
#define ANCHOR_LEFT ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT
#define ANCHOR_RIGHT ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT
#define ANCHOR_H (ANCHOR_LEFT | ANCHOR_RIGHT)
#define ANCHOR_V (ANCHOR_TOP | ANCHOR_BOTTOM)
#define N_LAYERS 4                       /* background, bottom, top, overlay */

/* The layer-shell state; owned by server->layers from wbc_layer_init to wbc_layer_finish. */
struct wbc_layers {
	struct wbc_server *server;
	struct wlr_layer_shell_v1 *shell;    /* the display's global */
	/* Owned by the scene, one per zwlr_layer_shell_v1_layer (its value is the index). */
	struct wlr_scene_node *trees[N_LAYERS];
	struct wl_list surfaces;             /* wbc_layer_surface.link, oldest first */
	struct wbc_layer_surface *focus;     /* borrowed: the one with the keyboard, or NULL */
	struct wlr_box app_box;              /* what toplevels were last fitted to */
	struct wl_listener new_surface, layout_change;
};

/* One per wlr_layer_surface_v1, from the shell's new_surface until wlroots destroys it. */
struct wbc_layer_surface {
	struct wbc_layers *layers;
	struct wlr_layer_surface_v1 *ls;     /* borrowed */
	/* Owned: the surface's place in its layer's tree. The surface with its subsurfaces
	 * and its popups are children, so destroying it takes them along, whichever of the
	 * layer surface and the wl_surface goes first. */
	struct wlr_scene_node *tree;
	bool bad;                            /* sent a protocol error: not arranged again */
	/* Between its map and unmap signals. Not ls->mapped: wlroots 0.15 emits unmap while
	 * that is still true, and the zone must be gone when toplevels are fitted again. */
	bool mapped;
	/* The client asked for a configure (its initial commit, or the one after an unmap)
	 * and has not unmapped since: only then may configures go out. */
	bool wants_configure;
	bool sent;                           /* a configure of sent_w x sent_h went out */
	int sent_w, sent_h;
	struct wl_listener map, unmap, commit, destroy, new_popup, output_destroy;
	struct wl_list link;                 /* wbc_layers.surfaces */
};

/* ---- Arrangement ---------------------------------------------------------------------- */

/* One axis of the placement in bounds [start, start+len): pinned to the anchored edge
 * (plus its margin), stretched between both edges when its size is 0 (the protocol lets
 * a size be 0 only then), else centred between the anchors, or on the output without. */
static void place_axis(int start, int len, bool lo, bool hi, int mlo, int mhi, int *pos,
		int *size)
{
	if (lo && hi && *size == 0) {
		*pos = start + mlo;
		*size = len - mlo - mhi;
	} else if (lo && !hi) {
		*pos = start + mlo;
	} else if (hi && !lo) {
		*pos = start + len - *size - mhi;
	} else {
		*pos = start + (len - *size) / 2;
	}
}

/* Where l goes in bounds, and its size. Margins are protocol ints (wlroots stores them
 * unsigned): a negative one moves the surface past the edge. */
static struct wlr_box place(const struct wbc_layer_surface *l, const struct wlr_box *bounds)
{
	const struct wlr_layer_surface_v1_state *st = &l->ls->current;
	struct wlr_box b = { .width = (int)st->desired_width, .height = (int)st->desired_height };
	place_axis(bounds->x, bounds->width, st->anchor & ANCHOR_LEFT, st->anchor & ANCHOR_RIGHT,
		(int32_t)st->margin.left, (int32_t)st->margin.right, &b.x, &b.width);
	place_axis(bounds->y, bounds->height, st->anchor & ANCHOR_TOP, st->anchor & ANCHOR_BOTTOM,
		(int32_t)st->margin.top, (int32_t)st->margin.bottom, &b.y, &b.height);
	return b;
}

/* The edge a positive exclusive zone is taken from: the protocol gives it meaning only
 * for a surface anchored to one edge, alone or with both edges perpendicular to it.
 * 0: none (a corner, two parallel edges, all four, or a zone of 0 or -1). */
static uint32_t exclusive_edge(const struct wlr_layer_surface_v1_state *st)
{
	const uint32_t edges[] = { ANCHOR_TOP, ANCHOR_BOTTOM, ANCHOR_LEFT, ANCHOR_RIGHT };
	if (st->exclusive_zone <= 0)
		return 0;
	for (size_t i = 0; i < 4; i++) {
		uint32_t across = (edges[i] & ANCHOR_V) ? ANCHOR_H : ANCHOR_V;
		if (st->anchor == edges[i] || st->anchor == (edges[i] | across))
			return edges[i];
	}
	return 0;
}

/* Take zone off usable at edge, with the margin at that edge: "The exclusive zone
 * includes the margin" as sway and wlcs (after Mir) read it (the
 * surface sits margin away from the edge and excludes zone beyond that). */
static void reserve(struct wlr_box *usable, uint32_t edge,
		const struct wlr_layer_surface_v1_state *st)
{
	int margin = (int32_t)(edge == ANCHOR_TOP ? st->margin.top :
		edge == ANCHOR_BOTTOM ? st->margin.bottom :
		edge == ANCHOR_LEFT ? st->margin.left : st->margin.right);
	int zone = st->exclusive_zone + margin;
	zone = zone > 0 ? zone : 0;
	int *len = (edge & ANCHOR_V) ? &usable->height : &usable->width;
	zone = zone < *len ? zone : *len;
	if (edge == ANCHOR_TOP)
		usable->y += zone;
	else if (edge == ANCHOR_LEFT)
		usable->x += zone;
	*len -= zone;
}

/* Size and place l in bounds: the node goes there now, the configure only when the size
 * changed (each configure wants an ack and a new buffer). A size that does not fit (its
 * margins wider than the output) is made 1 pixel rather than the surface closed: closing
 * it here would reenter the arrangement from its unmap. */
static void apply(struct wbc_layer_surface *l, const struct wlr_box *bounds)
{
	struct wlr_box b = place(l, bounds);
	b.width = b.width > 0 ? b.width : 1;
	b.height = b.height > 0 ? b.height : 1;
	wlr_scene_node_set_position(l->tree, b.x, b.y);
	if (!l->wants_configure || (l->sent && l->sent_w == b.width && l->sent_h == b.height))
		return;
	wlr_layer_surface_v1_configure(l->ls, (uint32_t)b.width, (uint32_t)b.height);
	l->sent = true;
	l->sent_w = b.width;
	l->sent_h = b.height;
}

/*
 * The output's surfaces in the order exclusive zones are taken: those with a zone first,
 * from the overlay layer down, each placed in what the ones before left and then taking
 * its own zone; then the others, in what all zones left (zone 0: "moved to avoid
 * occluding") or on the whole output (zone -1: "extend it all the way to the edges").
 * Only mapped surfaces take zones: a surface not shown reserves nothing. full: the
 * output's box; usable: what is left. With do_apply false this only computes usable.
 */
static void arrange_output(struct wbc_layers *L, struct wlr_output *output,
		const struct wlr_box *full, bool do_apply, struct wlr_box *usable)
{
	*usable = *full;
	for (int pass = 0; pass < 2; pass++) {
		for (int layer = N_LAYERS - 1; layer >= 0; layer--) {
			struct wbc_layer_surface *l;
			wl_list_for_each(l, &L->surfaces, link) {
				const struct wlr_layer_surface_v1_state *st = &l->ls->current;
				uint32_t edge = exclusive_edge(st);
				if (l->bad || l->ls->output != output || (int)st->layer != layer ||
						(pass == 0) != (edge != 0))
					continue;
				if (do_apply)
					apply(l, st->exclusive_zone < 0 ? full : usable);
				if (edge && l->mapped)
					reserve(usable, edge, st);
			}
		}
	}
}

void wbc_layer_usable_box(struct wbc_server *s, struct wlr_output *output,
		struct wlr_box *box)
{
	struct wlr_box full = *box;
	if (s->layers)
		arrange_output(s->layers, output, &full, false, box);
}

/* Every output's layer surfaces placed again; toplevels follow if their area changed. */
static void arrange(struct wbc_layers *L)
{
	struct wlr_output_layout_output *lo;
	wl_list_for_each(lo, &L->server->layout->outputs, link) {
		const struct wlr_box *full = wlr_output_layout_get_box(L->server->layout,
			lo->output);
		struct wlr_box usable;
		if (full && !wlr_box_empty(full))
			arrange_output(L, lo->output, full, true, &usable);
	}
	struct wlr_box box;
	if (!wbc_screen_box(L->server, &box))
		return;
	if (box.x != L->app_box.x || box.y != L->app_box.y || box.width != L->app_box.width ||
			box.height != L->app_box.height) {
		L->app_box = box;
		if (!wl_list_empty(&L->surfaces))   /* not said in every run: only with some */
			wbc_log(WLR_INFO, "layer: toplevels fill %dx%d at %d,%d", box.width,
				box.height, box.x, box.y);
		wbc_view_fit_all(L->server);
	}
}

/* ---- Keyboard ------------------------------------------------------------------------- */

/* "exclusive": the surface gets the keyboard while mapped, but the protocol allows that
 * only on the top and overlay layers ("for the bottom and background layers, the
 * compositor is allowed to use normal focus semantics"): there it is as on-demand. */
static bool is_exclusive(const struct wbc_layer_surface *l)
{
	const struct wlr_layer_surface_v1_state *st = &l->ls->current;
	return l->mapped &&
		st->keyboard_interactive == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE &&
		st->layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP;
}

static void take_keyboard(struct wbc_layers *L, struct wbc_layer_surface *l)
{
	L->focus = l;                    /* first: wbc_layer_keeps_keyboard lets it through */
	wbc_input_focus_surface(L->server, l->ls->surface, false);
}

/* The keyboard goes back where it belongs without a layer surface: to another exclusive
 * one if one is mapped (the newest), else to the focused toplevel. */
static void give_back_keyboard(struct wbc_layers *L)
{
	struct wbc_layer_surface *l;
	L->focus = NULL;
	wl_list_for_each_reverse(l, &L->surfaces, link) {
		if (is_exclusive(l)) {
			take_keyboard(L, l);
			return;
		}
	}
	struct wbc_view *v = wbc_view_focused(L->server);
	wbc_input_focus_surface(L->server, v ? v->kind->surface(v) : NULL, false);
}

/* l mapped, unmapped or changed its interactivity or layer. */
static void update_keyboard(struct wbc_layer_surface *l)
{
	struct wbc_layers *L = l->layers;
	enum zwlr_layer_surface_v1_keyboard_interactivity k = l->ls->current.keyboard_interactive;
	if (is_exclusive(l) && L->focus != l && !(L->focus && is_exclusive(L->focus)))
		take_keyboard(L, l);
	else if (L->focus == l && (!l->mapped ||
			k == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE))
		give_back_keyboard(L);
}

bool wbc_layer_keeps_keyboard(struct wbc_server *s, struct wlr_surface *surface)
{
	struct wbc_layers *L = s->layers;
	return L && L->focus && is_exclusive(L->focus) && L->focus->ls->surface != surface;
}

/* The layer surface whose wl_surface (or subsurface) this is, NULL if none. Its popups'
 * surfaces are xdg surfaces of their own: a click there changes nothing. */
static struct wbc_layer_surface *layer_of(struct wlr_surface *surface)
{
	struct wlr_surface *root = surface ? wlr_surface_get_root_surface(surface) : NULL;
	if (!root || !wlr_surface_is_layer_surface(root))
		return NULL;
	struct wlr_layer_surface_v1 *ls = wlr_layer_surface_v1_from_wlr_surface(root);
	return ls ? ls->data : NULL;
}

void wbc_layer_click(struct wbc_server *s, struct wlr_surface *surface)
{
	struct wbc_layers *L = s->layers;
	if (!L || (L->focus && is_exclusive(L->focus)))
		return;
	struct wbc_layer_surface *l = layer_of(surface);
	/* On-demand, or exclusive below the toplevels (which is as on-demand, is_exclusive). */
	if (l && l->mapped && l->ls->current.keyboard_interactive !=
			ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE) {
		if (L->focus != l)
			take_keyboard(L, l);
	} else if (!l && L->focus) {
		give_back_keyboard(L);   /* on-demand: the app again, once it is touched */
	}
}

/* ---- One layer surface ------------------------------------------------------------------ */

/* "If you pass 0 for either value, the compositor will assign it [...] You must set your
 * anchor to opposite edges in the dimensions you omit; not doing so is a protocol error."
 * wlroots 0.15.1 (Debian 12's) does not check it (later wlroots does, with these words):
 * wbc does, at each commit, with one line. False when the error was sent. */
static bool check_size(struct wlr_layer_surface_v1 *ls)
{
	const struct wlr_layer_surface_v1_state *st = &ls->current;
	const char *why = NULL;
	if (st->desired_width == 0 && (st->anchor & ANCHOR_H) != ANCHOR_H)
		why = "width 0 requested without setting left and right anchors";
	else if (st->desired_height == 0 && (st->anchor & ANCHOR_V) != ANCHOR_V)
		why = "height 0 requested without setting top and bottom anchors";
	if (!why)
		return true;
	wbc_log(WLR_INFO, "layer surface '%s': %s: protocol error", ls->namespace, why);
	wl_resource_post_error(ls->resource, ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE, "%s", why);
	return false;
}

static const char *const layer_names[N_LAYERS] = { "background", "bottom", "top", "overlay" };

static void handle_map(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, map);
	const struct wlr_layer_surface_v1_state *st = &l->ls->current;
	l->mapped = true;
	wlr_scene_node_set_enabled(l->tree, true);
	arrange(l->layers);
	wbc_log(WLR_INFO, "layer surface '%s' mapped on %s: %s layer, %dx%d at %d,%d, "
		"exclusive zone %d", l->ls->namespace, l->ls->output->name, layer_names[st->layer],
		l->sent_w, l->sent_h, l->tree->state.x, l->tree->state.y, st->exclusive_zone);
	/* On-demand on top or overlay: focused as it appears (a launcher or a menu is
	 * there to be typed into; sway does the same), and given back when the app is
	 * clicked or touched. */
	struct wbc_layers *L = l->layers;
	if (st->keyboard_interactive == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND &&
			st->layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP && !(L->focus && is_exclusive(L->focus)))
		take_keyboard(L, l);
	update_keyboard(l);
	wbc_input_rebase_pointer(l->layers->server);
}

/* wlroots forgets the configures it sent: after an unmap the client starts over with an
 * initial commit, which is answered with a configure (handle_commit). */
static void handle_unmap(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, unmap);
	l->mapped = false;
	wlr_scene_node_set_enabled(l->tree, false);
	l->wants_configure = false;
	l->sent = false;
	wbc_log(WLR_INFO, "layer surface '%s' unmapped", l->ls->namespace);
	arrange(l->layers);
	update_keyboard(l);
	wbc_input_rebase_pointer(l->layers->server);
}

static void handle_commit(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, commit);
	struct wbc_layers *L = l->layers;
	uint32_t changed = l->ls->current.committed;
	if (l->bad)
		return;
	if ((changed & (WLR_LAYER_SURFACE_V1_STATE_DESIRED_SIZE |
			WLR_LAYER_SURFACE_V1_STATE_ANCHOR)) && !check_size(l->ls)) {
		l->bad = true;               /* the client is disconnected soon */
		wlr_scene_node_set_enabled(l->tree, false);
		arrange(L);                  /* without it */
		return;
	}
	if (changed & WLR_LAYER_SURFACE_V1_STATE_LAYER)
		wlr_scene_node_reparent(l->tree, L->trees[l->ls->current.layer]);
	bool initial = !l->mapped && !l->wants_configure;
	if (initial)
		l->wants_configure = true;
	if (changed || initial)
		arrange(L);
	if (changed & (WLR_LAYER_SURFACE_V1_STATE_KEYBOARD_INTERACTIVITY |
			WLR_LAYER_SURFACE_V1_STATE_LAYER))
		update_keyboard(l);
}

/* A popup (a menu of a panel, say): shown with its layer surface, kept on the output. */
static void handle_new_popup(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, new_popup);
	struct wlr_xdg_popup *popup = data;
	struct wlr_scene_node *node = wlr_scene_xdg_surface_create(l->tree, popup->base);
	if (!node) {
		wl_resource_post_no_memory(popup->resource);
		return;
	}
	popup->base->data = node;        /* xdg.c puts this popup's own popups under it */
	const struct wlr_box *out = wlr_output_layout_get_box(l->layers->server->layout,
		l->ls->output);
	int lx, ly;
	if (out && wlr_scene_node_coords(l->tree, &lx, &ly)) {
		struct wlr_box box = { out->x - lx, out->y - ly, out->width, out->height };
		wlr_xdg_popup_unconstrain_from_box(popup, &box);
	}
}

static void surface_free(struct wbc_layer_surface *l)
{
	wl_list_remove(&l->map.link);
	wl_list_remove(&l->unmap.link);
	wl_list_remove(&l->commit.link);
	wl_list_remove(&l->destroy.link);
	wl_list_remove(&l->new_popup.link);
	wl_list_remove(&l->output_destroy.link);
	wl_list_remove(&l->link);
	wlr_scene_node_destroy(l->tree);
	l->ls->data = NULL;
	free(l);
}

/* wlroots unmapped it first if it was mapped (and so rearranged and gave the keyboard
 * back). wlroots 0.15 frees the configures not yet acked only when it unmaps the
 * surface: those of a surface destroyed unmapped (closed before it mapped, or after a
 * configure following an unmap) would leak, so they are freed here. Nothing reads the
 * list after the destroy signal (layer_surface_destroy frees the surface next). */
static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, destroy);
	struct wlr_layer_surface_v1_configure *c, *tmp;
	wl_list_for_each_safe(c, tmp, &l->ls->configure_list, link) {
		wl_list_remove(&c->link);
		free(c);
	}
	if (l->layers->focus == l)
		l->layers->focus = NULL;
	surface_free(l);
}

/* Its output went: the protocol's answer is closed (the client may ask again for
 * another output). */
static void handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_layer_surface *l = wl_container_of(listener, l, output_destroy);
	wbc_log(WLR_INFO, "layer surface '%s': its output %s went: closed", l->ls->namespace,
		l->ls->output->name);
	wlr_layer_surface_v1_destroy(l->ls);   /* frees l through handle_destroy */
}

static void listen(struct wl_listener *listener, wl_notify_func_t notify,
		struct wl_signal *signal)
{
	listener->notify = notify;
	wl_signal_add(signal, listener);
}

/* On its initial commit: wlroots wants a configure before this returns, which arrange()
 * sends. No output asked for: the one toplevels fill. */
static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct wbc_layers *L = wl_container_of(listener, L, new_surface);
	struct wlr_layer_surface_v1 *ls = data;
	if (!check_size(ls))
		return;                      /* no configure: the client is disconnected soon */
	if (!ls->output)
		ls->output = wbc_screen_output_for(L->server, NULL);
	struct wbc_layer_surface *l = ls->output ? calloc(1, sizeof(*l)) : NULL;
	struct wlr_scene_tree *tree = l ? wlr_scene_tree_create(L->trees[ls->current.layer]) :
		NULL;
	if (!tree || !wlr_scene_subsurface_tree_create(&tree->node, ls->surface)) {
		wbc_log(WLR_ERROR, "layer surface '%s': %s: closed", ls->namespace,
			ls->output ? "out of memory" : "no output");
		if (tree)
			wlr_scene_node_destroy(&tree->node);
		free(l);
		wlr_layer_surface_v1_destroy(ls);
		return;
	}
	*l = (struct wbc_layer_surface){ .layers = L, .ls = ls, .tree = &tree->node,
		.wants_configure = true };
	wlr_scene_node_set_enabled(l->tree, false);   /* until it maps */
	listen(&l->map, handle_map, &ls->events.map);
	listen(&l->unmap, handle_unmap, &ls->events.unmap);
	listen(&l->destroy, handle_destroy, &ls->events.destroy);
	listen(&l->new_popup, handle_new_popup, &ls->events.new_popup);
	listen(&l->commit, handle_commit, &ls->surface->events.commit);
	listen(&l->output_destroy, handle_output_destroy, &ls->output->events.destroy);
	wl_list_insert(L->surfaces.prev, &l->link);
	ls->data = l;
	wbc_log(WLR_DEBUG, "layer surface '%s' on %s, %s layer, anchors %#x, size %ux%u, "
		"exclusive zone %d", ls->namespace, ls->output->name, layer_names[ls->current.layer],
		ls->current.anchor, ls->current.desired_width, ls->current.desired_height,
		ls->current.exclusive_zone);
	arrange(L);
}

/* ---- Setup ------------------------------------------------------------------------------ */

/* An output came, went or changed size: every layer surface is placed again. */
static void handle_layout_change(struct wl_listener *listener, void *data)
{
	struct wbc_layers *L = wl_container_of(listener, L, layout_change);
	arrange(L);
}

int wbc_layer_init(struct wbc_server *s)
{
	struct wbc_layers *L = calloc(1, sizeof(*L));
	if (!L)
		return -1;
	s->layers = L;
	L->server = s;
	wl_list_init(&L->surfaces);
	/* Background and bottom under the toplevels, top and overlay over them: each tree
	 * created in place, so that the four keep their order among themselves. */
	for (int i = 0; i < N_LAYERS; i++) {
		struct wlr_scene_tree *t = wlr_scene_tree_create(&s->scene->node);
		if (!t)
			return -1;
		L->trees[i] = &t->node;
		if (i <= ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM)
			wlr_scene_node_place_below(&t->node, s->view_tree);
	}
	L->shell = wlr_layer_shell_v1_create(s->display);
	if (!L->shell)
		return -1;
	listen(&L->new_surface, handle_new_surface, &L->shell->events.new_surface);
	listen(&L->layout_change, handle_layout_change, &s->layout->events.change);
	return 0;
}

void wbc_layer_finish(struct wbc_server *s)
{
	struct wbc_layers *L = s->layers;
	if (!L)
		return;
	if (L->new_surface.notify) {
		wl_list_remove(&L->new_surface.link);
		wl_list_remove(&L->layout_change.link);
	}
	/* Their clients are gone by now (wl_display_destroy_clients): any left are freed
	 * without their surfaces. */
	struct wbc_layer_surface *l, *tmp;
	wl_list_for_each_safe(l, tmp, &L->surfaces, link)
		surface_free(l);
	free(L);
	s->layers = NULL;
}
