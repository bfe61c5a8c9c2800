/*
 * libwayland-server 1.21 accepts a wl_shm_pool.create_buffer whose stride is at least the
 * width in *pixels* (and whose stride * height fits the pool); pixman then reads width *
 * bytes-per-pixel bytes from each row, so a stride shorter than that makes the last rows
 * read past the pool: other memory of wbc's, shown on screen and recorded (seen with
 * tests/vkms/compositor/bad-client short-stride before this check). The request is
 * watched before libwayland dispatches it and the client gets the wl_shm error
 * libwayland uses for its own stride checks, which disconnects it before anything draws
 * the buffer.
 */
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include "util/buffer-check.h"
#include "util/log.h"
#include "wbc/kms.h"
#include "shm-check.h"

/* wl_shm_pool.create_buffer(id, offset, width, height, stride, format) */
#define CREATE_BUFFER_OPCODE 0
#define CREATE_BUFFER_ARGS 6

static void check_request(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST ||
			m->message != &wl_shm_pool_interface.methods[CREATE_BUFFER_OPCODE] ||
			m->arguments_count != CREATE_BUFFER_ARGS)
		return;
	int32_t offset = m->arguments[1].i, width = m->arguments[2].i;
	int32_t height = m->arguments[3].i, stride = m->arguments[4].i;
	uint32_t format = wbc_buffer_shm_to_drm(m->arguments[5].u);
	/* What libwayland refuses itself (negative sizes, formats not advertised: only ones
	 * with a known size are, see renderer.c) is left to it. */
	if (offset < 0 || width <= 0 || height <= 0 || stride <= 0 ||
			!wbc_kms_format_cpp(format))
		return;
	char why[200];
	/* libwayland checks offset + stride * height against the pool's size. */
	uint64_t size = (uint64_t)stride * (uint64_t)height;
	if (wbc_buffer_layout_ok(format, (uint32_t)width, (uint32_t)height, (uint32_t)stride,
			0, size, why, sizeof(why)))
		return;
	pid_t pid = 0;
	wl_client_get_credentials(wl_resource_get_client(m->resource), &pid, NULL, NULL);
	wbc_log(WLR_ERROR, "client (pid %d) disconnected: wl_shm buffer refused: %s", (int)pid,
		why);
	wl_resource_post_error(m->resource, WL_SHM_ERROR_INVALID_STRIDE, "%s", why);
}

struct wl_protocol_logger *wbc_shm_check_create(struct wl_display *display)
{
	return wl_display_add_protocol_logger(display, check_request, NULL);
}
