#!/bin/bash
# Output power (issue 18). wbc-power.sh protocol: part 1; wbc-power.sh blank: parts 2 and 3
# (two guests: together they outlast one guest's time in a loaded TCG host). Runs under
# with-udev.sh (a uinput keyboard wakes the display).
#  1. wlr-output-power-management: power-client turns Virtual-1 off during a recording, then
#     on: while off the CRTC is inactive (drm_info), wbc commits nothing (flips), captures
#     nothing, and the pattern client gets no frame callbacks (its frame count stands
#     still); after on, all go on, the recording resumed, the file decodes with the gap.
#  2. --blank-after 3: the display goes off by itself; a key from a uinput keyboard turns
#     it on again.
#  3. --blank-after 4 with APP holding an idle inhibitor: no blanking while it is held;
#     once it is gone, the display goes off.
. "$(dirname "$0")/lib.sh"
comp=$(dirname "$WBC_FRAME_TOOL")/../compositor
crtc_active() { /usr/bin/python3 "$here/kms-state.py" | grep -q 'active=1'; }
said() { grep -aq -- "$2" "$1"; }
total() { grep -a '^fps ' "$out/client" | tail -1 | sed 's/.*total //'; }

part=${1:?protocol or blank}
if [ "$part" = protocol ]; then
# 1. The protocol.
wbc_start --mode 640x480 --record "$out/pw.mkv" --stats -- sh -c \
	"\"$client\" --fps-log >\"$out/client\" 2>&1 &
	 \"$comp/power-client\" cycle \"$out/off\" $(secs 30) >\"$out/power\" 2>&1
	 echo \"status \$?\" >>\"$out/power\"; wait" >"$out/log" 2>&1
wait_for 60 test -e "$out/off" || { cat "$out/log" "$out/power"; fail "the display never went off"; }
# The display stays off for 30 s; drm_info and python take seconds in the TCG guest, so
# the counts are read around the state check and the on must not have come yet.
sleep "$(secs 2)"
t0=$(total) f0=$(rec_stats "$out/log" flips) c0=$(rec_stats "$out/log" captured)
crtc_active && fail "a CRTC is active while the display is off"
sleep "$(secs 3)"
t1=$(total) f1=$(rec_stats "$out/log" flips) c1=$(rec_stats "$out/log" captured)
[ "$(grep -c '^mode on$' "$out/power")" = 1 ] || fail "the display came on before the counts were read (slow guest): no conclusion"
note "while off: client frames $t0 -> $t1, flips $f0 -> $f1, captured $c0 -> $c1"
[ "$t0" = "$t1" ] || fail "the client kept drawing (frame callbacks) while the display was off"
[ "$f0" = "$f1" ] || fail "wbc kept flipping while the display was off"
[ "$c0" = "$c1" ] || fail "wbc kept capturing while the display was off"
wait_for 60 grep -q '^status ' "$out/power" || fail "power-client hangs"
wait_for 60 said "$out/log" 'recording Virtual-1 resumed' || { cat "$out/log"; fail "the recording did not resume"; }
sleep "$(secs 4)"
t2=$(total)
note "after on: client frames $t1 -> $t2"
[ "$t2" -gt "$t1" ] || fail "the client did not draw again after on"
crtc_active || fail "no CRTC active after on"
wbc_stop
rc=$?
cat "$out/power"
grep -a '^wbc: ' "$out/log" | grep -av '^wbc: rec captured='
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -qx 'status 0' "$out/power" || fail "power-client failed"
grep -q '^mode off$' "$out/power" && grep -q '^mode on$' "$out/power" || fail "no mode events"
said "$out/log" '^wbc: Virtual-1: display off' || fail "wbc did not say the display went off"
check_final "$out/log"
decode "$out/pw.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" || fail "decoding failed"
check_numbers "$out/numbers" 5

echo PASS
exit 0
fi

# 2. --blank-after, and a key to wake.
"$comp/uinput-type" a "$out/wake" go "$(secs 120)" >"$out/typer" 2>&1 &
typer=$!
sleep 1
udevadm settle --timeout=10
wbc_start --mode 640x480 --blank-after 3 -- "$client" --static >"$out/log2" 2>&1
wait_for 60 said "$out/log2" 'turning the display off' || { cat "$out/log2"; fail "--blank-after did not blank"; }
crtc_off() { ! crtc_active; }
wait_for 30 crtc_off || fail "--blank-after: a CRTC is still active"
echo go >"$out/wake"
wait_for 60 said "$out/log2" 'input: turning the display on' || { cat "$out/log2" "$out/typer"; fail "a key did not wake the display"; }
wait $typer
wbc_stop
rc=$?
cat "$out/log2"
check_log "$out/log2"
[ $rc = 0 ] || fail "--blank-after: wbc exited $rc"
note "--blank-after: blanked, woken by a key"

# 3. An idle inhibitor. --blank-after counts from wbc's start, and in a slow guest the
# client may come after it ran out; a key once the inhibitor is held makes either start
# the same (display on, the timer restarted), and from there no blanking may come while
# the inhibitor is held, however long.
"$comp/uinput-type" a "$out/wake3" go "$(secs 120)" >"$out/typer3" 2>&1 &
typer=$!
sleep 1
udevadm settle --timeout=10
# APP outlives the inhibitor: wbc ends when APP does.
wbc_start --mode 640x480 --blank-after 4 -- sh -c "\"$comp/power-client\" inhibit \"$out/release\" \
	$(secs 180) >\"$out/inhibit\" 2>&1; exec sleep $(secs 180)" >"$out/log3" 2>&1
wait_for 60 grep -q inhibiting "$out/inhibit" || fail "power-client inhibit did not start"
echo go >"$out/wake3"
wait $typer || { cat "$out/typer3"; fail "the key was not typed"; }
offs() { grep -ac 'turning the display off' "$out/log3"; }
if [ "$(offs)" != 0 ]; then
	note "blanked before the inhibitor came (slow guest): woken by a key"
	wait_for 60 said "$out/log3" 'input: turning the display on' || { cat "$out/log3"; fail "a key did not wake the display"; }
fi
n0=$(offs)
sleep "$(secs 8)"
[ "$(offs)" = "$n0" ] || { cat "$out/log3"; fail "blanked despite the idle inhibitor"; }
crtc_active || fail "no CRTC active while the inhibitor is held"
grep -q released "$out/inhibit" && fail "the inhibitor went before the check ended"
note "inhibitor held for 8 s of --blank-after 4: display on"
touch "$out/release"
wait_for 60 grep -q released "$out/inhibit" || fail "power-client did not release its inhibitor"
blanked_again() { [ "$(offs)" -gt "$n0" ]; }
wait_for 60 blanked_again || { cat "$out/log3"; fail "no blanking after the inhibitor went"; }
wbc_stop
rc=$?
cat "$out/log3"
check_log "$out/log3"
[ $rc = 0 ] || fail "inhibitor: wbc exited $rc"
note "after the inhibitor went: blanked"
echo PASS
