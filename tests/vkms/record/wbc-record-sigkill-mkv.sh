#!/bin/bash
# SIGKILL of wbc in the middle of an mkv recording. The guarantee (recorder.h, "Being
# killed"): the file keeps every Matroska cluster but the open one (clusters of at most
# 1 s, flushed when the next starts), so it lacks index and duration but reads and
# decodes to its end. Checked: ffprobe reads it; ffmpeg decodes every frame in it
# without an error; the frames decoded are at least the frames wbc had encoded 2.5 s
# before the kill (its --stats lines; 1 s of cluster plus margin for the frame that
# closes a cluster and the stats line's own lag); their pattern numbers are in order.
# (No upper bound: frames encoded after the last stats line before the kill are written
# too, so "encoded at the kill" is not known exactly.)
. "$(dirname "$0")/lib.sh"
python3 - "$WBC" "$client" "$out/kill.mkv" "$out/log" <<'PY' >"$out/counts" ||
import re, signal, subprocess, sys, threading, time
wbc, client, path, log = sys.argv[1:]
p = subprocess.Popen(['timeout', '-k', '5', '200', wbc, '--mode', '640x480', '--fps', '10',
                      '--record', path, '--stats', '--', client],
                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
first = threading.Event()
stats = []                           # (monotonic arrival, encoded)
def reader():
    with open(log, 'wb') as f:
        for line in p.stderr:
            f.write(line); f.flush()
            if line.startswith(b'wbc: recording: first frame'):
                first.set()
            m = re.match(rb'wbc: rec captured=\d+ encoded=(\d+)', line)
            if m:
                stats.append((time.monotonic(), int(m.group(1))))
th = threading.Thread(target=reader); th.start()
if not first.wait(150):
    p.kill(); th.join(); sys.exit('no first frame within 150 s')
time.sleep(7)
# wbc is timeout's child: kill wbc itself (not timeout) with SIGKILL.
kids = subprocess.run(['pgrep', '-P', str(p.pid), '-x', 'wbc'], capture_output=True,
                      text=True).stdout.split()
if len(kids) != 1:
    p.kill(); th.join(); sys.exit('cannot find wbc under timeout: %r' % kids)
t_kill = time.monotonic()
subprocess.run(['kill', '-9', kids[0]])
rc = p.wait(60)
th.join()
before = [e for t, e in stats if t <= t_kill - 2.5]
at = [e for t, e in stats if t <= t_kill]
print(rc, before[-1] if before else 0, at[-1] if at else 0, len(stats))
PY
	{ cat "$out/log"; fail "$(cat "$out/counts")"; }
cat "$out/log"
read -r rc early late nstats <"$out/counts"
# timeout passes its child's death by SIGKILL on (it kills itself the same way).
[ "$rc" = -9 ] || [ "$rc" = 137 ] || fail "wbc's status after SIGKILL: $rc"
[ "$nstats" -ge 5 ] || fail "only $nstats stats lines before the kill"
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
note "SIGKILL: $n frames in the file; wbc had encoded $early 2.5 s before the kill, $late at it"
[ "$n" -ge "$early" ] || fail "the file lost frames older than 2.5 s ($n < $early)"
check_numbers "$out/numbers" 5
echo PASS
