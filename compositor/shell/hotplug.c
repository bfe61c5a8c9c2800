/* Display hotplug: the kernel's DRM uevents for wbc's card, through a libudev monitor on
 * "kernel" events (the kernel's own netlink messages: no udevd needed, and none is running
 * in the test guest or on a minimal kiosk). On a hotplug event the adapter re-reads the
 * connectors and adds or removes outputs (adapter.h). libudev stays here: backend/ is
 * libdrm only and watches nothing itself. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libudev.h>
#include <wlr/backend/session.h>
#include "adapter/adapter.h"
#include "util/log.h"
#include "server.h"
#include "wbc/kms.h"

/* Owned by the server (server->hotplug), freed by wbc_hotplug_finish. */
struct wbc_hotplug {
	struct udev *udev;
	struct udev_monitor *monitor;
	struct wl_event_source *source;
	dev_t card;                      /* the device number of wbc's card */
};

/* A "change" uevent of our card: connector status or modes may have changed (the kernel
 * does not say which connector on every driver, so all are re-read). Not only those with
 * HOTPLUG=1: a driver without connector polling (VKMS) sends none when a connector's
 * status is forced through sysfs, and a "change" written to the card's uevent file is then
 * the way to tell wbc; the other change events (LEASE=1) are rare, and a probe harmless. */
static bool is_our_hotplug(struct wbc_hotplug *h, struct udev_device *dev)
{
	const char *action = udev_device_get_action(dev);
	return action && strcmp(action, "change") == 0 && udev_device_get_devnum(dev) == h->card;
}

static int handle_uevent(int fd, uint32_t mask, void *data)
{
	struct wbc_server *s = data;
	struct udev_device *dev = udev_monitor_receive_device(s->hotplug->monitor);
	if (!dev)
		return 0;
	if (is_our_hotplug(s->hotplug, dev) && s->session && !s->session->active) {
		/* Not DRM master: no modeset would be allowed. The session's return re-reads
		 * the connectors anyway (screen.c). */
		wbc_notice("a display changed while the session is away: looking again when "
			"it comes back");
	} else if (is_our_hotplug(s->hotplug, dev)) {
		const char *hotplug = udev_device_get_property_value(dev, "HOTPLUG");
		wbc_log(WLR_DEBUG, "change uevent for %s%s: re-reading connectors",
			udev_device_get_devnode(dev) ? udev_device_get_devnode(dev) : "the card",
			hotplug ? " (HOTPLUG)" : "");
		wbc_adapter_reprobe(s->adapter);
	}
	udev_device_unref(dev);
	return 0;
}

int wbc_hotplug_init(struct wbc_server *s)
{
	struct stat st;
	if (fstat(s->kms->fd, &st) != 0) {
		wbc_log(WLR_ERROR, "hotplug: cannot stat %s", s->kms->path);
		return -1;
	}
	struct wbc_hotplug *h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	s->hotplug = h;
	h->card = st.st_rdev;
	h->udev = udev_new();
	h->monitor = h->udev ? udev_monitor_new_from_netlink(h->udev, "kernel") : NULL;
	if (!h->monitor || udev_monitor_filter_add_match_subsystem_devtype(h->monitor, "drm",
			NULL) < 0 || udev_monitor_enable_receiving(h->monitor) < 0) {
		wbc_log(WLR_ERROR, "hotplug: cannot watch the kernel's uevents (netlink)");
		return -1;
	}
	h->source = wl_event_loop_add_fd(s->loop, udev_monitor_get_fd(h->monitor),
		WL_EVENT_READABLE, handle_uevent, s);
	if (!h->source) {
		wbc_log(WLR_ERROR, "hotplug: cannot watch the uevent socket");
		return -1;
	}
	return 0;
}

void wbc_hotplug_finish(struct wbc_server *s)
{
	struct wbc_hotplug *h = s->hotplug;
	if (!h)
		return;
	if (h->source)
		wl_event_source_remove(h->source);
	udev_monitor_unref(h->monitor);
	udev_unref(h->udev);
	free(h);
	s->hotplug = NULL;
}
