#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <drm_fourcc.h>
#include "harness.h"

static void on_flip(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev)
{
	struct harness *h = data;
	(void)pipe;
	assert_true(h->n_flips < HARNESS_MAX_EVENTS);
	h->flips[h->n_flips++] = *ev;
}

static void on_frame(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *frame)
{
	struct harness *h = data;
	(void)pipe;
	assert_true(h->n_frames < HARNESS_MAX_EVENTS);
	h->frames[h->n_frames++] = (struct harness_frame){ .frame = *frame,
		.first_byte = *(const uint8_t *)frame->data };
}

static void on_lost(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_lost *lost)
{
	struct harness *h = data;
	(void)pipe;
	assert_true(h->n_lost < HARNESS_MAX_EVENTS);
	struct harness_lost *l = &h->lost[h->n_lost++];
	l->ev = *lost;
	snprintf(l->reason, sizeof(l->reason), "%s", lost->reason);
	l->ev.reason = l->reason;
}

uint64_t harness_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct harness *harness_setup(const struct wbc_kms_writeback_options *wb)
{
	struct harness *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	int fd = fake_drm_open();
	assert_true(fd >= 0);
	struct wbc_kms_error err = { 0 };
	assert_int_equal(wbc_kms_device_open_fd(fd, NULL, &h->dev, &err), 0);
	struct wbc_kms_pipe_options opts = { .connector_id = FAKE_DRM_CONNECTOR };
	struct wbc_kms_pipe_listener listener = { .flip = on_flip, .frame = on_frame,
		.frame_lost = on_lost, .data = h };
	assert_int_equal(wbc_kms_pipe_create(h->dev, &opts, &listener, &h->pipe), 0);
	for (size_t i = 0; i < HARNESS_LEN(h->fbs); i++)
		assert_int_equal(wbc_kms_buffer_create(h->dev, FAKE_DRM_WIDTH, FAKE_DRM_HEIGHT,
			DRM_FORMAT_XRGB8888, &h->fbs[i]), 0);
	if (wb)
		assert_int_equal(wbc_kms_pipe_enable_writeback(h->pipe, wb), 0);
	struct wbc_kms_pipe_state first = harness_state(h, 0, false, 0);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &first), 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].status, WBC_KMS_FLIP_DONE);
	h->n_flips = 0;
	return h;
}

void harness_teardown(struct harness *h)
{
	/* Settle: a pipe destroyed with work outstanding waits (bounded, up to seconds). */
	for (int round = 0; round < 4; round++) {
		for (size_t i = 0; i < fake_drm_n_fences(); i++)
			if (!fake_drm_fence_signalled(i))
				fake_drm_fence_signal(i, true, 0xee);
		if (fake_drm_flip_pending())
			harness_vblank(h, 1, 0);
		harness_dispatch(h);
		for (size_t i = 0; i < h->n_frames; i++)
			harness_release(h, i);
	}
	assert_false(wbc_kms_pipe_busy(h->pipe));
	wbc_kms_pipe_destroy(h->pipe);
	for (size_t i = 0; i < HARNESS_LEN(h->fbs); i++)
		wbc_kms_buffer_destroy(h->dev, h->fbs[i]);
	wbc_kms_device_destroy(h->dev);
	assert_int_equal(fake_drm_n_buffers(), 0);
	fake_drm_close();
	free(h);
}

struct wbc_kms_pipe_state harness_state(struct harness *h, unsigned fb, bool capture,
		uintptr_t tag)
{
	return (struct wbc_kms_pipe_state){ .primary.fb = &h->fbs[fb]->fb, .capture = capture,
		.user_data = TAG(tag) };
}

void harness_dispatch(struct harness *h)
{
	int n;
	do {
		n = wbc_kms_device_dispatch(h->dev);
		assert_true(n >= 0);
	} while (n > 0);
}

void harness_vblank(struct harness *h, uint64_t advance, uint64_t ts_ns)
{
	fake_drm_vblank(advance, ts_ns);
	harness_dispatch(h);
}

bool harness_wait_for(struct harness *h, size_t (*count)(const struct harness *),
		size_t than, int timeout_ms)
{
	uint64_t end = harness_now_ns() + (uint64_t)timeout_ms * 1000000u;
	while (count(h) <= than && harness_now_ns() < end)
		assert_true(wbc_kms_device_wait(h->dev, 10) >= 0);
	return count(h) > than;
}

void harness_release(struct harness *h, size_t frame)
{
	assert_true(frame < h->n_frames);
	if (h->frames[frame].released)
		return;
	h->frames[frame].released = true;
	wbc_kms_pipe_release_frame(h->pipe, h->frames[frame].frame.buffer);
}

struct wbc_kms_pipe_stats harness_stats(struct harness *h)
{
	struct wbc_kms_pipe_stats s;
	wbc_kms_pipe_get_stats(h->pipe, &s);
	return s;
}

uint64_t harness_commit_fb(const struct fake_drm_commit *c)
{
	uint64_t fb = 0;
	fake_drm_commit_value(c, FAKE_DRM_PLANE, FAKE_PROP_FB_ID, &fb);
	return fb;
}
