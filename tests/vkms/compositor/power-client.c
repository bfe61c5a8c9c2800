/*
 * power-client: the display's power through wlr-output-power-management-unstable-v1
 * (Debian 12 has no wlopm), and an idle inhibitor (zwp_idle_inhibit_manager_v1).
 *
 *   power-client cycle FILE OFF_S   waits for the output's first mode event ("mode on"),
 *                                   asks for off, waits for "mode off", writes "off" to
 *                                   FILE, waits OFF_S seconds, asks for on, waits for
 *                                   "mode on", exits 0
 *   power-client inhibit FILE MAX_S a surface with an idle inhibitor, held until FILE
 *                                   exists (at most MAX_S seconds), then "released"
 *
 * Prints each event as it comes ("mode on|off", "failed"); exit 1 when an expected mode
 * event does not come within 60 s or the object fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>
#include <wayland-client.h>
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"

/* Everything the client has; one instance in main(). */
struct client {
	struct wl_output *output;
	struct wl_compositor *compositor;
	struct zwlr_output_power_manager_v1 *power_manager;
	struct zwp_idle_inhibit_manager_v1 *inhibit_manager;
	int mode;                        /* -1 before the first event */
	bool failed;
};

static void on_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct client *c = data;
	if (strcmp(iface, wl_output_interface.name) == 0 && !c->output)
		c->output = wl_registry_bind(reg, name, &wl_output_interface, 1);
	else if (strcmp(iface, wl_compositor_interface.name) == 0)
		c->compositor = wl_registry_bind(reg, name, &wl_compositor_interface, 1);
	else if (strcmp(iface, zwlr_output_power_manager_v1_interface.name) == 0)
		c->power_manager = wl_registry_bind(reg, name,
			&zwlr_output_power_manager_v1_interface, 1);
	else if (strcmp(iface, zwp_idle_inhibit_manager_v1_interface.name) == 0)
		c->inhibit_manager = wl_registry_bind(reg, name,
			&zwp_idle_inhibit_manager_v1_interface, 1);
}

static void on_global_remove(void *data, struct wl_registry *reg, uint32_t name) {}

static const struct wl_registry_listener registry_listener = { on_global, on_global_remove };

static void on_mode(void *data, struct zwlr_output_power_v1 *p, uint32_t mode)
{
	struct client *c = data;
	c->mode = (int)mode;
	printf("mode %s\n", mode == ZWLR_OUTPUT_POWER_V1_MODE_ON ? "on" : "off");
}

static void on_failed(void *data, struct zwlr_output_power_v1 *p)
{
	((struct client *)data)->failed = true;
	printf("failed\n");
}

static const struct zwlr_output_power_v1_listener power_listener = { on_mode, on_failed };

/* Dispatch until the mode is want (true) or 60 s passed or the object failed (false). */
static bool await_mode(struct wl_display *dpy, struct client *c, int want)
{
	time_t end = time(NULL) + 60;
	while (c->mode != want && !c->failed && time(NULL) < end) {
		wl_display_flush(dpy);
		struct pollfd pfd = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&pfd, 1, 200) > 0 && wl_display_dispatch(dpy) < 0)
			return false;
	}
	return c->mode == want;
}

static int cycle(struct wl_display *dpy, struct client *c, const char *marker, int off_s)
{
	struct zwlr_output_power_v1 *p =
		zwlr_output_power_manager_v1_get_output_power(c->power_manager, c->output);
	zwlr_output_power_v1_add_listener(p, &power_listener, c);
	if (!await_mode(dpy, c, ZWLR_OUTPUT_POWER_V1_MODE_ON))
		return 1;
	zwlr_output_power_v1_set_mode(p, ZWLR_OUTPUT_POWER_V1_MODE_OFF);
	if (!await_mode(dpy, c, ZWLR_OUTPUT_POWER_V1_MODE_OFF))
		return 1;
	FILE *f = fopen(marker, "w");
	if (!f || fputs("off\n", f) < 0 || fclose(f) != 0)
		return 1;
	sleep((unsigned)off_s);
	zwlr_output_power_v1_set_mode(p, ZWLR_OUTPUT_POWER_V1_MODE_ON);
	if (!await_mode(dpy, c, ZWLR_OUTPUT_POWER_V1_MODE_ON))
		return 1;
	zwlr_output_power_v1_destroy(p);
	wl_display_roundtrip(dpy);
	return 0;
}

static int inhibit(struct wl_display *dpy, struct client *c, const char *file, int secs)
{
	struct wl_surface *s = wl_compositor_create_surface(c->compositor);
	struct zwp_idle_inhibitor_v1 *in =
		zwp_idle_inhibit_manager_v1_create_inhibitor(c->inhibit_manager, s);
	wl_display_roundtrip(dpy);
	printf("inhibiting\n");
	time_t end = time(NULL) + secs;
	while (time(NULL) < end && access(file, F_OK) != 0) {
		wl_display_flush(dpy);
		struct pollfd pfd = { .fd = wl_display_get_fd(dpy), .events = POLLIN };
		if (poll(&pfd, 1, 200) > 0 && wl_display_dispatch(dpy) < 0)
			return 1;
	}
	zwp_idle_inhibitor_v1_destroy(in);
	wl_surface_destroy(s);
	wl_display_roundtrip(dpy);
	printf("released\n");
	return 0;
}

/* A test tool, not wbc: it exits without destroying every proxy, so LeakSanitizer is
 * turned off for this process only. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	bool is_cycle = argc == 4 && strcmp(argv[1], "cycle") == 0;
	bool is_inhibit = argc == 4 && strcmp(argv[1], "inhibit") == 0;
	if (!is_cycle && !is_inhibit) {
		fprintf(stderr, "usage: power-client cycle FILE OFF_S | inhibit FILE MAX_S\n");
		return 2;
	}
	struct client c = { .mode = -1 };
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy) {
		fprintf(stderr, "power-client: no compositor\n");
		return 1;
	}
	struct wl_registry *reg = wl_display_get_registry(dpy);
	wl_registry_add_listener(reg, &registry_listener, &c);
	wl_display_roundtrip(dpy);
	if (!c.output || !c.compositor || !c.power_manager || !c.inhibit_manager) {
		fprintf(stderr, "power-client: wl_output, zwlr_output_power_manager_v1 or "
			"zwp_idle_inhibit_manager_v1 missing\n");
		return 1;
	}
	int ret = is_cycle ? cycle(dpy, &c, argv[2], atoi(argv[3])) :
		inhibit(dpy, &c, argv[2], atoi(argv[3]));
	if (ret)
		fprintf(stderr, "power-client: %s\n", c.failed ? "the power object failed" :
			"an expected mode event did not come");
	wl_display_disconnect(dpy);
	return ret;
}
