/*
 * uinput-script: a virtual touchscreen or pointer (uinput) that plays commands read from
 * stdin, one a line, until end of input; then it waits 1 s (so that libinput reads the
 * last events before the device goes) and removes the device.
 *
 *   uinput-script touch     a direct multitouch screen (type B slots): ABS_MT_POSITION_X
 *                           TOUCH_X_MIN..TOUCH_X_MAX, _Y TOUCH_Y_MIN..TOUCH_Y_MAX
 *                           (below), 10 slots, BTN_TOUCH while a finger is down
 *   uinput-script pointer   a relative mouse (REL_X, REL_Y, BTN_LEFT)
 *
 * Commands (touch: events of a frame accumulate until "sync"):
 *   down SLOT X Y      a new finger in SLOT at device units X, Y
 *   move SLOT X Y      the finger in SLOT moves
 *   up SLOT            the finger in SLOT is lifted
 *   sync               SYN_REPORT: the frame is done
 *   rel DX DY          pointer: move by DX, DY and SYN_REPORT
 *   sleep MS
 *   wait FILE MARKER SECONDS   until a line of FILE starts with MARKER (exit 1 if never)
 *   say TEXT           print TEXT on stdout (the caller can wait for it)
 * Exit status 1 on a bad command or a marker that never came, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "uinput-util.h"

/* wbc-touch.sh computes the expected surface positions from these (a nonzero minimum
 * checks that it is subtracted; 10240 and 7680 units over 640x480 are 16 per pixel). */
enum { TOUCH_X_MIN = 1000, TOUCH_X_MAX = 11239, TOUCH_Y_MIN = 500, TOUCH_Y_MAX = 8179,
	TOUCH_SLOTS = 10, TOUCH_RESOLUTION = 40 /* units per mm */ };

/* The player's state; one in main(). */
struct player {
	int fd;
	bool touch;
	int next_tracking_id;
	int fingers;                     /* down now, for BTN_TOUCH */
	int slot;                        /* the last ABS_MT_SLOT sent, -1 before any */
};

static int abs_axis(int fd, int code, int min, int max, int resolution)
{
	struct uinput_abs_setup a = { .code = (unsigned short)code,
		.absinfo = { .minimum = min, .maximum = max, .resolution = resolution } };
	return ioctl(fd, UI_ABS_SETUP, &a);
}

static int setup_touch(int fd)
{
	ioctl(fd, UI_SET_EVBIT, EV_KEY);
	ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH);
	ioctl(fd, UI_SET_EVBIT, EV_ABS);
	ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT);
	ioctl(fd, UI_SET_EVBIT, EV_SYN);
	int r = 0;
	r |= abs_axis(fd, ABS_X, TOUCH_X_MIN, TOUCH_X_MAX, TOUCH_RESOLUTION);
	r |= abs_axis(fd, ABS_Y, TOUCH_Y_MIN, TOUCH_Y_MAX, TOUCH_RESOLUTION);
	r |= abs_axis(fd, ABS_MT_SLOT, 0, TOUCH_SLOTS - 1, 0);
	r |= abs_axis(fd, ABS_MT_TRACKING_ID, 0, 65535, 0);
	r |= abs_axis(fd, ABS_MT_POSITION_X, TOUCH_X_MIN, TOUCH_X_MAX, TOUCH_RESOLUTION);
	r |= abs_axis(fd, ABS_MT_POSITION_Y, TOUCH_Y_MIN, TOUCH_Y_MAX, TOUCH_RESOLUTION);
	if (r != 0)
		perror("uinput-script: UI_ABS_SETUP");
	return r != 0 ? -1 : 0;
}

static void select_slot(struct player *p, int slot)
{
	if (slot != p->slot)
		uinput_emit(p->fd, EV_ABS, ABS_MT_SLOT, slot);
	p->slot = slot;
}

/* A finger's position; the single-touch axes follow the first finger's (as kernel
 * drivers emulate them), which libinput ignores on multitouch devices. */
static void position(struct player *p, int x, int y)
{
	uinput_emit(p->fd, EV_ABS, ABS_MT_POSITION_X, x);
	uinput_emit(p->fd, EV_ABS, ABS_MT_POSITION_Y, y);
	if (p->slot == 0) {
		uinput_emit(p->fd, EV_ABS, ABS_X, x);
		uinput_emit(p->fd, EV_ABS, ABS_Y, y);
	}
}

static int touch_command(struct player *p, const char *cmd, int slot, int x, int y, int n)
{
	if (!p->touch || slot < 0 || slot >= TOUCH_SLOTS)
		return -1;
	if (strcmp(cmd, "down") == 0 && n == 4) {
		select_slot(p, slot);
		uinput_emit(p->fd, EV_ABS, ABS_MT_TRACKING_ID, p->next_tracking_id++);
		position(p, x, y);
		if (p->fingers++ == 0)
			uinput_emit(p->fd, EV_KEY, BTN_TOUCH, 1);
		return 0;
	}
	if (strcmp(cmd, "move") == 0 && n == 4) {
		select_slot(p, slot);
		position(p, x, y);
		return 0;
	}
	if (strcmp(cmd, "up") == 0 && n == 2) {
		select_slot(p, slot);
		uinput_emit(p->fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
		if (--p->fingers == 0)
			uinput_emit(p->fd, EV_KEY, BTN_TOUCH, 0);
		return 0;
	}
	return -1;
}

/* One line; -1 (said on stderr) when it is no command this device plays. */
static int play(struct player *p, char *line)
{
	char cmd[16], file[256], marker[128];
	int a = 0, b = 0, c = 0;
	line[strcspn(line, "\n")] = '\0';
	int n = sscanf(line, "%15s %d %d %d", cmd, &a, &b, &c);
	if (n <= 0)
		return 0;                    /* an empty line */
	if (strcmp(cmd, "sync") == 0) {
		uinput_emit(p->fd, EV_SYN, SYN_REPORT, 0);
		return 0;
	}
	if (strcmp(cmd, "sleep") == 0 && n == 2) {
		uinput_sleep_ms(a);
		return 0;
	}
	if (strcmp(cmd, "say") == 0) {
		printf("%s\n", line + 3 + strspn(line + 3, " "));
		fflush(stdout);
		return 0;
	}
	if (strcmp(cmd, "wait") == 0 && sscanf(line, "%*s %255s %127s %d", file, marker, &a) == 3)
		return uinput_await_marker(p->fd, "uinput-script", file, marker, a, "stopping");
	if (strcmp(cmd, "rel") == 0 && n == 3 && !p->touch) {
		uinput_emit(p->fd, EV_REL, REL_X, a);
		uinput_emit(p->fd, EV_REL, REL_Y, b);
		uinput_emit(p->fd, EV_SYN, SYN_REPORT, 0);
		return 0;
	}
	if (touch_command(p, cmd, a, b, c, n) == 0)
		return 0;
	fprintf(stderr, "uinput-script: not a %s command: '%s'\n",
		p->touch ? "touch" : "pointer", line);
	return -1;
}

int main(int argc, char **argv)
{
	struct player p = { .slot = -1 };
	if (argc != 2 || (strcmp(argv[1], "touch") != 0 && strcmp(argv[1], "pointer") != 0)) {
		fprintf(stderr, "usage: uinput-script touch|pointer <COMMANDS\n");
		return 2;
	}
	p.touch = strcmp(argv[1], "touch") == 0;
	p.fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (p.fd < 0) {
		perror("uinput-script: /dev/uinput");
		return 1;
	}
	if (p.touch && setup_touch(p.fd) < 0)
		return 1;
	if (!p.touch)
		uinput_setup_pointer(p.fd);
	if (uinput_create(p.fd, "uinput-script", p.touch ? "wbc-test-touchscreen" :
			"wbc-test-pointer", p.touch ? 0x567a : 0x567b) < 0)
		return 1;
	char line[512];
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), stdin))
		rc = play(&p, line);
	if (rc == 0)
		uinput_sleep_ms(1000);
	ioctl(p.fd, UI_DEV_DESTROY);
	close(p.fd);
	return rc == 0 ? 0 : 1;
}
