/*
 * uinput-type: a virtual keyboard (uinput) that types a string of lower-case letters
 * once a file contains a marker line.
 *
 *   uinput-type TEXT FILE MARKER [WAIT_S]   waits (WAIT_S, default 30 s, at most) for
 *                                           MARKER in FILE, types TEXT
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

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: uinput-type TEXT FILE MARKER [WAIT_S]\n");
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
	if (uinput_create(fd, "uinput-type", "wbc-test-keyboard", 0x5678) < 0)
		return 1;
	long wait_s = argc == 5 ? atol(argv[4]) : 30;
	if (uinput_await_marker(fd, "uinput-type", argv[2], argv[3], wait_s, "typed nothing") < 0)
		return 1;
	uinput_sleep_ms(300);
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
