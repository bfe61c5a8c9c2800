/*
 * When a sync_file's fence signalled, as the kernel recorded it.
 *
 * libdrm has no wrapper for SYNC_IOC_FILE_INFO (libsync in Android has one; Debian does
 * not package it), so this asks the kernel directly. The dma_fence timestamp is taken
 * with ktime_get(), i.e. CLOCK_MONOTONIC, the clock of DRM's vblank timestamps, so the
 * two can be subtracted.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>
#include "private.h"

int wbc_kms_sync_file_signal_time(int fd, uint64_t *ns)
{
	/* Writeback out-fences hold one fence; a merged sync_file signals with its last. */
	struct sync_fence_info fences[4];
	struct sync_file_info info = {
		.num_fences = 4, .sync_fence_info = (uint64_t)(uintptr_t)fences,
	};
	memset(fences, 0, sizeof(fences));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) < 0)
		return -errno;
	if (info.status != 1 || info.num_fences == 0 || info.num_fences > 4)
		return -EAGAIN;
	uint64_t last = 0;
	for (uint32_t i = 0; i < info.num_fences; i++)
		if (fences[i].timestamp_ns > last)
			last = fences[i].timestamp_ns;
	*ns = last;
	return 0;
}
