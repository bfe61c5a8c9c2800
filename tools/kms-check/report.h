/*
 * Results as TAP (version 13, on stdout, as each check ends) and, on request, JUnit XML
 * (one file at the end). A SKIP carries its reason; a failure its diagnostics.
 */
#ifndef KMS_CHECK_REPORT_H
#define KMS_CHECK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum report_status { REPORT_PASS, REPORT_FAIL, REPORT_SKIP };

/* One check's verdict; the strings are owned by the report once added. */
struct report_entry {
	char *name, *group;
	enum report_status status;
	char *reason;                    /* skip reason or failure summary, may be NULL */
	char *diag;                      /* extra lines (no "# "), may be NULL */
	double seconds;
};

/* Owned by main; entries by the report. */
struct report {
	FILE *tap;
	size_t n, cap, planned;
	struct report_entry *entries;
	size_t passed, failed, skipped;
	bool bailed;
	size_t not_run;                  /* entries added by report_not_run */
};

void report_begin(struct report *r, FILE *tap, size_t planned, const char *header);
/* Prints the TAP line now and keeps the entry for the summary and JUnit. */
void report_add(struct report *r, const char *name, const char *group, enum report_status s,
		const char *reason, const char *diag, double seconds);
void report_end(struct report *r);
/* A check the run never reached (after a bail-out): in JUnit as skipped with the
 * reason, not in the TAP (nothing may follow "Bail out!"). */
void report_not_run(struct report *r, const char *name, const char *group, const char *reason);
/* TAP's "Bail out!": the run stops here; r->bailed is set. */
void report_bail(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0, or -1 with a reason in err. */
int report_write_junit(const struct report *r, const char *path, char *err, size_t err_len);
void report_free(struct report *r);

#endif
