/* Opening the DRM device through the session (libseat): --device PATH, or the first
 * /dev/dri/card* that does KMS and has a connected display; and at exit, restoring the
 * display state found there. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <wlr/backend/session.h>
#include "util/log.h"
#include "server.h"
#include "wbc/kms.h"

#define MAX_CARDS 16
/* The character-device major of DRM nodes on Linux (Documentation/admin-guide/devices.txt;
 * libdrm keeps its DRM_MAJOR private). */
#define DRM_MAJOR 226

static bool has_connected_display(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	bool found = false;
	for (int i = 0; res && i < res->count_connectors && !found; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
		found = c && c->connection == DRM_MODE_CONNECTED &&
			c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return found;
}

/* wlr_session_find_gpus() filters by the session's seat name, which libseat's noop
 * backend calls "noop": scan the card nodes ourselves instead. */
static struct wlr_device *find_card(struct wbc_server *s, char *path, size_t len)
{
	struct wlr_device *fallback = NULL;
	char fallback_path[64] = "";
	for (int i = 0; i < MAX_CARDS; i++) {
		char p[64];
		snprintf(p, sizeof(p), "/dev/dri/card%d", i);
		if (access(p, F_OK) != 0)
			continue;
		struct wlr_device *dev = wlr_session_open_file(s->session, p);
		if (!dev)
			continue;
		if (!drmIsKMS(dev->fd)) {
			wlr_session_close_file(s->session, dev);
			continue;
		}
		if (has_connected_display(dev->fd)) {
			if (fallback)
				wlr_session_close_file(s->session, fallback);
			snprintf(path, len, "%s", p);
			return dev;
		}
		if (!fallback) {
			fallback = dev;
			snprintf(fallback_path, sizeof(fallback_path), "%s", p);
		} else {
			wlr_session_close_file(s->session, dev);
		}
	}
	snprintf(path, len, "%s", fallback_path);
	return fallback;
}

int wbc_device_open(struct wbc_server *s)
{
	char path[64];
	if (s->opts->device) {
		snprintf(path, sizeof(path), "%s", s->opts->device);
		struct stat st;
		if (stat(path, &st) != 0) {
			wbc_log(WLR_ERROR, "cannot use DRM device %s: %s", path, strerror(errno));
			return -1;
		}
		if (!S_ISCHR(st.st_mode)) {
			wbc_log(WLR_ERROR, "cannot use DRM device %s: not a character device", path);
			return -1;
		}
		/* Else the session refuses it and the message would suggest permissions. */
		if (major(st.st_rdev) != DRM_MAJOR) {
			wbc_log(WLR_ERROR, "cannot use DRM device %s: not a DRM device (character "
				"device %u:%u; DRM devices are %d:N, e.g. /dev/dri/card0)", path,
				major(st.st_rdev), minor(st.st_rdev), DRM_MAJOR);
			return -1;
		}
		s->drm = wlr_session_open_file(s->session, path);
		if (!s->drm) {
			wbc_log(WLR_ERROR, "cannot open DRM device %s through the session "
				"(permissions? run with -v for details)", path);
			return -1;
		}
	} else {
		s->drm = find_card(s, path, sizeof(path));
		if (!s->drm) {
			wbc_log(WLR_ERROR, "no KMS device found (no usable /dev/dri/card*); "
				"give one with --device PATH");
			return -1;
		}
	}
	/* Before anything else: without master every modeset fails, and the display is the
	 * master's (another compositor or X server): leave it untouched. The session made
	 * wbc master if it could (seatd and logind do on open). */
	if (!drmIsMaster(s->drm->fd)) {
		wbc_log(WLR_ERROR, "cannot drive %s: another process is its DRM master (a "
			"compositor or X server?); stop it, or start wbc on a VT of its own", path);
		return -1;
	}
	struct wbc_kms_error err = { 0 };
	struct wbc_kms_device_options opts = { .master = false };
	if (wbc_kms_device_open_fd(s->drm->fd, &opts, &s->kms, &err) < 0) {
		wbc_log(WLR_ERROR, "%s", err.message);
		return -1;
	}
	wbc_log(WLR_INFO, "using %s (%s)", s->kms->path, s->kms->driver);
	return 0;
}

void wbc_device_restore(struct wbc_server *s)
{
	if (!s->kms)
		return;
	char summary[512];
	if (wbc_kms_device_restore(s->kms, summary, sizeof(summary)) < 0)
		wbc_log(WLR_ERROR, "%s", wbc_kms_device_error(s->kms));
	else
		wbc_log(WLR_INFO, "display state found at start restored: %s", summary);
}
