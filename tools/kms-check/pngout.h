/* PNG files of the checker's images (expected, actual, diff) through libpng. */
#ifndef KMS_CHECK_PNGOUT_H
#define KMS_CHECK_PNGOUT_H

#include <pixman.h>

/* Write an a8r8g8b8 image as an RGB PNG (alpha dropped: frames have none). 0, or -1
 * with a reason in err. */
int png_write(const char *path, pixman_image_t *img, char *err, size_t err_len);

#endif
