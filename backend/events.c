/*
 * One pollable fd for the whole device: an epoll set holding the DRM fd (page-flip
 * events) and each outstanding writeback out-fence. Callers put this single fd in their
 * own loop (wl_event_loop, poll, epoll) and call wbc_kms_device_dispatch().
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include "private.h"

#define WBC_KMS_MAX_CRTCS 32

struct wbc_kms_event_loop {
	int epoll_fd;
	struct wbc_kms_device *dev;
	struct wbc_kms_event_source drm;
	struct wbc_kms_pipe *pipes[WBC_KMS_MAX_CRTCS]; /* by CRTC index; not owned */
};

uint64_t wbc_kms_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void page_flip(int fd, unsigned seq, unsigned sec, unsigned usec, unsigned crtc_id,
		void *data)
{
	struct wbc_kms_event_loop *loop = data;
	struct wbc_kms_crtc *crtc = wbc_kms_device_crtc(loop->dev, crtc_id);
	if (!crtc || crtc->index >= WBC_KMS_MAX_CRTCS || !loop->pipes[crtc->index])
		return;
	uint64_t ts = (uint64_t)sec * 1000000000u + (uint64_t)usec * 1000u;
	wbc_kms_pipe_handle_flip(loop->pipes[crtc->index], seq, ts);
}

static void handle_drm(struct wbc_kms_event_source *src, uint32_t events)
{
	struct wbc_kms_event_loop *loop = src->data;
	drmEventContext ctx = {
		.version = 3,
		.page_flip_handler2 = page_flip,
	};
	/* drmHandleEvent's user data is per commit; we pass the loop and route by CRTC. */
	drmHandleEvent(loop->dev->fd, &ctx);
}

int wbc_kms_events_create(struct wbc_kms_device *dev)
{
	struct wbc_kms_event_loop *loop = calloc(1, sizeof(*loop));
	if (!loop)
		return wbc_kms_fail(dev, -ENOMEM, "out of memory");
	loop->dev = dev;
	loop->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epoll_fd < 0) {
		free(loop);
		return wbc_kms_fail(dev, -errno, "epoll_create1: %s", strerror(errno));
	}
	dev->events = loop;
	loop->drm = (struct wbc_kms_event_source){ .fd = dev->fd, .handle = handle_drm,
		.data = loop };
	return wbc_kms_events_add(dev, &loop->drm);
}

void wbc_kms_events_destroy(struct wbc_kms_device *dev)
{
	if (!dev->events)
		return;
	close(dev->events->epoll_fd);
	free(dev->events);
	dev->events = NULL;
}

int wbc_kms_events_add(struct wbc_kms_device *dev, struct wbc_kms_event_source *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };
	if (epoll_ctl(dev->events->epoll_fd, EPOLL_CTL_ADD, src->fd, &ev) != 0)
		return wbc_kms_fail(dev, -errno, "epoll_ctl(add fd %d): %s", src->fd,
			strerror(errno));
	return 0;
}

void wbc_kms_events_remove(struct wbc_kms_device *dev, struct wbc_kms_event_source *src)
{
	epoll_ctl(dev->events->epoll_fd, EPOLL_CTL_DEL, src->fd, NULL);
}

void wbc_kms_events_set_pipe(struct wbc_kms_device *dev, unsigned crtc_index,
		struct wbc_kms_pipe *pipe)
{
	if (crtc_index < WBC_KMS_MAX_CRTCS)
		dev->events->pipes[crtc_index] = pipe;
}

int wbc_kms_device_get_event_fd(const struct wbc_kms_device *dev)
{
	return dev->events->epoll_fd;
}

static int dispatch(struct wbc_kms_device *dev, int timeout_ms)
{
	struct epoll_event evs[16];
	int n;
	do
		n = epoll_wait(dev->events->epoll_fd, evs, (int)WBC_ARRAY_LEN(evs), timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return wbc_kms_fail(dev, -errno, "epoll_wait: %s", strerror(errno));
	/* A handler may remove (and free) a fence source that is later in evs; sources
	 * are only removed by their own handler, so each pointer is still live here. */
	for (int i = 0; i < n; i++) {
		struct wbc_kms_event_source *src = evs[i].data.ptr;
		src->handle(src, evs[i].events);
	}
	return n;
}

int wbc_kms_device_dispatch(struct wbc_kms_device *dev)
{
	return dispatch(dev, 0);
}

int wbc_kms_device_wait(struct wbc_kms_device *dev, int timeout_ms)
{
	return dispatch(dev, timeout_ms);
}
