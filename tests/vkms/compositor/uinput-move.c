/*
 * uinput-move: a virtual relative pointer (uinput) that moves STEPS times by (DX, DY)
 * once a file contains a marker line.
 *
 *   uinput-move DX DY STEPS FILE MARKER
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void emit(int fd, int type, int code, int value)
{
	struct input_event ev = { .type = (unsigned short)type, .code = (unsigned short)code,
		.value = value };
	if (write(fd, &ev, sizeof(ev)) != sizeof(ev))
		perror("uinput-move: write");
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int file_has(const char *path, const char *marker)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strncmp(line, marker, strlen(marker)) == 0;
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: uinput-move DX DY STEPS FILE MARKER\n");
		return 2;
	}
	int dx = atoi(argv[1]), dy = atoi(argv[2]), steps = atoi(argv[3]);
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("uinput-move: /dev/uinput");
		return 1;
	}
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_KEYBIT, BTN_LEFT);
	ioctl(fd, UI_SET_EVBIT, EV_REL);
	ioctl(fd, UI_SET_RELBIT, REL_X);
	ioctl(fd, UI_SET_RELBIT, REL_Y);
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x1234,
		.product = 0x5679 } };
	snprintf(setup.name, sizeof(setup.name), "wbc-test-pointer");
	if (ioctl(fd, UI_DEV_SETUP, &setup) != 0 || ioctl(fd, UI_DEV_CREATE) != 0) {
		perror("uinput-move: create");
		return 1;
	}
	printf("uinput-move: device created\n");
	fflush(stdout);
	for (int i = 0; i < 600 && !file_has(argv[4], argv[5]); i++)
		sleep_ms(100);
	sleep_ms(500);
	for (int i = 0; i < steps; i++) {
		emit(fd, EV_REL, REL_X, dx);
		emit(fd, EV_REL, REL_Y, dy);
		emit(fd, EV_SYN, SYN_REPORT, 0);
		sleep_ms(50);
	}
	sleep_ms(1000);
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
