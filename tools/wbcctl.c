/*
 * wbcctl: start, stop and query a running wbc's recording over wbc-capture-control-v1
 * (protocol/wbc-capture-control-v1.xml), through wbc's control socket (wbc
 * --allow-control). One command per run; the recording belongs to wbc and goes on after
 * wbcctl exits.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-client.h>
#include "wbc-capture-control-v1-client-protocol.h"

#ifndef WBC_VERSION
#define WBC_VERSION "unknown"
#endif

enum {
	EXIT_REFUSED = 1,                /* wbc said no (the reason is printed) */
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,            /* no control socket, no control global, lost */
};

#define MAX_OPTS 32

static const char usage[] =
	"usage: wbcctl [--socket PATH] record start TARGET [--output NAME] [--codec NAME]\n"
	"              [--container NAME] [--fps N] [--codec-opt KEY=VALUE]...\n"
	"              [--container-opt KEY=VALUE]...\n"
	"       wbcctl [--socket PATH] record stop\n"
	"       wbcctl [--socket PATH] status\n"
	"\n"
	"Controls the recording of a wbc started with --allow-control.\n"
	"\n"
	"  record start TARGET  record the screen to a file (a relative path is taken from\n"
	"                       here) or a URL (udp://, tcp://, rtp://), as wbc --record;\n"
	"                       --codec, --container, --fps, --codec-opt, --container-opt\n"
	"                       as for wbc; --output NAME: that output (default: the one\n"
	"                       wbc records, as wbc(1) says). Refused while a recording\n"
	"                       runs.\n"
	"  record stop          stop the recording (the file is complete when this returns)\n"
	"                       and print its final counters\n"
	"  status               print the state and the recorder's counters on one line:\n"
	"                       state=idle|recording|failed [target= output= codec= container=\n"
	"                       captured= encoded= dropped= queue= bytes=] [error=...]\n"
	"  --socket PATH        wbc's control socket (default: $WBC_CONTROL_SOCKET, else\n"
	"                       $XDG_RUNTIME_DIR/wbc-control-N for WAYLAND_DISPLAY=wayland-N,\n"
	"                       else $XDG_RUNTIME_DIR/wbc-control-0)\n"
	"\n"
	"Exit status: 0 done; 1 wbc refused (already recording, not recording, bad option,\n"
	"cannot open TARGET, ...: its reason is printed); 2 bad usage; 3 wbc's control cannot\n"
	"be reached (no socket, permission denied, no control there, connection lost).\n";

enum command { CMD_START, CMD_STOP, CMD_STATUS };

struct request {
	enum command cmd;
	const char *socket;
	const char *target;
	const char *output, *codec, *container;
	uint32_t millifps;
	size_t n_codec_opts, n_container_opts;
	const char *codec_opts[MAX_OPTS], *container_opts[MAX_OPTS];
};

/* What the result object said. */
struct reply {
	bool done, failed, have_state, have_stats;
	uint32_t reason, state;
	char message[4096];
	char target[4096], output[64], codec[64], container[64], error[1024];
	uint64_t captured, encoded, dropped, bytes;
	uint32_t queue;
};

/* A connection and the bound manager. */
struct conn {
	struct wl_display *display;
	struct wl_registry *registry;
	struct wbc_capture_control_manager_v1 *manager;
};

__attribute__((format(printf, 2, 3)))
static int die(int status, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("wbcctl: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	return status;
}

/* ---- Command line ------------------------------------------------------------------- */

static bool parse_fps(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1000)
		return false;
	*out = (uint32_t)lround(v * 1000);
	return *out > 0;
}

static bool is_key_value(const char *s)
{
	return s && s[0] != '=' && strchr(s, '=');
}

static int parse_start(int argc, char **argv, int i, struct request *rq)
{
	if (i >= argc || argv[i][0] == '-')
		return die(EXIT_USAGE, "record start needs a TARGET (see wbcctl --help)");
	rq->target = argv[i++];
	for (; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--output") == 0 && next && *next) {
			rq->output = argv[++i];
		} else if (strcmp(a, "--codec") == 0 && next && *next) {
			rq->codec = argv[++i];
		} else if (strcmp(a, "--container") == 0 && next && *next) {
			rq->container = argv[++i];
		} else if (strcmp(a, "--fps") == 0) {
			if (!next || !parse_fps(next, &rq->millifps))
				return die(EXIT_USAGE, "--fps wants a number of frames per second up to "
					"1000, got '%s'", next ? next : "");
			i++;
		} else if (strcmp(a, "--codec-opt") == 0 || strcmp(a, "--container-opt") == 0) {
			bool codec = strcmp(a, "--codec-opt") == 0;
			size_t *n = codec ? &rq->n_codec_opts : &rq->n_container_opts;
			if (!is_key_value(next))
				return die(EXIT_USAGE, "%s wants KEY=VALUE, got '%s'", a, next ? next : "");
			if (*n == MAX_OPTS)
				return die(EXIT_USAGE, "at most %d %s", MAX_OPTS, a);
			(codec ? rq->codec_opts : rq->container_opts)[(*n)++] = argv[++i];
		} else if (strcmp(a, "--codec") == 0 || strcmp(a, "--container") == 0 ||
				strcmp(a, "--output") == 0) {
			return die(EXIT_USAGE, "%s needs a NAME (see wbcctl --help)", a);
		} else {
			return die(EXIT_USAGE, "record start: unexpected '%s' (see wbcctl --help)", a);
		}
	}
	rq->cmd = CMD_START;
	return 0;
}

/* 0, -1 for --help/--version (printed), or an exit status. */
static int parse(int argc, char **argv, struct request *rq)
{
	*rq = (struct request){ 0 };
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return -1;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("wbcctl %s\n", WBC_VERSION);
			return -1;
		} else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc && argv[i + 1][0]) {
			rq->socket = argv[++i];
		} else if (strcmp(argv[i], "--socket") == 0) {
			return die(EXIT_USAGE, "--socket needs a PATH (see wbcctl --help)");
		} else {
			return die(EXIT_USAGE, "unknown option '%s' (see wbcctl --help)", argv[i]);
		}
	}
	if (i >= argc)
		return die(EXIT_USAGE, "no command: record start|record stop|status (see wbcctl "
			"--help)");
	const char *cmd = argv[i++];
	if (strcmp(cmd, "status") == 0 && i == argc) {
		rq->cmd = CMD_STATUS;
		return 0;
	}
	if (strcmp(cmd, "record") == 0 && i < argc && strcmp(argv[i], "start") == 0)
		return parse_start(argc, argv, i + 1, rq);
	if (strcmp(cmd, "record") == 0 && i + 1 == argc && strcmp(argv[i], "stop") == 0) {
		rq->cmd = CMD_STOP;
		return 0;
	}
	return die(EXIT_USAGE, "unknown command '%s%s%s' (see wbcctl --help)", cmd,
		i < argc ? " " : "", i < argc ? argv[i] : "");
}

/* ---- Where wbc is ------------------------------------------------------------------- */

static int socket_path(const struct request *rq, char *buf, size_t len)
{
	const char *env = getenv("WBC_CONTROL_SOCKET");
	const char *dir = getenv("XDG_RUNTIME_DIR");
	const char *wl = getenv("WAYLAND_DISPLAY");
	unsigned n = 0;
	int ret;
	if (rq->socket)
		ret = snprintf(buf, len, "%s", rq->socket);
	else if (env && *env)
		ret = snprintf(buf, len, "%s", env);
	else if (!dir || !*dir)
		return die(EXIT_UNREACHABLE, "XDG_RUNTIME_DIR is not set: give --socket PATH");
	else if (wl && sscanf(wl, "wayland-%u", &n) == 1)
		ret = snprintf(buf, len, "%s/wbc-control-%u", dir, n);
	else
		ret = snprintf(buf, len, "%s/wbc-control-0", dir);
	if (ret <= 0 || (size_t)ret >= len)
		return die(EXIT_UNREACHABLE, "control socket path too long");
	return 0;
}

/* A relative path is the user's, not wbc's (whose working directory may be anywhere). */
static int absolute_target(const char *target, char *buf, size_t len)
{
	const char *path = strncmp(target, "file:", 5) == 0 ? target + 5 : target;
	const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
	bool url = path == target && colon && (!slash || colon < slash);
	if (path[0] == '/' || url)
		return snprintf(buf, len, "%s", target) < (int)len ? 0 : -1;
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	int ret = snprintf(buf, len, "%.*s%s/%s", (int)(path - target), target, cwd, path);
	return ret > 0 && (size_t)ret < len ? 0 : -1;
}

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct conn *c = data;
	if (strcmp(interface, wbc_capture_control_manager_v1_interface.name) == 0 && !c->manager)
		c->manager = wl_registry_bind(registry, name,
			&wbc_capture_control_manager_v1_interface, version < 2 ? version : 2);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static int connect_to(const char *path, struct conn *c)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(addr.sun_path))
		return die(EXIT_UNREACHABLE, "control socket path too long: %s", path);
	memcpy(addr.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return die(EXIT_UNREACHABLE, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int err = errno;
		close(fd);
		if (err == ENOENT || err == ECONNREFUSED)
			return die(EXIT_UNREACHABLE, "no wbc at %s (%s; is wbc running with "
				"--allow-control?)", path, strerror(err));
		return die(EXIT_UNREACHABLE, "cannot connect to %s: %s", path, strerror(err));
	}
	c->display = wl_display_connect_to_fd(fd);
	if (!c->display) {
		close(fd);
		return die(EXIT_UNREACHABLE, "cannot start a Wayland connection on %s", path);
	}
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	if (wl_display_roundtrip(c->display) < 0)
		return die(EXIT_UNREACHABLE, "lost the connection to %s: %s", path,
			strerror(wl_display_get_error(c->display)));
	if (!c->manager)
		return die(EXIT_UNREACHABLE, "%s offers no recording control (no %s global)", path,
			wbc_capture_control_manager_v1_interface.name);
	return 0;
}

/* ---- Replies ------------------------------------------------------------------------ */

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void result_failed(void *data, struct wbc_capture_control_result_v1 *r, uint32_t reason,
		const char *message)
{
	struct reply *rp = data;
	rp->failed = true;
	rp->reason = reason;
	copy(rp->message, sizeof(rp->message), message);
}

static void result_state(void *data, struct wbc_capture_control_result_v1 *r, uint32_t state,
		const char *target, const char *output, const char *codec, const char *container,
		const char *error)
{
	struct reply *rp = data;
	rp->have_state = true;
	rp->state = state;
	copy(rp->target, sizeof(rp->target), target);
	copy(rp->output, sizeof(rp->output), output);
	copy(rp->codec, sizeof(rp->codec), codec);
	copy(rp->container, sizeof(rp->container), container);
	copy(rp->error, sizeof(rp->error), error);
}

static uint64_t u64(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
}

static void result_stats(void *data, struct wbc_capture_control_result_v1 *r,
		uint32_t captured_hi, uint32_t captured_lo, uint32_t encoded_hi, uint32_t encoded_lo,
		uint32_t dropped_hi, uint32_t dropped_lo, uint32_t queue, uint32_t bytes_hi,
		uint32_t bytes_lo)
{
	struct reply *rp = data;
	rp->have_stats = true;
	rp->captured = u64(captured_hi, captured_lo);
	rp->encoded = u64(encoded_hi, encoded_lo);
	rp->dropped = u64(dropped_hi, dropped_lo);
	rp->bytes = u64(bytes_hi, bytes_lo);
	rp->queue = queue;
}

static void result_done(void *data, struct wbc_capture_control_result_v1 *r)
{
	struct reply *rp = data;
	rp->done = true;
	wbc_capture_control_result_v1_destroy(r);  /* the compositor destroyed it already */
}

static const struct wbc_capture_control_result_v1_listener result_listener = {
	.failed = result_failed,
	.state = result_state,
	.stats = result_stats,
	.done = result_done,
};

static struct wbc_capture_control_result_v1 *send_start(struct conn *c,
		const struct request *rq, const char *target)
{
	struct wbc_capture_control_params_v1 *p =
		wbc_capture_control_manager_v1_create_params(c->manager);
	if (rq->output)
		wbc_capture_control_params_v1_set_output(p, rq->output);
	if (rq->codec)
		wbc_capture_control_params_v1_set_codec(p, rq->codec);
	if (rq->container)
		wbc_capture_control_params_v1_set_container(p, rq->container);
	if (rq->millifps)
		wbc_capture_control_params_v1_set_max_fps(p, rq->millifps);
	char kv[4096];
	for (size_t i = 0; i < rq->n_codec_opts + rq->n_container_opts; i++) {
		bool codec = i < rq->n_codec_opts;
		snprintf(kv, sizeof(kv), "%s", codec ? rq->codec_opts[i] :
			rq->container_opts[i - rq->n_codec_opts]);
		char *value = strchr(kv, '=');
		*value++ = '\0';
		if (codec)
			wbc_capture_control_params_v1_add_codec_option(p, kv, value);
		else
			wbc_capture_control_params_v1_add_container_option(p, kv, value);
	}
	struct wbc_capture_control_result_v1 *r = wbc_capture_control_params_v1_start(p, target);
	wbc_capture_control_params_v1_destroy(p);
	return r;
}

static const char *state_name(uint32_t state)
{
	switch (state) {
	case WBC_CAPTURE_CONTROL_RESULT_V1_STATE_IDLE: return "idle";
	case WBC_CAPTURE_CONTROL_RESULT_V1_STATE_RECORDING: return "recording";
	case WBC_CAPTURE_CONTROL_RESULT_V1_STATE_FAILED: return "failed";
	case WBC_CAPTURE_CONTROL_RESULT_V1_STATE_STOPPED: return "stopped";
	}
	return "unknown";
}

static void print_status(const struct reply *rp)
{
	printf("state=%s", state_name(rp->state));
	if (rp->target[0])
		printf(" target=%s output=%s codec=%s container=%s", rp->target, rp->output,
			rp->codec, rp->container);
	if (rp->have_stats)
		printf(" captured=%" PRIu64 " encoded=%" PRIu64 " dropped=%" PRIu64 " queue=%u bytes=%"
			PRIu64, rp->captured, rp->encoded, rp->dropped, rp->queue, rp->bytes);
	if (rp->error[0])
		printf(" error=%s", rp->error);
	putchar('\n');
}

static int report(const struct request *rq, const struct reply *rp)
{
	static const char *const what[] = { "record start", "record stop", "status" };
	if (rp->failed)
		return die(EXIT_REFUSED, "%s: %s", what[rq->cmd], rp->message);
	switch (rq->cmd) {
	case CMD_START:
		printf("wbcctl: recording %s to %s (%s in %s)\n", rp->output, rp->target, rp->codec,
			rp->container);
		break;
	case CMD_STOP:
		printf("wbcctl: stopped recording to %s: captured=%" PRIu64 " encoded=%" PRIu64
			" dropped=%" PRIu64 " bytes=%" PRIu64 "%s%s%s\n", rp->target, rp->captured,
			rp->encoded, rp->dropped, rp->bytes, rp->error[0] ? " (it had ended: " : "",
			rp->error, rp->error[0] ? ")" : "");
		break;
	case CMD_STATUS:
		print_status(rp);
		break;
	}
	return 0;
}

static int run(const struct request *rq, struct conn *c)
{
	char path[4096], target[4096];
	int ret = socket_path(rq, path, sizeof(path));
	if (ret)
		return ret;
	if (rq->cmd == CMD_START && absolute_target(rq->target, target, sizeof(target)) < 0)
		return die(EXIT_USAGE, "cannot make '%s' an absolute path", rq->target);
	ret = connect_to(path, c);
	if (ret)
		return ret;
	if (rq->output && wbc_capture_control_manager_v1_get_version(c->manager) < 2)
		return die(EXIT_REFUSED, "this wbc cannot record a chosen output (--output): its "
			"control is version %u", wbc_capture_control_manager_v1_get_version(c->manager));
	struct wbc_capture_control_result_v1 *r =
		rq->cmd == CMD_START ? send_start(c, rq, target) :
		rq->cmd == CMD_STOP ? wbc_capture_control_manager_v1_stop_recording(c->manager) :
		wbc_capture_control_manager_v1_get_status(c->manager);
	struct reply *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return die(EXIT_UNREACHABLE, "out of memory");
	wbc_capture_control_result_v1_add_listener(r, &result_listener, rp);
	while (!rp->done && wl_display_dispatch(c->display) >= 0)
		;
	ret = rp->done ? report(rq, rp) : die(EXIT_UNREACHABLE, "lost the connection to %s "
		"before its reply: %s", path, strerror(wl_display_get_error(c->display)));
	if (!rp->done)
		wbc_capture_control_result_v1_destroy(r);
	free(rp);
	return ret;
}

int main(int argc, char **argv)
{
	struct request rq;
	int ret = parse(argc, argv, &rq);
	if (ret)
		return ret < 0 ? 0 : ret;
	struct conn c = { 0 };
	ret = run(&rq, &c);
	if (c.manager)
		wbc_capture_control_manager_v1_destroy(c.manager);
	if (c.registry)
		wl_registry_destroy(c.registry);
	if (c.display)
		wl_display_disconnect(c.display);
	return ret;
}
