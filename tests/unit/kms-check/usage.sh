#!/bin/bash
# usage.sh WBC-KMS-CHECK: bad input gets one clear line on stderr and its exit status,
# without a device: bad options (2), a device that does not exist (3), and on a host
# without /dev/dri (the build hosts) no device at all (3).
set -u
tool=$1
fail=0
expect() { # expect STATUS REGEX ARGS...: exit STATUS, one stderr line matching REGEX
	local want=$1 regex=$2 err status
	shift 2
	err=$("$tool" "$@" 2>&1 >/dev/null)
	status=$?
	if [ $status != "$want" ] || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] ||
			! grep -q -E -- "$regex" <<<"$err"; then
		echo "FAIL: wbc-kms-check $*: exit $status, stderr: $err"
		fail=1
	else
		echo "ok: wbc-kms-check $*: $err"
	fi
}
expect 2 "unknown option '--bogus' \(see --help\)" --bogus
expect 2 "--mode wants WIDTHxHEIGHT, got '640'" --mode 640
expect 2 "--fence-timeout wants milliseconds" --fence-timeout 0
expect 2 "--junit needs a value" --junit
expect 2 "unexpected argument 'now'" now
expect 3 "cannot run: cannot open /nonexistent/card0: No such file or directory" --device /nonexistent/card0
[ -e /dev/dri ] || expect 3 "cannot run: no DRM device: /dev/dri/card0 to card15 do not exist"
"$tool" --help | grep -q -- '--only GLOB' || { echo "FAIL: --help"; fail=1; }
exit $fail
