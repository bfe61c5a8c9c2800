#!/bin/bash
# Run every wbc test suite: installs what is missing, builds with ASan+UBSan, makes ready
# (or finds cached) the guest kernels of tests/vm/kernels, stock and patched (Debian's
# images with vkms.ko built out of tree), then runs the guests' suites: the vm suite
# beside the soak, then the vkms suite, its batches and matrix two at a time, each
# guest with one vCPU. From the start and through both, at the lowest priority on the CPU
# the guests leave idle: the unit and wlcs (the Wayland conformance suites against wbc's
# core, tests/wlcs.sh) suites and the fuzzers (each libFuzzer target for
# $WBC_FUZZ_SECONDS, default 60, one at a time, tests/fuzz/run.sh). The comments at each
# step say what was measured.
# --long: also installs the long suite's packages (tests/deps.sh: wbc_long_packages, the
# kiosk browsers chromium and firefox-esr) and, after everything else, runs the `long`
# suite (wbc-browser-chromium, wbc-browser-firefox: a browser takes minutes to start in the
# guest; 4 to 7 minutes for both, tests/README.md). Without it (as CI
# runs it) neither. Any other argument is refused.
# Exit status is non-zero on any failure. Build dir: $WBC_BUILD_DIR (default build/).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
long=0
for arg; do
	case $arg in
	--long) long=1 ;;
	*) echo "usage: tests/run.sh [--long]" >&2; exit 2 ;;
	esac
done
. tests/deps.sh
wbc_install_deps || exit 1
if [ $long = 1 ]; then wbc_install_deps "${wbc_long_packages[@]}" || exit 1; fi

# The guest kernels are made ready (or found cached) while wbc builds: a cold fetch waits
# on the network. Two Debian releases at once; the two flavours of one release take turns
# (guest-kernel locks its cache directory).
start=$(date +%s)
pids=() names=()
for k in $(tests/vm/guest-kernel --list | grep -vx source); do
	tests/vm/guest-kernel "$k" >/dev/null &
	pids+=($!) names+=("$k")
done

build=${WBC_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false ||
		{ kill "${pids[@]}" 2>/dev/null; exit 1; }
fi
ninja -C "$build" || { kill "${pids[@]}" 2>/dev/null; exit 1; }

for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { echo "wbc: cannot make the guest kernel ${names[$i]} ready" >&2; exit 1; }
done
echo "wbc: built, and guest kernels ready, in $(( $(date +%s) - start )) s"

status=0
# suite NAME [MESON-TEST-ARGS...]
suite() {
	meson test -C "$build" --no-rebuild --print-errorlogs --suite "$1" --logbase "testlog-$1" "${@:2}"
}
# The host suites, from the start, at the lowest priority (tests/lowest-priority: nice 19
# in a session whose autogroup has nice 19 too, or the nice would not count against the
# guests' sessions), on the CPU the guests leave idle: unit beside wlcs, each test so
# wrapped (meson starts each in a session of its own), and the libFuzzer targets
# (clang-14; their own build in build-fuzz/; a crash, leak, UB or timeout fails CI, and
# so does a regression input in tests/fuzz/regressions/), one at a time, each for a fixed
# time. Started with the soak and the vm suite (2026-12-07, 21:50 UTC) they were done
# 100-130 s into the vkms suite, the soak took 365 s and missed 13 % of its vblanks as
# without them, and the vkms suite's batches ran 13 % faster than with the host suites
# beside them. Their outputs follow the guests' suites'.
low=$PWD/tests/lowest-priority
suite unit --wrapper "$low" >"$build/meson-logs/unit.out" 2>&1 & unit=$!
suite wlcs --wrapper "$low" >"$build/meson-logs/wlcs.out" 2>&1 & wlcs=$!
WBC_FUZZ_JOBS=1 WBC_FUZZ_BUILD_DIR=${WBC_FUZZ_BUILD_DIR:-$build-fuzz} "$low" \
	tests/fuzz/run.sh "${WBC_FUZZ_SECONDS:-60}" >"$build/meson-logs/fuzz.out" 2>&1 &
fuzz=$!

# The soak (5 minutes, not its default 10: tests/README.md) beside the vm suite, whose
# guests mostly wait out the timeouts and hangs they test (2026-12-07: both done in 384 s
# against 274 + 330 one after the other; the soak missed 14 % of its vblanks, its bound
# is half). Its output follows the vm suite's.
WBC_SOAK_SECONDS=${WBC_SOAK_SECONDS:-300} suite soak >"$build/meson-logs/soak.out" 2>&1 &
soak=$!
suite vm || status=1
wait $soak || status=1
cat "$build/meson-logs/soak.out"

# Then the vkms suite: kms-check and wayvnc's batch alone with two vCPUs
# (tests/meson.build), then the batches and the matrix, each guest with one vCPU, as many
# at a time as the host has cores. Two at a time left the CPU 15-40 % idle once the host
# suites were done (2026-12-07, 22:00-22:13 UTC, /proc/stat every 5 s); three took the
# vkms suite from 1016 to 907 s, but under that load wbc-capture-grim (the matrix on
# 6.12-stock) recorded none of its grim images' frames, its encoder behind (one of three
# runs, 23:15 UTC): a check that needs the encoder to keep up. Two until it does not.
suite vkms || status=1
wait $unit || status=1
wait $wlcs || status=1
wait $fuzz || status=1
cat "$build/meson-logs/unit.out" "$build/meson-logs/wlcs.out" "$build/meson-logs/fuzz.out"

# --long: the long suite, alone (its guests one at a time, nothing beside them).
# (meson names the log of a run with --wrapper after the wrapper too.)
logs=("$build"/meson-logs/testlog-{unit,wlcs}-lowest-priority.json "$build"/meson-logs/testlog-{vm,soak,vkms}.json)
if [ $long = 1 ]; then
	suite long || status=1
	logs+=("$build/meson-logs/testlog-long.json")
fi

# One closing line over all suites.
python3 - "${logs[@]}" <<'PY'
import json, sys
ok = bad = skip = 0
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"): ok += 1
        elif r == "SKIP": skip += 1
        else: bad += 1
print(f"{ok} passed, {bad} failed, {skip} skipped")
PY
exit $status
