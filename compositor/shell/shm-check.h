/* wl_shm buffers whose stride is too short for their rows are refused at creation. */
#ifndef WBC_SHM_CHECK_H
#define WBC_SHM_CHECK_H

#include <wayland-server-core.h>

/* Watches the display's requests (a protocol logger: it sees each request before it is
 * dispatched); the caller owns the result and destroys it with
 * wl_protocol_logger_destroy() before the display. NULL on allocation failure. */
struct wl_protocol_logger *wbc_shm_check_create(struct wl_display *display);

#endif
