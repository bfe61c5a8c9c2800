/* kms-planes [DEVICE]: list a DRM device's planes with libwbc-kms. Built against the
 * installed library by tests/unit/install/install.sh: cc kms-planes.c $(pkg-config
 * --cflags --libs wbc-kms). Without DEVICE it opens /dev/dri/card0. */
#include <stdio.h>
#include <wbc/kms.h>

int main(int argc, char **argv)
{
	struct wbc_kms_device *dev;
	struct wbc_kms_error err;
	const char *path = argc > 1 ? argv[1] : "/dev/dri/card0";
	if (wbc_kms_device_open(path, NULL, &dev, &err) < 0) {
		fprintf(stderr, "kms-planes: %s\n", err.message);
		return 1;
	}
	for (size_t i = 0; i < dev->n_planes; i++)
		printf("plane %u %s, %zu formats\n", (unsigned)dev->planes[i].id,
			wbc_kms_plane_type_name(dev->planes[i].type), dev->planes[i].n_formats);
	wbc_kms_device_destroy(dev);
	return 0;
}
