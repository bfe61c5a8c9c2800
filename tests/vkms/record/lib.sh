# Sourced by the --record VKMS tests; runs inside the guest (tests/vm/vkms-run).
# The test's meson env gives WBC, WBC_PATTERN_CLIENT and WBC_FRAME_TOOL (frame-tool.c).
# Reuses the compositor tests' helpers (fail, note, check_log, wbc with a deadline).
rec_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${WBC_TEST_BIN:=$(dirname "${WBC_FRAME_TOOL:?WBC_FRAME_TOOL must point at frame-tool}")}"
export WBC_TEST_BIN
. "$rec_here/../compositor/lib.sh"
: "${WBC_PATTERN_CLIENT:?WBC_PATTERN_CLIENT must point at wbc-pattern-client}"
client=$WBC_PATTERN_CLIENT
tool=$WBC_FRAME_TOOL
export WBC_TEST_DEADLINE=${WBC_TEST_DEADLINE:-200}
# The longest a test waits for wbc to do something: 150 s, or half the deadline when that
# was raised (wbc under valgrind: tests/valgrind.sh).
patience=$((WBC_TEST_DEADLINE > 300 ? WBC_TEST_DEADLINE / 2 : 150))

# rec_final LOG FIELD: a field of the "wbc: rec final ..." line.
rec_final() {
	grep -a '^wbc: rec final ' "$1" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# check_final LOG: the final line exists and captured = encoded + dropped, captured > 0.
check_final() {
	local c e d
	c=$(rec_final "$1" captured); e=$(rec_final "$1" encoded); d=$(rec_final "$1" dropped)
	[ -n "$c" ] && [ -n "$e" ] && [ -n "$d" ] || fail "no 'wbc: rec final' line in $1"
	note "final: captured=$c encoded=$e dropped=$d"
	[ "$c" -gt 0 ] || fail "nothing captured"
	[ "$c" = $((e + d)) ] || fail "captured=$c != encoded=$e + dropped=$d"
}

# check_latency LOG: the final line's latencies (ms, from each frame's vblank) are ordered:
# 0 < ready (pixels complete: writeback out-fence signal time / readback copy end) <= written
# (packet to the muxer), medians <= 99th percentiles. Values are printed, never bounded
# from above: the guest is emulated.
check_latency() {
	local r50 r99 w50 w99
	r50=$(rec_final "$1" ready_ms_p50); r99=$(rec_final "$1" ready_ms_p99)
	w50=$(rec_final "$1" written_ms_p50); w99=$(rec_final "$1" written_ms_p99)
	note "latency ms: ready p50=$r50 p99=$r99, written p50=$w50 p99=$w99"
	python3 -c 'import sys; r50,r99,w50,w99=map(float,sys.argv[1:]); sys.exit(not(0<r50<=r99 and r50<=w50<=w99))' \
		"$r50" "$r99" "$w50" "$w99" 2>/dev/null || fail "latencies not 0 < ready <= written"
}

# check_stopped_displaying LOG REGEX WHAT PPM WHEN: a write error ended the recording with
# exactly one "wbc: recording stopped: " line matching REGEX (else "the message does not
# WHAT"), the counters still add up, the display kept flipping afterwards, and the
# screenshot PPM taken WHEN shows the client's pattern.
check_stopped_displaying() {
	[ "$(grep -c 'wbc: recording stopped: ' "$1")" = 1 ] || fail "not one 'recording stopped' line"
	grep -q "wbc: recording stopped: $2" "$1" || fail "the message does not $3"
	note "$(grep 'wbc: recording stopped: ' "$1")"
	check_final "$1"
	check_display_goes_on "$1" "wbc: recording stopped: "
	[ -s "$4" ] || fail "no screenshot after the failure"
	local num
	num=$("$tool" ppm-pattern "$4")
	note "screenshot $5: client frame $num"
	[ "$num" != bad ] || fail "the screenshot after the failure shows no pattern"
}

# decode FILE PIXFMT: every frame as rawvideo on stdout, one per coded frame (no
# frame-rate conversion: -fps_mode passthrough).
decode() {
	ffmpeg -nostdin -v error -i "$1" -fps_mode passthrough -f rawvideo -pix_fmt "$2" -
}

# check_numbers FILE MIN_DISTINCT: frame-tool pattern output: after any leading "bad"
# (black frames before the client's first), every frame decodes, numbers never decrease,
# and at least MIN_DISTINCT different ones.
check_numbers() {
	python3 - "$1" "$2" <<'PY' || fail "frame numbers in $1"
import sys
lines = open(sys.argv[1]).read().split()
lead = 0
while lead < len(lines) and lines[lead] == 'bad':
    lead += 1
nums = lines[lead:]
print('# %d frames: %d before the client drew, then %s' % (len(lines), lead,
      ' '.join(nums) if len(nums) <= 80 else ' '.join(nums[:40]) + ' ... ' + ' '.join(nums[-20:])))
if 'bad' in nums:
    sys.exit('a frame after the first pattern does not decode')
n = [int(x) for x in nums]
if any(b < a for a, b in zip(n, n[1:])):
    sys.exit('frame numbers decrease')
if len(set(n)) < int(sys.argv[2]):
    sys.exit('only %d distinct frame numbers (want >= %s)' % (len(set(n)), sys.argv[2]))
print('# %d distinct frame numbers, %s..%s' % (len(set(n)), n[0], n[-1]))
PY
}

# flips_after LOG PATTERN: the flips= of the "wbc: rec" lines printed after the first line
# matching PATTERN (the display keeps going).
flips_after() {
	awk -v pat="$2" 'found && /^wbc: rec captured=/ { for (i = 1; i <= NF; i++)
		if ($i ~ /^flips=/) { sub("flips=", "", $i); print $i } }
		index($0, pat) { found = 1 }' "$1"
}

# check_display_goes_on LOG PATTERN: at least two stats lines after it, flips rising.
check_display_goes_on() {
	local f
	f=$(flips_after "$1" "$2" | tr '\n' ' ')
	note "flips in the stats lines after '$2': $f"
	python3 -c 'import sys; f=[int(x) for x in sys.argv[1:]]; sys.exit(0 if len(f) >= 2 and f[-1] > f[0] else 1)' $f ||
		fail "the display did not go on after '$2' (flips: $f)"
}

# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds; status 1 if it never did.
# (At least $patience seconds.)
wait_for() {
	local end=$((SECONDS + ($1 > patience ? $1 : patience)))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		nap 0.2
	done
}

# rec_stats LOG FIELD: a field of LOG's last --stats line ("wbc: rec captured=..."; wbc
# --stats writes one a second), empty before the first.
rec_stats() {
	grep -a '^wbc: rec captured=' "$1" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# captured LOG: the frames captured so far by LOG's last --stats line (0 before the first).
captured() {
	local c
	c=$(rec_stats "$1" captured)
	echo "${c:-0}"
}
captured_at_least() { [ "$(captured "$1")" -ge "$2" ]; }

# wait_captured LOG N: until LOG's --stats lines count N frames captured more than they
# do now: frames recorded before a pause, or after it resumed (the count stands still
# while paused, so every one of the N came after the call). Status 1 after $patience s.
wait_captured() {
	wait_for 60 captured_at_least "$1" $(($(captured "$1") + $2))
}

# field LINE NAME: NAME=VALUE out of a line of space-separated fields (wbcctl's output).
field() {
	tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -1
}

# check_playable FILE CODEC MIN_DISTINCT ENCODED: ffprobe finds a CODEC 640x480 video and a
# duration > 0; every decoded frame's pattern number is read back (check_numbers), and as
# many frames decode as the recorder encoded.
check_playable() {
	local f=$1 dur n
	# One ffprobe (seconds in the guest): a line per stream, then the duration's.
	ffprobe -v error -show_entries stream=codec_name,width,height:format=duration \
		-of csv=p=0 "$f" >"$f.probe" || fail "ffprobe rejects $f"
	grep -qx "$2,640,480" "$f.probe" || fail "$f: no 640x480 $2 stream ($(cat "$f.probe"))"
	dur=$(tail -n 1 "$f.probe")
	awk -v d="$dur" 'BEGIN { exit !(d ~ /^[0-9.]+$/ && d + 0 > 0) }' ||
		fail "$f: duration '$dur'"
	decode "$f" rgb24 | "$tool" pattern 640 480 rgb24 >"$f.numbers" || fail "decoding $f failed"
	n=$(wc -l <"$f.numbers")
	note "$f: $2, ${dur}s, $n frames decoded, $4 encoded"
	[ "$n" = "$4" ] || fail "$f: $n frames decode but the recorder encoded $4"
	check_numbers "$f.numbers" "$3"
}

# mode_of PATH: its permission bits in octal (lib.sh's stat() is another function).
mode_of() {
	command stat -c %a "$1"
}

# wbc_start ARGS...: wbc in the background, its pid in $wbc_pid (killed if the script exits
# first). Not under timeout(1): its -k would SIGKILL a wbc that is only slow to shut down
# on a loaded host; wbc_stop bounds the wait instead.
wbc_start() {
	"$WBC" "$@" &
	wbc_pid=$!
	trap 'kill -KILL $wbc_pid 2>/dev/null' EXIT
}

# wbc_stop: SIGTERM, then wait for wbc (SIGKILL after $patience s); returns its exit status.
wbc_stop() {
	local dog rc
	kill -TERM "$wbc_pid" 2>/dev/null
	(sleep "$patience"; kill -KILL "$wbc_pid" 2>/dev/null) &
	dog=$!
	wait "$wbc_pid"
	rc=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	trap - EXIT
	return $rc
}

# check_exact EXACT MIN: EXACT is frame-tool exact's output for a recording; after the
# frames from before the client's first one ("bad"), every frame must be a client frame,
# pixel-exact, their numbers never going back, at least MIN distinct.
check_exact() {
	python3 - "$1" "$2" <<'PY' || fail "$1: the frame check failed (the line above says why)"
import sys
lines = open(sys.argv[1]).read().split('\n')[:-1]
lead = 0
while lead < len(lines) and lines[lead] == 'bad':
    lead += 1
rest = lines[lead:]
wrong = [(i + lead, l) for i, l in enumerate(rest) if not l.isdigit()]
print('# %d frames decoded: %d before the client drew, %d exact, %d not' %
      (len(lines), lead, len(rest) - len(wrong), len(wrong)))
if wrong:
    sys.exit('frames that are not the client\'s: %s' % wrong[:10])
n = [int(x) for x in rest]
if any(b < a for a, b in zip(n, n[1:])):
    sys.exit('frame numbers go back')
if len(set(n)) < int(sys.argv[2]):
    sys.exit('only %d distinct client frames' % len(set(n)))
print('# client frames %d..%d, %d distinct, every one pixel-exact' % (n[0], n[-1], len(set(n))))
PY
}

# check_paused_recording FILE LOG: a recording that paused (an output gone, a session away)
# and resumed: every encoded frame decodes, its pattern numbers increase (at least 5
# distinct), and the frames' times have a gap of at least 2 s with at least 3 frames on
# each side (frames keep their real times across a pause).
check_paused_recording() {
	local e
	check_final "$2"
	e=$(rec_final "$2" encoded)
	decode "$1" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" || fail "decoding $1 failed"
	[ "$(wc -l <"$out/numbers")" = "$e" ] || fail "$(wc -l <"$out/numbers") frames decode, $e encoded"
	check_numbers "$out/numbers" 5
	ffprobe -v error -select_streams v -show_entries frame=best_effort_timestamp_time -of csv=p=0 \
		"$1" >"$out/times" || fail "ffprobe cannot read the frames' times"
	python3 - "$out/times" <<'PY' || fail "no gap with frames before and after it"
import sys
t = [float(x.strip(',')) for x in open(sys.argv[1]).read().split() if x.strip(',')]
g, i = max((b - a, i) for i, (a, b) in enumerate(zip(t, t[1:])))
print('# %d frames; largest gap %.2f s after frame %d: %d before, %d after' %
      (len(t), g, i, i + 1, len(t) - i - 1))
sys.exit(0 if g >= 2 and i + 1 >= 3 and len(t) - i - 1 >= 3 else 1)
PY
}
