# Sourced by the wbc VKMS tests; runs inside the guest (tests/vm/vkms-run).
# The test's meson env gives WBC (the wbc binary) and WBC_TEST_BIN (the test clients).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${WBC:?WBC must point at the wbc binary}"
: "${WBC_TEST_BIN:?WBC_TEST_BIN must point at the test clients}"
# Leaks are checked with nothing suppressed (wlroots 0.15's one leak at exit is kept from
# LeakSanitizer: compositor/util/leak-check.h), so no report needs symbolizing at exit and
# the fast unwinder does: a leak fails the test; rerun it with fast_unwind_on_malloc=0 for
# stacks through libraries built without frame pointers.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
out=/tmp/wbc-test
mkdir -p "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }

# nap SECONDS: sleep without starting a process, for polling loops: in the TCG guest a
# fork and exec costs ~0.1 s of a vCPU that wbc is short of. read -t on a pipe whose both
# ends this shell holds (so no end of file ever comes) returns when the time is up.
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" || :; }

# secs N: N seconds of running time for a check that counts what wbc did in them, times
# $WBC_TEST_TIME_SCALE (1; tests/valgrind/wrap-test sets it: under memcheck wbc does in N
# times the scale what it does in N without). N and the scale are integers.
secs() { echo $(($1 * ${WBC_TEST_TIME_SCALE:-1})); }

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
	# Under tests/valgrind.sh wbc is run by memcheck, whose reports go to files of their
	# own: any error or definite leak in a wbc run so far fails the test here too.
	local vg
	if [ -n "${WBC_VALGRIND_LOG_DIR:-}" ] &&
			vg=$(grep -l 'ERROR SUMMARY: [1-9]' "$WBC_VALGRIND_LOG_DIR"/wbc.*.log 2>/dev/null); then
		# shellcheck disable=SC2086  # $vg: one or more log paths
		grep -h -A25 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|Mismatched|Source and|[0-9,]+ bytes in .* definitely)' \
			$vg | head -80 >&2
		fail "valgrind memcheck report in $vg"
	fi
}

# check_writeback_held LOG: on a patched VKMS (tests/vm/vkms-patches) writeback holds, so
# a lost writeback frame or a switch to readback fails the test. Stock VKMS loses jobs
# (the loss depends on host load): there wbc's fallback is accepted and said. A test that
# loses frames on purpose sets WBC_TEST_LOSES_WRITEBACK to why.
# wbc calls a frame lost when its fence has not signalled a second after the flip; a host
# that starves the guest can delay a fence that long. Frames whose fences all signalled
# after all (wbc's final stats: writeback_late = writeback_lost) were late, not lost, and
# are accepted and said; a stall (wbc switching to readback) or one fence that never
# signalled is not.
check_writeback_held() {
	grep -aqE 'capture: writeback (frame lost|stalled)' "$1" || return 0
	local lost late
	lost=$(stat "$1" writeback_lost) late=$(stat "$1" writeback_late)
	if ! grep -aq 'capture: writeback stalled' "$1" && [ "${lost:-0}" -gt 0 ] &&
			[ "$late" = "$lost" ]; then
		note "$lost writeback frames called lost signalled later (a loaded host): late, not lost"
	elif [ -n "${WBC_TEST_LOSES_WRITEBACK:-}" ]; then
		note "writeback frames lost on purpose: $WBC_TEST_LOSES_WRITEBACK"
	elif [ "${WBC_VM_KERNEL%-stock}" != "${WBC_VM_KERNEL:-}" ]; then
		note "stock VKMS ($WBC_VM_KERNEL) lost writeback frames; accepted there:"
		grep -aE 'capture: writeback (frame lost|stalled)' "$1" | head -n4
	else
		grep -aE 'capture: writeback (frame lost|stalled)' "$1" | head -n4 >&2
		fail "writeback lost frames on ${WBC_VM_KERNEL:-this kernel}, where it must hold"
	fi
}

# vkms_clones: the guest's VKMS lets Virtual-1 and Writeback-1 share the CRTC (patched,
# tests/vm/vkms-patches 0004): wbc then captures the screen it shows. Stock VKMS cannot,
# so wbc drives Writeback-1 as a headless output to capture.
vkms_clones() { [ "${WBC_VM_KERNEL%-patched}" != "${WBC_VM_KERNEL:-}" ]; }

# The output wbc shows and records when it chooses itself (no --headless, no --output).
shown=Writeback-1
vkms_clones && shown=Virtual-1

# writeback_line: the start of the capture line wbc prints when it records the display it
# chose itself (no --headless, no --output).
writeback_line() {
	if vkms_clones; then
		echo "^wbc: capture: writeback (Writeback-1 captures Virtual-1's CRTC"
	else
		echo '^wbc: capture: writeback (Writeback-1 as a headless output'
	fi
}

# check_log LOG: what every wbc run's log must pass (sanitizers, writeback held).
check_log() {
	check_sanitizers "$1"
	check_writeback_held "$1"
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

# refused WHAT STATUS TEXT... -- WBC-ARGS...: wbc WBC-ARGS... -- APP (APP would create a
# marker file) must exit with STATUS without starting APP and print exactly one stderr
# line, starting "wbc: " and containing each TEXT; the line is left in $out/err.
refused() {
	local what=$1 want_rc=$2; shift 2
	local want=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	rm -f "$out/app-ran"
	wbc "$@" -- sh -c "touch $out/app-ran" >"$out/err" 2>&1
	local rc=$?
	check_log "$out/err"
	note "$what: status $rc: $(cut -c1-300 "$out/err")"
	[ $rc = "$want_rc" ] || { cat "$out/err"; fail "$what: status $rc, want $want_rc"; }
	[ ! -e "$out/app-ran" ] || fail "$what: APP was started"
	[ "$(wc -l <"$out/err")" = 1 ] || { cat "$out/err"; fail "$what: not one line"; }
	grep -q '^wbc: ' "$out/err" || fail "$what: not a 'wbc: ' line"
	local w
	for w in "${want[@]}"; do
		grep -qF -- "$w" "$out/err" || fail "$what: the message lacks '$w'"
	done
}

# The active VT (ttyN), and switching to VT N: what chvt does (kbd is not installed):
# VT_ACTIVATE, then VT_WAITACTIVE.
active_vt() { cat /sys/class/tty/tty0/active; }
vt_activate() {
	python3 -c 'import fcntl, os, sys
fd = os.open("/dev/tty0", os.O_RDWR)
fcntl.ioctl(fd, 0x5606, int(sys.argv[1]))
fcntl.ioctl(fd, 0x5607, int(sys.argv[1]))' "$1"
}
