#!/bin/bash
# Input: a uinput pointer moves the cursor; the client under it receives the motion.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the device.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=detect_leaks=0   # see wbc-input.sh
"$WBC_TEST_BIN/uinput-move" 4 3 30 "$out/ptr" configured >"$out/mover" 2>&1 &
mover=$!
sleep 1
udevadm settle --timeout=10
wbc -v --mode 640x480 -- sh -c "\"$WBC_TEST_BIN/key-client\" --pointer 10 >\"$out/ptr\"" \
	>"$out/log" 2>&1
rc=$?
wait $mover
cat "$out/mover" "$out/ptr"
check_sanitizers "$out/log"
[ $rc = 0 ] || fail "wbc/key-client --pointer exited $rc"
# The cursor moved down-right: the positions the client saw grow in x and y.
python3 - "$out/ptr" <<'PY' || fail "pointer positions did not move as the device did"
import sys
pts = [tuple(map(int, l.split()[1:3])) for l in open(sys.argv[1]) if l.split()[0] == "motion"]
assert len(pts) >= 10, pts
assert pts[-1][0] - pts[0][0] >= 20 and pts[-1][1] - pts[0][1] >= 15, pts
assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(pts, pts[1:])), pts
print(f"pointer: {len(pts)} motions from {pts[0]} to {pts[-1]}")
PY
echo PASS
