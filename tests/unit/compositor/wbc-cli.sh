#!/bin/bash
# Bad command lines, on the host (no DRM device needed: wbc checks its options, and that
# APP can be run, before it opens anything; and a --device that is no DRM device is
# refused before any KMS call). Each must give exit status 2 (options) or 1 (APP,
# device), exactly one line on stderr that starts with "wbc: " and names the bad value,
# nothing on stdout, and must not run APP (APP would create a marker file).
# The recorder module (wbc/recorder-module.h), which wbc loads only for --record: missing,
# not a module, or of another version, each such one line before any device is opened.
#   wbc-cli.sh WBC NEXT_MODULE (a module of the next table version)
set -u
WBC=${1:?usage: wbc-cli.sh WBC NEXT_MODULE}
next_module=${2:?usage: wbc-cli.sh WBC NEXT_MODULE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
app=$tmp/app.sh
printf '#!/bin/sh\ntouch %s/app-ran\n' "$tmp" >"$app"
chmod +x "$app"
fails=0 n=0
run=("$WBC")                  # how bad() runs wbc

# bad STATUS TEXT -- ARGS...: wbc ARGS... must fail as described above, TEXT in the line.
bad() {
	local want=$1 text=$2
	shift 3
	n=$((n + 1))
	rm -f "$tmp/app-ran"
	"${run[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? why=
	[ $rc = "$want" ] || why="status $rc, want $want"
	[ -z "$why" ] && [ "$(wc -l <"$tmp/err")" != 1 ] && why="$(wc -l <"$tmp/err") lines on stderr"
	[ -z "$why" ] && ! grep -q '^wbc: ' "$tmp/err" && why="no 'wbc: ' prefix"
	[ -z "$why" ] && ! grep -qF -- "$text" "$tmp/err" && why="message lacks '$text'"
	[ -z "$why" ] && [ -s "$tmp/out" ] && why="output on stdout"
	[ -z "$why" ] && [ -e "$tmp/app-ran" ] && why="APP was run"
	if [ -n "$why" ]; then
		echo "FAIL: wbc $*: $why"; sed 's/^/    /' "$tmp/err"
		fails=$((fails + 1))
	else
		echo "ok: wbc $* -> $rc: $(cat "$tmp/err")"
	fi
}

R=(--record "$tmp/x.mkv")
bad 2 "'-1'" -- "${R[@]}" --fps -1 -- "$app"
bad 2 "'0'" -- "${R[@]}" --fps 0 -- "$app"
bad 2 "'nan'" -- "${R[@]}" --fps nan -- "$app"
bad 2 "'inf'" -- "${R[@]}" --fps inf -- "$app"
bad 2 "'1e-300'" -- "${R[@]}" --fps 1e-300 -- "$app"
bad 2 "'1001'" -- "${R[@]}" --fps 1001 -- "$app"
bad 2 "'ten'" -- "${R[@]}" --fps ten -- "$app"
bad 2 "'10fps'" -- "${R[@]}" --fps 10fps -- "$app"
bad 2 "--fps only makes sense with --record" -- --fps 10 -- "$app"
bad 2 "--codec only makes sense with --record" -- --codec libx264 -- "$app"
bad 2 "--container only makes sense with --record" -- --container matroska -- "$app"
bad 2 "--stats only makes sense with --record or --allow-control" -- --stats -- "$app"
bad 2 "--headless and --output both choose the output" -- --headless --output Virtual-1 -- "$app"
bad 2 "'sideways'" -- --outputs sideways -- "$app"
bad 2 "'extend,mirror'" -- --outputs extend,mirror -- "$app"
bad 2 "--outputs wants extend, mirror or last" -- --outputs
bad 2 "--record-output needs an output NAME" -- --record-output "" -- "$app"
bad 2 "--record-output Virtual-2: wbc drives only --output Virtual-1" -- --output Virtual-1 --record-output Virtual-2 -- "$app"
bad 2 "--control-socket needs a PATH" -- --control-socket
bad 2 "--control-socket needs a PATH" -- --control-socket "" -- "$app"
bad 2 "'crf'" -- "${R[@]}" --codec-opt crf -- "$app"
bad 2 "'=18'" -- "${R[@]}" --codec-opt =18 -- "$app"
bad 2 "'x'" -- "${R[@]}" --container-opt x -- "$app"
bad 2 "--record needs a PATH or URL" -- --record "" -- "$app"
bad 2 "--record needs a PATH or URL" -- --record
bad 2 "'bogus'" -- "${R[@]}" --capture bogus -- "$app"
bad 2 "--renderer wants auto, gles2 or pixman, got 'vulkan'" -- --renderer vulkan -- "$app"
bad 2 "--renderer wants auto, gles2 or pixman, got ''" -- --renderer
bad 2 "--writeback-pacing wants wait, skip or deadline, got 'never'" -- --writeback-pacing never -- "$app"
bad 2 "--writeback-pacing wants wait, skip or deadline, got ''" -- --writeback-pacing
bad 2 "'640'" -- --mode 640 -- "$app"
bad 2 "--rotate wants 0, 90, 180 or 270, got '45'" -- --rotate 45 -- "$app"
bad 2 "--rotate wants 0, 90, 180 or 270, got '-90'" -- --rotate -90 -- "$app"
bad 2 "--rotate wants 0, 90, 180 or 270, got ''" -- --rotate
bad 2 "--scale wants a number from 0.25 to 8, got '0'" -- --scale 0 -- "$app"
bad 2 "--scale wants a number from 0.25 to 8, got 'nan'" -- --scale nan -- "$app"
bad 2 "--scale wants a number from 0.25 to 8, got '9'" -- --scale 9 -- "$app"
bad 2 "'640x'" -- --mode 640x -- "$app"
bad 2 "'x480'" -- --mode x480 -- "$app"
bad 2 "'640x480@'" -- --mode 640x480@ -- "$app"
bad 2 "'640x480@0'" -- --mode 640x480@0 -- "$app"
bad 2 "'640x480@60Hz'" -- --mode 640x480@60Hz -- "$app"
bad 2 "'-640x480'" -- --mode -640x480 -- "$app"
bad 2 "'99999x480'" -- --mode 99999x480 -- "$app"
bad 2 "'640X480'" -- --mode 640X480 -- "$app"
bad 2 "'-1'" -- --duration -1 -- "$app"
bad 2 "'3000000'" -- --duration 3000000 -- "$app"
bad 2 "--blank-after wants SECONDS (more than 0" -- --blank-after 0 -- "$app"
bad 2 "'-5'" -- --blank-after -5 -- "$app"
bad 2 "'later'" -- --blank-after later -- "$app"
bad 2 "'3000000'" -- --blank-after 3000000 -- "$app"
bad 2 "--hide-cursor wants SECONDS (more than 0" -- --hide-cursor 0 -- "$app"
bad 2 "'soon'" -- --hide-cursor soon -- "$app"
bad 2 "'soon'" -- --screenshot-after soon "$tmp/s.ppm" -- "$app"
bad 2 "needs SECONDS and a FILE" -- --screenshot-after 1
bad 2 "--device needs a PATH" -- --device
bad 2 "unknown option '--frobnicate'" -- --frobnicate -- "$app"
bad 2 "no APP given" --
bad 2 "no APP given" -- --mode 640x480 --
bad 1 "cannot run APP '/nonexistent/app'" -- -- /nonexistent/app
bad 1 "cannot run APP '$tmp'" -- -- "$tmp"
bad 1 "cannot run APP 'no-such-app-wbc'" -- -- no-such-app-wbc
# A --device that is not a DRM device: refused as wbc opens it, before any KMS call.
touch "$tmp/regular-file"
bad 1 "cannot use DRM device $tmp/none: No such file or directory" -- --device "$tmp/none" -- "$app"
bad 1 "cannot use DRM device $tmp/regular-file: not a character device" -- \
	--device "$tmp/regular-file" -- "$app"
bad 1 "cannot use DRM device $tmp: not a character device" -- --device "$tmp" -- "$app"
bad 1 "cannot use DRM device /dev/null: not a DRM device (character device 1:3;" -- \
	--device /dev/null -- "$app"

# What the recorder can check of --record's options before a device is opened: the
# codec's and the container's names, and the options of a codec named (one line saying
# "cannot record to", as when the recording starts; no file is made).
bad 1 "cannot record to $tmp/x.mkv: unknown video encoder 'nosuchcodec'; available:" -- \
	"${R[@]}" --codec nosuchcodec -- "$app"
bad 1 "cannot record to $tmp/x.mkv: unknown container 'nosuchmux'; available:" -- \
	"${R[@]}" --container nosuchmux -- "$app"
bad 1 "cannot record to $tmp/x.mkv: container mp4 cannot hold ffv1 video" -- \
	"${R[@]}" --container mp4 --codec ffv1 -- "$app"
bad 1 "cannot record to $tmp/x.mkv: unknown option 'nosuchoption' for encoder libx264" -- \
	"${R[@]}" --codec libx264 --codec-opt nosuchoption=1 -- "$app"
if [ -e "$tmp/x.mkv" ]; then
	echo "FAIL: a refused --record left $tmp/x.mkv"
	fails=$((fails + 1))
fi
n=$((n + 1))

# The recorder module: found through wbc's RUNPATH (meson's LD_LIBRARY_PATH aside; the
# device is what fails), and not linked, so that a wbc which never records never maps
# FFmpeg.
run=(env -u LD_LIBRARY_PATH "$WBC")
bad 1 "cannot use DRM device $tmp/none: No such file or directory" -- "${R[@]}" \
	--device "$tmp/none" -- "$app"
if ldd "$WBC" | grep -q 'libav'; then
	echo "FAIL: wbc links FFmpeg: $(ldd "$WBC" | grep -o 'libav[a-z]*' | tr '\n' ' ')"
	fails=$((fails + 1))
fi
n=$((n + 1))
# Missing: a copy of wbc whose RUNPATH ($ORIGIN/../recorder) names no module.
mkdir "$tmp/bin" "$tmp/lib"
cp "$WBC" "$tmp/bin/wbc"
run=(env -u LD_LIBRARY_PATH "$tmp/bin/wbc")
bad 1 "cannot load the recorder: no wbc-recorder.so in $tmp/bin/../recorder:" -- \
	"${R[@]}" -- "$app"
# Not a module, then a library without the table, then the next version's table.
: >"$tmp/lib/wbc-recorder.so"
run=(env LD_LIBRARY_PATH="$tmp/lib" "$WBC")
bad 1 "cannot load the recorder: $tmp/lib/wbc-recorder.so: file too short" -- "${R[@]}" -- "$app"
cp "$(ldd "$WBC" | awk '$1 ~ /^libm\.so/ { print $3 }')" "$tmp/lib/wbc-recorder.so"
bad 1 "undefined symbol: wbc_recorder_module" -- "${R[@]}" -- "$app"
cp "$next_module" "$tmp/lib/wbc-recorder.so"
bad 1 "$tmp/lib/wbc-recorder.so is version 2 (" -- "${R[@]}" -- "$app"
run=("$WBC")

echo "$((n - fails)) of $n bad command lines refused as expected"
[ $fails = 0 ]
