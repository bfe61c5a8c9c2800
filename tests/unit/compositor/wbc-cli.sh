#!/bin/bash
# Bad command lines, on the host (no DRM device needed: wbc checks its options, and that
# APP can be run, before it opens anything; and a --device that is no DRM device is
# refused before any KMS call). Each must give exit status 2 (options) or 1 (APP,
# device), exactly one line on stderr that starts with "wbc: " and names the bad value,
# nothing on stdout, and must not run APP (APP would create a marker file).
#   wbc-cli.sh WBC
set -u
WBC=${1:?usage: wbc-cli.sh WBC}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
app=$tmp/app.sh
printf '#!/bin/sh\ntouch %s/app-ran\n' "$tmp" >"$app"
chmod +x "$app"
fails=0 n=0

# bad STATUS TEXT -- ARGS...: wbc ARGS... must fail as described above, TEXT in the line.
bad() {
	local want=$1 text=$2
	shift 3
	n=$((n + 1))
	rm -f "$tmp/app-ran"
	"$WBC" "$@" >"$tmp/out" 2>"$tmp/err"
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

echo "$((n - fails)) of $n bad command lines refused as expected"
[ $fails = 0 ]
