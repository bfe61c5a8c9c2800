/*
 * --allow-control: wbc-capture-control-v1 (protocol/wbc-capture-control-v1.xml), which
 * wbcctl speaks to start, stop and query recordings while wbc runs.
 *
 * control.c serves the protocol on top of recording.h; control-access.c decides who sees
 * its global: the clients of wbc's control socket (mode 0600, the user's) and the APP
 * process wbc launched, nobody else on the Wayland socket.
 */
#ifndef WBC_CONTROL_H
#define WBC_CONTROL_H

#include <stddef.h>
#include <wayland-server-core.h>

struct wbc_server;
struct wbc_child;
struct wbc_control_access;

/* control.c. Makes the global and the control socket (before the backends start:
 * control-access.c changes the umask for a moment), exports WBC_CONTROL_SOCKET for APP.
 * 0, or -1 with one "wbc: ..." line logged. */
int wbc_control_init(struct wbc_server *server, const char *wayland_socket);
void wbc_control_finish(struct wbc_server *server);   /* NULL control allowed */

/* control-access.c. The control socket at path, or (path NULL) at
 * $XDG_RUNTIME_DIR/wbc-control-N for wayland_socket "wayland-N"; installs the display's
 * global filter. NULL and one line in err on failure. The display and child are borrowed
 * and must outlive it. */
struct wbc_control_access *wbc_control_access_create(struct wl_display *display,
		const struct wbc_child *child, const char *path, const char *wayland_socket,
		char *err, size_t err_len);
/* The global only the allowed clients see (one; borrowed). */
void wbc_control_access_guard(struct wbc_control_access *access,
		const struct wl_global *global);
const char *wbc_control_access_path(const struct wbc_control_access *access);
/* Closes and removes the socket, removes the filter. NULL allowed. */
void wbc_control_access_destroy(struct wbc_control_access *access);

#endif
