/* Shared helpers for the backend/ tests that run inside the VKMS guest. */
#ifndef WBC_TEST_VKMS_COMMON_H
#define WBC_TEST_VKMS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "wbc/kms.h"

#define VKMS_DEV "/dev/dri/card0"
#define MAX_EVENTS 4096

/* A frame_lost report, as a test pipe saw it. */
struct test_lost {
	uint64_t sequence;
	void *user_data;
	int timeout_ms;
	size_t flips_before;         /* n_flips when it was reported */
	uint64_t at_ns;              /* CLOCK_MONOTONIC when it was reported */
	char reason[200];
};

/* What a test pipe saw: every flip event and every writeback frame, in order. */
struct test_events {
	size_t n_flips;
	struct wbc_kms_flip_event flips[MAX_EVENTS];
	size_t n_frames;
	struct {
		uint64_t sequence, timestamp_ns;
		void *user_data;
		uint32_t checksum;       /* of the frame content, X bytes masked */
		int content;             /* frame_check's verdict */
	} frames[MAX_EVENTS];
	/* frame_lost reports. Unless allowed, the first one fails the test at once (Linux 6.1
	 * VKMS can lose a job, and then every later one: see compositor/capture/capture.c). */
	bool allow_lost;
	size_t n_lost;
	size_t busy_retries;             /* test_commit_busy_retry's retries */
	struct test_lost lost[16];
	bool hold_frames;            /* keep buffers instead of releasing them */
	size_t n_held;
	struct wbc_kms_wb_buffer *held[64];
	/* Optional content check, called with the frame; returns 0 if it is as expected. */
	int (*frame_check)(void *data, const struct wbc_kms_wb_frame *f);
	void *frame_check_data;
};

struct test_pipe {
	struct wbc_kms_device *dev;
	struct wbc_kms_pipe *pipe;
	struct test_events ev;
	uint32_t width, height;
	size_t n_bufs;
	struct wbc_kms_buffer *bufs[32];  /* owned; destroyed after the pipe, before the device */
};

struct wbc_kms_device *test_open(void);
struct wbc_kms_connector *test_virtual_connector(struct wbc_kms_device *dev);
const drmModeModeInfo *test_find_mode(struct wbc_kms_connector *c, uint32_t w, uint32_t h);
/* Pipe on the Virtual connector with a mode of w x h (0x0: preferred). */
void test_pipe_init(struct test_pipe *tp, uint32_t w, uint32_t h, bool cursor, bool overlay);
/* Headless pipe on the Writeback connector: VKMS 6.1 cannot clone its CRTC to the
 * Virtual and Writeback connectors at once, so writeback tests drive writeback alone. */
void test_pipe_init_wb(struct test_pipe *tp, uint32_t w, uint32_t h, bool cursor, bool overlay);
void test_pipe_fini(struct test_pipe *tp);
struct wbc_kms_buffer *test_buffer(struct test_pipe *tp, uint32_t w, uint32_t h, uint32_t format);
/* Dispatch until the pipe has seen `flips` flip events (or timeout_ms passed). */
/* wbc_kms_pipe_commit, retried for up to 2 s while the kernel says EBUSY: after a lost
 * writeback job (the Linux 6.1 VKMS race) the kernel refuses nonblocking commits while
 * the stuck commit is still pending; wbc's compositor drops that frame and commits the
 * next. Tests that may meet the race use this; their other checks stay strict. */
int test_commit_busy_retry(struct test_pipe *tp, const struct wbc_kms_pipe_state *s);
void test_wait_flips(struct test_pipe *tp, size_t flips, int timeout_ms);
void test_wait_frames(struct test_pipe *tp, size_t frames, int timeout_ms);
void test_wait_lost(struct test_pipe *tp, size_t lost, int timeout_ms);
/* Until `captures` frames were delivered or given up on (frame_lost: the library gives a
 * job up fence_timeout_ms, 1 s by default, after its commit was shown), or timeout_ms.
 * Where jobs may be lost (stock VKMS), a wait for frames alone would wait out timeout_ms
 * for each lost one. */
void test_wait_settled(struct test_pipe *tp, size_t captures, int timeout_ms);

/* Deterministic content: the pixel a test draws at (x, y) for frame n. */
static inline uint32_t test_pixel(uint32_t x, uint32_t y, uint32_t n)
{
	return ((x * 7u + n * 13u) & 0xffu) << 16 | ((y * 3u + n * 5u) & 0xffu) << 8 |
		((x ^ y ^ n) & 0xffu);
}
void test_draw(struct wbc_kms_buffer *buf, uint32_t n);
void test_fill(struct wbc_kms_buffer *buf, uint32_t argb);
uint32_t test_checksum(const void *data, uint32_t stride, uint32_t w, uint32_t h);

/* sw_sync (debugfs): a software timeline whose fences are real sync_files that signal
 * when the test advances the timeline to their point. */
int test_sw_sync_timeline(void);
int test_sw_sync_fence(int timeline, uint32_t point);
void test_sw_sync_advance(int timeline, uint32_t steps);
uint64_t test_now_ns(void);

/* The guest's kernel is of this VKMS flavour ("stock" or "patched"): its name, which
 * tests/vm/vkms-run exports as WBC_VM_KERNEL, ends in "-FLAVOUR" (tests/vm/guest-kernel). */
bool test_vkms_flavour(const char *flavour);

int test_count_fds(void);
/* cmocka teardown for every test: a test that failed half-way (cmocka jumps out of it)
 * leaves the device open, and with it DRM master, its framebuffers and the CRTC it lit;
 * the next test of the binary would then fail for that reason alone. Closes every fd of
 * VKMS_DEV this process still has. */
int test_teardown(void **state);
/* Framebuffers the device holds, from debugfs. */
int test_count_framebuffers(void);
/* The count once it has fallen to WANT, or after TIMEOUT_MS: the kernel drops the last
 * references of a closed file's framebuffers (a finished writeback job's, the last shown
 * state's) from a worker, which a loaded emulated guest runs late. */
int test_settled_framebuffers(int want, int timeout_ms);

#endif
