/*
 * backend/pipe.c + commit.c on the fake libdrm: one commit in flight, one queued, the
 * newest queued state wins, flips complete commits in order, vblank accounting, and
 * commits the kernel refuses. The guest tests (tests/vkms/vkms-flip.c, vkms-test-only.c)
 * check the same against VKMS; these check the logic alone, in milliseconds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <xf86drm.h>
#include "harness.h"

static int setup(void **state)
{
	*state = harness_setup(NULL);
	return 0;
}

static int teardown(void **state)
{
	harness_teardown(*state);
	return 0;
}

/* The first state is a blocking ALLOW_MODESET commit that lights the CRTC; the next
 * goes out NONBLOCK with a page-flip event; each is checked with TEST_ONLY first. */
static void first_commit_modesets_later_ones_flip_nonblocking(void **state)
{
	struct harness *h = *state;
	const struct fake_drm_commit *modeset = fake_drm_commit_at(1);
	assert_non_null(modeset);
	assert_true(fake_drm_commit_at(0)->flags & DRM_MODE_ATOMIC_TEST_ONLY);
	assert_int_equal(modeset->flags, DRM_MODE_ATOMIC_ALLOW_MODESET | DRM_MODE_PAGE_FLIP_EVENT);
	uint64_t v = 0;
	assert_true(fake_drm_commit_value(modeset, FAKE_DRM_CRTC, FAKE_PROP_ACTIVE, &v));
	assert_int_equal(v, 1);
	assert_true(fake_drm_commit_value(modeset, FAKE_DRM_CRTC, FAKE_PROP_MODE_ID, &v));
	assert_int_not_equal(v, 0);
	assert_true(fake_drm_commit_value(modeset, FAKE_DRM_CONNECTOR, FAKE_PROP_CRTC_ID, &v));
	assert_int_equal(v, FAKE_DRM_CRTC);
	assert_int_equal(harness_commit_fb(modeset), h->fbs[0]->fb.id);

	struct wbc_kms_pipe_state s = harness_state(h, 1, false, 1);
	size_t before = fake_drm_n_commits();
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &s), 0);
	assert_int_equal(fake_drm_n_commits(), before + 2);
	const struct fake_drm_commit *test = fake_drm_commit_at(before);
	const struct fake_drm_commit *flip = fake_drm_commit_at(before + 1);
	assert_int_equal(test->flags, DRM_MODE_ATOMIC_TEST_ONLY);
	assert_int_equal(flip->flags, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT);
	assert_int_equal(harness_commit_fb(test), h->fbs[1]->fb.id);
	assert_int_equal(harness_commit_fb(flip), h->fbs[1]->fb.id);
	assert_false(fake_drm_commit_value(flip, FAKE_DRM_CRTC, FAKE_PROP_MODE_ID, &v));
	assert_true(wbc_kms_pipe_busy(h->pipe));
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(h->flips[0].user_data, TAG(1));
	assert_int_equal(h->flips[0].sequence, fake_drm_sequence());
	assert_false(wbc_kms_pipe_busy(h->pipe));
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.commits, 2);
	assert_int_equal(st.modesets, 1);
	assert_int_equal(st.flips, 2);
}

/* A state committed while one is in flight waits, and goes out when the flip event
 * arrives; the two complete in order. The fake refuses a second nonblocking commit in
 * flight (EBUSY), so this also shows the pipe never sends one. */
static void commit_while_in_flight_is_queued_until_flip(void **state)
{
	struct harness *h = *state;
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	struct wbc_kms_pipe_state b = harness_state(h, 2, false, 2);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	size_t before = fake_drm_n_commits();
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &b), 0);
	/* Only b's TEST_ONLY reached the kernel. */
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_int_equal(harness_commit_fb(fake_drm_last_commit(false)), h->fbs[1]->fb.id);
	assert_int_equal(h->n_flips, 0);

	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_ptr_equal(h->flips[0].user_data, TAG(1));
	const struct fake_drm_commit *sent = fake_drm_last_commit(false);
	assert_int_equal(harness_commit_fb(sent), h->fbs[2]->fb.id);
	assert_int_equal(sent->result, 0);
	assert_true(wbc_kms_pipe_busy(h->pipe));

	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_int_equal(h->flips[1].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(h->flips[1].user_data, TAG(2));
	assert_true(h->flips[1].sequence == h->flips[0].sequence + 1);
	struct wbc_kms_pipe_stats st = harness_stats(h);
	assert_int_equal(st.superseded, 0);
	assert_int_equal(st.failed, 0);
	for (size_t i = 0; i < fake_drm_n_commits(); i++)
		assert_int_equal(fake_drm_commit_at(i)->result, 0);
}

/* A newer state replaces a queued one, which is reported SUPERSEDED at once and never
 * reaches the kernel; the newest goes out at the flip. */
static void newer_queued_commit_supersedes_older(void **state)
{
	struct harness *h = *state;
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	struct wbc_kms_pipe_state b = harness_state(h, 2, false, 2);
	struct wbc_kms_pipe_state c = harness_state(h, 3, false, 3);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &b), 0);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &c), 0);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].status, WBC_KMS_FLIP_SUPERSEDED);
	assert_ptr_equal(h->flips[0].user_data, TAG(2));
	assert_int_equal(harness_stats(h).superseded, 1);

	harness_vblank(h, 1, 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 3);
	assert_int_equal(h->flips[1].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(h->flips[1].user_data, TAG(1));
	assert_int_equal(h->flips[2].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(h->flips[2].user_data, TAG(3));
	/* b was tested but never committed for real. */
	for (size_t i = 0; i < fake_drm_n_commits(); i++) {
		const struct fake_drm_commit *k = fake_drm_commit_at(i);
		if (!(k->flags & DRM_MODE_ATOMIC_TEST_ONLY))
			assert_int_not_equal(harness_commit_fb(k), h->fbs[2]->fb.id);
	}
}

/* A flip three vblanks after the one due counts three missed vblanks, when the time
 * that passed allows that many. */
static void missed_vblanks_counted_from_sequence_gap(void **state)
{
	struct harness *h = *state;
	uint64_t t0 = harness_now_ns() / 1000 * 1000; /* events carry microseconds */
	uint64_t seq0 = fake_drm_sequence();
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	harness_vblank(h, 4, t0 + 10 * FAKE_DRM_FRAME_NS);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].sequence, seq0 + 4);
	assert_false(h->flips[0].timestamp_estimated);
	assert_int_equal(h->flips[0].timestamp_ns, t0 + 10 * FAKE_DRM_FRAME_NS);
	assert_int_equal(harness_stats(h).missed_vblanks, 3);

	/* The next flip on the following vblank misses none. */
	struct wbc_kms_pipe_state b = harness_state(h, 2, false, 2);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &b), 0);
	harness_vblank(h, 1, t0 + 11 * FAKE_DRM_FRAME_NS);
	assert_int_equal(h->n_flips, 2);
	assert_int_equal(harness_stats(h).missed_vblanks, 3);
}

/* A counter that jumped (re-based while the vblank interrupt was off) does not count a
 * billion missed vblanks: the count is bounded by the frames that fit in the time
 * between commit and flip, plus one (pipe.c's missed_vblanks). */
static void missed_vblanks_bounded_by_elapsed_time(void **state)
{
	struct harness *h = *state;
	uint64_t t0 = harness_now_ns();
	uint64_t seq0 = fake_drm_sequence();
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	/* 2.5 frames after t0: 2 whole frames since the commit (it took < 0.5 s). */
	harness_vblank(h, 1000000000, t0 + 5 * FAKE_DRM_FRAME_NS / 2);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].sequence, seq0 + 1000000000);
	assert_int_equal(harness_stats(h).missed_vblanks, 3);
}

/* A vblank time before the commit went out is stale: replaced by the time the event
 * arrived and flagged estimated. */
static void flip_time_before_commit_is_marked_estimated(void **state)
{
	struct harness *h = *state;
	uint64_t t0 = harness_now_ns();
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	harness_vblank(h, 1, t0 - FAKE_DRM_FRAME_NS);
	assert_int_equal(h->n_flips, 1);
	assert_true(h->flips[0].timestamp_estimated);
	assert_true(h->flips[0].timestamp_ns >= t0);
	assert_int_equal(harness_stats(h).estimated_timestamps, 1);
}

/* A commit the kernel refuses on an idle pipe fails the call with the kernel's errno
 * and a message; nothing is left in flight. */
static void commit_refused_by_kernel_fails_the_call(void **state)
{
	struct harness *h = *state;
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	fake_drm_refuse(0, EINVAL);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), -EINVAL);
	assert_non_null(strstr(h->dev->error, "refused the commit"));
	assert_false(wbc_kms_pipe_busy(h->pipe));
	assert_int_equal(harness_stats(h).failed, 1);
	assert_int_equal(h->n_flips, 0);

	/* Refused by TEST_ONLY: nothing is sent for real, and it is no failed commit. */
	fake_drm_refuse(EINVAL, 0);
	size_t before = fake_drm_n_commits();
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), -EINVAL);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_non_null(strstr(h->dev->error, "TEST_ONLY"));
	assert_int_equal(harness_stats(h).failed, 1);

	fake_drm_refuse(0, 0);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 1);
	assert_int_equal(h->flips[0].status, WBC_KMS_FLIP_DONE);
}

/* A queued state the kernel refuses when it finally goes out comes back FAILED with the
 * errno, and the pipe is free again. */
static void queued_commit_refused_when_sent_reported_failed(void **state)
{
	struct harness *h = *state;
	struct wbc_kms_pipe_state a = harness_state(h, 1, false, 1);
	struct wbc_kms_pipe_state b = harness_state(h, 2, false, 2);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &a), 0);
	assert_int_equal(wbc_kms_pipe_commit(h->pipe, &b), 0);
	fake_drm_refuse(0, ENOSPC);
	harness_vblank(h, 1, 0);
	assert_int_equal(h->n_flips, 2);
	assert_int_equal(h->flips[0].status, WBC_KMS_FLIP_DONE);
	assert_ptr_equal(h->flips[0].user_data, TAG(1));
	assert_int_equal(h->flips[1].status, WBC_KMS_FLIP_FAILED);
	assert_int_equal(h->flips[1].error, -ENOSPC);
	assert_ptr_equal(h->flips[1].user_data, TAG(2));
	assert_false(wbc_kms_pipe_busy(h->pipe));
	assert_int_equal(harness_stats(h).failed, 1);
	fake_drm_refuse(0, 0);
}

/* The last real (not TEST_ONLY) commit turned the CRTC off, and how it went. */
static void assert_last_was_disable(int result)
{
	const struct fake_drm_commit *c = fake_drm_last_commit(false);
	uint64_t v = 1;
	assert_non_null(c);
	assert_true(fake_drm_commit_value(c, FAKE_DRM_CRTC, FAKE_PROP_ACTIVE, &v));
	assert_int_equal(v, 0);
	assert_int_equal(c->result, result);
}

/* Destroyed while its DRM master is gone (the session away), a pipe cannot turn its CRTC
 * off; the device keeps it and a reprobe (the session back) turns it off, once. */
static void refused_disable_is_retried_on_reprobe(void **state)
{
	struct harness *h = *state;
	if (fake_drm_flip_pending())
		harness_vblank(h, 1, 0);
	fake_drm_refuse(0, EACCES);
	wbc_kms_pipe_destroy(h->pipe);
	assert_last_was_disable(-EACCES);
	fake_drm_refuse(0, 0);
	size_t before = fake_drm_n_commits();
	assert_int_equal(wbc_kms_device_reprobe(h->dev, NULL), 0);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_last_was_disable(0);
	assert_int_equal(wbc_kms_device_reprobe(h->dev, NULL), 0);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	struct wbc_kms_pipe_options opts = { .connector_id = FAKE_DRM_CONNECTOR };
	assert_int_equal(wbc_kms_pipe_create(h->dev, &opts, NULL, &h->pipe), 0);
}

/* A new pipe on that CRTC answers for it instead: no disable at its creation (it would
 * flash a display about to be lit again), but one if it goes before its first modeset. */
static void new_pipe_takes_over_a_refused_disable(void **state)
{
	struct harness *h = *state;
	if (fake_drm_flip_pending())
		harness_vblank(h, 1, 0);
	fake_drm_refuse(0, EACCES);
	wbc_kms_pipe_destroy(h->pipe);
	fake_drm_refuse(0, 0);
	size_t before = fake_drm_n_commits();
	struct wbc_kms_pipe_options opts = { .connector_id = FAKE_DRM_CONNECTOR };
	struct wbc_kms_pipe *p = NULL;
	assert_int_equal(wbc_kms_pipe_create(h->dev, &opts, NULL, &p), 0);
	assert_int_equal(fake_drm_n_commits(), before);
	wbc_kms_pipe_destroy(p);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_last_was_disable(0);
	assert_int_equal(wbc_kms_device_reprobe(h->dev, NULL), 0);
	assert_int_equal(fake_drm_n_commits(), before + 1);
	assert_int_equal(wbc_kms_pipe_create(h->dev, &opts, NULL, &h->pipe), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(first_commit_modesets_later_ones_flip_nonblocking),
		T(commit_while_in_flight_is_queued_until_flip),
		T(newer_queued_commit_supersedes_older),
		T(missed_vblanks_counted_from_sequence_gap),
		T(missed_vblanks_bounded_by_elapsed_time),
		T(flip_time_before_commit_is_marked_estimated),
		T(commit_refused_by_kernel_fails_the_call),
		T(queued_commit_refused_when_sent_reported_failed),
		T(refused_disable_is_retried_on_reprobe),
		T(new_pipe_takes_over_a_refused_disable),
#undef T
	};
	return cmocka_run_group_tests_name("backend-pipe", tests, NULL, NULL);
}
