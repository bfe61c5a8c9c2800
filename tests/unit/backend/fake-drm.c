/*
 * The fake libdrm (see fake-drm.h). Written for backend/'s calls only: each function does
 * what backend/ relies on and no more, and anything unexpected fails with an errno, so
 * a new libdrm call in backend/ shows up as a link error or a failed test, not silence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include "fake-drm.h"

#define MAX_OBJ_PROPS 16
#define MAX_BLOBS 32
#define MAX_BUFFERS 32
#define MAX_FENCES 64

/* The request backend/ builds (drmModeAtomicReq is opaque in libdrm's header); owned by
 * the caller of drmModeAtomicAlloc until drmModeAtomicFree. */
struct _drmModeAtomicReq {
	size_t n, cap;
	struct fake_drm_prop *items;     /* owned */
};

/* A KMS object's properties: ids and current values; part of the device. */
struct obj_props {
	uint32_t obj, type;
	size_t n;
	uint32_t ids[MAX_OBJ_PROPS];
	uint64_t values[MAX_OBJ_PROPS];  /* current state, updated by real commits */
};

/* A property blob, alive until drmModeDestroyPropertyBlob or fake_drm_close. */
struct blob {
	uint32_t id;                     /* 0: slot free */
	size_t len;
	void *data;                      /* owned */
};

/* A dumb buffer with its framebuffer (one each: backend/ makes them in pairs), alive
 * until drmModeDestroyDumbBuffer; fake_drm_n_buffers counts the ones never destroyed. */
struct buffer {
	uint32_t handle, fb_id;          /* handle 0: slot free; fb_id 0: no framebuffer */
	uint32_t pitch;
	uint64_t size;
	void *mem;                       /* owned; what mmap of the device fd returns */
};

/* A writeback out-fence; the fake keeps its end until fake_drm_close, the backend owns
 * the dup it was given. */
struct fence {
	int fd;                          /* the fake's end; the backend got a dup */
	int given_fd;                    /* the backend's number, to recognise it in ioctl */
	uint32_t fb_id;                  /* the buffer the engine writes */
	uint64_t signalled_ns;           /* 0: not yet */
};

/* A page-flip event queued for drmHandleEvent; a plain value. */
struct flip_event {
	uint64_t seq, ts_ns;
	void *user_data;
};

/* The whole device, from fake_drm_open to fake_drm_close; static because libdrm's API
 * carries only an fd. */
static struct {
	int fd;                          /* eventfd: readable while flip events are queued */
	struct obj_props objs[5];
	struct blob blobs[MAX_BLOBS];
	uint32_t next_blob, next_handle, next_fb;
	struct buffer buffers[MAX_BUFFERS];
	struct fence fences[MAX_FENCES];
	size_t n_fences;
	struct fake_drm_commit *commits; /* owned, n_commits of them */
	size_t n_commits;
	int refuse_test, refuse_commit;
	uint64_t seq, seq_ns;
	bool flip_pending;               /* a commit asked for an event not yet queued */
	void *flip_user_data;
	bool event_queued;
	struct flip_event event;
} dev = { .fd = -1 };

/* Outside dev: set before fake_drm_open, which clears dev. */
static fake_drm_policy policy;
static void *policy_data;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct {
	uint32_t id;
	const char *name;
	uint32_t flags;
} prop_names[] = {
	{ FAKE_PROP_ACTIVE, "ACTIVE", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_MODE_ID, "MODE_ID", DRM_MODE_PROP_BLOB },
	{ FAKE_PROP_OUT_FENCE_PTR, "OUT_FENCE_PTR", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_TYPE, "type", DRM_MODE_PROP_ENUM | DRM_MODE_PROP_IMMUTABLE },
	{ FAKE_PROP_FB_ID, "FB_ID", DRM_MODE_PROP_OBJECT },
	{ FAKE_PROP_CRTC_ID, "CRTC_ID", DRM_MODE_PROP_OBJECT },
	{ FAKE_PROP_SRC_X, "SRC_X", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_SRC_Y, "SRC_Y", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_SRC_W, "SRC_W", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_SRC_H, "SRC_H", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_CRTC_X, "CRTC_X", DRM_MODE_PROP_SIGNED_RANGE },
	{ FAKE_PROP_CRTC_Y, "CRTC_Y", DRM_MODE_PROP_SIGNED_RANGE },
	{ FAKE_PROP_CRTC_W, "CRTC_W", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_CRTC_H, "CRTC_H", DRM_MODE_PROP_RANGE },
	{ FAKE_PROP_WB_PIXEL_FORMATS, "WRITEBACK_PIXEL_FORMATS",
		DRM_MODE_PROP_BLOB | DRM_MODE_PROP_IMMUTABLE },
	{ FAKE_PROP_WB_FB_ID, "WRITEBACK_FB_ID", DRM_MODE_PROP_OBJECT },
	{ FAKE_PROP_WB_OUT_FENCE_PTR, "WRITEBACK_OUT_FENCE_PTR", DRM_MODE_PROP_RANGE },
};

static void add_prop(struct obj_props *o, uint32_t id, uint64_t value)
{
	o->ids[o->n] = id;
	o->values[o->n++] = value;
}

static struct obj_props *find_obj(uint32_t id)
{
	for (size_t i = 0; i < sizeof(dev.objs) / sizeof(dev.objs[0]); i++)
		if (dev.objs[i].obj == id)
			return &dev.objs[i];
	return NULL;
}

static uint32_t blob_create(const void *data, size_t len)
{
	for (size_t i = 0; i < MAX_BLOBS; i++) {
		struct blob *b = &dev.blobs[i];
		if (b->id)
			continue;
		b->data = malloc(len ? len : 1);
		if (!b->data)
			return 0;
		memcpy(b->data, data, len);
		b->len = len;
		b->id = ++dev.next_blob;
		return b->id;
	}
	return 0;
}

static struct blob *find_blob(uint32_t id)
{
	for (size_t i = 0; id && i < MAX_BLOBS; i++)
		if (dev.blobs[i].id == id)
			return &dev.blobs[i];
	return NULL;
}

int fake_drm_open(void)
{
	memset(&dev, 0, sizeof(dev));
	dev.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	dev.next_blob = 200;
	dev.next_fb = 500;
	dev.seq = 1000;
	dev.seq_ns = now_ns();
	uint32_t formats[] = { DRM_FORMAT_XRGB8888 };
	uint32_t wb_formats = blob_create(formats, sizeof(formats));
	struct obj_props *o = dev.objs;
	*o = (struct obj_props){ .obj = FAKE_DRM_CRTC, .type = DRM_MODE_OBJECT_CRTC };
	add_prop(o, FAKE_PROP_ACTIVE, 0);
	add_prop(o, FAKE_PROP_MODE_ID, 0);
	add_prop(o, FAKE_PROP_OUT_FENCE_PTR, 0);
	*++o = (struct obj_props){ .obj = FAKE_DRM_PLANE, .type = DRM_MODE_OBJECT_PLANE };
	add_prop(o, FAKE_PROP_TYPE, DRM_PLANE_TYPE_PRIMARY);
	for (uint32_t id = FAKE_PROP_FB_ID; id <= FAKE_PROP_CRTC_H; id++)
		add_prop(o, id, 0);
	*++o = (struct obj_props){ .obj = FAKE_DRM_CONNECTOR, .type = DRM_MODE_OBJECT_CONNECTOR };
	add_prop(o, FAKE_PROP_CRTC_ID, 0);
	*++o = (struct obj_props){ .obj = FAKE_DRM_WB_CONNECTOR,
		.type = DRM_MODE_OBJECT_CONNECTOR };
	add_prop(o, FAKE_PROP_CRTC_ID, 0);
	add_prop(o, FAKE_PROP_WB_PIXEL_FORMATS, wb_formats);
	add_prop(o, FAKE_PROP_WB_FB_ID, 0);
	add_prop(o, FAKE_PROP_WB_OUT_FENCE_PTR, 0);
	return dev.fd;
}

void fake_drm_close(void)
{
	for (size_t i = 0; i < MAX_BLOBS; i++)
		free(dev.blobs[i].data);
	for (size_t i = 0; i < MAX_BUFFERS; i++)
		free(dev.buffers[i].mem);
	for (size_t i = 0; i < dev.n_fences; i++)
		close(dev.fences[i].fd);
	for (size_t i = 0; i < dev.n_commits; i++)
		free(dev.commits[i].props);
	free(dev.commits);
	if (dev.fd >= 0)
		close(dev.fd);
	memset(&dev, 0, sizeof(dev));
	dev.fd = -1;
	policy = NULL;
	policy_data = NULL;
}

/* ---- Test controls --------------------------------------------------------------- */

size_t fake_drm_n_commits(void)
{
	return dev.n_commits;
}

const struct fake_drm_commit *fake_drm_commit_at(size_t i)
{
	return i < dev.n_commits ? &dev.commits[i] : NULL;
}

const struct fake_drm_commit *fake_drm_last_commit(bool test_only)
{
	for (size_t i = dev.n_commits; i-- > 0;)
		if (!(dev.commits[i].flags & DRM_MODE_ATOMIC_TEST_ONLY) == !test_only)
			return &dev.commits[i];
	return NULL;
}

bool fake_drm_commit_value(const struct fake_drm_commit *c, uint32_t obj, uint32_t prop,
		uint64_t *value)
{
	bool found = false;
	for (size_t i = 0; c && i < c->n_props; i++) {
		if (c->props[i].obj == obj && c->props[i].prop == prop) {
			*value = c->props[i].value;
			found = true;        /* the last one wins, as in the kernel */
		}
	}
	return found;
}

void fake_drm_set_policy(fake_drm_policy fn, void *data)
{
	policy = fn;
	policy_data = data;
}

void fake_drm_refuse(int test_only_errno, int commit_errno)
{
	dev.refuse_test = test_only_errno;
	dev.refuse_commit = commit_errno;
}

uint64_t fake_drm_sequence(void)
{
	return dev.seq;
}

void fake_drm_vblank(uint64_t advance, uint64_t ts_ns)
{
	dev.seq += advance;
	dev.seq_ns = ts_ns ? ts_ns : now_ns();
	if (!dev.flip_pending)
		return;
	dev.flip_pending = false;
	dev.event = (struct flip_event){ .seq = dev.seq, .ts_ns = dev.seq_ns,
		.user_data = dev.flip_user_data };
	dev.event_queued = true;
	uint64_t one = 1;
	if (write(dev.fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

bool fake_drm_flip_pending(void)
{
	return dev.flip_pending || dev.event_queued;
}

size_t fake_drm_n_fences(void)
{
	return dev.n_fences;
}

bool fake_drm_fence_signalled(size_t i)
{
	return i < dev.n_fences && dev.fences[i].signalled_ns != 0;
}

static struct buffer *buffer_by_fb(uint32_t fb_id)
{
	for (size_t i = 0; fb_id && i < MAX_BUFFERS; i++)
		if (dev.buffers[i].handle && dev.buffers[i].fb_id == fb_id)
			return &dev.buffers[i];
	return NULL;
}

void fake_drm_fence_signal(size_t i, bool write_buffer, uint8_t fill)
{
	if (i >= dev.n_fences || dev.fences[i].signalled_ns)
		abort();
	struct fence *f = &dev.fences[i];
	struct buffer *b = buffer_by_fb(f->fb_id);
	if (write_buffer && b)
		memset(b->mem, fill, b->size);
	f->signalled_ns = now_ns();
	uint64_t one = 1;
	if (write(f->fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

uint64_t fake_drm_fence_time(size_t i)
{
	return i < dev.n_fences ? dev.fences[i].signalled_ns : 0;
}

size_t fake_drm_n_buffers(void)
{
	size_t n = 0;
	for (size_t i = 0; i < MAX_BUFFERS; i++)
		n += dev.buffers[i].handle != 0;
	return n;
}

/* ---- Device, caps ------------------------------------------------------------------ */

drmVersionPtr drmGetVersion(int fd)
{
	(void)fd;
	drmVersionPtr v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->name = strdup("fake");
	v->desc = strdup("fake libdrm for host tests");
	v->version_major = 1;
	return v;
}

void drmFreeVersion(drmVersionPtr v)
{
	if (!v)
		return;
	free(v->name);
	free(v->desc);
	free(v);
}

int drmSetMaster(int fd)
{
	(void)fd;
	return 0;
}

int drmSetClientCap(int fd, uint64_t cap, uint64_t value)
{
	(void)fd;
	(void)cap;
	(void)value;
	return 0;
}

int drmGetCap(int fd, uint64_t cap, uint64_t *value)
{
	(void)fd;
	switch (cap) {
	case DRM_CAP_DUMB_BUFFER:
	case DRM_CAP_TIMESTAMP_MONOTONIC:
	case DRM_CAP_CRTC_IN_VBLANK_EVENT:
		*value = 1;
		return 0;
	default:
		*value = 0;
		return 0;
	}
}

char *drmGetDeviceNameFromFd2(int fd)
{
	(void)fd;
	return strdup("/dev/dri/fake0");
}

char *drmGetFormatName(uint32_t format)
{
	char *s = malloc(5);
	if (s)
		snprintf(s, 5, "%c%c%c%c", format & 0xff, (format >> 8) & 0xff,
			(format >> 16) & 0xff, (format >> 24) & 0xff);
	return s;
}

const char *drmModeGetConnectorTypeName(uint32_t type)
{
	switch (type) {
	case DRM_MODE_CONNECTOR_VIRTUAL: return "Virtual";
	case DRM_MODE_CONNECTOR_WRITEBACK: return "Writeback";
	default: return NULL;
	}
}

/* ---- Objects ----------------------------------------------------------------------- */

static void *dup_array(const void *src, size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p)
		memcpy(p, src, size);
	return p;
}

drmModeResPtr drmModeGetResources(int fd)
{
	(void)fd;
	static const uint32_t crtcs[] = { FAKE_DRM_CRTC };
	static const uint32_t encoders[] = { FAKE_DRM_ENCODER, FAKE_DRM_WB_ENCODER };
	static const uint32_t connectors[] = { FAKE_DRM_CONNECTOR, FAKE_DRM_WB_CONNECTOR };
	drmModeResPtr r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->count_crtcs = 1;
	r->crtcs = dup_array(crtcs, sizeof(crtcs));
	r->count_encoders = 2;
	r->encoders = dup_array(encoders, sizeof(encoders));
	r->count_connectors = 2;
	r->connectors = dup_array(connectors, sizeof(connectors));
	r->min_width = r->min_height = 1;
	r->max_width = r->max_height = 4096;
	return r;
}

void drmModeFreeResources(drmModeResPtr r)
{
	if (!r)
		return;
	free(r->crtcs);
	free(r->encoders);
	free(r->connectors);
	free(r->fbs);
	free(r);
}

drmModePlaneResPtr drmModeGetPlaneResources(int fd)
{
	(void)fd;
	static const uint32_t planes[] = { FAKE_DRM_PLANE };
	drmModePlaneResPtr r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->count_planes = 1;
	r->planes = dup_array(planes, sizeof(planes));
	return r;
}

void drmModeFreePlaneResources(drmModePlaneResPtr r)
{
	if (r)
		free(r->planes);
	free(r);
}

static drmModeModeInfo fake_mode(void)
{
	/* 1000 * 1000 pixels at 1000 kHz: one frame per second. */
	drmModeModeInfo m = { .clock = 1000, .hdisplay = FAKE_DRM_WIDTH,
		.hsync_start = 100, .hsync_end = 200, .htotal = 1000,
		.vdisplay = FAKE_DRM_HEIGHT, .vsync_start = 100, .vsync_end = 200,
		.vtotal = 1000, .vrefresh = 1, .type = DRM_MODE_TYPE_PREFERRED };
	snprintf(m.name, sizeof(m.name), "%dx%d", FAKE_DRM_WIDTH, FAKE_DRM_HEIGHT);
	return m;
}

drmModeCrtcPtr drmModeGetCrtc(int fd, uint32_t id)
{
	(void)fd;
	if (id != FAKE_DRM_CRTC) {
		errno = ENOENT;
		return NULL;
	}
	drmModeCrtcPtr c = calloc(1, sizeof(*c));
	if (c) {
		c->crtc_id = id;
		c->gamma_size = 256;
	}
	return c;
}

void drmModeFreeCrtc(drmModeCrtcPtr c)
{
	free(c);
}

drmModePlanePtr drmModeGetPlane(int fd, uint32_t id)
{
	(void)fd;
	static const uint32_t formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };
	if (id != FAKE_DRM_PLANE) {
		errno = ENOENT;
		return NULL;
	}
	drmModePlanePtr p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->plane_id = id;
	p->possible_crtcs = 1;
	p->count_formats = 2;
	p->formats = dup_array(formats, sizeof(formats));
	return p;
}

void drmModeFreePlane(drmModePlanePtr p)
{
	if (p)
		free(p->formats);
	free(p);
}

drmModeEncoderPtr drmModeGetEncoder(int fd, uint32_t id)
{
	(void)fd;
	if (id != FAKE_DRM_ENCODER && id != FAKE_DRM_WB_ENCODER) {
		errno = ENOENT;
		return NULL;
	}
	drmModeEncoderPtr e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->encoder_id = id;
	e->encoder_type = DRM_MODE_ENCODER_VIRTUAL; /* what VKMS reports for both */
	e->possible_crtcs = 1;
	e->possible_clones = 0x3;        /* the display and writeback encoders may share */
	return e;
}

void drmModeFreeEncoder(drmModeEncoderPtr e)
{
	free(e);
}

drmModeConnectorPtr drmModeGetConnector(int fd, uint32_t id)
{
	(void)fd;
	if (id != FAKE_DRM_CONNECTOR && id != FAKE_DRM_WB_CONNECTOR) {
		errno = ENOENT;
		return NULL;
	}
	bool wb = id == FAKE_DRM_WB_CONNECTOR;
	drmModeConnectorPtr c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->connector_id = id;
	c->connector_type = wb ? DRM_MODE_CONNECTOR_WRITEBACK : DRM_MODE_CONNECTOR_VIRTUAL;
	c->connector_type_id = 1;
	c->connection = wb ? DRM_MODE_UNKNOWNCONNECTION : DRM_MODE_CONNECTED;
	uint32_t enc = wb ? FAKE_DRM_WB_ENCODER : FAKE_DRM_ENCODER;
	c->count_encoders = 1;
	c->encoders = dup_array(&enc, sizeof(enc));
	drmModeModeInfo mode = fake_mode();
	c->count_modes = wb ? 0 : 1;
	c->modes = dup_array(&mode, sizeof(mode));
	return c;
}

void drmModeFreeConnector(drmModeConnectorPtr c)
{
	if (!c)
		return;
	free(c->encoders);
	free(c->modes);
	free(c->props);
	free(c->prop_values);
	free(c);
}

drmModeObjectPropertiesPtr drmModeObjectGetProperties(int fd, uint32_t id, uint32_t type)
{
	(void)fd;
	struct obj_props *o = find_obj(id);
	if (!o || o->type != type) {
		errno = ENOENT;
		return NULL;
	}
	drmModeObjectPropertiesPtr p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->count_props = (uint32_t)o->n;
	p->props = dup_array(o->ids, o->n * sizeof(o->ids[0]));
	p->prop_values = dup_array(o->values, o->n * sizeof(o->values[0]));
	return p;
}

void drmModeFreeObjectProperties(drmModeObjectPropertiesPtr p)
{
	if (!p)
		return;
	free(p->props);
	free(p->prop_values);
	free(p);
}

drmModePropertyPtr drmModeGetProperty(int fd, uint32_t id)
{
	(void)fd;
	for (size_t i = 0; i < sizeof(prop_names) / sizeof(prop_names[0]); i++) {
		if (prop_names[i].id != id)
			continue;
		drmModePropertyPtr p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->prop_id = id;
		p->flags = prop_names[i].flags;
		snprintf(p->name, sizeof(p->name), "%s", prop_names[i].name);
		return p;
	}
	errno = ENOENT;
	return NULL;
}

void drmModeFreeProperty(drmModePropertyPtr p)
{
	if (!p)
		return;
	free(p->values);
	free(p->enums);
	free(p->blob_ids);
	free(p);
}

drmModePropertyBlobPtr drmModeGetPropertyBlob(int fd, uint32_t id)
{
	(void)fd;
	struct blob *b = find_blob(id);
	if (!b) {
		errno = ENOENT;
		return NULL;
	}
	drmModePropertyBlobPtr r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->id = id;
	r->length = (uint32_t)b->len;
	r->data = dup_array(b->data, b->len);
	return r;
}

void drmModeFreePropertyBlob(drmModePropertyBlobPtr b)
{
	if (b)
		free(b->data);
	free(b);
}

int drmModeCreatePropertyBlob(int fd, const void *data, size_t size, uint32_t *id)
{
	(void)fd;
	*id = blob_create(data, size);
	if (!*id) {
		errno = ENOSPC;
		return -ENOSPC;
	}
	return 0;
}

int drmModeDestroyPropertyBlob(int fd, uint32_t id)
{
	(void)fd;
	struct blob *b = find_blob(id);
	if (!b) {
		errno = ENOENT;
		return -ENOENT;
	}
	free(b->data);
	*b = (struct blob){ 0 };
	return 0;
}

/* ---- Buffers ----------------------------------------------------------------------- */

int drmModeCreateDumbBuffer(int fd, uint32_t width, uint32_t height, uint32_t bpp,
		uint32_t flags, uint32_t *handle, uint32_t *pitch, uint64_t *size)
{
	(void)fd;
	(void)flags;
	for (size_t i = 0; i < MAX_BUFFERS; i++) {
		struct buffer *b = &dev.buffers[i];
		if (b->handle)
			continue;
		b->pitch = width * ((bpp + 7) / 8);
		b->size = (uint64_t)b->pitch * height;
		b->mem = calloc(1, b->size ? b->size : 1);
		if (!b->mem)
			break;
		b->handle = ++dev.next_handle;
		*handle = b->handle;
		*pitch = b->pitch;
		*size = b->size;
		return 0;
	}
	errno = ENOMEM;
	return -ENOMEM;
}

static struct buffer *buffer_by_handle(uint32_t handle)
{
	for (size_t i = 0; handle && i < MAX_BUFFERS; i++)
		if (dev.buffers[i].handle == handle)
			return &dev.buffers[i];
	return NULL;
}

/* The mmap offset of a dumb buffer: its handle in pages, as the kernel's are unique. */
int drmModeMapDumbBuffer(int fd, uint32_t handle, uint64_t *offset)
{
	(void)fd;
	if (!buffer_by_handle(handle)) {
		errno = ENOENT;
		return -ENOENT;
	}
	*offset = (uint64_t)handle << 12;
	return 0;
}

int drmModeDestroyDumbBuffer(int fd, uint32_t handle)
{
	(void)fd;
	struct buffer *b = buffer_by_handle(handle);
	if (!b) {
		errno = ENOENT;
		return -ENOENT;
	}
	free(b->mem);
	*b = (struct buffer){ 0 };
	return 0;
}

int drmModeAddFB2WithModifiers(int fd, uint32_t width, uint32_t height, uint32_t format,
		const uint32_t handles[4], const uint32_t pitches[4], const uint32_t offsets[4],
		const uint64_t modifier[4], uint32_t *buf_id, uint32_t flags)
{
	(void)fd;
	(void)width;
	(void)height;
	(void)format;
	(void)pitches;
	(void)offsets;
	(void)modifier;
	(void)flags;
	struct buffer *b = buffer_by_handle(handles[0]);
	if (!b || b->fb_id) {
		errno = EINVAL;
		return -EINVAL;
	}
	b->fb_id = ++dev.next_fb;
	*buf_id = b->fb_id;
	return 0;
}

int drmModeRmFB(int fd, uint32_t id)
{
	(void)fd;
	struct buffer *b = buffer_by_fb(id);
	if (!b) {
		errno = ENOENT;
		return -ENOENT;
	}
	b->fb_id = 0;
	return 0;
}

drmModeFBPtr drmModeGetFB(int fd, uint32_t id)
{
	(void)fd;
	(void)id;
	errno = ENOENT;
	return NULL;
}

void drmModeFreeFB(drmModeFBPtr fb)
{
	free(fb);
}

int drmPrimeFDToHandle(int fd, int prime_fd, uint32_t *handle)
{
	(void)fd;
	(void)prime_fd;
	(void)handle;
	errno = ENOSYS;
	return -ENOSYS;
}

int drmCloseBufferHandle(int fd, uint32_t handle)
{
	(void)fd;
	(void)handle;
	return 0;
}

/* backend/buffer.c maps dumb buffers with mmap(dev fd, offset): answer from the fake's
 * memory for the device fd, pass everything else on. munmap of that memory is a no-op
 * (drmModeDestroyDumbBuffer frees it). */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off);
int __wrap_munmap(void *addr, size_t len);

static void *map_buffer(size_t len, uint64_t off)
{
	struct buffer *b = buffer_by_handle((uint32_t)(off >> 12));
	if (!b || len > b->size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	return b->mem;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (fd < 0 || fd != dev.fd)
		return __real_mmap(addr, len, prot, flags, fd, off);
	return map_buffer(len, (uint64_t)off);
}

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (fd < 0 || fd != dev.fd)
		return __real_mmap64(addr, len, prot, flags, fd, off);
	return map_buffer(len, (uint64_t)off);
}

int __wrap_munmap(void *addr, size_t len)
{
	for (size_t i = 0; i < MAX_BUFFERS; i++)
		if (dev.buffers[i].handle && dev.buffers[i].mem == addr)
			return 0;
	return __real_munmap(addr, len);
}

/* ---- Fences ------------------------------------------------------------------------ */

static struct fence *fence_by_given_fd(int fd)
{
	/* Newest first: a number the backend closed may have been given out again. */
	for (size_t i = dev.n_fences; i-- > 0;)
		if (dev.fences[i].given_fd == fd)
			return &dev.fences[i];
	return NULL;
}

/* backend/syncfile.c asks a fence when it signalled with SYNC_IOC_FILE_INFO. */
int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct fence *f = request == SYNC_IOC_FILE_INFO ? fence_by_given_fd(fd) : NULL;
	if (!f)
		return __real_ioctl(fd, request, arg);
	struct sync_file_info *info = arg;
	info->status = f->signalled_ns ? 1 : 0;
	if (info->num_fences >= 1) {
		struct sync_fence_info fi = { .status = info->status,
			.timestamp_ns = f->signalled_ns };
		snprintf(fi.driver_name, sizeof(fi.driver_name), "fake");
		memcpy((void *)(uintptr_t)info->sync_fence_info, &fi, sizeof(fi));
	}
	info->num_fences = 1;
	return 0;
}

static int make_fence(uint32_t fb_id, int32_t *out)
{
	if (dev.n_fences == MAX_FENCES)
		return -ENOSPC;
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	int given = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (given < 0) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	dev.fences[dev.n_fences] = (struct fence){ .fd = fd, .given_fd = given, .fb_id = fb_id };
	*out = given;
	return (int)dev.n_fences++;
}

/* ---- Atomic ------------------------------------------------------------------------ */

drmModeAtomicReqPtr drmModeAtomicAlloc(void)
{
	return calloc(1, sizeof(struct _drmModeAtomicReq));
}

void drmModeAtomicFree(drmModeAtomicReqPtr req)
{
	if (req)
		free(req->items);
	free(req);
}

int drmModeAtomicAddProperty(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop,
		uint64_t value)
{
	if (req->n == req->cap) {
		size_t cap = req->cap ? req->cap * 2 : 16;
		struct fake_drm_prop *items = realloc(req->items, cap * sizeof(*items));
		if (!items)
			return -ENOMEM;
		req->items = items;
		req->cap = cap;
	}
	req->items[req->n++] = (struct fake_drm_prop){ obj, prop, value };
	return (int)req->n;
}

/* Whether every property is one the object has (the kernel's EINVAL otherwise). */
static bool props_known(const drmModeAtomicReq *req)
{
	for (size_t i = 0; i < req->n; i++) {
		struct obj_props *o = find_obj(req->items[i].obj);
		bool found = false;
		for (size_t j = 0; o && j < o->n; j++)
			found |= o->ids[j] == req->items[i].prop;
		if (!found)
			return false;
	}
	return true;
}

static int commit(drmModeAtomicReq *req, uint32_t flags, void *user_data,
		struct fake_drm_commit *rec)
{
	bool test = flags & DRM_MODE_ATOMIC_TEST_ONLY;
	if (!props_known(req))
		return -EINVAL;
	if (test && dev.refuse_test)
		return -dev.refuse_test;
	if (!test && dev.refuse_commit)
		return -dev.refuse_commit;
	if (!test && (flags & DRM_MODE_ATOMIC_NONBLOCK) && fake_drm_flip_pending())
		return -EBUSY;
	int refused = policy ? policy(rec, policy_data) : 0;
	if (refused)
		return -refused;
	uint64_t wb_fb = 0, fence_ptr = 0;
	fake_drm_commit_value(rec, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_WB_FB_ID, &wb_fb);
	fake_drm_commit_value(rec, FAKE_DRM_WB_CONNECTOR, FAKE_PROP_WB_OUT_FENCE_PTR, &fence_ptr);
	if (test) {
		if (fence_ptr)
			*(int32_t *)(uintptr_t)fence_ptr = -1;
		return 0;
	}
	if (wb_fb && fence_ptr) {
		int ret = make_fence((uint32_t)wb_fb, (int32_t *)(uintptr_t)fence_ptr);
		if (ret < 0)
			return ret;
		rec->fence = ret;
	}
	/* Apply the state; the writeback properties are one-shot, as in the kernel. */
	for (size_t i = 0; i < req->n; i++) {
		const struct fake_drm_prop *p = &req->items[i];
		struct obj_props *o = find_obj(p->obj);
		for (size_t j = 0; j < o->n; j++)
			if (o->ids[j] == p->prop && p->prop != FAKE_PROP_WB_FB_ID &&
					p->prop != FAKE_PROP_WB_OUT_FENCE_PTR)
				o->values[j] = p->value;
	}
	if (flags & DRM_MODE_PAGE_FLIP_EVENT) {
		dev.flip_pending = true;
		dev.flip_user_data = user_data;
	}
	return 0;
}

int drmModeAtomicCommit(int fd, drmModeAtomicReqPtr req, uint32_t flags, void *user_data)
{
	(void)fd;
	struct fake_drm_commit *commits = realloc(dev.commits,
		(dev.n_commits + 1) * sizeof(*commits));
	if (!commits) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	dev.commits = commits;
	struct fake_drm_commit *rec = &dev.commits[dev.n_commits++];
	*rec = (struct fake_drm_commit){ .flags = flags, .n_props = req->n, .fence = -1,
		.props = dup_array(req->items, req->n * sizeof(req->items[0])) };
	rec->result = commit(req, flags, user_data, rec);
	if (rec->result < 0) {
		errno = -rec->result;
		return rec->result;
	}
	return 0;
}

/* ---- Vblanks and events ------------------------------------------------------------ */

int drmCrtcGetSequence(int fd, uint32_t crtc_id, uint64_t *sequence, uint64_t *ns)
{
	(void)fd;
	if (crtc_id != FAKE_DRM_CRTC) {
		errno = ENOENT;
		return -ENOENT;
	}
	*sequence = dev.seq;
	*ns = dev.seq_ns;
	return 0;
}

int drmHandleEvent(int fd, drmEventContextPtr ctx)
{
	uint64_t count;
	if (fd != dev.fd || read(fd, &count, sizeof(count)) != sizeof(count))
		return -1;
	if (!dev.event_queued)
		return 0;
	/* Taken off the queue first: the handler may commit again and queue the next. */
	struct flip_event ev = dev.event;
	dev.event_queued = false;
	if (ctx->version >= 3 && ctx->page_flip_handler2)
		ctx->page_flip_handler2(fd, (unsigned)ev.seq, (unsigned)(ev.ts_ns / 1000000000u),
			(unsigned)(ev.ts_ns % 1000000000u / 1000u), FAKE_DRM_CRTC, ev.user_data);
	return 0;
}
