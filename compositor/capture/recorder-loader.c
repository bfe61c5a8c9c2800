/* Loading the recorder module. wbc looks for WBC_RECORDER_MODULE_FILE along its own
 * library search path, as the dynamic loader walks it for wbc (LD_LIBRARY_PATH, then
 * wbc's RUNPATH: the build tree's recorder/ or the installed libdir/wbc/, meson.build;
 * then the system's directories), and opens the first one found by its full path. Not
 * dlopen by bare name: under AddressSanitizer dlopen is called from the sanitizer's
 * library, whose search path has no RUNPATH of wbc's, and the module would not be found. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/recorder-loader.h"
#include "util/log.h"

static const struct wbc_recorder_module *loaded;

/* wbc's library search path, or NULL (then err says why). Free it. */
static Dl_serinfo *search_path(char *err, size_t len)
{
	void *self = dlopen(NULL, RTLD_NOW);
	Dl_serinfo size, *info = NULL;
	if (!self || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0 ||
			!(info = malloc(size.dls_size)) ||
			dlinfo(self, RTLD_DI_SERINFOSIZE, info) != 0 ||
			dlinfo(self, RTLD_DI_SERINFO, info) != 0) {
		snprintf(err, len, "cannot load the recorder: %s", info ? dlerror() : "out of memory");
		free(info);
		return NULL;
	}
	return info;
}

/* Opens the first WBC_RECORDER_MODULE_FILE along the search path; its path into path. */
static void *open_module(char *path, size_t path_len, char *err, size_t len)
{
	Dl_serinfo *info = search_path(err, len);
	if (!info)
		return NULL;
	char dirs[1024] = "";
	for (unsigned i = 0; i < info->dls_cnt; i++) {
		const char *dir = info->dls_serpath[i].dls_name;
		snprintf(path, path_len, "%s/%s", dir, WBC_RECORDER_MODULE_FILE);
		if (access(path, F_OK) != 0) {
			size_t used = strlen(dirs);
			snprintf(dirs + used, sizeof(dirs) - used, "%s%s", used ? ":" : "", dir);
			continue;
		}
		free(info);
		void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!handle)
			snprintf(err, len, "cannot load the recorder: %s", dlerror());
		return handle;
	}
	free(info);
	snprintf(err, len, "cannot load the recorder: no %s in %s", WBC_RECORDER_MODULE_FILE,
		dirs);
	return NULL;
}

const struct wbc_recorder_module *wbc_recorder_loader_get(char *err, size_t len)
{
	if (loaded)
		return loaded;
	char path[4096];
	void *handle = open_module(path, sizeof(path), err, len);
	if (!handle)
		return NULL;
	const struct wbc_recorder_module *m = dlsym(handle, WBC_RECORDER_MODULE_SYMBOL);
	if (!m) {
		snprintf(err, len, "cannot load the recorder: %s", dlerror());
		dlclose(handle);
		return NULL;
	}
	if (m->version != WBC_RECORDER_MODULE_VERSION || m->size != sizeof(*m)) {
		snprintf(err, len, "cannot load the recorder: %s is version %u (%zu bytes), this "
			"wbc needs version %u (%zu bytes): install the two from one build", path,
			m->version, m->size, WBC_RECORDER_MODULE_VERSION, sizeof(*m));
		dlclose(handle);
		return NULL;
	}
	wbc_log(WLR_DEBUG, "recorder: loaded %s", path);
	loaded = m;
	return m;
}
