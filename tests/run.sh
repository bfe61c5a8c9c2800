#!/bin/bash
# Run every wbc test suite: installs what is missing, builds with ASan+UBSan, makes ready
# (or finds cached) the guest kernels of tests/vm/kernels, stock and patched (Debian's
# images with vkms.ko built out of tree), then runs the soak (its own guest) beside the
# host-only work: the unit and wlcs suites (the Wayland conformance suites against wbc's
# core, tests/wlcs.sh) and the fuzzers (each libFuzzer target for $WBC_FUZZ_SECONDS,
# default 60, two at a time: ~3 min, tests/fuzz/run.sh); then the vm and vkms suites.
# Exit status is non-zero on any failure. Build dir: $WBC_BUILD_DIR (default build/).
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/deps.sh
wbc_install_deps || exit 1

build=${WBC_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false || exit 1
fi
ninja -C "$build" || exit 1

start=$(date +%s)
for k in $(tests/vm/guest-kernel --list | grep -vx source); do
	tests/vm/guest-kernel "$k" >/dev/null || { echo "wbc: cannot make the guest kernel $k ready" >&2; exit 1; }
done
echo "wbc: guest kernels ready in $(( $(date +%s) - start )) s"

status=0
# suite NAME: one meson suite, its log in meson-logs/testlog-NAME.json ($nice before it).
nice=
suite() {
	$nice meson test -C "$build" --no-rebuild --print-errorlogs --suite "$1" --logbase "testlog-$1"
}
# The soak runs a fixed ten minutes in its own guest whatever else the host does, so the
# host-only suites (unit, wlcs, the fuzzers) run beside it, at a lower priority so that
# they take what the guest leaves. The guest suites then run one guest at a time.
suite soak >"$build/meson-logs/soak.out" 2>&1 &
soak=$!
nice="nice -n 10"
for s in unit wlcs; do
	suite "$s" || status=1
done
# libFuzzer targets (clang-14; their own build in build-fuzz/): a crash, leak, UB or
# timeout fails CI, and so does a regression input in tests/fuzz/regressions/.
WBC_FUZZ_BUILD_DIR=${WBC_FUZZ_BUILD_DIR:-$build-fuzz} $nice tests/fuzz/run.sh "${WBC_FUZZ_SECONDS:-60}" ||
	status=1
nice=
wait "$soak" || status=1
cat "$build/meson-logs/soak.out"
for s in vm vkms; do
	suite "$s" || status=1
done

# One closing line over all suites.
python3 - "$build"/meson-logs/testlog-{unit,wlcs,soak,vm,vkms}.json <<'PY'
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
