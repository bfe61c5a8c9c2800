/*
 * Discovery agrees with a tool nobody here wrote: `wbc-kms-info --json` against
 * `drm_info -j` (Debian's drm-info) on the same device — CRTC ids, plane ids with type
 * and format list, connector ids with type, writeback pixel formats.
 * argv[1] is the wbc-kms-info binary.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "common.h"

static const char *info_tool;

static json_object *run_json(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (size_t n; (n = fread(buf + len, 1, cap - len - 1, p)) > 0;) {
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	assert_int_equal(pclose(p), 0);
	json_object *o = json_tokener_parse(buf);
	free(buf);
	if (!o)
		fail_msg("%s printed no JSON", cmd);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("JSON has no \"%s\"", key);
	return v;
}

static int64_t get_int(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

/* A canonical text of a sorted set, so two tools' views compare as strings. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct lines {
	size_t n;
	char *v[256];
};

static void add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct lines *l, const char *fmt, ...)
{
	assert_true(l->n < 256);
	va_list ap;
	va_start(ap, fmt);
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	l->v[l->n++] = strdup(buf);
}

static void assert_same(struct lines *a, struct lines *b, const char *what)
{
	qsort(a->v, a->n, sizeof(char *), cmp_str);
	qsort(b->v, b->n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < a->n && i < b->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			fail_msg("%s differ:\n  wbc:      %s\n  drm_info: %s", what, a->v[i], b->v[i]);
	assert_int_equal(a->n, b->n);
	print_message("%s: %zu agree\n", what, a->n);
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i]);
		free(b->v[i]);
	}
	a->n = b->n = 0;
}

static void format_list(char *out, size_t len, json_object *arr, bool wbc)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		int64_t v = wbc ? get_int(f, "fourcc") : json_object_get_int64(f);
		used += (size_t)snprintf(out + used, len - used, " %08llx", (long long)v);
	}
}

static void agree(void **state)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s --json", info_tool);
	json_object *w = run_json(cmd);
	json_object *root = run_json("drm_info -j " VKMS_DEV);
	json_object *d = get(root, VKMS_DEV);
	struct lines a = { 0 }, b = { 0 };
	char fl[1024];

	json_object *wc = get(w, "crtcs"), *dc = get(d, "crtcs");
	for (size_t i = 0; i < json_object_array_length(wc); i++)
		add(&a, "crtc %lld", (long long)get_int(json_object_array_get_idx(wc, i), "id"));
	for (size_t i = 0; i < json_object_array_length(dc); i++)
		add(&b, "crtc %lld", (long long)get_int(json_object_array_get_idx(dc, i), "id"));
	assert_same(&a, &b, "CRTCs");

	static const char *type_names[] = { "overlay", "primary", "cursor" };
	json_object *wp = get(w, "planes"), *dp = get(d, "planes");
	for (size_t i = 0; i < json_object_array_length(wp); i++) {
		json_object *p = json_object_array_get_idx(wp, i);
		format_list(fl, sizeof(fl), get(p, "formats"), true);
		add(&a, "plane %lld %s%s", (long long)get_int(p, "id"),
			json_object_get_string(get(p, "type")), fl);
	}
	for (size_t i = 0; i < json_object_array_length(dp); i++) {
		json_object *p = json_object_array_get_idx(dp, i);
		int64_t type = get_int(get(get(p, "properties"), "type"), "value");
		assert_true(type >= 0 && type <= 2);
		format_list(fl, sizeof(fl), get(p, "formats"), false);
		add(&b, "plane %lld %s%s", (long long)get_int(p, "id"), type_names[type], fl);
	}
	assert_true(a.n >= 1);
	assert_same(&a, &b, "planes");

	json_object *wk = get(w, "connectors"), *dk = get(d, "connectors");
	int writeback = 0;
	for (size_t i = 0; i < json_object_array_length(wk); i++) {
		json_object *c = json_object_array_get_idx(wk, i);
		fl[0] = '\0';
		json_object *wf = NULL;
		if (json_object_object_get_ex(c, "writeback_formats", &wf)) {
			format_list(fl, sizeof(fl), wf, true);
			writeback++;
		}
		add(&a, "connector %lld type %lld%s", (long long)get_int(c, "id"),
			(long long)get_int(c, "type_id"), fl);
	}
	for (size_t i = 0; i < json_object_array_length(dk); i++) {
		json_object *c = json_object_array_get_idx(dk, i), *wf = NULL;
		fl[0] = '\0';
		if (json_object_object_get_ex(get(c, "properties"), "WRITEBACK_PIXEL_FORMATS", &wf))
			format_list(fl, sizeof(fl), get(wf, "data"), false);
		add(&b, "connector %lld type %lld%s", (long long)get_int(c, "id"),
			(long long)get_int(c, "type"), fl);
	}
	assert_int_equal(writeback, 1);
	assert_same(&a, &b, "connectors");
	json_object_put(w);
	json_object_put(root);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: vkms-discovery WBC-KMS-INFO\n");
		return 2;
	}
	info_tool = argv[1];
	const struct CMUnitTest tests[] = { cmocka_unit_test_teardown(agree, test_teardown) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
