/* libpng's simplified API writes a whole RGB buffer; the frame is repacked into one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include "pngout.h"

int png_write(const char *path, pixman_image_t *img, char *err, size_t err_len)
{
	int w = pixman_image_get_width(img), h = pixman_image_get_height(img);
	int stride = pixman_image_get_stride(img);
	const unsigned char *data = (const unsigned char *)pixman_image_get_data(img);
	unsigned char *rgb = malloc((size_t)w * (size_t)h * 3);
	if (!rgb) {
		snprintf(err, err_len, "%s: out of memory", path);
		return -1;
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t v;
			memcpy(&v, data + (size_t)y * (size_t)stride + 4 * (size_t)x, 4);
			unsigned char *o = rgb + 3 * ((size_t)y * (size_t)w + (size_t)x);
			o[0] = (unsigned char)(v >> 16);
			o[1] = (unsigned char)(v >> 8);
			o[2] = (unsigned char)v;
		}
	png_image pi;
	memset(&pi, 0, sizeof(pi));
	pi.version = PNG_IMAGE_VERSION;
	pi.width = (png_uint_32)w;
	pi.height = (png_uint_32)h;
	pi.format = PNG_FORMAT_RGB;
	int ok = png_image_write_to_file(&pi, path, 0, rgb, w * 3, NULL);
	if (!ok)
		snprintf(err, err_len, "%s: %s", path, pi.message);
	png_image_free(&pi);
	free(rgb);
	return ok ? 0 : -1;
}
