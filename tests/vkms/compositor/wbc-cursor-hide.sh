#!/bin/bash
# The cursor hides while touch is in use and after --hide-cursor SECONDS without pointer
# motion, and comes back with the next pointer motion. The witness is the kernel: the
# cursor plane's FB_ID (cursor-plane, polling; 0 is no cursor). The client is the whole
# screen and sets its own cursor image on pointer enter (key-client --pointer --cursor:
# 16x16 magenta); a uinput pointer and a uinput touchscreen (uinput-script) are driven
# step by step. Two runs, so that the timer cannot be what hides the cursor on a touch:
#  touch: at start, with the client's image set (on the enter wbc sends when the client
#    maps under the still pointer), no cursor: nobody has pointed yet; pointer motion
#    shows it; a finger down and up hides it; pointer motion shows it again, and the
#    recording's last frame has the client's image whole (it came back with the cursor).
#  idle (--hide-cursor 10): pointer motion shows the cursor; it hides by itself, seen no
#    sooner than 10 s after the motion was sent; pointer motion shows it again.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the devices.
. "$(dirname "$0")/lib.sh"
hide=10

plane() { "$WBC_TEST_BIN/cursor-plane" "$@"; }

# played WHO TEXT: the uinput player WHO (touch, ptr) has played everything up to a
# "say TEXT" (its output has that line).
played() {
	echo "say $2" >&"$([ "$1" = touch ] && echo 3 || echo 4)"
	local i
	for ((i = 0; i < $(secs 60) * 10; i++)); do
		grep -qx "$2" "$out/$1.player" && return 0
		sleep 0.1
	done
	die "uinput-script $1 never played up to '$2'"
}

move_pointer() {
	local i
	for i in 1 2 3; do echo "rel 3 2" >&4; echo "sleep 50" >&4; done
	played ptr "$1"
}

# start_run NAME WBC-ARGS...: the two devices (fds 3 and 4 play into them), then wbc
# WBC-ARGS with the client in the background, until the client has set its cursor.
start_run() {
	run=$1; shift
	rm -f "$out/ptr" "$out/stop" "$out/touch.in" "$out/ptr.in"
	mkfifo "$out/touch.in" "$out/ptr.in"
	"$WBC_TEST_BIN/uinput-script" touch <"$out/touch.in" >"$out/touch.player" 2>&1 &
	touch_player=$!
	"$WBC_TEST_BIN/uinput-script" pointer <"$out/ptr.in" >"$out/ptr.player" 2>&1 &
	ptr_player=$!
	exec 3>"$out/touch.in" 4>"$out/ptr.in"
	sleep 1
	udevadm settle --timeout=10
	# Up to 200 s: each step waits for the kernel's state, slow in the TCG guest.
	WBC_TEST_DEADLINE=200 wbc -v --mode 640x480 "$@" \
		-- sh "$out/app.sh" "$WBC_TEST_BIN" "$out/ptr" "$out/stop" >"$out/$run.log" 2>&1 &
	wbc_pid=$!
	local i
	for ((i = 0; i < $(secs 60) * 2; i++)); do
		grep -q '^cursor set$' "$out/ptr" 2>/dev/null && break
		sleep 0.5
	done
	grep -q '^cursor set$' "$out/ptr" || die "the client never set its cursor"
}

# end_run: APP ends (and with it wbc), the devices go; wbc's status is $rc.
end_run() {
	touch "$out/stop"
	wait $wbc_pid
	rc=$?
	exec 3>&- 4>&-
	wait $touch_player $ptr_player
	grep -a 'wbc: ' "$out/$run.log" | grep -av '\[DEBUG\]' | grep -a 'cursor\|input device\|touch'
	grep -a 'wbc: cursor \(hidden\|shown\)' "$out/$run.log"
	check_log "$out/$run.log"
}

# die WHY: stop this run, show what wbc and the players said, fail.
die() {
	end_run
	grep -a 'wbc: \|libinput' "$out/$run.log" | grep -av 'DEBUG\] \[' | tail -30
	cat "$out/ptr.player" "$out/touch.player"
	tail -5 "$out/ptr"
	fail "$run: $*"
}

# APP: the client until $3 appears.
cat >"$out/app.sh" <<'APP'
"$1/key-client" --pointer --cursor 100000 >"$2" & c=$!
until [ -e "$3" ]; do sleep 0.5; done
kill $c
APP

start_run touch --fps 5 --codec ffv1 --record "$out/c.mkv"
# Time for wbc to show the image the client set, if it (wrongly) would.
sleep 2
fb=$(plane) || die "cannot read the cursor plane"
[ "$fb" = fb=0 ] || die "the cursor shows before any pointer motion ($fb)"
note "touch: at start, with the client's image set: cursor plane $fb"
move_pointer moved-1
fb=$(plane wait shown "$(secs 30)") || die "pointer motion did not show the cursor"
note "touch: pointer motion: cursor plane $fb"
printf 'down 0 6000 4000\nsync\nsleep 100\nup 0\nsync\n' >&3
played touch touched
fb=$(plane wait hidden "$(secs 30)") || die "a touch did not hide the cursor"
note "touch: a finger down and up: cursor plane $fb"
move_pointer moved-2
fb=$(plane wait shown "$(secs 30)") || die "pointer motion after a touch did not show the cursor"
note "touch: pointer motion: cursor plane $fb"
sleep 1
end_run
[ $rc = 0 ] || fail "touch: wbc/key-client exited $rc"
last_frame "$out/c.mkv" "$out/last.ppm" || fail "decoding the recording failed"
box=$(ppm box "$out/last.ppm" ff00ff)
note "touch: magenta box in the last frame (x y w h pixels): $box"
[ "$(echo "$box" | cut -d' ' -f3-5)" = "16 16 256" ] ||
	fail "touch: the last frame does not show the client's 16x16 cursor image whole"

start_run idle --hide-cursor $hide
before=$(date +%s.%N)              # no later than the motion
move_pointer moved-1
fb=$(plane wait shown "$(secs 30)") || die "pointer motion did not show the cursor"
note "idle: pointer motion: cursor plane $fb"
fb=$(plane wait hidden "$(secs $((hide + 60)))") ||
	die "the cursor did not hide after $hide s without pointer motion"
after=$(awk -v a="${fb#* at }" -v b="$before" 'BEGIN { printf "%.1f", a - b }')
note "idle: cursor plane off ($fb), $after s after the motion was sent"
awk -v a="$after" -v h=$hide 'BEGIN { exit !(a >= h) }' ||
	die "the cursor hid after $after s, before --hide-cursor's $hide"
move_pointer moved-2
fb=$(plane wait shown "$(secs 30)") || die "pointer motion after --hide-cursor did not show the cursor"
note "idle: pointer motion: cursor plane $fb"
end_run
[ $rc = 0 ] || fail "idle: wbc/key-client exited $rc"
echo PASS
