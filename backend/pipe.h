/* Internal: the pipe object, shared by pipe.c, commit.c and writeback.c. */
#ifndef WBC_KMS_PIPE_H
#define WBC_KMS_PIPE_H

#include "private.h"

/* Owned by the caller of wbc_kms_pipe_create; borrows the device and its objects. */
struct wbc_kms_pipe {
	struct wbc_kms_device *dev;
	struct wbc_kms_pipe_listener listener;
	struct wbc_kms_connector *connector;
	struct wbc_kms_crtc *crtc;
	struct wbc_kms_plane *primary, *cursor, *overlay;
	drmModeModeInfo mode;
	uint32_t mode_blob;              /* owned property blob of mode */
	bool needs_modeset;              /* next commit goes out blocking with ALLOW_MODESET */
	bool active;                     /* the CRTC is on (a modeset succeeded) */
	bool maybe_lit;                  /* a disable failed (no DRM master while the session
	                                  * was away): the CRTC may still be on */
	struct wbc_kms_pipe *parked_next; /* dev->parked: destroyed while maybe_lit */

	/* The one commit in flight, if any. */
	bool flip_pending;
	void *flip_user_data;
	struct wbc_kms_wb_buffer *flip_job; /* its writeback job, or NULL */
	uint64_t submit_seq;             /* vblank count when it went out; 0 = unknown */
	uint64_t submit_ns;              /* CLOCK_MONOTONIC when it went out */
	uint64_t flip_ns;                /* the last flip's vblank time; 0: none yet */

	/* The state waiting for the pipe to be free. */
	bool has_queued;
	struct wbc_kms_pipe_state queued;

	/* Writeback: the connector (borrowed), how it is routed, and the pool (owned). */
	struct wbc_kms_connector *wb_connector;
	bool wb_usable;                  /* a writeback connector can take this CRTC's output */
	char wb_reason[512];             /* why not, when !wb_usable */
	bool wb_route;                   /* route it in modesets (false: it is the connector) */
	bool wb_route_per_capture;       /* fallback: the kernel refused an idle route */
	struct wbc_kms_writeback *wb;

	struct wbc_kms_pipe_stats stats;
};

/* pipe.c: wait (bounded) for the commit in flight and outstanding capture fences. */
void wbc_kms_pipe_drain(struct wbc_kms_pipe *pipe);
/* pipe.c: the parked pipes (destroyed, their disable refused): try to turn each off
 * again (reprobe: the device may be ours again), or free them all (device destroy). */
void wbc_kms_pipe_retry_parked(struct wbc_kms_device *dev);
void wbc_kms_pipe_free_parked(struct wbc_kms_device *dev);

/* commit.c */
int wbc_kms_pipe_submit(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state,
		bool test_only);
int wbc_kms_pipe_disable(struct wbc_kms_pipe *pipe);

/* writeback.c: the one place that knows how the writeback connector is routed. */
int wbc_kms_writeback_add_route(struct wbc_kms_pipe *pipe, drmModeAtomicReq *req,
		bool modeset, bool capturing);

#endif
