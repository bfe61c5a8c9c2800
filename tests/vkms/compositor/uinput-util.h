/* Shared by the uinput test tools (uinput-type, uinput-move). */
#ifndef WBC_TEST_UINPUT_UTIL_H
#define WBC_TEST_UINPUT_UTIL_H

void uinput_emit(int fd, int type, int code, int value);
void uinput_sleep_ms(long ms);
/* Wait (up to limit_ms) until a line of FILE starts with MARKER; 1 if it did. */
int uinput_wait_for_marker(const char *path, const char *marker, long limit_ms);
/* Register the device (after the caller set its event bits) and announce it on stdout. */
int uinput_create(int fd, const char *tool, const char *name, unsigned short product);

#endif
