#!/bin/bash
# Must show 4: SIGTERM in the middle of a recording to EXT (mkv or mp4, the argument):
# wbc exits 0, the file is valid (ffprobe exits 0, every frame decodes) and its duration
# is within 1 s of the time recorded: from the first frame's vblank (CLOCK_MONOTONIC, printed by wbc) to
# the moment the test sent SIGTERM (the same clock, in this guest).
. "$(dirname "$0")/lib.sh"
ext=${1:?usage: wbc-record-sigterm.sh mkv|mp4}
{
	python3 - "$WBC" "$client" "$out/term.$ext" "$out/log.$ext" "$(secs 4)" <<'PY' >"$out/times.$ext" ||
import os, re, signal, subprocess, sys, threading, time
wbc, client, path, log = sys.argv[1:5]
run_s = int(sys.argv[5])              # 4 s (more under valgrind: secs in lib.sh)
# 150 s, or more when wbc runs under valgrind (tests/valgrind.sh raises the deadline).
limit = max(150, int(os.environ.get('WBC_TEST_DEADLINE', '200')) // 2)
p = subprocess.Popen([wbc, '--mode', '640x480', '--fps', '10', '--record', path, '--stats',
                      '--', client], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
first = threading.Event()
t0 = []
def reader():
    with open(log, 'wb') as f:
        for line in p.stderr:
            f.write(line); f.flush()
            m = re.match(rb'wbc: recording: first frame, vblank \d+ at (\d+\.\d+)', line)
            if m and not t0:
                t0.append(float(m.group(1))); first.set()
th = threading.Thread(target=reader); th.start()
if not first.wait(limit):
    p.kill(); th.join(); sys.exit('no first frame within %d s' % limit)
time.sleep(run_s)
t1 = time.monotonic()
p.send_signal(signal.SIGTERM)
rc = p.wait(limit)
th.join()
print('%.3f %.3f %d' % (t0[0], t1, rc))
PY
	{ cat "$out/log.$ext"; fail "$ext: $(cat "$out/times.$ext")"; }
	cat "$out/log.$ext"
	check_log "$out/log.$ext"
	read -r t0 t1 rc <"$out/times.$ext"
	[ "$rc" = 0 ] || fail "$ext: SIGTERM gave exit status $rc"
	check_final "$out/log.$ext"
	ffprobe -v error -show_entries format=duration:stream=codec_name -of default=nw=1 \
		"$out/term.$ext" >"$out/probe.$ext" || fail "$ext: ffprobe rejects the file"
	dur=$(sed -n 's/^duration=//p' "$out/probe.$ext")
	errs=$(ffmpeg -nostdin -v error -i "$out/term.$ext" -f null - 2>&1 | head -5)
	[ -z "$errs" ] || fail "$ext: decoding reports: $errs"
	frames=$(ffprobe -v error -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$out/term.$ext")
	python3 - "$t0" "$t1" "$dur" "$ext" "$frames" "$(secs 1)" <<'PY' || fail "$ext: duration"
import sys
t0, t1, dur = map(float, sys.argv[1:4])
rec = t1 - t0
tolerance = float(sys.argv[6])       # 1 s (more under valgrind: secs in lib.sh)
print('# %s: first frame at %.3f, SIGTERM at %.3f: %.3f s recorded; file: %.3f s, %s frames'
      ' (diff %.3f s, tolerance %.0f s)'
      % (sys.argv[4], t0, t1, rec, dur, sys.argv[5], dur - rec, tolerance))
sys.exit(0 if abs(dur - rec) <= tolerance else 1)
PY
}
echo PASS
