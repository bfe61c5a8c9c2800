#!/bin/bash
# Another DRM master (issue 18), both ways.
#  1. kms-hold --keep-master lights Virtual-1 at 800x600 and stays master (as a running
#     compositor or X server): wbc says so in one line, exits 1, never starts APP, and the
#     display (drm_info) is as kms-hold left it.
#  2. wbc runs the pattern client: kms-hold's modeset is refused (EACCES), a second wbc is
#     refused as in 1, and wbc goes on: the client's frames keep coming, wbc exits 0.
. "$(dirname "$0")/lib.sh"
state() { /usr/bin/python3 "$here/kms-state.py"; }
kms_hold=$(dirname "$WBC_FRAME_TOOL")/../compositor/kms-hold

mkfifo "$out/hold.in"
"$kms_hold" --keep-master 800 600 <"$out/hold.in" >"$out/hold.out" 2>&1 &
hold=$!
exec 7>"$out/hold.in"
wait_for 30 grep -q '^ready' "$out/hold.out" || { cat "$out/hold.out"; fail "kms-hold not ready"; }
state >"$out/held"
refused "another master" 1 "DRM master" "/dev/dri/card0" -- --mode 640x480
state >"$out/held.after"
diff -u "$out/held" "$out/held.after" || fail "wbc changed the display of another master"
kill -0 $hold || fail "kms-hold died"
note "display untouched: $(tr '\n' ';' <"$out/held")"
exec 7>&-
wait $hold

wbc_start --mode 640x480 --duration "$(secs 60)" -- "$client" --fps-log >"$out/log" 2>&1
wait_for 60 grep -q '^fps ' "$out/log" || { cat "$out/log"; fail "the client never drew"; }
"$kms_hold" 800 600 </dev/null >"$out/second.out" 2>&1
second=$?
note "kms-hold while wbc runs: status $second: $(cat "$out/second.out")"
[ $second = 1 ] && grep -q 'drmModeSetCrtc: Permission denied' "$out/second.out" ||
	fail "kms-hold's modeset was not refused"
refused "a second wbc" 1 "DRM master" -- --mode 640x480
total() { grep -a '^fps ' "$out/log" | tail -1 | sed 's/.*total //'; }
before=$(total)
sleep "$(secs 5)"
after=$(total)
note "client frames: $before after the refusals, $after 5 s later"
[ "$after" -gt "$before" ] || fail "wbc stopped showing frames after the refusals"
wbc_stop
rc=$?
cat "$out/log" | grep -v '^fps '
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
echo PASS
