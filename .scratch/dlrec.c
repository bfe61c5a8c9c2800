#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <errno.h>
#include <drm_fourcc.h>
#include "wbc/recorder-module.h"
static void rel(void *d, const struct wbc_recorder_frame *f) { (void)d; (void)f; }
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) { puts(dlerror()); return 1; }
	const struct wbc_recorder_module *m = dlsym(h, "wbc_recorder_module");
	struct wbc_recorder_options o = { .output = argv[2], .codec = argc > 3 ? argv[3] : NULL, .width = 640, .height = 480,
		.format = DRM_FORMAT_XRGB8888, .rotation = 90, .queue_length = 4 };
	struct wbc_recorder *r; char err[4096];
	if (m->create(&o, &r, err, sizeof err)) { puts(err); return 1; }
	static unsigned char px[640*480*4];
	for (int i = 0; i < 10; i++) {
		memset(px, i * 20, sizeof px);
		struct wbc_recorder_frame f = { .data = px, .stride = 640*4, .timestamp_ns = (int64_t)i * 16666666, .release = rel };
		while (m->submit(r, &f) == -EAGAIN) { usleep(10000); m->dispatch(r); }
		usleep(20000); m->dispatch(r);
	}
	m->stop(r, 10 * 16666666LL);
	m->destroy(r);
	return 0;
}
