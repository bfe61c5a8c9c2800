#!/bin/bash
# SIGKILL of wbc in the middle of an mkv recording. The guarantee (recorder.h, "Being
# killed"): the file keeps every Matroska cluster but the open one (clusters of at most
# 1 s of stream time, flushed when the next starts), so it lacks index and duration but
# reads and decodes to its end. Checked: ffprobe reads it; ffmpeg decodes every frame in
# it without an error; wbc is killed once its --stats lines count 25 packets muxed, and
# the file then holds at least the packets muxed by the last such line before the kill
# less one open cluster (1 s at --fps 10: 11 frames, 12 allowed; the line lags, which
# only lowers the bound); their pattern numbers are in order.
. "$(dirname "$0")/lib.sh"
python3 - "$WBC" "$client" "$out/kill.mkv" "$out/log" <<'PY' >"$out/counts" ||
import os, re, signal, subprocess, sys, threading, time
wbc, client, path, log = sys.argv[1:]
# 150 s, or more when wbc runs under valgrind (tests/valgrind.sh raises the deadline).
deadline_s = int(os.environ.get('WBC_TEST_DEADLINE', '200'))
limit = max(150, deadline_s // 2)
# Its own session: give_up() can kill timeout and wbc together (wbc holds the pipe that
# the reader waits on to end).
p = subprocess.Popen(['timeout', '-k', '5', str(deadline_s), wbc, '--mode', '640x480',
                      '--fps', '10', '--record', path, '--stats', '--', client],
                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
def give_up(why):
    os.killpg(p.pid, signal.SIGKILL); th.join(); sys.exit(why)
first = threading.Event()
stats = []                           # muxed, from each --stats line
def reader():
    with open(log, 'wb') as f:
        for line in p.stderr:
            f.write(line); f.flush()
            if line.startswith(b'wbc: recording: first frame'):
                first.set()
            m = re.match(rb'wbc: rec captured=\d+ encoded=\d+ muxed=(\d+)', line)
            if m:
                stats.append(int(m.group(1)))
th = threading.Thread(target=reader); th.start()
if not first.wait(limit):
    give_up('no first frame within %d s' % limit)
deadline = time.monotonic() + limit
while time.monotonic() < deadline and not (stats and stats[-1] >= 25):
    time.sleep(0.2)
if not (stats and stats[-1] >= 25):
    give_up('not 25 packets muxed within %d s: %r' % (limit, stats[-3:]))
# wbc is timeout's only child (under valgrind: memcheck running wbc): kill it, not
# timeout, with SIGKILL.
kids = subprocess.run(['pgrep', '-P', str(p.pid)], capture_output=True,
                      text=True).stdout.split()
if len(kids) != 1:
    give_up('cannot find wbc under timeout: %r' % kids)
muxed = stats[-1]
subprocess.run(['kill', '-9', kids[0]])
rc = p.wait(60)
th.join()
print(rc, muxed, len(stats))
PY
	{ cat "$out/log"; fail "$(cat "$out/counts")"; }
cat "$out/log"
read -r rc muxed nstats <"$out/counts"
# timeout passes its child's death by SIGKILL on (it kills itself the same way).
[ "$rc" = -9 ] || [ "$rc" = 137 ] || fail "wbc's status after SIGKILL: $rc"
# No trailer was written: no "rec final" line, no sanitizer epilogue.
grep -q '^wbc: rec final' "$out/log" && fail "a final line after SIGKILL?"
ls -l "$out/kill.mkv"
ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$out/kill.mkv" \
	>"$out/probe" 2>"$out/probe.err" || fail "ffprobe rejects the file: $(cat "$out/probe.err")"
note "ffprobe: $(cat "$out/probe") $(head -c 200 "$out/probe.err")"
errs=$(ffmpeg -nostdin -v error -i "$out/kill.mkv" -f null - 2>&1 | head -5)
[ -z "$errs" ] || fail "decoding the killed file reports: $errs"
decode "$out/kill.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding failed"
n=$(wc -l <"$out/numbers")
note "SIGKILL: $n frames in the file; wbc had muxed $muxed by its last stats line before the kill"
[ "$n" -ge $((muxed - 12)) ] || fail "the file lost more than one cluster ($n < $muxed - 12)"
check_numbers "$out/numbers" 5
echo PASS
