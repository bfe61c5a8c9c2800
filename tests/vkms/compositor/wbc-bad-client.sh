#!/bin/bash
# Must show 6: clients that break the protocol are disconnected and wbc keeps serving
# the others: APP is a script that runs the bad clients, then weston-simple-shm; wbc
# exits with the script's status, and a frame captured after the bad clients shows
# simple-shm. short-stride (a wl_shm buffer whose rows would be read past its pool) gets
# the wl_shm_pool invalid_stride error and wbc says so in one line.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
#!/bin/bash
for how in double-toplevel unconfigured-buffer garbage short-stride; do
	"$WBC_TEST_BIN/bad-client" \$how || exit 10
done
timeout 10 weston-simple-shm
exit 5
APP
chmod +x "$out/app.sh"
wbc --mode 640x480 --screenshot-after 8 "$out/after.ppm" -- "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 5 ] || fail "wbc exited $rc (want the script's 5; 10 = a bad client stayed connected)"
# (The client destroyed the pool right after creating the buffer: it cannot name the
# object the error came on, only the code: wl_shm.error.invalid_stride = 1.)
grep -q '^bad-client short-stride: disconnected: .*(protocol error 1 on ' "$out/log" ||
	fail "short-stride: not disconnected with wl_shm.error.invalid_stride"
[ "$(grep -c 'wl_shm buffer refused: stride 640 is less than a row of 640 pixels' "$out/log")" = 1 ] ||
	fail "short-stride: not one 'wl_shm buffer refused' line from wbc"
[ -s "$out/after.ppm" ] || fail "no frame captured after the bad clients"
nb=$(ppm nonblack "$out/after.ppm")
note "non-black after the bad clients: $nb"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.19) }' || fail "simple-shm not shown after bad clients"
echo PASS
