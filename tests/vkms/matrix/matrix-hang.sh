#!/bin/bash
# matrix-hang.sh RUN-MATRIX: run-matrix.sh against a stand-in for vkms-run that hangs as
# told: a stock kernel's vblank-off deadlock is reported and run once more (and a second
# one fails); any other hang, a patched kernel's, or a plain failure is not run again.
set -u
run_matrix=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# The stand-in: its Nth call prints the stacks of $tmp/hang.N (if any) and exits with $tmp/rc.N.
cat >"$tmp/vkms-run" <<'FAKE'
#!/bin/bash
dir=$(dirname "$0")
n=$(( $(cat "$dir/calls" 2>/dev/null || echo 0) + 1 ))
echo $n >"$dir/calls"
echo "$*" >"$dir/args.$n"
[ -e "$dir/hang.$n" ] && cat "$dir/hang.$n" >&2
exit "$(cat "$dir/rc.$n")"
FAKE
chmod +x "$tmp/vkms-run"

deadlock='vkms-run: the guest stopped living: no heartbeat for 60 s; its vCPUs:
CPU0: RIP native_queued_spin_lock_slowpath+0x84 (ffffffff81cf5a94)
  ? _raw_spin_lock_irqsave+0x3d
  ? drm_handle_vblank [drm]+0x73
  ? vkms_vblank_simulate [vkms]+0x65
CPU1: RIP hrtimer_active+0x0 (ffffffff811b4770)
  ? hrtimer_cancel+0x15
  ? drm_vblank_disable_and_save [drm]+0xba
  ? drm_crtc_vblank_off [drm]+0xd1'
other='vkms-run: the guest stopped living: no heartbeat for 60 s; its vCPUs:
CPU0: RIP native_queued_spin_lock_slowpath+0x84 (ffffffff81cf5a94)
  ? vkms_atomic_commit_tail [vkms]+0x1f
CPU1: RIP default_idle+0x0'

# case NAME KERNEL WANT-STATUS WANT-CALLS WANT-FINDING(0|1) [RC HANG]...
case_() {
	local name=$1 kernel=$2 want=$3 calls=$4 finding=$5 i=1 rc
	shift 5
	rm -f "$tmp"/calls "$tmp"/rc.* "$tmp"/hang.* "$tmp"/args.*
	while [ $# -ge 2 ]; do
		echo "$1" >"$tmp/rc.$i"
		[ -n "$2" ] && printf '%s\n' "$2" >"$tmp/hang.$i"
		i=$((i + 1)); shift 2
	done
	"$run_matrix" "$tmp/vkms-run" "$kernel" 580 caps exact shot sequence check >"$tmp/out" 2>"$tmp/err"
	rc=$?
	local got_finding=0
	grep -q "^KERNEL FINDING ($kernel): the guest froze in stock VKMS's deadlock at vblank off" "$tmp/out" && got_finding=1
	if [ $rc != "$want" ] || [ "$(cat "$tmp/calls")" != "$calls" ] || [ $got_finding != "$finding" ] ||
			! grep -q -- "--kernel $kernel .*--timeout 580 -- bash .*/matrix.sh caps exact shot sequence check" "$tmp/args.1"; then
		echo "FAIL $name: status $rc (want $want), $(cat "$tmp/calls") boots (want $calls), finding $got_finding (want $finding)"
		cat "$tmp/out" "$tmp/err" "$tmp/args.1"
		fail=1
	else
		echo "ok $name"
	fi
}
case_ stock-deadlock-once 6.12-stock 0 2 1 123 "$deadlock" 0 ""
case_ stock-deadlock-twice 6.12-stock 123 2 1 123 "$deadlock" 123 "$deadlock"
case_ stock-deadlock-then-fail 6.1-stock 1 2 1 123 "$deadlock" 1 ""
case_ stock-other-hang 6.12-stock 123 1 0 123 "$other"
# The stacks reach meson's log whatever the verdict.
grep -q "vkms_atomic_commit_tail" "$tmp/err" || { echo "FAIL stacks-shown: vkms-run's stderr not passed on"; fail=1; }
case_ patched-deadlock 6.1-patched 123 1 0 123 "$deadlock"
case_ stock-failure 6.12-stock 1 1 0 1 ""
case_ stock-pass 6.12-stock 0 1 0 0 ""
# A bad command line: one line, status 2.
"$run_matrix" "$tmp/vkms-run" 6.12-stock >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ]; then echo "FAIL usage: status $rc"; cat "$tmp/err"; fail=1; else echo "ok usage"; fi
exit $fail
