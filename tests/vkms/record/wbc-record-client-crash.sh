#!/bin/bash
# Clients that die. (1) APP is a script whose first pattern client is killed with
# SIGKILL in the middle of its animation (it commits a frame every vblank), then starts a
# second one: wbc keeps running and recording (flips rise after the kill), exits with the
# script's status, and the file holds the first client's frames, then the second's, each
# in order. (2) APP itself killed with SIGKILL: wbc exits with 137 (128 + 9, as for any
# APP killed by a signal), after ending the recording cleanly: the final counters add up
# and the file decodes to its end without errors.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
#!/bin/bash
# Each client draws 60 frames or more, a second or more (recorded at 10 a second: 3
# distinct needed); the second one 120, for two --stats lines (one a second) after the
# kill.
"$client" --print-frames >"$out/first.frames" & pid=\$!
until grep -qx "frame 60" "$out/first.frames"; do sleep 0.2; done
kill -9 \$pid
wait \$pid
echo "APP: first client killed (status \$?)" >&2
"$client" --frames 120
exit 4
APP
chmod +x "$out/app.sh"
wbc --mode 640x480 --fps 10 --record "$out/crash.mkv" --stats -- "$out/app.sh" \
	>"$out/log" 2>&1
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 4 ] || fail "wbc exited $rc, not the script's 4"
grep -q '^APP: first client killed (status 137)' "$out/log" || fail "the client was not killed"
check_final "$out/log"
check_display_goes_on "$out/log" "APP: first client killed"
decode "$out/crash.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding failed"
python3 - "$out/numbers" <<'PY' || fail "frames of the two clients"
import sys
v = open(sys.argv[1]).read().split()
n = [int(x) for x in v if x != 'bad']
runs, cur = [], [n[0]] if n else []
for a, b in zip(n, n[1:]):
    if b < a:
        runs.append(cur); cur = []
    cur.append(b)
runs.append(cur)
print('# %d frames (%d without a pattern): runs %s' % (len(v), v.count('bad'),
      ['%d..%d (%d)' % (r[0], r[-1], len(set(r))) for r in runs if r]))
if len(runs) != 2 or min(len(set(r)) for r in runs) < 3:
    sys.exit('want two runs of >= 3 distinct frames (first client, then second)')
PY

# (2) APP killed by SIGKILL.
timeout -k 10 150 "$WBC" --mode 640x480 --fps 10 --record "$out/app-killed.mkv" --stats \
	-- "$client" >"$out/log2" 2>&1 &
wbc_pid=$!
for _ in $(seq 600); do grep -q '^wbc: recording: first frame' "$out/log2" && break; sleep 0.2; done
sleep 1
# wbc runs under timeout; its children are APP and libseat's forked seatd (also "wbc").
wbc_itself=$(pgrep -P $wbc_pid -x wbc)
app=$(pgrep -P "$wbc_itself" -x "$(basename "$client" | cut -c1-15)")
[ -n "$app" ] || { cat "$out/log2"; fail "APP not found"; }
kill -9 "$app"
wait $wbc_pid
rc=$?
cat "$out/log2"
check_log "$out/log2"
[ $rc = 137 ] || fail "APP killed by SIGKILL: wbc exited $rc, not 137"
check_final "$out/log2"
errs=$(ffmpeg -nostdin -v error -i "$out/app-killed.mkv" -f null - 2>&1 | head -5)
[ -z "$errs" ] || fail "decoding the file reports: $errs"
frames=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 \
	"$out/app-killed.mkv")
note "APP killed: wbc status $rc, file of $frames frames, decodes without errors"
[ "$frames" -ge 1 ] || fail "no frame in the file"
echo PASS
