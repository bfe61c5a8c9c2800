#define _GNU_SOURCE
#include <errno.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "uinput-util.h"

void uinput_emit(int fd, int type, int code, int value)
{
	struct input_event ev = { .type = (unsigned short)type, .code = (unsigned short)code,
		.value = value };
	if (write(fd, &ev, sizeof(ev)) != sizeof(ev))
		perror("uinput: write");
}

void uinput_sleep_ms(long ms)
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

int uinput_wait_for_marker(const char *path, const char *marker, long limit_ms)
{
	for (long waited = 0; waited < limit_ms; waited += 100) {
		if (file_has(path, marker))
			return 1;
		uinput_sleep_ms(100);
	}
	return file_has(path, marker);
}

int uinput_await_marker(int fd, const char *tool, const char *path, const char *marker,
		long wait_s, const char *gave_up)
{
	if (uinput_wait_for_marker(path, marker, wait_s * 1000))
		return 0;
	fprintf(stderr, "%s: no '%s' in %s after %ld s: %s\n", tool, marker, path, wait_s,
		gave_up);
	ioctl(fd, UI_DEV_DESTROY);
	return -1;
}

void uinput_setup_pointer(int fd)
{
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_KEYBIT, BTN_LEFT);
	ioctl(fd, UI_SET_EVBIT, EV_REL);
	ioctl(fd, UI_SET_RELBIT, REL_X);
	ioctl(fd, UI_SET_RELBIT, REL_Y);
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
}

int uinput_create(int fd, const char *tool, const char *name, unsigned short product)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x1234,
		.product = product } };
	snprintf(setup.name, sizeof(setup.name), "%s", name);
	if (ioctl(fd, UI_DEV_SETUP, &setup) != 0 || ioctl(fd, UI_DEV_CREATE) != 0) {
		fprintf(stderr, "%s: create: %s\n", tool, strerror(errno));
		return -1;
	}
	printf("%s: device created\n", tool);
	fflush(stdout);
	return 0;
}
