/* TAP and JUnit output. The XML is written by hand: a flat list of test cases with
 * escaped text needs no XML library. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

void report_begin(struct report *r, FILE *tap, size_t planned, const char *header)
{
	memset(r, 0, sizeof(*r));
	r->tap = tap;
	r->planned = planned;
	fprintf(tap, "TAP version 13\n");
	if (header)
		fprintf(tap, "# %s\n", header);
	fprintf(tap, "1..%zu\n", planned);
	fflush(tap);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* Each diagnostic line as a TAP comment. */
static void print_diag(FILE *f, const char *diag)
{
	while (diag && *diag) {
		const char *nl = strchr(diag, '\n');
		int len = nl ? (int)(nl - diag) : (int)strlen(diag);
		fprintf(f, "# %.*s\n", len, diag);
		diag = nl ? nl + 1 : NULL;
	}
}

static bool keep_entry(struct report *r, const char *name, const char *group,
		enum report_status s, const char *reason, const char *diag, double seconds)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct report_entry *e = realloc(r->entries, cap * sizeof(*e));
		if (!e)
			return false;
		r->entries = e;
		r->cap = cap;
	}
	r->entries[r->n++] = (struct report_entry){ .name = strdup(name), .group = strdup(group),
		.status = s, .reason = dup_or_null(reason), .diag = dup_or_null(diag),
		.seconds = seconds };
	return true;
}

void report_not_run(struct report *r, const char *name, const char *group, const char *reason)
{
	if (keep_entry(r, name, group, REPORT_SKIP, reason, NULL, 0))
		r->not_run++;
}

void report_add(struct report *r, const char *name, const char *group, enum report_status s,
		const char *reason, const char *diag, double seconds)
{
	if (!keep_entry(r, name, group, s, reason, diag, seconds))
		return;
	size_t num = r->n;
	if (s == REPORT_SKIP) {
		r->skipped++;
		fprintf(r->tap, "ok %zu - %s # SKIP %s\n", num, name, reason ? reason : "");
	} else if (s == REPORT_PASS) {
		r->passed++;
		fprintf(r->tap, "ok %zu - %s\n", num, name);
	} else {
		r->failed++;
		fprintf(r->tap, "not ok %zu - %s\n", num, name);
		print_diag(r->tap, reason);
	}
	print_diag(r->tap, diag);
	fflush(r->tap);
}

void report_end(struct report *r)
{
	fprintf(r->tap, "# %zu passed, %zu failed, %zu skipped\n", r->passed, r->failed,
		r->skipped);
	fflush(r->tap);
}

void report_bail(struct report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(r->tap, "Bail out! ");
	vfprintf(r->tap, fmt, ap);
	fprintf(r->tap, "\n");
	va_end(ap);
	fflush(r->tap);
	r->bailed = true;
}

static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 allows no other control characters than tab and newline. */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void junit_case(FILE *f, const struct report_entry *e)
{
	fputs("    <testcase classname=\"wbc-kms-check.", f);
	xml_text(f, e->group);
	fputs("\" name=\"", f);
	xml_text(f, e->name);
	fprintf(f, "\" time=\"%.3f\">\n", e->seconds);
	if (e->status != REPORT_PASS) {
		fputs(e->status == REPORT_SKIP ? "      <skipped message=\"" : "      <failure message=\"", f);
		xml_text(f, e->reason);
		fputs("\">", f);
		xml_text(f, e->diag);
		fputs(e->status == REPORT_SKIP ? "</skipped>\n" : "</failure>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int report_write_junit(const struct report *r, const char *path, char *err, size_t err_len)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, err_len, "cannot write %s", path);
		return -1;
	}
	double total = 0;
	for (size_t i = 0; i < r->n; i++)
		total += r->entries[i].seconds;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
		"  <testsuite name=\"wbc-kms-check\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" "
		"errors=\"0\" time=\"%.3f\">\n", r->n, r->failed, r->skipped + r->not_run, total);
	for (size_t i = 0; i < r->n; i++)
		junit_case(f, &r->entries[i]);
	fputs("  </testsuite>\n</testsuites>\n", f);
	if (fclose(f) != 0) {
		snprintf(err, err_len, "cannot write %s", path);
		return -1;
	}
	return 0;
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->entries[i].name);
		free(r->entries[i].group);
		free(r->entries[i].reason);
		free(r->entries[i].diag);
	}
	free(r->entries);
	memset(r, 0, sizeof(*r));
}
