#!/bin/bash
# Must show 1b: foot starts, is sized to the output and draws (its background is not
# black, so nearly the whole captured frame is non-black). The shot is taken 12 s in: on a
# loaded host foot's start (fontconfig, in the emulated guest) took more than 5 s once.
# The shot is of the first frame captured after 12 s (a starved guest once captured none
# in the 1 s it had): once it is whole (its 640x480 pixels written) APP ends wbc with
# SIGTERM (status 0); --duration 20 bounds the wait.
. "$(dirname "$0")/lib.sh"
export XDG_CONFIG_HOME=/tmp/home/.config
wbc --mode 640x480 --screenshot-after 12 "$out/foot.ppm" --duration 20 -- sh -c '
	foot --override=main.font=monospace:size=10 & f=$!
	until [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge $((640 * 480 * 3)) ]; do
		sleep 0.5
	done
	kill -TERM $PPID
	wait $f' sh "$out/foot.ppm" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
[ -s "$out/foot.ppm" ] || fail "no screenshot"
nb=$(ppm nonblack "$out/foot.ppm")
note "non-black fraction $nb"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.9) }' || fail "foot drew only $nb non-black"
echo PASS
