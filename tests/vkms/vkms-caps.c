/* The guest really has VKMS: driver name, atomic + writeback client caps, a Writeback
 * connector. Uses libdrm directly, not backend/, so it checks the harness alone. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include "common.h"

static void vkms_is_there(void **state)
{
	int fd = open(VKMS_DEV, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	drmVersion *v = drmGetVersion(fd);
	assert_non_null(v);
	assert_string_equal(v->name, "vkms");
	drmFreeVersion(v);

	assert_int_equal(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	assert_int_equal(drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0);

	drmModeRes *res = drmModeGetResources(fd);
	assert_non_null(res);
	int writeback = 0;
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
		assert_non_null(c);
		writeback += c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	assert_int_equal(writeback, 1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test_teardown(vkms_is_there, test_teardown) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
