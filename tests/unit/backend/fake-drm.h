/*
 * A fake libdrm for host tests of backend/: the drm* / drmMode* calls backend/ makes,
 * answered from an in-memory device instead of the kernel.
 *
 * The device: CRTC FAKE_DRM_CRTC, a primary plane, a display connector ("Virtual-1")
 * and a writeback connector ("Writeback-1") that may be cloned with it, all with the
 * properties backend/ looks up. Its one mode runs at 1 Hz, so a test can pick vblank
 * timestamps seconds apart without the time bounds in backend/pipe.c interfering.
 *
 * What the test drives: vblanks (fake_drm_vblank delivers the pending page-flip event
 * through the device fd, which is an eventfd the backend's epoll set watches), writeback
 * out-fences (eventfds handed to the backend through WRITEBACK_OUT_FENCE_PTR, signalled
 * by fake_drm_fence_signal, which also "writes" the captured buffer unless told not to),
 * and whether the kernel refuses commits (fake_drm_refuse). Every atomic commit, test or
 * real, is recorded with its flags and properties for the test to inspect.
 *
 * Like the kernel, the fake refuses (EBUSY) a nonblocking commit while a page flip is
 * still pending on the CRTC, so a test also checks the pipe never has two in flight.
 *
 * One device per process at a time (tests are single-threaded). mmap/munmap of the
 * device fd and SYNC_IOC_FILE_INFO on fence fds are answered through the linker's
 * --wrap (see meson.build), since backend/ calls libc for those, not libdrm.
 */
#ifndef WBC_FAKE_DRM_H
#define WBC_FAKE_DRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	FAKE_DRM_CRTC = 31,
	FAKE_DRM_PLANE = 41,
	FAKE_DRM_ENCODER = 51,
	FAKE_DRM_WB_ENCODER = 52,
	FAKE_DRM_CONNECTOR = 61,
	FAKE_DRM_WB_CONNECTOR = 62,
};

/* Property ids (one per name, shared across objects as in the kernel). */
enum {
	FAKE_PROP_ACTIVE = 101, FAKE_PROP_MODE_ID, FAKE_PROP_OUT_FENCE_PTR,
	FAKE_PROP_TYPE, FAKE_PROP_FB_ID, FAKE_PROP_CRTC_ID,
	FAKE_PROP_SRC_X, FAKE_PROP_SRC_Y, FAKE_PROP_SRC_W, FAKE_PROP_SRC_H,
	FAKE_PROP_CRTC_X, FAKE_PROP_CRTC_Y, FAKE_PROP_CRTC_W, FAKE_PROP_CRTC_H,
	FAKE_PROP_WB_PIXEL_FORMATS, FAKE_PROP_WB_FB_ID, FAKE_PROP_WB_OUT_FENCE_PTR,
};

/* The mode: 64x48, htotal * vtotal / clock = 1 s per frame. */
#define FAKE_DRM_WIDTH 64
#define FAKE_DRM_HEIGHT 48
#define FAKE_DRM_FRAME_NS 1000000000ull

/* One property set in a request; a plain value, copied wherever it goes. */
struct fake_drm_prop {
	uint32_t obj, prop;
	uint64_t value;
};

/* One drmModeAtomicCommit call as the fake saw it. Owned by the fake. */
struct fake_drm_commit {
	uint32_t flags;
	size_t n_props;
	struct fake_drm_prop *props;     /* in the order added */
	int result;                      /* 0 or the negative errno returned */
	int fence;                       /* index of the writeback fence it made, -1: none */
};

/* Make the device; returns its fd (for wbc_kms_device_open_fd), which the fake owns. */
int fake_drm_open(void);
/* Free everything, closing the device fd and every fence the fake still holds. */
void fake_drm_close(void);

/* Commits so far (test ones included), and a property's value in one. */
size_t fake_drm_n_commits(void);
const struct fake_drm_commit *fake_drm_commit_at(size_t i);
/* The newest commit that was (test_only) or was not TEST_ONLY; NULL: none. */
const struct fake_drm_commit *fake_drm_last_commit(bool test_only);
bool fake_drm_commit_value(const struct fake_drm_commit *c, uint32_t obj, uint32_t prop,
		uint64_t *value);

/* Answer later TEST_ONLY commits / real commits with -errno (0: accept). */
void fake_drm_refuse(int test_only_errno, int commit_errno);
/* A rule of the test's: called for each commit that passed the above, returns 0 to
 * accept or an errno to refuse (e.g. a kernel that refuses some configuration). Set
 * before fake_drm_open to apply from the first commit; fake_drm_close clears it. */
typedef int (*fake_drm_policy)(const struct fake_drm_commit *c, void *data);
void fake_drm_set_policy(fake_drm_policy policy, void *data);

/* The vblank counter of the CRTC (what drmCrtcGetSequence reports). */
uint64_t fake_drm_sequence(void);
/* Advance the counter by `advance` vblanks; the last one happens at ts_ns (0: now). A
 * pending page flip completes there: its event becomes readable on the device fd. */
void fake_drm_vblank(uint64_t advance, uint64_t ts_ns);
bool fake_drm_flip_pending(void);

/* Writeback out-fences handed out so far (one per armed real commit). */
size_t fake_drm_n_fences(void);
bool fake_drm_fence_signalled(size_t i);
/* Signal fence i; write_buffer: the engine wrote the captured frame into its buffer
 * (filled with `fill`), else the buffer is left as the backend armed it. */
void fake_drm_fence_signal(size_t i, bool write_buffer, uint8_t fill);
/* The time fence i signalled (what SYNC_IOC_FILE_INFO reports), 0: not yet. */
uint64_t fake_drm_fence_time(size_t i);

/* Dumb buffers and framebuffers alive (for leak checks). */
size_t fake_drm_n_buffers(void);

#endif
