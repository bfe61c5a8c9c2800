#!/bin/bash
# Bad --mode and --output, and a device without atomic modesetting: each is refused before
# APP starts, with status 1 and one "wbc: " line saying what is wrong. (A --device that
# is no DRM device needs no kernel: wbc-cli checks those on the host.)
# No atomic: VKMS always has it, but Linux refuses DRM_CLIENT_CAP_ATOMIC to any process
# whose name starts with 'X' (drm_setclientcap: "broken atomic modeset userspace
# detected", for the modesetting DDX), so wbc run as "Xwbc" meets the kernel's real
# refusal and the backend's no-atomic path; the kernel's log line shows it was that.
. "$(dirname "$0")/lib.sh"
refused "unsupported mode" 1 "no mode 123x45 on Virtual-1" "it has: 1024x768@60.00" -- --mode 123x45
refused "unsupported refresh" 1 "no mode 640x480 at that refresh on Virtual-1" -- \
	--mode 640x480@30
refused "unknown output" 1 "no connector named Nope-1" -- --output Nope-1

ln -sf "$WBC" /tmp/Xwbc
dmesg -c >/dev/null
WBC=/tmp/Xwbc refused "no atomic (run as Xwbc)" 1 \
	"does not support atomic modesetting, which wbc requires" -- --mode 640x480
dmesg | grep -q 'broken atomic modeset userspace detected, disabling atomic' ||
	fail "the kernel did not refuse atomic (dmesg: $(dmesg | tail -3))"
note "kernel: $(dmesg | grep -o 'broken atomic modeset.*')"
# The same device is fine under wbc's own name: it was the atomic refusal.
wbc --mode 640x480 -- true >"$out/log" 2>&1 || { cat "$out/log"; fail "wbc as wbc failed"; }
check_log "$out/log"
echo PASS
