/* What toplevels of every kind share: the server's list of them (focused first), focus
 * and stacking. The kinds (xdg.c, xwayland.c) say how each is told. */
#include <wlr/types/wlr_scene.h>
#include "server.h"
#include "view.h"

void wbc_view_add(struct wbc_view *v, struct wbc_server *s, const struct wbc_view_kind *kind)
{
	v->server = s;
	v->kind = kind;
	wl_list_insert(s->views.prev, &v->link);
}

void wbc_view_remove(struct wbc_view *v)
{
	wl_list_remove(&v->link);
	wl_list_init(&v->link);
}

static struct wbc_view *first(struct wbc_server *s)
{
	struct wbc_view *v;
	return wl_list_empty(&s->views) ? NULL : wl_container_of(s->views.next, v, link);
}

struct wbc_view *wbc_view_focused(struct wbc_server *s)
{
	struct wbc_view *v = first(s);
	return v && v->mapped ? v : NULL;
}

void wbc_view_focus(struct wbc_view *v)
{
	struct wbc_server *s = v->server;
	struct wbc_view *prev = first(s);
	if (prev && prev != v && prev->mapped)
		prev->kind->activate(prev, false);
	wl_list_remove(&v->link);
	wl_list_insert(&s->views, &v->link);
	if (v->node)
		wlr_scene_node_raise_to_top(v->node);
	v->kind->activate(v, true);
	if (prev && prev != v && prev->kind->blurred)
		prev->kind->blurred(prev);   /* ends their grab, if any: the enter below counts */
	wbc_input_focus_surface(s, v->kind->surface(v), false);
}

void wbc_view_unmapped(struct wbc_view *v)
{
	struct wbc_server *s = v->server;
	if (first(s) != v)
		return;
	/* It had the focus: hand it to the next mapped view, if any. */
	struct wbc_view *next;
	wl_list_for_each(next, &s->views, link) {
		if (next != v && next->mapped) {
			wbc_view_focus(next);
			return;
		}
	}
	wbc_input_focus_surface(s, NULL, false);
}

void wbc_view_fit_all(struct wbc_server *s)
{
	struct wbc_view *v, *tmp;
	wl_list_for_each_safe(v, tmp, &s->views, link)
		v->kind->fit(v);
}
