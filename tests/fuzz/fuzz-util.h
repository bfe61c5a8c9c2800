/* Shared by the libFuzzer targets. */
#ifndef WBC_FUZZ_UTIL_H
#define WBC_FUZZ_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a NUL-terminated string (it may hold more NULs); free() it. NULL when out
 * of memory (the target then returns). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
