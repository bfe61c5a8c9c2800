/* SPDX-License-Identifier: MIT */
/* The nice value of the threads wbc_recorder_create() starts
 * (wbc_recorder_options.thread_nice). The encoder's threads are FFmpeg's
 * (and its libraries'), made inside avcodec_open2() with no hook, so they
 * are found as the threads /proc/self/task gains meanwhile. */
#ifndef WBC_RECORDER_NICE_H
#define WBC_RECORDER_NICE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define WBC_NICE_MAX_THREADS 64

/* The process's threads at one moment; on the caller's stack. */
struct wbc_thread_list {
	pid_t tids[WBC_NICE_MAX_THREADS];
	size_t n;
	bool complete;                   /* false: unreadable, or more than the maximum */
};

void wbc_thread_list_take(struct wbc_thread_list *list);
/* Set nice on every thread of the process not in before; returns how many
 * were changed. None when before is not complete: the caller's own threads
 * could not be told apart. */
size_t wbc_thread_renice_new(const struct wbc_thread_list *before, int nice);

#endif
