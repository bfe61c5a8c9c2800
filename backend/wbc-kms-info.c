/* wbc-kms-info: print what backend/ discovers about a DRM device. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "info.h"

static int usage(FILE *f, int status)
{
	fprintf(f, "usage: wbc-kms-info [--device PATH] [--json]\n"
		"  --device PATH  DRM device (default /dev/dri/card0)\n"
		"  --json         machine-readable output (see wbc-kms-info(1))\n");
	return status;
}

int main(int argc, char **argv)
{
	const char *path = "/dev/dri/card0";
	bool json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage(stdout, 0);
		else
			return usage(stderr, 2);
	}
	struct wbc_kms_device *dev;
	struct wbc_kms_error err = { 0 };
	if (wbc_kms_device_open(path, NULL, &dev, &err) < 0) {
		fprintf(stderr, "wbc-kms-info: %s\n", err.message);
		return 1;
	}
	if (json) {
		json_object *root = wbc_kms_info_json(dev);
		puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		wbc_kms_info_print(stdout, dev);
	}
	wbc_kms_device_destroy(dev);
	return 0;
}
