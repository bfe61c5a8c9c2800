#!/bin/bash
# Every recorded frame is a frame the client drew, pixel for pixel: wbc records the pattern
# client at its full rate for 8 s with ffv1 (lossless), and frame-tool redraws the pattern
# frame each decoded frame names and compares every pixel (an oracle that does not trust
# wbc). Leading frames from before the client's first frame are allowed; after that no
# frame may fail to decode, differ, or go back. On a patched VKMS no writeback frame may be
# lost (check_log). On stock VKMS a job is usually lost within seconds (doc/vkms.md): the
# recording must still hold only the client's frames, and the test says what wbc did.
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 --codec ffv1 --record "$out/exact.mkv" --duration "$(secs 8)" --stats \
	-- "$client" >"$out/log" 2>&1
rc=$?
grep -a '^wbc: capture\|^wbc: recording\|^wbc: rec final\|writeback frame lost\|stalled' "$out/log"
check_log "$out/log"
[ $rc = 0 ] || { cat "$out/log"; fail "wbc exited $rc"; }
check_final "$out/log"
lost=$(grep -ac 'capture: writeback frame lost' "$out/log")
if grep -aq 'capture: writeback stalled' "$out/log"; then
	note "wbc lost $lost writeback frames, then recorded the rest by readback"
elif [ "$lost" -gt 0 ]; then
	note "wbc lost $lost writeback frames and recaptured the screen each time"
else
	note "no writeback frame lost"
fi

decode "$out/exact.mkv" bgr0 | "$tool" exact 640 480 >"$out/exact" || fail "decoding failed"
python3 - "$out/exact" <<'PY' || fail "a recorded frame is not a frame the client drew"
import sys
lines = open(sys.argv[1]).read().split('\n')[:-1]
lead = 0
while lead < len(lines) and lines[lead] == 'bad':
    lead += 1
rest = lines[lead:]
wrong = [(i + lead, l) for i, l in enumerate(rest) if not l.isdigit()]
print('# %d frames decoded: %d before the client drew, %d exact, %d not' %
      (len(lines), lead, len(rest) - len(wrong), len(wrong)))
if wrong:
    sys.exit('frames that are not the client\'s: %s' % wrong[:10])
n = [int(x) for x in rest]
if any(b < a for a, b in zip(n, n[1:])):
    sys.exit('frame numbers go back')
if len(set(n)) < 10:
    sys.exit('only %d distinct client frames' % len(set(n)))
print('# client frames %d..%d, %d distinct, every one pixel-exact' % (n[0], n[-1], len(set(n))))
PY
echo PASS
