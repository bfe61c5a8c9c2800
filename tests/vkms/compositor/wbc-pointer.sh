#!/bin/bash
# Input and cursor: a uinput pointer moves the cursor; the client under it receives the
# motion and sets its own cursor image (16x16 magenta, hotspot (2, 3)); the last writeback
# frame (the recording ends on what the screen shows) has that image exactly where the
# client saw the pointer last. wbc-pointer.sh hardware|software: which cursor path wbc must
# say it used (the guest has a cursor plane, or was booted with vkms.enable_cursor=0).
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the device.
. "$(dirname "$0")/lib.sh"
want=${1:?hardware or software}
"$WBC_TEST_BIN/uinput-move" 4 3 30 "$out/ptr" configured "$(secs 60)" >"$out/mover" 2>&1 &
mover=$!
sleep 1
udevadm settle --timeout=10
# APP: the client until it saw 20 of the 30 moves and then none for 2 s (the device is
# done); then it stops wbc (SIGTERM) with the cursor still up.
cat >"$out/app.sh" <<'APP'
"$1/key-client" --pointer --cursor 20 >"$2" & c=$!
trap 'kill $c; exit 0' TERM
until grep -q '^motions: ' "$2"; do sleep 0.5; done
n=0
until [ "$n" = "$(wc -l <"$2")" ]; do n=$(wc -l <"$2"); sleep 2; done
kill -TERM $PPID
wait $c
APP
wbc -v --mode 640x480 --fps 5 --codec ffv1 --record "$out/ptr.mkv" \
	-- sh "$out/app.sh" "$WBC_TEST_BIN" "$out/ptr" >"$out/log" 2>&1
rc=$?
wait $mover
mover_rc=$?
cat "$out/mover" "$out/ptr"
grep -a 'wbc: ' "$out/log" | grep -av '\[DEBUG\]' | grep -a 'cursor\|capture\|stats\|stalled\|lost'
check_log "$out/log"
[ $mover_rc = 0 ] || fail "uinput-move exited $mover_rc"
[ $rc = 0 ] || fail "wbc/key-client --pointer exited $rc"
grep -q '^cursor set$' "$out/ptr" || fail "the client did not set its cursor"
# The cursor moved down-right: the positions the client saw grow in x and y.
python3 - "$out/ptr" <<'PY' || fail "pointer positions did not move as the device did"
import sys
pts = [tuple(map(int, l.split()[1:3])) for l in open(sys.argv[1]) if l.split()[0] == "motion"]
assert len(pts) >= 10, pts
assert pts[-1][0] - pts[0][0] >= 20 and pts[-1][1] - pts[0][1] >= 15, pts
assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(pts, pts[1:])), pts
print(f"pointer: {len(pts)} motions from {pts[0]} to {pts[-1]}")
PY
# Which path: said in the log and counted in the stats.
planes=$(stat "$out/log" cursor_plane_commits)
note "cursor_plane_commits=$planes"
case $want in
hardware)
	grep -aq "wbc: $shown: cursor: hardware, on cursor plane [0-9]*" "$out/log" ||
		fail "wbc did not say it used the cursor plane"
	[ "${planes:-0}" -gt 0 ] || fail "no commit showed the cursor plane";;
software)
	grep -aq "wbc: $shown: cursor: software (CRTC [0-9]* has no cursor plane)" "$out/log" ||
		fail "wbc did not say it draws the cursor in software"
	[ "$planes" = 0 ] || fail "$planes commits used a cursor plane there is none of";;
esac
# The last frame: the cursor image at the last position (less the hotspot), whole.
last_frame "$out/ptr.mkv" "$out/last.ppm" || fail "decoding the recording failed"
last=$(grep '^motion ' "$out/ptr" | tail -1 | cut -d' ' -f2-3)
box=$(ppm box "$out/last.ppm" ff00ff)
note "last motion at $last; magenta box in the last frame (x y w h pixels): $box"
python3 - "$last" "$box" <<'PY' || fail "the cursor image is not at the pointer in the last frame"
import sys
x, y = map(int, sys.argv[1].split())
bx, by, bw, bh, n = map(int, sys.argv[2].split())
# The client's position is the cursor's rounded to 1/256, wlroots' truncated: allow 1 px.
assert abs(bx - (x - 2)) <= 1 and abs(by - (y - 3)) <= 1, (bx, by, x, y)
assert (bw, bh, n) == (16, 16, 256), (bw, bh, n)
PY
echo PASS
