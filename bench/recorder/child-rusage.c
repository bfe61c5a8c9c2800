/* SPDX-License-Identifier: MIT */
/*
 * child-rusage [--label S] -- PROGRAM ARGS...: runs PROGRAM, waits with
 * wait4() and prints one JSON line with its wall time (CLOCK_MONOTONIC,
 * fork to reap), user/sys CPU and ru_maxrss from the child's rusage.
 * Exit status: the child's (128+signal if killed), 127 if exec failed.
 * Used for the ffmpeg CLI baseline of bench/run-recorder.sh.
 */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *label = "";
	struct rusage ru;
	double t0, t1;
	int i = 1, status, code;
	pid_t pid;

	if (i + 1 < argc && !strcmp(argv[i], "--label")) {
		label = argv[i + 1];
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: %s [--label S] -- PROGRAM ARGS...\n", argv[0]);
		return 2;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "%s: exec %s: %s\n", argv[0], argv[i], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("wait4");
			return 127;
		}
	}
	t1 = now_s();
	code = WIFEXITED(status) ? WEXITSTATUS(status) :
		WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
	/* label is ours (no escaping needed for the script's labels). */
	printf("{\"program\":\"child\",\"label\":\"%s\",\"exit\":%d,\"wall_s\":%.6f,"
		"\"user_s\":%.6f,\"sys_s\":%.6f,\"maxrss_kb\":%ld,\"nvcsw\":%ld,"
		"\"nivcsw\":%ld}\n", label, code, t1 - t0, tv_s(ru.ru_utime),
		tv_s(ru.ru_stime), ru.ru_maxrss, ru.ru_nvcsw, ru.ru_nivcsw);
	return code;
}
