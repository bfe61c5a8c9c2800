/*
 * wlr-output-management-unstable-v1 (wlroots' wlr_output_manager_v1), behind
 * --allow-output-config: wlr-randr and the like list the outputs wbc drives (modes,
 * current mode, position, transform, scale) and test or apply new ones.
 *
 * Off by default: a locked-down kiosk lets only APP and its children connect, and any of
 * them could otherwise turn or shrink the screen under APP.
 *
 * A configuration is checked whole before anything changes (one line names what is
 * refused, and nothing changes): each head must stay enabled (disabling the kiosk's screen
 * would leave APP nowhere; wlr-output-power-management turns a display off), ask for a mode
 * the connector has (a custom mode only where it equals one), and a scale from 0.25 to 8
 * (wlroots itself rejects scales <= 0 as a protocol error). Then each output is tested by
 * the backend (wlr_output_test) and only then committed; the follow-ups are the screen's
 * (wbc_screen_changed).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_output_management_v1.h>
#include "output-config.h"
#include "server.h"
#include "util/log.h"

/* Owned by the server (server->output_config), freed by wbc_output_config_finish; the
 * manager is the display's (destroyed with it). */
struct wbc_output_config {
	struct wbc_server *server;
	struct wlr_output_manager_v1 *manager;
	struct wl_listener apply, test;
};

/* The same bounds as --scale (options.c). */
#define MIN_SCALE 0.25f
#define MAX_SCALE 8.0f

void wbc_output_config_update(struct wbc_server *s)
{
	if (!s->output_config || !s->layout)
		return;
	struct wlr_output_configuration_v1 *cfg = wlr_output_configuration_v1_create();
	if (!cfg)
		return;
	struct wlr_output_layout_output *lo;
	wl_list_for_each(lo, &s->layout->outputs, link) {
		struct wlr_output_configuration_head_v1 *head =
			wlr_output_configuration_head_v1_create(cfg, lo->output);
		if (!head) {
			wlr_output_configuration_v1_destroy(cfg);
			return;
		}
		/* Off through output power is still wbc's screen: enabled here. */
		head->state.enabled = true;
		head->state.x = lo->x;
		head->state.y = lo->y;
	}
	wlr_output_manager_v1_set_configuration(s->output_config->manager, cfg); /* takes it */
}

/* The mode a head asks for: its fixed mode, or the output's mode of that size (and
 * refresh, if given) for a custom one. NULL, with why filled, if the connector lacks it. */
static struct wlr_output_mode *head_mode(const struct wlr_output_head_v1_state *st,
		char *why, size_t len)
{
	if (st->mode)
		return st->mode;
	struct wlr_output_mode *m, *best = NULL;
	wl_list_for_each(m, &st->output->modes, link) {
		if (m->width != st->custom_mode.width || m->height != st->custom_mode.height)
			continue;
		if (st->custom_mode.refresh ? abs(m->refresh - st->custom_mode.refresh) < 500 :
				!best || m->preferred)
			best = m;
	}
	if (!best) {
		char have[256];
		wbc_screen_describe_modes(st->output, have, sizeof(have));
		snprintf(why, len, "%s has no mode %dx%d%s (it has: %s)", st->output->name,
			st->custom_mode.width, st->custom_mode.height,
			st->custom_mode.refresh ? " at that refresh" : "", have);
	}
	return best;
}

/* What wbc refuses before asking the backend; why filled. */
static bool head_acceptable(const struct wlr_output_head_v1_state *st, char *why, size_t len)
{
	if (!st->enabled) {
		snprintf(why, len, "disabling %s is refused: it is the kiosk's screen (turn the "
			"display off through output power, e.g. wlopm, instead)", st->output->name);
		return false;
	}
	if (!st->output->enabled) {
		snprintf(why, len, "%s is off (output power): turn it on first", st->output->name);
		return false;
	}
	if (!(st->scale >= MIN_SCALE && st->scale <= MAX_SCALE)) {
		snprintf(why, len, "scale %g for %s is refused (%g to %g)", (double)st->scale,
			st->output->name, (double)MIN_SCALE, (double)MAX_SCALE);
		return false;
	}
	return head_mode(st, why, len) != NULL;
}

static void set_pending(const struct wlr_output_head_v1_state *st)
{
	char unused[8];
	struct wlr_output *output = st->output;
	struct wlr_output_mode *mode = head_mode(st, unused, sizeof(unused));
	if (mode != output->current_mode)
		wlr_output_set_mode(output, mode);
	if (st->transform != output->transform)
		wlr_output_set_transform(output, st->transform);
	if (st->scale != output->scale)
		wlr_output_set_scale(output, st->scale);
}

/* Checks every head, then has the backend test each; applies them when apply. false with
 * the reason in why if anything is refused (nothing changed then, as far as the backend
 * allows: a commit failing after earlier heads were committed leaves those). */
static bool configure(struct wbc_server *s, struct wlr_output_configuration_v1 *cfg,
		bool apply, char *why, size_t len)
{
	struct wlr_output_configuration_head_v1 *h;
	wl_list_for_each(h, &cfg->heads, link)
		if (!head_acceptable(&h->state, why, len))
			return false;
	wl_list_for_each(h, &cfg->heads, link) {
		set_pending(&h->state);
		bool ok = wlr_output_test(h->state.output);
		wlr_output_rollback(h->state.output);
		if (!ok) {
			snprintf(why, len, "%s cannot show that configuration (run with -v for "
				"details)", h->state.output->name);
			return false;
		}
	}
	wl_list_for_each(h, &cfg->heads, link) {
		struct wlr_output *output = h->state.output;
		if (!apply)
			break;
		set_pending(&h->state);
		if (!wlr_output_commit(output)) {
			wlr_output_rollback(output);
			snprintf(why, len, "%s: the configuration failed (run with -v for details)",
				output->name);
			return false;
		}
		wlr_output_layout_add(s->layout, output, h->state.x, h->state.y);
		wbc_screen_changed(s, output);
	}
	return true;
}

static void handle_request(struct wbc_output_config *oc,
		struct wlr_output_configuration_v1 *cfg, bool apply)
{
	char why[512];
	if (configure(oc->server, cfg, apply, why, sizeof(why))) {
		wlr_output_configuration_v1_send_succeeded(cfg);
		if (apply)
			wbc_notice("output configuration applied");
	} else {
		wlr_output_configuration_v1_send_failed(cfg);
		wbc_log(WLR_ERROR, "output configuration %s: %s", apply ? "refused" :
			"test failed", why);
	}
	wlr_output_configuration_v1_destroy(cfg);   /* ours since the signal */
	if (apply)
		wbc_output_config_update(oc->server);   /* the state as it is now, either way */
}

static void handle_apply(struct wl_listener *listener, void *data)
{
	struct wbc_output_config *oc = wl_container_of(listener, oc, apply);
	handle_request(oc, data, true);
}

static void handle_test(struct wl_listener *listener, void *data)
{
	struct wbc_output_config *oc = wl_container_of(listener, oc, test);
	handle_request(oc, data, false);
}

int wbc_output_config_init(struct wbc_server *s)
{
	struct wbc_output_config *oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -1;
	oc->server = s;
	oc->manager = wlr_output_manager_v1_create(s->display);
	if (!oc->manager) {
		free(oc);
		return -1;
	}
	oc->apply.notify = handle_apply;
	wl_signal_add(&oc->manager->events.apply, &oc->apply);
	oc->test.notify = handle_test;
	wl_signal_add(&oc->manager->events.test, &oc->test);
	s->output_config = oc;
	return 0;
}

void wbc_output_config_finish(struct wbc_server *s)
{
	struct wbc_output_config *oc = s->output_config;
	if (!oc)
		return;
	wl_list_remove(&oc->apply.link);
	wl_list_remove(&oc->test.link);
	free(oc);
	s->output_config = NULL;
}
