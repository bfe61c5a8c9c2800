/* SPDX-License-Identifier: MIT */
/* Network outputs on loopback: mpegts over udp and tcp, a tcp receiver
 * that vanishes (no SIGPIPE death: this process does not ignore SIGPIPE),
 * a refused connection, and rtp with its SDP file. */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <libavcodec/avcodec.h>
#include <libavutil/log.h>

#include "test-util.h"
#include "wbc/recorder.h"

#define FRAME_NS (TU_NS_PER_S / 30)
#define RECV_CAP (16u << 20)
#define MAX_PACKETS 4096

struct receiver {
	int fd, port, type;
	size_t close_after;         /* tcp: reset the connection after this */
	atomic_bool stop;
	pthread_t thread;
	uint8_t *buf;
	size_t len;
	unsigned packets;
	uint8_t heads[MAX_PACKETS][16]; /* udp: first bytes of each datagram */
	bool got_eof;
};

static int bind_loopback(int type, int *port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	int size = 4 << 20;

	assert_true(fd >= 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &alen), 0);
	*port = ntohs(addr.sin_port);
	return fd;
}

/* Reads from fd until EOF, or until stopped and idle; bounded to ~10 s. */
static void receive_loop(struct receiver *r, int fd)
{
	for (int idle = 0; idle < 200;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0) {
			idle++;
			if (atomic_load(&r->stop))
				return;
			continue;
		}
		n = recv(fd, r->buf + r->len, RECV_CAP - r->len, 0);
		if (n == 0) {
			r->got_eof = true;
			return;
		}
		if (n < 0)
			return;
		if (r->type == SOCK_DGRAM && r->packets < MAX_PACKETS)
			memcpy(r->heads[r->packets], r->buf + r->len, n < 16 ? (size_t)n : 16);
		r->packets++;
		r->len += (size_t)n;
		if (r->close_after && r->len >= r->close_after)
			return;
	}
}

static void *receiver_main(void *data)
{
	struct receiver *r = data;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int conn;

	if (r->type == SOCK_DGRAM) {
		receive_loop(r, r->fd);
		return NULL;
	}
	if (poll(&pfd, 1, 5000) <= 0)
		return NULL;
	conn = accept(r->fd, NULL, NULL);
	if (conn < 0)
		return NULL;
	receive_loop(r, conn);
	if (r->close_after) {
		/* Vanish abruptly: RST instead of FIN. */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(conn, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(conn);
	return NULL;
}

static struct receiver *receiver_start(int type, size_t close_after)
{
	struct receiver *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->buf = malloc(RECV_CAP);
	assert_non_null(r->buf);
	r->type = type;
	r->close_after = close_after;
	atomic_init(&r->stop, false);
	r->fd = bind_loopback(type, &r->port);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(r->fd, 1), 0);
	assert_int_equal(pthread_create(&r->thread, NULL, receiver_main, r), 0);
	return r;
}

static void receiver_join(struct receiver *r)
{
	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
}

static void receiver_free(struct receiver *r)
{
	close(r->fd);
	free(r->buf);
	free(r);
}

static void record_frames(struct wbc_recorder_options *o, unsigned n)
{
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char err[1024];
	int ret;

	tu_tracker_init(&t);
	ret = wbc_recorder_create(o, &rec, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(ret, 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(tu_submit_wait(rec, &t, i, i * FRAME_NS, 4), 0);
	assert_int_equal(wbc_recorder_stop(rec, n * FRAME_NS), 0);
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.encoded, n);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_true(s.bytes_written > 0);
	assert_int_equal(t.released, n);
	wbc_recorder_destroy(rec);
}

static void check_mpegts(const struct receiver *r, unsigned frames)
{
	struct tu_media m;

	assert_true(r->len > 0);
	assert_int_equal(r->len % 188, 0);
	assert_int_equal(r->buf[0], 0x47); /* TS sync byte */
	assert_int_equal(tu_decode_buffer(r->buf, r->len, "mpegts", NULL, NULL, &m), 0);
	fprintf(stderr, "mpegts: %zu bytes in %u reads, %u streams, %u frames decoded\n",
		r->len, r->packets, m.nb_streams, m.frames);
	assert_int_equal(m.nb_streams, 1);
	assert_int_equal(m.nb_video, 1);
	assert_int_equal(m.codec_id, AV_CODEC_ID_H264);
	assert_int_equal(m.width, TU_W);
	assert_int_equal(m.frames, frames);
}

static void test_udp_mpegts(void **state)
{
	struct receiver *r = receiver_start(SOCK_DGRAM, 0);
	struct wbc_recorder_options o;
	char url[64];

	(void)state;
	snprintf(url, sizeof(url), "udp://127.0.0.1:%d", r->port);
	o = tu_options(url);
	record_frames(&o, 30);
	receiver_join(r);
	check_mpegts(r, 30);
	receiver_free(r);
}

static void test_tcp_mpegts(void **state)
{
	struct receiver *r = receiver_start(SOCK_STREAM, 0);
	struct wbc_recorder_options o;
	char url[64];

	(void)state;
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", r->port);
	o = tu_options(url);
	record_frames(&o, 30);
	receiver_join(r);
	assert_true(r->got_eof); /* stop() closed the connection */
	check_mpegts(r, 30);
	receiver_free(r);
}

/* The receiver resets the connection: the recording ends with an error,
 * nothing kills the process, stop() reports the error. */
static void test_tcp_receiver_vanishes(void **state)
{
	struct receiver *r = receiver_start(SOCK_STREAM, 1);
	struct wbc_recorder_options o;
	struct wbc_recorder_stats s;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char url[64], want[128];
	unsigned queued = 0, i;
	int ret = 0;

	(void)state;
	tu_tracker_init(&t);
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", r->port);
	o = tu_options(url);
	assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
	for (i = 0; i < 1000; i++) {
		ret = tu_submit_wait(rec, &t, i, i * FRAME_NS, 4);
		if (ret == -EPIPE)
			break;
		assert_int_equal(ret, 0);
		queued++;
		tu_sleep_ms(2);
	}
	assert_int_equal(ret, -EPIPE);
	receiver_join(r);
	snprintf(want, sizeof(want), "wbc-recorder: writing %s failed: ", url);
	assert_non_null(wbc_recorder_error(rec));
	fprintf(stderr, "after %u frames: %s\n", queued, wbc_recorder_error(rec));
	assert_int_equal(strncmp(wbc_recorder_error(rec), want, strlen(want)), 0);
	ret = wbc_recorder_stop(rec, i * FRAME_NS);
	assert_true(ret == -EPIPE || ret == -ECONNRESET);
	wbc_recorder_get_stats(rec, &s);
	assert_int_equal(s.submitted, s.encoded + s.dropped);
	assert_int_equal(t.released, queued);
	wbc_recorder_destroy(rec);
	receiver_free(r);
}

static void test_tcp_refused(void **state)
{
	int port, fd = bind_loopback(SOCK_STREAM, &port); /* bound, never listening */
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	char url[64], err[512], want[128];

	(void)state;
	snprintf(url, sizeof(url), "tcp://127.0.0.1:%d", port);
	o = tu_options(url);
	assert_int_equal(wbc_recorder_create(&o, &rec, err, sizeof(err)), -ECONNREFUSED);
	assert_null(rec);
	snprintf(want, sizeof(want), "wbc-recorder: cannot open %s: Connection refused", url);
	assert_string_equal(err, want);
	close(fd);
}

/* A pipe whose reader is gone: write() raises SIGPIPE, which must not
 * kill this process (SIGPIPE is not ignored here); the worker sees EPIPE. */
static void test_pipe_reader_gone(void **state)
{
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	struct tu_tracker t;
	char url[32], want[128];
	unsigned i;
	int fds[2], ret = 0;

	(void)state;
	tu_tracker_init(&t);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	snprintf(url, sizeof(url), "pipe:%d", fds[1]);
	o = tu_options(url);
	o.container = "mpegts";
	assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
	for (i = 0; i < 100; i++) {
		ret = tu_submit_wait(rec, &t, i, i * FRAME_NS, 4);
		if (ret == -EPIPE)
			break;
		assert_int_equal(ret, 0);
	}
	assert_int_equal(ret, -EPIPE);
	snprintf(want, sizeof(want), "wbc-recorder: writing %s failed: Broken pipe", url);
	assert_string_equal(wbc_recorder_error(rec), want);
	assert_int_equal(wbc_recorder_stop(rec, i * FRAME_NS), -EPIPE);
	wbc_recorder_destroy(rec);
	close(fds[1]);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = calloc(1, 8192);

	assert_non_null(f);
	assert_non_null(text);
	assert_true(fread(text, 1, 8191, f) > 0);
	fclose(f);
	return text;
}

static void check_rtp_packets(const struct receiver *r)
{
	unsigned n = r->packets < MAX_PACKETS ? r->packets : MAX_PACKETS;

	assert_true(n > 0);
	for (unsigned i = 0; i < n; i++) {
		unsigned nal = r->heads[i][12] & 0x1f;

		assert_int_equal(r->heads[i][0] >> 6, 2);   /* RTP version */
		assert_int_equal(r->heads[i][1] & 0x7f, 96); /* dynamic PT */
		assert_true((nal >= 1 && nal <= 23) || nal == 24 || nal == 28);
	}
}

static void test_rtp_sdp(void **state)
{
	struct receiver *r = receiver_start(SOCK_DGRAM, 0);
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	char dir[256], url[64], sdp[300], want[64], *text;

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	snprintf(url, sizeof(url), "rtp://127.0.0.1:%d", r->port);
	snprintf(sdp, sizeof(sdp), "%s/stream.sdp", dir);
	o = tu_options(url);
	o.sdp_path = sdp;
	assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
	assert_string_equal(wbc_recorder_container_name(rec), "rtp");
	assert_string_equal(wbc_recorder_sdp_path(rec), sdp);
	wbc_recorder_destroy(rec);
	text = read_text(sdp);
	snprintf(want, sizeof(want), "m=video %d RTP/AVP 96", r->port);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "c=IN IP4 127.0.0.1"));
	assert_non_null(strstr(text, "a=rtpmap:96 H264/90000"));
	free(text);

	/* And the packets themselves. */
	record_frames(&o, 10);
	receiver_join(r);
	fprintf(stderr, "rtp: %u packets, %zu bytes\n", r->packets, r->len);
	check_rtp_packets(r);
	receiver_free(r);
	tu_rmtree(dir);
}

static void test_rtp_default_sdp_path(void **state)
{
	struct receiver *r = receiver_start(SOCK_DGRAM, 0);
	struct wbc_recorder_options o;
	struct wbc_recorder *rec;
	char dir[256], cwd[4096], url[64], want[128];

	(void)state;
	tu_mkdtemp(dir, sizeof(dir));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	snprintf(url, sizeof(url), "rtp://127.0.0.1:%d", r->port);
	snprintf(want, sizeof(want), "rtp___127.0.0.1_%d.sdp", r->port);
	o = tu_options(url);
	assert_int_equal(wbc_recorder_create(&o, &rec, NULL, 0), 0);
	assert_string_equal(wbc_recorder_sdp_path(rec), want);
	assert_int_equal(access(want, R_OK), 0);
	wbc_recorder_destroy(rec);
	assert_int_equal(chdir(cwd), 0);
	receiver_join(r);
	receiver_free(r);
	tu_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_mpegts),
		cmocka_unit_test(test_tcp_mpegts),
		cmocka_unit_test(test_tcp_receiver_vanishes),
		cmocka_unit_test(test_tcp_refused),
		cmocka_unit_test(test_pipe_reader_gone),
		cmocka_unit_test(test_rtp_sdp),
		cmocka_unit_test(test_rtp_default_sdp_path),
	};

	av_log_set_level(AV_LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
