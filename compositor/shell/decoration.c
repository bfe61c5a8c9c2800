/* Decorations: both protocols say "server side", and wbc draws none (a kiosk's
 * fullscreen application has no window frame). */
#include <stdlib.h>
#include <wlr/types/wlr_server_decoration.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include "decoration.h"
#include "util/log.h"
#include "server.h"

/* One per xdg toplevel decoration object; freed with it. */
struct wbc_decoration {
	struct wlr_xdg_toplevel_decoration_v1 *deco; /* borrowed */
	struct wl_listener request_mode, destroy;
};

static void handle_request_mode(struct wl_listener *listener, void *data)
{
	struct wbc_decoration *d = wl_container_of(listener, d, request_mode);
	wlr_xdg_toplevel_decoration_v1_set_mode(d->deco,
		WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
}

static void handle_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_decoration *d = wl_container_of(listener, d, destroy);
	wl_list_remove(&d->request_mode.link);
	wl_list_remove(&d->destroy.link);
	free(d);
}

static void handle_new_decoration(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_decoration_v1 *deco = data;
	struct wbc_decoration *d = calloc(1, sizeof(*d));
	if (!d) {
		wl_resource_post_no_memory(deco->resource);
		return;
	}
	d->deco = deco;
	d->request_mode.notify = handle_request_mode;
	wl_signal_add(&deco->events.request_mode, &d->request_mode);
	d->destroy.notify = handle_destroy;
	wl_signal_add(&deco->events.destroy, &d->destroy);
	handle_request_mode(&d->request_mode, NULL);
}

int wbc_decoration_init(struct wbc_server *s)
{
	struct wlr_server_decoration_manager *kde = wlr_server_decoration_manager_create(s->display);
	if (!kde)
		return -1;
	wlr_server_decoration_manager_set_default_mode(kde, WLR_SERVER_DECORATION_MANAGER_MODE_SERVER);
	s->xdg_decoration = wlr_xdg_decoration_manager_v1_create(s->display);
	if (!s->xdg_decoration)
		return -1;
	s->new_decoration.notify = handle_new_decoration;
	wl_signal_add(&s->xdg_decoration->events.new_toplevel_decoration, &s->new_decoration);
	return 0;
}
