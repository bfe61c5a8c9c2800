/*
 * Who may use the recording control (see control.h). A recording shows everything on the
 * screen, so the control global is hidden from ordinary clients:
 *   - wbc listens on a control socket of its own, a Unix socket of mode 0600 (whatever
 *     the umask) owned by wbc's user; its clients see the control global and nothing
 *     else (they are controllers, not applications);
 *   - the APP process wbc launched (the client whose SO_PEERCRED pid, taken when it
 *     connected, is the child's pid) sees it on the Wayland socket too; APP's own children
 *     do not (they can use the control socket: WBC_CONTROL_SOCKET is in their environment);
 *   - every other client of the Wayland socket does not see it and cannot bind it
 *     (libwayland applies the filter to wl_registry.bind as well).
 * The socket is guarded by a lock file (PATH.lock, flock) like libwayland's sockets, so
 * a stale socket left by a wbc that was killed is replaced and a live one is not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "control.h"
#include "util/log.h"
#include "shell/server.h"

#define SUN_PATH_LEN sizeof(((struct sockaddr_un *)NULL)->sun_path)

enum client_kind { CLIENT_CONTROL, CLIENT_APP };

/* A client the filter lets see the control global; freed when the client goes. */
struct access_client {
	struct wl_client *client;        /* borrowed */
	enum client_kind kind;
	struct wl_listener destroy;
	struct wl_list link;             /* wbc_control_access.clients */
};

/* Owned by the control (control.c). */
struct wbc_control_access {
	struct wl_display *display;      /* borrowed */
	const struct wbc_child *child;   /* borrowed: APP's pid */
	const struct wl_global *global;  /* borrowed: the guarded global */
	int listen_fd, lock_fd;
	struct wl_event_source *source;
	struct wl_listener client_created;
	struct wl_list clients;          /* access_client.link */
	bool accepting;                  /* inside wl_client_create for a control client */
	char path[SUN_PATH_LEN];
	char lock_path[SUN_PATH_LEN + 5];
};

static struct access_client *find(const struct wbc_control_access *a,
		const struct wl_client *client)
{
	struct access_client *ac;
	wl_list_for_each(ac, &a->clients, link)
		if (ac->client == client)
			return ac;
	return NULL;
}

static void forget(struct access_client *ac)
{
	wl_list_remove(&ac->destroy.link);
	wl_list_remove(&ac->link);
	free(ac);
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct access_client *ac = wl_container_of(listener, ac, destroy);
	forget(ac);
}

static bool track(struct wbc_control_access *a, struct wl_client *client,
		enum client_kind kind)
{
	struct access_client *ac = calloc(1, sizeof(*ac));
	if (!ac)
		return false;
	*ac = (struct access_client){ .client = client, .kind = kind };
	ac->destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &ac->destroy);
	wl_list_insert(&a->clients, &ac->link);
	return true;
}

static bool filter_global(const struct wl_client *client, const struct wl_global *global,
		void *data)
{
	const struct wbc_control_access *a = data;
	const struct access_client *ac = find(a, client);
	if (global == a->global)
		return ac != NULL;
	return !ac || ac->kind != CLIENT_CONTROL;
}

/* Any new client: the APP's connections are remembered. */
static void handle_client_created(struct wl_listener *listener, void *data)
{
	struct wbc_control_access *a = wl_container_of(listener, a, client_created);
	struct wl_client *client = data;
	if (a->accepting || !a->child->pid)
		return;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	wl_client_get_credentials(client, &pid, &uid, &gid);
	if (pid == a->child->pid && track(a, client, CLIENT_APP))
		wbc_log(WLR_DEBUG, "control: APP (pid %d) connected: it may use the control", pid);
}

static int handle_connection(int fd, uint32_t mask, void *data)
{
	struct wbc_control_access *a = data;
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			wbc_log(WLR_ERROR, "control: accept on %s: %s", a->path, strerror(errno));
		return 0;
	}
	/* The socket's mode already keeps other users out (root aside): this only says so
	 * if the mode was changed behind wbc's back. */
	struct ucred cred = { 0 };
	socklen_t len = sizeof(cred);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
			(cred.uid != geteuid() && cred.uid != 0)) {
		wbc_log(WLR_ERROR, "control: refused a connection from uid %d", (int)cred.uid);
		close(cfd);
		return 0;
	}
	a->accepting = true;
	struct wl_client *client = wl_client_create(a->display, cfd);
	a->accepting = false;
	if (!client) {
		close(cfd);
		return 0;
	}
	if (!track(a, client, CLIENT_CONTROL)) {
		wl_client_destroy(client);
		return 0;
	}
	wbc_log(WLR_DEBUG, "control: client pid %d connected to %s", (int)cred.pid, a->path);
	return 0;
}

static int set_path(struct wbc_control_access *a, const char *path, const char *wayland_socket,
		char *err, size_t len)
{
	int n;
	if (path) {
		n = snprintf(a->path, sizeof(a->path), "%s", path);
	} else {
		const char *dir = getenv("XDG_RUNTIME_DIR");
		unsigned num = 0;
		if (!dir || !*dir) {
			snprintf(err, len, "control: XDG_RUNTIME_DIR is not set (or give "
				"--control-socket PATH)");
			return -1;
		}
		/* Paired with the Wayland socket's number, so wbcctl can find it. */
		if (sscanf(wayland_socket, "wayland-%u", &num) != 1)
			num = 0;
		n = snprintf(a->path, sizeof(a->path), "%s/wbc-control-%u", dir, num);
	}
	if (n <= 0 || (size_t)n >= sizeof(a->path)) {
		snprintf(err, len, "control: socket path too long (at most %zu bytes)",
			sizeof(a->path) - 1);
		return -1;
	}
	snprintf(a->lock_path, sizeof(a->lock_path), "%s.lock", a->path);
	return 0;
}

static int take_lock(struct wbc_control_access *a, char *err, size_t len)
{
	a->lock_fd = open(a->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (a->lock_fd < 0) {
		snprintf(err, len, "control: cannot create %s: %s", a->lock_path, strerror(errno));
		return -1;
	}
	if (flock(a->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, len, "control: %s is in use by another wbc (%s is locked)", a->path,
			a->lock_path);
		return -1;
	}
	return 0;
}

static int listen_on_path(struct wbc_control_access *a, char *err, size_t len)
{
	struct stat st;
	if (lstat(a->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, len, "control: %s exists and is not a socket", a->path);
			return -1;
		}
		unlink(a->path);             /* stale: its wbc would hold the lock */
	}
	a->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (a->listen_fd < 0) {
		snprintf(err, len, "control: socket: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	memcpy(addr.sun_path, a->path, strlen(a->path) + 1);
	/* Created 0600 from the start, not chmod-ed after a moment of the umask's mode.
	 * The umask is the process's: this runs before wbc has any other thread. */
	mode_t old = umask(0177);
	int ret = bind(a->listen_fd, (struct sockaddr *)&addr, sizeof(addr));
	int bind_errno = errno;
	umask(old);
	if (ret != 0) {
		snprintf(err, len, "control: cannot create %s: %s", a->path, strerror(bind_errno));
		return -1;
	}
	if (stat(a->path, &st) != 0 || (st.st_mode & 0777) != 0600 || st.st_uid != geteuid()) {
		snprintf(err, len, "control: %s is not mode 0600 owned by uid %d", a->path,
			(int)geteuid());
		return -1;
	}
	if (listen(a->listen_fd, 16) != 0) {
		snprintf(err, len, "control: listen on %s: %s", a->path, strerror(errno));
		return -1;
	}
	return 0;
}

struct wbc_control_access *wbc_control_access_create(struct wl_display *display,
		const struct wbc_child *child, const char *path, const char *wayland_socket,
		char *err, size_t len)
{
	struct wbc_control_access *a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, len, "control: out of memory");
		return NULL;
	}
	*a = (struct wbc_control_access){ .display = display, .child = child,
		.listen_fd = -1, .lock_fd = -1 };
	wl_list_init(&a->clients);
	wl_list_init(&a->client_created.link);
	if (set_path(a, path, wayland_socket, err, len) < 0 || take_lock(a, err, len) < 0 ||
			listen_on_path(a, err, len) < 0) {
		wbc_control_access_destroy(a);
		return NULL;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	a->source = wl_event_loop_add_fd(loop, a->listen_fd, WL_EVENT_READABLE,
		handle_connection, a);
	if (!a->source) {
		snprintf(err, len, "control: cannot watch %s", a->path);
		wbc_control_access_destroy(a);
		return NULL;
	}
	a->client_created.notify = handle_client_created;
	wl_display_add_client_created_listener(display, &a->client_created);
	wl_display_set_global_filter(display, filter_global, a);
	return a;
}

void wbc_control_access_guard(struct wbc_control_access *a, const struct wl_global *global)
{
	a->global = global;
}

const char *wbc_control_access_path(const struct wbc_control_access *a)
{
	return a->path;
}

void wbc_control_access_destroy(struct wbc_control_access *a)
{
	if (!a)
		return;
	if (a->source) {
		wl_display_set_global_filter(a->display, NULL, NULL);
		wl_event_source_remove(a->source);
	}
	wl_list_remove(&a->client_created.link);
	struct access_client *ac, *tmp;
	wl_list_for_each_safe(ac, tmp, &a->clients, link)
		forget(ac);
	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(a->path);
	}
	if (a->lock_fd >= 0) {
		/* Only a lock we hold is ours to remove: the socket's path goes first. */
		if (a->listen_fd >= 0)
			unlink(a->lock_path);
		close(a->lock_fd);
	}
	free(a);
}
