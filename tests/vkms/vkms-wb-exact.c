/*
 * Writeback frames equal the expected composition byte for byte (X byte ignored):
 * primary only; primary + opaque overlay at an offset; primary + cursor (ARGB with
 * only opaque and fully transparent pixels, so the result is exact under any blend).
 * "cloned": primary + overlay + cursor shown on Virtual-1 while Writeback-1 captures the
 * same CRTC (a VKMS that declares the clone: tests/vm/vkms-patches 0004): the captured
 * frame is the shown frame, exactly.
 * argv: the cases to run (primary, overlay, cursor, both, cloned): the guest must have
 * the planes.
 */
#include <stdio.h>
#include <string.h>
#include <drm_fourcc.h>
#include "common.h"

#define OV_X 100
#define OV_Y 60
#define OV_W 200
#define OV_H 150
#define CUR_X 300
#define CUR_Y 200
#define CUR 64

static uint32_t overlay_pixel(uint32_t x, uint32_t y)
{
	return 0xff000000u | (x * 5u & 0xffu) << 16 | 0x80u << 8 | (y * 9u & 0xffu);
}

/* A diamond of opaque pixels; transparent (premultiplied zero) outside it. */
static uint32_t cursor_pixel(uint32_t x, uint32_t y)
{
	int dx = (int)x - CUR / 2, dy = (int)y - CUR / 2;
	if ((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) < CUR / 2)
		return 0xff000000u | (x * 4u) << 16 | (y * 4u) << 8 | 0x40u;
	return 0;
}

struct expect {
	bool overlay, cursor;
	size_t mismatches;
};

static uint32_t expected(const struct expect *e, uint32_t x, uint32_t y)
{
	if (e->cursor && x >= CUR_X && x < CUR_X + CUR && y >= CUR_Y && y < CUR_Y + CUR) {
		uint32_t c = cursor_pixel(x - CUR_X, y - CUR_Y);
		if (c >> 24)
			return c & 0xffffffu;
	}
	if (e->overlay && x >= OV_X && x < OV_X + OV_W && y >= OV_Y && y < OV_Y + OV_H)
		return overlay_pixel(x - OV_X, y - OV_Y) & 0xffffffu;
	return test_pixel(x, y, 7) & 0xffffffu;
}

static int check_frame(void *data, const struct wbc_kms_wb_frame *f)
{
	struct expect *e = data;
	if (f->format != DRM_FORMAT_XRGB8888)
		return -1;
	for (uint32_t y = 0; y < f->height; y++) {
		const uint32_t *row = (const uint32_t *)((const char *)f->data + (size_t)y * f->stride);
		for (uint32_t x = 0; x < f->width; x++) {
			uint32_t got = row[x] & 0xffffffu, want = expected(e, x, y);
			if (got != want && e->mismatches++ < 5)
				print_message("(%u,%u): got %06x want %06x\n", x, y, got, want);
		}
	}
	return e->mismatches ? -1 : 0;
}

static void fill(struct wbc_kms_buffer *b, uint32_t (*px)(uint32_t, uint32_t))
{
	for (uint32_t y = 0; y < b->fb.height; y++)
		for (uint32_t x = 0; x < b->fb.width; x++)
			((uint32_t *)((char *)b->map + (size_t)y * b->stride))[x] = px(x, y);
}

static void run_case(bool overlay, bool cursor, bool cloned)
{
	struct test_pipe tp;
	if (cloned)
		test_pipe_init(&tp, 640, 480, cursor, overlay);
	else
		test_pipe_init_wb(&tp, 640, 480, cursor, overlay);
	if (!wbc_kms_writeback_supported(tp.pipe))
		fail_msg("no writeback: %s", wbc_kms_pipe_writeback_unsupported_reason(tp.pipe));
	if (cloned) {
		assert_string_equal(wbc_kms_pipe_connector(tp.pipe)->name, "Virtual-1");
		assert_string_equal(wbc_kms_pipe_writeback_connector(tp.pipe)->name, "Writeback-1");
	}
	if (overlay)
		assert_non_null(wbc_kms_pipe_plane(tp.pipe, WBC_KMS_PLANE_OVERLAY));
	if (cursor)
		assert_non_null(wbc_kms_pipe_plane(tp.pipe, WBC_KMS_PLANE_CURSOR));
	if (wbc_kms_pipe_enable_writeback(tp.pipe, NULL) < 0)
		fail_msg("writeback: %s", wbc_kms_device_error(tp.dev));
	assert_int_equal(wbc_kms_pipe_writeback_format(tp.pipe), DRM_FORMAT_XRGB8888);

	struct wbc_kms_buffer *prim = test_buffer(&tp, 640, 480, DRM_FORMAT_XRGB8888);
	test_draw(prim, 7);
	struct wbc_kms_pipe_state s = { .primary.fb = &prim->fb, .capture = true };
	if (overlay) {
		struct wbc_kms_buffer *ov = test_buffer(&tp, OV_W, OV_H, DRM_FORMAT_XRGB8888);
		fill(ov, overlay_pixel);
		s.overlay = (struct wbc_kms_plane_state){ .fb = &ov->fb, .crtc_x = OV_X,
			.crtc_y = OV_Y };
	}
	if (cursor) {
		struct wbc_kms_buffer *cur = test_buffer(&tp, CUR, CUR, DRM_FORMAT_ARGB8888);
		fill(cur, cursor_pixel);
		s.cursor = (struct wbc_kms_plane_state){ .fb = &cur->fb, .crtc_x = CUR_X,
			.crtc_y = CUR_Y };
	}
	struct expect e = { .overlay = overlay, .cursor = cursor };
	tp.ev.frame_check = check_frame;
	tp.ev.frame_check_data = &e;
	if (wbc_kms_pipe_commit(tp.pipe, &s) < 0)
		fail_msg("commit: %s", wbc_kms_device_error(tp.dev));
	test_wait_frames(&tp, 1, 30000);
	assert_int_equal(tp.ev.n_frames, 1);
	print_message("overlay=%d cursor=%d cloned=%d: %zu mismatching pixels\n", overlay, cursor,
		cloned, e.mismatches);
	assert_int_equal(tp.ev.frames[0].content, 0);
	assert_int_equal(tp.ev.frames[0].sequence, tp.ev.flips[0].sequence);
	test_pipe_fini(&tp);
}

static void primary_only(void **state) { run_case(false, false, false); }
static void with_overlay(void **state) { run_case(true, false, false); }
static void with_cursor(void **state) { run_case(false, true, false); }
static void with_both(void **state) { run_case(true, true, false); }
static void cloned(void **state) { run_case(true, true, true); }

int main(int argc, char **argv)
{
	struct CMUnitTest tests[5];
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "primary") == 0)
			tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(primary_only, test_teardown);
		else if (strcmp(argv[i], "overlay") == 0)
			tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(with_overlay, test_teardown);
		else if (strcmp(argv[i], "cursor") == 0)
			tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(with_cursor, test_teardown);
		else if (strcmp(argv[i], "both") == 0)
			tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(with_both, test_teardown);
		else if (strcmp(argv[i], "cloned") == 0)
			tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(cloned, test_teardown);
		if (n == 5)
			break;
	}
	if (n == 0) {
		fprintf(stderr, "usage: vkms-wb-exact primary|overlay|cursor|both|cloned...\n");
		return 2;
	}
	return _cmocka_run_group_tests("vkms-wb-exact", tests, n, NULL, NULL);
}
