#!/bin/bash
# The encoder falls behind: libx264 at preset=veryslow in the emulated guest takes far
# longer per frame than a refresh, with no --fps cap (every flip is due). Frames that
# cannot be taken are not captured (skipped_busy: the queue would be full with the
# frames already on their way), never waited for, and none captured is dropped (the
# display engine writes no frame the recorder cannot queue): the display keeps flipping
# at its own pace (flips rise in every stats line and end up several times the frames
# encoded), the final counters add up, and the file holds exactly the encoded frames, in
# order.
# Missed vblanks are printed (not asserted: the TCG guest's vCPUs stall on a loaded host).
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 --record "$out/slow.mkv" --codec libx264 --codec-opt preset=veryslow \
	--stats --duration 12 -- "$client" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
check_final "$out/log"
e=$(rec_final "$out/log" encoded); d=$(rec_final "$out/log" dropped)
sb=$(rec_final "$out/log" skipped_busy)
flips=$(stat "$out/log" flips); missed=$(stat "$out/log" missed_vblanks)
note "encoded=$e dropped=$d skipped_busy=$sb flips=$flips missed_vblanks=$missed"
[ "$sb" -gt 0 ] || fail "the encoder kept up (no flip skipped): no test"
[ "$d" = 0 ] || fail "$d captured frames dropped: captured although the queue would be full"
[ "$flips" -ge $((3 * e)) ] || fail "flips=$flips < 3 x encoded=$e: the display waited?"
check_display_goes_on "$out/log" "wbc: recording $shown"
decode "$out/slow.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding failed"
n=$(wc -l <"$out/numbers")
[ "$n" = "$e" ] || fail "decoded $n frames but wbc says it encoded $e"
check_numbers "$out/numbers" 2
echo PASS
