#!/bin/sh
# The wlcs conformance suites against wbc's core (tests/wlcs/wbc-wlcs.c), host only.
#   tests/wlcs.sh RUNNER MODULE EXPECTED
# RUNNER: wlcs' runner (pkg-config --variable=test_runner wlcs; its .asan variant for an
# ASan build), MODULE: wbc-wlcs.so, EXPECTED: the tests expected to fail, one a line with
# the reason (tests/wlcs-expected.txt). The suite runs in gtest shards, two per core (every
# test makes and ends its own server, and mostly waits). Fails on a failure not listed, on
# a listed test that passes (take it off the list) and on a sanitizer report of wbc's
# (tests/wlcs/lsan-triage.py); ends with "N passed, N failed, N skipped".
# WLCS_FILTER=PATTERN runs only those tests (listed tests not run are then not reported).
# Results: $WLCS_OUT (default: a temporary directory, removed).
set -u
[ $# -eq 3 ] || { echo "usage: $0 RUNNER MODULE EXPECTED" >&2; exit 2; }
runner=$1 module=$2 expected=$3
for f in "$runner" "$module" "$expected"; do
	[ -e "$f" ] || { echo "wlcs.sh: $f: not found" >&2; exit 2; }
done
out=${WLCS_OUT:-}
if [ -z "$out" ]; then
	out=$(mktemp -d) || exit 2
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
shards=$(nproc 2>/dev/null || echo 1)
shards=$((shards * 2))  # the suite mostly waits (its timeouts are 10 s)
[ "$shards" -gt 8 ] && shards=8
filter=${WLCS_FILTER:-*}
# LSan: full stacks (the fast unwinder stops in libraries without frame pointers; 12 frames
# are enough to name the allocating code and cost far less than 30), so that a leak is
# attributed to wbc or to wlcs' own test code (lsan-triage.py). Nothing is suppressed
# (wlroots 0.15's leak at exit is kept from LeakSanitizer: compositor/util/leak-check.h).
export ASAN_OPTIONS="fast_unwind_on_malloc=0:malloc_context_size=12${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
start=$(date +%s)
i=0 pids=
while [ $i -lt "$shards" ]; do
	GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$runner" "$module" --gtest_brief=1 \
		--gtest_filter="$filter" --gtest_output="json:$out/shard-$i.json" \
		>"$out/shard-$i.log" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
# The runner's status is 1 when a test fails: compare.py judges the tests themselves.
for pid in $pids; do
	wait "$pid"
done
status=0
end=$(date +%s)
echo "wlcs: $shards shards in $((end - start)) s; logs in $out (WLCS_OUT=DIR keeps them)"
# A sanitizer report fails the run whatever the tests said, but for leaks made by wlcs'
# own test code alone (lsan-triage.py tells them apart by their stacks).
for log in "$out"/shard-*.log; do
	if grep -q "ERROR: AddressSanitizer\|runtime error:" "$log"; then
		echo "wlcs: sanitizer report in $log:"
		grep -A30 "ERROR: AddressSanitizer\|runtime error:" "$log" | head -60
		status=2
	fi
	python3 "$(dirname "$0")/wlcs/lsan-triage.py" "$log" || status=2
done
python3 "$(dirname "$0")/wlcs/compare.py" "$expected" "$filter" "$out"/shard-*.json || exit 1
[ $status -eq 2 ] && exit 1
exit 0
