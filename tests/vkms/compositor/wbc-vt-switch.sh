#!/bin/bash
# Lockdown (issue 18): Ctrl+Alt+F2 from a uinput keyboard. Without --allow-vt-switch the
# foreground VT stays, APP never sees the F2 key and wbc says nothing about it; with the
# flag the VT switches (the kernel's /sys/class/tty/tty0/active), and after a switch back
# (VT_ACTIVATE, as chvt does) wbc exits cleanly.
#
# The guest can show a real switch: Debian's 6.12 has CONFIG_VT=y, and with neither seatd
# nor logind running libseat falls back to its builtin seatd (forked from wbc, as root),
# which binds seat0 to the VT wbc started on (tty1) in VT_PROCESS mode: the kernel asks it
# before leaving, it takes DRM master and input from wbc, then lets the switch happen.
# Needs systemd-udevd (with-udev.sh) for libinput to see the uinput device.
. "$(dirname "$0")/lib.sh"
[ -e /sys/class/tty/tty0/active ] || fail "the guest kernel has no VTs (CONFIG_VT)"
start_vt=$(active_vt)
note "foreground VT at start: $start_vt"

# 1. Default: the chord does nothing, and the letters after it still reach APP.
"$WBC_TEST_BIN/uinput-type" --vt 2 hello "$out/keys" focused "$(secs 30)" >"$out/typer" 2>&1 &
typer=$!
sleep 1
udevadm settle --timeout=10
wbc --mode 640x480 -- sh -c "\"$WBC_TEST_BIN/key-client\" 5 >\"$out/keys\"" >"$out/log" 2>&1
rc=$?
wait $typer
typer_rc=$?
cat "$out/log" "$out/typer" "$out/keys"
check_log "$out/log"
[ $typer_rc = 0 ] || fail "uinput-type exited $typer_rc"
[ $rc = 0 ] || fail "wbc/key-client exited $rc"
grep -q 'pressed Ctrl+Alt+F2' "$out/typer" || fail "the chord was not pressed"
grep -q '^typed: hello$' "$out/keys" || fail "the client did not receive 'hello' after the chord"
grep -q '^key 60 ' "$out/keys" && fail "F2 (key 60) reached the client"
grep -q '^key 29 ' "$out/keys" || fail "the client never saw Ctrl (key 29): was the chord typed?"
[ "$(active_vt)" = "$start_vt" ] || fail "the VT changed to $(active_vt) without --allow-vt-switch"
grep -aiE 'vt|error|cannot|warning|fail' "$out/log" && fail "wbc said something about it"
note "default: VT still $(active_vt), F2 swallowed, 'hello' typed after it arrived"

# 2. --allow-vt-switch: the chord switches to tty2. Away, wbc has no input (the builtin
# seatd took it), so the client waits; switching back by VT_ACTIVATE returns the session
# ("session back"), then SIGTERM ends wbc (--duration only bounds a wbc that never
# switches).
"$WBC_TEST_BIN/uinput-type" --vt 2 x "$out/keys2" focused "$(secs 30)" >"$out/typer2" 2>&1 &
typer=$!
sleep 1
udevadm settle --timeout=10
wbc -v --allow-vt-switch --mode 640x480 --duration "$(secs 40)" -- \
	sh -c "\"$WBC_TEST_BIN/key-client\" 100 >\"$out/keys2\"" >"$out/log2" 2>&1 &
wbc_pid=$!
switched=
for _ in $(seq "$(secs 60)"); do
	[ "$(active_vt)" = tty2 ] && { switched=1; break; }
	kill -0 $wbc_pid 2>/dev/null || break
	sleep 0.5
done
note "after the chord with --allow-vt-switch: $(active_vt)"
back=
if [ -n "$switched" ]; then
	vt_activate "${start_vt#tty}"
	for _ in $(seq "$(secs 60)"); do
		grep -aq 'wbc: session back' "$out/log2" && { back=1; break; }
		kill -0 $wbc_pid 2>/dev/null || break
		sleep 0.5
	done
	pkill -TERM -x "$(basename "$WBC")"   # wbc itself, not lib.sh's timeout around it
fi
note "after VT_ACTIVATE ${start_vt#tty}: $(active_vt)"
wait $wbc_pid
rc=$?
wait $typer
grep -a 'wbc: ' "$out/log2" | grep -aiE 'vt|error|cannot' | grep -v 'DEBUG\] \[' | head -20
grep -aiE 'libseat|session' "$out/log2" | head -12   # which libseat backend, and the switch
cat "$out/typer2" "$out/keys2"
check_log "$out/log2"
[ -n "$switched" ] || fail "--allow-vt-switch: the VT never became tty2"
grep -aq 'switching to VT 2' "$out/log2" || fail "wbc did not say it switches"
[ -n "$back" ] || fail "wbc never said its session was back"
grep -q '^key 60 ' "$out/keys2" && fail "F2 (key 60) reached the client with the flag"
[ "$(active_vt)" = "$start_vt" ] || fail "not back on $start_vt"
[ $rc = 0 ] || fail "wbc exited $rc after the switch and back"
echo PASS
