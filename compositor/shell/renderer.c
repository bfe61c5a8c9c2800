/* wbc's renderer: a pixman renderer that also imports single-plane linear dma-bufs by
 * mapping them (dma-buf mmap + DMA_BUF_IOCTL_SYNC). Everything else is pixman's. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <wayland-server-core.h>
#include <wlr/render/interface.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include "util/buffer-check.h"
#include "util/log.h"
#include "wbc/kms.h"
#include "renderer.h"

/* Owned by whoever calls wlr_renderer_destroy; owns the pixman renderer it wraps. */
struct wbc_renderer {
	struct wlr_renderer base;
	struct wlr_renderer *pixman;     /* owned */
	int drm_fd;                      /* borrowed */
	struct wlr_drm_format_set dmabuf_formats;
};

/* A client dma-buf seen through a read-only CPU mapping. Made by texture_from_buffer and
 * owned by its locks (the pixman texture's); holds a lock on the dma-buf buffer. */
struct mapped_buffer {
	struct wlr_buffer base;
	struct wlr_buffer *source;       /* locked */
	void *map;
	size_t size;
	int fd;                          /* the source's, borrowed */
	uint32_t format, offset, stride;
};

static const struct wlr_renderer_impl renderer_impl;

static struct wbc_renderer *get(struct wlr_renderer *r)
{
	return wl_container_of(r, (struct wbc_renderer *)NULL, base);
}

static struct wlr_renderer *inner(struct wlr_renderer *r)
{
	return get(r)->pixman;
}

/* ---- The mapped dma-buf ------------------------------------------------------------ */

static void mapped_destroy(struct wlr_buffer *b)
{
	struct mapped_buffer *m = wl_container_of(b, m, base);
	munmap(m->map, m->size);
	wlr_buffer_unlock(m->source);
	free(m);
}

static void dmabuf_sync(int fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags | DMA_BUF_SYNC_READ };
	ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

static bool mapped_begin(struct wlr_buffer *b, uint32_t flags, void **data, uint32_t *format,
		size_t *stride)
{
	struct mapped_buffer *m = wl_container_of(b, m, base);
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE)
		return false;
	dmabuf_sync(m->fd, DMA_BUF_SYNC_START);
	*data = (char *)m->map + m->offset;
	*format = m->format;
	*stride = m->stride;
	return true;
}

static void mapped_end(struct wlr_buffer *b)
{
	struct mapped_buffer *m = wl_container_of(b, m, base);
	dmabuf_sync(m->fd, DMA_BUF_SYNC_END);
}

static const struct wlr_buffer_impl mapped_impl = {
	.destroy = mapped_destroy,
	.begin_data_ptr_access = mapped_begin,
	.end_data_ptr_access = mapped_end,
};

static struct mapped_buffer *map_dmabuf(struct wlr_buffer *source,
		const struct wlr_dmabuf_attributes *a)
{
	if (a->n_planes != 1 || (a->modifier != DRM_FORMAT_MOD_LINEAR &&
			a->modifier != DRM_FORMAT_MOD_INVALID))
		return NULL;
	size_t size = (size_t)a->offset[0] + (size_t)a->stride[0] * (size_t)a->height;
	char why[200];
	if (!wbc_buffer_layout_ok(a->format, (uint32_t)a->width, (uint32_t)a->height,
			a->stride[0], a->offset[0], size, why, sizeof(why))) {
		wbc_log(WLR_ERROR, "client dma-buf refused: %s", why);
		return NULL;
	}
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, a->fd[0], 0);
	if (map == MAP_FAILED) {
		wbc_log(WLR_DEBUG, "cannot map a %dx%d dma-buf", a->width, a->height);
		return NULL;
	}
	struct mapped_buffer *m = calloc(1, sizeof(*m));
	if (!m) {
		munmap(map, size);
		return NULL;
	}
	wlr_buffer_init(&m->base, &mapped_impl, a->width, a->height);
	*m = (struct mapped_buffer){ .base = m->base, .source = wlr_buffer_lock(source),
		.map = map, .size = size, .fd = a->fd[0], .format = a->format,
		.offset = a->offset[0], .stride = a->stride[0] };
	return m;
}

static struct wlr_texture *texture_from_buffer(struct wlr_renderer *r, struct wlr_buffer *buffer)
{
	struct wlr_renderer *px = inner(r);
	struct wlr_dmabuf_attributes attr;
	if (!wlr_buffer_get_dmabuf(buffer, &attr))
		return px->impl->texture_from_buffer(px, buffer);
	/* Buffers that are also CPU-mappable (our own dumb buffers) go to pixman as is. */
	void *data;
	uint32_t format;
	size_t stride;
	if (wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data,
			&format, &stride)) {
		wlr_buffer_end_data_ptr_access(buffer);
		return px->impl->texture_from_buffer(px, buffer);
	}
	struct mapped_buffer *m = map_dmabuf(buffer, &attr);
	if (!m)
		return NULL;
	struct wlr_texture *tex = px->impl->texture_from_buffer(px, &m->base);
	wlr_buffer_drop(&m->base);       /* the texture holds it now (or it goes) */
	return tex;
}

/* ---- Everything else: pixman's ------------------------------------------------------- */

static bool bind_buffer(struct wlr_renderer *r, struct wlr_buffer *buffer)
{
	return inner(r)->impl->bind_buffer(inner(r), buffer);
}

static void begin(struct wlr_renderer *r, uint32_t width, uint32_t height)
{
	inner(r)->impl->begin(inner(r), width, height);
}

static void end(struct wlr_renderer *r)
{
	inner(r)->impl->end(inner(r));
}

static void clear(struct wlr_renderer *r, const float color[static 4])
{
	inner(r)->impl->clear(inner(r), color);
}

static void scissor(struct wlr_renderer *r, struct wlr_box *box)
{
	inner(r)->impl->scissor(inner(r), box);
}

static bool render_subtexture(struct wlr_renderer *r, struct wlr_texture *texture,
		const struct wlr_fbox *box, const float matrix[static 9], float alpha)
{
	return inner(r)->impl->render_subtexture_with_matrix(inner(r), texture, box, matrix,
		alpha);
}

static void render_quad(struct wlr_renderer *r, const float color[static 4],
		const float matrix[static 9])
{
	inner(r)->impl->render_quad_with_matrix(inner(r), color, matrix);
}

static const uint32_t *get_shm_texture_formats(struct wlr_renderer *r, size_t *len)
{
	return inner(r)->impl->get_shm_texture_formats(inner(r), len);
}

static const struct wlr_drm_format_set *get_dmabuf_texture_formats(struct wlr_renderer *r)
{
	return &get(r)->dmabuf_formats;
}

static const struct wlr_drm_format_set *get_render_formats(struct wlr_renderer *r)
{
	return inner(r)->impl->get_render_formats(inner(r));
}

static uint32_t preferred_read_format(struct wlr_renderer *r)
{
	return inner(r)->impl->preferred_read_format(inner(r));
}

static bool read_pixels(struct wlr_renderer *r, uint32_t fmt, uint32_t *flags,
		uint32_t stride, uint32_t width, uint32_t height, uint32_t src_x, uint32_t src_y,
		uint32_t dst_x, uint32_t dst_y, void *data)
{
	return inner(r)->impl->read_pixels(inner(r), fmt, flags, stride, width, height, src_x,
		src_y, dst_x, dst_y, data);
}

static int get_drm_fd(struct wlr_renderer *r)
{
	return get(r)->drm_fd;
}

static uint32_t get_render_buffer_caps(struct wlr_renderer *r)
{
	return inner(r)->impl->get_render_buffer_caps(inner(r));
}

static void destroy(struct wlr_renderer *r)
{
	struct wbc_renderer *w = get(r);
	wlr_renderer_destroy(w->pixman);
	wlr_drm_format_set_finish(&w->dmabuf_formats);
	free(w);
}

static const struct wlr_renderer_impl renderer_impl = {
	.bind_buffer = bind_buffer,
	.begin = begin,
	.end = end,
	.clear = clear,
	.scissor = scissor,
	.render_subtexture_with_matrix = render_subtexture,
	.render_quad_with_matrix = render_quad,
	.get_shm_texture_formats = get_shm_texture_formats,
	.get_dmabuf_texture_formats = get_dmabuf_texture_formats,
	.get_render_formats = get_render_formats,
	.preferred_read_format = preferred_read_format,
	.read_pixels = read_pixels,
	.destroy = destroy,
	.get_drm_fd = get_drm_fd,
	.get_render_buffer_caps = get_render_buffer_caps,
	.texture_from_buffer = texture_from_buffer,
};

struct wlr_renderer *wbc_renderer_create(int drm_fd)
{
	struct wbc_renderer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->pixman = wlr_pixman_renderer_create();
	if (!w->pixman) {
		free(w);
		return NULL;
	}
	w->drm_fd = drm_fd;
	size_t len = 0;
	const uint32_t *formats = get_shm_texture_formats(&w->base, &len);
	for (size_t i = 0; i < len; i++) {
		wlr_drm_format_set_add(&w->dmabuf_formats, formats[i], DRM_FORMAT_MOD_LINEAR);
		wlr_drm_format_set_add(&w->dmabuf_formats, formats[i], DRM_FORMAT_MOD_INVALID);
	}
	wlr_renderer_init(&w->base, &renderer_impl);
	return &w->base;
}

int wbc_renderer_init_wl_display(struct wlr_renderer *r, struct wl_display *display)
{
	/* As wlr_renderer_init_wl_display, without wl_drm (a Mesa-EGL-only protocol that
	 * would point clients at a render node this device may not have). */
	if (wl_display_init_shm(display) != 0)
		return -1;
	size_t len = 0;
	const uint32_t *formats = wlr_renderer_get_shm_texture_formats(r, &len);
	/* Only formats whose pixel size shm-check.c knows (it refuses short strides). */
	for (size_t i = 0; i < len; i++)
		if (formats[i] != DRM_FORMAT_ARGB8888 && formats[i] != DRM_FORMAT_XRGB8888 &&
				wbc_kms_format_cpp(formats[i]))
			wl_display_add_shm_format(display, formats[i]); /* wl_shm codes = fourcc */
	/* Without a DRM device (the embedded core) there is no device to name in the
	 * dma-buf feedback, and no dma-buf a client could allocate for it. */
	if (wlr_renderer_get_drm_fd(r) >= 0 && !wlr_linux_dmabuf_v1_create(display, r))
		return -1;
	return 0;
}
