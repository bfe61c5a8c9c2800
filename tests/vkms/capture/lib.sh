# Sourced by the screencopy VKMS tests; runs inside the guest (tests/vm/vkms-run).
# Reuses the recording tests' helpers (the pattern client, frame-tool, decode,
# check_numbers) and through them the compositor tests' (fail, note, check_log, wbc).
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../record/lib.sh"
cap_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The recording the tests compare client images with: lossless, at most 2 frames/s so
# the encoder keeps up in the guest; every frame the capture hook delivers to a client
# goes to the recorder too, and its checksum is logged.
RECORD=(--record "$out/rec.mkv" --codec ffv1 --fps 2 --debug-frame-checksums "$out/sums")

# image_to FILE PIXFMT: an image file's pixels as rawvideo on stdout.
image_to() {
	ffmpeg -nostdin -v error -i "$1" -f rawvideo -pix_fmt "$2" -
}

# check_method LOG METHOD: the screencopy frames were taken by METHOD (writeback or
# readback). Readback after writeback only where the capture said writeback stalled
# (Linux 6.1 VKMS loses writeback jobs under load: capture.c falls back, by design).
check_method() {
	local other=writeback
	[ "$2" = writeback ] && other=readback
	# Stock VKMS: a job lost before the first screencopy frame (in this test, or in an
	# earlier one in the same guest: tests/vkms/matrix) leaves only readback.
	if [ "$2" = writeback ] && [ "${WBC_VM_KERNEL%-stock}" != "${WBC_VM_KERNEL:-}" ] &&
			! grep -aq "wbc: screencopy: frame via writeback" "$1" &&
			grep -aq 'capture: writeback stalled' "$1"; then
		grep -a "wbc: screencopy: frame via readback" "$1" || fail "no screencopy frame at all"
		note "stock VKMS ($WBC_VM_KERNEL): writeback stalled before the first screencopy frame; readback, accepted there"
		return 0
	fi
	grep -a "wbc: screencopy: frame via $2" "$1" || fail "the log does not say screencopy used $2"
	grep -aq "wbc: screencopy: frame via $other" "$1" || return 0
	[ "$2" = writeback ] && awk '/capture: writeback stalled/ { s = 1 }
		/wbc: screencopy: frame via readback/ { exit !s }' "$1" ||
		fail "screencopy used $other"
	note "writeback stalled (the VKMS 6.1 lost-job bug) and screencopy went on by readback"
}

# check_paired WHAT METHOD RAW...: each RAW (640x480 B,G,R,0 rows, a client's image of the
# screen) is paired with the frames of the RECORD recording that show the same pattern
# frame number; at least one must pair, and each paired one's FNV-1a 64 must be one of
# those frames' (the recorder's checksums are of the captured frames themselves).
check_paired() {
	local what=$1 method=$2 raw num sum same paired=0 i=0
	shift 2
	decode "$out/rec.mkv" bgr0 | "$tool" pattern 640 480 bgr0 >"$out/numbers" ||
		fail "decoding the recording failed"
	sed -n 's/.* fnv1a64=//p' "$out/sums" >"$out/fnv"
	local n
	n=$(wc -l <"$out/numbers")
	[ "$n" -gt 0 ] && [ "$n" = "$(wc -l <"$out/fnv")" ] ||
		fail "$n frames decode but $(wc -l <"$out/fnv") checksums"
	paste -d ' ' "$out/numbers" "$out/fnv" >"$out/recorded"
	for raw in "$@"; do
		i=$((i + 1))
		[ "$(command stat -c %s "$raw")" = $((640 * 480 * 4)) ] || fail "$raw is not 640x480"
		num=$("$tool" pattern 640 480 bgr0 <"$raw")
		sum=$("$tool" fnv 640 480 <"$raw")
		[ "$num" != bad ] || fail "$what $i shows no pattern"
		same=$(awk -v n="$num" '$1 == n { print $2 }' "$out/recorded" | sort -u | tr '\n' ' ')
		note "$what $i: client frame $num, fnv1a64 $sum; recorded frames of it: ${same:-none}"
		[ -n "$same" ] || continue
		case " $same" in
		*" $sum "*) paired=$((paired + 1)) ;;
		*) fail "$what $i differs from the recorded frame(s) of client frame $num" ;;
		esac
	done
	[ $paired -ge 1 ] || fail "no $what image's client frame was among the recorded frames"
	note "$paired of $i $what images equal the $method frame of the same client frame"
}
