/* Property ids by name, looked up once per object, and blob reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
