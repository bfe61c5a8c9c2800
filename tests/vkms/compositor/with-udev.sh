#!/bin/bash
# with-udev.sh CMD [ARGS...]: run CMD inside the VKMS guest with systemd-udevd running,
# so that libinput's udev seat sees input devices (it skips devices udev has not
# initialised: no ID_INPUT_* properties without udevd). The guest's root is the host's
# read-only /; udevd keeps its database in /run/udev (a tmpfs there).
# Exit status: CMD's; 1 when udevd is not installed or does not start (tests/deps.sh
# installs the udev package, so that is a broken setup, not a reason to skip).
set -u
udevd=/lib/systemd/systemd-udevd
if [ ! -x "$udevd" ] || ! command -v udevadm >/dev/null; then
	echo "with-udev: $udevd/udevadm not installed (Debian package udev)" >&2
	exit 1
fi
mkdir -p /run/udev
if ! "$udevd" --daemon --resolve-names=never >/tmp/udevd.log 2>&1; then
	cat /tmp/udevd.log >&2
	echo "with-udev: systemd-udevd did not start" >&2
	exit 1
fi
udevadm trigger --action=add --subsystem-match=input --subsystem-match=drm \
	--subsystem-match=misc >/dev/null 2>&1
udevadm settle --timeout=30
"$@"
rc=$?
udevadm control --exit >/dev/null 2>&1
exit $rc
