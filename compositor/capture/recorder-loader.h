/* The recorder module (wbc/recorder-module.h), loaded when wbc first records. */
#ifndef WBC_CAPTURE_RECORDER_LOADER_H
#define WBC_CAPTURE_RECORDER_LOADER_H

#include <stddef.h>
#include "wbc/recorder-module.h"

/* Loads wbc-recorder.so on the first call and returns its table (static: it stays loaded
 * until the process exits, as FFmpeg's libraries keep global state), or NULL after
 * writing one line saying why into err. A failed load is tried again on the next call.
 * Main thread only. */
const struct wbc_recorder_module *wbc_recorder_loader_get(char *err, size_t len);

#endif
