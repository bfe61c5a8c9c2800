/*
 * wbc-kms-check: a writeback-oracle KMS conformance checker. It drives one CRTC into a
 * writeback connector, checks writeback itself, and compares whole written-back frames
 * with a software reference of the same plane state. TAP on stdout, JUnit on request.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "check.h"
#include "report.h"
#include "rig.h"

#define MAX_ONLY 32
enum { EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 3 };

/* Parsed command line; strings point into argv. */
struct options {
	struct rig_options rig;
	const char *only[MAX_ONLY], *skip[MAX_ONLY];
	int n_only, n_skip;
	const char *junit, *out_dir;
	bool list;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: wbc-kms-check [options]\n"
		"Check a KMS driver's writeback and composition against a software reference.\n"
		"  --device PATH        DRM device (default: the first card with a writeback connector)\n"
		"  --connector NAME     writeback connector (default: the first, e.g. Writeback-1)\n"
		"  --mode WxH           mode of the writeback connector (default: 640x480 if listed)\n"
		"  --only GLOB          run only the checks whose name matches (repeatable)\n"
		"  --skip GLOB          do not run the checks whose name matches (repeatable)\n"
		"  --list               print the checks this device gets and exit\n"
		"  --junit FILE         also write the results as JUnit XML to FILE\n"
		"  --output-dir DIR     where a failed comparison's PNGs go (default: .)\n"
		"  --fence-timeout MS   the bound on an out-fence's latency (default: %d)\n"
		"  -h, --help           print this help and exit\n"
		"  --version            print the version and exit\n"
		"Exit status: 0 no check failed, 1 a check failed, 2 bad usage, 3 cannot run\n"
		"(no device, no atomic, no writeback connector).\n", WBC_KMS_WB_FENCE_TIMEOUT_MS);
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "wbc-kms-check: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see --help)\n");
	va_end(ap);
	return EXIT_USAGE;
}

static bool parse_uint(const char *s, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_mode(const char *s, uint32_t *w, uint32_t *h)
{
	unsigned a, b;
	char tail;
	if (sscanf(s, "%ux%u%c", &a, &b, &tail) != 2 || !a || !b || a > 16384 || b > 16384)
		return false;
	*w = a;
	*h = b;
	return true;
}

/* -1: go on; else the exit status (help, version, bad usage). */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "device", required_argument, NULL, 'd' }, { "connector", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' }, { "only", required_argument, NULL, 'o' },
		{ "skip", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' }, { "junit", required_argument, NULL, 'j' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "fence-timeout", required_argument, NULL, 't' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	long v;
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, ":h", longs, NULL)) != -1;) {
		switch (c) {
		case 'd': o->rig.device = optarg; break;
		case 'c': o->rig.connector = optarg; break;
		case 'm':
			if (!parse_mode(optarg, &o->rig.width, &o->rig.height))
				return bad_usage("--mode wants WIDTHxHEIGHT, got '%s'", optarg);
			break;
		case 'o':
			if (o->n_only == MAX_ONLY)
				return bad_usage("more than %d --only patterns", MAX_ONLY);
			o->only[o->n_only++] = optarg;
			break;
		case 's':
			if (o->n_skip == MAX_ONLY)
				return bad_usage("more than %d --skip patterns", MAX_ONLY);
			o->skip[o->n_skip++] = optarg;
			break;
		case 'l': o->list = true; break;
		case 'j': o->junit = optarg; break;
		case 'O': o->out_dir = optarg; break;
		case 't':
			if (!parse_uint(optarg, 600000, &v))
				return bad_usage("--fence-timeout wants milliseconds (1 to 600000), got '%s'", optarg);
			o->rig.fence_timeout_ms = (int)v;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("wbc-kms-check %s\n", WBC_VERSION); return 0;
		case ':': return bad_usage("%s needs a value", argv[optind - 1]);
		default: return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	return -1;
}

static bool selected(const struct options *o, const char *name)
{
	for (int i = 0; i < o->n_skip; i++)
		if (fnmatch(o->skip[i], name, 0) == 0)
			return false;
	for (int i = 0; i < o->n_only; i++)
		if (fnmatch(o->only[i], name, 0) == 0)
			return true;
	return o->n_only == 0;
}

/* Keep the checks --only selects and --skip leaves; -1 when an --only pattern selects
 * none (a typo would otherwise pass as an empty run). */
static int filter(const struct options *o, struct check_list *l)
{
	for (int i = 0; i < o->n_only; i++) {
		bool any = false;
		for (size_t j = 0; j < l->n && !any; j++)
			any = fnmatch(o->only[i], l->items[j].name, 0) == 0;
		if (!any)
			return bad_usage("--only '%s' matches no check on this device (see --list)",
				o->only[i]), -1;
	}
	size_t kept = 0;
	for (size_t j = 0; j < l->n; j++)
		if (selected(o, l->items[j].name))
			l->items[kept++] = l->items[j];
	l->n = kept;
	return 0;
}

static double seconds_since(uint64_t t0)
{
	return (double)(rig_now_ns() - t0) / 1e9;
}

static void run_all(struct check_ctx *ctx, const struct check_list *l, struct report *r)
{
	struct utsname u;
	char header[512];
	const struct rig *rig = ctx->rig;
	uname(&u);
	snprintf(header, sizeof(header), "wbc-kms-check %s: %s (%s %d.%d.%d), %s on CRTC %u, "
		"%ux%u@%u, Linux %s", WBC_VERSION, rig->dev->path, rig->dev->driver,
		rig->dev->driver_major, rig->dev->driver_minor, rig->dev->driver_patch,
		rig->wb->name, rig->crtc->id, rig->width, rig->height, rig->mode.vrefresh, u.release);
	report_begin(r, stdout, l->n, header);
	for (size_t i = 0; i < l->n; i++) {
		const struct check *c = &l->items[i];
		struct check_result res = { .status = REPORT_PASS };
		uint64_t t0 = rig_now_ns();
		c->run(ctx, c, &res);
		report_add(r, c->name, c->group, res.status, res.reason, res.diag, seconds_since(t0));
		/* A lost job leaves nothing to trust: on VKMS every later fence is one job
		 * late, and a composer that crashed makes every later commit block for ever. */
		if (ctx->rig->lost && i + 1 < l->n) {
			report_end(r);
			report_bail(r, "%s lost a writeback job in %s (%s); %zu checks not run",
				rig->dev->driver, c->name, rig->lost_reason, l->n - i - 1);
			for (size_t j = i + 1; j < l->n; j++)
				report_not_run(r, l->items[j].name, l->items[j].group,
					"not run: the run bailed out after a lost writeback job");
			return;
		}
	}
	report_end(r);
}

static int build_list(struct check_ctx *ctx, struct check_list *l)
{
	int ret = writeback_checks(ctx, l);
	ret |= compose_checks(ctx, l);
	ret |= writeback_last_checks(ctx, l);
	ret |= compose_rotation_checks(ctx, l);
	if (ret)
		fprintf(stderr, "wbc-kms-check: out of memory\n");
	return ret ? -1 : 0;
}

static int run(const struct options *o, struct rig *rig)
{
	const char *hook = getenv("WBC_KMS_CHECK_WRONG_REFERENCE");
	struct check_ctx ctx = { .rig = rig, .out_dir = o->out_dir ? o->out_dir : ".",
		.wrong_reference = hook && *hook && strcmp(hook, "0") != 0 };
	struct check_list l = { 0 };
	struct report r = { 0 };
	/* One level is made if missing, so a run can name a fresh directory; a failure
	 * to write there is reported with each PNG. */
	if (o->out_dir)
		mkdir(o->out_dir, 0777);
	int status = build_list(&ctx, &l) < 0 ? EXIT_CANNOT_RUN :
		filter(o, &l) < 0 ? EXIT_USAGE : -1;
	for (size_t i = 0; status < 0 && o->list && i < l.n; i++)
		printf("%s\n", l.items[i].name);
	if (status < 0 && o->list)
		status = 0;
	if (status < 0) {
		run_all(&ctx, &l, &r);
		status = r.failed ? EXIT_FAILED : 0;
		char err[512];
		if (o->junit && report_write_junit(&r, o->junit, err, sizeof(err)) < 0) {
			fprintf(stderr, "wbc-kms-check: %s\n", err);
			status = EXIT_FAILED;
		}
	}
	report_free(&r);
	check_list_free(&l);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = { .rig.fence_timeout_ms = WBC_KMS_WB_FENCE_TIMEOUT_MS };
	int status = parse(argc, argv, &o);
	if (status >= 0)
		return status;
	struct rig rig;
	char err[RIG_ERR_MAX];
	if (rig_open(&rig, &o.rig, err) < 0) {
		fprintf(stderr, "wbc-kms-check: cannot run: %s\n", err);
		return EXIT_CANNOT_RUN;
	}
	status = run(&o, &rig);
	rig_close(&rig);
	return status;
}
