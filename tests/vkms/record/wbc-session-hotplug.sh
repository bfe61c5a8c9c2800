#!/bin/bash
# A display unplugged while the session is away (issue 18). wbc records the pattern client
# on Virtual-1; the VT switches away (libseat's builtin seatd, as in wbc-session.sh); then
# Virtual-1 is forced off through sysfs and the card's change uevent sent (VKMS sends none
# itself: see wbc-hotplug.sh). Away, wbc is not DRM master and may not modeset: it says it
# will look again on return and changes nothing. Back: it re-reads the connectors, removes
# Virtual-1 (no CRTC active: drm_info) and pauses the recording; forced on again, the
# output comes back and the recording resumes; the file decodes with the gap.
. "$(dirname "$0")/lib.sh"
[ -e /sys/class/tty/tty0/active ] || fail "the guest kernel has no VTs (CONFIG_VT)"
vkms_clones || { note "stock VKMS records Writeback-1 headless: nothing to unplug"; echo PASS; exit 0; }
status=/sys/class/drm/card0-Virtual-1/status
[ -e $status ] || fail "no $status"
state() { /usr/bin/python3 "$here/kms-state.py" | grep -E '^(crtc|connector Virtual)'; }
said() { grep -aq -- "$1" "$out/log"; }
force() {
	echo "$1" >$status
	echo change >/sys/class/drm/card0/uevent
	note "$status forced $1, change uevent sent"
}

start_vt=$(active_vt)
wbc_start --mode 640x480 --record "$out/sh.mkv" --stats -- "$client" >"$out/log" 2>&1
wait_for 60 said 'recording: first frame' || { cat "$out/log"; fail "no first frame"; }
wait_captured "$out/log" 10 || fail "fewer than 10 frames recorded before the VT switch"
vt_activate 2
[ "$(active_vt)" = tty2 ] || fail "the VT did not switch"
wait_for 30 said 'session gone' || { cat "$out/log"; fail "wbc did not see its session go"; }
force off
wait_for 30 said 'a display changed while the session is away' ||
	{ cat "$out/log"; fail "wbc did not hear of the unplug while away"; }
sleep "$(secs 2)"
said 'output Virtual-1: disconnected' && fail "wbc removed the output while away (no DRM master)"
vt_activate "${start_vt#tty}"
note "VT back: $(active_vt)"
wait_for 60 said 'output Virtual-1: disconnected: removing it' ||
	{ cat "$out/log"; fail "wbc did not re-read the connectors on return"; }
wait_for 60 said 'recording Virtual-1 paused' || { cat "$out/log"; fail "the recording did not pause"; }
sleep "$(secs 2)"
state >"$out/state.off"
force on
wait_for 60 said 'output Virtual-1: connected with' || { cat "$out/log"; fail "wbc did not see the output come back"; }
wait_for 60 said 'recording Virtual-1 resumed' || { cat "$out/log"; fail "the recording did not resume"; }
wait_captured "$out/log" 10 || fail "fewer than 10 frames recorded after the output came back"
state >"$out/state.back"
wbc_stop
rc=$?
echo detect >$status
grep -a '^wbc: ' "$out/log" | grep -av '^wbc: rec captured='
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
for s in off back; do note "KMS $s: $(tr '\n' ';' <"$out/state.$s")"; done
grep -q 'active=1' "$out/state.off" && fail "a CRTC stayed active after the unplug"
grep -q 'active=1' "$out/state.back" || fail "no CRTC active after the output came back"
check_paused_recording "$out/sh.mkv" "$out/log"
echo PASS
