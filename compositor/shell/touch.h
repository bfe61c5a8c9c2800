/* Touchscreens and the output each one covers (touch.c). */
#ifndef WBC_TOUCH_H
#define WBC_TOUCH_H

struct wbc_server;
struct wlr_input_device;

/* A touch device came: it goes to the cursor (whose touch events input.c routes), mapped
 * to its output. Forgotten by itself when the device goes. -1 when out of memory. */
int wbc_touch_add_device(struct wbc_server *server, struct wlr_input_device *device);
/* An output came or went (screen.c): map every touch device again. */
void wbc_touch_remap(struct wbc_server *server);
/* A touch event's device coordinates (0..1 of the panel) to layout coordinates, through
 * the transform of the output the device covers. */
void wbc_touch_to_layout(struct wbc_server *server, struct wlr_input_device *device,
		double x, double y, double *lx, double *ly);
/* Forget the devices (their mapping goes with the cursor); at the server's end. */
void wbc_touch_finish(struct wbc_server *server);

#endif
