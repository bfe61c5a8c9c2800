#!/bin/bash
# run-check.sh MIN-PASSED TOOL [ARGS...]: run wbc-kms-check in a VKMS guest and judge its
# TAP: at least MIN-PASSED checks passed, every SKIP with a reason, and every "not ok" a
# kernel finding listed in ./findings for this kernel ($WBC_VM_KERNEL; its regex matched
# against the check's diagnostics), which is printed as such. PNGs and JUnit go to /tmp/kms-check/.
#
# The tool runs in the background: after some kernel bugs (findings) it reports, bails
# out and then blocks for ever in the kernel when its DRM file is released (a VKMS
# composer that crashed never finishes the commit that turns its planes off). Its TAP is
# judged once it ended; the blocked process is left to the guest's shutdown.
set -u
min=$1 tool=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
out=/tmp/kms-check
mkdir -p "$out"
log=$out/tap.txt
kernel=${WBC_VM_KERNEL:-?}

"$tool" --output-dir "$out" --junit "$out/junit.xml" "$@" >"$log" 2>"$out/stderr.txt" &
pid=$!
ended() { grep -q -E '^Bail out!|^# [0-9]+ passed' "$log"; }
# 400 s at most for the TAP; then 20 s for the process to exit.
for _ in $(seq 400); do ! kill -0 $pid 2>/dev/null && break; ended && break; sleep 1; done
for _ in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 1; done
status=stuck
if ! kill -0 $pid 2>/dev/null; then wait $pid; status=$?; fi
fail=0
problem() { echo "kms-check: $*"; fail=1; }
passed=$(grep -c -E '^ok [0-9]+ - [^#]*$' "$log")
skipped=$(grep -c -E '^ok [0-9]+ - .*# SKIP' "$log")
[ "$passed" -ge "$min" ] || problem "$passed checks passed, want at least $min"
if grep -q -E '^ok [0-9]+ - .*# SKIP *$' "$log"; then problem "a SKIP without a reason"; fi

# Each "not ok" and its diagnostics (joined by " | "), tab-separated.
failures=$(awk 'function out() { if (n) print n "\t" r; n = ""; r = "" }
	/^not ok/ { out(); n = $0; sub(/^not ok [0-9]+ - /, "", n); next }
	n && /^# / && !/^# [0-9]+ passed/ { d = $0; sub(/^# /, "", d); r = r (r ? " | " : "") d; next }
	{ out() } END { out() }' "$log")
findings=0
while IFS=$'\t' read -r name reason; do
	[ -n "$name" ] || continue
	known=
	while IFS=$'\t' read -r kglob cglob regex finding; do
		case $kglob in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2254
		case $kernel in $kglob) ;; *) continue ;; esac
		# shellcheck disable=SC2254
		case $name in $cglob) ;; *) continue ;; esac
		grep -q -E "$regex" <<<"$reason" && known=$finding && break
	done <"$here/findings"
	if [ -n "$known" ]; then
		echo "KERNEL FINDING ($kernel): $name: $known"
		findings=$((findings + 1))
	else
		problem "not ok, and no known kernel finding: $name: $reason"
	fi
done <<<"$failures"
if [ $findings -gt 0 ]; then
	echo "kernel log of the findings:"
	dmesg | grep -E -A3 'BUG:|Oops|RIP:|WARNING:' | head -n 20
fi
case $status in
0|1) ;;
stuck) [ $findings -gt 0 ] && echo "wbc-kms-check: blocked in the kernel after the finding (as expected after a dead composer)" ||
	problem "wbc-kms-check did not end" ;;
*) problem "wbc-kms-check exited $status" ;;
esac
grep -q -E '^# [0-9]+ passed' "$log" || problem "no TAP summary"
echo "kms-check ($kernel): $passed passed, $skipped skipped, $findings kernel findings; $([ $fail = 0 ] && echo ok || echo FAILED)"
# The verdict first, then the TAP (the kernel matrix shows only the first lines).
echo "--- TAP of wbc-kms-check $*"
cat "$log"
[ -s "$out/stderr.txt" ] && sed 's/^/stderr: /' "$out/stderr.txt"
exit $fail
