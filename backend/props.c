/* Property ids by name, looked up once per object, and blob reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <xf86drm.h>
#include "private.h"

int wbc_kms_props_lookup(int fd, uint32_t obj_id, uint32_t obj_type,
		const struct wbc_kms_prop_spec *specs, size_t n_specs, void *props,
		uint64_t *values)
{
	drmModeObjectProperties *list = drmModeObjectGetProperties(fd, obj_id, obj_type);
	if (!list)
		return -errno;
	for (uint32_t i = 0; i < list->count_props; i++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, list->props[i]);
		if (!prop)
			continue;
		for (size_t s = 0; s < n_specs; s++) {
			if (strcmp(prop->name, specs[s].name) != 0)
				continue;
			uint32_t *id = (uint32_t *)((char *)props + specs[s].offset);
			*id = prop->prop_id;
			if (values)
				values[s] = list->prop_values[i];
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(list);
	return 0;
}

int wbc_kms_blob_read(int fd, uint32_t blob_id, void **out, size_t *len)
{
	drmModePropertyBlobRes *blob = drmModeGetPropertyBlob(fd, blob_id);
	if (!blob)
		return -errno;
	*out = malloc(blob->length ? blob->length : 1);
	if (!*out) {
		drmModeFreePropertyBlob(blob);
		return -ENOMEM;
	}
	memcpy(*out, blob->data, blob->length);
	*len = blob->length;
	drmModeFreePropertyBlob(blob);
	return 0;
}

static bool is_enum_like(drmModePropertyRes *prop) /* libdrm's test takes no const */
{
	return drm_property_type_is(prop, DRM_MODE_PROP_ENUM) ||
		drm_property_type_is(prop, DRM_MODE_PROP_BITMASK);
}

int wbc_kms_property_value(struct wbc_kms_device *dev, uint32_t prop_id, const char *name,
		uint64_t *value)
{
	drmModePropertyRes *prop = prop_id ? drmModeGetProperty(dev->fd, prop_id) : NULL;
	if (!prop)
		return wbc_kms_fail(dev, -ENOENT, "property %u: %s", prop_id,
			prop_id ? strerror(errno) : "the object has no such property");
	int ret = -ENOENT;
	if (!is_enum_like(prop))
		ret = wbc_kms_fail(dev, -EINVAL, "property \"%s\" is no enum or bitmask",
			prop->name);
	for (int i = 0; ret == -ENOENT && i < prop->count_enums; i++) {
		if (strcmp(prop->enums[i].name, name) != 0)
			continue;
		/* A bitmask's entries hold bit numbers; the property takes the bit. */
		bool bitmask = drm_property_type_is(prop, DRM_MODE_PROP_BITMASK);
		*value = bitmask ? 1ull << prop->enums[i].value : prop->enums[i].value;
		ret = 0;
	}
	if (ret == -ENOENT)
		wbc_kms_fail(dev, ret, "property \"%s\" has no value \"%s\"", prop->name, name);
	drmModeFreeProperty(prop);
	return ret;
}
