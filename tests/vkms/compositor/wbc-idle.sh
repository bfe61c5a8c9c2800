#!/bin/bash
# Must show 4: with a static client (one frame, then still for 3 s) the adapter makes no
# commit in the 2 s after that frame was shown; an animating client gets about one
# commit per vblank, each shown (commits ~ flips), with missed vblanks counted.
. "$(dirname "$0")/lib.sh"
wbc -v --mode 640x480 --duration 4 -- "$WBC_TEST_BIN/presentation-client" --static 3 \
	>"$out/fb" 2>"$out/log"
rc=$?
grep -a 'wbc: ' "$out/log" | grep -av 'DEBUG\] \['
cat "$out/fb"
check_log "$out/log"
[ $rc = 0 ] || fail "static run: wbc exited $rc"
c=$(stat "$out/log" commits); f=$(stat "$out/log" flips)
note "static client, 4 s: commits=$c flips=$f (with the modeset and the client's exit)"
[ -n "$c" ] || fail "no stats line"
# Both clocks are CLOCK_MONOTONIC: wbc's -v log and the feedback's timestamps.
/usr/bin/python3 - "$out/fb" "$out/log" <<'PY' || fail "commits while idle"
import re, sys
shown = [float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith('presented ')]
if not shown:
    sys.exit('the static frame was never presented')
t0 = shown[0]
commits = [float(m.group(1)) for m in
           (re.match(r'\s*([0-9.]+) \[DEBUG\] wbc: \S+: commit \d+', l)
            for l in open(sys.argv[2], errors='replace')) if m]
idle = [t for t in commits if t0 + 0.1 < t <= t0 + 2.1]
print('static frame shown at %.3f; commits at %s; in the 2 s after it: %d'
      % (t0, ' '.join('%.3f' % t for t in commits), len(idle)))
sys.exit(1 if idle else 0)
PY
wbc --mode 640x480 -- "$WBC_TEST_BIN/presentation-client" --frames 120 \
	>"$out/fb2" 2>"$out/log2"
rc=$?
cat "$out/log2"
check_log "$out/log2"
[ $rc = 0 ] || fail "animating run: exited $rc"
c=$(stat "$out/log2" commits); f=$(stat "$out/log2" flips); m=$(stat "$out/log2" missed_vblanks)
note "animating client, 120 frames: commits=$c flips=$f missed_vblanks=$m"
[ -n "$m" ] || fail "missed_vblanks not reported"
[ "$c" -ge 120 ] || fail "only $c commits for 120 frames"
[ $((c - f)) -le 1 ] || fail "commits=$c but flips=$f"
echo PASS
