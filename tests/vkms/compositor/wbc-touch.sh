#!/bin/bash
# Touch from the kernel to a client: a uinput multitouch screen (type B slots, device
# range X 1000..11239, Y 500..8179: 16 units a pixel at 640x480) plays fingers through
# libinput and wbc to touch-client, which prints each wl_touch event as it came.
#  1. A 640x480 client (the whole output): fingers at the device's (min,min) and
#     (max,max) and at known points are at exactly those surface pixels (to wl_fixed's
#     1/256); three fingers down at once get three distinct ids, each kept by its
#     finger's motion and up; down, motion and up come in the frames the device sent.
#  2. A 320x240 client, which wbc centres at (160,120): a finger landing on no surface
#     goes nowhere, not even when it slides onto the client; a finger landing on the
#     client gets positions relative to it, also once it slides off it.
#  wbc-touch.sh two-outputs (wbc-touch-two-outputs): on virtio-gpu with two heads (the
#     second forced connected), both lit side by side (--outputs extend, the default),
#     only run 1 with a 1280x480 client spanning both: the screen must cover the first
#     output alone (the events are run 1's), as the whole 1280x480 layout would put
#     (max,max) at x 1279.9 and the middle at x 640. Then a touchscreen whose udev
#     WL_OUTPUT names Virtual-2 covers that output alone: its corners are (640,0) and
#     (1279.9375,479.9375) of the client.
#  wbc-touch.sh rotated (wbc-touch-rotated): --rotate 90, a 480x640 client (the turned
#     screen): the touchscreen is fixed to the 640x480 panel, whose pixel (px, py) shows
#     the client's (480 - py, px) (how wlroots draws turned: wbc-rotate checks those
#     pixels against the client's), so fingers at panel points land there; then the same
#     with the output turned by wlr-randr (--allow-output-config) before the client starts.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the device.
. "$(dirname "$0")/lib.sh"
mode=${1:-one-output}
size=()
if [ "$mode" = two-outputs ]; then
	shown=Virtual-1               # the first output
	size=(--size 1280x480)        # APP spans both
	# QEMU connects only the first head until a UI enables more: force the second on,
	# as a monitor plugged in (the kernel gives a forced connector modes up to 1024x768).
	echo on >/sys/class/drm/card0-Virtual-2/status || fail "cannot force Virtual-2 on"
	# Back as found, for the cases after this one in the same boot (guest-batch does not
	# reload virtio-gpu).
	trap 'echo detect >/sys/class/drm/card0-Virtual-2/status' EXIT
	note "Virtual-2: $(cat /sys/class/drm/card0-Virtual-2/status), $(wc -l </sys/class/drm/card0-Virtual-2/modes) modes"
fi
wbc_args=()                          # more wbc options for touch_run
app_first=                           # a shell command APP runs before touch-client

# touch_run NAME CLIENT-ARGS: wbc with touch-client CLIENT-ARGS writing $out/NAME, and a
# touchscreen playing stdin once the client is shown.
touch_run() {
	local name=$1 script; shift
	script=$(cat)                # not in the background job, whose stdin is /dev/null
	rm -f "$out/$name"
	{
		echo "wait $out/$name touch $(secs 60)"
		echo "wait $out/$name shown $(secs 60)"
		echo "$script"
	} | "$WBC_TEST_BIN/uinput-script" touch >"$out/$name.player" 2>&1 &
	local player=$!
	sleep 1
	udevadm settle --timeout=10
	wbc -v --mode 640x480 "${wbc_args[@]}" -- \
		sh -c "$app_first \"$WBC_TEST_BIN/touch-client\" $* >\"$out/$name\"" \
		>"$out/$name.log" 2>&1
	local rc=$?
	wait $player
	local player_rc=$?
	cat "$out/$name.player" "$out/$name"
	grep -a 'wbc: ' "$out/$name.log" | grep -av 'DEBUG\]' | grep -a 'touch\|input device\|output '
	check_log "$out/$name.log"
	[ $player_rc = 0 ] || fail "$name: uinput-script exited $player_rc"
	[ $rc = 0 ] || { grep -av 'DEBUG\]' "$out/$name.log" | tail -30
		fail "$name: wbc/touch-client exited $rc"; }
	grep -aq "wbc: touch device wbc-test-touchscreen: on output $shown" "$out/$name.log" ||
		fail "$name: wbc did not map the touchscreen to $shown"
}

# expect FILE EVENTS...: the client's events (after "shown") are exactly EVENTS, where a
# finger is a letter: its first event binds it to the id the client got, and two fingers
# down at once must have different ids.
expect() {
	python3 - "$@" <<'PY'
import sys
path, want = sys.argv[1], sys.argv[2:]
lines = [l.split() for l in open(path)]
got = [l for l in lines if l[0] in ("down", "motion", "up", "frame", "cancel")]
ids, down = {}, {}
def bad(why):
    sys.exit(f"{path}: {why}\n  want: {want}\n  got:  {[' '.join(l) for l in got]}")
if len(got) != len(want):
    bad(f"{len(got)} events, want {len(want)}")
for g, w in zip(got, want):
    w = w.split()
    if g[0] != w[0]:
        bad(f"'{' '.join(g)}' where '{' '.join(w)}' belongs")
    if w[0] in ("frame", "cancel"):
        continue
    finger, gid = w[1], int(g[1])
    if w[0] == "down":
        if gid in down.values():
            bad(f"finger {finger} got id {gid}, which a finger still down has")
        ids[finger] = down[finger] = gid
    elif ids.get(finger) != gid:
        bad(f"finger {finger} (id {ids.get(finger)}) came with id {gid}")
    if w[0] == "up":
        down.pop(finger)
    if w[0] in ("down", "motion"):
        x, y = float(g[2]), float(g[3])
        # Exact: the device's units are 1/16 pixel, which wl_fixed (1/256) holds.
        if (x, y) != (float(w[2]), float(w[3])):
            bad(f"'{' '.join(g)}': finger {finger} is at ({w[2]}, {w[3]})")
print(f"{path}: {len(got)} events as expected, ids {ids}")
PY
}

# Device units of a surface pixel (touch_run's screen covers 640x480 from 1000,500).
dx() { echo $((1000 + 16 * $1)); }
dy() { echo $((500 + 16 * $1)); }

# rotated_touches NAME: touch_run NAME with the points of the rotated case, checked.
rotated_touches() {
	touch_run "$1" --size 480x640 2 <<EOF
down 0 $(dx 100) $(dy 75)
sync
move 0 $(dx 330) $(dy 250)
sync
up 0
sync
down 0 $(dx 600) $(dy 400)
sync
up 0
sync
EOF
	expect "$out/$1" "down A 405 100" frame "motion A 230 330" frame "up A" frame \
		"down B 80 600" frame "up B" frame || fail "$1: the touches on the turned screen"
}

if [ "$mode" = rotated ]; then
	wbc_args=(--rotate 90)
	rotated_touches rotated
	grep -aq 'wbc: Virtual-1: 640x480@[0-9.]* Hz, transform 90, scale 1: 480x640 logical' \
		"$out/rotated.log" || fail "wbc did not say the output is turned"
	# The same turn made by wlr-randr while wbc runs: touch follows the new transform.
	wbc_args=(--allow-output-config)
	app_first="wlr-randr --output Virtual-1 --transform 90 || exit 9;"
	rotated_touches randr
	grep -aq 'wbc: Virtual-1: now 640x480@[0-9.]* Hz, transform 90, scale 1: 480x640 logical' \
		"$out/randr.log" || fail "wlr-randr did not turn the output"
	echo PASS
	exit 0
fi

touch_run full "${size[@]}" 5 <<EOF
down 0 1000 500
sync
up 0
sync
down 0 11239 8179
sync
up 0
sync
down 0 $(dx 320) $(dy 240)
down 1 $(dx 100) $(dy 75)
sync
down 2 $(dx 500) $(dy 375)
sync
move 0 $(dx 330) $(dy 250)
move 2 $(dx 490) $(dy 365)
sync
up 1
sync
move 0 $(dx 340) $(dy 260)
sync
up 0
up 2
sync
EOF
expect "$out/full" "down A 0 0" frame "up A" frame \
	"down B 639.9375 479.9375" frame "up B" frame \
	"down C 320 240" "down D 100 75" frame "down E 500 375" frame \
	"motion C 330 250" "motion E 490 365" frame "up D" frame \
	"motion C 340 260" frame "up C" "up E" frame || fail "the touches of the full-size client"
if [ "$mode" = two-outputs ]; then
	lit=$(grep -ac '^.*wbc: Virtual-[0-9]*: 640x480@' "$out/full.log")
	note "outputs lit: $lit"
	grep -a 'wbc: Virtual-[0-9]*: 640x480@' "$out/full.log"
	[ "$lit" = 2 ] || fail "wbc lit $lit outputs, not 2: the mapping to one was not tested"
	# A touchscreen whose udev WL_OUTPUT (libinput's output name) names the second output
	# covers that one: the device's corners are the right half's.
	mkdir -p /run/udev/rules.d
	echo 'SUBSYSTEM=="input", ATTRS{name}=="wbc-test-touchscreen", ENV{WL_OUTPUT}="Virtual-2"' \
		>/run/udev/rules.d/90-wbc-test-touch.rules
	udevadm control --reload
	shown=Virtual-2
	touch_run second "${size[@]}" 2 <<EOF
down 0 1000 500
sync
up 0
sync
down 0 11239 8179
sync
up 0
sync
EOF
	rm -f /run/udev/rules.d/90-wbc-test-touch.rules
	udevadm control --reload
	expect "$out/second" "down A 640 0" frame "up A" frame \
		"down B 1279.9375 479.9375" frame "up B" frame || fail "the touches on Virtual-2"
	echo PASS
	exit 0
fi

# The 320x240 client covers (160,120)..(480,360) of the output.
touch_run small --size 320x240 1 <<EOF
down 0 $(dx 40) $(dy 30)
sync
move 0 $(dx 320) $(dy 240)
sync
up 0
sync
down 0 $(dx 200) $(dy 150)
sync
move 0 $(dx 20) $(dy 10)
sync
up 0
sync
EOF
expect "$out/small" "down A 40 30" frame "motion A -140 -110" frame "up A" frame ||
	fail "the touches of the centred 320x240 client"
echo PASS
