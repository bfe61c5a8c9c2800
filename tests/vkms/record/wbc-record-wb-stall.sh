#!/bin/bash
# Lost writeback jobs (Linux 6.1 VKMS can lose one, and its out-fence never signals): the
# KMS backend gives each up after its fence timeout (1 s) and lets the held-back commits
# go; wbc says so for each, and after 3 in a row (compositor/capture/capture.c) switches to
# readback and keeps recording and displaying. WBC_DEBUG_LOSE_WRITEBACK_AFTER=5 gives the
# backend, for every capture after the 5th, a fence that never signals.
# With ffv1 the decoded frames still equal what wbc handed to the encoder, and carry the
# client's frame numbers in order, before and after the switch.
. "$(dirname "$0")/lib.sh"
export WBC_TEST_LOSES_WRITEBACK="WBC_DEBUG_LOSE_WRITEBACK_AFTER=5 withholds every fence after the 5th capture"
# APP: the client, until wbc switched to readback, 8 more frames were captured (at least
# 12 in all) and 2 more --stats lines came; then it stops wbc (SIGTERM, as --duration would) while the client still
# draws. The run waits for events, not for a time that a loaded guest may not meet.
cat >"$out/app.sh" <<'APP'
log=$1; "$2" & c=$!
trap 'kill $c; exit 0' TERM
captured() { grep -a '^wbc: rec captured=' "$log" | tail -1 | sed 's/.*captured=\([0-9]*\).*/\1/'; }
until grep -q 'switching to readback' "$log"; do sleep 0.5; done
n=$(( $(captured) + 8 )); [ "$n" -ge 12 ] || n=12
lines=$(( $(grep -ac '^wbc: rec captured=' "$log") + 2 ))
until [ "$(captured)" -ge "$n" ] && [ "$(grep -ac '^wbc: rec captured=' "$log")" -ge "$lines" ]; do
	sleep 0.5
done
kill -TERM $PPID
wait $c
APP
WBC_DEBUG_LOSE_WRITEBACK_AFTER=5 wbc --mode 640x480 --fps 10 --codec ffv1 \
	--record "$out/stall.mkv" --stats --debug-frame-checksums "$out/sums" \
	-- sh "$out/app.sh" "$out/log" "$client" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q '^wbc: capture: writeback (' "$out/log" || fail "did not start with writeback"
lost=$(grep -o "wbc: $shown: capture: writeback frame lost ([0-9]* in a row): the writeback out-fence of Writeback-1 had not signalled 1000 ms" "$out/log" |
	sed 's/.*lost (\([0-9]*\) in a row.*/\1/' | tr '\n' ' ')
note "lost frames reported (count in a row): $lost"
# A real VKMS loss may come before the hook's, and a frame after it resets the count: the
# counts start at 1, each is 1 or one more than the one before, and the last is 3.
python3 -c 'import sys; n = [int(x) for x in sys.argv[1:]]
sys.exit(not (n and n[0] == 1 and n[-1] == 3 and all(b in (1, a + 1) for a, b in zip(n, n[1:]))))' $lost ||
	fail "lost frames not counted 1, 2, 3 in a row: $lost"
[ "$(grep -c "wbc: $shown: capture: writeback stalled (3 frames in a row lost;.*switching to readback" "$out/log")" = 1 ] ||
	fail "not one 'writeback stalled' line"
# A capture armed before the switch may be given up too (while the pool drains): >= 3.
wl=$(stat "$out/log" writeback_lost)
note "stats: writeback_lost=$wl"
[ "${wl:-0}" -ge 3 ] || fail "stats writeback_lost=$wl, want >= 3"
grep -q 'wbc: recording stopped' "$out/log" && fail "the recording stopped"
check_final "$out/log"
check_display_goes_on "$out/log" "writeback stalled"
sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/submitted"
decode "$out/stall.mkv" bgr0 | "$tool" fnv 640 480 "$out/numbers" >"$out/decoded" ||
	fail "decoding failed"
s=$(wc -l <"$out/submitted")
note "$s frames handed to the encoder (at most 5 by writeback), $(wc -l <"$out/decoded") decoded"
[ "$s" -ge 10 ] || fail "only $s frames: the recording did not go on by readback"
cmp -s "$out/submitted" "$out/decoded" || fail "decoded frames differ from what was encoded"
check_numbers "$out/numbers" 8
echo PASS
