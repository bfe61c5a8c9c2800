/* A recorder module of the next table version, all functions missing: wbc must refuse it
 * by name before calling anything (wbc-cli.sh). */
#include "wbc/recorder-module.h"

__attribute__((visibility("default")))
extern const struct wbc_recorder_module wbc_recorder_module;

const struct wbc_recorder_module wbc_recorder_module = {
	.version = WBC_RECORDER_MODULE_VERSION + 1,
	.size = sizeof(struct wbc_recorder_module),
};
