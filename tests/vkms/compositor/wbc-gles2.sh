#!/bin/bash
# GPU rendering (--renderer): wlroots' GLES2 renderer on VKMS through Mesa (kms_swrast:
# llvmpipe, software GL; the only GL the guest has), output buffers from wlroots' GBM
# allocator scanned out by wbc's KMS backend.
#  1. egl     weston-simple-egl (an EGL client) fullscreen under --renderer gles2: wbc
#             says it renders with GLES2 into GBM buffers; linux-dmabuf advertises what
#             the GLES2 renderer imports (NV12, which the pixman renderer does not list);
#             the client draws frames (its fps lines); grim's screenshot (screencopy from
#             writeback) shows the triangle's red, green and blue corners where they
#             belong, which no blank or background frame has.
#  2. auto    --renderer auto on this device: VKMS has no render node, so its GL would be
#             software; pixman without loading Mesa, said with -v in one line.
#  3. broken  no EGL (glvnd given no vendor library): --renderer gles2 exits 1 in one
#             error line naming the cause, APP not started. (auto falling back in one
#             line where it does try: wbc-virtio-gpu, whose device has a render node.)
. "$(dirname "$0")/lib.sh"

# --- 1. weston-simple-egl under --renderer gles2
cat >"$out/app.sh" <<APP
stdbuf -oL weston-simple-egl -f >"$out/egl.out" 2>&1 & c=\$!
wayland-info -i zwp_linux_dmabuf_v1 >"$out/dmabuf.info" 2>&1
# At least one of its 5 s fps lines, then the screenshot.
t=0
until grep -q 'frames in' "$out/egl.out" || [ \$t -ge $(secs 90) ]; do
	kill -0 \$c 2>/dev/null || exit 1
	sleep 1; t=\$((t + 1))
done
# Three screenshots 3 s apart: the triangle turns about its vertical axis, and one seen
# edge-on has no corners to find.
for i in 1 2 3; do
	grim -t ppm "$out/egl\$i.ppm" || { echo "grim status \$?" >"$out/grim.rc"; exit 1; }
	sleep 3
done
echo "grim status 0" >"$out/grim.rc"
kill \$c; wait \$c
exit 0
APP
wbc --renderer gles2 --mode 640x480 --allow-capture -- sh "$out/app.sh" >"$out/egl.log" 2>&1
rc=$?
cat "$out/egl.log"
check_log "$out/egl.log"
[ $rc = 0 ] || fail "egl: wbc exited $rc"
grep -a '^wbc: renderer: GLES2 (' "$out/egl.log" || fail "egl: wbc does not say it renders with GLES2"
grep -aq '^wbc: renderer: GLES2 (.*); output buffers: GBM$' "$out/egl.log" ||
	fail "egl: output buffers not from the GBM allocator"
note "weston-simple-egl: $(grep 'frames in' "$out/egl.out" | head -3 | tr '\n' ' ')"
grep -q 'frames in .*: [0-9.]* fps' "$out/egl.out" || fail "egl: the client printed no fps line"
frames=$(sed -n 's/^\([0-9]*\) frames in .*/\1/p' "$out/egl.out" | head -1)
[ "${frames:-0}" -gt 0 ] || fail "egl: the client drew no frames"
note "linux-dmabuf: $(grep -c "'; 0x" "$out/dmabuf.info") format-modifier lines, $(grep -c "'NV12'; 0x" "$out/dmabuf.info") of NV12"
grep -q "'NV12'; 0x" "$out/dmabuf.info" || { grep -A8 zwp_linux_dmabuf "$out/dmabuf.info"; fail "egl: NV12 not advertised"; }
grep -qx 'grim status 0' "$out/grim.rc" || fail "egl: grim failed"
# The triangle turns about its vertical axis: its blue corner stays at the top, red and
# green at the bottom on one row, closer together or apart. A screenshot shows it when
# each corner is a patch of its colour (30 pixels or more), red and green on one row
# (within 20 pixels) and blue at least 100 pixels above them: no blank or background
# frame, nor one upside down. One of the three must.
seen=0
for i in 1 2 3; do
	tri=$(ppm triangle "$out/egl$i.ppm")
	note "egl: screenshot $i $(ppm size "$out/egl$i.ppm"), corners (colour count x y): $tri"
	python3 - "$tri" <<'PY' && seen=$i
import sys
f = sys.argv[1].split()
(rn, rx, ry), (gn, gx, gy), (bn, bx, by) = (tuple(map(int, f[i + 1:i + 4])) for i in (0, 4, 8))
sys.exit(not (min(rn, gn, bn) >= 30 and abs(ry - gy) <= 20 and by <= min(ry, gy) - 100))
PY
	[ $seen = 0 ] || break
done
[ $seen != 0 ] || fail "egl: no screenshot shows the triangle"
note "egl: screenshot $seen shows the triangle"

# --- 2. auto on a device whose only GL is software
wbc -v --renderer auto --mode 640x480 --duration "$(secs 3)" -- sleep 30 >"$out/auto.log" 2>&1
rc=$?
check_log "$out/auto.log"
[ $rc = 0 ] || fail "auto: wbc exited $rc"
lines=$(grep -a 'wbc: renderer: ' "$out/auto.log")
note "auto: $lines"
[ "$(grep -ac 'wbc: renderer: GLES2 not tried (the DRM device has no render node' \
	"$out/auto.log")" = 1 ] || fail "auto: not one line saying why GLES2 is not tried"
grep -aq 'wbc: renderer: pixman; output buffers: DRM dumb buffers' "$out/auto.log" ||
	fail "auto: not pixman on dumb buffers"

# --- 3. no EGL at all: glvnd loads only the vendor libraries this names
export __EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/wbc-no-egl.json
refused "gles2 without EGL" 1 "--renderer gles2: cannot create the GLES2 renderer: " \
	-- --renderer gles2 --mode 640x480
unset __EGL_VENDOR_LIBRARY_FILENAMES
echo PASS
