#!/bin/bash
# Must show 5: wbc exits with APP's status; SIGTERM stops it cleanly with 0. (That errors
# are one "wbc: " line and a non-zero status, before APP starts, wbc-cli shows on the host
# for the command line, APP and a --device that is no DRM device, and wbc-bad-device in
# the guest for the mode, the output and the kernel's atomic refusal.)
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 -- sh -c 'exit 7' >"$out/log" 2>&1
rc=$?; check_log "$out/log"
[ $rc = 7 ] || { cat "$out/log"; fail "APP exit 7 gave $rc"; }
note "APP exit status 7 -> wbc 7"
wbc --mode 640x480 -- sh -c 'kill -SEGV $$' >"$out/log" 2>&1
rc=$?; check_log "$out/log"
[ $rc = 139 ] || { cat "$out/log"; fail "APP killed by SIGSEGV gave $rc"; }
note "APP killed by signal 11 -> wbc 139"

# APP records its pid: the harness's own guest watchdog is a sleep too, so match the pid.
"$WBC" --mode 640x480 -- sh -c "echo \$\$ >$out/app.pid; exec sleep 100" >"$out/log" 2>&1 &
pid=$!
# Until APP runs (wbc under valgrind, tests/valgrind.sh, takes far longer to start).
for _ in $(seq $((${WBC_TEST_DEADLINE:-100} * 5))); do [ -s "$out/app.pid" ] && break; sleep 0.2; done
[ -s "$out/app.pid" ] || fail "APP not started within ${WBC_TEST_DEADLINE:-100} s"
kill -TERM $pid
wait $pid
rc=$?
cat "$out/log"; check_log "$out/log"
[ $rc = 0 ] || fail "SIGTERM gave $rc"
grep -q '^wbc: stats ' "$out/log" || fail "no stats line after SIGTERM"
app=$(cat "$out/app.pid")
kill -0 "$app" 2>/dev/null && fail "APP (pid $app) survived wbc"
note "SIGTERM -> 0, APP stopped"

echo PASS
