#!/bin/bash
# Build the libFuzzer targets in tests/fuzz/ with clang (-fsanitize=fuzzer,address,undefined),
# run every input in tests/fuzz/regressions/<target>/ once, then fuzz each target for
# SECONDS (default 60) starting from tests/fuzz/corpus/<target>/, $WBC_FUZZ_JOBS targets at
# a time (default 2: CI has 2 cores; each libFuzzer run is one process).
#
#   tests/fuzz/run.sh [SECONDS]
#
# New corpus entries and crash artifacts go to a scratch dir outside the repo
# ($WBC_FUZZ_SCRATCH, default a fresh mktemp dir; its path is printed), never into
# tests/fuzz/. Build dir: $WBC_FUZZ_BUILD_DIR (default build-fuzz/). Compiler: $CC
# (default clang-14). Prints one line per target; exits non-zero if a target fails to
# build, a regression input fails, or fuzzing finds a crash, leak, UB or timeout.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

secs=${1:-60}
case $secs in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2;; esac
jobs=${WBC_FUZZ_JOBS:-2}
case $jobs in ''|0|*[!0-9]*) echo "$0: WBC_FUZZ_JOBS wants a positive number" >&2; exit 2;; esac
cc=${CC:-clang-14}
build=${WBC_FUZZ_BUILD_DIR:-build-fuzz}
scratch=${WBC_FUZZ_SCRATCH:-$(mktemp -d "${TMPDIR:-/tmp}/wbc-fuzz.XXXXXX")}
mkdir -p "$build" "$scratch" || exit 1

# Same warnings as the meson build (warning_level=3, werror, project arguments).
# shellcheck disable=SC2054  # commas inside -fsanitize=..., not array separators
cflags=(-std=c11 -g -O1 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-Wall -Wextra -Wpedantic -Werror -Wno-unused-parameter -Wmissing-prototypes
	-Wstrict-prototypes -Wshadow -Wformat=2 -Wundef -Wvla
	-Iinclude -Ibackend)

# target: sources (besides tests/fuzz/<target>.c) and pkg-config packages.
targets=(fuzz-options fuzz-in-formats fuzz-fourcc-list fuzz-recorder-options fuzz-mode
	fuzz-buffer-layout)
declare -A srcs=(
	[fuzz-in-formats]="backend/formats.c"
	[fuzz-fourcc-list]="backend/formats.c"
	[fuzz-recorder-options]="recorder/format.c recorder/messages.c"
	[fuzz-mode]=""
	[fuzz-options]="compositor/shell/options.c"
	[fuzz-buffer-layout]="compositor/util/buffer-check.c backend/formats.c recorder/format.c"
)
declare -A pkgs=(
	[fuzz-in-formats]="libdrm"
	[fuzz-fourcc-list]="libdrm"
	[fuzz-recorder-options]="libavcodec libavformat libswscale libavutil libdrm"
	[fuzz-mode]=""
	[fuzz-options]=""
	[fuzz-buffer-layout]="libavcodec libavformat libswscale libavutil libdrm"
)
# Libraries without a pkg-config file (Debian's libyuv-dev ships none).
declare -A libs_of=(
	[fuzz-recorder-options]="-lyuv"
)
# libFuzzer flags of one target: fuzz-options prints wbc's usage and error lines.
declare -A flags_of=(
	[fuzz-options]="-close_fd_mask=3"
)

if ! command -v "$cc" >/dev/null; then
	echo "wbc-fuzz: $cc not found (apt-get install clang-14 libclang-rt-14-dev llvm-14)" >&2
	exit 1
fi
# Symbolized stacks in the logs.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-14 >/dev/null; then
	ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14)
	export ASAN_SYMBOLIZER_PATH
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

echo "wbc-fuzz: ${secs} s per target, $jobs at a time, scratch dir $scratch"
status=0

# build TARGET: compile it and run its regression inputs; prints a FAIL line and returns 1
# on failure. Sets regress_n[TARGET].
declare -A regress_n=()
build() {
	local t=$1 bin=$build/$1 flags=() regress=() f
	if [ -n "${pkgs[$t]}" ]; then
		# shellcheck disable=SC2086
		if ! read -ra flags <<<"$(pkg-config --cflags --libs ${pkgs[$t]})"; then
			echo "$t: FAIL (pkg-config ${pkgs[$t]})"; return 1
		fi
	fi
	# shellcheck disable=SC2086
	if ! "$cc" "${cflags[@]}" "tests/fuzz/$t.c" ${srcs[$t]} "${flags[@]}" ${libs_of[$t]:-} -lm \
			-o "$bin" >"$scratch/$t.build.log" 2>&1; then
		echo "$t: FAIL (build, see $scratch/$t.build.log)"
		sed 's/^/    /' "$scratch/$t.build.log" | head -40
		return 1
	fi

	# Regression inputs: each file run once.
	if [ -d "tests/fuzz/regressions/$t" ]; then
		while IFS= read -r -d '' f; do regress+=("$f"); done \
			< <(find "tests/fuzz/regressions/$t" -type f ! -name 'README*' -print0 | sort -z)
	fi
	regress_n[$t]=${#regress[@]}
	if [ ${#regress[@]} -gt 0 ] &&
			! "$bin" "${regress[@]}" >"$scratch/$t.regress.log" 2>&1; then
		echo "$t: FAIL (regression input, see $scratch/$t.regress.log)"
		grep -m3 -E 'Running: |Assertion|ERROR|runtime error' "$scratch/$t.regress.log" | sed 's/^/    /'
		return 1
	fi
}

# fuzz TARGET: fuzz it for $secs; its result line (and the report's first lines on a
# failure) goes to $scratch/TARGET.result; returns libFuzzer's status.
fuzz() {
	local t=$1 bin=$build/$1 log=$scratch/$1.log rc execs rate new corp seeds result
	mkdir -p "$scratch/$t" "$scratch/$t.artifacts"
	# shellcheck disable=SC2086
	"$bin" ${flags_of[$t]:-} -max_total_time="$secs" -timeout=25 -print_final_stats=1 \
		-artifact_prefix="$scratch/$t.artifacts/" \
		"$scratch/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	new=$(find "$scratch/$t" -type f | wc -l)
	corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2)
	seeds=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		result=OK
	else
		result="FAIL (exit $rc, see $log)"
	fi
	{
		echo "$t: $result: ${execs:-?} execs (${rate:-?}/s), corpus ${corp:-?} (inputs/bytes;" \
			"$seeds seeds, $new new in scratch), ${regress_n[$t]} regression inputs"
		if [ $rc -ne 0 ]; then
			grep -m4 -E 'Assertion|^==[0-9]+==ERROR|runtime error|SUMMARY|Test unit written to' "$log" |
				sed 's/^/    /'
		fi
	} >"$scratch/$t.result"
	return $rc
}

built=()
for t in "${targets[@]}"; do
	if build "$t"; then built+=("$t"); else status=1; fi
done

# At most $jobs fuzzers at once; every one's exit status is collected (wait -n: the next
# to end), and each must also have written an OK line, so any crash, leak, UB or timeout
# fails the run.
running=0
for t in "${built[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n; rc=$?
		[ $rc -eq 0 ] || status=1
		running=$((running - 1))
	fi
	fuzz "$t" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n; rc=$?
	[ $rc -eq 0 ] || status=1
	running=$((running - 1))
done
for t in "${built[@]}"; do
	if [ -s "$scratch/$t.result" ]; then cat "$scratch/$t.result"
	else echo "$t: FAIL (no result)"; status=1; fi
	grep -q "^$t: OK:" "$scratch/$t.result" 2>/dev/null || status=1
done
exit $status
