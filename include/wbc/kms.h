/*
 * wbc_kms: wbc's KMS library, on libdrm only.
 *
 * A wbc_kms_device is an opened DRM device with everything discovered about it (CRTCs,
 * planes, encoders, connectors, writeback connectors). A wbc_kms_pipe drives one CRTC:
 * connector + CRTC + primary plane (+ cursor/overlay planes), validated with TEST_ONLY,
 * committed NONBLOCK with page-flip events, at most one commit in flight. A pipe can arm
 * writeback on any commit and hands the finished frame to its consumer when the out-fence
 * signals.
 *
 * Threading: none. All calls on one device happen on one thread. Callbacks run on that
 * thread from wbc_kms_device_dispatch()/wait(), and also from inside
 * wbc_kms_pipe_commit() (a queued state SUPERSEDED), wbc_kms_pipe_set_mode() and
 * wbc_kms_pipe_destroy() (draining the commit in flight; a queued state SUPERSEDED):
 * a listener must not destroy the pipe from a callback.
 *
 * Errors: functions that can fail return a negative errno; a readable message for the
 * last failure is kept on the device (wbc_kms_device_error()). The library never exits,
 * aborts or prints on its own.
 */
#ifndef WBC_KMS_H
#define WBC_KMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xf86drmMode.h>

/* What the shared library exports: the functions declared here and nothing else (the
 * library is built with hidden visibility; wbc and its tests link the static one, which
 * reaches the private functions too). */
#define WBC_KMS_API __attribute__((visibility("default")))

#define WBC_KMS_ERROR_MAX 256

/* For failures that happen before a device exists (wbc_kms_device_open). */
struct wbc_kms_error {
	int code;                        /* negative errno */
	char message[WBC_KMS_ERROR_MAX];
};

enum wbc_kms_plane_type {
	WBC_KMS_PLANE_OVERLAY = DRM_PLANE_TYPE_OVERLAY,
	WBC_KMS_PLANE_PRIMARY = DRM_PLANE_TYPE_PRIMARY,
	WBC_KMS_PLANE_CURSOR = DRM_PLANE_TYPE_CURSOR,
};

/* Property ids, looked up by name once at discovery; 0 = the object has no such property. */
struct wbc_kms_crtc_props {
	uint32_t active, mode_id, out_fence_ptr, vrr_enabled;
};

struct wbc_kms_plane_props {
	uint32_t type, fb_id, crtc_id, in_formats, in_fence_fd;
	uint32_t src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
	uint32_t zpos, alpha, pixel_blend_mode, rotation;
};

struct wbc_kms_connector_props {
	uint32_t crtc_id, dpms, edid, link_status;
	uint32_t writeback_fb_id, writeback_out_fence_ptr, writeback_pixel_formats;
};

/* One format of a plane with the modifiers IN_FORMATS lists for it. */
struct wbc_kms_format {
	uint32_t fourcc;
	size_t n_modifiers;
	uint64_t *modifiers;             /* owned by the plane */
};

struct wbc_kms_crtc {
	uint32_t id;
	unsigned index;                  /* bit index in possible_crtcs masks */
	struct wbc_kms_crtc_props props;
	uint32_t gamma_size;
	bool active;                     /* state found at open */
	bool mode_valid;
	drmModeModeInfo mode;            /* mode found at open, if mode_valid */
};

/* Where a plane showed its framebuffer at open, as its properties held it (SRC_* in 16.16
 * fixed point). */
struct wbc_kms_plane_placement {
	uint64_t src_x, src_y, src_w, src_h;
	int64_t crtc_x, crtc_y;
	uint64_t crtc_w, crtc_h;
};

struct wbc_kms_plane {
	uint32_t id;
	enum wbc_kms_plane_type type;
	uint32_t possible_crtcs;         /* bitmask of wbc_kms_crtc.index */
	struct wbc_kms_plane_props props;
	bool has_in_formats;             /* IN_FORMATS present: modifiers below are real */
	size_t n_formats;
	struct wbc_kms_format *formats;  /* owned; from the plane's format list */
	uint32_t crtc_id, fb_id;         /* state found at open */
	struct wbc_kms_plane_placement found; /* ... and where */
	bool has_zpos;
	uint64_t zpos_min, zpos_max, zpos;
};

struct wbc_kms_encoder {
	uint32_t id, type, possible_crtcs, crtc_id;
	uint32_t possible_clones;        /* bitmask of encoder indices that may share a CRTC */
	unsigned index;
};

struct wbc_kms_connector {
	uint32_t id;
	uint32_t type, type_id;
	char name[32];                   /* e.g. "Virtual-1", "Writeback-1" */
	drmModeConnection status;
	uint32_t mm_width, mm_height;
	size_t n_modes;
	drmModeModeInfo *modes;          /* owned */
	int preferred_mode;              /* index into modes, -1 if none flagged preferred */
	bool has_edid;
	uint32_t possible_crtcs;         /* union over the connector's encoders */
	size_t n_encoders;
	uint32_t *encoders;              /* owned; encoder ids */
	struct wbc_kms_connector_props props;
	uint32_t crtc_id;                /* routing found at open */
	bool writeback;                  /* DRM_MODE_CONNECTOR_WRITEBACK */
	size_t n_writeback_formats;
	uint32_t *writeback_formats;     /* owned; WRITEBACK_PIXEL_FORMATS */
};

struct wbc_kms_caps {
	bool atomic, universal_planes, writeback_connectors;
	bool dumb_buffer, prime_import, prime_export, timestamp_monotonic;
	bool crtc_in_vblank_event, addfb2_modifiers, async_page_flip;
	uint64_t cursor_width, cursor_height;
	uint32_t min_width, max_width, min_height, max_height;
};

/* Owned by the caller of wbc_kms_device_open*; everything inside by the device. */
struct wbc_kms_device {
	int fd;
	bool owns_fd;
	char path[64];
	char driver[32];
	char driver_desc[64];
	int driver_major, driver_minor, driver_patch;
	struct wbc_kms_caps caps;
	size_t n_crtcs, n_planes, n_encoders, n_connectors;
	struct wbc_kms_crtc *crtcs;
	struct wbc_kms_plane *planes;
	struct wbc_kms_encoder *encoders;
	struct wbc_kms_connector *connectors;
	char error[WBC_KMS_ERROR_MAX];
	struct wbc_kms_event_loop *events; /* private */
	struct wbc_kms_pipe *parked;     /* private: destroyed pipes whose CRTC may still be
	                                  * lit (pipe.c) */
	bool changed;                    /* private: a pipe changed the display since open */
};

struct wbc_kms_device_options {
	bool master;                     /* become DRM master (drmSetMaster) and fail if we can't */
};

/* Open by path; the device owns (and closes) the fd. */
WBC_KMS_API int wbc_kms_device_open(const char *path, const struct wbc_kms_device_options *opts,
		struct wbc_kms_device **out, struct wbc_kms_error *err);
/* Open on an fd the caller keeps owning (e.g. from libseat); the device never closes it. */
WBC_KMS_API int wbc_kms_device_open_fd(int fd, const struct wbc_kms_device_options *opts,
		struct wbc_kms_device **out, struct wbc_kms_error *err);
WBC_KMS_API void wbc_kms_device_destroy(struct wbc_kms_device *dev);
/*
 * Put the display back the way the device was found at open (as a compositor does at
 * exit, after destroying its pipes): every CRTC's ACTIVE and mode, every connector's
 * routing, every plane's framebuffer and placement, in one blocking modeset. Only what
 * still exists can come back: a framebuffer dies with the DRM file that made it, so a
 * plane whose framebuffer is gone stays off (its CRTC keeps its mode and connectors, as
 * the kernel itself leaves a CRTC whose framebuffer went). Does nothing when no pipe
 * changed the display. 0 and a summary (what was restored, what could not be), or a
 * negative errno and the device's error.
 */
WBC_KMS_API int wbc_kms_device_restore(struct wbc_kms_device *dev, char *summary, size_t len);
WBC_KMS_API const char *wbc_kms_device_error(const struct wbc_kms_device *dev);

/* The single fd to poll (readable) from any event loop; then call dispatch. */
WBC_KMS_API int wbc_kms_device_get_event_fd(const struct wbc_kms_device *dev);
/* Handle everything ready (page flips, fences) without blocking. Returns <0 on error. */
WBC_KMS_API int wbc_kms_device_dispatch(struct wbc_kms_device *dev);
/* Block until something is handled or timeout_ms passes (-1: forever). 0 on timeout. */
WBC_KMS_API int wbc_kms_device_wait(struct wbc_kms_device *dev, int timeout_ms);

/*
 * Hotplug: re-read every display connector's status and modes from the kernel (a full
 * probe, as after a hotplug uevent; the library watches no uevents itself: that is the
 * caller's, e.g. with libudev). The device's connector array is updated in place (its
 * modes array may be replaced: pointers into it do not survive the call; pipes keep their
 * own copy of their mode), and the listener hears of each connector that changed, after
 * the update. Connectors that appear or vanish as objects (DisplayPort MST) are not
 * followed: the device knows the connectors it found at open. A connector that goes away
 * keeps its pipe: turning it off is the caller's decision (wbc_kms_pipe_destroy). First,
 * CRTCs that a destroyed pipe could not turn off are turned off (a session that comes
 * back reprobes: displays may have changed while it was away). 0, or a
 * negative errno and the device's error for a connector that could not be read (the others
 * are still updated and reported).
 */
enum wbc_kms_connector_change {
	WBC_KMS_CONNECTOR_STATUS_CHANGED = 1u << 0,  /* connected <-> disconnected/unknown */
	WBC_KMS_CONNECTOR_MODES_CHANGED = 1u << 1,   /* the mode list (another monitor) */
};
struct wbc_kms_connector_listener {
	/* changes: wbc_kms_connector_change bits. conn->status is the new status. */
	void (*changed)(void *data, struct wbc_kms_connector *conn, unsigned changes);
	void *data;
};
WBC_KMS_API int wbc_kms_device_reprobe(struct wbc_kms_device *dev,
		const struct wbc_kms_connector_listener *listener);

/* Lookups; NULL when absent. */
WBC_KMS_API struct wbc_kms_crtc *wbc_kms_device_crtc(struct wbc_kms_device *dev, uint32_t id);
WBC_KMS_API struct wbc_kms_plane *wbc_kms_device_plane(struct wbc_kms_device *dev, uint32_t id);
WBC_KMS_API struct wbc_kms_connector *wbc_kms_device_connector(struct wbc_kms_device *dev, uint32_t id);
WBC_KMS_API bool wbc_kms_plane_supports(const struct wbc_kms_plane *plane, uint32_t fourcc, uint64_t modifier);
WBC_KMS_API const char *wbc_kms_connector_type_name(uint32_t type);
WBC_KMS_API const char *wbc_kms_plane_type_name(enum wbc_kms_plane_type type);
/* Bytes per pixel of the single-plane packed RGB formats (dumb buffers, writeback, and
 * what the compositor reads from clients); 0 if unknown. */
WBC_KMS_API unsigned wbc_kms_format_cpp(uint32_t fourcc);

/*
 * The value to set for one named entry of an enum or bitmask property (e.g. "Coverage" of
 * "pixel blend mode", "rotate-90" of "rotation": for a bitmask, the bit itself). 0, or
 * -ENOENT when the property has no such entry, -EINVAL when it is no enum or bitmask,
 * with the device's error set.
 */
WBC_KMS_API int wbc_kms_property_value(struct wbc_kms_device *dev, uint32_t prop_id, const char *name,
		uint64_t *value);
/*
 * Wait at most timeout_ms (-1: for ever) for a sync_file (e.g. a writeback out-fence) to
 * signal. 0 and, if signalled_ns is not NULL, the CLOCK_MONOTONIC time the kernel recorded
 * for the signal; -ETIME when it has not signalled in time; another negative errno when
 * fd is no sync_file. The fd stays the caller's.
 */
WBC_KMS_API int wbc_kms_fence_wait(int fd, int timeout_ms, uint64_t *signalled_ns);

/* ---- Framebuffers ---------------------------------------------------------------- */

/* A KMS framebuffer. Created by wbc_kms_buffer (dumb) or wbc_kms_fb_import (dma-buf). */
struct wbc_kms_fb {
	uint32_t id;
	uint32_t width, height, format;
	uint64_t modifier;
};

/* A dumb buffer with its framebuffer and a CPU mapping. Owned by its creator. */
struct wbc_kms_buffer {
	struct wbc_kms_fb fb;
	uint32_t handle, stride;
	uint64_t size;
	void *map;                       /* read-write mapping, size bytes */
};

WBC_KMS_API int wbc_kms_buffer_create(struct wbc_kms_device *dev, uint32_t width, uint32_t height,
		uint32_t format, struct wbc_kms_buffer **out);
WBC_KMS_API void wbc_kms_buffer_destroy(struct wbc_kms_device *dev, struct wbc_kms_buffer *buf);

/* Import dma-buf planes as a framebuffer (PRIME). The fds stay the caller's. */
struct wbc_kms_dmabuf {
	uint32_t width, height, format;
	uint64_t modifier;               /* DRM_FORMAT_MOD_INVALID: implicit */
	int n_planes;
	int fds[4];
	uint32_t offsets[4], strides[4];
};
WBC_KMS_API int wbc_kms_fb_import(struct wbc_kms_device *dev, const struct wbc_kms_dmabuf *dmabuf,
		struct wbc_kms_fb *out);
WBC_KMS_API void wbc_kms_fb_remove(struct wbc_kms_device *dev, struct wbc_kms_fb *fb);

/* ---- Pipes ----------------------------------------------------------------------- */

struct wbc_kms_pipe;

/* Where a plane shows a framebuffer; fb == NULL disables the plane. src_* in whole
 * pixels (0,0,0,0 = the whole fb); crtc_w/h 0 = the fb's size. */
struct wbc_kms_plane_state {
	const struct wbc_kms_fb *fb;
	int32_t crtc_x, crtc_y;
	uint32_t crtc_w, crtc_h;
	uint32_t src_x, src_y, src_w, src_h;
};

/* What one commit shows. */
struct wbc_kms_pipe_state {
	struct wbc_kms_plane_state primary, cursor, overlay;
	bool capture;                    /* arm writeback on this commit (if enabled and a buffer is free) */
	void *user_data;                 /* handed back in the flip event */
};

enum wbc_kms_flip_status {
	WBC_KMS_FLIP_DONE,               /* on screen since the vblank below */
	WBC_KMS_FLIP_SUPERSEDED,         /* queued, then replaced by a newer state: never shown */
	WBC_KMS_FLIP_FAILED,             /* the kernel refused it when it went out (see error) */
};

/* Every state passed to wbc_kms_pipe_commit comes back exactly once as one of these. */
struct wbc_kms_flip_event {
	enum wbc_kms_flip_status status;
	int error;                       /* negative errno when FAILED */
	uint64_t sequence;               /* vblank counter of the CRTC */
	/* The kernel's vblank time, CLOCK_MONOTONIC. For a commit that enabled the CRTC
	 * the kernel may have no vblank time yet (Linux 6.1 VKMS reports 0, i.e. the
	 * last vblank before the CRTC ever ran): a time before the commit went out is
	 * replaced by the time the event arrived, and timestamp_estimated is set. */
	uint64_t timestamp_ns;
	bool timestamp_estimated;
	void *user_data;                 /* of the commit that completed */
	bool captured;                   /* this commit was armed for writeback */
};

/* A completed writeback frame, valid until wbc_kms_pipe_release_frame(). */
struct wbc_kms_wb_frame {
	struct wbc_kms_wb_buffer *buffer; /* opaque token to release */
	const void *data;                /* read-only mapping */
	uint32_t stride, format, width, height;
	uint64_t sequence, timestamp_ns; /* of the commit that produced it */
	/* CLOCK_MONOTONIC ns at which the pixels were complete: the out-fence's signal time
	 * as the kernel recorded it; 0 when unknown (no fence came back). */
	uint64_t signalled_ns;
	void *user_data;                 /* of that commit */
};

/*
 * A writeback job given up on: its out-fence had not signalled fence_timeout_ms after its
 * commit was shown (a driver bug, e.g. Linux 6.1 VKMS losing a job). Commits that waited
 * for it go out now. Its buffer does not go back to the pool, because the engine may still
 * write into it: it waits, out of use, until the fence signals (then it is reused, never
 * delivered) or the pool is freed. Also reported for a job whose fence signalled while its
 * buffer still bore the stamps the pool wrote when arming it (the driver completed another
 * job's fence: VKMS after a loss): never delivered, out of use until the pool is freed.
 */
struct wbc_kms_wb_lost {
	uint64_t sequence, timestamp_ns; /* of the commit that was armed */
	void *user_data;                 /* of that commit */
	int timeout_ms;
	const char *reason;              /* readable, valid during the call */
};

struct wbc_kms_pipe_listener {
	void (*flip)(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev);
	void (*frame)(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *frame);
	/* Optional. Must not disable writeback or destroy the pipe from inside. */
	void (*frame_lost)(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_lost *lost);
	void *data;
};

struct wbc_kms_pipe_options {
	/* Required. A writeback connector here makes a headless pipe: the CRTC drives
	 * only the writeback connector (for drivers that cannot clone a CRTC to a display
	 * and a writeback connector at once, such as VKMS in Linux 6.1). */
	uint32_t connector_id;
	const drmModeModeInfo *mode;     /* NULL: preferred, else the first mode */
	uint32_t crtc_id;                /* 0: first CRTC the connector can reach */
	bool want_cursor, want_overlay;  /* reserve such planes if the CRTC has them */
	/* Explicit planes (0: pick); each must list the CRTC in its possible_crtcs. */
	uint32_t primary_plane_id, cursor_plane_id, overlay_plane_id;
	bool no_writeback_route;         /* don't route a writeback connector in the modeset */
};

WBC_KMS_API int wbc_kms_pipe_create(struct wbc_kms_device *dev, const struct wbc_kms_pipe_options *opts,
		const struct wbc_kms_pipe_listener *listener, struct wbc_kms_pipe **out);
/* Disables what the pipe enabled and frees it (waits for an in-flight commit, bounded).
 * Where the kernel refuses the disable (the device's DRM master is another session's),
 * the device remembers the CRTC as lit: the next wbc_kms_device_reprobe tries again, and
 * a new pipe on that CRTC answers for it (it turns it off if destroyed before its first
 * modeset). */
WBC_KMS_API void wbc_kms_pipe_destroy(struct wbc_kms_pipe *pipe);

WBC_KMS_API const drmModeModeInfo *wbc_kms_pipe_mode(const struct wbc_kms_pipe *pipe);
WBC_KMS_API struct wbc_kms_crtc *wbc_kms_pipe_crtc(const struct wbc_kms_pipe *pipe);
WBC_KMS_API struct wbc_kms_connector *wbc_kms_pipe_connector(const struct wbc_kms_pipe *pipe);
WBC_KMS_API struct wbc_kms_plane *wbc_kms_pipe_plane(const struct wbc_kms_pipe *pipe, enum wbc_kms_plane_type type);
WBC_KMS_API uint64_t wbc_kms_pipe_refresh_ns(const struct wbc_kms_pipe *pipe);

/* Validate with DRM_MODE_ATOMIC_TEST_ONLY only (no effect on the screen). */
WBC_KMS_API int wbc_kms_pipe_test(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state);
/*
 * Test, then commit. The first commit of a pipe is a blocking modeset (ALLOW_MODESET);
 * every later one is NONBLOCK + PAGE_FLIP_EVENT. While a commit is in flight (flip event
 * or, with writeback, its out-fence outstanding) the state is queued and goes out as soon
 * as the pipe is free; a newer state replaces a queued one, which is reported through the
 * flip event with status SUPERSEDED.
 */
WBC_KMS_API int wbc_kms_pipe_commit(struct wbc_kms_pipe *pipe, const struct wbc_kms_pipe_state *state);
/* Change mode: a blocking modeset with the state given; resizes the writeback pool. */
WBC_KMS_API int wbc_kms_pipe_set_mode(struct wbc_kms_pipe *pipe, const drmModeModeInfo *mode,
		const struct wbc_kms_pipe_state *state);
WBC_KMS_API bool wbc_kms_pipe_busy(const struct wbc_kms_pipe *pipe);

struct wbc_kms_pipe_stats {
	uint64_t commits, flips, superseded, failed, test_only;
	uint64_t missed_vblanks;         /* sequence gaps between consecutive flips beyond 1 */
	uint64_t modesets;
	uint64_t estimated_timestamps;   /* flips whose kernel time predated the commit */
	uint64_t captures_armed, captures_done;
	uint64_t captures_skipped;       /* capture commits sent without: no free buffer, or
	                                    (WBC_KMS_WB_SKIP, _DEADLINE) a capture still in
	                                    flight */
	uint64_t captures_lost;          /* reported through frame_lost */
	uint64_t captures_late;          /* of those, fences that signalled later (buffer reused) */
};
WBC_KMS_API void wbc_kms_pipe_get_stats(const struct wbc_kms_pipe *pipe, struct wbc_kms_pipe_stats *out);

/* ---- Writeback ------------------------------------------------------------------- */

/* Whether some writeback connector can take this pipe's CRTC output alongside its
 * connector: it reaches the CRTC and its encoder may be cloned with the connector's
 * (encoder possible_clones). If not, wbc_kms_pipe_writeback_unsupported_reason says why. */
WBC_KMS_API bool wbc_kms_writeback_supported(const struct wbc_kms_pipe *pipe);
WBC_KMS_API const char *wbc_kms_pipe_writeback_unsupported_reason(const struct wbc_kms_pipe *pipe);
/* The writeback connector best used as a headless pipe's connector, or NULL. */
WBC_KMS_API struct wbc_kms_connector *wbc_kms_device_writeback_connector(struct wbc_kms_device *dev);
WBC_KMS_API struct wbc_kms_connector *wbc_kms_pipe_writeback_connector(const struct wbc_kms_pipe *pipe);
/* Whether the routed-but-idle writeback connector was accepted (false: the kernel wanted
 * CRTC_ID and the framebuffer to come and go together, and every capture modesets). */
WBC_KMS_API bool wbc_kms_pipe_writeback_routed(const struct wbc_kms_pipe *pipe);

/* What a commit does while the last capture's out-fence is outstanding. */
enum wbc_kms_wb_pacing {
	/* The uAPI's rule (drm_writeback.c: wait for the fence before another commit on the
	 * same CRTC): the commit waits, and is armed with a capture of its own when it goes.
	 * Every shown frame is captured; the display waits for the writeback engine. */
	WBC_KMS_WB_WAIT,
	/* The display never waits: the commit goes out at once, without a capture (counted
	 * in captures_skipped). At most one capture is in flight. Only for drivers that
	 * finish a job whose state a later commit replaced (VKMS with wbc's patches, see
	 * doc/kernel.md); elsewhere the uAPI calls it undefined. */
	WBC_KMS_WB_SKIP,
	/* The display never waits and every commit is armed: several jobs in flight. For
	 * tests of the kernel's job queue. */
	WBC_KMS_WB_OVERLAP,
	/* Between the two: the commit waits for the fence, but only until a quarter of a
	 * refresh period before the next vblank after the last flip; then it goes out
	 * without a capture (counted in captures_skipped), so a late capture costs a
	 * captured frame rather than the display's vblanks. At most one capture is in
	 * flight. The same
	 * driver rule as WBC_KMS_WB_SKIP; without a refresh period (mode clock 0) it waits
	 * as WBC_KMS_WB_WAIT does. */
	WBC_KMS_WB_DEADLINE,
};

struct wbc_kms_writeback_options {
	uint32_t format;                 /* 0: XRGB8888 if listed, else the first listed */
	unsigned n_buffers;              /* 0: 3 */
	uint32_t width, height;          /* 0: the mode's size; anything else must equal it */
	enum wbc_kms_wb_pacing pacing;   /* default WBC_KMS_WB_WAIT via ..._options_init */
	/* How long after its commit was shown an out-fence may take before the job is given
	 * up as lost (frame_lost) and commits waiting for it go out. 0: the default,
	 * WBC_KMS_WB_FENCE_TIMEOUT_MS; < 0: wait for ever. */
	int fence_timeout_ms;
	/* Test hook: every armed commit's out-fence fd goes through it, and the pool waits on
	 * the fd it returns instead (which the pool then owns; the hook owns fence_fd unless
	 * it returns it; -1: no fence, complete at the flip). Lets tests simulate a fence that
	 * never signals or signals late (e.g. with sw_sync). NULL: none. */
	int (*debug_fence)(void *data, int fence_fd);
	void *debug_fence_data;
};
/* A healthy out-fence signals about one refresh period after the flip (VKMS composes in a
 * worker right after the vblank; display engines finish writing with the scan-out), so 1 s
 * is at least 24 periods at any usual refresh and only expires for a job that is really
 * lost, or on a machine that stalled for a second anyway. It bounds how long the display
 * freezes per lost job. */
#define WBC_KMS_WB_FENCE_TIMEOUT_MS 1000
WBC_KMS_API void wbc_kms_writeback_options_init(struct wbc_kms_writeback_options *opts);
/* Make the writeback buffer pool; the connector itself is routed in the pipe's first
 * modeset. Capture happens on commits with state.capture set. Validates the format
 * against WRITEBACK_PIXEL_FORMATS and the size against the mode. */
WBC_KMS_API int wbc_kms_pipe_enable_writeback(struct wbc_kms_pipe *pipe,
		const struct wbc_kms_writeback_options *opts);
WBC_KMS_API void wbc_kms_pipe_disable_writeback(struct wbc_kms_pipe *pipe);
/* Whether a commit with state.capture made now would be armed, and if not, why. */
enum wbc_kms_capture_ready {
	WBC_KMS_CAPTURE_READY,
	WBC_KMS_CAPTURE_NO_WRITEBACK,    /* writeback is not enabled on the pipe */
	WBC_KMS_CAPTURE_NO_BUFFER,       /* every pool buffer is armed, lent out or lost */
	WBC_KMS_CAPTURE_IN_FLIGHT,       /* WBC_KMS_WB_SKIP or _DEADLINE: a capture is still
	                                    being written */
};
WBC_KMS_API enum wbc_kms_capture_ready wbc_kms_pipe_capture_ready(const struct wbc_kms_pipe *pipe);
WBC_KMS_API uint32_t wbc_kms_pipe_writeback_format(const struct wbc_kms_pipe *pipe);
/*
 * The rules the kernel applies to a writeback request (drm_writeback.c, driver checks),
 * checked in userspace so the caller gets a precise message. wbc_kms_pipe_commit applies
 * it to every armed commit; it is public so tools and tests can ask about any request.
 */
struct wbc_kms_wb_request {
	const struct wbc_kms_fb *fb;     /* NULL: none */
	bool out_fence;                  /* WRITEBACK_OUT_FENCE_PTR set */
	bool crtc_active;                /* the CRTC will be on for this commit */
};
WBC_KMS_API int wbc_kms_pipe_check_writeback(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_request *req);

/* The consumer is done with a frame: its buffer may be armed again. */
WBC_KMS_API void wbc_kms_pipe_release_frame(struct wbc_kms_pipe *pipe, struct wbc_kms_wb_buffer *buffer);

#endif
