/* Output power: wlr-output-power-management-unstable-v1 (wlroots' manager; wbc applies the
 * modes it asks for) turns displays off and on, and --blank-after SECONDS turns them off
 * after that long without input, unless a client holds an idle inhibitor
 * (zwp_idle_inhibit_manager_v1); input turns them on again. Turning off is the screen's
 * (wbc_screen_set_power): the CRTC goes off, nothing is committed or captured, and frame
 * callbacks stop. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_output_power_management_v1.h>
#include "util/log.h"
#include "server.h"

/* Owned by the server (server->power), freed by wbc_power_finish; the managers are the
 * display's (destroyed with it). */
struct wbc_power {
	struct wbc_server *server;
	struct wlr_output_power_manager_v1 *manager;
	struct wlr_idle_inhibit_manager_v1 *inhibit;
	struct wl_listener set_mode;
	struct wl_event_source *blank_timer; /* --blank-after; NULL without */
	bool blanked;                    /* the displays are off because of --blank-after */
};

static void handle_set_mode(struct wl_listener *listener, void *data)
{
	struct wbc_power *p = wl_container_of(listener, p, set_mode);
	const struct wlr_output_power_v1_set_mode_event *ev = data;
	wbc_screen_set_power(p->server, ev->output, ev->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON);
}

static int blank_ms(const struct wbc_server *s)
{
	int ms = (int)(s->opts->blank_after_s * 1000);
	return ms > 0 ? ms : 1;
}

/* No input for --blank-after: every display off, unless an idle inhibitor is held (then
 * look again in as long). */
static int handle_blank(void *data)
{
	struct wbc_power *p = data;
	if (!wl_list_empty(&p->inhibit->inhibitors)) {
		wbc_log(WLR_DEBUG, "--blank-after: an idle inhibitor is held: not blanking");
		wl_event_source_timer_update(p->blank_timer, blank_ms(p->server));
		return 0;
	}
	wbc_notice("--blank-after: %g s without input: turning the display off",
		p->server->opts->blank_after_s);
	p->blanked = true;
	wbc_screen_set_power_all(p->server, false);
	return 0;
}

int wbc_power_init(struct wbc_server *s)
{
	struct wbc_power *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	s->power = p;
	p->server = s;
	p->manager = wlr_output_power_manager_v1_create(s->display);
	p->inhibit = wlr_idle_inhibit_v1_create(s->display);
	if (!p->manager || !p->inhibit)
		return -1;
	p->set_mode.notify = handle_set_mode;
	wl_signal_add(&p->manager->events.set_mode, &p->set_mode);
	if (s->opts->blank_after_s > 0) {
		/* Armed when APP starts (server.c), as --duration counts. */
		p->blank_timer = wl_event_loop_add_timer(s->loop, handle_blank, p);
		if (!p->blank_timer)
			return -1;
	}
	return 0;
}

void wbc_power_activity(struct wbc_server *s)
{
	struct wbc_power *p = s->power;
	if (!p || !p->blank_timer)
		return;
	wl_event_source_timer_update(p->blank_timer, blank_ms(s));
	if (!p->blanked)
		return;
	p->blanked = false;
	wbc_notice("--blank-after: input: turning the display on");
	wbc_screen_set_power_all(s, true);
}

void wbc_power_finish(struct wbc_server *s)
{
	struct wbc_power *p = s->power;
	if (!p)
		return;
	if (p->set_mode.notify)
		wl_list_remove(&p->set_mode.link);
	if (p->blank_timer)
		wl_event_source_remove(p->blank_timer);
	free(p);
	s->power = NULL;
}
