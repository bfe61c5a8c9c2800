/* The capture hook: which commits arm writeback, and where writeback frames go. */
#include <stdlib.h>
#include "adapter.h"
#include "capture.h"
#include "log.h"

/* Owned by the screen of its output. */
struct wbc_capture {
	struct wlr_output *output;       /* borrowed */
	struct wl_list consumers;        /* wbc_capture_consumer.link */
	unsigned inflight;               /* armed commits whose frame has not come yet */
	bool unavailable;
};

struct wbc_capture *wbc_capture_create(struct wlr_output *output)
{
	struct wbc_capture *cap = calloc(1, sizeof(*cap));
	if (!cap)
		return NULL;
	cap->output = output;
	wl_list_init(&cap->consumers);
	wbc_output_set_capture(output, cap);
	return cap;
}

void wbc_capture_destroy(struct wbc_capture *cap)
{
	if (!cap)
		return;
	wbc_output_set_capture(cap->output, NULL);
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link)
		wbc_capture_remove(c);
	free(cap);
}

void wbc_capture_add(struct wbc_capture *cap, struct wbc_capture_consumer *consumer)
{
	consumer->capture = cap;
	wl_list_insert(cap->consumers.prev, &consumer->link);
	if (cap->unavailable && consumer->unavailable)
		consumer->unavailable(consumer, "writeback is not available on this output");
}

void wbc_capture_remove(struct wbc_capture_consumer *consumer)
{
	if (!consumer->capture)
		return;
	wl_list_remove(&consumer->link);
	consumer->capture = NULL;
}

void wbc_capture_request_frame(struct wbc_capture_consumer *consumer)
{
	consumer->requested++;
	if (consumer->capture)
		wbc_output_capture_kick(consumer->capture->output);
}

void wbc_capture_set_continuous(struct wbc_capture_consumer *consumer, bool on)
{
	consumer->continuous = on;
	if (on && consumer->capture)
		wbc_output_capture_kick(consumer->capture->output);
}

bool wbc_capture_wants(const struct wbc_capture *cap)
{
	if (cap->unavailable)
		return false;
	unsigned wanted = 0;
	struct wbc_capture_consumer *c;
	wl_list_for_each(c, &cap->consumers, link) {
		if (c->continuous)
			return true;
		wanted += c->requested;
	}
	return wanted > cap->inflight;
}

void wbc_capture_armed(struct wbc_capture *cap)
{
	cap->inflight++;
}

void wbc_capture_lost(struct wbc_capture *cap)
{
	if (cap->inflight)
		cap->inflight--;
}

void wbc_capture_reset(struct wbc_capture *cap)
{
	cap->inflight = 0;
}

void wbc_capture_deliver(struct wbc_capture *cap, const struct wbc_kms_wb_frame *frame)
{
	if (cap->inflight)
		cap->inflight--;
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link) {
		if (!c->continuous && c->requested == 0)
			continue;
		if (!c->continuous)
			c->requested--;
		c->frame(c, frame);
	}
}

void wbc_capture_unavailable(struct wbc_capture *cap, const char *why)
{
	cap->unavailable = true;
	wbc_log(WLR_ERROR, "%s: writeback capture unavailable: %s", cap->output->name, why);
	struct wbc_capture_consumer *c, *tmp;
	wl_list_for_each_safe(c, tmp, &cap->consumers, link)
		if (c->unavailable)
			c->unavailable(c, why);
}
