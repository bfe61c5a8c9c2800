#!/bin/bash
# wbc on a second real KMS driver, QEMU's virtio-gpu (vkms-run --virtio-gpu 2: atomic, no
# writeback connector): it runs the pattern client as a kiosk and records by readback
# (saying so). What the virtual monitor shows, read from the host through QEMU's monitor
# (tests/vm/screendump), is the client's frame pixel for pixel, and the ffv1 recording
# decodes to the client's frames, each pixel-exact, in order. Neither oracle trusts wbc.
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
python3 - "$out/exact" <<'PY' || fail "the recording is not the client's frames"
import sys
lines = open(sys.argv[1]).read().split('\n')[:-1]
lead = 0
while lead < len(lines) and lines[lead] == 'bad':
    lead += 1
rest = lines[lead:]
wrong = [l for l in rest if not l.isdigit()]
print('# %d frames: %d before the client drew, %d exact, %d not' %
      (len(lines), lead, len(rest) - len(wrong), len(wrong)))
if wrong:
    sys.exit('not the client\'s: %s' % wrong[:10])
n = [int(x) for x in rest]
if any(b < a for a, b in zip(n, n[1:])) or len(set(n)) < 10:
    sys.exit('frame numbers go back or fewer than 10 distinct: %s' % n[:20])
PY
echo PASS
