# Sourced by the screencopy VKMS tests; runs inside the guest (tests/vm/vkms-run).
# Reuses the recording tests' helpers (the pattern client, frame-tool, decode,
# check_numbers) and through them the compositor tests' (fail, note, check_sanitizers, wbc).
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../record/lib.sh"

# image_to FILE PIXFMT: an image file's pixels as rawvideo on stdout.
image_to() {
	ffmpeg -nostdin -v error -i "$1" -f rawvideo -pix_fmt "$2" -
}

# check_method LOG METHOD: the screencopy frames were taken by METHOD (writeback or
# readback) and never by the other.
check_method() {
	local other=writeback
	[ "$2" = writeback ] && other=readback
	grep -a "wbc: screencopy: frame via $2" "$1" || fail "the log does not say screencopy used $2"
	! grep -a "wbc: screencopy: frame via $other" "$1" || fail "screencopy used $other"
}
