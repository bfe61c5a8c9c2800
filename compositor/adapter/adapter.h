/*
 * The wlroots backend adapter: a wlr_backend whose wlr_outputs are driven by wbc's own KMS
 * library (backend/, include/wbc/kms.h) instead of wlroots' DRM backend.
 *
 * One wlr_output per connected display connector. An output commit with a buffer imports
 * the buffer's dma-buf as a KMS framebuffer (cached per wlr_buffer) and hands it to
 * wbc_kms_pipe_commit(); frame and present events come from the pipe's flip events.
 */
#ifndef WBC_ADAPTER_H
#define WBC_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_output.h>
#include "wbc/kms.h"

/* Counters, summed over an adapter's outputs (live and destroyed). */
struct wbc_adapter_stats {
	uint64_t commits;                /* wbc_kms_pipe_commit calls the KMS backend accepted */
	uint64_t flips;                  /* of those, shown (flip status DONE) */
	uint64_t superseded, failed;     /* of those, replaced before shown / refused late */
	uint64_t missed_vblanks;         /* from the pipes' statistics */
	uint64_t captures;               /* writeback frames handed to the capture listener */
	uint64_t captures_lost;          /* writeback jobs the KMS backend gave up on */
	uint64_t captures_late;          /* of those, whose fence signalled after all */
	uint64_t cursor_commits;         /* commits that showed the cursor on the cursor plane */
};

struct wbc_adapter_options {
	/* Drive only this connector (a writeback connector makes a headless output);
	 * NULL: every connected display connector. */
	const char *output_name;
	/* Capture is wanted from the start: if the display connector cannot be captured
	 * (e.g. VKMS in Linux 6.1 cannot clone a CRTC to a display and a writeback
	 * connector), drive the writeback connector as a headless output instead. */
	bool need_writeback;
	/* Drive the device's writeback connector as the only output (a CRTC whose only sink
	 * is writeback: no physical screen needed); output_name must be NULL. */
	bool headless;
	/* What a commit does while a capture is written (WBC_KMS_WB_WAIT, _SKIP, _DEADLINE). */
	enum wbc_kms_wb_pacing writeback_pacing;
};

/* The device is borrowed: it must outlive the backend. The backend is destroyed with
 * the display (or by wlr_backend_destroy / the multi-backend that holds it). */
struct wlr_backend *wbc_adapter_create(struct wl_display *display, struct wbc_kms_device *dev,
		const struct wbc_adapter_options *opts);
bool wbc_backend_is_adapter(struct wlr_backend *backend);
void wbc_adapter_get_stats(struct wlr_backend *backend, struct wbc_adapter_stats *out);

/* Hotplug: re-read the device's connectors (call it on a DRM hotplug uevent; the adapter
 * watches none itself) and follow: the output of a connector that is no longer connected
 * is destroyed (its pipe turns CRTC and planes off; the output's destroy signal tells
 * whoever captures it), a connector that is connected again (and that this backend drives:
 * not under --headless, and only --output's) gets a new output through new_output, and one
 * whose mode list changed gets its output made anew. Each change is said in one line. */
void wbc_adapter_reprobe(struct wlr_backend *backend);

bool wbc_output_is_adapter(struct wlr_output *output);
/* The output's pipe, NULL while the output is disabled. */
struct wbc_kms_pipe *wbc_output_pipe(struct wlr_output *output);
/*
 * Capture, in the style of kms.h's pipe listener: the adapter knows no capture consumer.
 * Whoever captures an output (compositor/capture/) installs a listener: the adapter asks
 * it whether a commit should arm writeback and tells it what became of every commit.
 * Callbacks run on the display's event loop, from inside output commits and pipe events:
 * they must not destroy or disable the output, nor call wbc_output_drop_writeback.
 */
struct wbc_output_capture_listener {
	/* Whether this commit, with new content, should arm writeback. */
	bool (*want)(void *data);
	/* Whether what is on screen should be committed again to capture it. */
	bool (*want_repeat)(void *data);
	/* Writeback buffers to make when the pool is made on first use. */
	unsigned (*pool_size)(void *data);
	void (*armed)(void *data);       /* a commit went out armed */
	void (*missed)(void *data);      /* an armed commit brought no frame (not shown...) */
	/* A commit is on screen since ev->timestamp_ns showing buffer; internal: the adapter's
	 * own re-commit of what was already shown. */
	void (*flipped)(void *data, struct wlr_buffer *buffer,
		const struct wbc_kms_flip_event *ev, bool internal);
	/* A writeback frame: the listener owns it from now on and releases it to the pipe
	 * (wbc_kms_pipe_release_frame). */
	void (*frame)(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *frame);
	/* A shown armed commit's writeback job was given up by the KMS backend (why). */
	void (*lost)(void *data, const char *why);
	/* Writeback cannot be enabled on this output (why); said once. */
	void (*unavailable)(void *data, const char *why);
	/* The pipe is about to be destroyed: every frame lent out must come back now. */
	void (*pipe_closing)(void *data);
	/* The pipe is gone: no commit is armed any more. */
	void (*pipe_closed)(void *data);
	void *data;
};

/* Install the output's capture listener (copied; every callback required), or remove it
 * (NULL). One per output; the listener's data must outlive its installation. */
void wbc_output_set_capture_listener(struct wlr_output *output,
		const struct wbc_output_capture_listener *listener);
/* The listener wants a frame: if no commit is on its way, re-commit what is on screen with
 * capture armed (an adapter-internal commit, counted like any other). Whether a commit is
 * on its way now (its flip event will come). */
bool wbc_output_capture_kick(struct wlr_output *output);
/* Make the output's writeback pool now, with n_buffers buffers (0: the capture listener's
 * pool_size), unless it has one. 0 and the writeback format in *format, and
 * in how a few words on how the output is captured; -1 and the reason in how when
 * writeback cannot capture this output. */
int wbc_output_prepare_writeback(struct wlr_output *output, unsigned n_buffers,
		uint32_t *format, char *how, size_t len);
/* The buffer on screen (NULL before the first flip). */
struct wlr_buffer *wbc_output_front_buffer(struct wlr_output *output);
/* Writeback is broken on this output (a capture that never completes holds the pipe's
 * commits back): free the pool, which unblocks the pipe, never enable it again, and bring
 * the newest state on screen. Every writeback frame must have been released. */
void wbc_output_drop_writeback(struct wlr_output *output);

#endif
