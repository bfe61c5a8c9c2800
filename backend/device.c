/* Opening a DRM device: client caps, driver checks, discovery. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "pipe.h"

static bool get_cap(int fd, uint64_t cap, uint64_t *value)
{
	uint64_t v = 0;
	if (drmGetCap(fd, cap, &v) != 0)
		return false;
	if (value)
		*value = v;
	return v != 0;
}

static void read_caps(struct wbc_kms_device *dev)
{
	struct wbc_kms_caps *c = &dev->caps;
	uint64_t prime = 0;
	c->dumb_buffer = get_cap(dev->fd, DRM_CAP_DUMB_BUFFER, NULL);
	get_cap(dev->fd, DRM_CAP_PRIME, &prime);
	c->prime_import = prime & DRM_PRIME_CAP_IMPORT;
	c->prime_export = prime & DRM_PRIME_CAP_EXPORT;
	c->timestamp_monotonic = get_cap(dev->fd, DRM_CAP_TIMESTAMP_MONOTONIC, NULL);
	c->crtc_in_vblank_event = get_cap(dev->fd, DRM_CAP_CRTC_IN_VBLANK_EVENT, NULL);
	c->addfb2_modifiers = get_cap(dev->fd, DRM_CAP_ADDFB2_MODIFIERS, NULL);
	c->async_page_flip = get_cap(dev->fd, DRM_CAP_ASYNC_PAGE_FLIP, NULL);
	if (!get_cap(dev->fd, DRM_CAP_CURSOR_WIDTH, &c->cursor_width))
		c->cursor_width = 64;
	if (!get_cap(dev->fd, DRM_CAP_CURSOR_HEIGHT, &c->cursor_height))
		c->cursor_height = 64;
}

static int read_driver(struct wbc_kms_device *dev)
{
	drmVersion *v = drmGetVersion(dev->fd);
	if (!v)
		return wbc_kms_fail(dev, -ENODEV, "%s is not a DRM device (%s)", dev->path,
			strerror(errno));
	snprintf(dev->driver, sizeof(dev->driver), "%s", v->name ? v->name : "?");
	snprintf(dev->driver_desc, sizeof(dev->driver_desc), "%s", v->desc ? v->desc : "");
	dev->driver_major = v->version_major;
	dev->driver_minor = v->version_minor;
	dev->driver_patch = v->version_patchlevel;
	drmFreeVersion(v);
	return 0;
}

/* Universal planes and atomic are required; writeback connectors are asked for and
 * simply absent on drivers that lack them. */
static int set_client_caps(struct wbc_kms_device *dev)
{
	struct wbc_kms_caps *c = &dev->caps;
	c->universal_planes = drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) == 0;
	c->atomic = drmSetClientCap(dev->fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0;
	if (!c->atomic)
		return wbc_kms_fail(dev, -EOPNOTSUPP,
			"%s (driver %s) does not support atomic modesetting, which wbc requires",
			dev->path, dev->driver);
	c->writeback_connectors =
		drmSetClientCap(dev->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1) == 0;
	return 0;
}

static int device_init(struct wbc_kms_device *dev, const struct wbc_kms_device_options *opts)
{
	int ret = read_driver(dev);
	if (ret == 0 && opts && opts->master && drmSetMaster(dev->fd) != 0)
		ret = wbc_kms_fail(dev, -errno, "%s: cannot become DRM master: %s "
			"(another compositor running?)", dev->path, strerror(errno));
	if (ret == 0)
		ret = set_client_caps(dev);
	if (ret == 0)
		read_caps(dev);
	if (ret == 0)
		ret = wbc_kms_discover(dev);
	if (ret == 0)
		ret = wbc_kms_events_create(dev);
	return ret;
}

static int open_common(int fd, bool owns_fd, const char *path,
		const struct wbc_kms_device_options *opts, struct wbc_kms_device **out,
		struct wbc_kms_error *err)
{
	struct wbc_kms_device *dev = calloc(1, sizeof(*dev));
	if (!dev) {
		if (owns_fd)
			close(fd);
		return wbc_kms_error_set(err, -ENOMEM, "out of memory");
	}
	dev->fd = fd;
	dev->owns_fd = owns_fd;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	int ret = device_init(dev, opts);
	if (ret < 0) {
		wbc_kms_error_set(err, ret, "%s", dev->error);
		wbc_kms_device_destroy(dev);
		return ret;
	}
	*out = dev;
	return 0;
}

int wbc_kms_device_open(const char *path, const struct wbc_kms_device_options *opts,
		struct wbc_kms_device **out, struct wbc_kms_error *err)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return wbc_kms_error_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	return open_common(fd, true, path, opts, out, err);
}

int wbc_kms_device_open_fd(int fd, const struct wbc_kms_device_options *opts,
		struct wbc_kms_device **out, struct wbc_kms_error *err)
{
	char path[64];
	char *name = drmGetDeviceNameFromFd2(fd);
	snprintf(path, sizeof(path), "%s", name ? name : "(fd)");
	free(name);
	return open_common(fd, false, path, opts, out, err);
}

void wbc_kms_device_destroy(struct wbc_kms_device *dev)
{
	if (!dev)
		return;
	wbc_kms_pipe_free_parked(dev);
	wbc_kms_events_destroy(dev);
	wbc_kms_discovery_free(dev);
	if (dev->owns_fd)
		close(dev->fd);
	free(dev);
}

bool wbc_kms_plane_supports(const struct wbc_kms_plane *plane, uint32_t fourcc, uint64_t modifier)
{
	for (size_t i = 0; i < plane->n_formats; i++) {
		const struct wbc_kms_format *f = &plane->formats[i];
		if (f->fourcc != fourcc)
			continue;
		/* Implicit modifier, or a plane without IN_FORMATS (linear only). */
		if (modifier == DRM_FORMAT_MOD_INVALID || !plane->has_in_formats)
			return modifier == DRM_FORMAT_MOD_INVALID || modifier == DRM_FORMAT_MOD_LINEAR;
		for (size_t m = 0; m < f->n_modifiers; m++)
			if (f->modifiers[m] == modifier)
				return true;
		return false;
	}
	return false;
}

const char *wbc_kms_connector_type_name(uint32_t type)
{
	const char *name = drmModeGetConnectorTypeName(type);
	return name ? name : "Unknown";
}

const char *wbc_kms_plane_type_name(enum wbc_kms_plane_type type)
{
	switch (type) {
	case WBC_KMS_PLANE_PRIMARY: return "primary";
	case WBC_KMS_PLANE_CURSOR: return "cursor";
	case WBC_KMS_PLANE_OVERLAY: return "overlay";
	}
	return "unknown";
}
