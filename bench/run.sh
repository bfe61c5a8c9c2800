#!/bin/bash
# bench/run.sh: both benchmarks of issue 7 in one command, under 20 minutes on 2 cores.
#
#   bench/run.sh
#
# 1. Host (bench/run-recorder.sh): recorder/ vs a bare libswscale+libx264 loop vs the ffmpeg
#    CLI, 1280x720 and 1920x1080, median of 5 rounds (300 frames each here; the script's
#    own default is 600).
# 2. VM (bench/run-vkms.sh): wbc (writeback, readback) vs cage + wf-recorder in one VKMS
#    guest boot, 640x480 and 1280x720, 3 runs of 30 s each (the display-only baselines
#    are left out here to stay in budget: BENCH_EXTRA_CONFIGS="wbc-display cage-display").
#
# Prints both sets of markdown tables; each script writes its JSON to bench/results/ and
# this one a combined markdown file, bench/results/bench-<UTC stamp>.md. The numbers are
# never judged: the exit status is non-zero only when a build is broken or a benchmark
# produced nothing (the reason is printed). Every knob of the two scripts can be set in the
# environment (see their headers).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
stamp=$(date -u +%Y%m%d-%H%M%S)
md=$root/bench/results/bench-$stamp.md
mkdir -p "$root/bench/results" "$root/build-bench" || exit 1
t0=$(date +%s)

export COUNT=${COUNT:-300}
export BENCH_EXTRA_CONFIGS=${BENCH_EXTRA_CONFIGS-}

status=0
# section TITLE SCRIPT: run one benchmark; its stdout (markdown) goes under TITLE in $md,
# its progress (stderr) to the terminal.
section() {
	printf '\n## %s (%s)\n\n' "$1" "$2" >>"$md"
	if "$2" >"$root/build-bench/$(basename "$2" .sh).out"; then
		cat "$root/build-bench/$(basename "$2" .sh).out" >>"$md"
	else
		echo "run.sh: $2 failed (see above)" | tee -a "$md" >&2
		status=1
	fi
}
echo "# wbc benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null)" >"$md"
section "Host: recorder/ against the bare encoder" bench/run-recorder.sh
t1=$(date +%s)
section "VM: wbc against cage + wf-recorder on one VKMS device" bench/run-vkms.sh
t2=$(date +%s)
printf '\nWall time: host %d s, VM %d s, total %d s.\n' $((t1 - t0)) $((t2 - t1)) $((t2 - t0)) >>"$md"
cat "$md"
echo "run.sh: markdown in $md" >&2
exit $status
