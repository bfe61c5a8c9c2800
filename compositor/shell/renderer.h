/*
 * wbc's renderer: wlroots' GLES2 renderer on the DRM device (--renderer gles2, or auto
 * where it can be created), or wlroots' pixman renderer plus dma-buf textures read
 * through a CPU mapping of the dma-buf, so that linux-dmabuf can be offered with either
 * (and client dma-bufs that cover the output can be scanned out directly by the adapter).
 */
#ifndef WBC_RENDERER_H
#define WBC_RENDERER_H

#include <stdbool.h>
#include <stddef.h>
#include "options.h"

struct wl_display;
struct wlr_renderer;

/* drm_fd is borrowed (the KMS device's), or -1 without one (then pixman, and no
 * linux-dmabuf); destroy with wlr_renderer_destroy. AUTO falls back from GLES2 to pixman
 * with one line naming the cause; GLES2 that cannot be created is an error line and NULL.
 * desc gets what renders ("GLES2 (GL_RENDERER; GL_VERSION)" or "pixman"). */
struct wlr_renderer *wbc_renderer_create(int drm_fd, enum wbc_renderer_choice choice,
	char *desc, size_t desc_size);
/* Whether it renders with GLES2 (made by wbc_renderer_create). */
bool wbc_renderer_is_gles2(struct wlr_renderer *renderer);
/* Wait until what the renderer was asked to draw is in the buffers. wlroots 0.15's GLES2
 * renderer only flushes when it lets a buffer go and counts on implicit sync to make the
 * display wait for the GPU; Mesa's llvmpipe (software GL: VKMS in the test guest) keeps
 * drawing in its threads with no fence on the dma-buf, so without this the display
 * engine showed (and writeback captured) half-drawn tiles. A no-op with pixman. */
void wbc_renderer_finish_rendering(struct wlr_renderer *renderer);
/* wl_shm with the renderer's formats, and zwp_linux_dmabuf_v1. */
int wbc_renderer_init_wl_display(struct wlr_renderer *renderer, struct wl_display *display);

#endif
