#!/bin/bash
# The session going away and back during a recording (issue 18): VT_ACTIVATE 2 (what chvt
# does), then 1. The guest runs no seatd or logind: libseat's builtin seatd (forked from
# wbc, root) binds seat0 to tty1 in VT_PROCESS mode, as seatd does, so the kernel asks it
# before leaving tty1; it takes DRM master and input, disables wbc's session (wbc stops
# its displays) and lets the switch happen. While away: no change in the kernel's state
# (drm_info, read twice), wbc's flips and captures and the client's frames stand still
# (the CRTC stays lit: master is gone before wbc hears of it). Back:
# a fresh modeset, the recording resumed, the client drawing, the first writeback frame
# pixel for pixel a frame the client drew (wbc's checksum of it against frame-tool's of
# the pattern); the file decodes (every frame a pattern frame the client drew, numbers
# rising) with the gap.
# wbc-session.sh seatd: the same through the seatd daemon (Debian's seatd, started here;
# LIBSEAT_BACKEND=seatd, so libseat may not fall back to its builtin one), which binds
# the VT and hands out the devices instead of wbc's own fork.
. "$(dirname "$0")/lib.sh"
[ -e /sys/class/tty/tty0/active ] || fail "the guest kernel has no VTs (CONFIG_VT)"
daemon=${1:-}
if [ "$daemon" = seatd ]; then
	command -v seatd >/dev/null || fail "no seatd (Debian package seatd)"
	rm -f /run/seatd.sock  # a socket left by an earlier seatd would pass the check below
	seatd -g root >"$out/seatd" 2>&1 &
	seatd_pid=$!
	wait_for 30 test -S /run/seatd.sock || { cat "$out/seatd"; fail "seatd made no socket"; }
	export LIBSEAT_BACKEND=seatd
fi
state() { /usr/bin/python3 "$here/kms-state.py"; }
crtc_active() { state | grep -q 'active=1'; }
said() { grep -aq -- "$1" "$out/log"; }
# The client's stdout is APP's, so its fps lines are in wbc's log.
total() { grep -a '^fps ' "$out/log" | tail -1 | sed 's/.*total //'; }

start_vt=$(active_vt)
wbc_start --mode 640x480 --record "$out/s.mkv" --stats --debug-frame-checksums "$out/sums" \
	-- "$client" --fps-log >"$out/log" 2>&1
wait_for 60 said 'recording: first frame' || { cat "$out/log"; fail "no first frame"; }
wait_captured "$out/log" 10 || fail "fewer than 10 frames recorded before the VT switch"
vt_activate 2
note "VT: $start_vt -> $(active_vt)"
[ "$(active_vt)" = tty2 ] || fail "the VT did not switch"
wait_for 30 said 'session gone' || { cat "$out/log"; fail "wbc did not see its session go"; }
sleep "$(secs 2)"
t0=$(total) f0=$(rec_stats "$out/log" flips) c0=$(rec_stats "$out/log" captured)
state >"$out/away0"
sleep "$(secs 3)"
t1=$(total) f1=$(rec_stats "$out/log" flips) c1=$(rec_stats "$out/log" captured)
state >"$out/away1"
# The kernel's view: nothing committed between the two reads (framebuffers, modes, routing
# as they were). seatd takes DRM master before it tells wbc, so wbc cannot turn the CRTC
# off: it stays as wbc left it, showing the last frame, until whoever owns the VT now
# changes it.
note "KMS while away: $(tr '\n' ';' <"$out/away0")"
diff -u "$out/away0" "$out/away1" || fail "the display changed while the session was away"
note "away: client frames $t0 -> $t1, flips $f0 -> $f1, captured $c0 -> $c1"
[ "$f0" = "$f1" ] || fail "wbc flipped while its session was away"
[ "$c0" = "$c1" ] || fail "wbc captured while its session was away"
[ "$t0" = "$t1" ] || fail "the client kept drawing while its session was away"
vt_activate "${start_vt#tty}"
note "VT back: $(active_vt)"
wait_for 60 said 'recording Virtual-1 resumed' || { cat "$out/log"; fail "the recording did not resume"; }
sleep "$(secs 4)"
t2=$(total)
note "back: client frames $t1 -> $t2"
[ "$t2" -gt "$t1" ] || fail "the client did not draw again"
crtc_active || fail "no CRTC active after the session came back"
wbc_stop
rc=$?
grep -a '^wbc: ' "$out/log" | grep -av '^wbc: rec captured='
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
check_paused_recording "$out/s.mkv" "$out/log"
# The first writeback frame after the return, pixel for pixel: wbc's checksum of it (the
# first line of --debug-frame-checksums counting more than the $c1 captured while away)
# is that of a frame the client drew, one drawn around or after the switch.
first=$(awk -v c="$c1" '$1 > c { sub(/.*fnv1a64=/, ""); print; exit }' "$out/sums")
[ -n "$first" ] || fail "no writeback frame after the return in $out/sums"
"$tool" pattern-fnv 640 480 $((t1 > 2 ? t1 - 2 : 0)) $((t2 + 10)) >"$out/want" ||
	fail "frame-tool pattern-fnv failed"
n=$(awk -v h="$first" '$2 == h { print $1; exit }' "$out/want")
[ -n "$n" ] || fail "the first writeback frame after the return ($first) is no client frame $((t1 > 2 ? t1 - 2 : 0))..$((t2 + 10))"
note "the first writeback frame after the return is the client's frame $n, pixel for pixel"
if [ "$daemon" = seatd ]; then
	kill -0 "$seatd_pid" 2>/dev/null || { cat "$out/seatd"; fail "seatd died"; }
	note "through the seatd daemon"
fi
echo PASS
