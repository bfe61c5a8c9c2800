/*
 * libFuzzer target: wbc_kms_parse_fourcc_list() on an arbitrary
 * WRITEBACK_PIXEL_FORMATS blob (an array of u32 fourccs), plus wbc_kms_format_cpp()
 * on every fourcc it returns.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t *list = (void *)1;
	size_t n = 12345;
	int ret = wbc_kms_parse_fourcc_list(data, size, &list, &n);

	if (ret == -ENOMEM)
		return 0;
	if (size % 4 != 0) {
		assert(ret == -EINVAL);
		assert(list == NULL && n == 0);
		return 0;
	}
	assert(ret == 0);
	assert(list != NULL);                /* also for an empty list */
	assert(n == size / 4);
	assert(n == 0 || memcmp(list, data, size) == 0);
	for (size_t i = 0; i < n; i++) {
		unsigned cpp = wbc_kms_format_cpp(list[i]);
		assert(cpp == 0 || cpp == 2 || cpp == 3 || cpp == 4 || cpp == 8);
	}
	free(list);
	return 0;
}
