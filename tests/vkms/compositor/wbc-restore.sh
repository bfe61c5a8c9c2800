#!/bin/bash
# At exit wbc puts back the display state it found (wbc_kms_device_restore), read before
# and after with drm_info -j (kms-state.py): CRTC ACTIVE and mode, connector routing,
# plane framebuffer and placement.
#  1. nothing lit (a fresh guest): off before, off after;
#  2. kms-hold lights Virtual-1 at 800x600 with a framebuffer of its own (legacy SetCrtc,
#     then drops master and keeps the framebuffer alive): wbc drives Virtual-1 at 640x480,
#     and after it the CRTC, routing and plane (the same framebuffer) are back;
#  3. the same with a screenshot: on a VKMS that clones, Writeback-1 joins Virtual-1 on its
#     CRTC; on stock VKMS wbc drives Writeback-1 as a headless output and has to unroute
#     Virtual-1 to get the CRTC;
#  4. kms-hold gone: the kernel removed its framebuffer, leaving the CRTC on at 800x600 with
#     the plane off; that is what comes back.
. "$(dirname "$0")/lib.sh"
state() { /usr/bin/python3 "$here/kms-state.py"; }
# run_wbc NAME ARGS...: wbc -v with APP recording the state while wbc drives the display.
run_wbc() {
	local name=$1; shift
	wbc -v --mode 640x480 "$@" -- sh -c "/usr/bin/python3 '$here/kms-state.py' >'$out/$name.during'; sleep 2" \
		>"$out/$name.log" 2>&1
	local rc=$?
	check_log "$out/$name.log"
	[ $rc = 0 ] || { cat "$out/$name.log"; fail "$name: wbc exited $rc"; }
	grep -a 'display state found at start restored' "$out/$name.log" | sed 's/.*\] //'
}
# expect NAME BEFORE: the state after wbc equals BEFORE, and wbc had changed it meanwhile.
expect() {
	state >"$out/$1.after"
	diff "$2" "$out/$1.during" >/dev/null && fail "$1: wbc did not change the display"
	diff -u "$2" "$out/$1.after" || fail "$1: the state found was not restored"
	note "$1: restored: $(grep -c . "$2") objects as before"
}

state >"$out/off"
cat "$out/off"
run_wbc off
expect off "$out/off"

mkfifo "$out/hold.in"
"$WBC_TEST_BIN/kms-hold" 800 600 <"$out/hold.in" >"$out/hold.out" 2>&1 &
hold=$!
exec 3>"$out/hold.in"
for i in $(seq 100); do grep -q '^ready' "$out/hold.out" && break; sleep 0.2; done
grep -q '^ready' "$out/hold.out" || { cat "$out/hold.out"; fail "kms-hold did not light the display"; }
read -r _ fb crtc conn <"$out/hold.out"
note "kms-hold: framebuffer $fb on CRTC $crtc, connector $conn, 800x600"
state >"$out/lit"
cat "$out/lit"
grep -q "^crtc $crtc active=1 mode=800x600$" "$out/lit" || fail "kms-hold's mode is not set"
grep -q "^plane [0-9]* type=primary fb=$fb crtc=$crtc src=0,0,800,600 dst=0,0,800,600$" \
	"$out/lit" || fail "kms-hold's framebuffer is not shown"

run_wbc virtual
grep -q 'connector Virtual-1 crtc=[1-9]' "$out/virtual.during" || fail "wbc did not drive Virtual-1"
expect virtual "$out/lit"

run_wbc headless --screenshot-after 1 "$out/shot.ppm"
if vkms_clones; then
	# Cloned writeback: Virtual-1 stays lit and Writeback-1 joins it on its CRTC.
	grep -q "connector Virtual-1 crtc=$crtc" "$out/headless.during" || fail "wbc did not drive Virtual-1"
	grep -q "connector Writeback-1 crtc=$crtc" "$out/headless.during" ||
		fail "Writeback-1 is not on Virtual-1's CRTC $crtc"
	note "cloned: Virtual-1 and Writeback-1 both on CRTC $crtc during the screenshot"
else
	grep -q 'connector Writeback-1 crtc=[1-9]' "$out/headless.during" ||
		fail "wbc did not drive Writeback-1 as a headless output"
	grep -q 'connector Virtual-1 crtc=0' "$out/headless.during" || fail "Virtual-1 stayed routed"
fi
[ "$(ppm size "$out/shot.ppm")" = 640x480 ] || fail "no screenshot"
expect headless "$out/lit"

exec 3>&-
wait $hold
state >"$out/gone"
cat "$out/gone"
grep -q "^crtc $crtc active=1 mode=800x600$" "$out/gone" || fail "unexpected: the CRTC went off with kms-hold"
grep -q "fb=$fb" "$out/gone" && fail "unexpected: kms-hold's framebuffer outlived it"
run_wbc gone
expect gone "$out/gone"
echo PASS
