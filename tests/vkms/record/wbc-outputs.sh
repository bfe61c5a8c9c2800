#!/bin/bash
# Several displays (--outputs, --record-output) on QEMU's virtio-gpu with two heads
# (vkms-run --virtio-gpu 2; the second forced connected, as a monitor plugged in), both
# at 640x480. What each virtual monitor shows is read from the host through QEMU's
# monitor (tests/vm/screendump), an oracle that does not trust wbc. virtio-gpu has no
# writeback connector, so recordings are by readback, and wbc must say why:
#  1. extend (the default): both lit side by side, the pattern client configured to the
#     whole 1280x480 layout; head 0 shows the client's frame exactly (its left half),
#     head 1 exactly the background of its right half (frame-tool ppm-beside 640).
#     wbcctl records Virtual-2 (--output; the default would be Virtual-1): the
#     recording's last frame is that right half, exactly; an output wbc does not drive
#     is refused in one line, status 1.
#  2. mirror with --record-output Virtual-2: both lit, each showing the 640x480 client
#     exactly; the recording is Virtual-2's and decodes to the client's frames exactly.
#     --record-output of an output wbc does not drive: one line, status 1, APP not run.
#  3. last: only Virtual-2 (connected last) lit, showing the client and recorded,
#     Virtual-1 off;
#     when Virtual-2 is unplugged (forced off, and card0's change uevent), Virtual-1 is
#     lit again and shows the client.
. "$(dirname "$0")/lib.sh"
screendump=$rec_here/../../vm/screendump
v2=/sys/class/drm/card0-Virtual-2/status
echo on >$v2 || fail "cannot force Virtual-2 on"
# Back as found for the cases after this one in the same boot (guest-batch does not
# reload virtio-gpu).
trap 'echo detect >$v2' EXIT

# run NAME WBC-ARGS... -- APP-SCRIPT: wbc at 640x480 with APP-SCRIPT (bash, given the
# client, screendump and $out/NAME as $1 $2 $3), its log in $out/NAME.log. The scripts
# look at the screens once the client drew its frame 5 (the frame callbacks of 0-4 came:
# the outputs lit and composing it); wbc's deadline bounds the wait.
run() {
	local name=$1; shift
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	printf '%s\n' "$2" >"$out/$name.sh"
	wbc -v --mode 640x480 "${args[@]}" -- bash "$out/$name.sh" "$client" "$screendump" \
		"$out/$name" >"$out/$name.log" 2>&1
	local rc=$?
	grep -a 'wbc: ' "$out/$name.log" | grep -av 'DEBUG\]' |
		grep -a 'Virtual-[12]\|capture:\|recording' | grep -av 'mode list\|connected with' | head -20
	check_log "$out/$name.log"
	[ $rc = 0 ] || { grep -av 'DEBUG\]' "$out/$name.log" | tail -30; fail "$name: wbc exited $rc"; }
}

# exact NAME PPM: the PPM is a whole frame of the client.
exact() {
	[ -s "$2" ] || fail "$1: no screendump $2"
	local shown
	shown=$("$tool" ppm-exact "$2")
	note "$1: $(basename "$2") shows frame $shown"
	case $shown in ''|bad|*differs) fail "$1: $(basename "$2") is not a frame of the client ($shown)" ;; esac
}

lit() { grep -ac "wbc: $2: 640x480@" "$out/$1.log"; }

# 1. extend
export WBCCTL
run extend --allow-control -- '"$1" --print-configure --print-frames >"$3.client" &
until grep -qx "frame 5" "$3.client"; do sleep 0.2; done
"$2" 0 "$3-head0.ppm" && "$2" 1 "$3-head1.ppm"
"$WBCCTL" record start "$3-nope.mkv" --output Nope >"$3.nope" 2>&1; echo "status $?" >>"$3.nope"
"$WBCCTL" record start "$3-v2.mkv" --output Virtual-2 --codec ffv1 >"$3.ctl" 2>&1 &&
	sleep 3 && "$WBCCTL" record stop >>"$3.ctl" 2>&1
echo "status $?" >>"$3.ctl"
sleep 1'
[ "$(lit extend Virtual-1)" = 1 ] && [ "$(lit extend Virtual-2)" = 1 ] ||
	fail "extend: not both outputs lit"
grep -q '^configure 1280 480$' "$out/extend.client" ||
	fail "extend: the client was not configured to the whole layout: $(sort -u "$out/extend.client" | tr '\n' ' ')"
exact extend "$out/extend-head0.ppm"
beside=$("$tool" ppm-beside "$out/extend-head1.ppm" 640)
note "extend: head 1 shows $beside"
case $beside in mod256*) ;; *) fail "extend: head 1 is not the right half of the client ($beside)" ;; esac
cat "$out/extend.nope" "$out/extend.ctl"
grep -qx 'status 1' "$out/extend.nope" && [ "$(grep -vc '^status' "$out/extend.nope")" = 1 ] &&
	grep -q 'no output Nope' "$out/extend.nope" || fail "extend: wbcctl --output Nope was not refused in one line"
grep -qx 'status 0' "$out/extend.ctl" && grep -q '^wbcctl: recording Virtual-2 to ' "$out/extend.ctl" ||
	fail "extend: wbcctl did not record Virtual-2"
last_frame "$out/extend-v2.mkv" "$out/extend-v2.ppm" || fail "extend: cannot decode wbcctl's recording"
beside=$("$tool" ppm-beside "$out/extend-v2.ppm" 640)
note "extend: wbcctl's recording of Virtual-2 ends with $beside"
case $beside in mod256*) ;; *) fail "extend: the recording of Virtual-2 is not its half of the client ($beside)" ;; esac

# 2. mirror, Virtual-2 recorded
run mirror --outputs mirror --record-output Virtual-2 --codec ffv1 --record "$out/mirror.mkv" -- \
	'"$1" --print-configure --print-frames >"$3.client" &
until grep -qx "frame 5" "$3.client"; do sleep 0.2; done
"$2" 0 "$3-head0.ppm" && "$2" 1 "$3-head1.ppm"
sleep 1'
grep -q '^configure 640 480$' "$out/mirror.client" ||
	fail "mirror: the client was not configured to one output: $(sort -u "$out/mirror.client" | tr '\n' ' ')"
exact mirror "$out/mirror-head0.ppm"
exact mirror "$out/mirror-head1.ppm"
grep -aq 'wbc: recording Virtual-2 to ' "$out/mirror.log" || fail "mirror: Virtual-2 is not what was recorded"
# virtio-gpu has no writeback connector: readback is its only method, not a fallback.
grep -aq 'wbc: capture: readback (no writeback for Virtual-2: ' "$out/mirror.log" ||
	fail "mirror: wbc does not say it records Virtual-2 by readback, for want of writeback"
check_final "$out/mirror.log"
decode "$out/mirror.mkv" bgr0 | "$tool" exact 640 480 >"$out/mirror.exact" || fail "decoding failed"
# At least 3 distinct client frames: the order, not a rate (a one-vCPU guest beside
# another recorded 6: 2026-12-07).
check_exact "$out/mirror.exact" 3

refused "--record-output of no output" 1 \
	"--record-output Nope: no such output (wbc drives: Virtual-1 Virtual-2)" -- \
	--mode 640x480 --record-output Nope --record "$out/nope.mkv"
[ ! -e "$out/nope.mkv" ] || fail "--record-output Nope left a file"

# 3. last, recorded; then Virtual-2 unplugged
run last --outputs last --codec ffv1 --record "$out/last.mkv" -- '"$1" --print-frames >"$3.client" &
until grep -qx "frame 5" "$3.client"; do sleep 0.2; done
"$2" 1 "$3-head1.ppm"
echo off >/sys/class/drm/card0-Virtual-2/status
# The uevent a real unplug sends (a forced status may send none: wbc-hotplug.sh).
echo change >/sys/class/drm/card0/uevent
for i in $(seq 100); do grep -q "Virtual-1: lit again" "$3.log" && break; sleep 0.2; done
sleep 3
"$2" 0 "$3-head0.ppm"
sleep 1'
grep -aq 'wbc: Virtual-1: unused (--outputs last: Virtual-2 came later)' "$out/last.log" ||
	fail "last: Virtual-1 was not turned off for Virtual-2"
exact last "$out/last-head1.ppm"
grep -aq 'wbc: recording Virtual-2 to ' "$out/last.log" || fail "last: the recording is not of Virtual-2, the one lit"
check_final "$out/last.log"
grep -aq 'wbc: Virtual-1: lit again' "$out/last.log" ||
	fail "last: Virtual-1 was not lit again when Virtual-2 went"
exact last "$out/last-head0.ppm"
echo PASS
