#!/bin/bash
# Must show 1 (and its readback variant): `grim` in a wbc --allow-capture session takes an
# image equal, pixel for pixel, to the captured frame of the same client commit. The APP
# script first runs screencopy-check (the protocol's events, region, copy_with_damage,
# timestamps, and bad buffers: see screencopy-check.c) over a static pattern, then the
# animated pattern client and three grim shots, while wbc records (lib.sh's RECORD);
# check_paired pairs each image with the recorded frames showing the same pattern frame
# number. The log must say screencopy took its frames by METHOD.
#   wbc-capture-grim.sh writeback|readback  (readback: VKMS booted with enable_writeback=0)
. "$(dirname "$0")/lib.sh"
method=${1:?writeback or readback}
: "${WBC_SCREENCOPY_CHECK:?WBC_SCREENCOPY_CHECK must point at screencopy-check}"
cat >"$out/app.sh" <<APP
"$client" --static & s=\$!
sleep 2
export ASAN_OPTIONS=detect_leaks=0   # the checker's own proxies at its exit
"$WBC_SCREENCOPY_CHECK" good >"$out/check.log" 2>&1 || exit 11
for b in stride format size twice; do
	"$WBC_SCREENCOPY_CHECK" bad \$b >>"$out/check.log" 2>&1 || exit 12
done
unset ASAN_OPTIONS
kill \$s
wait \$s
"$client" --print-frames >"$out/client" & c=\$!
until grep -qx "frame 5" "$out/client"; do sleep 0.2; done
for i in 1 2 3; do
	grim "$out/grim-\$i.png" || { echo "grim \$i: status \$?"; exit 10; }
	sleep 1
done
kill \$c
wait \$c
exit 0
APP
wbc --mode 640x480 --allow-capture "${RECORD[@]}" -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
echo "--- screencopy-check"
cat "$out/check.log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc (11, 12: screencopy-check good, bad; 10: grim)"
[ "$(grep -c '^bad .*: protocol error' "$out/check.log")" = 4 ] || fail "not 4 bad cases"
check_method "$out/log" "$method"
check_final "$out/log"
for i in 1 2 3; do
	png=$out/grim-$i.png
	size=$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$png")
	[ "$size" = 640,480 ] || fail "$png is '$size', want 640,480"
	image_to "$png" bgr0 >"$out/grim-$i.bgr0" || fail "cannot read $png"
done
check_paired grim "$method" "$out"/grim-[123].bgr0
echo PASS
