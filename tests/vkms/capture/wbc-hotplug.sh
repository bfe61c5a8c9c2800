#!/bin/bash
# Hotplug during a recording (issue 18). wbc records the pattern client on Virtual-1 and
# serves screencopy; the connector is forced off through sysfs (VKMS in 6.12 takes
# "off"/"on"/"detect" in card0-Virtual-1/status, like any DRM connector), then on again.
# VKMS 6.12 sends no hotplug uevent for that: drm_helper_probe_single_connector_modes only
# schedules one where the driver polls its connectors (drm_kms_helper_poll_init), which
# VKMS does not (seen: no HOTPLUG=1 from udevadm). Where none comes within 2 s, the test
# writes "change" to card0's uevent file: the kernel then sends the change uevent for the
# card that a real driver's hotplug interrupt would. Must show: the uevents (udevadm
# monitor --kernel: no udevd needed), wbc saying the output went (CRTC off: drm_info) and came back,
# the recording paused and resumed, the client configured again, the file decoding with
# frames before and after the gap, a screencopy client that asks for the unplugged output
# getting `failed` (not a hang), and no sanitizer report.
. "$(dirname "$0")/../record/lib.sh"
: "${WBC_SCREENCOPY_CHECK:?}"
vkms_clones || { note "stock VKMS records Writeback-1 headless: nothing to unplug"; echo PASS; exit 0; }
status=/sys/class/drm/card0-Virtual-1/status
[ -e $status ] || fail "no $status"
note "$status: $(cat $status)"
state() { /usr/bin/python3 "$here/kms-state.py" | grep -E '^(crtc|connector Virtual)'; }

udevadm monitor --kernel --property --subsystem-match=drm >"$out/uevents" 2>&1 &
monitor=$!
wbc_start --mode 640x480 --record "$out/hp.mkv" --allow-capture --stats -- sh -c \
	"\"$client\" --print-configure >\"$out/client\" 2>&1 &
	 \"$WBC_SCREENCOPY_CHECK\" unplug \"$out/bound\" >\"$out/sc\" 2>&1; echo \"status \$?\" >>\"$out/sc\"
	 wait" >"$out/log" 2>&1
said() { grep -aq "$1" "$out/log"; }
wait_for 60 test -e "$out/bound" || { cat "$out/log" "$out/sc"; fail "screencopy-check never copied a frame"; }
wait_for 60 said 'recording: first frame' || fail "the recording never got a frame"
wait_captured "$out/log" 10 || fail "fewer than 10 frames recorded before the unplug"
state >"$out/state.before"

# changes_above N: more than N change uevents seen (a function: wait_for runs it anew).
changes_above() { [ "$(grep -c '^ACTION=change' "$out/uevents")" -gt "$1" ]; }
# force off|on: the status, then the uevent (the kernel's, else a synthetic one).
force() {
	local before
	before=$(grep -c '^ACTION=change' "$out/uevents")
	echo "$1" >$status
	note "$status: $(cat $status) (forced $1)"
	sleep 2
	if [ "$(grep -c '^HOTPLUG=1' "$out/uevents")" -gt "$hotplugs" ]; then
		note "the kernel sent a hotplug uevent"
	else
		note "no hotplug uevent from the kernel: writing 'change' to card0/uevent"
		echo change >/sys/class/drm/card0/uevent
	fi
	hotplugs=$(grep -c '^HOTPLUG=1' "$out/uevents")
	wait_for 10 changes_above "$before" ||
		fail "no change uevent for card0"
}
hotplugs=0
force off
wait_for 60 said 'output Virtual-1: disconnected: removing it' || { cat "$out/log"; fail "wbc did not see the unplug"; }
wait_for 60 said 'recording Virtual-1 paused' || { cat "$out/log"; fail "the recording did not pause"; }
wait_for 60 grep -q '^status ' "$out/sc" || fail "screencopy-check hangs on the unplugged output"
state >"$out/state.off"
sleep "$(secs 3)"

force on
wait_for 60 said 'output Virtual-1: connected with' || { cat "$out/log"; fail "wbc did not see the output come back"; }
wait_for 60 said 'recording Virtual-1 resumed' || { cat "$out/log"; fail "the recording did not resume"; }
wait_captured "$out/log" 10 || fail "fewer than 10 frames recorded after the output came back"
state >"$out/state.back"
wbc_stop
rc=$?
kill $monitor 2>/dev/null
echo detect >$status

cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
note "uevents for the card: $(grep -c '^ACTION=change' "$out/uevents") change, $(grep -c '^HOTPLUG=1' "$out/uevents") with HOTPLUG=1"
for s in before off back; do note "KMS $s: $(tr '\n' ';' <"$out/state.$s")"; done
grep -q 'active=1' "$out/state.before" || fail "no CRTC active before the unplug"
grep -q 'active=1' "$out/state.off" && fail "a CRTC stayed active after the unplug"
grep -q 'active=1' "$out/state.back" || fail "no CRTC active after the output came back"
cat "$out/sc"
grep -q '^after the unplug: failed$' "$out/sc" || fail "screencopy of the unplugged output did not fail"
note "client configures: $(grep '^configure' "$out/client" | tr '\n' ';')"
[ "$(grep -c '^configure 640 480$' "$out/client")" -ge 2 ] ||
	fail "the client was not configured to 640x480 again when the output came back"

check_paused_recording "$out/hp.mkv" "$out/log"
echo PASS
