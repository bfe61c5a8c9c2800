/* wbc's renderer: wlroots' GLES2 renderer on the DRM device where it can be created
 * (--renderer auto|gles2), else a pixman renderer that also imports single-plane linear
 * dma-bufs by mapping them (dma-buf mmap + DMA_BUF_IOCTL_SYNC); everything else of the
 * latter is pixman's. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <GLES2/gl2.h>
#include <wayland-server-core.h>
#include <xf86drm.h>
#include <libdrm/virtgpu_drm.h>
#include <wlr/render/interface.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/egl.h>
#include <wlr/render/gles2.h>
#include <wlr/render/pixman.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include "util/buffer-check.h"
#include "util/leak-check.h"
#include "util/log.h"
#include "wbc/kms.h"
#include "renderer.h"

/* Owned by whoever calls wlr_renderer_destroy; owns the renderer it wraps, to which
 * every call goes but three: get_drm_fd (the KMS device: wlroots 0.15's GLES2 renderer
 * knows only render nodes, and VKMS has none, so linux-dmabuf would have no main device
 * and not be offered), and with pixman texture_from_buffer (dma-bufs through a mapping)
 * and get_dmabuf_texture_formats (what that mapping takes). */
struct wbc_renderer {
	struct wlr_renderer base;
	struct wlr_renderer *inner;      /* owned: wlroots' pixman or GLES2 renderer */
	bool gles2;
	int drm_fd;                      /* borrowed */
	struct wlr_drm_format_set dmabuf_formats; /* pixman: the mappable ones */
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
	return get(r)->inner;
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
	if (get(r)->gles2)               /* EGL imports dma-bufs itself */
		return px->impl->texture_from_buffer(px, buffer);
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
	if (get(r)->gles2)
		return inner(r)->impl->get_dmabuf_texture_formats(inner(r));
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
	wlr_renderer_destroy(w->inner);
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

/* Takes inner (pixman's or GLES2's); destroys it on failure. */
static struct wlr_renderer *wrap(struct wlr_renderer *inner, int drm_fd)
{
	struct wbc_renderer *w = calloc(1, sizeof(*w));
	if (!w) {
		wlr_renderer_destroy(inner);
		return NULL;
	}
	w->inner = inner;
	w->gles2 = wlr_renderer_is_gles2(inner);
	w->drm_fd = drm_fd;
	size_t len = 0;
	const uint32_t *formats = get_shm_texture_formats(&w->base, &len);
	for (size_t i = 0; i < len && !w->gles2; i++) {
		wlr_drm_format_set_add(&w->dmabuf_formats, formats[i], DRM_FORMAT_MOD_LINEAR);
		wlr_drm_format_set_add(&w->dmabuf_formats, formats[i], DRM_FORMAT_MOD_INVALID);
	}
	wlr_renderer_init(&w->base, &renderer_impl);
	return &w->base;
}

static struct wlr_renderer *pixman_create(int drm_fd)
{
	struct wlr_renderer *px = wlr_pixman_renderer_create();
	return px ? wrap(px, drm_fd) : NULL;
}

bool wbc_renderer_is_gles2(struct wlr_renderer *r)
{
	return r->impl == &renderer_impl && get(r)->gles2;
}

/* ---- Choosing ------------------------------------------------------------------------ */

/* GL_RENDERER and GL_VERSION of a GLES2 renderer's context, for the log line. */
static void describe_gles2(struct wlr_renderer *r, char *out, size_t size)
{
	struct wlr_egl *egl = wlr_gles2_renderer_get_egl(r);
	snprintf(out, size, "GLES2");
	if (!egl || !wlr_egl_make_current(egl))
		return;
	const char *name = (const char *)glGetString(GL_RENDERER);
	const char *version = (const char *)glGetString(GL_VERSION);
	snprintf(out, size, "GLES2 (%s; %s)", name ? name : "?", version ? version : "?");
	wlr_egl_unset_current(egl);
}

/* The cause when the device's only GL is software (Mesa's llvmpipe through kms_swrast:
 * VKMS); --renderer auto then takes pixman by rule, which is not a failure. */
#define SOFTWARE_GL "EGL on this device is software rendering (llvmpipe), which " \
	"wlroots refuses unless asked: --renderer gles2 takes it"

/* wlroots' error lines, for wbc's: without their "[file:line] " prefix, and without
 * the EGL_BAD_PARAMETER of eglQueryDeviceStringEXT that wlroots 0.15 provokes on every
 * EGL device without a DRM node (Mesa's software device) while it looks for the one. */
static void name_cause(const char *errors, char *why, size_t size)
{
	if (strstr(errors, "Software rendering detected")) {
		snprintf(why, size, "%s", SOFTWARE_GL);
		return;
	}
	size_t len = 0;
	why[0] = '\0';
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", errors);
	char *save = NULL;
	for (char *line = strtok_r(copy, ";", &save); line; line = strtok_r(NULL, ";", &save)) {
		while (*line == ' ')
			line++;
		if (strstr(line, "eglQueryDeviceStringEXT"))
			continue;
		if (line[0] == '[' && strchr(line, ']') && strncmp(line, "[EGL]", 5) != 0)
			line = strchr(line, ']') + 1 + (strchr(line, ']')[1] == ' ');
		len += (size_t)snprintf(why + len, len < size ? size - len : 0, "%s%s",
			len ? "; " : "", line);
	}
	if (!why[0])
		snprintf(why, size, "no reason given");
}

/* wlroots' GLES2 renderer on the device (EGL on it, through the EGL device or GBM
 * platform), or NULL with the cause in why. allow_software: take Mesa's llvmpipe too
 * (wlroots refuses it by default: on a CPU, pixman composites faster). */
static struct wlr_renderer *gles2_create(int drm_fd, bool allow_software, char *why,
		size_t size)
{
	if (drm_fd < 0) {
		snprintf(why, size, "no DRM device");
		return NULL;
	}
	/* wlroots reads it during the call only; APP must not inherit it. */
	bool set_env = allow_software && !getenv("WLR_RENDERER_ALLOW_SOFTWARE");
	if (set_env)
		setenv("WLR_RENDERER_ALLOW_SOFTWARE", "1", 1);
	int saved = wbc_log_hold_stderr();
	wbc_log_collect_start();
	/* Mesa's loader writes to stderr while it looks for a driver (on VKMS: "MESA-LOADER:
	 * failed to open vkms ...", "kmsro: driver missing"), which would break wbc's
	 * promise of one line per fallback: held back (util/log.h). Mesa's driver loading
	 * allocates what it does not free when wlroots gives up on a device, nor at exit
	 * (seen under LeakSanitizer in the VKMS guest: zink_dri.so, libgbm, libdrm): not
	 * wbc's to free, so not reported. */
	wbc_leak_check_pause();
	struct wlr_renderer *r = wlr_gles2_renderer_create_with_drm_fd(drm_fd);
	wbc_leak_check_resume();
	const char *errors = wbc_log_collect_stop();
	wbc_log_release_stderr(saved);
	if (set_env)
		unsetenv("WLR_RENDERER_ALLOW_SOFTWARE");
	if (!r)
		name_cause(errors, why, size);
	return r;
}

/* Whether the device's GL would be software, and why: a device without a render node
 * drives displays only (VKMS, simpledrm; Mesa gives it kms_swrast), and virtio-gpu
 * without 3D (virgl) has a render node but no GL of its own. auto leaves these alone
 * without loading Mesa: wlroots refuses software GL after making the EGL display, and
 * tearing that down raced llvmpipe's threads (a NULL write in kms_swrast_dri.so under
 * ASan, virtio-gpu guest, Mesa 22.3.6, 2026-12-06); it also cost about 2 s per start in
 * the TCG guest. */
static bool software_gl_only(int drm_fd, char *why, size_t size)
{
	char *node = drmGetRenderDeviceNameFromFd(drm_fd);
	if (!node) {
		snprintf(why, size, "the DRM device has no render node");
		return true;
	}
	free(node);
	drmVersionPtr v = drmGetVersion(drm_fd);
	bool virtio = v && v->name && strcmp(v->name, "virtio_gpu") == 0;
	drmFreeVersion(v);
	int three_d = 0;
	struct drm_virtgpu_getparam p = { .param = VIRTGPU_PARAM_3D_FEATURES,
		.value = (uint64_t)(uintptr_t)&three_d };
	if (virtio && (drmIoctl(drm_fd, DRM_IOCTL_VIRTGPU_GETPARAM, &p) != 0 || !three_d)) {
		snprintf(why, size, "virtio-gpu without 3D (virgl)");
		return true;
	}
	return false;
}

struct wlr_renderer *wbc_renderer_create(int drm_fd, enum wbc_renderer_choice choice,
		char *desc, size_t desc_size)
{
	char why[600] = "";
	if (choice == WBC_RENDERER_AUTO && drm_fd >= 0 &&
			software_gl_only(drm_fd, why, sizeof(why))) {
		wbc_log(WLR_INFO, "renderer: GLES2 not tried (%s: its GL would be software; "
			"--renderer gles2 takes it): using pixman", why);
		choice = WBC_RENDERER_PIXMAN;
	}
	if (choice != WBC_RENDERER_PIXMAN) {
		struct wlr_renderer *r = gles2_create(drm_fd, choice == WBC_RENDERER_GLES2, why,
			sizeof(why));
		if (r) {
			describe_gles2(r, desc, desc_size);
			return wrap(r, drm_fd);
		}
		if (choice == WBC_RENDERER_GLES2) {
			wbc_log(WLR_ERROR, "--renderer gles2: cannot create the GLES2 renderer: %s",
				why);
			return NULL;
		}
		/* No device (the embedded core): pixman is the only choice, nothing fell back.
		 * Software GL that wlroots refused (a device software_gl_only did not catch):
		 * pixman is auto's choice there, not a failure: said with -v. Any other cause
		 * is a failure worth a line without -v. */
		if (drm_fd >= 0 && strcmp(why, SOFTWARE_GL) == 0)
			wbc_log(WLR_INFO, "renderer: GLES2 not used (%s): using pixman", why);
		else if (drm_fd >= 0)
			wbc_notice("renderer: GLES2 unavailable (%s): using pixman", why);
	}
	struct wlr_renderer *r = pixman_create(drm_fd);
	if (!r)
		wbc_log(WLR_ERROR, "cannot create the pixman renderer");
	snprintf(desc, desc_size, "pixman");
	return r;
}

void wbc_renderer_finish_rendering(struct wlr_renderer *r)
{
	if (!wbc_renderer_is_gles2(r))
		return;
	struct wlr_egl *egl = wlr_gles2_renderer_get_egl(inner(r));
	if (wlr_egl_is_current(egl)) {
		glFinish();
		return;
	}
	if (!wlr_egl_make_current(egl))
		return;
	glFinish();
	wlr_egl_unset_current(egl);
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
