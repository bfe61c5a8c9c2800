#!/bin/bash
# Must show 3: a live MPEG-TS stream to udp://127.0.0.1:PORT (loopback only) is received by
# `ffmpeg -i udp://127.0.0.1:PORT`, started first, whose decoded frames carry the pattern
# client's frame numbers.
. "$(dirname "$0")/lib.sh"
port=5600
hexport=$(printf '%04X' $port)
# The receiver: runs until told to stop (SIGINT makes ffmpeg finish cleanly); a deadline in
# case it never gets anything.
# Minimal probing: with FFmpeg 5.1's defaults the receiver took the whole stream into its
# probe buffer and decoded nothing (seen on the host too, ffmpeg to ffmpeg).
timeout -s INT -k 20 200 ffmpeg -nostdin -v error -probesize 32 -analyzeduration 0 \
	-i "udp://127.0.0.1:$port?fifo_size=1000000&overrun_nonfatal=1" \
	-fps_mode passthrough -f rawvideo -pix_fmt rgb24 "$out/rx.raw" 2>"$out/rx.log" &
rx=$!
for i in $(seq 100); do grep -q ":$hexport " /proc/net/udp && break; sleep 0.2; done
grep -q ":$hexport " /proc/net/udp || fail "the receiver did not bind udp port $port"
note "receiver listening on udp 127.0.0.1:$port"
wbc --mode 640x480 --fps 10 --record "udp://127.0.0.1:$port" --duration "$(secs 6)" --stats -- "$client" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
# Let the receiver decode what it has, then stop it.
for i in $(seq 20); do
	a=$(wc -c <"$out/rx.raw" 2>/dev/null); sleep 1; b=$(wc -c <"$out/rx.raw" 2>/dev/null)
	[ "$a" = "$b" ] && break
done
kill -INT $rx 2>/dev/null
for i in $(seq 20); do kill -0 $rx 2>/dev/null || break; sleep 0.5; done
kill -KILL $rx 2>/dev/null            # blocked in a read: one SIGINT is not always enough
wait $rx
note "receiver exited $? ($(wc -c <"$out/rx.raw") bytes of rgb24)"
cat "$out/rx.log" | head -20
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q "^wbc: recording $shown to udp://127.0.0.1:$port: libx264 (yuv420p) in mpegts" "$out/log" ||
	fail "not an mpegts stream of libx264"
check_final "$out/log"
# Whole frames only (a receiver killed in a write leaves a partial last one).
fs=$((640 * 480 * 3)); nb=$(($(wc -c <"$out/rx.raw") / fs))
head -c $((nb * fs)) "$out/rx.raw" | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "frame-tool failed"
note "received and decoded $(wc -l <"$out/numbers") frames; wbc encoded $(rec_final "$out/log" encoded)"
check_numbers "$out/numbers" 5
echo PASS
