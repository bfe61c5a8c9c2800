/*
 * uinput-type: a virtual keyboard (uinput) that types a string of lower-case letters
 * once a file contains a marker line.
 *
 *   uinput-type TEXT FILE MARKER     waits (30 s at most) for MARKER in FILE, types TEXT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int letter_keys[26] = {
	KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L,
	KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X,
	KEY_Y, KEY_Z,
};

static void emit(int fd, int type, int code, int value)
{
	struct input_event ev = { .type = (unsigned short)type, .code = (unsigned short)code,
		.value = value };
	if (write(fd, &ev, sizeof(ev)) != sizeof(ev))
		perror("uinput-type: write");
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
	if (argc != 4) {
		fprintf(stderr, "usage: uinput-type TEXT FILE MARKER\n");
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
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL, .vendor = 0x1234,
		.product = 0x5678 } };
	snprintf(setup.name, sizeof(setup.name), "wbc-test-keyboard");
	if (ioctl(fd, UI_DEV_SETUP, &setup) != 0 || ioctl(fd, UI_DEV_CREATE) != 0) {
		perror("uinput-type: create");
		return 1;
	}
	printf("uinput-type: device created\n");
	fflush(stdout);
	for (int i = 0; i < 300 && !file_has(argv[2], argv[3]); i++)
		sleep_ms(100);
	sleep_ms(300);
	for (const char *p = argv[1]; *p; p++) {
		if (*p < 'a' || *p > 'z')
			continue;
		int key = letter_keys[*p - 'a'];
		emit(fd, EV_KEY, key, 1);
		emit(fd, EV_SYN, SYN_REPORT, 0);
		sleep_ms(30);
		emit(fd, EV_KEY, key, 0);
		emit(fd, EV_SYN, SYN_REPORT, 0);
		sleep_ms(30);
	}
	sleep_ms(1000);
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
