#!/bin/bash
# A full disk (a 200 KiB tmpfs) stops the recording with the ENOSPC message in one line
# while wbc keeps displaying (stats lines with flips still rising, a screenshot taken
# later decodes) and exits with APP's status; the file written until then decodes, its
# frames in order.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/small
mount -t tmpfs -o size=200k tmpfs /tmp/small || fail "cannot mount a small tmpfs"
# Lossless H.264 (qp=0) frames of this pattern are tens of KiB and MPEG-TS writes them as
# they come: the disk is full within a few frames.
wbc --mode 640x480 --fps 10 --codec-opt qp=0 --record /tmp/small/full.ts --stats \
	--screenshot-after "$(secs 9)" "$out/after.ppm" -- sh -c "\"$client\" --duration $(secs 12); exit 3" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
df -k /tmp/small | tail -1
check_log "$out/log"
[ $rc = 3 ] || fail "full disk: wbc exited $rc, not APP's 3"
check_stopped_displaying "$out/log" '.*/tmp/small/full.ts.*No space left on device' \
	"say the disk is full" "$out/after.ppm" "$(secs 9) s after APP started"
# What was written before the disk filled plays: its frames decode (the last, cut
# packet may not) and show the client's frames in order.
ls -l /tmp/small/full.ts
decode /tmp/small/full.ts rgb24 2>"$out/full-decode.err" | "$tool" pattern 640 480 rgb24 \
	>"$out/full-numbers"
note "decoding the cut file: $(wc -l <"$out/full-numbers") frames; ffmpeg said: $(head -c 300 "$out/full-decode.err" | tr '\n' ' ')"
[ "$(grep -cv bad "$out/full-numbers")" -ge 1 ] || fail "no client frame decodes from the cut file"
check_numbers "$out/full-numbers" 1
echo PASS
