#!/bin/bash
# Must show 5 (part 1): an unwritable output, an unknown codec and an unknown container are
# refused at start-up, before APP runs, in one "wbc: " line (the recorder's message; the
# unknown names list what is available) with a non-zero status. A full disk (a 200 KiB
# tmpfs) stops the recording with the ENOSPC message in one line while wbc keeps
# displaying (stats lines with flips still rising, a screenshot taken later decodes) and
# exits with APP's status. The start-up refusals and one short recording run under the
# compositor tests' strict LeakSanitizer settings.
. "$(dirname "$0")/lib.sh"

refused() { # DESCRIPTION EXPECTED-TEXT... -- WBC-ARGS...
	local what=$1; shift
	local want=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	rm -f /tmp/app-ran
	strict wbc --mode 640x480 "$@" -- sh -c 'touch /tmp/app-ran' >"$out/err" 2>&1
	local rc=$?
	check_sanitizers "$out/err"
	note "$what: status $rc, stderr ($(wc -c <"$out/err") bytes): $(cut -c1-300 "$out/err")"
	[ $rc != 0 ] || fail "$what: status 0"
	[ ! -e /tmp/app-ran ] || fail "$what: APP was started"
	[ "$(wc -l <"$out/err")" = 1 ] || { cat "$out/err"; fail "$what: not one line"; }
	grep -q '^wbc: cannot record to ' "$out/err" || fail "$what: not a 'wbc: cannot record' line"
	local w
	for w in "${want[@]}"; do
		grep -qF -- "$w" "$out/err" || fail "$what: the message lacks '$w'"
	done
}
refused "unwritable path" "/proc/x.mkv" -- --record /proc/x.mkv
refused "unknown codec" "nosuchcodec" "libx264" "ffv1" "mpeg4" -- \
	--record /tmp/x.mkv --codec nosuchcodec
refused "unknown container" "nosuchmux" "matroska" "mpegts" -- \
	--record /tmp/x.mkv --container nosuchmux
refused "unknown codec option" "nosuchoption" -- \
	--record /tmp/x.mkv --codec-opt nosuchoption=1

# A short successful recording with --stats under the strict settings too: what record.c
# allocates (timers, the event source, the recorder) is freed.
strict wbc --mode 640x480 --fps 5 --record "$out/strict.mkv" --stats --duration 2 -- "$client" \
	>"$out/strict.log" 2>&1
rc=$?
check_sanitizers "$out/strict.log"
[ $rc = 0 ] || { cat "$out/strict.log"; fail "strict run: wbc exited $rc"; }
check_final "$out/strict.log"
note "strict LeakSanitizer run: clean"

mkdir -p /tmp/small
mount -t tmpfs -o size=200k tmpfs /tmp/small || fail "cannot mount a small tmpfs"
# Lossless H.264 (qp=0) frames of this pattern are tens of KiB and MPEG-TS writes them as
# they come: the disk is full within a few frames.
wbc --mode 640x480 --fps 10 --codec-opt qp=0 --record /tmp/small/full.ts --stats \
	--screenshot-after 9 "$out/after.ppm" -- sh -c "\"$client\" --duration 12; exit 3" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
df -k /tmp/small | tail -1
check_sanitizers "$out/log"
[ $rc = 3 ] || fail "full disk: wbc exited $rc, not APP's 3"
check_stopped_displaying "$out/log" '.*/tmp/small/full.ts.*No space left on device' \
	"say the disk is full" "$out/after.ppm" "9 s after APP started"
echo PASS
