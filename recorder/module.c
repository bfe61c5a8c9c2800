/* wbc-recorder.so's one exported symbol: the recorder's functions as a table
 * (wbc/recorder-module.h). Everything else in the module is hidden (meson.build). */
#include "wbc/recorder-module.h"

__attribute__((visibility("default")))
extern const struct wbc_recorder_module wbc_recorder_module;

const struct wbc_recorder_module wbc_recorder_module = {
	.version = WBC_RECORDER_MODULE_VERSION,
	.size = sizeof(struct wbc_recorder_module),
	.check = wbc_recorder_check,
	.create = wbc_recorder_create,
	.submit = wbc_recorder_submit,
	.get_event_fd = wbc_recorder_get_event_fd,
	.dispatch = wbc_recorder_dispatch,
	.drain = wbc_recorder_drain,
	.stop = wbc_recorder_stop,
	.destroy = wbc_recorder_destroy,
	.error = wbc_recorder_error,
	.get_stats = wbc_recorder_get_stats,
	.codec_name = wbc_recorder_codec_name,
	.container_name = wbc_recorder_container_name,
	.encoder_pixel_format = wbc_recorder_encoder_pixel_format,
	.sdp_path = wbc_recorder_sdp_path,
	.container_untimed = wbc_recorder_container_untimed,
	.protocol_name = wbc_recorder_protocol_name,
	.set_library_log = wbc_recorder_set_library_log,
};
