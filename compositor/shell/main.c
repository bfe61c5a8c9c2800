/* wbc: a kiosk Wayland compositor on wlroots 0.15 that drives displays through wbc's
 * own KMS library. */
#include <signal.h>
#include <stdio.h>
#include "util/log.h"
#include "options.h"
#include "server.h"

int main(int argc, char **argv)
{
	struct wbc_options opts;
	switch (wbc_options_parse(argc, argv, &opts)) {
	case WBC_PARSE_OK:
		break;
	case WBC_PARSE_EXIT:
		return 0;
	case WBC_PARSE_ERROR:
		return 2;
	}
	wbc_log_setup(opts.verbose);
	/* A recording's receiver going away must be an error, not the end of wbc
	 * (include/wbc/recorder.h, "Signals"); APP gets the default back (launch.c). */
	signal(SIGPIPE, SIG_IGN);
	struct wbc_server server;
	int status = 1;
	if (wbc_server_init(&server, &opts) == 0)
		status = wbc_server_run(&server);
	wbc_server_finish(&server);
	return status;
}
