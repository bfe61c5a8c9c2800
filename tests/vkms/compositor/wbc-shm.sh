#!/bin/bash
# Must show 1: weston-simple-shm runs fullscreen and draws; two writeback frames a second
# apart differ. simple-shm draws a fixed 250x250 window (centred on the 640x480 output),
# so "non-black" is checked against that window's share of the screen; that wbc asked it
# to be fullscreen at the output's size is read from the client's own protocol log.
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 --screenshot-after 3 "$out/a.ppm" --screenshot-after 4 "$out/b.ppm" \
	--duration 5 -- env WAYLAND_DEBUG=client weston-simple-shm >"$out/log" 2>&1
rc=$?
grep -v '^\[' "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc (want 0 after --duration)"
# xdg_toplevel.configure(width, height, states): the output's 640x480 and a non-empty
# state list (WAYLAND_DEBUG prints only its size: fullscreen, plus activated once focused).
grep -m1 -E 'xdg_toplevel@[0-9]+\.configure\(' "$out/log" >"$out/configure" ||
	fail "simple-shm got no xdg_toplevel.configure"
note "first toplevel configure: $(cat "$out/configure")"
grep -Eq 'configure\(640, 480, array\[(4|8)\]\)' "$out/configure" ||
	fail "not configured fullscreen at 640x480: $(cat "$out/configure")"
[ -s "$out/a.ppm" ] && [ -s "$out/b.ppm" ] || fail "screenshots missing"
[ "$(ppm size "$out/a.ppm")" = 640x480 ] || fail "screenshot is $(ppm size "$out/a.ppm")"
nb=$(ppm nonblack "$out/a.ppm"); diff=$(ppm diff "$out/a.ppm" "$out/b.ppm")
note "non-black fraction $nb (the 250x250 window is 0.2035 of 640x480), changed $diff"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.19) }' || fail "only $nb of the screen is non-black"
awk -v v="$diff" 'BEGIN { exit !(v >= 0.05) }' || fail "shots a second apart differ in only $diff"
echo PASS
