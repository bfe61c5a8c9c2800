#!/bin/bash
# Tests of tests/vm/vkms-run itself, one case per invocation (see tests/meson.build).
set -uo pipefail
run=$(dirname "$0")/vkms-run
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; echo "--- output:"; cat "$out"; exit 1; }

case ${1:?case} in
guest)
	# One boot checks what any guest must do (with --param, which changes nothing else):
	# the command's exit status and output come back, the guest has 2 CPUs, --param reaches
	# vkms, arguments survive quoting exactly, the project tree is writable, and the default
	# kernel boots with its own vkms.ko (check-kernel; each matrix-KERNEL test makes the
	# same check first). A second boot: without --param, the parameter is unset; and
	# WBC_VM_SMP=1 gives the guest one CPU.
	"$run" --param enable_cursor=1 --param enable_overlay=1 -- bash -c '
		echo guest-says-hi
		echo "cpus=$(grep -c ^processor /proc/cpuinfo)"
		grep -qx Y /sys/module/vkms/parameters/enable_cursor &&
			grep -qx Y /sys/module/vkms/parameters/enable_overlay && echo params-set
		"$1" && echo kernel-ok
		printf "<%s>" "${@:3}" >"$2"
		exit 7' _ "$(cd "$(dirname "$0")" && pwd)/check-kernel" "$PWD/.vm-args-$$" 'a b' '"q"' '$x' \
		>"$out" 2>&1
	rc=$?
	got=$(cat "$PWD/.vm-args-$$" 2>/dev/null); rm -f "$PWD/.vm-args-$$"
	[ $rc = 7 ] || fail "exit status $rc, want 7"
	grep -q guest-says-hi "$out" || fail "guest output not streamed"
	grep -q '^cpus=2$' "$out" || fail "the guest does not have 2 CPUs"
	grep -q '^params-set$' "$out" || fail "vkms parameters not set"
	[ "$got" = '<a b><"q"><$x>' ] || fail "arguments arrived as $got"
	grep -q '^kernel-ok$' "$out" || fail "not the kernel asked for"
	grep -a 'release' "$out"
	WBC_VM_SMP=1 "$run" -- sh -c 'grep -qx N /sys/module/vkms/parameters/enable_overlay &&
		echo param-unset; echo "cpus=$(grep -c ^processor /proc/cpuinfo)"' >"$out" 2>&1 ||
		fail "the second boot failed"
	grep -q '^param-unset$' "$out" || fail "enable_overlay set without --param"
	grep -q '^cpus=1$' "$out" || fail "WBC_VM_SMP=1: the guest does not have 1 CPU"
	;;
timeout)
	start=$(date +%s)
	# 30 s: Debian's kernels take ~10 s to init, and the first heartbeat comes 10 s later.
	"$run" --timeout 30 -- sleep 1000 >"$out" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	[ $rc = 124 ] || fail "exit status $rc, want 124"
	grep -q "timed out after 30s" "$out" || fail "no timeout message"
	grep -Eq "init started at uptime [0-9.]+ s; last heartbeat \(every 10 s\): uptime [0-9.]+ s" \
		"$out" || fail "no sign of life reported"
	# Bounded: the guest is killed at 30 s, plus a 5 s grace period.
	[ $took -lt 70 ] || fail "took ${took}s to give up"
	;;
deadline)
	# Before the host's timeout the guest reports what is stuck and ends with 124 itself.
	"$run" --timeout 70 -- sh -c 'sleep 1000' >"$out" 2>&1
	rc=$?
	[ $rc = 124 ] || fail "exit status $rc, want 124"
	grep -q "guest deadline reached, 20 s before the timeout of 70 s" "$out" ||
		fail "no deadline message"
	grep -Eq "^[0-9]+ +[0-9]+ +S +[0-9]+ sleep 1000" "$out" || fail "the stuck process is not listed"
	grep -q "Show Blocked State" "$out" || fail "no blocked-task dump in the kernel log"
	grep -q "timed out after 70s" "$out" && fail "the host had to kill the guest"
	;;
crash)
	"$run" -- sh -c 'echo c > /proc/sysrq-trigger; sleep 30' >"$out" 2>&1
	rc=$?
	[ $rc = 125 ] || fail "exit status $rc, want 125"
	grep -q "without reporting an exit status" "$out" || fail "no crash message"
	grep -q "oopsed on an int3" "$out" && fail "a plain crash was taken for the TCG int3 oops"
	# The TCG int3 oops (faked: its line on the console, then a crash; the project tree
	# outlives the guest, so the second guest does not crash) runs the command once more.
	mark=$PWD/.vm-oops-$$
	rm -f "$mark"
	"$run" -- sh -c "[ -e '$mark' ] && exit 7; touch '$mark'; echo 'Oops: int3: 0000 [#1] (faked)';
		echo c > /proc/sysrq-trigger; sleep 30" >"$out" 2>&1
	rc=$?
	rm -f "$mark"
	[ $rc = 7 ] || { cat "$out"; fail "int3 oops: exit status $rc, want 7 (the second guest's)"; }
	grep -q "oopsed on an int3 .*: running it once more" "$out" || fail "no int3 retry message"
	;;
boot-retry)
	# A guest whose init has not started in WBC_VM_BOOT_TIMEOUT s is booted once more,
	# then given up on (boot takes ~5 s, so 1 s fails both times).
	WBC_VM_BOOT_TIMEOUT=1 "$run" -- true >"$out" 2>&1
	rc=$?
	[ $rc = 125 ] || fail "exit status $rc, want 125"
	grep -q "did not start within 1s; booting once more" "$out" || fail "no retry message"
	grep -q "did not start within 1s twice" "$out" || fail "no give-up message"
	;;
hang)
	# A guest that stops living (here: its heartbeat stopped by hand, the way a frozen
	# kernel stops it) is reported as a kernel hang with each vCPU's symbolized stack.
	WBC_VM_HANG_TIMEOUT=20 "$run" -- sh -c 'kill -STOP $(cat /run/wbc-vm/heartbeat.pid); sleep 1000' \
		>"$out" 2>&1
	rc=$?
	[ $rc = 123 ] || fail "exit status $rc, want 123"
	grep -q "no heartbeat for 20 s" "$out" || fail "no hang message"
	grep -q "HUNG IN THE KERNEL" "$out" || fail "no closing hang line"
	for c in 0 1; do
		grep -Eq "^CPU$c: RIP [a-z_0-9.]+\+0x[0-9a-f]+ " "$out" || fail "no symbolized RIP for CPU$c"
	done
	grep -Eq "^  \? [a-z_0-9.]+\+0x[0-9a-f]+" "$out" || fail "no symbolized stack frames"
	grep -q "timed out after" "$out" && fail "reported as a timeout"
	;;
bad-options)
	# Each bad option: status 126 and one line that names the problem, no guest booted.
	for args in "--kernel 5.10-patched" "--virtio-gpu 0" "--timeout soon" "--smp 10" "--bogus"; do
		# shellcheck disable=SC2086  # the words of $args are the options
		"$run" $args -- true >"$out" 2>&1
		rc=$?
		[ $rc = 126 ] || fail "$args: exit status $rc, want 126"
		[ "$(wc -l <"$out")" = 1 ] || fail "$args: not one line"
		grep -q '^vkms-run: ' "$out" || fail "$args: not a 'vkms-run: ' line"
		echo "$args: $(cat "$out")"
	done >"$out.all"
	grep -q "unknown kernel '5.10-patched' (known: 6.12-patched 6.12-stock 6.1-patched 6.1-stock source)" \
		"$out.all" || { cat "$out.all"; fail "the kernel error does not list the kernels"; }
	grep -q "wants 1 to 16 outputs, got '0'" "$out.all" || fail "--virtio-gpu 0 not named"
	grep -q "\-\-timeout wants whole seconds, got 'soon'" "$out.all" || fail "--timeout soon not named"
	grep -q "wants 1 to 9 vCPUs, got '10'" "$out.all" || fail "--smp 10 not named"
	WBC_VM_SMP=0 "$run" -- true >"$out" 2>&1
	rc=$?
	[ $rc = 126 ] && [ "$(wc -l <"$out")" = 1 ] &&
		grep -q "^vkms-run: --smp (or WBC_VM_SMP) wants 1 to 9 vCPUs, got '0'$" "$out" ||
		fail "WBC_VM_SMP=0: exit status $rc, want 126 and one line naming it"
	cat "$out.all"; rm -f "$out.all"
	;;
boot-death)
	# A kernel that dies before init (here: no such init) is booted once more, then given
	# up on: status 125, both said.
	WBC_VM_INIT=/nonexistent/init "$run" -- true >"$out" 2>&1
	rc=$?
	[ $rc = 125 ] || fail "exit status $rc, want 125"
	grep -q "the guest kernel died before init started; booting once more" "$out" || fail "no retry message"
	grep -q "the guest kernel died before init twice" "$out" || fail "no give-up message"
	;;
no-qemu)
	WBC_QEMU=/nonexistent/qemu "$run" -- true >"$out" 2>&1
	rc=$?
	[ $rc = 126 ] || fail "exit status $rc, want 126"
	grep -q "/nonexistent/qemu not found" "$out" || fail "no clear message"
	;;
batch)
	# Several cases in one guest (vkms-batch): each its own TAP verdict, and the guest put
	# back as boot left it between two: the first case's process, mount and files are gone
	# when the second looks, vkms was loaded afresh, and a case's arguments arrive exactly.
	# A case's --param holds for it alone: the next has the boot's vkms again.
	# The project tree, though, stays: this batch runs from a copy under /tmp (as a clone
	# made by mktemp -d is), where the guest has a tmpfs of its own that each reset empties.
	# The cases name it by its absolute path: a lazily unmounted share would still be
	# reached through the working directory they inherit.
	proj=$(mktemp -d /tmp/wbc-harness.XXXXXX)
	trap 'rm -f "$out"; rm -rf "$proj"' EXIT
	mkdir "$proj/tests" && cp -r "$(dirname "$0")" "$proj/tests/vm"
	( cd "$proj" && tests/vm/vkms-batch -- \
		--case dirty 30 bash -c 'setsid sleep 997 & mkdir /tmp/m && mount -t tmpfs m /tmp/m &&
			touch /tmp/left "$XDG_RUNTIME_DIR/left" "$PWD/kept" && exec 3<>/dev/dri/card0 &&
			dd if=/dev/zero of=/dev/shm/left bs=1k count=1 2>/dev/null' \
		--case clean 30 bash -c '! pgrep -x sleep -a | grep 997 && ! grep -q " /tmp/m " /proc/mounts &&
			[ -z "$(ls /tmp /dev/shm "$XDG_RUNTIME_DIR" | grep left)" ] && [ -e /dev/dri/card0 ] &&
			[ "$(dmesg | grep -c "Initialized vkms")" = 2 ] && [ -e "$PWD/kept" ] &&
			printf "<%s>" "$@" && [ "$*" = "a b \"q\" \$x" ]' -- 'a b' '"q"' '$x' \
		--case fails 30 sh -c 'echo the reason it failed; exit 3' \
		--case slow 3 sleep 100 \
		--case skips 30 --param enable_overlay=1 sh -c '[ "$(cat /sys/module/vkms/parameters/enable_overlay)" = Y ] && exit 77' \
		--case after 30 sh -c '[ "$(cat /sys/module/vkms/parameters/enable_overlay)" = N ] && touch "$PWD/after"' ) >"$out" 2>"$out.err"
	rc=$?
	[ $rc = 1 ] || fail "exit status $rc, want 1"
	[ -e "$proj/kept" ] && [ -e "$proj/after" ] || fail "what the cases wrote in the project is gone"
	batch=$(dirname "$0")/vkms-batch
	for want in '^1\.\.6$' '^ok 1 - dirty$' '^ok 2 - clean$' '^# <a b><"q"><\$x>' \
			'^not ok 3 - fails: status 3$' '^not ok 4 - slow: status 124 \(killed after 3 s\)$' \
			'^ok 5 - skips # SKIP$' '^ok 6 - after$'; do
		grep -Eq "$want" "$out" || fail "no line matching $want"
	done
	# Anything else the guest printed is a TAP comment.
	grep -Evq '^(1\.\.6|(not )?ok [1-6] - .*|# .*)$' "$out" && fail "a line that is neither TAP nor a comment"
	# A failing case's output is on stderr too (meson shows a TAP test's stderr); a passing
	# case's is not.
	grep -A3 -x '=== not ok 3 - fails: status 3' "$out.err" | grep -qx 'the reason it failed' ||
		{ cat "$out.err"; fail "the failing case's output is not on stderr"; }
	grep -q '<a b>' "$out.err" && fail "a passing case's output is on stderr"
	# A guest that dies mid-batch bails out: the later cases are not reported.
	"$batch" -- --case crash 30 sh -c 'echo c > /proc/sysrq-trigger; sleep 30' \
		--case never 30 sh -c 'echo not reached' >"$out" 2>"$out.err"
	rc=$?
	[ $rc = 125 ] || fail "crash: exit status $rc, want 125"
	grep -q '^Bail out! the guest did not finish its tests: vkms-run status 125' "$out" ||
		fail "no 'Bail out!' line"
	grep -q ' - never' "$out" && fail "a case after the crash was reported"
	grep -q '^=== not finished (vkms-run status 125)' "$out.err" || fail "the unfinished case is not on stderr"
	# The TCG int3 oops (faked as in 'crash') in the middle of a batch: the case it hit and
	# those after it run in a new guest, numbered on; one plan, every verdict once.
	mark=$PWD/.vm-oops-$$
	rm -f "$mark"
	"$batch" -- --case before 30 true \
		--case oops 30 sh -c "[ -e '$mark' ] && exit 0; touch '$mark';
			echo 'Oops: int3: 0000 [#1] (faked)'; echo c > /proc/sysrq-trigger; sleep 30" \
		--case after 30 true >"$out" 2>"$out.err"
	rc=$?
	rm -f "$mark"
	[ $rc = 0 ] || { cat "$out" "$out.err"; fail "int3 oops: exit status $rc, want 0"; }
	for want in '^1\.\.3$' '^ok 1 - before$' '^ok 2 - oops$' '^ok 3 - after$' \
			'^# vkms-batch: the guest kernel oopsed on an int3 .*: cases 2\.\.3 once more'; do
		grep -Eq "$want" "$out" || { cat "$out"; fail "int3 oops: no line matching $want"; }
	done
	[ "$(grep -c '^1\.\.' "$out")" = 1 ] || fail "int3 oops: more than one plan"
	[ "$(grep -Ec '^(not )?ok ' "$out")" = 3 ] || fail "int3 oops: not three verdicts"
	rm -f "$out.err"
	;;
*)
	echo "unknown case $1"; exit 2 ;;
esac
echo "ok: $1"
