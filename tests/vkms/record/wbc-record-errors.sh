#!/bin/bash
# Must show 5 (part 1): an unwritable output, a missing directory, a read-only file
# system, a directory, an unknown option of the default codec or of the container are
# refused at start-up, before APP runs, in one "wbc: cannot record to" line (the
# recorder's message), status 1, no file left: what the recorder sees only once the
# output's frames are known or the target is open. (An unknown codec or container, and
# a named codec's unknown option, are refused before wbc opens the device: on the host,
# tests/unit/compositor/wbc-cli.sh. A full disk: wbc-record-disk-full.) A short
# recording's teardown leaks nothing.
. "$(dirname "$0")/lib.sh"

# refused (compositor/lib.sh): every refusal is a "wbc: cannot record to ..." line.
cannot_record() { # DESCRIPTION EXPECTED-TEXT... -- WBC-ARGS...
	local what=$1; shift
	refused "$what" 1 "wbc: cannot record to " "$@"
}
M=(--mode 640x480)
cannot_record "unwritable path" "/proc/x.mkv" -- "${M[@]}" --record /proc/x.mkv
cannot_record "missing directory" "/tmp/no-such-dir/x.mkv" "No such file or directory" -- \
	"${M[@]}" --record /tmp/no-such-dir/x.mkv
mkdir -p /tmp/ro /tmp/a-directory.mkv
mount -t tmpfs -o ro,size=1m tmpfs /tmp/ro || fail "cannot mount a read-only tmpfs"
cannot_record "read-only file system" "/tmp/ro/x.mkv" "Read-only file system" -- \
	"${M[@]}" --record /tmp/ro/x.mkv
cannot_record "path is a directory" "/tmp/a-directory.mkv" "Is a directory" -- \
	"${M[@]}" --record /tmp/a-directory.mkv
cannot_record "unknown codec option" "nosuchoption" -- \
	"${M[@]}" --record /tmp/x.mkv --codec-opt nosuchoption=1
cannot_record "unknown container option" "nosuchoption" -- \
	"${M[@]}" --record /tmp/x.mkv --container-opt nosuchoption=1
for f in /tmp/x.mkv /tmp/ro/x.mkv; do
	[ ! -e "$f" ] || fail "a refused recording left $f behind"
done

# A short successful recording with --stats: what record.c allocates (timers, the event
# source, the recorder) is freed (LeakSanitizer, as in every test: lib.sh).
wbc --mode 640x480 --fps 5 --record "$out/short.mkv" --stats --duration 2 -- "$client" \
	>"$out/short.log" 2>&1
rc=$?
check_log "$out/short.log"
[ $rc = 0 ] || { cat "$out/short.log"; fail "short run: wbc exited $rc"; }
check_final "$out/short.log"
note "short recording: no leak"

echo PASS
