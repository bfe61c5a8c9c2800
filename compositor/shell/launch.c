/* Running APP: checked before anything starts, spawned once the Wayland socket exists
 * (with WAYLAND_DISPLAY, and DISPLAY when there is Xwayland), reaped on SIGCHLD (its exit
 * status becomes wbc's), stopped when wbc stops first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/log.h"
#include "server.h"

static bool runnable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int wbc_launch_check(char *const argv[])
{
	const char *app = argv[0];
	if (strchr(app, '/')) {
		if (runnable(app))
			return 0;
		wbc_log(WLR_ERROR, "cannot run APP '%s': %s", app,
			access(app, F_OK) == 0 ? "not an executable file" : strerror(ENOENT));
		return -1;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char dir[4096];
	for (const char *p = path; ; ) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			n = 1, p = ".";
		int len = snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, p, app);
		if (len > 0 && (size_t)len < sizeof(dir) && runnable(dir))
			return 0;
		if (!end)
			break;
		p = end + 1;
	}
	wbc_log(WLR_ERROR, "cannot run APP '%s': not found in PATH", app);
	return -1;
}

/* DISPLAY is wbc's X display, or none: one inherited from wbc's own environment would
 * send APP's X clients to another server (or to nothing). */
static int set_display(struct wbc_server *s)
{
	const char *display = wbc_xwayland_display(s);
	if (display ? setenv("DISPLAY", display, 1) : unsetenv("DISPLAY")) {
		wbc_log(WLR_ERROR, "cannot set DISPLAY for APP: %s", strerror(errno));
		return -1;
	}
	if (display)
		wbc_log(WLR_INFO, "DISPLAY=%s", display);
	return 0;
}

int wbc_launch_spawn(struct wbc_server *s, char *const argv[])
{
	if (set_display(s) < 0)
		return -1;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		wbc_log(WLR_ERROR, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		wbc_log(WLR_ERROR, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		/* wl_event_loop_add_signal blocked these for its signalfds. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);    /* main() ignores it; an ignored signal survives exec */
		close(fds[0]);
		execvp(argv[0], argv);
		int err = errno;
		ssize_t w = write(fds[1], &err, sizeof(err));
		(void)w;
		_exit(127);
	}
	close(fds[1]);
	int err = 0;
	ssize_t n;
	do
		n = read(fds[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	s->child.pid = pid;
	if (n == (ssize_t)sizeof(err)) {
		wbc_log(WLR_ERROR, "cannot run APP '%s': %s", argv[0], strerror(err));
		waitpid(pid, NULL, 0);
		s->child.pid = 0;
		return -1;
	}
	wbc_log(WLR_INFO, "started '%s' (pid %d)", argv[0], (int)pid);
	return 0;
}

static int decode(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

/* wbc's other children (libseat's builtin seatd, ...) are reaped as they end; but not
 * the process wlroots forks to start Xwayland, which it waits for itself when Xwayland
 * says it is ready (reaped here first, wlroots would take Xwayland for failed). That one
 * ends the loop: whatever else ended is reaped on the next SIGCHLD. */
static void reap_others(struct wbc_server *s)
{
	for (;;) {
		siginfo_t info = { 0 };
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
			return;
		if (info.si_pid == wbc_xwayland_starter_pid(s))
			return;
		waitpid(info.si_pid, NULL, WNOHANG);
	}
}

void wbc_launch_reap(struct wbc_server *s)
{
	int wstatus;
	if (s->child.pid && waitpid(s->child.pid, &wstatus, WNOHANG) == s->child.pid) {
		s->child.pid = 0;
		s->child.exited = true;
		s->child.status = decode(wstatus);
		wbc_log(WLR_INFO, "APP exited with status %d", s->child.status);
		wbc_server_stop(s, s->child.status);
	}
	reap_others(s);
}

static bool wait_for(pid_t pid, int ms, int *wstatus)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		pid_t r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return false;
}

void wbc_launch_stop(struct wbc_server *s)
{
	if (!s->child.pid)
		return;
	int wstatus = 0;
	kill(s->child.pid, SIGTERM);
	if (!wait_for(s->child.pid, 2000, &wstatus)) {
		kill(s->child.pid, SIGKILL);
		wait_for(s->child.pid, 1000, &wstatus);
	}
	s->child.pid = 0;
}
