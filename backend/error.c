/* Error messages: kept on the device (or an error struct) for the caller to read. */
#include <stdio.h>
#include "private.h"

int wbc_kms_fail(struct wbc_kms_device *dev, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dev->error, sizeof(dev->error), fmt, ap);
	va_end(ap);
	return code;
}

int wbc_kms_error_set(struct wbc_kms_error *err, int code, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->code = code;
	return code;
}

const char *wbc_kms_device_error(const struct wbc_kms_device *dev)
{
	return dev->error;
}
