/* The adapter's wlr_backend: one wlr_output per connected display connector of a KMS
 * device, the device's event fd in the display's event loop. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/render/wlr_renderer.h>
#include "adapter-private.h"
#include "util/leak-check.h"
#include "util/log.h"

static const struct wlr_backend_impl backend_impl;

static struct wbc_backend *backend_from(struct wlr_backend *wb)
{
	return wl_container_of(wb, (struct wbc_backend *)NULL, base);
}

bool wbc_backend_is_adapter(struct wlr_backend *backend)
{
	return backend->impl == &backend_impl;
}

static int handle_kms_events(int fd, uint32_t mask, void *data)
{
	struct wbc_backend *b = data;
	if (wbc_kms_device_dispatch(b->dev) < 0)
		wbc_log(WLR_ERROR, "KMS events: %s", wbc_kms_device_error(b->dev));
	return 0;
}

static bool usable(const struct wbc_kms_connector *c, bool accept_unknown)
{
	if (c->writeback || c->n_modes == 0)
		return false;
	return c->status == DRM_MODE_CONNECTED ||
		(accept_unknown && c->status == DRM_MODE_UNKNOWNCONNECTION);
}

/* Whether writeback can capture this display connector's CRTC; *why if not. */
static bool capturable(struct wbc_backend *b, struct wbc_kms_connector *c, char *why,
		size_t len)
{
	struct wbc_kms_pipe_options opts = { .connector_id = c->id };
	struct wbc_kms_pipe *probe;
	if (wbc_kms_pipe_create(b->dev, &opts, NULL, &probe) < 0) {
		snprintf(why, len, "%s", wbc_kms_device_error(b->dev));
		return false;
	}
	bool ok = wbc_kms_writeback_supported(probe);
	if (!ok)
		snprintf(why, len, "%s", wbc_kms_pipe_writeback_unsupported_reason(probe));
	wbc_kms_pipe_destroy(probe);
	return ok;
}

static size_t start_named(struct wbc_backend *b)
{
	for (size_t i = 0; i < b->dev->n_connectors; i++) {
		struct wbc_kms_connector *c = &b->dev->connectors[i];
		if (strcmp(c->name, b->opts.output_name) == 0)
			return c->n_modes && wbc_output_create(b, c) == 0;
	}
	return 0;
}

static size_t start_headless(struct wbc_backend *b)
{
	struct wbc_kms_connector *wb = wbc_kms_device_writeback_connector(b->dev);
	if (!wb || !wb->n_modes)
		return 0;
	snprintf(b->headless_why, sizeof(b->headless_why), "--headless");
	return wbc_output_create(b, wb) == 0;
}

static size_t start_displays(struct wbc_backend *b)
{
	size_t n = 0;
	/* Connected connectors; failing that, any whose state the driver doesn't know. */
	for (int pass = 0; pass < 2 && n == 0; pass++) {
		for (size_t i = 0; i < b->dev->n_connectors; i++) {
			struct wbc_kms_connector *c = &b->dev->connectors[i];
			if (!usable(c, pass == 1))
				continue;
			char why[512];
			struct wbc_kms_connector *wb = wbc_kms_device_writeback_connector(b->dev);
			if (n == 0 && b->opts.need_writeback && wb && wb->n_modes &&
					!capturable(b, c, why, sizeof(why))) {
				wbc_log(WLR_INFO, "%s cannot be captured (%s): driving %s as a "
					"headless output instead", c->name, why, wb->name);
				snprintf(b->headless_why, sizeof(b->headless_why),
					"%s cannot be captured: %s", c->name, why);
				return wbc_output_create(b, wb) == 0;
			}
			if (wbc_output_create(b, c) == 0)
				n++;
		}
	}
	return n;
}

static bool backend_start(struct wlr_backend *wb)
{
	struct wbc_backend *b = backend_from(wb);
	if (b->started)
		return true;
	b->started = true;
	int fd = wbc_kms_device_get_event_fd(b->dev);
	b->kms_source = wl_event_loop_add_fd(wl_display_get_event_loop(b->display), fd,
		WL_EVENT_READABLE, handle_kms_events, b);
	if (!b->kms_source) {
		wbc_log(WLR_ERROR, "cannot watch the KMS device's events");
		return false;
	}
	size_t n = b->opts.headless ? start_headless(b) :
		b->opts.output_name ? start_named(b) : start_displays(b);
	wbc_log(WLR_DEBUG, "%s: %zu output(s)", b->dev->path, n);
	return true;
}

/* ---- Hotplug ----------------------------------------------------------------------- */

static struct wbc_output *output_of(struct wbc_backend *b, uint32_t connector_id)
{
	struct wbc_output *o;
	wl_list_for_each(o, &b->outputs, link)
		if (o->connector_id == connector_id)
			return o;
	return NULL;
}

/* Whether this backend drives display connector c when it is connected: not when it shows
 * the writeback connector (--headless, or instead of an uncapturable display), nor when
 * --output names another. */
static bool drives(struct wbc_backend *b, const struct wbc_kms_connector *c)
{
	if (b->opts.headless || b->headless_why[0])
		return false;
	return !b->opts.output_name || strcmp(b->opts.output_name, c->name) == 0;
}

static const char *status_name(drmModeConnection status)
{
	return status == DRM_MODE_CONNECTED ? "connected" :
		status == DRM_MODE_DISCONNECTED ? "disconnected" : "unknown";
}

/* The KMS library re-read connector c: its output goes when it is no longer usable, comes
 * (back) when it is, and is made anew when its modes changed (another monitor). */
static void connector_changed(void *data, struct wbc_kms_connector *c, unsigned changes)
{
	struct wbc_backend *b = data;
	struct wbc_output *out = output_of(b, c->id);
	bool use = usable(c, false) && drives(b, c);
	wbc_log(WLR_DEBUG, "%s: %s, %zu modes%s", c->name, status_name(c->status), c->n_modes,
		(changes & WBC_KMS_CONNECTOR_MODES_CHANGED) ? " (mode list changed)" : "");
	if (out && (!use || (changes & WBC_KMS_CONNECTOR_MODES_CHANGED))) {
		wbc_notice("output %s: %s: removing it", c->name, use ? "its modes changed" :
			status_name(c->status));
		wbc_leak_check_pause();   /* its globals, should wbc exit in 5 s: leak-check.h */
		wlr_output_destroy(&out->base);   /* CRTC and planes off with its pipe */
		wbc_leak_check_resume();
		out = NULL;
	}
	if (!out && use) {
		wbc_notice("output %s: %s with %zu modes: adding it", c->name,
			status_name(c->status), c->n_modes);
		if (wbc_output_create(b, c) < 0)
			wbc_log(WLR_ERROR, "output %s: cannot drive it (run with -v for details)",
				c->name);
	}
}

void wbc_adapter_reprobe(struct wlr_backend *wb)
{
	struct wbc_backend *b = backend_from(wb);
	if (!b->started)
		return;
	struct wbc_kms_connector_listener l = { .changed = connector_changed, .data = b };
	if (wbc_kms_device_reprobe(b->dev, &l) < 0)
		wbc_log(WLR_ERROR, "re-reading connectors: %s", wbc_kms_device_error(b->dev));
}

static void backend_destroy(struct wlr_backend *wb)
{
	struct wbc_backend *b = backend_from(wb);
	struct wbc_output *out, *tmp;
	wl_list_for_each_safe(out, tmp, &b->outputs, link)
		wlr_output_destroy(&out->base);
	wbc_fb_destroy_all(b);
	if (b->kms_source)
		wl_event_source_remove(b->kms_source);
	wlr_backend_finish(wb);
	wl_list_remove(&b->display_destroy.link);
	free(b);
}

static int backend_get_drm_fd(struct wlr_backend *wb)
{
	return backend_from(wb)->dev->fd;
}

static uint32_t backend_get_buffer_caps(struct wlr_backend *wb)
{
	/* Scan-out takes dma-bufs only: this steers wlr_allocator_autocreate to the DRM
	 * dumb-buffer allocator (CPU-mappable dma-bufs) with the pixman renderer. */
	return WLR_BUFFER_CAP_DMABUF;
}

static clockid_t backend_get_presentation_clock(struct wlr_backend *wb)
{
	return backend_from(wb)->dev->caps.timestamp_monotonic ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

static const struct wlr_backend_impl backend_impl = {
	.start = backend_start,
	.destroy = backend_destroy,
	.get_drm_fd = backend_get_drm_fd,
	.get_buffer_caps = backend_get_buffer_caps,
	.get_presentation_clock = backend_get_presentation_clock,
};

static void handle_display_destroy(struct wl_listener *listener, void *data)
{
	struct wbc_backend *b = wl_container_of(listener, b, display_destroy);
	backend_destroy(&b->base);
}

struct wlr_backend *wbc_adapter_create(struct wl_display *display, struct wbc_kms_device *dev,
		const struct wbc_adapter_options *opts)
{
	struct wbc_backend *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	wlr_backend_init(&b->base, &backend_impl);
	b->display = display;
	b->dev = dev;
	if (opts)
		b->opts = *opts;
	wl_list_init(&b->outputs);
	wl_list_init(&b->fbs);
	b->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &b->display_destroy);
	return &b->base;
}

void wbc_adapter_stats_add(struct wbc_adapter_stats *sum, const struct wbc_adapter_stats *s)
{
	sum->commits += s->commits;
	sum->flips += s->flips;
	sum->superseded += s->superseded;
	sum->failed += s->failed;
	sum->missed_vblanks += s->missed_vblanks;
	sum->captures += s->captures;
	sum->captures_lost += s->captures_lost;
	sum->captures_late += s->captures_late;
	sum->cursor_commits += s->cursor_commits;
}

void wbc_adapter_get_stats(struct wlr_backend *wb, struct wbc_adapter_stats *out)
{
	struct wbc_backend *b = backend_from(wb);
	*out = (struct wbc_adapter_stats){ 0 };
	wbc_adapter_stats_add(out, &b->retired);
	struct wbc_output *o;
	wl_list_for_each(o, &b->outputs, link)
		wbc_output_add_stats(o, out);
}
