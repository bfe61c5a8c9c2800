#!/bin/bash
# wbc on a second real KMS driver, QEMU's virtio-gpu (vkms-run --virtio-gpu 2: atomic, no
# writeback connector): it runs the pattern client as a kiosk and records by readback
# (saying so). What the virtual monitor shows, read from the host through QEMU's monitor
# (tests/vm/screendump), is the client's frame pixel for pixel, and the ffv1 recording
# decodes to the client's frames, each pixel-exact, in order. Neither oracle trusts wbc.
# Then --renderer auto: virtio-gpu has a render node but, without 3D (virgl), no GL of
# its own: pixman without loading Mesa, said with -v in one line (renderer.c says why).
. "$(dirname "$0")/lib.sh"
screendump=$rec_here/../../vm/screendump
# APP: the client, a screendump after 6 s, then APP ends (and with it wbc) while the client
# still draws, so the recording's last frame is the client's too.
cat >"$out/app.sh" <<'APP'
"$1" &
sleep 6
"$2" 0 "$3" >"$3.log" 2>&1
sleep 1
APP
wbc --mode 640x480 --codec ffv1 --record "$out/rb.mkv" --stats \
	-- bash "$out/app.sh" "$client" "$screendump" "$out/head0.ppm" >"$out/log" 2>&1
rc=$?
grep -a '^wbc: capture\|^wbc: recording\|^wbc: rec final' "$out/log"
check_log "$out/log"
[ $rc = 0 ] || { cat "$out/log"; fail "wbc exited $rc"; }
grep -aq '^wbc: capture: readback' "$out/log" || fail "wbc does not say it captures by readback"
check_final "$out/log"

[ -s "$out/head0.ppm" ] || { cat "$out/head0.ppm.log"; fail "no screendump of head 0"; }
note "screendump of head 0: $(head -c 15 "$out/head0.ppm" | tr '\n' ' ')"
shown=$("$tool" ppm-exact "$out/head0.ppm")
note "head 0 shows: $shown"
case $shown in
''|bad|*differs) fail "the virtual monitor does not show a frame of the client exactly ($shown)" ;;
esac

decode "$out/rb.mkv" bgr0 | "$tool" exact 640 480 >"$out/exact" || fail "decoding failed"
# At least 3 distinct client frames: the order, not a rate (a one-vCPU guest beside
# another recorded 9: 2026-12-07).
check_exact "$out/exact" 3

ls /dev/dri/renderD* >/dev/null 2>&1 || fail "virtio-gpu has no render node here"
wbc -v --renderer auto --mode 640x480 --duration "$(secs 3)" -- sleep 30 >"$out/auto.log" 2>&1
rc=$?
check_log "$out/auto.log"
note "auto: $(grep -a 'wbc: renderer: ' "$out/auto.log" | cut -c1-300)"
[ $rc = 0 ] || fail "auto: wbc exited $rc"
[ "$(grep -ac 'wbc: renderer: GLES2 not tried (virtio-gpu without 3D (virgl)' \
	"$out/auto.log")" = 1 ] || fail "auto: not one line saying why GLES2 is not tried"
grep -aq 'wbc: renderer: pixman; ' "$out/auto.log" || fail "auto: not pixman"
echo PASS
