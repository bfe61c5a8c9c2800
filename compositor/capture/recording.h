/*
 * Recordings: the screen into wbc's recorder (recorder/, include/wbc/recorder.h).
 *
 * At most one recording at a time, owned by the server (server->recording): started from
 * --record when the first output comes up (screen.c), or at runtime by the control
 * protocol (control.c), and stopped by the control protocol or when wbc stops.
 *
 * A recording is a continuous consumer of an output's capture hook (capture.h). It owns
 * the wbc_recorder, made for the output's mode (frame size = the mode, format = the
 * writeback format, or the displayed buffer's for readback); feeds it every captured frame
 * with the frame's vblank timestamp, lending it the capture frame (a writeback pool buffer)
 * until the recorder's release callback; watches the recorder's event fd in the display's
 * event loop. A recording that fails (disk full, receiver gone) says so in one line and
 * ends (state failed until it is stopped or replaced); the compositor keeps running.
 * When its output goes away (unplugged, turned off) the recording pauses: the encoder gives
 * the frames back, nothing is captured, the file stays open; an output of the same name
 * coming back resumes it (wbc_recording_resume), the next frame's real timestamp making
 * the gap, during which the file shows the last frame before it.
 * The frames are the panel's picture: on a turned output (--rotate) the file says by how
 * much a player turns them (display matrix, mp4/mov), and a change of the output's size or
 * rotation while recording ends the recording (wbc_recording_output_changed).
 * Stopping writes the trailer with the right duration (up to the moment of the stop).
 */
#ifndef WBC_RECORDING_H
#define WBC_RECORDING_H

#include <stddef.h>
#include <stdint.h>

struct wbc_server;
struct wlr_output;
struct wbc_capture;

/* What to record. Only read during wbc_recording_start (the recorder copies what it keeps). */
struct wbc_recording_params {
	const char *target;              /* PATH or URL */
	const char *codec, *container;   /* NULL: the recorder's defaults */
	const char *const *codec_opts;   /* "KEY=VALUE" */
	size_t n_codec_opts;
	const char *const *container_opts;
	size_t n_container_opts;
	double fps;                      /* cap; 0: every frame shown */
	const char *frame_checksums;     /* --debug-frame-checksums FILE, or NULL */
};

enum wbc_recording_state {
	WBC_RECORDING_IDLE,                 /* no recording */
	WBC_RECORDING_RECORDING,
	WBC_RECORDING_FAILED,               /* ended by itself with an error, not stopped yet */
	WBC_RECORDING_STOPPED,              /* wbc_recording_stop's summary */
};

/* A copy of a recording's state (strings empty when idle). */
struct wbc_recording_status {
	enum wbc_recording_state state;
	char target[4096], output[64], codec[64], container[64];
	char error[1024];                /* what ended it early, or "" */
	uint64_t captured, encoded, dropped, bytes;
	unsigned queue_depth;
};

/* Why wbc_recording_start refused (besides the message). */
enum wbc_recording_error {
	WBC_RECORDING_ERR_BUSY = 1,         /* already recording */
	WBC_RECORDING_ERR_INVALID,          /* bad codec/container/option/fps */
	WBC_RECORDING_ERR_OUTPUT,           /* the target cannot be opened or written */
	WBC_RECORDING_ERR_CAPTURE,          /* --capture writeback and the output cannot */
	WBC_RECORDING_ERR_INTERNAL,
};

/* What wbc_recording_start would refuse of params before there is an output: the recorder
 * loaded (recorder-loader.h), then wbc_recorder_check's names and options. 0, or a
 * wbc_recording_error with one line in err, as wbc_recording_start says it. */
int wbc_recording_check(const struct wbc_recording_params *params, char *err, size_t err_len);

/* Start recording output through its capture. A recording that failed earlier is
 * replaced (its final line printed). 0, or a wbc_recording_error with one line (without
 * "wbc: ") in err. Says how it captures and what it records in "wbc: " lines. */
int wbc_recording_start(struct wbc_server *server, struct wlr_output *output,
		struct wbc_capture *capture, const struct wbc_recording_params *params,
		char *err, size_t err_len);
/* An output came (back): a recording paused because the output of that name went away
 * goes on with it (its frames must have the recording's size and format, else it ends with
 * one line). Nothing otherwise. */
void wbc_recording_resume(struct wbc_server *server, struct wlr_output *output,
		struct wbc_capture *capture);
/* output's mode or transform was changed while wbc runs (wlr-output-management): a
 * recording of it whose frame size or rotation that changes ends now, the file complete
 * (the "wbc: rec final" line printed), said in one line; a new scale changes nothing
 * (the frames are the panel's pixels). Nothing for other outputs. */
void wbc_recording_output_changed(struct wbc_server *server, struct wlr_output *output);
/* Stop now, print the "wbc: rec final ..." line, fill *summary (may be NULL) and free.
 * -1 when there is no recording. */
int wbc_recording_stop(struct wbc_server *server, struct wbc_recording_status *summary);
void wbc_recording_get_status(struct wbc_server *server, struct wbc_recording_status *status);
/* At exit (before the outputs go): stop at server->stop_ns, the moment wbc was told to. */
void wbc_recording_finish(struct wbc_server *server);

#endif
