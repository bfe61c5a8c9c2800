#!/bin/bash
# Stretch (issue item 4): a uinput keyboard types a string that a client receives.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the device.
. "$(dirname "$0")/lib.sh"
# The typer waits for the client's focus as long as wbc may take to start (secs: longer
# under valgrind).
"$WBC_TEST_BIN/uinput-type" hello "$out/keys" focused "$(secs 30)" >"$out/typer" 2>&1 &
typer=$!
sleep 1
udevadm settle --timeout=10
udevadm info --query=property --name=/dev/input/event* 2>/dev/null | grep -a 'ID_INPUT_KEYBOARD=1' | head -3
# key-client 5: the five letters of "hello" (a count, not a time).
wbc -v --mode 640x480 -- sh -c "\"$WBC_TEST_BIN/key-client\" 5 >\"$out/keys\"" \
	>"$out/log" 2>&1
rc=$?
wait $typer
typer_rc=$?
grep -a 'wbc: ' "$out/log" | grep -av 'DEBUG\] \['
grep -a 'libinput' "$out/log" | grep -ai 'device\|added' | head -10
cat "$out/typer" "$out/keys"
check_log "$out/log"
[ $typer_rc = 0 ] || fail "uinput-type exited $typer_rc"
[ $rc = 0 ] || fail "wbc/key-client exited $rc"
grep -q '^typed: hello$' "$out/keys" || fail "the client did not receive 'hello'"
echo PASS
