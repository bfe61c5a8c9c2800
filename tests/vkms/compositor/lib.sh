# Sourced by the wbc VKMS tests; runs inside the guest (tests/vm/vkms-run).
# The test's meson env gives WBC (the wbc binary) and WBC_TEST_BIN (the test clients).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${WBC:?WBC must point at the wbc binary}"
: "${WBC_TEST_BIN:?WBC_TEST_BIN must point at the test clients}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:fast_unwind_on_malloc=0}
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
out=/tmp/wbc-test
mkdir -p "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# stat LOG NAME: a field of the "wbc: stats ..." line.
stat() {
	grep -a '^wbc: stats ' "$1" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# The sanitizers print their reports on stderr: a test fails on any.
check_sanitizers() {
	if grep -aE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$1" >/dev/null; then
		grep -aE -A30 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$1" | head -80 >&2
		fail "sanitizer report in $1"
	fi
}

ppm() { /usr/bin/python3 "$here/ppm.py" "$@"; }

# last_frame RECORDING PPM: the recording's last frame (what the screen showed when wbc
# stopped) as a PPM.
last_frame() {
	ffmpeg -nostdin -v error -i "$1" -fps_mode passthrough -update 1 -pix_fmt rgb24 \
		-f image2 "$2"
}

# wbc ARGS...: wbc with a deadline (a hang becomes status 124 with the logs kept).
wbc() { timeout -k 10 "${WBC_TEST_DEADLINE:-100}" "$WBC" "$@"; }
