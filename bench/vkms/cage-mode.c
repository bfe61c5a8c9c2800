// SPDX-License-Identifier: MIT
/*
 * cage-mode.so: an LD_PRELOAD shim for the VKMS bench. cage 0.1.4 has no mode option and
 * no wlr-output-management (so wlr-randr cannot change it); it always sets
 * wlr_output_preferred_mode(), which on VKMS is 1024x768. This shim replaces that one
 * wlroots function: with BENCH_CAGE_MODE=WxH[@Hz] it returns the output's mode of that
 * size (the one closest to Hz, default 60), else wlroots' own answer. Nothing else in cage
 * or wlroots changes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#define WLR_USE_UNSTABLE
#include <wlr/types/wlr_output.h>

struct wlr_output_mode *wlr_output_preferred_mode(struct wlr_output *output)
{
	static struct wlr_output_mode *(*real)(struct wlr_output *);
	if (!real)
		real = (struct wlr_output_mode * (*)(struct wlr_output *))
			dlsym(RTLD_NEXT, "wlr_output_preferred_mode");
	const char *want = getenv("BENCH_CAGE_MODE");
	int w = 0, h = 0, hz = 60;
	if (!want || sscanf(want, "%dx%d@%d", &w, &h, &hz) < 2)
		return real(output);
	struct wlr_output_mode *mode, *best = NULL;
	long best_d = 0;
	wl_list_for_each(mode, &output->modes, link) {
		if (mode->width != w || mode->height != h)
			continue;
		long d = labs((long)mode->refresh - hz * 1000L);
		if (!best || d < best_d) {
			best = mode;
			best_d = d;
		}
	}
	if (!best) {
		fprintf(stderr, "cage-mode: %s has no %dx%d mode, using the preferred one\n",
			output->name, w, h);
		return real(output);
	}
	fprintf(stderr, "cage-mode: %s: %dx%d@%.3f\n", output->name, best->width, best->height,
		best->refresh / 1000.0);
	return best;
}
