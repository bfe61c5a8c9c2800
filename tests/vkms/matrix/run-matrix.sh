#!/bin/bash
# run-matrix.sh VKMS-RUN KERNEL SECONDS MATRIX-ARGS...: one kernel's matrix boot
# (matrix.sh, with cursor and overlay planes) through VKMS-RUN, in at most SECONDS.
# Stock VKMS can freeze the guest in its deadlock at vblank off (doc/vkms.md: the vblank
# timer cancelled with the event lock held while its handler spins for that lock; patch
# 0003 fixes it): a stock kernel's hang whose vCPU stacks show exactly that is reported as
# a kernel finding, and the matrix runs once more in a new guest, in the time left. Any
# other hang, a second one, or a patched kernel's hang fails with vkms-run's status (123).
set -u
[ $# -ge 4 ] || { echo "usage: run-matrix.sh VKMS-RUN KERNEL SECONDS MATRIX-ARGS..." >&2; exit 2; }
vkms_run=$1 kernel=$2 secs=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT

boot() {
	"$vkms_run" --kernel "$kernel" --param enable_cursor=1 --param enable_overlay=1 \
		--timeout "$1" -- bash "$here/matrix.sh" "${@:2}" 2>"$err"
	local rc=$?
	cat "$err" >&2
	return $rc
}

# Both halves of the deadlock in the stacks vkms-run printed: one vCPU turning vblank off
# and cancelling the timer, another in the timer's handler waiting for the lock.
vblank_off_deadlock() {
	local sym
	for sym in drm_crtc_vblank_off hrtimer_cancel vkms_vblank_simulate drm_handle_vblank \
			native_queued_spin_lock_slowpath; do
		grep -aq "? $sym\|RIP $sym" "$err" || return 1
	done
}

start=$SECONDS
boot "$secs" "$@"
rc=$?
if [ $rc = 123 ] && [ "${kernel%-stock}" != "$kernel" ] && vblank_off_deadlock; then
	left=$((secs - (SECONDS - start)))
	echo "KERNEL FINDING ($kernel): the guest froze in stock VKMS's deadlock at vblank off" \
		"(doc/vkms.md; patch 0003 fixes it), not wbc's doing: the matrix runs once more (${left}s left)"
	if [ "$left" -ge 120 ]; then
		boot "$left" "$@"
		rc=$?
	else
		echo "run-matrix: no time left for a second boot" >&2
	fi
fi
exit $rc
