#!/bin/bash
# wrong-reference.sh TOOL: the failure path of wbc-kms-check, through its test hook
# WBC_KMS_CHECK_WRONG_REFERENCE (every reference frame gets an inverted 8x8 square at
# width/4, height/4). One composition check must fail naming that pixel, write the
# expected, actual and diff PNGs, and make the tool exit 1; JUnit must record it.
set -u
tool=$1
out=/tmp/kms-check-wrong
rm -rf "$out" && mkdir -p "$out"
fail=0
problem() { echo "wrong-reference: $*"; fail=1; }

WBC_KMS_CHECK_WRONG_REFERENCE=1 "$tool" --only compose-primary-XR24 --output-dir "$out" \
	--junit "$out/junit.xml" >"$out/tap.txt" 2>&1
status=$?
cat "$out/tap.txt"
[ $status = 1 ] || problem "exit status $status, want 1"
grep -q '^not ok 1 - compose-primary-XR24$' "$out/tap.txt" || problem "no 'not ok' for the check"
# 640x480: the square starts at (160,120), the first differing pixel in row order.
grep -q '^# first differing pixel (160,120): expected #[0-9a-f]\{6\}, got #[0-9a-f]\{6\}; 64 pixels differ' \
	"$out/tap.txt" || problem "the first differing pixel is not named as (160,120) with 64 pixels"
for kind in expected actual diff; do
	png=$out/compose-primary-XR24-$kind.png
	grep -q "^# $kind: $png\$" "$out/tap.txt" || problem "the TAP does not name $png"
	# The PNG signature, and IHDR's width and height (640x480) right after it.
	sig=$(head -c 24 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	case $sig in
	89504e470d0a1a0a0000000d4948445200000280000001e0) echo "$kind: PNG 640x480" ;;
	*) problem "$png is no 640x480 PNG (${sig:-missing})" ;;
	esac
done
grep -q '<failure message="first differing pixel (160,120)' "$out/junit.xml" ||
	problem "the JUnit file does not record the failure"
echo "wrong-reference: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
