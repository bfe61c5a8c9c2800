/*
 * uinput-move: a virtual relative pointer (uinput) that moves STEPS times by (DX, DY)
 * once a file contains a marker line.
 *
 *   uinput-move DX DY STEPS FILE MARKER [WAIT_S]   waits WAIT_S (default 60) s at most
 *
 * Exit status 1 without moving when MARKER never came (see uinput-type.c).
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

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: uinput-move DX DY STEPS FILE MARKER [WAIT_S]\n");
		return 2;
	}
	int dx = atoi(argv[1]), dy = atoi(argv[2]), steps = atoi(argv[3]);
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("uinput-move: /dev/uinput");
		return 1;
	}
	uinput_setup_pointer(fd);
	if (uinput_create(fd, "uinput-move", "wbc-test-pointer", 0x5679) < 0)
		return 1;
	long wait_s = argc == 7 ? atol(argv[6]) : 60;
	if (uinput_await_marker(fd, "uinput-move", argv[4], argv[5], wait_s, "moved nothing") < 0)
		return 1;
	uinput_sleep_ms(500);
	for (int i = 0; i < steps; i++) {
		uinput_emit(fd, EV_REL, REL_X, dx);
		uinput_emit(fd, EV_REL, REL_Y, dy);
		uinput_emit(fd, EV_SYN, SYN_REPORT, 0);
		uinput_sleep_ms(50);
	}
	uinput_sleep_ms(1000);
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
