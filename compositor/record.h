/*
 * --record: the screen into wbc's recorder (recorder/, include/wbc/recorder.h).
 *
 * A continuous consumer of the first output's capture hook (capture.h). It owns the
 * wbc_recorder, made once the output's mode is known (frame size = the mode, format = the
 * writeback format, or the displayed buffer's for readback); feeds it every captured
 * frame with the frame's vblank timestamp, lending it the capture frame (a writeback pool
 * buffer) until the recorder's release callback; watches the recorder's event fd in the
 * display's event loop. A recording that fails (disk full, receiver gone) says so in one
 * line and ends; the compositor keeps running. On exit it is stopped at the moment wbc was
 * asked to stop, so the file gets its trailer and the right duration.
 */
#ifndef WBC_RECORD_H
#define WBC_RECORD_H

struct wbc_server;
struct wlr_output;
struct wbc_capture;

/* Start recording output (the first one only; later calls do nothing). 0, or -1 with one
 * "wbc: ..." line logged (unknown codec or container, unwritable output, ...). */
int wbc_record_attach(struct wbc_server *server, struct wlr_output *output,
		struct wbc_capture *capture);
/* Stop (at server->stop_ns), print the final counters, free. Before the outputs go. */
void wbc_record_finish(struct wbc_server *server);

#endif
