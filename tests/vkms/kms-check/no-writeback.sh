#!/bin/bash
# no-writeback.sh TOOL: on a device without a writeback connector (VKMS loaded with
# enable_writeback=0) wbc-kms-check says so in one line and exits 3.
set -u
msg=$("$1" 2>&1 >/dev/null)
status=$?
echo "$msg"
[ $status = 3 ] || { echo "no-writeback: exit status $status, want 3"; exit 1; }
[ "$(wc -l <<<"$msg")" = 1 ] || { echo "no-writeback: want one line"; exit 1; }
grep -q '^wbc-kms-check: cannot run: /dev/dri/card0 (vkms) has no writeback connector$' <<<"$msg" ||
	{ echo "no-writeback: unexpected message"; exit 1; }
echo "no-writeback: ok"
