/* Shared by the Wayland test clients: the globals they bind, found in one roundtrip. */
#ifndef WBC_TEST_CLIENT_GLOBALS_H
#define WBC_TEST_CLIENT_GLOBALS_H

#include <wayland-client.h>
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* Proxies owned by the client; NULL where the compositor does not offer the global. */
struct test_globals {
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;     /* pings are answered */
	struct wl_seat *seat;
	struct wp_presentation *presentation;
	struct zwp_linux_dmabuf_v1 *dmabuf; /* version 3 at most: formats and modifiers */
};

/* Bind what the display offers (at most the versions the clients are written for).
 * Returns -1 on a dead connection or when wl_compositor, wl_shm or xdg_wm_base is
 * missing. The bind requests go out with the next flush, so the events they bring (seat
 * capabilities, presentation clock, dma-buf formats) come in later dispatches: add their listeners right
 * after this returns. */
int test_globals_bind(struct wl_display *dpy, struct test_globals *g);

/* A w x h wl_shm buffer (stride w * 4) of one 32-bit pixel value; NULL if the shared
 * memory cannot be made. */
struct wl_buffer *test_solid_buffer(struct wl_shm *shm, int w, int h, uint32_t format,
		uint32_t pixel);

#endif
