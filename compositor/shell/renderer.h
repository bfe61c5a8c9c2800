/*
 * wbc's renderer: wlroots' pixman renderer, plus dma-buf textures read through a CPU
 * mapping of the dma-buf, so that linux-dmabuf can be offered (and client dma-bufs
 * that cover the output can even be scanned out directly by the adapter).
 */
#ifndef WBC_RENDERER_H
#define WBC_RENDERER_H

struct wl_display;
struct wlr_renderer;

/* drm_fd is borrowed (the KMS device's), or -1 without one (then no linux-dmabuf);
 * destroy with wlr_renderer_destroy. */
struct wlr_renderer *wbc_renderer_create(int drm_fd);
/* wl_shm with the renderer's formats, and zwp_linux_dmabuf_v1. */
int wbc_renderer_init_wl_display(struct wlr_renderer *renderer, struct wl_display *display);

#endif
