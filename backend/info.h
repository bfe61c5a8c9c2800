/* Internal to backend/ and its tools: discovery as JSON and as text. */
#ifndef WBC_KMS_INFO_H
#define WBC_KMS_INFO_H

#include <stdio.h>
#include <json-c/json.h>
#include "wbc/kms.h"

json_object *wbc_kms_info_json(const struct wbc_kms_device *dev);
void wbc_kms_info_print(FILE *f, const struct wbc_kms_device *dev);

#endif
