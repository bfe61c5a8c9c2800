#!/bin/bash
# Must show 4: wayvnc serves a wbc --headless --allow-remote session on 127.0.0.1:5900
# inside the guest (the screen is the writeback connector: no display is driven).
# rfb-client.py (RFB 3.8, None security, Raw) receives five full framebuffer
# updates after wayvnc's placeholder: each shows the pattern client, and they are paired with the recorded frames of
# the same client frame (check_paired: pixel for pixel). Then key-client replaces the
# pattern client and the characters "hello", sent as RFB KeyEvents, reach it through
# wayvnc's virtual keyboard (it prints "typed: hello").
. "$(dirname "$0")/lib.sh"
: "${WBC_KEY_CLIENT:?WBC_KEY_CLIENT must point at key-client}"
rfb="python3 $cap_here/rfb-client.py 127.0.0.1 5900"
cat >"$out/app.sh" <<APP
# wayvnc's first capture must show the client: wait until it has been shown (the client
# draws frame 1 only after frame 0's frame callback), not a fixed time, which a loaded
# host outran. Updates before that first capture are wayvnc's grey placeholder, which
# rfb-client.py skips (CI, 2026-12-06: "vnc 1 shows no pattern").
"$client" --print-frames >"$out/client-frames" & c=\$!
for i in \$(seq 300); do grep -qx 'frame 1' "$out/client-frames" && break; sleep 0.2; done
wayvnc --max-fps=2 127.0.0.1 5900 >"$out/wayvnc.log" 2>&1 & v=\$!
$rfb frames 5 "$out/vnc" >"$out/rfb-frames.log" 2>&1 || exit 11
kill \$c
wait \$c
"$WBC_KEY_CLIENT" 5 >"$out/keys" & k=\$!
for i in \$(seq 150); do grep -q focused "$out/keys" && break; sleep 0.2; done
$rfb type hello >"$out/rfb-type.log" 2>&1 || exit 12
wait \$k
krc=\$?
kill \$v
wait \$v
exit \$krc
APP
wbc --mode 640x480 --headless --allow-remote "${RECORD[@]}" -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
for f in wayvnc.log rfb-frames.log rfb-type.log keys; do
	echo "--- $f"; cat "$out/$f" 2>/dev/null
done
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc (11: frames, 12: typing, else key-client's)"
check_method "$out/log" writeback
grep -q '^wbc: capture: writeback (Writeback-1 as a headless output, because --headless' \
	"$out/log" || fail "--headless did not make Writeback-1 the output"
check_final "$out/log"
check_paired vnc writeback "$out"/vnc-[1-5].bgr0
grep -qx 'typed: hello' "$out/keys" || fail "key-client did not get 'hello' over VNC"
note "key-client: $(grep typed "$out/keys")"
echo PASS
