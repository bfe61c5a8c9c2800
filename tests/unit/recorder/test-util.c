/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE

#include "test-util.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <drm_fourcc.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>

void tu_tracker_init(struct tu_tracker *t)
{
	*t = (struct tu_tracker){ .owner = pthread_self() };
}

static uint8_t tri(unsigned v)
{
	v %= 510;
	return (uint8_t)(v < 255 ? v : 510 - v);
}

void tu_fill_pattern(uint8_t *buf, uint32_t stride, uint32_t w, uint32_t h, unsigned i)
{
	uint32_t bx = (i * 9) % (w - 64), by = (i * 5) % (h - 48);

	for (uint32_t y = 0; y < h; y++) {
		uint8_t *p = buf + (size_t)y * stride;

		for (uint32_t x = 0; x < w; x++, p += 4) {
			bool box = x >= bx && x < bx + 64 && y >= by && y < by + 48;

			p[0] = box ? 230 : tri(x + 3 * i);
			p[1] = box ? 120 : tri(2 * y + 2 * i);
			p[2] = box ? 40 : tri(x + y + 5 * i);
			p[3] = (uint8_t)(0x5a + i); /* X: must be ignored */
		}
	}
}

uint32_t tu_stride(uint32_t w)
{
	return (w * 4 + 63) & ~63u;
}

static void tu_release(void *data, const struct wbc_recorder_frame *f)
{
	struct tu_tracker *t = data;

	t->released++;
	if (!pthread_equal(pthread_self(), t->owner))
		t->wrong_thread++;
	free(f->user);
}

struct wbc_recorder_frame tu_make_frame(struct tu_tracker *t, unsigned i, int64_t ts_ns)
{
	uint32_t stride = tu_stride(TU_W);
	uint8_t *buf = aligned_alloc(64, (size_t)stride * TU_H);

	assert_non_null(buf);
	tu_fill_pattern(buf, stride, TU_W, TU_H, i);
	return (struct wbc_recorder_frame){
		.data = buf,
		.stride = stride,
		.timestamp_ns = ts_ns,
		.release = tu_release,
		.release_data = t,
		.user = buf,
	};
}

int tu_submit(struct wbc_recorder *rec, struct tu_tracker *t, unsigned i, int64_t ts_ns)
{
	struct wbc_recorder_frame frame = tu_make_frame(t, i, ts_ns);
	int ret = wbc_recorder_submit(rec, &frame);

	if (ret != 0)
		free(frame.user);
	return ret;
}

int tu_pump(struct wbc_recorder *rec, int timeout_ms)
{
	struct pollfd pfd = { .fd = wbc_recorder_get_event_fd(rec), .events = POLLIN };
	int ret = poll(&pfd, 1, timeout_ms);

	if (ret > 0)
		wbc_recorder_dispatch(rec);
	return ret;
}

int tu_submit_wait(struct wbc_recorder *rec, struct tu_tracker *t, unsigned i,
		int64_t ts_ns, unsigned queue_length)
{
	struct wbc_recorder_stats s;
	int tries;

	for (tries = 0; tries < 2000; tries++) {
		wbc_recorder_get_stats(rec, &s);
		if (s.queue_depth < queue_length || wbc_recorder_error(rec))
			break;
		tu_pump(rec, 5);
	}
	assert_true(tries < 2000);
	return tu_submit(rec, t, i, ts_ns);
}

void tu_log(void *data, enum wbc_recorder_log_level level, const char *msg)
{
	(void)data;
	fprintf(stderr, "[%d] %s\n", (int)level, msg);
}

struct wbc_recorder_options tu_options(const char *output)
{
	return (struct wbc_recorder_options){
		.output = output,
		.width = TU_W,
		.height = TU_H,
		.format = DRM_FORMAT_XRGB8888,
		.log = tu_log,
	};
}

void tu_mkdtemp(char *buf, size_t len)
{
	const char *base = getenv("TMPDIR");

	snprintf(buf, len, "%s/wbc-recorder-test-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(buf));
}

void tu_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (getenv("WBC_TEST_KEEP")) { /* debugging: keep the outputs */
		fprintf(stderr, "keeping %s\n", dir);
		if (d)
			closedir(d);
		return;
	}
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0 && errno == EISDIR)
			tu_rmtree(path);
	}
	closedir(d);
	rmdir(dir);
}

int tu_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

int tu_count_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	}
	fclose(f);
	return n;
}

int64_t tu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * TU_NS_PER_S + ts.tv_nsec;
}

void tu_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int tu_mount_tmpfs(const char *dir, const char *options, bool read_only)
{
	/* A private mount namespace: the mount vanishes with the process. */
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	if (mount("tmpfs", dir, "tmpfs", read_only ? MS_RDONLY : 0, options) < 0)
		return -errno;
	return 0;
}

void tu_umount(const char *dir)
{
	umount2(dir, MNT_DETACH);
}

/* ---- decoding -------------------------------------------------------- */

static int receive_frames(AVCodecContext *dec, AVFrame *frame, const AVStream *st,
		tu_frame_fn fn, void *data, struct tu_media *m)
{
	int ret;

	while ((ret = avcodec_receive_frame(dec, frame)) >= 0) {
		int64_t ts = frame->best_effort_timestamp;

		if (st->start_time != AV_NOPTS_VALUE)
			ts -= st->start_time;
		if (m->frames < sizeof(m->pts_s) / sizeof(m->pts_s[0]))
			m->pts_s[m->frames] = (double)ts * av_q2d(st->time_base);
		if (fn)
			fn(data, frame, m->frames);
		m->frames++;
		av_frame_unref(frame);
	}
	return ret == AVERROR(EAGAIN) || ret == AVERROR_EOF ? 0 : ret;
}

static int decode_stream(AVFormatContext *fc, AVCodecContext *dec, const AVStream *st,
		tu_frame_fn fn, void *data, struct tu_media *m)
{
	AVPacket *pkt = av_packet_alloc();
	AVFrame *frame = av_frame_alloc();
	int ret = pkt && frame ? 0 : AVERROR(ENOMEM);

	while (ret >= 0 && av_read_frame(fc, pkt) >= 0) {
		if (pkt->stream_index == st->index)
			ret = avcodec_send_packet(dec, pkt);
		av_packet_unref(pkt);
		if (ret >= 0)
			ret = receive_frames(dec, frame, st, fn, data, m);
	}
	if (ret >= 0)
		ret = avcodec_send_packet(dec, NULL);
	if (ret >= 0)
		ret = receive_frames(dec, frame, st, fn, data, m);
	av_packet_free(&pkt);
	av_frame_free(&frame);
	return ret;
}

static int decode_opened(AVFormatContext *fc, tu_frame_fn fn, void *data, struct tu_media *m)
{
	const AVCodec *codec = NULL;
	AVCodecContext *dec;
	const AVStream *st;
	int idx, ret = avformat_find_stream_info(fc, NULL);

	if (ret < 0)
		return ret;
	*m = (struct tu_media){ .nb_streams = fc->nb_streams, .duration_s = -1,
		.stream_duration_s = -1 };
	for (unsigned i = 0; i < fc->nb_streams; i++)
		m->nb_video += fc->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO;
	idx = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
	if (idx < 0)
		return idx;
	st = fc->streams[idx];
	m->codec_id = st->codecpar->codec_id;
	m->extradata_size = st->codecpar->extradata_size;
	m->width = st->codecpar->width;
	m->height = st->codecpar->height;
	if (fc->duration != AV_NOPTS_VALUE)
		m->duration_s = (double)fc->duration / AV_TIME_BASE;
	if (st->duration != AV_NOPTS_VALUE)
		m->stream_duration_s = (double)st->duration * av_q2d(st->time_base);
	dec = avcodec_alloc_context3(codec);
	if (!dec)
		return AVERROR(ENOMEM);
	ret = avcodec_parameters_to_context(dec, st->codecpar);
	dec->thread_count = 1;
	dec->pkt_timebase = st->time_base;
	if (ret >= 0)
		ret = avcodec_open2(dec, codec, NULL);
	if (ret >= 0)
		ret = decode_stream(fc, dec, st, fn, data, m);
	avcodec_free_context(&dec);
	return ret;
}

int tu_decode_file(const char *path, const char *format, tu_frame_fn fn, void *data,
		struct tu_media *media)
{
	const AVInputFormat *ifmt = format ? av_find_input_format(format) : NULL;
	AVFormatContext *fc = NULL;
	int ret = avformat_open_input(&fc, path, ifmt, NULL);

	if (ret < 0)
		return ret;
	ret = decode_opened(fc, fn, data, media);
	avformat_close_input(&fc);
	return ret;
}

struct mem_reader {
	const uint8_t *buf;
	size_t size, pos;
};

static int mem_read(void *opaque, uint8_t *buf, int size)
{
	struct mem_reader *r = opaque;
	size_t n = r->size - r->pos;

	if (n == 0)
		return AVERROR_EOF;
	if (n > (size_t)size)
		n = (size_t)size;
	memcpy(buf, r->buf + r->pos, n);
	r->pos += n;
	return (int)n;
}

int tu_decode_buffer(const uint8_t *buf, size_t size, const char *format, tu_frame_fn fn,
		void *data, struct tu_media *media)
{
	struct mem_reader r = { buf, size, 0 };
	AVFormatContext *fc = avformat_alloc_context();
	uint8_t *iobuf = av_malloc(4096);
	AVIOContext *io = iobuf ? avio_alloc_context(iobuf, 4096, 0, &r, mem_read, NULL, NULL) : NULL;
	int ret;

	if (!fc || !io) {
		av_free(iobuf);
		avformat_free_context(fc);
		return AVERROR(ENOMEM);
	}
	fc->pb = io;
	fc->flags |= AVFMT_FLAG_CUSTOM_IO;
	ret = avformat_open_input(&fc, NULL, av_find_input_format(format), NULL);
	if (ret >= 0) {
		ret = decode_opened(fc, fn, data, media);
		avformat_close_input(&fc);
	}
	av_freep(&io->buffer);
	avio_context_free(&io);
	return ret;
}

void tu_frame_to_bgr0(const AVFrame *f, uint8_t *dst, int dst_stride)
{
	struct SwsContext *sws = sws_getContext(f->width, f->height, f->format, f->width,
		f->height, AV_PIX_FMT_BGR0,
		SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
	int cs = f->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)f->colorspace;
	uint8_t *dsts[4] = { dst, NULL, NULL, NULL };
	int strides[4] = { dst_stride, 0, 0, 0 };

	assert_non_null(sws);
	sws_setColorspaceDetails(sws, sws_getCoefficients(cs), f->color_range == AVCOL_RANGE_JPEG,
		sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
	sws_scale(sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dsts, strides);
	sws_freeContext(sws);
}
