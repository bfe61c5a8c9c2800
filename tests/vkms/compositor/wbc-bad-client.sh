#!/bin/bash
# Must show 6: clients that break the protocol are disconnected and wbc keeps serving
# the others: APP is a script that runs the bad clients, then weston-simple-shm; wbc
# exits with the script's status, and a frame captured after the bad clients shows
# simple-shm.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
#!/bin/bash
for how in double-toplevel unconfigured-buffer garbage; do
	"$WBC_TEST_BIN/bad-client" \$how || exit 10
done
timeout 4 weston-simple-shm
exit 5
APP
chmod +x "$out/app.sh"
wbc --mode 640x480 --screenshot-after 4 "$out/after.ppm" -- "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_sanitizers "$out/log"
[ $rc = 5 ] || fail "wbc exited $rc (want the script's 5; 10 = a bad client stayed connected)"
[ -s "$out/after.ppm" ] || fail "no frame captured after the bad clients"
nb=$(ppm nonblack "$out/after.ppm")
note "non-black after the bad clients: $nb"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.19) }' || fail "simple-shm not shown after bad clients"
echo PASS
