/*
 * A pipe on the fake device (fake-drm.h), with everything its listener reports recorded,
 * for the host tests of backend/'s pipe queue and writeback pool.
 */
#ifndef WBC_TEST_HARNESS_H
#define WBC_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include "wbc/kms.h"
#include "fake-drm.h"

#define HARNESS_MAX_EVENTS 32

/* One frame_lost report, copied (the reason too: it is valid only during the call). */
struct harness_lost {
	struct wbc_kms_wb_lost ev;       /* reason points into `reason` below */
	char reason[256];
};

/* One delivered frame; its pixels belong to the pool, lent until harness_release. */
struct harness_frame {
	struct wbc_kms_wb_frame frame;   /* held (buffer not released) until harness_release */
	uint8_t first_byte;              /* of the pixels, read at delivery */
	bool released;
};

/* One per test, owned by the cmocka state; harness_teardown frees all of it. */
struct harness {
	struct wbc_kms_device *dev;
	struct wbc_kms_pipe *pipe;
	struct wbc_kms_buffer *fbs[4];   /* primary-plane framebuffers, owned */
	struct wbc_kms_flip_event flips[HARNESS_MAX_EVENTS];
	size_t n_flips;
	struct harness_frame frames[HARNESS_MAX_EVENTS];
	size_t n_frames;
	struct harness_lost lost[HARNESS_MAX_EVENTS];
	size_t n_lost;
};

/* Open the fake device, make a pipe on its display connector (with writeback when wb is
 * given), send the first state (the modeset) and complete its flip; records start empty
 * after that. Fails the test on any error. */
struct harness *harness_setup(const struct wbc_kms_writeback_options *wb);
/* Complete whatever is outstanding (flips, fences, held frames), destroy the pipe and
 * the device, and check nothing of the fake device leaked. */
void harness_teardown(struct harness *h);

/* A state showing fbs[fb], tagged with `tag` as user_data. */
struct wbc_kms_pipe_state harness_state(struct harness *h, unsigned fb, bool capture,
		uintptr_t tag);
/* Run every ready event source of the device (flip events, fences, the fence timer). */
void harness_dispatch(struct harness *h);
/* fake_drm_vblank, then dispatch. */
void harness_vblank(struct harness *h, uint64_t advance, uint64_t ts_ns);
/* Wait (up to timeout_ms) until count(h) exceeds `than`, dispatching meanwhile. */
bool harness_wait_for(struct harness *h, size_t (*count)(const struct harness *),
		size_t than, int timeout_ms);
void harness_release(struct harness *h, size_t frame);
struct wbc_kms_pipe_stats harness_stats(struct harness *h);
/* The primary plane's FB_ID in commit c, 0: not set. */
uint64_t harness_commit_fb(const struct fake_drm_commit *c);
uint64_t harness_now_ns(void);

#define TAG(x) ((void *)(uintptr_t)(x))
#define HARNESS_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
