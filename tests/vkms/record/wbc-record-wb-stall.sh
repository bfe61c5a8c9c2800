#!/bin/bash
# The writeback watchdog (compositor/capture.c): when a shown capture's frame never comes
# (Linux 6.1 VKMS can lose a writeback job, and the KMS backend then holds every later
# commit back), wbc says so in one line, switches to readback and keeps recording and
# displaying. WBC_DEBUG_LOSE_WRITEBACK_AFTER=5 loses every writeback frame after the 5th.
# With ffv1 the decoded frames still equal what wbc handed to the encoder, and carry the
# client's frame numbers in order, before and after the switch.
. "$(dirname "$0")/lib.sh"
WBC_DEBUG_LOSE_WRITEBACK_AFTER=5 wbc --mode 640x480 --fps 10 --codec ffv1 \
	--record "$out/stall.mkv" --duration 8 --stats --debug-frame-checksums "$out/sums" \
	-- "$client" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_sanitizers "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q '^wbc: capture: writeback (' "$out/log" || fail "did not start with writeback"
[ "$(grep -c 'wbc: Writeback-1: capture: writeback stalled .*switching to readback' "$out/log")" = 1 ] ||
	fail "not one 'writeback stalled' line"
grep -q 'wbc: recording stopped' "$out/log" && fail "the recording stopped"
check_final "$out/log"
check_display_goes_on "$out/log" "writeback stalled"
sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/submitted"
decode "$out/stall.mkv" bgr0 | "$tool" fnv 640 480 >"$out/decoded" || fail "decoding failed"
s=$(wc -l <"$out/submitted")
note "$s frames handed to the encoder (at most 5 by writeback), $(wc -l <"$out/decoded") decoded"
[ "$s" -ge 10 ] || fail "only $s frames: the recording did not go on by readback"
cmp -s "$out/submitted" "$out/decoded" || fail "decoded frames differ from what was encoded"
decode "$out/stall.mkv" bgr0 | "$tool" pattern 640 480 bgr0 >"$out/numbers"
check_numbers "$out/numbers" 8
echo PASS
