#!/bin/bash
# The kernel matrix (tests/vm/kernels): on each guest kernel but the default one (which
# runs the whole suite), one boot runs the writeback and capture checks in turn, each with
# its own verdict, and fails if any failed. On stock VKMS the loss may show: the wbc checks
# then accept wbc's fallback to readback and say so (check_writeback_held), and the
# strict in-order test reports it; it runs last, since a lost job spoils every later
# capture in that guest. On patched VKMS a lost frame fails.
#   matrix.sh VKMS-CAPS VKMS-WB-EXACT KMS-WRITEBACK-SHOT VKMS-WB-SEQUENCE WBC-KMS-CHECK
set -u
caps=$1 exact=$2 shot=$3 sequence=$4 kmscheck=$5
here=$(cd "$(dirname "$0")/.." && pwd)
failed=()
check() {
	local name=$1 start=$SECONDS; shift
	echo "## $name (${WBC_VM_KERNEL:-?})"
	if "$@" >"/tmp/matrix-$name.log" 2>&1; then
		grep -a -E '^# |stock VKMS|^ok|PASS|release|^KERNEL FINDING|^kms-check \(' "/tmp/matrix-$name.log" | head -n 12
		echo "ok: $name ($((SECONDS - start)) s)"
	else
		tail -n 40 "/tmp/matrix-$name.log"
		echo "FAIL: $name ($((SECONDS - start)) s)"
		failed+=("$name")
	fi
}
check kernel "$here/../vm/check-kernel"
check vkms-caps "$caps"
# wbc-kms-check early, before anything can lose a job on a stock module. Without its
# checks of a rotated or reflected top plane: on 6.12 they crash VKMS's composer (a
# kernel finding, doc/kms-check.md) and every later commit in the guest would block; the
# default kernel's kms-check test runs them. (The same rotations under the cursor run.)
check wbc-kms-check bash "$here/kms-check/run-check.sh" 25 "$kmscheck" \
	--skip 'compose-r[eo]*[0-9y]' --skip compose-rotate-90-reflect-x \
	--fence-timeout 5000     # TCG on a shared host: see kms-check/meson.build
check writeback-shot bash "$here/writeback-shot.sh" "$shot"
# Several captures in a row: a stock module can lose one (not a verdict on it there).
[ "${WBC_VM_KERNEL%-stock}" = "$WBC_VM_KERNEL" ] &&
	check vkms-wb-exact "$exact" primary overlay cursor both
check wbc-capture-grim bash "$here/capture/wbc-capture-grim.sh" writeback
check wbc-record-file bash "$here/record/wbc-record-file.sh"
check wbc-record-exact bash "$here/record/wbc-record-exact.sh"
check vkms-wb-sequence "$sequence"
echo "matrix ${WBC_VM_KERNEL:-?}: ${#failed[@]} failed${failed[*]:+: ${failed[*]}}"
[ ${#failed[@]} = 0 ]
