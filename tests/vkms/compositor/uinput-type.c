/*
 * uinput-type: a virtual keyboard (uinput) that types a string of lower-case letters
 * once a file contains a marker line.
 *
 *   uinput-type TEXT FILE MARKER [WAIT_S]   waits (WAIT_S, default 30 s, at most) for
 *                                           MARKER in FILE, types TEXT
 *   uinput-type --vt N TEXT FILE MARKER [WAIT_S]   the same, but first presses
 *                                           Ctrl+Alt+F<N> (N 1..10), the VT switch keys
 *
 * Exit status 1 without typing when MARKER never came: keys typed before the client has
 * focus go nowhere, and the test should say that rather than "received nothing".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "uinput-util.h"

static const int letter_keys[26] = {
	KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L,
	KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X,
	KEY_Y, KEY_Z,
};

/* Ctrl+Alt+F<vt> down, then up in the opposite order, as a person presses it. */
static void press_vt_chord(int fd, int vt)
{
	const int keys[3] = { KEY_LEFTCTRL, KEY_LEFTALT, KEY_F1 + vt - 1 };
	for (int i = 0; i < 3; i++) {
		uinput_emit(fd, EV_KEY, keys[i], 1);
		uinput_emit(fd, EV_SYN, SYN_REPORT, 0);
		uinput_sleep_ms(50);
	}
	for (int i = 2; i >= 0; i--) {
		uinput_emit(fd, EV_KEY, keys[i], 0);
		uinput_emit(fd, EV_SYN, SYN_REPORT, 0);
		uinput_sleep_ms(50);
	}
	printf("uinput-type: pressed Ctrl+Alt+F%d\n", vt);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int vt = 0;
	if (argc >= 3 && strcmp(argv[1], "--vt") == 0) {
		vt = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if ((argc != 4 && argc != 5) || vt < 0 || vt > 10) {
		fprintf(stderr, "usage: uinput-type [--vt N] TEXT FILE MARKER [WAIT_S]\n");
		return 2;
	}
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("uinput-type: /dev/uinput");
		return 1;
	}
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
	for (int i = 0; i < 26; i++)
		ioctl(fd, UI_SET_KEYBIT, letter_keys[i]);
	if (vt) {
		ioctl(fd, UI_SET_KEYBIT, KEY_LEFTCTRL);
		ioctl(fd, UI_SET_KEYBIT, KEY_LEFTALT);
		ioctl(fd, UI_SET_KEYBIT, KEY_F1 + vt - 1);
	}
	if (uinput_create(fd, "uinput-type", "wbc-test-keyboard", 0x5678) < 0)
		return 1;
	long wait_s = argc == 5 ? atol(argv[4]) : 30;
	if (uinput_await_marker(fd, "uinput-type", argv[2], argv[3], wait_s, "typed nothing") < 0)
		return 1;
	uinput_sleep_ms(300);
	if (vt) {
		press_vt_chord(fd, vt);
		uinput_sleep_ms(500);
	}
	for (const char *p = argv[1]; *p; p++) {
		if (*p < 'a' || *p > 'z')
			continue;
		int key = letter_keys[*p - 'a'];
		uinput_emit(fd, EV_KEY, key, 1);
		uinput_emit(fd, EV_SYN, SYN_REPORT, 0);
		uinput_sleep_ms(30);
		uinput_emit(fd, EV_KEY, key, 0);
		uinput_emit(fd, EV_SYN, SYN_REPORT, 0);
		uinput_sleep_ms(30);
	}
	uinput_sleep_ms(1000);
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
