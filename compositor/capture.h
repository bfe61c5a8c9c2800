/*
 * The capture hook: the one place that decides which output commits arm writeback
 * (state.capture) and that receives the writeback frames (listener.frame).
 *
 * Consumers (a screenshot now, the recorder later) register with an output's capture
 * and either ask for single frames or for every frame the output shows. The adapter
 * asks wbc_capture_wants() on each commit and reports what happened to armed ones.
 */
#ifndef WBC_CAPTURE_H
#define WBC_CAPTURE_H

#include <stdbool.h>
#include <wayland-server-core.h>
#include "wbc/kms.h"

struct wlr_output;
struct wbc_capture;

/* Embedded in its owner (the consumer), who keeps it alive while registered. */
struct wbc_capture_consumer {
	/* A frame, valid only during the call: copy what you need. */
	void (*frame)(struct wbc_capture_consumer *consumer, const struct wbc_kms_wb_frame *frame);
	/* Writeback cannot work on this output (reason given). Optional. */
	void (*unavailable)(struct wbc_capture_consumer *consumer, const char *why);
	bool continuous;                 /* every frame shown, e.g. a recorder */
	unsigned requested;              /* one-shot frames still wanted */
	struct wbc_capture *capture;     /* set while registered */
	struct wl_list link;             /* wbc_capture.consumers */
};

/* One per output; owned by the compositor's screen, which attaches it to the adapter. */
struct wbc_capture *wbc_capture_create(struct wlr_output *output);
void wbc_capture_destroy(struct wbc_capture *capture);

void wbc_capture_add(struct wbc_capture *capture, struct wbc_capture_consumer *consumer);
void wbc_capture_remove(struct wbc_capture_consumer *consumer);
/* One more frame for a one-shot consumer; makes sure a commit happens soon. */
void wbc_capture_request_frame(struct wbc_capture_consumer *consumer);
/* Start/stop a continuous consumer's frames. */
void wbc_capture_set_continuous(struct wbc_capture_consumer *consumer, bool on);

/* For the adapter. */
bool wbc_capture_wants(const struct wbc_capture *capture);
void wbc_capture_armed(struct wbc_capture *capture);   /* a commit went out armed */
void wbc_capture_lost(struct wbc_capture *capture);    /* an armed commit produced nothing */
void wbc_capture_reset(struct wbc_capture *capture);   /* the pipe went away: nothing armed */
void wbc_capture_deliver(struct wbc_capture *capture, const struct wbc_kms_wb_frame *frame);
void wbc_capture_unavailable(struct wbc_capture *capture, const char *why);

#endif
