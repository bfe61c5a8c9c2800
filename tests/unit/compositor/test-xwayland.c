/*
 * test-xwayland: wbc's core embedded (as tests/wlcs runs it: wlroots' headless backend with
 * one 640x480 output, no session, no APP) with Xwayland asked for, twice in one process.
 * Each time: an X client (xdpyinfo) started on wbc's X display starts Xwayland and sees a
 * 640x480 screen; an X window (xev, asking for 100x100) becomes the focused view, mapped,
 * configured to the output's box and fullscreen, with the keyboard. The first server is
 * finished after xev has gone, the second with xev's window up (the window manager
 * connected to a running Xwayland). Under ASan (the test build), a
 * leak or a use after free in that teardown fails the test. Skipped (77) without Xwayland,
 * xdpyinfo or xev (Debian: xwayland, x11-utils).
 *
 * By hand: test-xwayland --run 'SHELL COMMAND' serves the command (DISPLAY set, the core
 * as above) until it exits, with its status: X clients on the host, without a display.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/xwayland.h>
#include "shell/server.h"
#include "shell/view.h"
#include "util/log.h"

#define WAIT_S 120                       /* Xwayland's start on a loaded host */

static int failed(const char *what)
{
	fprintf(stderr, "test-xwayland: FAIL: %s\n", what);
	return -1;
}

/* argv with DISPLAY=display, stdout to out (NULL: inherited). */
static pid_t spawn(const char *display, const char *out, char *const argv[])
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	setenv("DISPLAY", display, 1);
	if (out) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
	}
	execvp(argv[0], argv);
	_exit(127);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs the server until done(data) or WAIT_S. */
static bool run_until(struct wbc_server *s, bool (*done)(struct wbc_server *, void *), void *data)
{
	double end = now_s() + WAIT_S;
	while (now_s() < end) {
		if (done(s, data))
			return true;
		wl_display_flush_clients(s->display);
		wl_event_loop_dispatch(s->loop, 50);
	}
	return done(s, data);
}

struct child {
	pid_t pid;
	int status;                          /* -1 while running */
};

static bool child_exited(struct wbc_server *s, void *data)
{
	struct child *c = data;
	int st;
	if (c->status == -1 && waitpid(c->pid, &st, WNOHANG) == c->pid)
		c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return c->status != -1;
}

/* The focused view is an X window that has the keyboard, configured to 640x480. */
static bool x_window_focused(struct wbc_server *s, void *data)
{
	struct wbc_view *v = wbc_view_focused(s);
	struct wlr_surface *kb = s->input.seat->keyboard_state.focused_surface;
	if (!v || !kb || kb != v->kind->surface(v) || !wlr_surface_is_xwayland_surface(kb))
		return false;
	struct wlr_xwayland_surface *xs = wlr_xwayland_surface_from_wlr_surface(kb);
	return xs->width == 640 && xs->height == 480 && xs->x == 0 && xs->y == 0 &&
		xs->fullscreen;
}

static bool grep_file(const char *path, const char *text)
{
	char line[512];
	FILE *f = fopen(path, "r");
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* *xev_pid: xev, left running. */
static int round_trip(struct wbc_server *s, const char *dir, pid_t *xev_pid)
{
	const char *display = wbc_xwayland_display(s);
	if (!display)
		return failed("no X display");
	char out[4096];
	snprintf(out, sizeof(out), "%s/xdpyinfo.txt", dir);
	struct child info = { spawn(display, out, (char *[]){ "xdpyinfo", NULL }), -1 };
	if (!run_until(s, child_exited, &info) || info.status != 0)
		return failed("xdpyinfo did not succeed on wbc's X display");
	if (!grep_file(out, "dimensions:    640x480 pixels"))
		return failed("xdpyinfo did not see a 640x480 screen");
	struct child xev = { spawn(display, "/dev/null",
		(char *[]){ "xev", "-geometry", "100x100", NULL }), -1 };
	*xev_pid = xev.pid;
	if (!run_until(s, x_window_focused, NULL))
		return failed("xev's window was not a focused fullscreen 640x480 view");
	return 0;
}

static bool installed(const char *prog)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* --run CMD: sh -c CMD against one server, its exit status ours. */
static int run_command(const char *cmd)
{
	struct wbc_options opts = { .embedded = true, .embedded_width = 640,
		.embedded_height = 480, .xwayland = true };
	struct wbc_server s;
	int rc = 1;
	if (wbc_server_init(&s, &opts) == 0) {
		struct child c = { spawn(wbc_xwayland_display(&s), NULL,
			(char *[]){ "sh", "-c", (char *)cmd, NULL }), -1 };
		run_until(&s, child_exited, &c);
		rc = c.status;
	}
	wbc_server_finish(&s);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--run") == 0) {
		wbc_log_setup(getenv("WBC_TEST_VERBOSE") != NULL);
		return run_command(argv[2]);
	}
	if (access("/usr/bin/Xwayland", X_OK) != 0 || !installed("xdpyinfo") ||
			!installed("xev")) {
		printf("1..0 # SKIP Xwayland, xdpyinfo or xev not installed\n");
		return 77;
	}
	char dir[] = "/tmp/wbc-test-xwayland-XXXXXX";
	if (!mkdtemp(dir))
		return failed("mkdtemp"), 1;
	wbc_log_setup(getenv("WBC_TEST_VERBOSE") != NULL);
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		struct wbc_options opts = { .embedded = true, .embedded_width = 640,
			.embedded_height = 480, .xwayland = true };
		struct wbc_server s;
		pid_t xev = 0;
		if (wbc_server_init(&s, &opts) < 0)
			rc = failed("wbc_server_init");
		else if (round_trip(&s, dir, &xev) < 0)
			rc = 1;
		if (xev > 0 && i == 0) {
			struct child c = { xev, -1 };
			kill(xev, SIGTERM);
			run_until(&s, child_exited, &c);
			xev = 0;
		}
		wbc_server_finish(&s);
		if (xev > 0) {
			kill(xev, SIGTERM);
			waitpid(xev, NULL, 0);
		}
		printf("%s round %d\n", rc ? "not ok" : "ok", i + 1);
	}
	char out[4096];
	snprintf(out, sizeof(out), "%s/xdpyinfo.txt", dir);
	unlink(out);
	rmdir(dir);
	return rc ? 1 : 0;
}
