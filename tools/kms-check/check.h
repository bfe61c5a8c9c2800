/*
 * Checks: a named list built from what the device offers (one check per format it
 * lists, ...), run in order. A check ends with exactly one verdict: pass, fail (with
 * what differed) or skip (with why the device cannot be checked this way).
 */
#ifndef KMS_CHECK_CHECK_H
#define KMS_CHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pixman.h>
#include "report.h"
#include "rig.h"

#define CHECK_NAME_MAX 64
#define CHECK_TEXT_MAX 1024

/* Owned by main for the whole run. */
struct check_ctx {
	struct rig *rig;
	const char *out_dir;             /* where a failed comparison's PNGs go */
	/* Test hook (WBC_KMS_CHECK_WRONG_REFERENCE): every reference frame is spoiled in
	 * one known square, so a test can see the failure path (PNGs, first pixel). */
	bool wrong_reference;
};

/* One verdict in the making; a check fills it through the helpers below. */
struct check_result {
	enum report_status status;
	char reason[CHECK_TEXT_MAX];
	char diag[CHECK_TEXT_MAX];
};

struct check;
typedef void (*check_fn)(struct check_ctx *ctx, const struct check *c, struct check_result *res);

/* A check of the list. The list (and so each check) is owned by main. */
struct check {
	char name[CHECK_NAME_MAX];
	const char *group;               /* "writeback" or "compose" */
	check_fn run;
	uint32_t format;                 /* for per-format checks */
	int variant;                     /* for checks run in several placements */
};

struct check_list {
	size_t n, cap;
	struct check *items;
};

/* 0, or -1 when out of memory. */
int check_add(struct check_list *l, const char *group, check_fn run, uint32_t format,
		int variant, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void check_list_free(struct check_list *l);

/* The two families; each appends its checks for this device. */
int writeback_checks(struct check_ctx *ctx, struct check_list *l);
int compose_checks(struct check_ctx *ctx, struct check_list *l);
/* Checks that may leave the device unable to capture or to commit at all: run last,
 * in this order. */
int writeback_last_checks(struct check_ctx *ctx, struct check_list *l);
int compose_rotation_checks(struct check_ctx *ctx, struct check_list *l);

void check_fail(struct check_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void check_skip(struct check_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a diagnostic line (kept for pass, fail and skip alike). */
void check_diag(struct check_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Compare a captured buffer against the expected frame; on a difference beyond the
 * tolerance (per channel, in 8-bit steps) fail, naming the first differing pixel, and
 * write NAME-expected.png, NAME-actual.png, NAME-diff.png into the output directory.
 * Returns true when they matched.
 */
bool check_frame(struct check_ctx *ctx, const struct check *c, struct check_result *res,
		pixman_image_t *want, const struct wbc_kms_buffer *got, unsigned tolerance);

/* Four-character name of a fourcc ("XR24"), in a static buffer per call site's copy. */
const char *check_fourcc(uint32_t fourcc, char out[8]);

#endif
