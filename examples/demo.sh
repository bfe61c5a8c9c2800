#!/bin/bash
# wbc's main job: install what is missing, build, then record 5 s of the pattern client by
# writeback from the screen wbc shows, and write one decoded frame as PNG. With no usable
# DRM device here (no /dev/dri, or no atomic + writeback), it runs in the VKMS guest
# (tests/vm/vkms-run, Debian's kernel with the project's patched VKMS).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
. tests/deps.sh
wbc_install_deps "${wbc_build_packages[@]}" "${wbc_guest_packages[@]}"

build=${WBC_DEMO_BUILD_DIR:-build-demo}
if [ ! -f "$build/build.ninja" ]; then
	echo "demo: building wbc (about 1 min, once)"
	meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
out=$PWD/$build/demo
mkdir -p "$out"

# Run on this machine's own device when it can do writeback, else in the VKMS guest
# (wbc-kms-info fails, silenced, where there is no /dev/dri/card0).
runner=(tests/vm/vkms-run --)
# (Into a variable: grep -q in a pipe under pipefail could see the writer's SIGPIPE.)
info=$("$build/backend/wbc-kms-info" --json 2>/dev/null || true)
if [[ $info == *'"writeback":true'* ]]; then
	runner=()
	echo "demo: using /dev/dri/card0 on this machine"
else
	echo "demo: no DRM device with writeback here: running in the VKMS guest"
	# The guest's kernel and modules, ready once (each cold step says what it does).
	tests/vm/guest-kernel "$(tests/vm/guest-kernel --list | head -n1)" >/dev/null
fi

"${runner[@]}" "$build/compositor/wbc" --mode 640x480 --record "$out/demo.mkv" \
	--duration 5 --stats -- "$build/examples/pattern/wbc-pattern-client" >"$out/wbc.log" 2>&1 ||
	{ cat "$out/wbc.log"; echo "demo: wbc failed (log above)" >&2; exit 1; }
grep -a '^wbc: capture: \|^wbc: recording \|^wbc: rec final ' "$out/wbc.log"
lost=$(grep -ac 'capture: writeback frame lost' "$out/wbc.log" || true)
echo "demo: $lost writeback frames lost"
ffmpeg -nostdin -v error -y -i "$out/demo.mkv" -vf "select=eq(n\,25)" -frames:v 1 "$out/demo.png"
frames=$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames \
	-of csv=p=0 "$out/demo.mkv")
echo "demo: recorded $out/demo.mkv ($frames frames); frame 25 decoded: $out/demo.png"
echo "demo: done in $((SECONDS - start)) s"
