#!/bin/bash
# Recording control (issue 9 must show 5, README "Recording control"): wbc --allow-control
# runs the pattern client; while it runs, wbcctl (default socket, relative TARGET) starts
# a recording, `wbcctl status` shows captured > 0, a second start is refused (status 1,
# "already recording", its file never made) while the first goes on (captured keeps
# rising), `wbcctl record stop` ends it; then a second recording with other options in
# the same session. Each file plays: ffprobe codec/size/duration, as many decoded frames
# as encoded, pattern numbers non-decreasing (frame-tool). Under umask 022, both files and
# the control socket are mode 0600.
. "$(dirname "$0")/lib.sh"
: "${WBCCTL:?WBCCTL must point at wbcctl}"
sock=$XDG_RUNTIME_DIR/wbc-control-0
umask 022
cd "$out" || fail "cd $out"
rm -f a.mkv b.mkv c.mp4

wbc_start --mode 640x480 --allow-control --stats -- "$client" >"$out/log" 2>&1
finish() {                           # stop wbc, show its log, check it
	wbc_stop
	local rc=$?
	cat "$out/log"
	check_log "$out/log"
	[ $rc = 0 ] || fail "wbc exited $rc"
}
# The event loop runs (so the outputs are up) once wbcctl gets an answer.
wait_for 150 "$WBCCTL" status >/dev/null 2>&1 || { finish; fail "wbcctl status never answered"; }
line=$("$WBCCTL" status)
note "before: $line"
[ "$line" = "state=idle" ] || fail "status before any recording: '$line'"
[ "$(mode_of "$sock")" = 600 ] || fail "control socket $sock is mode $(mode_of "$sock")"
note "control socket $sock: mode $(mode_of "$sock")"

# status_captured_at_least N: wbcctl status's captured count reached N (polled once a second:
# each wbcctl run takes CPU from the emulated guest).
status_captured_at_least() {
	local c
	c=$(field "$("$WBCCTL" status)" captured)
	[ -n "$c" ] && [ "$c" -ge "$1" ] || { sleep 1; false; }
}

# stop NAME: record stop, its counters checked; the encoded count in $encoded.
stop() {
	local st c
	st=$("$WBCCTL" record stop) || fail "record stop: status $?"
	note "$st (t=${SECONDS}s)"
	[[ $st == "wbcctl: stopped recording to $out/$1: "* ]] || fail "stop said: $st"
	c=$(field "$st" captured); encoded=$(field "$st" encoded)
	[ "$c" = $((encoded + $(field "$st" dropped))) ] || fail "captured != encoded + dropped: $st"
	[ "$("$WBCCTL" status)" = "state=idle" ] || fail "status after stop: $("$WBCCTL" status)"
}

st=$("$WBCCTL" record start a.mkv --fps 10) || fail "record start a.mkv: status $?"
note "$st (t=${SECONDS}s)"
[ "$st" = "wbcctl: recording $shown to $out/a.mkv (libx264 in matroska)" ] ||
	fail "start said: $st"
wait_for 150 status_captured_at_least 3 || fail "nothing captured into a.mkv"
st=$("$WBCCTL" status)
note "recording: $st"
[ "$(field "$st" state)" = recording ] && [ "$(field "$st" target)" = "$out/a.mkv" ] ||
	fail "status while recording: $st"
c0=$(field "$st" captured)
[ "$c0" -gt 0 ] || fail "captured=$c0 while recording"

msg=$("$WBCCTL" record start b.mkv 2>&1)
rc=$?
note "second start: status $rc: $msg"
[ $rc = 1 ] || fail "a second start gave status $rc"
[ "$msg" = "wbcctl: record start: already recording $shown to $out/a.mkv (stop it first)" ] ||
	fail "second start said: $msg"
[ ! -e b.mkv ] || fail "the refused start created b.mkv"
wait_for 150 status_captured_at_least $((c0 + 5)) || fail "the recording did not go on after the refusal"
st=$("$WBCCTL" status)
note "still recording: $st"
[ "$(field "$st" target)" = "$out/a.mkv" ] || fail "status after the refusal: $st"
stop a.mkv
a_encoded=$encoded

msg=$("$WBCCTL" record stop 2>&1)
rc=$?
note "stop with nothing recording: status $rc: $msg"
[ $rc = 1 ] && [ "$msg" = "wbcctl: record stop: not recording" ] || fail "stop again: $rc $msg"

# Again in the same session, with other options.
st=$("$WBCCTL" record start c.mp4 --fps 5 --codec-opt g=10 --container mp4) ||
	fail "record start c.mp4: status $?"
note "$st"
wait_for 150 status_captured_at_least 5 || fail "nothing captured into c.mp4"
stop c.mp4
c_encoded=$encoded
finish

# wbc's own final lines, one per recording, agree with what wbcctl was told.
grep -a '^wbc: rec final ' "$out/log" | sed -n 's/.* encoded=\([0-9]*\) .*/\1/p' | tr '\n' ' ' >"$out/finals"
note "wbc's final lines: encoded $(cat "$out/finals")"
[ "$(cat "$out/finals")" = "$a_encoded $c_encoded " ] || fail "final lines do not match wbcctl's"
grep -q "$(writeback_line)" "$out/log" ||
	fail "no '$(writeback_line)' line"
[ ! -e "$sock" ] || fail "$sock left behind"
for f in a.mkv c.mp4; do
	[ "$(mode_of "$f")" = 600 ] || fail "$f is mode $(mode_of "$f")"
	note "$f: mode $(mode_of "$f")"
done
check_playable "$out/a.mkv" h264 5 "$a_encoded"
check_playable "$out/c.mp4" h264 3 "$c_encoded"
echo PASS
