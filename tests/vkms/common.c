#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <linux/types.h>
#include "common.h"

struct wbc_kms_device *test_open(void)
{
	struct wbc_kms_device *dev = NULL;
	struct wbc_kms_error err = { 0 };
	int ret = wbc_kms_device_open(VKMS_DEV, NULL, &dev, &err);
	if (ret < 0)
		fail_msg("open %s: %s", VKMS_DEV, err.message);
	return dev;
}

struct wbc_kms_connector *test_virtual_connector(struct wbc_kms_device *dev)
{
	for (size_t i = 0; i < dev->n_connectors; i++)
		if (dev->connectors[i].type == DRM_MODE_CONNECTOR_VIRTUAL)
			return &dev->connectors[i];
	fail_msg("no Virtual connector");
	return NULL;
}

const drmModeModeInfo *test_find_mode(struct wbc_kms_connector *c, uint32_t w, uint32_t h)
{
	if (!w)
		return &c->modes[c->preferred_mode >= 0 ? c->preferred_mode : 0];
	for (size_t i = 0; i < c->n_modes; i++)
		if (c->modes[i].hdisplay == w && c->modes[i].vdisplay == h)
			return &c->modes[i];
	fail_msg("connector %s has no %ux%u mode", c->name, w, h);
	return NULL;
}

static void on_flip(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev)
{
	struct test_events *te = data;
	if (te->n_flips < MAX_EVENTS)
		te->flips[te->n_flips] = *ev;
	te->n_flips++;
}

static void on_frame(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *f)
{
	struct test_events *te = data;
	if (te->n_frames < MAX_EVENTS) {
		te->frames[te->n_frames].sequence = f->sequence;
		te->frames[te->n_frames].timestamp_ns = f->timestamp_ns;
		te->frames[te->n_frames].user_data = f->user_data;
		te->frames[te->n_frames].checksum = test_checksum(f->data, f->stride, f->width,
			f->height);
		te->frames[te->n_frames].content =
			te->frame_check ? te->frame_check(te->frame_check_data, f) : 0;
	}
	te->n_frames++;
	if (te->hold_frames && te->n_held < 64)
		te->held[te->n_held++] = f->buffer;
	else
		wbc_kms_pipe_release_frame(pipe, f->buffer);
}

static void on_lost(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_lost *l)
{
	struct test_events *te = data;
	if (te->n_lost < sizeof(te->lost) / sizeof(te->lost[0])) {
		struct test_lost *r = &te->lost[te->n_lost];
		r->sequence = l->sequence;
		r->user_data = l->user_data;
		r->timeout_ms = l->timeout_ms;
		r->flips_before = te->n_flips;
		r->at_ns = test_now_ns();
		snprintf(r->reason, sizeof(r->reason), "%s", l->reason);
	}
	te->n_lost++;
	if (!te->allow_lost)
		fail_msg("writeback job lost after %zu flips: %s", te->n_flips, l->reason);
}

static void pipe_init(struct test_pipe *tp, uint32_t w, uint32_t h, bool cursor, bool overlay,
		bool wb)
{
	memset(tp, 0, sizeof(*tp));
	tp->dev = test_open();
	struct wbc_kms_connector *c = wb ? wbc_kms_device_writeback_connector(tp->dev) :
		test_virtual_connector(tp->dev);
	if (!c)
		fail_msg("no writeback connector");
	const drmModeModeInfo *mode = test_find_mode(c, w, h);
	struct wbc_kms_pipe_options opts = { .connector_id = c->id, .mode = mode,
		.want_cursor = cursor, .want_overlay = overlay };
	struct wbc_kms_pipe_listener l = { .flip = on_flip, .frame = on_frame,
		.frame_lost = on_lost, .data = &tp->ev };
	int ret = wbc_kms_pipe_create(tp->dev, &opts, &l, &tp->pipe);
	if (ret < 0)
		fail_msg("pipe: %s", wbc_kms_device_error(tp->dev));
	tp->width = mode->hdisplay;
	tp->height = mode->vdisplay;
}

void test_pipe_init(struct test_pipe *tp, uint32_t w, uint32_t h, bool cursor, bool overlay)
{
	pipe_init(tp, w, h, cursor, overlay, false);
}

void test_pipe_init_wb(struct test_pipe *tp, uint32_t w, uint32_t h, bool cursor, bool overlay)
{
	pipe_init(tp, w, h, cursor, overlay, true);
}

void test_pipe_fini(struct test_pipe *tp)
{
	for (size_t i = 0; i < tp->ev.n_held; i++)
		wbc_kms_pipe_release_frame(tp->pipe, tp->ev.held[i]);
	tp->ev.n_held = 0;
	wbc_kms_pipe_destroy(tp->pipe);
	for (size_t i = 0; i < tp->n_bufs; i++)
		wbc_kms_buffer_destroy(tp->dev, tp->bufs[i]);
	wbc_kms_device_destroy(tp->dev);
}

struct wbc_kms_buffer *test_buffer(struct test_pipe *tp, uint32_t w, uint32_t h, uint32_t format)
{
	struct wbc_kms_buffer *buf = NULL;
	assert_true(tp->n_bufs < 32);
	if (wbc_kms_buffer_create(tp->dev, w, h, format, &buf) < 0)
		fail_msg("buffer %ux%u: %s", w, h, wbc_kms_device_error(tp->dev));
	tp->bufs[tp->n_bufs++] = buf;
	return buf;
}

/* Runs the device's events until done(tp, want) holds or timeout_ms passed. */
static void wait_until(struct test_pipe *tp, bool (*done)(const struct test_pipe *, size_t),
		size_t want, int timeout_ms)
{
	for (int waited = 0; !done(tp, want) && waited < timeout_ms; waited += 10)
		if (wbc_kms_device_wait(tp->dev, 10) < 0)
			fail_msg("wait: %s", wbc_kms_device_error(tp->dev));
}

static bool flipped(const struct test_pipe *tp, size_t n) { return tp->ev.n_flips >= n; }
static bool captured(const struct test_pipe *tp, size_t n) { return tp->ev.n_frames >= n; }
static bool lost(const struct test_pipe *tp, size_t n) { return tp->ev.n_lost >= n; }
/* Every capture delivered or given up on. */
static bool settled(const struct test_pipe *tp, size_t n)
{
	return tp->ev.n_frames + tp->ev.n_lost >= n;
}

int test_commit_busy_retry(struct test_pipe *tp, const struct wbc_kms_pipe_state *s)
{
	int ret;
	for (int tries = 0; tries < 200; tries++) {
		ret = wbc_kms_pipe_commit(tp->pipe, s);
		if (ret != -EBUSY)
			break;
		tp->ev.busy_retries++;
		if (wbc_kms_device_wait(tp->dev, 10) < 0)
			fail_msg("wait: %s", wbc_kms_device_error(tp->dev));
	}
	return ret;
}

void test_wait_flips(struct test_pipe *tp, size_t flips, int timeout_ms)
{
	wait_until(tp, flipped, flips, timeout_ms);
}

void test_wait_frames(struct test_pipe *tp, size_t frames, int timeout_ms)
{
	wait_until(tp, captured, frames, timeout_ms);
}

void test_wait_lost(struct test_pipe *tp, size_t lost_jobs, int timeout_ms)
{
	wait_until(tp, lost, lost_jobs, timeout_ms);
}

void test_wait_settled(struct test_pipe *tp, size_t captures, int timeout_ms)
{
	wait_until(tp, settled, captures, timeout_ms);
}

void test_draw(struct wbc_kms_buffer *buf, uint32_t n)
{
	for (uint32_t y = 0; y < buf->fb.height; y++) {
		uint32_t *row = (uint32_t *)((char *)buf->map + (size_t)y * buf->stride);
		for (uint32_t x = 0; x < buf->fb.width; x++)
			row[x] = test_pixel(x, y, n);
	}
}

void test_fill(struct wbc_kms_buffer *buf, uint32_t argb)
{
	for (uint32_t y = 0; y < buf->fb.height; y++) {
		uint32_t *row = (uint32_t *)((char *)buf->map + (size_t)y * buf->stride);
		for (uint32_t x = 0; x < buf->fb.width; x++)
			row[x] = argb;
	}
}

uint32_t test_checksum(const void *data, uint32_t stride, uint32_t w, uint32_t h)
{
	uint32_t sum = 2166136261u;   /* FNV-1a over the RGB bytes */
	for (uint32_t y = 0; y < h; y++) {
		const uint32_t *row = (const uint32_t *)((const char *)data + (size_t)y * stride);
		for (uint32_t x = 0; x < w; x++)
			sum = (sum ^ (row[x] & 0xffffffu)) * 16777619u;
	}
	return sum;
}

/* The kernel's sw_sync ABI (drivers/dma-buf/sw_sync.c; no uapi header exports it). */
struct test_sw_sync_create_fence {
	__u32 value;
	char name[32];
	__s32 fence;
};
#define TEST_SW_SYNC_IOC_CREATE_FENCE _IOWR('W', 0, struct test_sw_sync_create_fence)
#define TEST_SW_SYNC_IOC_INC _IOW('W', 1, __u32)

int test_sw_sync_timeline(void)
{
	int fd = open("/sys/kernel/debug/sync/sw_sync", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail_msg("sw_sync: /sys/kernel/debug/sync/sw_sync: %s", strerror(errno));
	return fd;
}

int test_sw_sync_fence(int timeline, uint32_t point)
{
	struct test_sw_sync_create_fence c = { .value = point };
	snprintf(c.name, sizeof(c.name), "wbc-test-%u", point);
	if (ioctl(timeline, TEST_SW_SYNC_IOC_CREATE_FENCE, &c) != 0)
		fail_msg("sw_sync: create fence: %s", strerror(errno));
	return c.fence;
}

void test_sw_sync_advance(int timeline, uint32_t steps)
{
	__u32 n = steps;
	if (ioctl(timeline, TEST_SW_SYNC_IOC_INC, &n) != 0)
		fail_msg("sw_sync: advance: %s", strerror(errno));
}

uint64_t test_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool test_vkms_flavour(const char *flavour)
{
	const char *k = getenv("WBC_VM_KERNEL");
	size_t n = k ? strlen(k) : 0, f = strlen(flavour);
	return n > f && k[n - f - 1] == '-' && strcmp(k + n - f, flavour) == 0;
}

int test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the directory stream's own fd */
}

int test_teardown(void **state)
{
	(void)state;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 0;
	char path[300], target[64];
	for (struct dirent *e; (e = readdir(d));) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, VKMS_DEV) == 0) {
			print_message("teardown: closing %s (fd %s) left open by a failed test\n",
				VKMS_DEV, e->d_name);
			close(atoi(e->d_name));
		}
	}
	closedir(d);
	return 0;
}

int test_count_framebuffers(void)
{
	FILE *f = fopen("/sys/kernel/debug/dri/0/framebuffer", "r");
	if (!f)
		return -1;
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "framebuffer[", 12) == 0;
	fclose(f);
	return n;
}

int test_settled_framebuffers(int want, int timeout_ms)
{
	int n = test_count_framebuffers();
	for (int waited = 0; n > want && waited < timeout_ms; waited += 20) {
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
		n = test_count_framebuffers();
	}
	return n;
}
