#!/bin/bash
# Soak (issue 8): wbc --record (mkv, writeback capture, --fps 5) for $WBC_SOAK_SECONDS
# (default 600) with an APP script that restarts the pattern client (a commit every frame
# callback) every 20 s: odd rounds the client exits by itself (--duration), even rounds it
# is killed with SIGKILL. APP samples wbc ($PPID) twice a round, 5 s and 15 s after the
# round's client started (so every sample sees one connected client, every 10 s):
#   fds   entries in /proc/WBC/fd
#   rss   VmRSS of /proc/WBC/status (kB)
#   fbs   framebuffers on the VKMS device: "framebuffer[ID]:" entries of DRM debugfs
#         (/sys/kernel/debug/dri/N/framebuffer; wbc's dumb buffers each have one: the
#         output's swapchain and the writeback pool)
#   maps  wbc's mappings of /dev/dri/card* (/proc/WBC/maps: mapped dumb buffers)
#   mode  the capture path: writeback, or readback once wbc said it switched (Linux 6.1
#         VKMS loses writeback jobs on a loaded host; after 3 in a row wbc frees its
#         writeback pool and copies the displayed buffer instead: see wbc-record-wb-stall)
# Per capture mode, from the first sample at least 60 s after APP started (warm-up) and
# 20 s after the mode began, to the mode's last sample, spanning >= 60 s (3 clients):
# fds within +-2 (the smallest of the first 3 samples against the smallest of the last 3:
# in-flight writeback fences and a client's handshake come and go), framebuffers and
# mappings equal, RSS at most max(10 %, 8 MiB) more. The windows so judged must cover at
# least 2/3 of the soak. Also: no sanitizer report (LeakSanitizer runs at exit), missed
# vblanks at most half the flips (the guest is emulated: a loaded host delays the commit
# work, measured ~20 %; a held-back commit, as in a writeback stall, costs 60 a second),
# captured = encoded + dropped, and the file decodes to exactly the encoded frames: one
# run of increasing pattern numbers per client.
#
# ASan keeps freed memory in a quarantine of 256 MiB by default, which a 10 fps recorder
# fills for minutes and which would look like RSS growth: the soak caps it at 16 MiB.
. "$(dirname "$0")/../record/lib.sh"
secs=${WBC_SOAK_SECONDS:-600}
rounds=$((secs / 20))
[ "$rounds" -ge 4 ] || fail "WBC_SOAK_SECONDS=$secs: want at least 80"
export WBC_TEST_DEADLINE=$((secs + 120))
export ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=16

dri=
for d in /sys/kernel/debug/dri/*/; do
	grep -q vkms "$d/name" 2>/dev/null && [ -r "$d/framebuffer" ] && { dri=${d%/}; break; }
done
[ -n "$dri" ] || fail "no VKMS framebuffer list in DRM debugfs (/sys/kernel/debug/dri/*/)"
note "framebuffers from $dri/framebuffer"

cat >"$out/app.sh" <<APP
#!/bin/bash
# APP of the soak: \$PPID is wbc.
sample() {
	local t=\$((SECONDS - start)) fds rss fbs maps mode=writeback
	fds=\$(ls /proc/\$PPID/fd | wc -l)
	rss=\$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/\$PPID/status)
	fbs=\$(grep -c '^framebuffer\[' "$dri/framebuffer")
	maps=\$(grep -c ' /dev/dri/card' /proc/\$PPID/maps)
	grep -q 'switching to readback' "$out/log" && mode=readback
	echo "\$t \$fds \$rss \$fbs \$maps \$mode" >>"$out/samples"
}
start=\$SECONDS
for i in \$(seq $rounds); do
	round=\$((start + (i - 1) * 20))
	if [ \$((i % 2)) = 1 ]; then
		"$client" --duration 20 & pid=\$!
	else
		"$client" & pid=\$!
	fi
	sleep 5; sample; sleep 10; sample
	if [ \$((i % 2)) = 1 ]; then
		wait \$pid; rc=\$?
		[ \$rc = 0 ] || { echo "APP: round \$i: client exited \$rc" >&2; exit 3; }
	else
		sleep \$((round + 20 - SECONDS > 0 ? round + 20 - SECONDS : 0))
		kill -KILL \$pid; wait \$pid
	fi
done
exit 0
APP
chmod +x "$out/app.sh"
rm -f "$out/samples"
t0=$SECONDS
wbc --mode 640x480 --fps 5 --capture writeback --record "$out/soak.mkv" --stats \
	-- "$out/app.sh" >"$out/log" 2>&1
rc=$?
note "wbc ran $((SECONDS - t0)) s, exit status $rc"
grep -av '^wbc: rec captured=' "$out/log"
grep -a '^wbc: rec captured=' "$out/log" | awk 'NR % 60 == 1'   # one stats line a minute
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
grep -q '^wbc: capture: writeback' "$out/log" || fail "not capturing through writeback"

note "samples (t: s since APP started; rss: kB):"
printf '#   %5s %5s %8s %5s %5s  %s\n' t fds rss fbs maps mode
while read -r t f r b m c; do printf '#   %5s %5s %8s %5s %5s  %s\n' "$t" "$f" "$r" "$b" "$m" "$c"; done \
	<"$out/samples"
python3 - "$out/samples" "$rounds" "$secs" <<'PY' || fail "resources grew over the soak"
import sys
rows = [l.split() for l in open(sys.argv[1])]
rounds, secs = int(sys.argv[2]), int(sys.argv[3])
if len(rows) != 2 * rounds or any(len(r) != 6 for r in rows):
    sys.exit('%d samples of 6 fields, want %d' % (len(rows), 2 * rounds))
rows = [[int(x) for x in r[:5]] + [r[5]] for r in rows]
bad, judged = [], 0
for mode in ('writeback', 'readback'):
    phase = [r for r in rows if r[5] == mode]
    if not phase:
        continue
    begin = phase[0][0] if mode != rows[0][5] else 0
    win = [r for r in phase if r[0] >= max(60, begin + 20)]
    if len(win) < 6 or win[-1][0] - win[0][0] < 60:
        print('# %s: t=%d..%d s, too short to judge' % (mode, phase[0][0], phase[-1][0]))
        continue
    (t0, f0, r0, b0, m0, _), (t1, f1, r1, b1, m1, _) = win[0], win[-1]
    fmin0, fmin1 = min(r[1] for r in win[:3]), min(r[1] for r in win[-3:])
    judged += t1 - t0
    print('# %s, judged t=%d..%d s: fds %d -> %d (least of 3), rss %d -> %d kB (%+d kB), '
          'fbs %d -> %d, maps %d -> %d' % (mode, t0, t1, fmin0, fmin1, r0, r1, r1 - r0,
                                            b0, b1, m0, m1))
    if abs(fmin1 - fmin0) > 2:
        bad.append('%s: fds %d -> %d (bound +-2)' % (mode, fmin0, fmin1))
    if b1 != b0:
        bad.append('%s: framebuffers %d -> %d' % (mode, b0, b1))
    if m1 != m0:
        bad.append('%s: dri mappings %d -> %d' % (mode, m0, m1))
    if r1 - r0 > max(r0 // 10, 8192):
        bad.append('%s: rss %d -> %d kB (bound +max(10%%, 8 MiB))' % (mode, r0, r1))
    if b0 == 0 or r0 == 0:
        bad.append('%s: no framebuffer or no RSS read: the sampler is broken' % mode)
print('# judged %d s of %d' % (judged, secs))
if judged * 3 < secs * 2:
    bad.append('only %d s of the %d s soak could be judged' % (judged, secs))
sys.exit('; '.join(bad) if bad else 0)
PY

flips=$(stat "$out/log" flips); missed=$(stat "$out/log" missed_vblanks)
note "flips=$flips missed_vblanks=$missed"
[ -n "$missed" ] && [ "$flips" -gt 0 ] || fail "no 'wbc: stats' line"
[ $((missed * 2)) -le "$flips" ] || fail "missed_vblanks=$missed > half the flips=$flips"
check_final "$out/log"
e=$(rec_final "$out/log" encoded)
note "soak.mkv: $(du -k "$out/soak.mkv" | cut -f1) kB"
decode "$out/soak.mkv" rgb24 | "$tool" pattern 640 480 rgb24 >"$out/numbers" ||
	fail "decoding soak.mkv failed"
n=$(wc -l <"$out/numbers")
note "decoded $n frames, wbc encoded $e"
[ "$n" = "$e" ] || fail "decoded $n frames but wbc encoded $e"
python3 - "$out/numbers" "$rounds" <<'PY' || fail "frames of the $rounds clients"
import sys
v = open(sys.argv[1]).read().split()
n = [int(x) for x in v if x != 'bad']
runs, cur = [], n[:1]
for a, b in zip(n, n[1:]):
    if b < a:
        runs.append(cur); cur = []
    cur.append(b)
runs.append(cur)
print('# %d frames (%d without a pattern), %d runs of client frames, distinct per run %d..%d'
      % (len(v), v.count('bad'), len(runs), min(len(set(r)) for r in runs),
         max(len(set(r)) for r in runs)))
if len(runs) != int(sys.argv[2]) or min(len(set(r)) for r in runs) < 3:
    sys.exit('want %s runs (one per client) of >= 3 distinct frames' % sys.argv[2])
PY
echo PASS
