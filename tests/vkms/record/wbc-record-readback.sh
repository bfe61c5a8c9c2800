#!/bin/bash
# --capture readback: no writeback, so wbc drives the display (Virtual-1) itself and copies
# each displayed buffer (wlr_buffer data-pointer access on the renderer's dumb buffer).
# With ffv1 the decoded frames equal what was copied (checksums as in
# wbc-record-lossless) and carry the client's frame numbers in order.
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 --fps 10 --capture readback --codec ffv1 --record "$out/rb.mkv" \
	--duration 4 --stats --debug-frame-checksums "$out/sums" -- "$client" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q '^wbc: capture: readback (--capture readback' "$out/log" || fail "no 'capture: readback' line"
grep -q '^wbc: recording Virtual-1 to .*: ffv1 (bgr0) in matroska' "$out/log" ||
	fail "not recording Virtual-1 with ffv1/bgr0"
check_final "$out/log"
# The file spans the recording (<= --duration 4 s; an extra frame interval at most).
# Before the backend replaced Linux 6.1 VKMS's stale first vblank time (0) it was ~26 s.
dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$out/rb.mkv")
note "duration ${dur}s"
python3 -c 'import sys; sys.exit(not 0 < float(sys.argv[1]) <= 4.5)' "$dur" ||
	fail "rb.mkv lasts ${dur}s for a 4 s recording"
check_latency "$out/log"
sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/submitted"
decode "$out/rb.mkv" bgr0 | "$tool" fnv 640 480 "$out/numbers" >"$out/decoded" ||
	fail "decoding failed"
note "$(wc -l <"$out/submitted") frames copied, $(wc -l <"$out/decoded") decoded"
[ "$(wc -l <"$out/submitted")" -ge 5 ] || fail "fewer than 5 frames"
cmp -s "$out/submitted" "$out/decoded" || fail "decoded frames differ from the copies"
check_numbers "$out/numbers" 5
echo PASS
