/*
 * libFuzzer target: wbc_kms_parse_in_formats() on an arbitrary IN_FORMATS blob
 * (struct drm_format_modifier_blob). Besides the sanitizers, an independent oracle
 * checks the result: accepted exactly when the header is in bounds and aligned, and
 * then every format has exactly the modifiers whose bitmask entries cover it, in
 * blob order.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <drm_mode.h>
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool header_ok(const struct drm_format_modifier_blob *h, size_t len)
{
	/* u32 counts and offsets: the sums cannot overflow 64 bits. */
	return h->version == FORMAT_BLOB_CURRENT &&
		h->formats_offset % 4 == 0 && h->modifiers_offset % 8 == 0 &&
		(uint64_t)h->formats_offset + (uint64_t)h->count_formats * 4 <= len &&
		(uint64_t)h->modifiers_offset +
			(uint64_t)h->count_modifiers * sizeof(struct drm_format_modifier) <= len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wbc_kms_format *formats = (void *)1;
	size_t n = 12345;
	int ret = wbc_kms_parse_in_formats(data, size, &formats, &n);

	struct drm_format_modifier_blob h;
	bool valid = size >= sizeof(h);
	if (valid) {
		memcpy(&h, data, sizeof(h));
		valid = header_ok(&h, size);
	}
	if (ret == -ENOMEM)
		return 0;
	if (ret != 0) {
		assert(ret == -EINVAL);
		assert(!valid);
		assert(formats == NULL && n == 0);
		return 0;
	}
	assert(valid);
	assert(n == h.count_formats);
	assert(formats != NULL);

	for (size_t i = 0; i < n; i++) {
		uint32_t fourcc;
		memcpy(&fourcc, data + h.formats_offset + i * 4, 4);
		assert(formats[i].fourcc == fourcc);
		assert((formats[i].n_modifiers == 0) == (formats[i].modifiers == NULL));
		assert(formats[i].n_modifiers <= h.count_modifiers);

		size_t k = 0;
		for (uint32_t m = 0; m < h.count_modifiers; m++) {
			struct drm_format_modifier mod;
			memcpy(&mod, data + h.modifiers_offset + (size_t)m * sizeof(mod), sizeof(mod));
			if (i < mod.offset || i - mod.offset >= 64 || !(mod.formats >> (i - mod.offset) & 1))
				continue;
			assert(k < formats[i].n_modifiers);
			assert(formats[i].modifiers[k] == mod.modifier);
			k++;
		}
		assert(k == formats[i].n_modifiers);
	}
	wbc_kms_formats_free(formats, n);
	return 0;
}
