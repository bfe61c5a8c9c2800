/*
 * When a sync_file's fence signalled, as the kernel recorded it.
 *
 * libdrm has no wrapper for SYNC_IOC_FILE_INFO (libsync in Android has one; Debian does
 * not package it), so this asks the kernel directly. The dma_fence timestamp is taken
 * with ktime_get(), i.e. CLOCK_MONOTONIC, the clock of DRM's vblank timestamps, so the
 * two can be subtracted. wbc_kms_fence_wait, the bounded wait on one, is public (kms.h).
 */
#include <errno.h>
#include <string.h>
#include <poll.h>
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

int wbc_kms_fence_wait(int fd, int timeout_ms, uint64_t *signalled_ns)
{
	/* The deadline survives EINTR: poll is restarted with what is left of it. */
	uint64_t deadline = wbc_kms_now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000u;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int left = -1;
		if (timeout_ms >= 0) {
			uint64_t now = wbc_kms_now_ns();
			left = now >= deadline ? 0 : (int)((deadline - now + 999999u) / 1000000u);
		}
		int n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ETIME;
		if (pfd.revents & (POLLERR | POLLNVAL))
			return -EINVAL;
		uint64_t ns = 0;
		int ret = wbc_kms_sync_file_signal_time(fd, &ns);
		if (ret == -EAGAIN)
			continue;  /* readable but not signalled: not seen, but harmless to retry */
		if (ret == 0 && signalled_ns)
			*signalled_ns = ns;
		return ret;
	}
}
