#!/bin/bash
# Must show 1: weston-simple-shm runs fullscreen and draws; two writeback frames a second
# apart differ. simple-shm draws a fixed 250x250 window (centred on the 640x480 output),
# so "non-black" is checked against that window's share of the screen.
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 --screenshot-after 3 "$out/a.ppm" --screenshot-after 4 "$out/b.ppm" \
	--duration 5 -- weston-simple-shm >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_sanitizers "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc (want 0 after --duration)"
[ -s "$out/a.ppm" ] && [ -s "$out/b.ppm" ] || fail "screenshots missing"
[ "$(ppm size "$out/a.ppm")" = 640x480 ] || fail "screenshot is $(ppm size "$out/a.ppm")"
nb=$(ppm nonblack "$out/a.ppm"); diff=$(ppm diff "$out/a.ppm" "$out/b.ppm")
note "non-black fraction $nb (the 250x250 window is 0.2035 of 640x480), changed $diff"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.19) }' || fail "only $nb of the screen is non-black"
awk -v v="$diff" 'BEGIN { exit !(v >= 0.05) }' || fail "shots a second apart differ in only $diff"
echo PASS
