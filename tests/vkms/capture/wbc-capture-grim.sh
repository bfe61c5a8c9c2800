#!/bin/bash
# Must show 1 (and its readback variant): `grim` in a wbc --allow-capture session takes an
# image equal, pixel for pixel, to a frame of the same client commit as captured for a
# recording. The APP script runs the pattern client and three grim shots while wbc also
# records with ffv1 at most 2 frames/s; every frame the capture hook delivers (grim's
# included) goes to the recorder, which logs an FNV-1a 64 of each frame's B,G,R bytes
# (--debug-frame-checksums) in the order the frames decode from the file. A grim image is
# paired with the recorded frames that show the same pattern frame number: at least one
# shot must pair, and every paired shot's checksum must be one of its frames'. The log
# must say screencopy took its frames by METHOD.
#   wbc-capture-grim.sh writeback|readback  (readback: VKMS booted with enable_writeback=0)
. "$(dirname "$0")/lib.sh"
method=${1:?writeback or readback}
cat >"$out/app.sh" <<APP
"$client" & c=\$!
sleep 3
for i in 1 2 3; do
	grim "$out/grim-\$i.png" || { echo "grim \$i: status \$?"; exit 10; }
	sleep 1
done
kill \$c
wait \$c
exit 0
APP
wbc --mode 640x480 --allow-capture --record "$out/rec.mkv" --codec ffv1 --fps 2 \
	--debug-frame-checksums "$out/sums" -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_sanitizers "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
check_method "$out/log" "$method"
check_final "$out/log"

decode "$out/rec.mkv" bgr0 | "$tool" pattern 640 480 bgr0 >"$out/numbers" || fail "decoding failed"
sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/fnv"
n=$(wc -l <"$out/numbers")
[ "$n" -gt 0 ] && [ "$n" = "$(wc -l <"$out/fnv")" ] ||
	fail "$n frames decode but $(wc -l <"$out/fnv") checksums"
paste -d ' ' "$out/numbers" "$out/fnv" >"$out/recorded"
paired=0
for i in 1 2 3; do
	png=$out/grim-$i.png
	[ -s "$png" ] || fail "grim wrote no $png"
	size=$(ffprobe -v error -show_entries stream=width,height -of csv=p=0 "$png")
	[ "$size" = 640,480 ] || fail "$png is $size, want 640,480"
	num=$(image_to "$png" bgr0 | "$tool" pattern 640 480 bgr0)
	sum=$(image_to "$png" bgr0 | "$tool" fnv 640 480)
	[ "$num" != bad ] || fail "$png shows no pattern"
	same=$(awk -v n="$num" '$1 == n { print $2 }' "$out/recorded" | sort -u | tr '\n' ' ')
	note "grim $i: client frame $num, fnv1a64 $sum; recorded frames of it: ${same:-none}"
	[ -n "$same" ] || continue
	case " $same" in
	*" $sum "*) paired=$((paired + 1)) ;;
	*) fail "grim $i differs from the recorded frame(s) of client frame $num" ;;
	esac
done
[ $paired -ge 1 ] || fail "no grim shot's client frame was among the recorded frames"
note "$paired of 3 grim shots equal the $method frame of the same client frame"
echo PASS
