/* SPDX-License-Identifier: MIT */
#define _DEFAULT_SOURCE
#include "nice.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/resource.h>

void wbc_thread_list_take(struct wbc_thread_list *list)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e = NULL;

	list->n = 0;
	list->complete = false;
	if (!d)
		return;
	while ((e = readdir(d)) && list->n < WBC_NICE_MAX_THREADS)
		if (e->d_name[0] != '.')
			list->tids[list->n++] = (pid_t)atoi(e->d_name);
	list->complete = !e;
	closedir(d);
}

static bool listed(const struct wbc_thread_list *list, pid_t tid)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->tids[i] == tid)
			return true;
	return false;
}

size_t wbc_thread_renice_new(const struct wbc_thread_list *before, int nice)
{
	struct wbc_thread_list now;
	size_t changed = 0;

	if (!before->complete)
		return 0;
	wbc_thread_list_take(&now);
	for (size_t i = 0; i < now.n; i++)
		if (!listed(before, now.tids[i]) &&
				setpriority(PRIO_PROCESS, (id_t)now.tids[i], nice) == 0)
			changed++;
	return changed;
}
