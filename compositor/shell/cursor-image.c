/* The cursor's image: the one the client under the pointer set, or the default arrow over
 * no surface; and none while the cursor is hidden. A kiosk driven by touch shows no arrow
 * where nobody points: the cursor hides when a finger goes down, after --hide-cursor
 * SECONDS without pointer motion, and until the first pointer motion (a client that sets
 * its cursor on a pointer enter at start would otherwise show it on a touch-only kiosk).
 * The next pointer motion shows it again, with the image wanted meanwhile: clients keep
 * setting theirs while it is hidden (wlroots draws nothing of it then). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdlib.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include "cursor-image.h"
#include "util/log.h"
#include "server.h"

/* Owned by the server (server->input.image), freed by wbc_cursor_image_finish. */
struct wbc_cursor_image {
	struct wbc_server *server;
	/* The image wanted while shown: a client's surface (borrowed, with surface_destroy
	 * listening while set), the default arrow, or neither (a client asked for none). */
	struct wlr_surface *surface;
	int32_t hotspot_x, hotspot_y;
	bool arrow;
	bool hidden;
	bool theme_failed;               /* said so once */
	struct wl_listener surface_destroy;
	struct wl_event_source *idle_timer;  /* --hide-cursor; NULL without */
};

static struct wbc_cursor_image *image_of(struct wbc_server *s)
{
	return s->input.image;
}

/* Show what is wanted (wlroots keeps drawing a client's surface as it commits). */
static void apply(struct wbc_cursor_image *im)
{
	struct wbc_input *in = &im->server->input;
	if (im->hidden)
		wlr_cursor_set_image(in->cursor, NULL, 0, 0, 0, 0, 0, 0);
	else if (im->surface)
		wlr_cursor_set_surface(in->cursor, im->surface, im->hotspot_x, im->hotspot_y);
	else if (im->arrow && wbc_cursor_theme_load(im->server))
		wlr_xcursor_manager_set_cursor_image(in->xcursor, "left_ptr", in->cursor);
	else
		wlr_cursor_set_image(in->cursor, NULL, 0, 0, 0, 0, 0, 0);
}

/* The theme is read when an arrow is first wanted, not at start: a kiosk without a pointer
 * never needs it, and reading it is the slowest step of starting (about 1 s of wbc's
 * start in the TCG test guest under ASan). */
bool wbc_cursor_theme_load(struct wbc_server *s)
{
	if (wlr_xcursor_manager_load(s->input.xcursor, 1))
		return true;
	if (!image_of(s)->theme_failed)
		wbc_log(WLR_ERROR, "cannot load the cursor theme: no arrow is drawn");
	image_of(s)->theme_failed = true;
	return false;
}

static void forget_surface(struct wbc_cursor_image *im)
{
	if (!im->surface)
		return;
	wl_list_remove(&im->surface_destroy.link);
	im->surface = NULL;
}

/* The client's cursor surface went: nothing to show for it (wlroots drops it from the
 * outputs' cursors itself). */
static void handle_surface_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_cursor_image *im = wl_container_of(listener, im, surface_destroy);
	forget_surface(im);
}

static void set_hidden(struct wbc_cursor_image *im, bool hidden, const char *why)
{
	if (im->hidden == hidden)
		return;
	im->hidden = hidden;
	wbc_log(WLR_DEBUG, "cursor %s (%s)", hidden ? "hidden" : "shown", why);
	apply(im);
}

static int handle_idle(void *data)
{
	struct wbc_cursor_image *im = data;
	set_hidden(im, true, "--hide-cursor: no pointer motion");
	return 0;
}

int wbc_cursor_image_init(struct wbc_server *s)
{
	struct wbc_cursor_image *im = calloc(1, sizeof(*im));
	if (!im)
		return -1;
	s->input.image = im;
	im->server = s;
	im->hidden = true;               /* until the first pointer motion */
	im->surface_destroy.notify = handle_surface_destroy;
	if (s->opts->hide_cursor_s > 0) {
		/* Armed by pointer motion: a hidden cursor has nothing to time out. */
		im->idle_timer = wl_event_loop_add_timer(s->loop, handle_idle, im);
		if (!im->idle_timer)
			return -1;
	}
	return 0;
}

void wbc_cursor_image_finish(struct wbc_server *s)
{
	struct wbc_cursor_image *im = image_of(s);
	if (!im)
		return;
	forget_surface(im);
	if (im->idle_timer)
		wl_event_source_remove(im->idle_timer);
	free(im);
	s->input.image = NULL;
}

void wbc_cursor_image_set_client(struct wbc_server *s, struct wlr_surface *surface,
		int32_t hotspot_x, int32_t hotspot_y)
{
	struct wbc_cursor_image *im = image_of(s);
	forget_surface(im);
	im->arrow = false;
	im->surface = surface;
	im->hotspot_x = hotspot_x;
	im->hotspot_y = hotspot_y;
	if (surface)
		wl_signal_add(&surface->events.destroy, &im->surface_destroy);
	if (!im->hidden)
		apply(im);
}

void wbc_cursor_image_set_default(struct wbc_server *s)
{
	struct wbc_cursor_image *im = image_of(s);
	forget_surface(im);
	im->arrow = true;
	if (!im->hidden)
		apply(im);
}

void wbc_cursor_image_pointer_moved(struct wbc_server *s)
{
	struct wbc_cursor_image *im = image_of(s);
	if (im->idle_timer) {
		int ms = (int)(s->opts->hide_cursor_s * 1000);
		wl_event_source_timer_update(im->idle_timer, ms > 0 ? ms : 1);
	}
	set_hidden(im, false, "pointer motion");
}

void wbc_cursor_image_touched(struct wbc_server *s)
{
	struct wbc_cursor_image *im = image_of(s);
	if (im->idle_timer)
		wl_event_source_timer_update(im->idle_timer, 0);   /* already hidden: disarm */
	set_hidden(im, true, "touch");
}
