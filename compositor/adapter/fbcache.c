/* KMS framebuffers imported from wlr_buffers' dma-bufs, cached per buffer. */
#include <stdlib.h>
#include <wlr/types/wlr_buffer.h>
#include "adapter-private.h"
#include "util/log.h"

static void fb_destroy(struct wbc_fb *fb)
{
	wbc_kms_fb_remove(fb->backend->dev, &fb->fb);
	wlr_addon_finish(&fb->addon);
	wl_list_remove(&fb->link);
	free(fb);
}

static void handle_buffer_gone(struct wlr_addon *addon)
{
	struct wbc_fb *fb = wl_container_of(addon, fb, addon);
	fb_destroy(fb);
}

static const struct wlr_addon_interface fb_addon_impl = {
	.name = "wbc-kms-fb",
	.destroy = handle_buffer_gone,
};

struct wbc_fb *wbc_fb_get(struct wbc_backend *backend, struct wlr_buffer *buffer)
{
	struct wlr_addon *addon = wlr_addon_find(&buffer->addons, backend, &fb_addon_impl);
	if (addon) {
		struct wbc_fb *fb = wl_container_of(addon, fb, addon);
		return fb;
	}
	struct wlr_dmabuf_attributes attr;
	if (!wlr_buffer_get_dmabuf(buffer, &attr)) {
		wbc_log(WLR_DEBUG, "buffer %dx%d has no dma-buf: cannot scan it out",
			buffer->width, buffer->height);
		return NULL;
	}
	struct wbc_kms_dmabuf d = {
		.width = (uint32_t)attr.width, .height = (uint32_t)attr.height,
		.format = attr.format, .modifier = attr.modifier, .n_planes = attr.n_planes,
	};
	for (int i = 0; i < attr.n_planes && i < 4; i++) {
		d.fds[i] = attr.fd[i];
		d.offsets[i] = attr.offset[i];
		d.strides[i] = attr.stride[i];
	}
	struct wbc_fb *fb = calloc(1, sizeof(*fb));
	if (!fb)
		return NULL;
	int ret = wbc_kms_fb_import(backend->dev, &d, &fb->fb);
	if (ret < 0) {
		wbc_log(WLR_DEBUG, "importing a %dx%d dma-buf: %s", attr.width, attr.height,
			wbc_kms_device_error(backend->dev));
		free(fb);
		return NULL;
	}
	fb->backend = backend;
	wlr_addon_init(&fb->addon, &buffer->addons, backend, &fb_addon_impl);
	wl_list_insert(&backend->fbs, &fb->link);
	return fb;
}

void wbc_fb_destroy_all(struct wbc_backend *backend)
{
	struct wbc_fb *fb, *tmp;
	wl_list_for_each_safe(fb, tmp, &backend->fbs, link)
		fb_destroy(fb);
}
