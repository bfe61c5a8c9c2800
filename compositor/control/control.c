/*
 * wbc-capture-control-v1 (see protocol/wbc-capture-control-v1.xml and control.h): start,
 * stop and query the compositor's one recording (recording.h) while wbc runs. Every reply
 * goes on a one-shot result object: failed/state/stats events, then done.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control.h"
#include "util/log.h"
#include "capture/recorder-loader.h"
#include "capture/recording.h"
#include "shell/server.h"
#include "wbc-capture-control-v1-protocol.h"

/* A failed event's message is cut here: a Wayland message is at most 4096 bytes, and an
 * unknown encoder's message lists every encoder there is. */
#define MESSAGE_MAX 2000
#define MAX_FPS_MILLI 1000000u

/* Owned by the server (server->control). */
struct wbc_control {
	struct wbc_server *server;
	struct wl_global *global;
	struct wbc_control_access *access;   /* owned */
};

/* The options of one recording to start; owned by its params resource. */
struct control_params {
	struct wbc_server *server;           /* borrowed: outlives every client */
	char *codec, *container;
	char *output;                        /* set_output (v2); NULL: the default output */
	char *codec_opts[WBC_MAX_AV_OPTS], *container_opts[WBC_MAX_AV_OPTS];
	size_t n_codec_opts, n_container_opts;
	uint32_t millifps;
	bool started;
	char problem[256];                   /* the first bad option, reported by start */
};

static pid_t client_pid(struct wl_client *client)
{
	pid_t pid;
	uid_t uid;
	gid_t gid;
	wl_client_get_credentials(client, &pid, &uid, &gid);
	return pid;
}

/* ---- Replies ------------------------------------------------------------------------ */

static struct wl_resource *result_create(struct wl_resource *parent, uint32_t id)
{
	struct wl_client *client = wl_resource_get_client(parent);
	struct wl_resource *r = wl_resource_create(client, &wbc_capture_control_result_v1_interface,
		wl_resource_get_version(parent), id);
	if (!r)
		wl_client_post_no_memory(client);
	return r;
}

static void result_done(struct wl_resource *result)
{
	wbc_capture_control_result_v1_send_done(result);
	wl_resource_destroy(result);
}

static void result_failed(struct wl_resource *result, enum wbc_capture_control_result_v1_reason
		reason, const char *message)
{
	char cut[MESSAGE_MAX + 4];
	snprintf(cut, sizeof(cut), "%s", message);
	if (strlen(message) > MESSAGE_MAX)
		strcpy(cut + MESSAGE_MAX - 3, "...");
	wbc_capture_control_result_v1_send_failed(result, reason, cut);
	result_done(result);
}

static enum wbc_capture_control_result_v1_state state_of(enum wbc_recording_state s)
{
	switch (s) {
	case WBC_RECORDING_IDLE: return WBC_CAPTURE_CONTROL_RESULT_V1_STATE_IDLE;
	case WBC_RECORDING_RECORDING: return WBC_CAPTURE_CONTROL_RESULT_V1_STATE_RECORDING;
	case WBC_RECORDING_FAILED: return WBC_CAPTURE_CONTROL_RESULT_V1_STATE_FAILED;
	case WBC_RECORDING_STOPPED: return WBC_CAPTURE_CONTROL_RESULT_V1_STATE_STOPPED;
	}
	return WBC_CAPTURE_CONTROL_RESULT_V1_STATE_IDLE;
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

/* The state event, and the stats event for a recording; then done. */
static void result_status(struct wl_resource *result, const struct wbc_recording_status *st)
{
	wbc_capture_control_result_v1_send_state(result, state_of(st->state),
		or_null(st->target), or_null(st->output), or_null(st->codec),
		or_null(st->container), or_null(st->error));
	if (st->state != WBC_RECORDING_IDLE)
		wbc_capture_control_result_v1_send_stats(result,
			(uint32_t)(st->captured >> 32), (uint32_t)st->captured,
			(uint32_t)(st->encoded >> 32), (uint32_t)st->encoded,
			(uint32_t)(st->dropped >> 32), (uint32_t)st->dropped, st->queue_depth,
			(uint32_t)(st->bytes >> 32), (uint32_t)st->bytes);
	result_done(result);
}

/* ---- Params ------------------------------------------------------------------------- */

static void replace(struct control_params *p, char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	if (!*field && !p->problem[0])
		snprintf(p->problem, sizeof(p->problem), "out of memory");
}

static void params_set_codec(struct wl_client *client, struct wl_resource *resource,
		const char *codec)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	replace(p, &p->codec, codec);
}

static void params_set_container(struct wl_client *client, struct wl_resource *resource,
		const char *container)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	replace(p, &p->container, container);
}

static void params_set_output(struct wl_client *client, struct wl_resource *resource,
		const char *name)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	replace(p, &p->output, name);
}

static void params_set_max_fps(struct wl_client *client, struct wl_resource *resource,
		uint32_t millifps)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	p->millifps = millifps;
}

static void add_option(struct control_params *p, char **list, size_t *n, const char *what,
		const char *key, const char *value)
{
	if (p->problem[0])
		return;
	if (!key[0] || strchr(key, '=')) {
		snprintf(p->problem, sizeof(p->problem), "bad %s option key '%.64s' (empty or "
			"with '=')", what, key);
		return;
	}
	if (*n == WBC_MAX_AV_OPTS) {
		snprintf(p->problem, sizeof(p->problem), "more than %d %s options",
			WBC_MAX_AV_OPTS, what);
		return;
	}
	size_t len = strlen(key) + 1 + strlen(value) + 1;
	char *kv = malloc(len);
	if (!kv) {
		snprintf(p->problem, sizeof(p->problem), "out of memory");
		return;
	}
	snprintf(kv, len, "%s=%s", key, value);
	list[(*n)++] = kv;
}

static void params_add_codec_option(struct wl_client *client, struct wl_resource *resource,
		const char *key, const char *value)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	add_option(p, p->codec_opts, &p->n_codec_opts, "codec", key, value);
}

static void params_add_container_option(struct wl_client *client,
		struct wl_resource *resource, const char *key, const char *value)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	add_option(p, p->container_opts, &p->n_container_opts, "container", key, value);
}

/* What the options cannot be, before the recorder sees them. */
static bool check_params(const struct wbc_recorder_module *m, const struct control_params *p,
		const char *target, char *err, size_t len)
{
	if (p->problem[0]) {
		snprintf(err, len, "%s", p->problem);
		return false;
	}
	if ((p->codec && !p->codec[0]) || (p->container && !p->container[0])) {
		snprintf(err, len, "empty codec or container name");
		return false;
	}
	if (p->millifps > MAX_FPS_MILLI) {
		snprintf(err, len, "frame rate cap %u.%03u frames/s is above 1000", p->millifps / 1000,
			p->millifps % 1000);
		return false;
	}
	const char *proto = m->protocol_name(target);
	const char *path = strncmp(target, "file:", 5) == 0 ? target + 5 : target;
	if (!target[0] || (proto && strcmp(proto, "file") == 0 && path[0] != '/')) {
		snprintf(err, len, "'%s' is not an absolute path (wbc's working directory is not "
			"yours)", target);
		return false;
	}
	return true;
}

static enum wbc_capture_control_result_v1_reason reason_of(int record_error)
{
	switch (record_error) {
	case WBC_RECORDING_ERR_BUSY: return WBC_CAPTURE_CONTROL_RESULT_V1_REASON_BUSY;
	case WBC_RECORDING_ERR_INVALID: return WBC_CAPTURE_CONTROL_RESULT_V1_REASON_INVALID;
	case WBC_RECORDING_ERR_OUTPUT: return WBC_CAPTURE_CONTROL_RESULT_V1_REASON_OUTPUT;
	case WBC_RECORDING_ERR_CAPTURE: return WBC_CAPTURE_CONTROL_RESULT_V1_REASON_CAPTURE;
	}
	return WBC_CAPTURE_CONTROL_RESULT_V1_REASON_INTERNAL;
}

static void params_start(struct wl_client *client, struct wl_resource *resource, uint32_t id,
		const char *target)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	if (p->started) {
		wl_resource_post_error(resource, WBC_CAPTURE_CONTROL_PARAMS_V1_ERROR_ALREADY_STARTED,
			"start was already sent on this object");
		return;
	}
	p->started = true;
	struct wl_resource *result = result_create(resource, id);
	if (!result)
		return;
	struct wbc_server *s = p->server;
	char err[16384];
	enum wbc_capture_control_result_v1_reason reason =
		WBC_CAPTURE_CONTROL_RESULT_V1_REASON_INVALID;
	struct wlr_output *output = NULL;
	struct wbc_capture *capture = NULL;
	/* The recorder (FFmpeg) is loaded by the first recording, here or --record's. */
	const struct wbc_recorder_module *m = wbc_recorder_loader_get(err, sizeof(err));
	if (!m)
		reason = WBC_CAPTURE_CONTROL_RESULT_V1_REASON_INTERNAL;
	else if (check_params(m, p, target, err, sizeof(err))) {
		reason = WBC_CAPTURE_CONTROL_RESULT_V1_REASON_NO_OUTPUT;
		if (p->output)
			snprintf(err, sizeof(err), "no output %s that can be recorded", p->output);
		else
			snprintf(err, sizeof(err), "no output that can be recorded");
		capture = wbc_screen_capture(s, p->output, &output);
	}
	if (capture) {
		struct wbc_recording_params rp = { .target = target, .codec = p->codec,
			.container = p->container,
			.codec_opts = (const char *const *)p->codec_opts, .n_codec_opts = p->n_codec_opts,
			.container_opts = (const char *const *)p->container_opts,
			.n_container_opts = p->n_container_opts, .fps = p->millifps / 1000.0 };
		int ret = wbc_recording_start(s, output, capture, &rp, err, sizeof(err));
		if (ret == 0) {
			wbc_notice("control: recording started by pid %d", (int)client_pid(client));
			struct wbc_recording_status st;
			wbc_recording_get_status(s, &st);
			result_status(result, &st);
			return;
		}
		reason = reason_of(ret);
	}
	wbc_notice("control: start refused (pid %d): %.400s%s", (int)client_pid(client), err,
		strlen(err) > 400 ? "..." : "");
	result_failed(result, reason, err);
}

static void params_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void params_free(struct wl_resource *resource)
{
	struct control_params *p = wl_resource_get_user_data(resource);
	free(p->codec);
	free(p->container);
	free(p->output);
	for (size_t i = 0; i < p->n_codec_opts; i++)
		free(p->codec_opts[i]);
	for (size_t i = 0; i < p->n_container_opts; i++)
		free(p->container_opts[i]);
	free(p);
}

static const struct wbc_capture_control_params_v1_interface params_impl = {
	.destroy = params_destroy,
	.set_codec = params_set_codec,
	.set_container = params_set_container,
	.set_max_fps = params_set_max_fps,
	.set_output = params_set_output,
	.add_codec_option = params_add_codec_option,
	.add_container_option = params_add_container_option,
	.start = params_start,
};

/* ---- Manager ------------------------------------------------------------------------ */

static void manager_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void manager_create_params(struct wl_client *client, struct wl_resource *resource,
		uint32_t id)
{
	struct control_params *p = calloc(1, sizeof(*p));
	struct wl_resource *r = p ? wl_resource_create(client,
		&wbc_capture_control_params_v1_interface, wl_resource_get_version(resource), id) :
		NULL;
	if (!r) {
		free(p);
		wl_client_post_no_memory(client);
		return;
	}
	p->server = wl_resource_get_user_data(resource);
	wl_resource_set_implementation(r, &params_impl, p, params_free);
}

static void manager_stop_recording(struct wl_client *client, struct wl_resource *resource,
		uint32_t id)
{
	struct wl_resource *result = result_create(resource, id);
	struct wbc_recording_status st;
	if (!result)
		return;
	if (wbc_recording_stop(wl_resource_get_user_data(resource), &st) < 0) {
		result_failed(result, WBC_CAPTURE_CONTROL_RESULT_V1_REASON_NOT_RECORDING,
			"not recording");
		return;
	}
	wbc_notice("control: recording to %s stopped by pid %d", st.target,
		(int)client_pid(client));
	result_status(result, &st);
}

static void manager_get_status(struct wl_client *client, struct wl_resource *resource,
		uint32_t id)
{
	struct wl_resource *result = result_create(resource, id);
	struct wbc_recording_status st;
	if (result) {
		wbc_recording_get_status(wl_resource_get_user_data(resource), &st);
		result_status(result, &st);
	}
}

static const struct wbc_capture_control_manager_v1_interface manager_impl = {
	.destroy = manager_destroy,
	.create_params = manager_create_params,
	.stop_recording = manager_stop_recording,
	.get_status = manager_get_status,
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *r = wl_resource_create(client,
		&wbc_capture_control_manager_v1_interface, (int)version, id);
	if (!r) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(r, &manager_impl, data, NULL);
}

/* ---- Setup -------------------------------------------------------------------------- */

int wbc_control_init(struct wbc_server *s, const char *wayland_socket)
{
	struct wbc_control *c = calloc(1, sizeof(*c));
	if (!c) {
		wbc_log(WLR_ERROR, "control: out of memory");
		return -1;
	}
	c->server = s;
	s->control = c;
	c->global = wl_global_create(s->display, &wbc_capture_control_manager_v1_interface, 2, s,
		bind_manager);
	char err[512];
	if (!c->global)
		snprintf(err, sizeof(err), "control: cannot create the wbc_capture_control_manager_v1 "
			"global");
	else
		c->access = wbc_control_access_create(s->display, &s->child, s->opts->control_socket,
			wayland_socket, err, sizeof(err));
	if (!c->access) {
		wbc_log(WLR_ERROR, "%s", err);
		return -1;
	}
	wbc_control_access_guard(c->access, c->global);
	const char *path = wbc_control_access_path(c->access);
	setenv("WBC_CONTROL_SOCKET", path, 1);
	wbc_notice("control: wbcctl --socket %s (mode 0600; also APP itself)", path);
	return 0;
}

void wbc_control_finish(struct wbc_server *s)
{
	struct wbc_control *c = s->control;
	if (!c)
		return;
	s->control = NULL;
	wbc_control_access_destroy(c->access);
	if (c->global)
		wl_global_destroy(c->global);
	free(c);
}
