/*
 * The adapter's flip events: what the KMS pipe reports about each state it was given.
 *
 *   DONE        -> wlr_output_send_present (kernel time and sequence) + frame event
 *   SUPERSEDED  -> present(presented = false); the newer commit brings the frame
 *   FAILED      -> present(presented = false), damage, frame one refresh later
 * and writeback frames, which go to the output's capture listener (which releases them),
 * the shown images kept locked from the flip until then,
 * or reports of lost ones (their out-fence timed out in the KMS backend).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <wlr/types/wlr_buffer.h>
#include "adapter-private.h"
#include "util/log.h"

static void send_frame_idle(void *data)
{
	struct wbc_output *out = data;
	out->frame_idle = NULL;
	wlr_output_send_frame(&out->base);
}

/* A frame event, deferred when we are inside a call into the pipe (the compositor's
 * frame handler commits, which must not re-enter the pipe). */
static void schedule_frame(struct wbc_output *out)
{
	if (!out->in_call) {
		wlr_output_send_frame(&out->base);
		return;
	}
	if (!out->frame_idle)
		out->frame_idle = wl_event_loop_add_idle(
			wl_display_get_event_loop(out->base.display), send_frame_idle, out);
}

int wbc_output_retry_frame(void *data)
{
	struct wbc_output *out = data;
	wlr_output_send_frame(&out->base);
	return 0;
}

static void capture_idle(void *data)
{
	struct wbc_output *out = data;
	out->capture_idle = NULL;
	wbc_output_capture_kick(&out->base);
}

static void schedule_capture_kick(struct wbc_output *out)
{
	if (!out->capture_idle && out->has_capture && out->capture.want_repeat(out->capture.data))
		out->capture_idle = wl_event_loop_add_idle(
			wl_display_get_event_loop(out->base.display), capture_idle, out);
}

void wbc_commit_free(struct wbc_commit *c)
{
	wl_list_remove(&c->link);
	wlr_buffer_unlock(c->buffer);
	wlr_buffer_unlock(c->cursor);
	free(c);
}

static void send_present(struct wbc_output *out, const struct wbc_commit *c,
		const struct wbc_kms_flip_event *ev)
{
	if (c->internal || out->destroying)
		return;
	struct timespec when = {
		.tv_sec = (time_t)(ev->timestamp_ns / 1000000000u),
		.tv_nsec = (long)(ev->timestamp_ns % 1000000000u),
	};
	bool shown = ev->status == WBC_KMS_FLIP_DONE;
	struct wlr_output_event_present present = {
		.commit_seq = c->commit_seq,
		.presented = shown,
		.when = shown ? &when : NULL,
		.seq = (unsigned)ev->sequence,
		.refresh = out->pipe ? (int)wbc_kms_pipe_refresh_ns(out->pipe) : 0,
		/* A time the backend estimated (the kernel's was stale) is not the hardware's. */
		.flags = shown ? WLR_OUTPUT_PRESENT_VSYNC | WLR_OUTPUT_PRESENT_HW_COMPLETION |
			(ev->timestamp_estimated ? 0 : WLR_OUTPUT_PRESENT_HW_CLOCK) : 0,
	};
	wlr_output_send_present(&out->base, &present);
}

/* The shown images stay locked while the engine writes their capture. */
static void hold_capturing(struct wbc_output *out)
{
	if (out->n_capturing == WBC_OUTPUT_MAX_WB_BUFFERS)
		return;                      /* more jobs than any pool: cannot happen */
	struct wlr_buffer **slot = out->capturing[out->n_capturing++];
	slot[0] = out->front ? wlr_buffer_lock(out->front) : NULL;
	slot[1] = out->cursor_front ? wlr_buffer_lock(out->cursor_front) : NULL;
}

void wbc_output_handle_flip(void *data, struct wbc_kms_pipe *pipe, const struct wbc_kms_flip_event *ev)
{
	struct wbc_commit *c = ev->user_data;
	struct wbc_output *out = c->output;
	send_present(out, c, ev);
	if (c->capture && !(ev->status == WBC_KMS_FLIP_DONE && ev->captured) && out->has_capture)
		out->capture.missed(out->capture.data);
	switch (ev->status) {
	case WBC_KMS_FLIP_DONE:
		out->stats.flips++;
		/* The new buffer is on screen: the old one may be reused. */
		wlr_buffer_unlock(out->front);
		out->front = c->buffer;
		c->buffer = NULL;
		wlr_buffer_unlock(out->cursor_front);
		out->cursor_front = c->cursor;
		c->cursor = NULL;
		bool internal = c->internal;
		wbc_commit_free(c);
		if (ev->captured)
			hold_capturing(out);
		if (out->destroying)
			return;
		if (out->has_capture)
			out->capture.flipped(out->capture.data, out->front, ev, internal);
		/* The next queued commit, if any, brings the next frame event. */
		if (wl_list_empty(&out->commits))
			schedule_frame(out);
		schedule_capture_kick(out);
		return;
	case WBC_KMS_FLIP_SUPERSEDED:
		out->stats.superseded++;
		wbc_commit_free(c);
		if (!out->destroying)
			schedule_capture_kick(out);
		return;
	case WBC_KMS_FLIP_FAILED:
		out->stats.failed++;
		wbc_commit_free(c);
		if (out->destroying)
			return;
		wbc_log(WLR_ERROR, "%s: a queued commit failed: %s", out->base.name,
			wbc_kms_device_error(out->backend->dev));
		/* What is on screen is not what wlroots thinks: repaint, at a calm pace. */
		wlr_output_damage_whole(&out->base);
		uint64_t ns = wbc_kms_pipe_refresh_ns(pipe);
		wl_event_source_timer_update(out->retry_timer, ns ? (int)(ns / 1000000) + 1 : 17);
		schedule_capture_kick(out);
		return;
	}
}

void wbc_output_handle_wb_frame(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_wb_frame *frame)
{
	struct wbc_output *out = data;
	wbc_output_release_capturing(out, false);
	if (out->has_capture && !out->destroying) {
		out->stats.captures++;
		out->capture.frame(out->capture.data, pipe, frame);  /* releases it */
		schedule_capture_kick(out);      /* the engine is free again */
		return;
	}
	wbc_kms_pipe_release_frame(pipe, frame->buffer);
}

void wbc_output_handle_wb_lost(void *data, struct wbc_kms_pipe *pipe,
		const struct wbc_kms_wb_lost *lost)
{
	struct wbc_output *out = data;
	wbc_output_release_capturing(out, false);
	out->stats.captures_lost++;
	if (out->has_capture && !out->destroying) {
		out->capture.lost(out->capture.data, lost->reason);
		schedule_capture_kick(out);
	}
}
