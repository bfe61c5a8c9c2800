/*
 * x11-popup: an override-redirect X window (what menus and tooltips are) of one colour,
 * placed by itself, for the Xwayland test (x11-apps has no client that makes one).
 *
 *   x11-popup X Y W H RRGGBB     maps it at X, Y (root coordinates) until killed
 *
 * Prints "mapped" once the X server has mapped it. Exit status 1 when DISPLAY cannot be
 * opened or the root visual is not 24-bit TrueColor (the colour is written as a pixel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <xcb/xcb.h>

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: x11-popup X Y W H RRGGBB\n");
		return 2;
	}
	int x = atoi(argv[1]), y = atoi(argv[2]), w = atoi(argv[3]), h = atoi(argv[4]);
	uint32_t rgb = (uint32_t)strtoul(argv[5], NULL, 16);
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11-popup: cannot open the display\n");
		return 1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	if (screen->root_depth != 24) {
		fprintf(stderr, "x11-popup: root depth %u, not 24\n", screen->root_depth);
		return 1;
	}
	xcb_window_t win = xcb_generate_id(c);
	/* Values in the order of their mask bits: back pixel, override-redirect, events. */
	uint32_t values[] = { rgb, 1, XCB_EVENT_MASK_STRUCTURE_NOTIFY };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, win, screen->root, (int16_t)x, (int16_t)y,
		(uint16_t)w, (uint16_t)h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
		XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
	xcb_map_window(c, win);
	xcb_flush(c);
	xcb_generic_event_t *ev;
	while ((ev = xcb_wait_for_event(c))) {
		if ((ev->response_type & 0x7f) == XCB_MAP_NOTIFY) {
			printf("mapped\n");
			fflush(stdout);
		}
		free(ev);
	}
	xcb_disconnect(c);
	return 0;
}
