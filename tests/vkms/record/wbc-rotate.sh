#!/bin/bash
# --rotate and --scale (issue 19: portrait panels). The pattern client (an oracle that does
# not trust wbc: frame-tool redraws the frame its pixels name and compares every pixel)
# runs on a 640x480 mode:
#  1. --rotate 90, recording to .mov (qtrle, lossless; mov cannot hold ffv1): the client is configured 480x640;
#     a writeback screenshot is the panel's 640x480 picture, which turned back (ppm.py
#     unturn: how wlroots maps the logical picture into the buffer) is exactly a client
#     frame; grim (turning the screencopy frame by wl_output's transform itself: a second
#     oracle) gets an exact 480x640 client frame; ffprobe shows the file's rotation (-90:
#     turn 90 degrees clockwise) and ffmpeg, which applies it, decodes exact 480x640 client
#     frames.
#  2. --rotate 180 --scale 2, the client drawing at buffer scale 2: it is configured 320x240
#     (half the mode), and the screenshot turned back is exactly a 640x480 client frame
#     (its buffer shown pixel for pixel); grim (at the output's scale 2) too. Recorded to
#     .mkv, which keeps no rotation: wbc says so in one line (and ffprobe finds none).
. "$(dirname "$0")/lib.sh"

# run NAME WBC-ARGS... -- CLIENT-ARGS...: wbc on 640x480 with the pattern client (its
# configures in $out/NAME.client), a screenshot at 4 s ($out/NAME.ppm) and grim at 5 s
# ($out/NAME.grim.ppm), stopped with the client still shown: by SIGTERM from APP once the
# screenshot is whole (its 640x480 pixels written; status 0, as --duration's), else by
# --duration at 20 s; the log in $out/NAME.log.
run() {
	local name=$1 wargs=() cargs
	shift
	while [ "$1" != -- ]; do wargs+=("$1"); shift; done
	shift
	cargs=$*
	cat >"$out/$name.sh" <<APP
"$client" --print-configure $cargs >"$out/$name.client" & c=\$!
sleep $(secs 5)
grim -t ppm "$out/$name.grim.ppm" || echo "grim: status \$?"
until [ "\$(stat -c %s "$out/$name.ppm" 2>/dev/null || echo 0)" -ge $((640 * 480 * 3)) ]; do
	sleep 0.2
done
kill -TERM \$PPID   # wbc: the recording never shows the client gone
wait \$c
exit 0
APP
	rm -f "$out/$name".*ppm
	wbc --mode 640x480 --allow-capture --screenshot-after "$(secs 4)" "$out/$name.ppm" \
		--duration "$(secs 20)" "${wargs[@]}" -- bash "$out/$name.sh" >"$out/$name.log" 2>&1
	local rc=$?
	grep -a 'wbc: .*640x480@\|wbc: recording\|wbc: rec final\|grim' "$out/$name.log"
	check_log "$out/$name.log"
	[ $rc = 0 ] || { tail -30 "$out/$name.log"; fail "$name: wbc exited $rc"; }
}

# first_configure NAME: the first "configure W H" the client got with a size.
first_configure() {
	grep -m1 -v '^configure 0 0' "$out/$1.client" | grep '^configure' || echo none
}

# exact_ppm PPM WHAT: the PPM is exactly some frame of the client (its number printed).
exact_ppm() {
	local n
	n=$("$tool" ppm-exact "$1")
	note "$2 ($(ppm size "$1")): frame-tool says '$n'"
	[[ "$n" =~ ^[0-9]+$ ]] || fail "$2 is not exactly a frame of the client"
}

# --- 1. --rotate 90, recorded
run rot90 --rotate 90 --codec qtrle --record "$out/rot90.mov" --
conf=$(first_configure rot90)
note "rot90: client got '$conf'"
[ "$conf" = "configure 480 640" ] || fail "--rotate 90: client configured '$conf', want 480x640"
grep -aq 'wbc: .*: 640x480@[0-9.]* Hz, transform 90, scale 1: 480x640 logical' \
	"$out/rot90.log" || fail "--rotate 90: no line saying the output is turned"
[ "$(ppm size "$out/rot90.ppm")" = 640x480 ] || fail "the screenshot is not the panel's 640x480"
ppm unturn "$out/rot90.ppm" 90 "$out/rot90-up.ppm"
exact_ppm "$out/rot90-up.ppm" "screenshot turned back"
[ -s "$out/rot90.grim.ppm" ] || fail "grim took no picture"
exact_ppm "$out/rot90.grim.ppm" "grim's picture"
check_final "$out/rot90.log"
rot=$(ffprobe -v error -select_streams v:0 -show_streams "$out/rot90.mov" |
	sed -n 's/^rotation=//p')
note "ffprobe: rotation=$rot"
ffprobe -v error -select_streams v:0 -show_streams "$out/rot90.mov" | grep -A3 SIDE_DATA
[ "$rot" = -90 ] || fail "the file's rotation is '$rot', want -90 (turn 90 clockwise)"
# ffmpeg turns the frames by the file's display matrix (autorotate).
decode "$out/rot90.mov" bgr0 | "$tool" exact 480 640 >"$out/rot90.exact" ||
	fail "decoding failed"
check_exact "$out/rot90.exact" 1

# --- 2. --rotate 180 --scale 2
run s2 --rotate 180 --scale 2 --record "$out/s2.mkv" --codec ffv1 --fps 2 -- --buffer-scale 2
conf=$(first_configure s2)
note "s2: client got '$conf'"
[ "$conf" = "configure 320 240" ] || fail "--scale 2: client configured '$conf', want 320x240"
grep -aq 'wbc: .*: 640x480@[0-9.]* Hz, transform 180, scale 2: 320x240 logical' \
	"$out/s2.log" || fail "--rotate 180 --scale 2: no line saying so"
ppm unturn "$out/s2.ppm" 180 "$out/s2-up.ppm"
exact_ppm "$out/s2-up.ppm" "screenshot turned back"
[ -s "$out/s2.grim.ppm" ] || fail "grim took no picture"
exact_ppm "$out/s2.grim.ppm" "grim's picture"
# Matroska keeps no display matrix (FFmpeg 5.1): wbc says so, and the file has none.
grep -aq "wbc: recording: frames are the panel's picture, and matroska keeps no rotation" \
	"$out/s2.log" || fail "no line saying matroska keeps no rotation"
[ -z "$(ffprobe -v error -show_streams "$out/s2.mkv" | sed -n 's/^rotation=//p')" ] ||
	fail "the .mkv has a rotation after all: the line is wrong"
echo PASS
