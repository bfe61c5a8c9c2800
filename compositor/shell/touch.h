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
/* Forget the devices (their mapping goes with the cursor); at the server's end. */
void wbc_touch_finish(struct wbc_server *server);

#endif
