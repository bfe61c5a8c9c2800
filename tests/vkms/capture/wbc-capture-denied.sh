#!/bin/bash
# Must show 3: without --allow-capture there is no zwlr_screencopy_manager_v1: grim exits
# non-zero saying the compositor lacks the protocol (no crash, no image), the session goes
# on (the pattern client then draws and shows 10 frames), and wbc exits with APP's status.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
grim "$out/denied.png" 2>"$out/grim.err"
echo "grim status \$?" >"$out/grim.rc"
"$client" --frames 10 || exit 20
exit 3
APP
wbc --mode 640x480 -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
note "grim: $(cat "$out/grim.rc"): $(cat "$out/grim.err")"
grep -qx 'grim status [1-9][0-9]*' "$out/grim.rc" || fail "grim did not fail"
grep -q 'screencopy' "$out/grim.err" || fail "grim's message does not name screencopy"
! grep -qiE 'segmentation|abort|core dumped' "$out/grim.err" || fail "grim crashed"
[ ! -s "$out/denied.png" ] || fail "grim wrote an image"
[ $rc = 3 ] || fail "wbc exited $rc, want APP's 3"
! grep -a 'screencopy' "$out/log" || fail "wbc mentions screencopy without --allow-capture"
echo PASS
