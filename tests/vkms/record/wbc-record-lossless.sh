#!/bin/bash
# Must show 2: --codec ffv1 takes the writeback format (XRGB8888 = FFmpeg bgr0) directly,
# without libswscale, and the decoded frames equal the writeback buffers exactly: wbc
# writes an FNV-1a 64 of the B,G,R bytes of every frame it hands to the encoder
# (--debug-frame-checksums); frame-tool computes the same over ffmpeg's bgr0 output.
# With arguments RENDERER [CAPTURE] (wbc-record-lossless-gles2: gles2; -gles2-readback:
# gles2 readback) wbc composes with that --renderer and captures with that --capture: the
# pattern then comes through GLES2 into GBM buffers (read back with
# wlr_renderer_read_pixels), still exact.
. "$(dirname "$0")/lib.sh"
# GLES2 is Mesa's llvmpipe here, under TCG: its first frames wait for LLVM to compile
# the shaders (seconds), so there APP ends wbc (SIGTERM: status 0, as --duration's) once
# the client drew 60 frames (some 25 recorded), and --duration 20 only bounds the wait.
renderer=() duration=4 app=("$client")
if [ $# -gt 0 ]; then
	renderer=(--renderer "$1") duration=20
	app=(sh -c '"$1" --print-frames >"$2" & c=$!
		until grep -qx "frame 60" "$2"; do sleep 0.2; done
		kill -TERM $PPID
		wait $c' sh "$client" "$out/client.frames")
fi
[ $# -lt 2 ] || renderer+=(--capture "$2")
wbc "${renderer[@]}" --mode 640x480 --fps 10 --codec ffv1 --record "$out/lossless.mkv" --duration "$(secs $duration)" --stats \
	--debug-frame-checksums "$out/sums" -- "${app[@]}" >"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q "^wbc: recording $shown to .*: ffv1 (bgr0) in matroska" "$out/log" ||
	fail "ffv1 does not take bgr0 directly"
check_final "$out/log"
if [ $# -gt 0 ] && [ "$1" = gles2 ]; then
	grep -aq '^wbc: renderer: GLES2 (.*); output buffers: GBM$' "$out/log" ||
		fail "not composed by GLES2 into GBM buffers"
fi
if [ $# -gt 1 ]; then
	grep -aq "^wbc: capture: $2" "$out/log" || fail "not captured by $2"
fi
probe=$(ffprobe -v error -show_entries stream=codec_name,pix_fmt -of csv=p=0 "$out/lossless.mkv")
note "ffprobe: $probe"
[ "$probe" = "ffv1,bgr0" ] || fail "stream is '$probe', want ffv1,bgr0"

sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/submitted"
# One decode for both checks: the checksums, and the client's frame numbers in $out/numbers.
decode "$out/lossless.mkv" bgr0 | "$tool" fnv 640 480 "$out/numbers" >"$out/decoded" ||
	fail "decoding failed"
s=$(wc -l <"$out/submitted"); d=$(wc -l <"$out/decoded")
e=$(rec_final "$out/log" encoded)
distinct=$(sort -u "$out/submitted" | wc -l)
note "checksums: $s frames handed to the encoder ($distinct different), $d decoded, $e encoded"
[ "$s" -ge 5 ] || fail "only $s frames recorded"
[ "$distinct" -ge 3 ] || fail "only $distinct different frames: the content did not change"
[ "$s" = "$e" ] || fail "$s checksums but $e frames encoded"
if ! cmp -s "$out/submitted" "$out/decoded"; then
	diff "$out/submitted" "$out/decoded" | head -20
	fail "decoded frames differ from the captured buffers"
fi
note "all $d decoded frames equal the captured buffers (FNV-1a 64 of B,G,R)"
# The same frames carry the client's frame numbers.
check_numbers "$out/numbers" 3
echo PASS
