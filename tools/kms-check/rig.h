/*
 * The rig: one CRTC driving one writeback connector (headless), set up once, and the
 * atomic commits the checks make on it. Built on libwbc-kms's discovery and dumb
 * buffers; the commits are made here with libdrm because they set what the library's
 * pipe does not model (plane alpha, blend mode, zpos, rotation, several overlays, bad
 * writeback parameters on purpose).
 */
#ifndef KMS_CHECK_RIG_H
#define KMS_CHECK_RIG_H

#include <stdbool.h>
#include <stdint.h>
#include <wbc/kms.h>

#define RIG_MAX_PLANES 8
#define RIG_ERR_MAX 256

/* Owned by whoever called rig_open; the device (and so every plane, connector and CRTC
 * pointer below, which point into it) by the rig. */
struct rig {
	struct wbc_kms_device *dev;
	struct wbc_kms_connector *wb;    /* the writeback connector the rig drives */
	struct wbc_kms_crtc *crtc;
	drmModeModeInfo mode;
	uint32_t mode_blob;              /* MODE_ID blob of `mode`, made by the rig */
	uint32_t width, height;
	/* The bound an out-fence is held to (writeback-fence-bound); one that has not
	 * signalled after three times that (at least 10 s) is a lost job. */
	int fence_timeout_ms;
	bool modeset_done;
	bool back_to_back;               /* no pause between captures (rig_capture) */
	/* A capture's fence did not signal: the driver lost a job, and on VKMS every later
	 * fence is one job late (doc/vkms.md); later captures are then not trusted. */
	bool lost;
	char lost_reason[RIG_ERR_MAX];
};

/* What one plane shows in a scene. The buffer is borrowed (the check owns it).
 * src_* in whole pixels (w/h 0: the whole buffer), crtc_w/h 0: the source size (swapped
 * by a 90/270 rotation). alpha/blend/zpos/rotation are set only when `has_*`. */
struct rig_plane {
	struct wbc_kms_plane *plane;
	struct wbc_kms_buffer *buf;
	int32_t crtc_x, crtc_y;
	uint32_t crtc_w, crtc_h;
	uint32_t src_x, src_y, src_w, src_h;
	bool has_alpha, has_blend, has_zpos, has_rotation;
	uint16_t alpha;                  /* 0xffff: opaque */
	const char *blend;               /* "None", "Pre-multiplied", "Coverage" */
	uint64_t zpos;
	uint32_t rotation;               /* DRM_MODE_ROTATE_* | DRM_MODE_REFLECT_* */
};

/* Planes in the order the caller lists them; the rig does not sort by zpos. */
struct rig_scene {
	unsigned n;
	struct rig_plane planes[RIG_MAX_PLANES];
};

/* The caller's; the strings are borrowed for rig_open only. */
struct rig_options {
	const char *device;              /* NULL: the first card with a writeback connector */
	const char *connector;           /* NULL: the first writeback connector */
	uint32_t width, height;          /* 0: 640x480 if listed, else the preferred mode */
	int fence_timeout_ms;
};

/* 0, or -1 with a one-line reason in err (no device, no atomic, no writeback ...). */
int rig_open(struct rig *rig, const struct rig_options *opts, char err[RIG_ERR_MAX]);
void rig_close(struct rig *rig);

/* Planes of the rig's CRTC by type; index-th of that type (overlays: 0, 1, ...). */
struct wbc_kms_plane *rig_plane(struct rig *rig, enum wbc_kms_plane_type type, unsigned index);

/* A dumb buffer of the rig's device; NULL and err on failure. Freed with rig_buffer_free
 * (which leaves it, after a lost job, to the end of the process). */
struct wbc_kms_buffer *rig_buffer(struct rig *rig, uint32_t w, uint32_t h, uint32_t format,
		char err[RIG_ERR_MAX]);
void rig_buffer_free(struct rig *rig, struct wbc_kms_buffer *buf);

/* Raw writeback properties for a commit, to send good and bad ones alike; the caller's
 * (fence_fd, when written, is the caller's to close). */
struct rig_wb {
	bool set_fb;                     /* send WRITEBACK_FB_ID (with fb_id, may be 0 or bogus) */
	uint32_t fb_id;
	bool set_fence;                  /* send WRITEBACK_OUT_FENCE_PTR = fence_ptr */
	uint64_t fence_ptr;              /* 0: the rig's own int (fence_fd below) */
	int fence_fd;                    /* out: the fd the kernel wrote, or -1 */
	bool crtc_off;                   /* send ACTIVE = 0 instead of 1 */
};

/*
 * One blocking atomic commit of the scene (every other plane of the CRTC off) with the
 * writeback properties in wb (may be NULL). test_only: DRM_MODE_ATOMIC_TEST_ONLY.
 * Returns 0 or the kernel's negative errno; err says what was refused or could not be
 * built. The first real commit also modesets the CRTC and routes the connector.
 */
int rig_commit(struct rig *rig, const struct rig_scene *scene, struct rig_wb *wb,
		bool test_only, char err[RIG_ERR_MAX]);

/*
 * Show the scene and capture it into out (a buffer of the mode's size in a listed
 * writeback format): commit, then wait for the out-fence (a lost job after three times
 * fence_timeout_ms, at least 10 s). latency_ns: from the commit call to the fence's signal time. 0, or
 * -1 with err (a fence that does not signal also sets rig->lost).
 */
int rig_capture(struct rig *rig, const struct rig_scene *scene, struct wbc_kms_buffer *out,
		uint64_t *latency_ns, char err[RIG_ERR_MAX]);

/* The current value of the writeback connector's WRITEBACK_FB_ID; 0 or -1 with err. */
int rig_read_wb_fb_id(struct rig *rig, uint64_t *value, char err[RIG_ERR_MAX]);

/* The value of a plane's enum/bitmask property entry by name; false if it has none. */
bool rig_plane_value(struct rig *rig, uint32_t prop_id, const char *name, uint64_t *value);

uint64_t rig_now_ns(void);

#endif
