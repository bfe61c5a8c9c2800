/* Internal to backend/: shared between its files, not part of the public API. */
#ifndef WBC_KMS_PRIVATE_H
#define WBC_KMS_PRIVATE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <xf86drmMode.h>
#include "wbc/kms.h"

#define WBC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* error.c: set the device's message and return code (a negative errno). */
int wbc_kms_fail(struct wbc_kms_device *dev, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wbc_kms_error_set(struct wbc_kms_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* props.c: look property ids (and current values) up by name. */
struct wbc_kms_prop_spec {
	const char *name;
	size_t offset;                   /* of the uint32_t id field in a *_props struct */
};
int wbc_kms_props_lookup(int fd, uint32_t obj_id, uint32_t obj_type,
		const struct wbc_kms_prop_spec *specs, size_t n_specs, void *props,
		uint64_t *values);
/* Copy an immutable blob's bytes; *out is malloc'd. */
int wbc_kms_blob_read(int fd, uint32_t blob_id, void **out, size_t *len);

/* formats.c: parsers of kernel blobs (pure; fuzzed). */
int wbc_kms_parse_in_formats(const void *blob, size_t len, struct wbc_kms_format **out,
		size_t *n_out);
int wbc_kms_parse_fourcc_list(const void *blob, size_t len, uint32_t **out, size_t *n_out);
void wbc_kms_formats_free(struct wbc_kms_format *formats, size_t n);

/* discover.c */
int wbc_kms_discover(struct wbc_kms_device *dev);
void wbc_kms_discovery_free(struct wbc_kms_device *dev);

/* events.c: one epoll fd for the DRM fd, every writeback fence fd and the fence timer. */
/* Owned by whoever adds it (the event loop, a writeback slot, the pool's timer), which
 * removes it before freeing it; the loop only borrows it while it is added. */
struct wbc_kms_event_source {
	int fd;
	void (*handle)(struct wbc_kms_event_source *src, uint32_t events);
	void *data;
};
int wbc_kms_events_create(struct wbc_kms_device *dev);
void wbc_kms_events_destroy(struct wbc_kms_device *dev);
int wbc_kms_events_add(struct wbc_kms_device *dev, struct wbc_kms_event_source *src);
void wbc_kms_events_remove(struct wbc_kms_device *dev, struct wbc_kms_event_source *src);
/* The pipe of a CRTC, for routing page-flip events. */
void wbc_kms_events_set_pipe(struct wbc_kms_device *dev, unsigned crtc_index,
		struct wbc_kms_pipe *pipe);

/* CLOCK_MONOTONIC in ns (the clock of DRM's vblank and fence timestamps). */
uint64_t wbc_kms_now_ns(void);

/* syncfile.c: CLOCK_MONOTONIC ns at which a signalled sync_file signalled; -EAGAIN while
 * it has not, -errno when it is no sync_file. */
int wbc_kms_sync_file_signal_time(int fd, uint64_t *ns);

/* pipe.c / commit.c / writeback.c */
void wbc_kms_pipe_handle_flip(struct wbc_kms_pipe *pipe, unsigned seq32, uint64_t ts_ns);

struct wbc_kms_writeback;
struct wbc_kms_wb_buffer;
int wbc_kms_writeback_create(struct wbc_kms_pipe *pipe, const struct wbc_kms_writeback_options *opts,
		struct wbc_kms_writeback **out);
void wbc_kms_writeback_destroy(struct wbc_kms_writeback *wb);
/* Add the writeback properties for a commit; *job is the armed job or NULL (none free). */
int wbc_kms_writeback_arm(struct wbc_kms_writeback *wb, drmModeAtomicReq *req, bool test_only,
		void *user_data, struct wbc_kms_wb_buffer **job);
void wbc_kms_writeback_commit_failed(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *job);
void wbc_kms_writeback_committed(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *job);
void wbc_kms_writeback_flipped(struct wbc_kms_writeback *wb, struct wbc_kms_wb_buffer *job,
		uint64_t seq, uint64_t ts_ns);
bool wbc_kms_writeback_blocks_commit(const struct wbc_kms_writeback *wb);
/* WBC_KMS_WB_DEADLINE: set (or clear) how long the pipe's queued state may wait for the
 * out-fence; pipe.c calls it whenever the queue or the commit in flight changes. */
void wbc_kms_writeback_pace(struct wbc_kms_writeback *wb);
/* The kernel refused an idle route: switch to routing per capture. 1 if switched. */
int wbc_kms_writeback_route_refused(struct wbc_kms_pipe *pipe);
int wbc_kms_writeback_resize(struct wbc_kms_writeback *wb, uint32_t width, uint32_t height);
/* Block (bounded) until no armed job's fence is outstanding. */
void wbc_kms_writeback_drain(struct wbc_kms_writeback *wb, int timeout_ms);
void wbc_kms_writeback_count(const struct wbc_kms_writeback *wb, struct wbc_kms_pipe_stats *out);
void wbc_kms_pipe_kick(struct wbc_kms_pipe *pipe);
void wbc_kms_pipe_deliver_frame(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_frame *frame);
void wbc_kms_pipe_report_lost(struct wbc_kms_pipe *pipe, const struct wbc_kms_wb_lost *lost);
struct wbc_kms_device *wbc_kms_pipe_device(const struct wbc_kms_pipe *pipe);

/* commit.c (used by restore.c and writeback.c too): add a property, failing cleanly
 * when the object lacks it. */
int wbc_kms_atomic_add(struct wbc_kms_device *dev, drmModeAtomicReq *req, uint32_t obj,
		uint32_t prop, uint64_t value, const char *what);
/* The request builders' shorthand (commit.c, restore.c): add obj's property `field`
 * unless an earlier step failed, so a builder is a list of ADDs with one check at the
 * end. Needs `dev`, `req` and an int `ret` (0 so far) in scope. */
#define ADD(obj, props, field, value) \
	ret = ret ? ret : wbc_kms_atomic_add(dev, req, (obj)->id, (props).field, (value), #field)

#endif
