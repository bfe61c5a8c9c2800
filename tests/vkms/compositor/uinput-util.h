/* Shared by the uinput test tools (uinput-type, uinput-move, uinput-script). */
#ifndef WBC_TEST_UINPUT_UTIL_H
#define WBC_TEST_UINPUT_UTIL_H

void uinput_emit(int fd, int type, int code, int value);
void uinput_sleep_ms(long ms);
/* Wait (up to limit_ms) until a line of FILE starts with MARKER; 1 if it did. */
int uinput_wait_for_marker(const char *path, const char *marker, long limit_ms);
/* uinput_wait_for_marker for wait_s seconds; when the marker never came, say so on stderr
 * ("TOOL: no 'MARKER' in FILE after N s: GAVE_UP"), destroy the device and return -1. */
int uinput_await_marker(int fd, const char *tool, const char *path, const char *marker,
		long wait_s, const char *gave_up);
/* The event bits of a relative pointer with a left button. */
void uinput_setup_pointer(int fd);
/* Register the device (after the caller set its event bits) and announce it on stdout. */
int uinput_create(int fd, const char *tool, const char *name, unsigned short product);

#endif
