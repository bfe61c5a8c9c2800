/*
 * Modesets with writeback armed, N of them (argument, default 300): the mode alternates
 * between 640x480 and 800x600, each modeset commits a capture, and a page flip with a
 * capture follows it. Stock VKMS can freeze the guest here (vblank-off waits for the
 * vblank timer handler while holding the lock the handler needs: tests/vm/vkms-patches
 * 0003); the harness then reports a kernel hang. On a patched VKMS every modeset and every
 * capture completes. Run by hand (tests/README.md, "Guest kernels"); not in CI.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drm_fourcc.h>
#include "common.h"

static int modesets = 300;

static void modesets_with_writeback(void **state)
{
	bool stock = test_vkms_flavour("stock");
	struct test_pipe tp;
	test_pipe_init_wb(&tp, 640, 480, false, false);
	struct wbc_kms_connector *c = wbc_kms_pipe_connector(tp.pipe);
	const drmModeModeInfo *mode[2] = { test_find_mode(c, 640, 480), test_find_mode(c, 800, 600) };
	struct wbc_kms_buffer *buf[2] = {
		test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888),
		test_buffer(&tp, 800, 600, DRM_FORMAT_XRGB8888),
	};
	test_fill(buf[0], 0x00336699);
	test_fill(buf[1], 0x00996633);
	if (wbc_kms_pipe_enable_writeback(tp.pipe, NULL) < 0)
		fail_msg("writeback: %s", wbc_kms_device_error(tp.dev));
	tp.ev.allow_lost = stock;

	for (int i = 0; i < modesets; i++) {
		int m = (i + 1) % 2;
		struct wbc_kms_pipe_state s = { .primary.fb = &buf[m]->fb, .capture = true };
		/* A job stock VKMS lost keeps its buffer armed until the fence timeout gives it
		 * up (1 s): the modeset waits for that, up to 5 s. */
		int ret, tries = 0;
		while ((ret = wbc_kms_pipe_set_mode(tp.pipe, mode[m], &s)) == -EBUSY && stock &&
				tries++ < 50)
			wbc_kms_device_wait(tp.dev, 100);
		if (ret < 0)
			fail_msg("modeset %d to %ux%u: %s", i, mode[m]->hdisplay, mode[m]->vdisplay,
				wbc_kms_device_error(tp.dev));
		size_t flips = tp.ev.n_flips;
		if (test_commit_busy_retry(&tp, &s) < 0)
			fail_msg("flip after modeset %d: %s", i, wbc_kms_device_error(tp.dev));
		test_wait_flips(&tp, flips + 1, 30000);
		if ((i + 1) % 50 == 0)
			print_message("%d modesets, %zu flips, %zu captures, %zu lost\n", i + 1,
				tp.ev.n_flips, tp.ev.n_frames, tp.ev.n_lost);
	}
	struct wbc_kms_pipe_stats st;
	wbc_kms_pipe_get_stats(tp.pipe, &st);
	print_message("done: %llu modesets, %llu flips, %zu captures, %zu lost\n",
		(unsigned long long)st.modesets, (unsigned long long)st.flips, tp.ev.n_frames,
		tp.ev.n_lost);
	assert_true(st.modesets >= (uint64_t)modesets);
	if (!stock)
		assert_int_equal(tp.ev.n_lost, 0);
	test_pipe_fini(&tp);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		modesets = atoi(argv[1]);
	if (modesets < 1) {
		fprintf(stderr, "vkms-modeset-stress: want a positive number of modesets, got '%s'\n",
			argv[1]);
		return 2;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(modesets_with_writeback, test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
