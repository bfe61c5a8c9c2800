/* Dumb buffers with framebuffers and CPU mappings; dma-buf import as framebuffers. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "private.h"

static int add_fb(struct wbc_kms_device *dev, struct wbc_kms_fb *fb, const uint32_t handles[4],
		const uint32_t pitches[4], const uint32_t offsets[4], uint64_t modifier)
{
	uint64_t mods[4] = { modifier, modifier, modifier, modifier };
	bool explicit = modifier != DRM_FORMAT_MOD_INVALID;
	if (explicit && !dev->caps.addfb2_modifiers)
		return wbc_kms_fail(dev, -EOPNOTSUPP, "%s cannot take framebuffer modifiers",
			dev->driver);
	int ret = drmModeAddFB2WithModifiers(dev->fd, fb->width, fb->height, fb->format, handles,
		pitches, offsets, explicit ? mods : NULL, &fb->id,
		explicit ? DRM_MODE_FB_MODIFIERS : 0);
	if (ret != 0) {
		char *name = drmGetFormatName(fb->format);
		ret = wbc_kms_fail(dev, -errno, "drmModeAddFB2 %ux%u %s: %s", fb->width,
			fb->height, name ? name : "?", strerror(errno));
		free(name);
		return ret;
	}
	fb->modifier = explicit ? modifier : DRM_FORMAT_MOD_LINEAR;
	return 0;
}

int wbc_kms_buffer_create(struct wbc_kms_device *dev, uint32_t width, uint32_t height,
		uint32_t format, struct wbc_kms_buffer **out)
{
	unsigned cpp = wbc_kms_format_cpp(format);
	if (!cpp)
		return wbc_kms_fail(dev, -EINVAL, "dumb buffers of format 0x%08x are not supported",
			format);
	struct wbc_kms_buffer *buf = calloc(1, sizeof(*buf));
	if (!buf)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	buf->fb = (struct wbc_kms_fb){ .width = width, .height = height, .format = format };
	int ret = 0;
	if (drmModeCreateDumbBuffer(dev->fd, width, height, cpp * 8, 0, &buf->handle,
			&buf->stride, &buf->size) != 0) {
		ret = wbc_kms_fail(dev, -errno, "dumb buffer %ux%u: %s", width, height,
			strerror(errno));
		free(buf);
		return ret;
	}
	uint64_t offset;
	if (drmModeMapDumbBuffer(dev->fd, buf->handle, &offset) != 0) {
		ret = wbc_kms_fail(dev, -errno, "map dumb buffer: %s", strerror(errno));
	} else {
		buf->map = mmap(NULL, buf->size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
			(off_t)offset);
		if (buf->map == MAP_FAILED) {
			buf->map = NULL;
			ret = wbc_kms_fail(dev, -errno, "mmap dumb buffer: %s", strerror(errno));
		}
	}
	uint32_t handles[4] = { buf->handle }, pitches[4] = { buf->stride }, offsets[4] = { 0 };
	if (ret == 0)
		ret = add_fb(dev, &buf->fb, handles, pitches, offsets, DRM_FORMAT_MOD_INVALID);
	if (ret < 0) {
		wbc_kms_buffer_destroy(dev, buf);
		return ret;
	}
	*out = buf;
	return 0;
}

/* Teardown order: framebuffer first (it references the handle), then mapping, handle. */
void wbc_kms_buffer_destroy(struct wbc_kms_device *dev, struct wbc_kms_buffer *buf)
{
	if (!buf)
		return;
	if (buf->fb.id)
		drmModeRmFB(dev->fd, buf->fb.id);
	if (buf->map)
		munmap(buf->map, buf->size);
	if (buf->handle)
		drmModeDestroyDumbBuffer(dev->fd, buf->handle);
	free(buf);
}

int wbc_kms_fb_import(struct wbc_kms_device *dev, const struct wbc_kms_dmabuf *d,
		struct wbc_kms_fb *out)
{
	if (d->n_planes < 1 || d->n_planes > 4)
		return wbc_kms_fail(dev, -EINVAL, "dma-buf with %d planes", d->n_planes);
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	int ret = 0;
	for (int i = 0; i < d->n_planes && ret == 0; i++) {
		if (drmPrimeFDToHandle(dev->fd, d->fds[i], &handles[i]) != 0)
			ret = wbc_kms_fail(dev, -errno, "drmPrimeFDToHandle: %s", strerror(errno));
		pitches[i] = d->strides[i];
		offsets[i] = d->offsets[i];
	}
	*out = (struct wbc_kms_fb){ .width = d->width, .height = d->height, .format = d->format };
	if (ret == 0)
		ret = add_fb(dev, out, handles, pitches, offsets, d->modifier);
	/* The framebuffer holds its own references: drop our GEM handles (once each,
	 * since planes of one buffer share a handle). */
	for (int i = 0; i < d->n_planes; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= handles[j] == handles[i];
		if (handles[i] && !dup)
			drmCloseBufferHandle(dev->fd, handles[i]);
	}
	return ret;
}

void wbc_kms_fb_remove(struct wbc_kms_device *dev, struct wbc_kms_fb *fb)
{
	if (fb->id)
		drmModeRmFB(dev->fd, fb->id);
	fb->id = 0;
}
