#!/bin/bash
# X11 clients through Xwayland, with Debian's own X clients as witnesses (xwayland,
# x11-utils, x11-apps):
#  1. --no-xwayland: APP gets no DISPLAY (even when wbc had one) and an X client fails
#     with one line; wbc makes no X socket.
#  2. wbc -v records (ffv1, lossless) and serves screencopy; APP is a script of X clients.
#     xdpyinfo starts Xwayland (lazily) and sees a 640x480 screen; xev's window is made
#     fullscreen (ConfigureNotify 640x480 at 0,0), gets the X input focus, the letters a
#     uinput keyboard types ("hello", as key presses in that order) and the motion of a
#     uinput pointer (positions growing as the device moved), then a finger of a uinput
#     touchscreen at (200,150) as button 1 pressed and released there (Xwayland's pointer
#     emulation for a client that does not ask for touch events; X's scaling makes it
#     (199,149)); xwud then shows a 640x480
#     picture of known pixels (x11-image.py), which grim (screencopy: the writeback frame)
#     and the recording's last frame must show exactly, every pixel but those of the
#     cursor (writeback captures the cursor plane too: a 64x64 square at the pointer's
#     last position, as xev saw it, may differ). Over it an
#     override-redirect window (x11-popup: what a menu is) appears where it put itself,
#     whole, and leaves the picture whole again when it goes.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the uinput devices.
# Xwayland's start in the TCG guest takes many seconds: every step waits for its condition.
. "$(dirname "$0")/lib.sh"
export WBC_TEST_DEADLINE=${WBC_TEST_DEADLINE:-700}
patience=$(secs 150)                 # the longest each of the 4 waits may take (< 700 s)
image=$here/x11-image.py

# ---- 1. --no-xwayland ------------------------------------------------------------------
cat >"$out/nox.sh" <<'APP'
echo "DISPLAY=${DISPLAY-unset}" >"$1/nox-display"
xdpyinfo >/dev/null 2>"$1/nox-err"
APP
rm -f /tmp/.X11-unix/X*
DISPLAY=:42 wbc --no-xwayland --mode 640x480 -- sh "$out/nox.sh" "$out" >"$out/nox-log" 2>&1
rc=$?
cat "$out/nox-log"
check_log "$out/nox-log"
note "--no-xwayland: APP saw $(cat "$out/nox-display"); xdpyinfo: $(cat "$out/nox-err")"
[ $rc = 1 ] || fail "--no-xwayland: wbc (xdpyinfo's status) exited $rc, want 1"
grep -qx 'DISPLAY=unset' "$out/nox-display" || fail "--no-xwayland: APP had a DISPLAY"
[ "$(wc -l <"$out/nox-err")" = 1 ] || fail "--no-xwayland: xdpyinfo did not fail in one line"
grep -q 'unable to open display' "$out/nox-err" || fail "--no-xwayland: not xdpyinfo's error"
! ls /tmp/.X11-unix/X* >/dev/null 2>&1 || fail "--no-xwayland: wbc made an X socket"
! grep -aqi 'xwayland' "$out/nox-log" || fail "--no-xwayland: wbc spoke of Xwayland"

# ---- 2. X clients shown, typed into, pointed at, recorded ----------------------------------
python3 "$image" xwd 640 480 "$out/image.xwd" || fail "cannot write the picture"
rm -f "$out/xev"
"$WBC_TEST_BIN/uinput-type" hello "$out/xev" FocusIn "$patience" >"$out/typer" 2>&1 &
typer=$!
"$WBC_TEST_BIN/uinput-move" 4 3 30 "$out/xev" FocusIn "$patience" >"$out/mover" 2>&1 &
mover=$!
# The finger once APP says so (after the keys and the motion); 16 device units a pixel.
rm -f "$out/touch-go"
printf '%s\n' "wait $out/touch-go go $((patience * 2))" "down 0 $((1000 + 16 * 200)) $((500 + 16 * 150))" \
	sync "sleep 200" "up 0" sync | "$WBC_TEST_BIN/uinput-script" touch >"$out/toucher" 2>&1 &
toucher=$!
sleep 1
udevadm settle --timeout=10
# APP: exit 10 xdpyinfo failed, 11 xev never got the keys and motion, 15 nor the touch, 12 the picture never
# came whole to a screencopy, 13 the popup never showed at its place, 14 the picture was
# not whole after it. With the picture up, it stops wbc (SIGTERM): the recording then
# ends on it.
cat >"$out/app.sh" <<'APP'
out=$1 image=$2 patience=$3 bin=$4 ppm=$5
# shot_until CONDITION...: grim screencopies until CONDITION (on $out/shot.ppm) holds.
shot_until() {
	t=0
	until grim -t ppm "$out/shot.ppm" 2>>"$out/grim-err" && "$@"; do
		t=$((t + 1)); [ $t -le "$patience" ] || return 1
		sleep 1
	done
}
# shown whole (but for the cursor, at the pointer's last position)
whole() { python3 "$image" diff "$out/shot.ppm" $cursor >"$out/shot-diff"; }
popup_shown() {
	python3 "$ppm" box "$out/shot.ppm" ff00ff >"$out/popup-box"
	grep -qx '100 50 80 60 4800' "$out/popup-box"
}
echo "DISPLAY=${DISPLAY-unset}" >"$out/display"
xdpyinfo >"$out/xdpyinfo" 2>&1 || exit 10
xev -event keyboard -event mouse -event structure -event focus >"$out/xev" 2>&1 & xev=$!
t=0
until grep -q 'keysym 0x6f, o)' "$out/xev" && [ "$(grep -c '^MotionNotify' "$out/xev")" -ge 20 ]; do
	t=$((t + 1)); [ $t -le "$patience" ] || { kill $xev; exit 11; }
	sleep 1
done
sleep 2                              # the rest of the motion
cursor=$(sed -n 's/.*root:(\([0-9]*\),\([0-9]*\)).*/\1 \2/p' "$out/xev" | tail -1)
echo "$cursor" >"$out/cursor"
echo go >"$out/touch-go"
t=0
until grep -q '^ButtonRelease' "$out/xev"; do
	t=$((t + 1)); [ $t -le "$patience" ] || { kill $xev; exit 15; }
	sleep 1
done
kill $xev; wait $xev
xwud -in "$out/image.xwd" & xwud=$!
shot_until whole || { kill $xwud; exit 12; }
cp "$out/shot-diff" "$out/picture-diff"
"$bin/x11-popup" 100 50 80 60 ff00ff >"$out/popup" & popup=$!
shot_until popup_shown || { kill $popup $xwud; exit 13; }
kill $popup; wait $popup
shot_until whole || { kill $xwud; exit 14; }
sleep 1
kill -TERM $PPID
wait $xwud
APP
start=$(date +%s)
wbc -v --mode 640x480 --allow-capture --codec ffv1 --record "$out/x11.mkv" \
	-- sh "$out/app.sh" "$out" "$image" "$patience" "$WBC_TEST_BIN" "$here/ppm.py" \
	>"$out/log" 2>&1
rc=$?
note "wbc ran $(($(date +%s) - start)) s"
wait $typer; typer_rc=$?
wait $mover; mover_rc=$?
wait $toucher; toucher_rc=$?
grep -a 'wbc: ' "$out/log" | grep -av '\[DEBUG\]' | grep -aiv 'input device'
grep -a 'Xwayland' "$out/log" | grep -av '\[DEBUG\]' | head -5
cat "$out/typer" "$out/mover" "$out/display"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc/APP exited $rc (10: xdpyinfo failed, 11: xev got no keys or motion, 15: nor the touch, 12: no whole picture, 13: no popup at its place ($(cat "$out/popup-box" 2>/dev/null)), 14: picture not whole after it)"
[ $typer_rc = 0 ] || fail "uinput-type exited $typer_rc"
[ $mover_rc = 0 ] || fail "uinput-move exited $mover_rc"
[ $toucher_rc = 0 ] || { cat "$out/toucher"; fail "uinput-script touch exited $toucher_rc"; }
grep -qx 'DISPLAY=:[0-9]*' "$out/display" || fail "APP had no DISPLAY of wbc's"
grep -aq 'wbc: Xwayland ready on DISPLAY=:' "$out/log" || fail "wbc did not say Xwayland was ready"
grep -q 'dimensions: *640x480 pixels' "$out/xdpyinfo" || fail "xdpyinfo did not see 640x480"
note "xdpyinfo: $(grep -E 'vendor string|dimensions' "$out/xdpyinfo" | tr -s ' ' | tr '\n' ';')"
# xev: fullscreen, focus, the keys in order, the motion (x and y growing), then the touch.
python3 - "$out/xev" <<'PY' || fail "xev's window was not fullscreen, focused, typed into, pointed at and touched"
import re, sys
text = open(sys.argv[1]).read()
events = [e for e in text.split('\n\n') if e.strip()]
conf = [tuple(map(int, m.groups())) for e in events if e.startswith('ConfigureNotify')
        for m in [re.search(r'\((-?\d+),(-?\d+)\), width (\d+), height (\d+)', e)] if m]
assert conf and conf[-1] == (0, 0, 640, 480), conf
assert any(e.startswith('FocusIn') for e in events), 'no FocusIn'
keys = [re.search(r'keysym 0x[0-9a-f]+, (\w+)\)', e).group(1) for e in events
        if e.startswith('KeyPress')]
assert keys == list('hello'), keys
first_press = next((i for i, e in enumerate(events) if e.startswith('ButtonPress')), None)
assert first_press is not None, 'no ButtonPress'
presses = [re.search(r'time \d+, \((\d+),(\d+)\).*button (\d+)', e, re.S).groups()
           for e in events if e.startswith(('ButtonPress', 'ButtonRelease'))]
# wbc gives the finger at exactly (200,150); Xwayland hands touch positions to the X server
# as valuators over 0..0xFFFF, which it scales back by (size - 1) / size and truncates:
# (199,149) on a 640x480 screen (measured 2026-12-06).
want = (str(200 * 639 // 640), str(150 * 479 // 480), '1')
assert presses == [want] * 2, (presses, want)
# The device's motion: before the press, less the emulation's move to the finger.
pts = [tuple(map(int, re.search(r'time \d+, \((\d+),(\d+)\)', e).groups()))
       for e in events[:first_press] if e.startswith('MotionNotify')]
while pts and pts[-1] == (int(want[0]), int(want[1])):
    pts.pop()
assert len(pts) >= 20, pts
assert pts[-1][0] - pts[0][0] >= 20 and pts[-1][1] - pts[0][1] >= 15, pts
assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(pts, pts[1:])), pts
print(f"xev: configured {conf[-1]}, FocusIn, keys {''.join(keys)}, "
      f"{len(pts)} motions from {pts[0]} to {pts[-1]}, button 1 pressed and released at "
      f"({want[0]},{want[1]}) by the finger at (200,150)")
PY
# The picture, exactly: in the screencopy image (writeback frames, as the log says) and in
# the recording's last frame.
grep -aq "$(writeback_line | cut -c2-)" "$out/log" || fail "wbc did not record by writeback"
grep -aq 'wbc: screencopy: frame via writeback' "$out/log" || fail "grim's frames were not writeback's"
note "pointer last at $(cat "$out/cursor")"
note "screencopy (grim): $(cat "$out/picture-diff"); popup (x y w h pixels): $(cat "$out/popup-box"); after it: $(cat "$out/shot-diff")"
grep -qx '100 50 80 60 4800' "$out/popup-box" || fail "the popup was not at 100,50 80x60, whole"
last_frame "$out/x11.mkv" "$out/last.ppm" || fail "decoding the recording failed"
# shellcheck disable=SC2046  # X Y
python3 "$image" diff "$out/last.ppm" $(cat "$out/cursor") >"$out/last-diff" ||
	{ cat "$out/last-diff"; fail "the recording does not end on the picture"; }
note "recording's last frame: $(cat "$out/last-diff")"
echo PASS
