/* Internal to the adapter (adapter.c, output.c, flip.c, cursor.c, fbcache.c). */
#ifndef WBC_ADAPTER_PRIVATE_H
#define WBC_ADAPTER_PRIVATE_H

#include <wayland-server-core.h>
#include <wlr/backend/interface.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/util/addon.h>
#include "adapter.h"

/* Owned by whoever destroys the wlr_backend (the multi-backend, or the display's end).
 * Borrows the KMS device. */
struct wbc_backend {
	struct wlr_backend base;
	struct wl_display *display;
	struct wbc_kms_device *dev;      /* borrowed */
	struct wbc_adapter_options opts; /* output_name borrowed */
	struct wl_event_source *kms_source;
	struct wl_list outputs;          /* wbc_output.link */
	struct wl_list fbs;              /* wbc_fb.link: every framebuffer imported */
	struct wl_listener display_destroy;
	struct wbc_adapter_stats retired; /* counters of outputs already destroyed */
	char headless_why[600];          /* why a writeback connector was made an output */
	bool started;
};

/* A connector mode as a wlr_output_mode; owned by its output (in wlr_output.modes). */
struct wbc_output_mode {
	struct wlr_output_mode base;
	drmModeModeInfo info;
};

/* The hardware cursor of an output (cursor.c): the image its cursor plane shows from the
 * next commit on. Without a usable cursor plane, software cursors are locked on and
 * wlroots draws the cursor into the primary buffer. */
struct wbc_cursor {
	struct wlr_buffer *buffer;       /* locked; NULL: hidden */
	int x, y;                        /* the hotspot on the output, buffer coordinates */
	int hotspot_x, hotspot_y;        /* in the image */
	struct wlr_drm_format_set formats; /* of the cursor plane; empty: none */
	bool software;                   /* software cursors are locked on for good */
	bool hardware_said;              /* "cursor plane in use" logged */
	struct wl_event_source *fallback_idle; /* locks software cursors out of a commit */
	char fallback_why[WBC_KMS_ERROR_MAX];
};

/* The backend's limit on a writeback pool. */
#define WBC_OUTPUT_MAX_WB_BUFFERS 16

/* Owned by wlroots' wlr_output_destroy (which calls output_impl.destroy). */
struct wbc_output {
	struct wlr_output base;
	struct wbc_backend *backend;
	struct wl_list link;             /* wbc_backend.outputs */
	uint32_t connector_id;
	struct wbc_kms_pipe *pipe;       /* owned; NULL while disabled */
	struct wlr_buffer *front;        /* locked: the buffer on screen, NULL before any */
	struct wlr_buffer *cursor_front; /* locked: the cursor plane's image on screen, or NULL */
	/* The images of shown commits whose capture is still being written, oldest first,
	 * each locked until its frame or loss is reported: the engine may read them after
	 * the next commit replaced them on screen (WBC_KMS_WB_SKIP). [i][1]: the cursor's. */
	struct wlr_buffer *capturing[WBC_OUTPUT_MAX_WB_BUFFERS][2];
	unsigned n_capturing;
	struct wbc_cursor cursor;
	struct wl_list commits;          /* wbc_commit.link: given to the pipe, not reported */
	struct wbc_output_capture_listener capture; /* valid while has_capture */
	bool has_capture;
	struct wlr_drm_format_set primary_formats;
	struct wl_event_source *frame_idle;  /* a frame event deferred out of a backend call */
	struct wl_event_source *retry_timer; /* a frame event after a failed commit */
	struct wl_event_source *capture_idle;
	int in_call;                     /* >0 inside a synchronous call into the pipe */
	bool destroying;
	bool writeback_failed;           /* enabling writeback failed once: don't retry */
	/* Test hook WBC_DEBUG_LOSE_WRITEBACK_AFTER (output.c): -1 off. */
	long debug_lose_after;
	long debug_fences;               /* out-fences seen so far */
	struct wbc_adapter_stats stats;
};

/* One state handed to wbc_kms_pipe_commit, owned by output->commits until its flip event
 * reports it (or the pipe is destroyed without reporting it). */
struct wbc_commit {
	struct wbc_output *output;
	struct wl_list link;
	uint32_t commit_seq;             /* the wlr_output.commit_seq this commit becomes */
	bool internal;                   /* made by the adapter itself: wlroots doesn't know it */
	bool capture;                    /* armed for writeback */
	struct wlr_buffer *buffer;       /* locked until the next buffer replaces it on screen */
	struct wlr_buffer *cursor;       /* locked likewise: its cursor plane image, or NULL */
};

/* A KMS framebuffer imported from a wlr_buffer: an addon of the buffer (removed when the
 * buffer is destroyed) listed in the backend (removed when the backend is destroyed). */
struct wbc_fb {
	struct wlr_addon addon;
	struct wl_list link;             /* wbc_backend.fbs */
	struct wbc_backend *backend;
	struct wbc_kms_fb fb;
};

/* fbcache.c */
struct wbc_fb *wbc_fb_get(struct wbc_backend *backend, struct wlr_buffer *buffer);
void wbc_fb_destroy_all(struct wbc_backend *backend);

/* output.c */
void wbc_output_release_capturing(struct wbc_output *output, bool all);
int wbc_output_create(struct wbc_backend *backend, struct wbc_kms_connector *conn);
struct wbc_output *wbc_output_from(struct wlr_output *output);
void wbc_plane_format_set(const struct wbc_kms_plane *plane, struct wlr_drm_format_set *set);
void wbc_output_add_stats(struct wbc_output *output, struct wbc_adapter_stats *sum);

/* adapter.c */
void wbc_adapter_stats_add(struct wbc_adapter_stats *sum, const struct wbc_adapter_stats *s);

/* cursor.c: the wlr_output_impl cursor hooks, and the cursor's part of each commit. */
void wbc_cursor_init(struct wbc_output *output);     /* once its first pipe exists */
void wbc_cursor_finish(struct wbc_output *output);
bool wbc_cursor_set(struct wlr_output *output, struct wlr_buffer *buffer, int hotspot_x,
		int hotspot_y);
bool wbc_cursor_move(struct wlr_output *output, int x, int y);
const struct wlr_drm_format_set *wbc_cursor_formats(struct wlr_output *output,
		uint32_t buffer_caps);
void wbc_cursor_size(struct wlr_output *output, int *width, int *height);
/* Fill the cursor plane's state for a commit; returns its image, locked for the commit
 * record, or NULL when the plane is off. */
struct wlr_buffer *wbc_cursor_plane_state(struct wbc_output *output,
		struct wbc_kms_plane_state *plane);
/* A commit went through only without the cursor plane: software cursors from now on. */
void wbc_cursor_refused(struct wbc_output *output, const char *why);

/* flip.c: the pipe listener, and the end of a commit record. */
void wbc_output_handle_flip(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_flip_event *ev);
void wbc_output_handle_wb_frame(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_wb_frame *frame);
void wbc_output_handle_wb_lost(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_wb_lost *lost);
int wbc_output_retry_frame(void *data);     /* retry_timer's callback */
void wbc_commit_free(struct wbc_commit *commit);

#endif
