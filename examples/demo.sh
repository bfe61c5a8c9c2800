#!/bin/bash
# wbc's main job on the embedded default: install what is missing, build, and run.
# With no usable DRM device here (no /dev/dri, or no atomic + writeback), it boots the
# VKMS virtual machine (tests/vm/vkms-run) and runs there.
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/deps.sh
wbc_install_deps

build=${WBC_DEMO_BUILD_DIR:-build-demo}
[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
out=$PWD/$build/demo
mkdir -p "$out"

# Run on this machine's own device when it can do writeback, else in the VKMS guest.
runner=(tests/vm/vkms-run --param enable_cursor=1 --param enable_overlay=1 --)
if [ -e /dev/dri/card0 ] && "$build/backend/wbc-kms-info" --json 2>/dev/null |
		grep -q '"writeback":true'; then
	runner=()
	echo "demo: using /dev/dri/card0 on this machine"
else
	echo "demo: no usable DRM device with writeback here: booting the VKMS guest"
fi

demo_job() {
	local wbc=$build/compositor/wbc client=$build/examples/pattern/wbc-pattern-client
	if [ -x "$wbc" ] && [ -x "$client" ] && "$wbc" --help 2>&1 | grep -q -- --record; then
		"${runner[@]}" "$build/compositor/wbc" --mode 640x480 --record "$out/demo.mkv" \
			--duration 5 -- "$build/examples/pattern/wbc-pattern-client"
		echo "demo: recorded $out/demo.mkv"
		ffprobe -v error -show_entries format=duration:stream=codec_name,width,height,nb_read_frames \
			-count_frames -of default=nw=1 "$out/demo.mkv"
	elif [ -x "$wbc" ] && [ -x "$client" ]; then
		# Until wbc records: the compositor with the pattern client, one writeback frame.
		"${runner[@]}" "$wbc" --mode 640x480 --duration 4 --screenshot-after 3 \
			"$out/wbc-frame.ppm" -- "$client"
		ffmpeg -v error -y -i "$out/wbc-frame.ppm" "$out/wbc-frame.png"
		echo "demo: a writeback frame of wbc running wbc-pattern-client: $out/wbc-frame.png"
	else
		"${runner[@]}" "$build/examples/kms-writeback-shot" --mode 640x480 --overlay --cursor \
			"$out/writeback.ppm"
		ffmpeg -v error -y -i "$out/writeback.ppm" "$out/writeback.png"
		echo "demo: writeback frame at $out/writeback.png"
	fi
}
demo_job
