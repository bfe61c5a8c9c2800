/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include "bench-util.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- arguments ------------------------------------------------------- */

static void usage_exit(const char *prog, const char *usage, const char *why)
{
	fprintf(stderr, "%s: %s\nusage: %s %s\n", prog, why, prog, usage);
	exit(2);
}

static unsigned parse_uint(const char *prog, const char *usage, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 1000000000ul)
		usage_exit(prog, usage, "bad number");
	return (unsigned)v;
}

void bench_parse_args(int argc, char **argv, struct bench_args *a, const char *usage)
{
	const char *prog = argv[0];

	*a = (struct bench_args){ .count = 600, .threads = 2, .label = "" };
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--no-mux")) {
			a->no_mux = 1;
			continue;
		}
		if (!strcmp(k, "--gate")) {
			a->gate = 1;
			continue;
		}
		if (!v)
			usage_exit(prog, usage, "missing value");
		i++;
		if (!strcmp(k, "--frames")) {
			a->frames_path = v;
		} else if (!strcmp(k, "--output")) {
			a->output = v;
		} else if (!strcmp(k, "--size")) {
			unsigned w, h;
			char c;

			if (sscanf(v, "%ux%u%c", &w, &h, &c) != 2 || !w || !h ||
					w > 16384 || h > 16384)
				usage_exit(prog, usage, "bad --size");
			a->width = w;
			a->height = h;
		} else if (!strcmp(k, "--count")) {
			a->count = parse_uint(prog, usage, v);
		} else if (!strcmp(k, "--threads")) {
			a->threads = parse_uint(prog, usage, v);
		} else if (!strcmp(k, "--queue-length")) {
			a->queue_length = parse_uint(prog, usage, v);
		} else if (!strcmp(k, "--label")) {
			a->label = v;
		} else {
			usage_exit(prog, usage, "unknown option");
		}
	}
	if (!a->frames_path || !a->width || !a->count)
		usage_exit(prog, usage, "--frames, --size and --count are required");
}

/* ---- frame pool ------------------------------------------------------ */

int bench_pool_load(struct bench_pool *pool, const char *path, uint32_t width,
		uint32_t height)
{
	size_t frame_size = (size_t)width * height * BENCH_BPP;
	size_t total, done = 0;
	struct stat st;
	void *mem;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*pool = (struct bench_pool){ 0 };
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
			(size_t)st.st_size % frame_size != 0) {
		close(fd);
		return -EINVAL;
	}
	total = (size_t)st.st_size;
	/* Page-aligned like a mapped dma-buf. */
	if (posix_memalign(&mem, 4096, total) != 0) {
		close(fd);
		return -ENOMEM;
	}
	while (done < total) {
		ssize_t n = read(fd, (uint8_t *)mem + done, total - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(mem);
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		done += (size_t)n;
	}
	close(fd);
	pool->data = mem;
	pool->frame_size = frame_size;
	pool->n = (unsigned)(total / frame_size);
	return 0;
}

const uint8_t *bench_pool_frame(const struct bench_pool *pool, unsigned i)
{
	return pool->data + (size_t)(i % pool->n) * pool->frame_size;
}

void bench_pool_free(struct bench_pool *pool)
{
	free(pool->data);
	*pool = (struct bench_pool){ 0 };
}

int64_t bench_frame_ns(int64_t base, unsigned i)
{
	return base + (int64_t)i * 1000000000 / BENCH_FPS;
}

static void sched_read(struct bench_sched *s);

/* ---- measurement ----------------------------------------------------- */

int64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void bench_meter_start(struct bench_meter *m)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*m = (struct bench_meter){ 0 };
	m->user0 = tv_s(ru.ru_utime);
	m->sys0 = tv_s(ru.ru_stime);
	m->maxrss_before_kb = ru.ru_maxrss;
	m->nvcsw = -ru.ru_nvcsw;
	m->nivcsw = -ru.ru_nivcsw;
	sched_read(&m->s0);
	m->t0 = bench_now_ns();
}

void bench_meter_stop(struct bench_meter *m)
{
	struct rusage ru;

	m->t1 = bench_now_ns();
	getrusage(RUSAGE_SELF, &ru);
	m->user1 = tv_s(ru.ru_utime);
	m->sys1 = tv_s(ru.ru_stime);
	m->maxrss_kb = ru.ru_maxrss;
	m->nvcsw += ru.ru_nvcsw;
	m->nivcsw += ru.ru_nivcsw;
}

static void sched_read(struct bench_sched *s)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	s->n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && s->n < BENCH_MAX_THREADS) {
		char path[96];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.40s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu %llu", &s->t[s->n].run_ns, &s->t[s->n].wait_ns,
				&s->t[s->n].slices) == 3) {
			s->t[s->n].tid = atoi(e->d_name);
			s->n++;
		}
		fclose(f);
	}
	closedir(d);
}

void bench_meter_threads(struct bench_meter *m)
{
	sched_read(&m->s1);
}

/* ---- JSON ------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Per-thread deltas s1 - s0 (threads created later start at 0), sorted by
 * tid, i.e. creation order: the main thread first. */
static void json_threads(FILE *f, const struct bench_meter *m)
{
	const struct bench_sched *a = &m->s0, *b = &m->s1;
	double run = 0, wait = 0;

	fprintf(f, ",\"thread_sched\":[");
	for (unsigned i = 0; i < b->n; i++) {
		unsigned long long r = b->t[i].run_ns, w = b->t[i].wait_ns, sl = b->t[i].slices;

		for (unsigned j = 0; j < a->n; j++) {
			if (a->t[j].tid == b->t[i].tid) {
				r -= a->t[j].run_ns;
				w -= a->t[j].wait_ns;
				sl -= a->t[j].slices;
			}
		}
		fprintf(f, "%s{\"tid\":%d,\"run_s\":%.6f,\"runqueue_wait_s\":%.6f,"
			"\"slices\":%llu}", i ? "," : "", b->t[i].tid, (double)r / 1e9,
			(double)w / 1e9, sl);
		run += (double)r / 1e9;
		wait += (double)w / 1e9;
	}
	fprintf(f, "]");
	bench_json_double(f, "threads_run_s", run);
	bench_json_double(f, "threads_runqueue_wait_s", wait);
}

void bench_json_begin(FILE *f, const char *program, const struct bench_args *a,
		const struct bench_meter *m, unsigned frames)
{
	double wall = (double)(m->t1 - m->t0) / 1e9;
	double cpu = (m->user1 - m->user0) + (m->sys1 - m->sys0);

	fprintf(f, "{\"program\":");
	json_string(f, program);
	fprintf(f, ",\"label\":");
	json_string(f, a->label);
	fprintf(f, ",\"width\":%u,\"height\":%u,\"frames\":%u,\"threads\":%u",
		a->width, a->height, frames, a->threads);
	bench_json_double(f, "wall_s", wall);
	bench_json_double(f, "user_s", m->user1 - m->user0);
	bench_json_double(f, "sys_s", m->sys1 - m->sys0);
	bench_json_double(f, "fps", wall > 0 ? frames / wall : 0);
	bench_json_double(f, "cpu_ms_per_frame", frames ? cpu * 1e3 / frames : 0);
	bench_json_u64(f, "maxrss_kb", (uint64_t)m->maxrss_kb);
	bench_json_u64(f, "maxrss_before_kb", (uint64_t)m->maxrss_before_kb);
	bench_json_u64(f, "nvcsw", (uint64_t)m->nvcsw);
	bench_json_u64(f, "nivcsw", (uint64_t)m->nivcsw);
	json_threads(f, m);
}

void bench_json_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",");
	json_string(f, key);
	fprintf(f, ":%" PRIu64, v);
}

void bench_json_double(FILE *f, const char *key, double v)
{
	fprintf(f, ",");
	json_string(f, key);
	fprintf(f, ":%.6f", v);
}

void bench_json_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",");
	json_string(f, key);
	fputc(':', f);
	json_string(f, v);
}

void bench_json_end(FILE *f)
{
	fprintf(f, "}\n");
	fflush(f);
}

/* ---- pattern --------------------------------------------------------- */

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
	return hash32(a * 0x9e3779b1u ^ hash32(b * 0x85ebca77u ^ hash32(c)));
}

static uint32_t xrgb(uint32_t r, uint32_t g, uint32_t b)
{
	return 0xff000000u | (r & 0xff) << 16 | (g & 0xff) << 8 | (b & 0xff);
}

/*
 * A desktop-like moving picture, cheap enough for ultrafast to matter but
 * not trivially skippable:
 *  - background: colour gradient scrolling horizontally (whole frame
 *    changes every frame, seamless over the n-frame cycle);
 *  - a "terminal" (left half): 8x16 px glyph-like noise cells on dark grey,
 *    scrolling up 4 px per frame;
 *  - a "video" window (bottom right, 1/16 of the area): per-frame noise;
 *  - a solid window sliding across the top.
 */
void bench_pattern_draw(uint8_t *dst, uint32_t width, uint32_t height, unsigned i,
		unsigned n)
{
	uint32_t phase = (uint32_t)((uint64_t)i * width / (n ? n : 1));
	uint32_t term_x0 = width / 16, term_x1 = width / 2;
	uint32_t term_y0 = height / 8, term_y1 = height - height / 8;
	uint32_t vid_x0 = width - width / 4 - width / 32, vid_x1 = width - width / 32;
	uint32_t vid_y0 = height - height / 4 - height / 16, vid_y1 = height - height / 16;
	uint32_t win_w = width / 6, win_h = height / 5;
	uint32_t win_x0 = (uint32_t)((uint64_t)i * (width - win_w) / (n ? n : 1));
	uint32_t win_y0 = height / 16;
	uint32_t scroll = i * 4;
	uint32_t ncols = (term_x1 - term_x0) / 8;

	for (uint32_t y = 0; y < height; y++) {
		uint32_t *row = (uint32_t *)(void *)(dst + (size_t)y * width * BENCH_BPP);
		uint32_t ty = y + scroll, trow = ty / 16, line_len = hash32(trow) % (ncols + 1);

		for (uint32_t x = 0; x < width; x++) {
			uint32_t px;

			if (x >= win_x0 && x < win_x0 + win_w && y >= win_y0 &&
					y < win_y0 + win_h) {
				px = y < win_y0 + 24 ? xrgb(60, 60, 70) : xrgb(230, 140, 40);
			} else if (x >= vid_x0 && x < vid_x1 && y >= vid_y0 && y < vid_y1) {
				uint32_t h = hash3(x / 2, y / 2, i);

				px = xrgb(h, h >> 8, h >> 16);
			} else if (x >= term_x0 && x < term_x1 && y >= term_y0 && y < term_y1) {
				uint32_t col = (x - term_x0) / 8;
				int on = col < line_len && (hash3(col, trow, 7) & 3) != 0 &&
					(ty % 16) >= 2 && (ty % 16) < 14 &&
					(hash3((x - term_x0) / 2, ty / 2, 11) & 1);

				px = on ? xrgb(200, 220, 200) : xrgb(24, 24, 28);
			} else {
				uint32_t gx = (x + phase) % width;

				px = xrgb(gx * 256 / width, y * 256 / height,
					((gx + y) >> 2) & 0xff);
			}
			row[x] = px;
		}
	}
}
