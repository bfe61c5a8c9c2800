/*
 * The capture hook: the one place that decides which output commits arm writeback
 * (state.capture) and that receives the captured frames.
 *
 * Consumers (a screenshot, the recorder) register with an output's capture and either ask
 * for single frames or for every frame the output shows, optionally capped to one per
 * interval. The capture installs itself as the output's capture listener (adapter.h): the
 * adapter asks it on each commit whether to arm writeback and reports what happened to
 * armed ones and to every flip. The adapter knows nothing of this header.
 *
 * Two ways to get the pixels:
 *   writeback  the display engine writes the composed CRTC output into a pool buffer
 *              (armed on the commit); the frame is that buffer, lent to the consumers
 *              until the last of them unrefs it (then it goes back to the KMS pool).
 *   readback   no writeback: when a flip shows a buffer, its pixels are copied out of the
 *              displayed buffer (wlr_buffer data-pointer access on pixman's dumb buffer,
 *              wlr_renderer_read_pixels on GLES2's GBM buffer, or a CPU mapping of a
 *              client's linear dma-buf); the frame owns the copy.
 *
 * Frame lifetime: a frame is valid during the consumer's frame callback; a consumer that
 * needs it longer takes a reference (wbc_capture_frame_ref) and drops it later (unref).
 * Every reference must be dropped before the output's pipe goes away: the capture calls
 * the consumers' detach() first (when the output is disabled or destroyed).
 */
#ifndef WBC_CAPTURE_H
#define WBC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include "wbc/kms.h"

struct wlr_output;
struct wlr_buffer;
struct wbc_capture;

enum wbc_capture_method {
	WBC_CAPTURE_WRITEBACK,
	WBC_CAPTURE_READBACK,
};

/* A captured frame, reference counted. frame.buffer is NULL for readback frames. */
struct wbc_capture_frame {
	struct wbc_kms_wb_frame frame;   /* data valid until the last unref */
	/* private */
	unsigned refs;
	struct wbc_kms_pipe *pipe;       /* writeback: the pool the buffer goes back to */
	void *copy;                      /* readback: the pixels (owned) */
	struct wbc_capture *capture;     /* NULL once the capture is gone */
	struct wl_list link;             /* wbc_capture.held */
};

struct wbc_capture_frame *wbc_capture_frame_ref(struct wbc_capture_frame *frame);
void wbc_capture_frame_unref(struct wbc_capture_frame *frame);

/* Embedded in its owner (the consumer), who keeps it alive while registered. */
struct wbc_capture_consumer {
	/* A frame, valid during the call; take a reference to keep it. */
	void (*frame)(struct wbc_capture_consumer *consumer, struct wbc_capture_frame *frame);
	/* Capture cannot work on this output (reason given). Optional. */
	void (*unavailable)(struct wbc_capture_consumer *consumer, const char *why);
	/* The output's pipe or the capture is going away: drop every reference now; the
	 * consumer is removed afterwards. Optional (for consumers that keep no frames). */
	void (*detach)(struct wbc_capture_consumer *consumer);
	bool continuous;                 /* every frame shown (see interval_ns), e.g. a recorder */
	uint64_t interval_ns;            /* continuous: at most one frame per interval; 0: all */
	bool repeat_idle;                /* continuous: re-capture an unchanged screen every
	                                    interval (outputs that need a steady frame rate) */
	unsigned hold;                   /* frames it may keep at once (sizes the writeback pool) */
	/* Optional, continuous consumers: it cannot take one more frame now, with `coming`
	 * frames already armed and on their way to it (e.g. the recorder's queue would be
	 * full). Commits are then not armed for it — the display engine does not write
	 * frames that would be dropped — and the flips it misses so are counted in
	 * busy_skips. It calls wbc_capture_consumer_ready() once it can take frames again. */
	bool (*busy)(struct wbc_capture_consumer *consumer, unsigned coming);
	uint64_t busy_skips;             /* frames shown while it was due but busy */
	unsigned requested;              /* one-shot frames still wanted */
	struct wbc_capture *capture;     /* set while registered */
	struct wl_list link;             /* wbc_capture.consumers */
	uint64_t last_ns;                /* private: when it last had a frame armed (0: never) */
};

/* One per output; owned by the compositor's screen. Installs itself as the output's capture
 * listener (adapter.h) until destroyed. */
struct wbc_capture *wbc_capture_create(struct wlr_output *output);
void wbc_capture_destroy(struct wbc_capture *capture);

void wbc_capture_set_method(struct wbc_capture *capture, enum wbc_capture_method method);
enum wbc_capture_method wbc_capture_get_method(const struct wbc_capture *capture);
/* Writeback buffers the consumers need: 2 (one armed, one spare) + what they hold. */
unsigned wbc_capture_pool_size(const struct wbc_capture *capture);

void wbc_capture_add(struct wbc_capture *capture, struct wbc_capture_consumer *consumer);
void wbc_capture_remove(struct wbc_capture_consumer *consumer);
/* One more frame for a one-shot consumer; makes sure a commit happens soon. */
void wbc_capture_request_frame(struct wbc_capture_consumer *consumer);
/* A busy consumer can take frames again. */
void wbc_capture_consumer_ready(struct wbc_capture_consumer *consumer);
/* Start/stop a continuous consumer's frames. */
void wbc_capture_set_continuous(struct wbc_capture_consumer *consumer, bool on);

#endif
