#!/bin/bash
# Must show 2: `wf-recorder -f out.mkv` (copy_with_damage) records some 10 s of a wbc
# --allow-capture session and is stopped with SIGINT, as a user's Ctrl+C would (the APP
# script uses job control: a non-interactive shell's background jobs ignore SIGINT); the
# file decodes, and its frames carry the pattern client's frame numbers, never
# decreasing, at least 2 different ones (wf-recorder's x264 in the TCG guest on a loaded
# host encodes well under a frame a second: seen 5 of the 20 frames wbc served in 7 s,
# and 1 of 16; 38 frames on a quiet host).
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
set -m
"$client" & c=\$!
sleep 2
wf-recorder -f "$out/wf.mkv" >"$out/wf.log" 2>&1 & w=\$!
sleep 10
kill -INT \$w
t0=\$SECONDS
for i in \$(seq 600); do kill -0 \$w 2>/dev/null || break; sleep 0.2; done
if kill -0 \$w 2>/dev/null; then
	echo "wf-recorder still running \$((SECONDS - t0)) s after SIGINT" >"$out/wf.rc"
	kill -KILL \$w
	exit 10
fi
wait \$w
echo "wf-recorder status \$? after SIGINT in \$((SECONDS - t0)) s" >"$out/wf.rc"
kill \$c
wait \$c
exit 0
APP
wbc --mode 640x480 --allow-capture -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
cat "$out/log"
tail -5 "$out/wf.log"
check_log "$out/log"
note "$(cat "$out/wf.rc")"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q '^wf-recorder status 0 ' "$out/wf.rc" || fail "wf-recorder failed"
grep -a 'wbc: screencopy: frame via' "$out/log" || fail "no screencopy frame logged"
note "$(grep -a '^wbc: screencopy copied=' "$out/log")"
f=$out/wf.mkv
[ -s "$f" ] || fail "wf-recorder wrote no file"
probe=$(ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$f")
dur=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f")
note "ffprobe: $probe, ${dur}s"
case $probe in *,640,480) ;; *) fail "no 640x480 stream: $probe" ;; esac
decode "$f" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" || fail "decoding failed"
check_numbers "$out/numbers" 2
echo PASS
