/*
 * libFuzzer target: the compositor's mode ("WxH[@Hz]") and seconds parsers,
 * parse_mode() and parse_seconds() in compositor/shell/options.c. They are static, so
 * options.c is included here (its wbc_options_parse() is not fuzzed: it prints to
 * stdout/stderr). The input is the string (cut at its first NUL); the first byte
 * chooses the parser: 's' parses the rest as SECONDS, anything else parses the
 * whole input as a mode.
 */
#include "../../compositor/shell/options.c"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	if (!s)
		return 0;

	if (s[0] == 's') {
		double v = -1;
		if (parse_seconds(s + 1, &v))
			assert(v >= 0 && v <= MAX_SECONDS && isfinite(v));
		else
			assert(v == -1);
		free(s);
		return 0;
	}

	struct wbc_options o = { .mode_width = -1, .mode_height = -1, .mode_refresh_mhz = -1 };
	if (parse_mode(s, &o)) {
		assert(o.has_mode);
		assert(o.mode_width >= 1 && o.mode_width <= 16384);
		assert(o.mode_height >= 1 && o.mode_height <= 16384);
		assert(o.mode_refresh_mhz >= 0 && o.mode_refresh_mhz <= 1000000);
		/* The canonical spelling of what was parsed parses to the same mode. */
		char canon[64];
		struct wbc_options o2 = { 0 };
		snprintf(canon, sizeof(canon), "%dx%d@%.3f", (int)o.mode_width,
			(int)o.mode_height, o.mode_refresh_mhz / 1000.0);
		if (o.mode_refresh_mhz > 0) {
			assert(parse_mode(canon, &o2));
			assert(o2.mode_width == o.mode_width && o2.mode_height == o.mode_height &&
				o2.mode_refresh_mhz == o.mode_refresh_mhz);
		}
	} else {
		assert(!o.has_mode && o.mode_width == -1 && o.mode_height == -1 &&
			o.mode_refresh_mhz == -1);
	}
	free(s);
	return 0;
}
