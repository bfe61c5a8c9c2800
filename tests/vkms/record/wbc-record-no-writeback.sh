#!/bin/bash
# A DRM device without writeback connectors (VKMS booted with enable_writeback=0):
# --capture writeback is refused before APP starts (status 1, one line saying why), and
# the default, --capture auto, falls back to readback, says so in its capture line, and
# records a file whose frames decode to the client's, in order.
. "$(dirname "$0")/lib.sh"
ls /sys/class/drm/
[ ! -e /sys/class/drm/card0-Writeback-1 ] || fail "the guest has a writeback connector"
refused "--capture writeback without writeback" 1 \
	"--capture writeback: Virtual-1 cannot be captured" -- \
	--mode 640x480 --record "$out/wb.mkv" --capture writeback
[ ! -e "$out/wb.mkv" ] || fail "the refused recording left a file"

wbc --mode 640x480 --fps 5 --record "$out/auto.mkv" --duration "$(secs 8)" -- "$client" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "--capture auto: wbc exited $rc"
grep -q '^wbc: capture: readback (no writeback for Virtual-1: ' "$out/log" ||
	fail "the log does not say it fell back to readback"
check_final "$out/log"
decode "$out/auto.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding failed"
check_numbers "$out/numbers" 3
echo PASS
