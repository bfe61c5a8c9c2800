/* SPDX-License-Identifier: MIT */
/*
 * wbc recorder: turns CPU-mapped frames (e.g. from DRM writeback connectors)
 * into a video file or network stream with FFmpeg's libraries.
 *
 * The recorder knows nothing about KMS. A frame is a pointer to packed RGB
 * pixels in memory, a stride, a timestamp and a release callback; the pixel
 * format (a DRM fourcc from <drm_fourcc.h>) and the size are fixed for the
 * whole recording.
 *
 * Threads
 * -------
 * A recorder has one internal worker thread that converts, encodes and
 * writes. All wbc_recorder_* functions except wbc_recorder_get_stats(),
 * wbc_recorder_error() and the name getters must be called from one thread,
 * the "owner thread" (normally the compositor's event loop thread).
 * wbc_recorder_submit() never waits for the worker: it takes an internal
 * mutex that is only ever held for O(1) list operations, never across
 * encoding or I/O.
 *
 * Frame ownership
 * ---------------
 * When wbc_recorder_submit() returns 0 the recorder borrows the frame's
 * memory; the caller must keep it mapped and unmodified until the frame's
 * release callback runs. Release callbacks run only on the owner thread,
 * inside wbc_recorder_dispatch() (and inside wbc_recorder_stop() /
 * wbc_recorder_destroy(), which dispatch whatever is still pending). The
 * worker reads the memory directly: it is either converted by libyuv or
 * libswscale (release is queued right after the conversion) or, when the encoder accepts
 * the frame's pixel format, wrapped without copying as the encoder's input
 * (release is queued when the encoder drops its last reference; some
 * encoders, e.g. ffv1, keep the previous picture until the next frame or
 * stop(), so one frame stays borrowed while the screen is idle). If the
 * memory is a dma-buf mapping, CPU-access synchronisation (DMA_BUF_IOCTL_SYNC)
 * is the caller's business and must cover the whole borrow.
 *
 * Accounting
 * ----------
 * Every call to wbc_recorder_submit() with a valid frame (i.e. not -EINVAL)
 * increments stats.submitted and, eventually, exactly one of stats.encoded
 * or stats.dropped. After wbc_recorder_stop() has returned:
 *
 *     submitted == encoded + dropped
 *
 * and at any moment before that:
 *
 *     submitted == encoded + dropped + queue_depth + encoding
 *
 * Signals
 * -------
 * FFmpeg's tcp/unix protocols send with MSG_NOSIGNAL, but other outputs
 * (pipes, FIFOs, some protocols) can raise SIGPIPE when the reader goes away.
 * The worker thread runs with all signals blocked, so such a SIGPIPE stays
 * pending on the worker and the write fails with EPIPE, which ends the
 * recording with an error. Writes done by wbc_recorder_create() itself (the
 * container header) happen on the calling thread: the caller should ignore
 * SIGPIPE process-wide (the wbc compositor does: signal(SIGPIPE, SIG_IGN)).
 *
 * Being killed
 * ------------
 * A process killed without wbc_recorder_stop() (SIGKILL, power loss) writes
 * no trailer. Matroska/WebM files are written so that such a file keeps all
 * frames but those of its last cluster (clusters of at most 1 s, each written
 * out and flushed when the next one starts): it lacks index and duration but
 * reads and decodes to its end. MP4 keeps nothing readable (the moov atom is
 * the trailer); MPEG-TS keeps every packet written (flushed per packet on
 * live outputs, else up to the 32 KiB AVIO buffer is lost).
 *
 * FFmpeg logging
 * --------------
 * The recorder does not touch FFmpeg's process-global log callback or level
 * (av_log_set_callback/av_log_set_level); FFmpeg's own messages go wherever
 * the application configured them (stderr by default).
 */
#ifndef WBC_RECORDER_H
#define WBC_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct wbc_recorder;

enum wbc_recorder_log_level {
	WBC_RECORDER_LOG_ERROR = 0,
	WBC_RECORDER_LOG_WARNING = 1,
	WBC_RECORDER_LOG_INFO = 2,
	WBC_RECORDER_LOG_DEBUG = 3,
};

/*
 * Log callback. msg is a complete line without trailing newline, prefixed
 * with "wbc-recorder: ", valid only during the call. It is called from the
 * owner thread (create, stop) and from the worker thread, so it must be
 * thread-safe. Messages: the chosen encoder/pixel format/container (INFO,
 * at create), the error that ended a recording (ERROR), a summary of the
 * counters (INFO, at stop), default-encoder candidates that failed (DEBUG).
 */
typedef void (*wbc_recorder_log_fn)(void *data, enum wbc_recorder_log_level level,
		const char *msg);

/*
 * Recording options. Only read during wbc_recorder_create(); none of the
 * pointers are kept afterwards (strings and arrays are copied or consumed).
 */
struct wbc_recorder_options {
	/* Required. A file path, or a URL: udp://HOST:PORT and
	 * tcp://HOST:PORT (MPEG-TS; tcp connects as a client to a listener),
	 * rtp://HOST:PORT (RTP, see sdp_path). Any other FFmpeg protocol URL
	 * works as well if the container is given or guessable. */
	const char *output;
	/* Encoder name ("libx264", "ffv1", ...) or codec name ("h264", "vp8").
	 * NULL: libx264 (preset=ultrafast, tune=zerolatency) if it works, else
	 * another H.264 encoder that opens, else libvpx (VP8), else mpeg4. */
	const char *codec;
	/* Muxer name ("matroska", "mp4", "mpegts", "rtp") or a file extension
	 * ("mkv", "ts"). NULL: guessed from output's extension; mpegts for
	 * udp:// and tcp://, rtp for rtp://. */
	const char *container;
	/* "KEY=VALUE" AVOptions for the encoder (generic AVCodecContext options
	 * such as "g=120", "pixel_format=yuv444p", or the encoder's private
	 * ones such as "crf=18", "preset=veryfast"). They override the
	 * defaults. An option the encoder does not know fails create(). */
	const char *const *codec_opts;
	size_t n_codec_opts;
	/* "KEY=VALUE" AVOptions for the output protocol and muxer
	 * (e.g. "movflags=+frag_keyframe", "pkt_size=1316"). */
	const char *const *container_opts;
	size_t n_container_opts;
	/* rtp only: where to write the SDP description. NULL: the output URL
	 * with every character outside [A-Za-z0-9.-] replaced by '_' and
	 * ".sdp" appended, in the current directory (rtp://127.0.0.1:5004 ->
	 * "rtp___127.0.0.1_5004.sdp"); see wbc_recorder_sdp_path(). */
	const char *sdp_path;
	/* Frame size in pixels and DRM fourcc (DRM_FORMAT_XRGB8888, ...),
	 * fixed for the recording; see wbc_recorder_format_supported(). */
	uint32_t width, height, format;
	/* Degrees (0, 90, 180, 270) a player is to turn each frame clockwise
	 * to show it upright: written as the stream's display matrix
	 * (ffprobe shows it as "rotation" side data, of the opposite sign).
	 * Frames are encoded as given. Only the MP4/MOV muxers store it;
	 * with another container create() logs a warning and the file shows
	 * the frames unturned. Any other value fails create(). */
	int rotation;
	/* Maximum number of frames waiting for the worker; a submit beyond
	 * that is dropped (-EAGAIN). 0: 4. This does not count the frame
	 * being encoded, frames the encoder still references, or releases
	 * not yet dispatched. */
	unsigned queue_length;
	/* How long wbc_recorder_stop() lets blocking I/O (a stalled tcp
	 * receiver) continue before aborting it, in ms. 0: 5000. Only for
	 * outputs written as "scheme://..." other than file:; plain paths and
	 * pipe: are never aborted. */
	unsigned stop_timeout_ms;
	/* Optional log callback, see wbc_recorder_log_fn. */
	wbc_recorder_log_fn log;
	void *log_data;
	/* Nice value for the threads create() starts (the worker and the
	 * encoder's own), e.g. 10 so that on a busy machine the encoder drops
	 * frames (counted) rather than slowing its caller down; raising one's
	 * own threads' nice value needs no privilege. 0: unchanged. Linux:
	 * the threads are the ones /proc/self/task gains during create(), so
	 * a thread the caller starts meanwhile is reniced as well. */
	int thread_nice;
	/* Test hook, keep 0: the worker sleeps this long before each frame. */
	unsigned test_worker_delay_ms;
};

struct wbc_recorder_frame {
	/* First byte of the top row; borrowed until release (see above). */
	const void *data;
	/* Bytes per row; at least width * bytes per pixel. */
	uint32_t stride;
	/* Presentation time, CLOCK_MONOTONIC, in ns. Timestamps are taken
	 * relative to the first frame's (variable frame rate). A timestamp
	 * that is not later than the previous frame's once rounded to the
	 * container's time base (1 ms for mkv) is moved one tick after it. */
	int64_t timestamp_ns;
	/* Called once on the owner thread when the recorder no longer needs
	 * data; f points to the recorder's copy of this struct (same field
	 * values) and is valid only during the call. May be NULL. The
	 * callback may call wbc_recorder_submit()/get_stats(), but not
	 * stop()/destroy(). */
	void (*release)(void *release_data, const struct wbc_recorder_frame *f);
	void *release_data;
	/* Caller's token, untouched by the recorder. */
	void *user;
	/* When the pixels at data became complete, CLOCK_MONOTONIC ns (e.g. the
	 * writeback out-fence's signal time); 0: unknown. Only for the latency
	 * figures in wbc_recorder_stats. */
	int64_t ready_ns;
};

/*
 * Creates a recorder: selects and opens the encoder, opens the output (file
 * created/truncated, network connection made) and writes the container
 * header, then starts the worker thread. This may block on network I/O.
 *
 * Returns 0 and sets *out, or a negative errno and leaves *out NULL after
 * writing a NUL-terminated message (prefixed "wbc-recorder: ") into err
 * (err may be NULL / err_len 0). Nothing is leaked on failure (no memory,
 * fd or thread); but a file output that was already created when a later
 * step failed (e.g. an unknown container option, which can only be
 * checked once the output is open) is left on disk.
 *
 * Privacy: a file output (a path or file: URL) is created with mode 0600
 * whatever the umask, and an existing regular file is set to 0600 before
 * it is truncated (whoever had it open already keeps that descriptor). A
 * file that cannot be made 0600 (not ours to chmod, a file system without
 * modes) is refused: -EPERM, "cannot make PATH private ...".
 *   -EINVAL   bad options, unknown codec or container (the message lists
 *             the available video encoders resp. muxers), unknown or
 *             invalid codec/container option, unsupported pixel format
 *   -ENOENT, -EACCES, -EISDIR, -EROFS, -ECONNREFUSED, ...
 *             opening the output failed (the message names the output and
 *             the system error)
 *   -EPERM    a file output that would stay readable by others (above)
 *   -ENOMEM, -EIO, ...  other failures
 */
int wbc_recorder_create(const struct wbc_recorder_options *options,
		struct wbc_recorder **out, char *err, size_t err_len);

/*
 * Checks, before the frames are known or the output opened, what create() would refuse
 * of these options without them: the container (named, or implied by the output's name),
 * the codec if one is named, that the container takes it, and then the codec options.
 * width, height, format and rotation are not looked at, nor the output's path, nor the
 * container options (they need the output open), nor the codec options when no codec is
 * named (which default encoder opens is known only when one does). 0, or what create()
 * would return, with the same message in err. Any thread; no recorder needed.
 */
int wbc_recorder_check(const struct wbc_recorder_options *options, char *err, size_t err_len);

/*
 * Offers a frame; never waits for the worker. The frame struct is copied.
 *   0        queued: the recorder borrows frame->data until release.
 *   -EAGAIN  queue full: frame dropped and counted; the caller keeps
 *            ownership and no release callback will run.
 *   -ENOMEM  like -EAGAIN (counted as dropped), for lack of memory.
 *   -EPIPE   the recording has ended (error, or stop() was called): counted
 *            as dropped, caller keeps ownership, no release callback.
 *   -EINVAL  NULL data or stride too small: not counted, caller keeps it.
 * Owner thread only.
 */
int wbc_recorder_submit(struct wbc_recorder *rec, const struct wbc_recorder_frame *frame);

/*
 * An eventfd owned by the recorder (do not close it), valid until
 * wbc_recorder_destroy(). It becomes readable when release callbacks are
 * pending or when the recording ended with an error; then call
 * wbc_recorder_dispatch(), which also resets it. After dispatch, check
 * wbc_recorder_error() to learn whether the recording ended.
 */
int wbc_recorder_get_event_fd(struct wbc_recorder *rec);

/* Runs pending release callbacks on the calling (owner) thread. */
void wbc_recorder_dispatch(struct wbc_recorder *rec);

/*
 * Gives back every frame lent, without ending the recording (the source of the frames is
 * going away for a while, e.g. a display unplugged): waits up to timeout_ms until the
 * worker has encoded the queue and the encoder holds no frame, then runs the release
 * callbacks on the calling thread. The recording goes on with the next frame submitted
 * (whose timestamp shows the gap). -ETIMEDOUT when frames are still held then: encoders
 * fed the frame memory directly (no pixel conversion, e.g. ffv1 in bgr0) may keep the last
 * frames until more come or the recording stops; the caller then has to stop.
 * Owner thread only.
 */
int wbc_recorder_drain(struct wbc_recorder *rec, int timeout_ms);

/*
 * Ends the recording: the worker encodes the frames still queued, flushes
 * the encoder, makes the last frame last until stop_timestamp_ns (for
 * containers storing durations, when writing to seekable files; a value not
 * later than the last frame's timestamp adds nothing; for live outputs the
 * last frame is not extended), writes the trailer
 * and closes the output; then the thread is joined and all pending release
 * callbacks are run on the calling thread. If the recording had already
 * ended with an error, only the join and the releases remain.
 *
 * Returns 0, or the negative errno of the error that ended the recording
 * (see wbc_recorder_error() for the message), including errors writing the
 * trailer. Calling it again returns the same value. Note: a recording that
 * never got a frame yields a file FFmpeg 5.1 itself cannot read back
 * (header only). The recorder stays
 * valid for get_stats()/error()/names until destroy(). Owner thread only.
 */
int wbc_recorder_stop(struct wbc_recorder *rec, int64_t stop_timestamp_ns);

/*
 * Frees the recorder. If wbc_recorder_stop() was not called, behaves as
 * wbc_recorder_stop(rec, INT64_MIN) first (no extension of the last frame).
 * NULL is allowed. Owner thread only.
 */
void wbc_recorder_destroy(struct wbc_recorder *rec);

/*
 * Message of the error that ended the recording, e.g. "wbc-recorder:
 * writing /x/y.mkv failed: No space left on device", or NULL while there
 * is none. The string lives as long as the recorder. Any thread.
 */
const char *wbc_recorder_error(const struct wbc_recorder *rec);

struct wbc_recorder_stats {
	uint64_t submitted;          /* submit() calls with a valid frame */
	uint64_t encoded;            /* frames accepted by the encoder */
	uint64_t dropped;            /* dropped_queue_full + dropped_ended */
	uint64_t dropped_queue_full; /* -EAGAIN and -ENOMEM returns */
	uint64_t dropped_ended;      /* -EPIPE returns, plus queued frames
	                                discarded when the recording failed */
	uint64_t bytes_written;      /* bytes the output accepted so far,
	                                after FFmpeg's I/O buffering (up to
	                                256 KiB for files) */
	unsigned queue_depth;        /* frames waiting for the worker now */
	unsigned encoding;           /* 1 while the worker holds a frame
	                                taken from the queue, else 0 */
	unsigned releases_pending;   /* release callbacks awaiting dispatch */
	double encode_ms_mean;       /* per frame: convert + encode + write */
	double encode_ms_max;
	/* Latency from a frame's timestamp (for writeback: the vblank it was shown
	 * at) to when its pixels were complete (frame.ready_ns; frames queued with
	 * a ready_ns only) and to when its packet was handed to the muxer (which
	 * may buffer it before the output sees it; files hold each packet until
	 * the next one arrives, to give it a duration). Median and 99th
	 * percentile in ms, within 3.2 % (log-spaced bins); 0 with no frame. */
	uint64_t latency_ready_frames, latency_written_frames;
	double ready_ms_p50, ready_ms_p99;
	double written_ms_p50, written_ms_p99;
};

/* Consistent snapshot of the counters. Any thread. */
void wbc_recorder_get_stats(struct wbc_recorder *rec, struct wbc_recorder_stats *stats);

/* Chosen encoder ("libx264"), muxer ("matroska") and the pixel format
 * given to the encoder ("yuv420p"); strings live as long as rec. */
const char *wbc_recorder_codec_name(const struct wbc_recorder *rec);
const char *wbc_recorder_container_name(const struct wbc_recorder *rec);
const char *wbc_recorder_encoder_pixel_format(const struct wbc_recorder *rec);
/* Path of the SDP file written for rtp output, or NULL. */
const char *wbc_recorder_sdp_path(const struct wbc_recorder *rec);

/* Whether frames of this DRM fourcc can be recorded (1) or not (0). */
int wbc_recorder_format_supported(uint32_t drm_format);

/* Whether the muxer of this short name (as wbc_recorder_container_name()
 * gives it; not an extension) writes no timestamps, like the raw "h264" or
 * "rawvideo": a receiver then plays frames at the rate they come. false
 * if unknown. */
bool wbc_recorder_container_untimed(const char *container);
/* The FFmpeg protocol that would open output ("file" for a plain path or
 * file: URL, "udp", "pipe", ...), or NULL if none would. */
const char *wbc_recorder_protocol_name(const char *output);

/*
 * Where FFmpeg's own messages go, process-wide (FFmpeg has one logger):
 * fn gets each as a line without trailing newline and without the
 * "wbc-recorder: " prefix, at WBC_RECORDER_LOG_DEBUG, from any thread;
 * FFmpeg's verbose messages are included. NULL (the default is FFmpeg's
 * own stderr logger): silence them. Call it while no recorder exists;
 * fn and data must stay valid until the next call.
 */
void wbc_recorder_set_library_log(wbc_recorder_log_fn fn, void *data);

/*
 * Write a ", "-separated list of the available video encoders resp. muxers
 * into buf (always NUL-terminated if len > 0, truncated if needed). Return
 * the length the full list has (like snprintf), so a return >= len means
 * truncation.
 */
int wbc_recorder_list_encoders(char *buf, size_t len);
int wbc_recorder_list_containers(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* WBC_RECORDER_H */
