#!/bin/bash
# linux-dmabuf: dmabuf-client hands wbc a dma-buf (a PRIME-exported dumb buffer of the VKMS
# card, left half ff8000, right half 0080ff) through zwp_linux_dmabuf_v1, and the last
# frame of a lossless recording shows it:
#  scanout   640x480, the whole output: wlroots scans it out directly (the adapter imports
#            the client's dma-buf as a KMS framebuffer); captured by writeback
#  texture   200x150, centred: pixman composites it from a CPU mapping of the dma-buf
#            (compositor/shell/renderer.c); captured by writeback
#  readback  640x480 scanned out, captured by readback (a mapping of the client's dma-buf)
#  xbgr      640x480 in XBGR8888, a format VKMS's primary plane lacks: the adapter's test
#            (output_test: framebuffer import, then the kernel's TEST_ONLY) refuses it for
#            direct scan-out, so pixman composites it; no commit fails
# (DMABUF_ARGS: the client's options before WIDTH HEIGHT; DMABUF_WAIT: seconds shown
# before wbc is stopped, default 1.)
. "$(dirname "$0")/lib.sh"
# run NAME W H WBC-ARGS...: wbc recording while the client shows a WxH dma-buf; APP stops
# wbc (SIGTERM) a second after the client said its buffer is up.
run() {
	local name=$1 w=$2 h=$3; shift 3
	cat >"$out/app.sh" <<APP
"$WBC_TEST_BIN/dmabuf-client" ${DMABUF_ARGS:-} $w $h >"$out/$name.client" & c=\$!
trap 'kill \$c; exit 0' TERM
until grep -q '^configured' "$out/$name.client"; do
	kill -0 \$c 2>/dev/null || exit 1
	sleep 0.5
done
sleep ${DMABUF_WAIT:-1}
kill -TERM \$PPID
wait \$c
APP
	wbc -v --mode 640x480 --fps 5 --codec ffv1 --record "$out/$name.mkv" "$@" \
		-- sh "$out/app.sh" >"$out/$name.log" 2>&1
	local rc=$?
	cat "$out/$name.client"
	grep -a 'wbc: \|scan-out' "$out/$name.log" | grep -av '\[DEBUG\] wbc' | grep -a 'capture\|scan-out\|dma-buf' | head -5
	check_log "$out/$name.log"
	[ $rc = 0 ] || fail "$name: wbc exited $rc"
	grep -q '^advertised X\(RGB\|BGR\)8888: \(linear\|implicit\)$' "$out/$name.client" ||
		fail "$name: the format is not advertised"
	grep -q "^created ${w}x$h$" "$out/$name.client" || fail "$name: the dma-buf was not imported"
	last_frame "$out/$name.mkv" "$out/$name.ppm" || fail "$name: decoding failed"
}
# boxes NAME X Y W H: the left half of the buffer at X,Y, the right half next to it.
boxes() {
	local l r half=$(($4 / 2))
	{ read -r l; read -r r; } < <(ppm box "$out/$1.ppm" ff8000 0080ff)
	note "$1: left colour at $l, right colour at $r (x y w h pixels)"
	[ "$l" = "$2 $3 $half $5 $((half * $5))" ] || fail "$1: left half not at $2,$3 ${half}x$5"
	[ "$r" = "$(($2 + half)) $3 $half $5 $((half * $5))" ] || fail "$1: right half misplaced"
}

run scanout 640 480
grep -aq 'wbc: capture: writeback' "$out/scanout.log" || fail "scanout: not captured by writeback"
grep -aq 'Direct scan-out enabled' "$out/scanout.log" || fail "scanout: not scanned out directly"
boxes scanout 0 0 640 480

run texture 200 150
grep -aq 'Direct scan-out enabled' "$out/texture.log" && fail "texture: scanned out, not composited"
boxes texture 220 165 200 150

run readback 640 480 --capture readback
grep -aq 'wbc: capture: readback' "$out/readback.log" || fail "readback: not captured by readback"
grep -aq 'Direct scan-out enabled' "$out/readback.log" || fail "readback: not scanned out directly"
boxes readback 0 0 640 480

DMABUF_ARGS=--xbgr run xbgr 640 480
grep -aq 'Direct scan-out enabled' "$out/xbgr.log" && fail "xbgr: scanned out, which VKMS cannot"
# Who refused it: the framebuffer import (the kernel checks AddFB2's format against every
# plane) or the kernel's TEST_ONLY of the plan; either makes output_test() say no.
refusal=$(grep -a 'importing a 640x480 dma-buf: \|Virtual-1: test: ' "$out/xbgr.log" | head -1)
note "xbgr: refused by: ${refusal#*wbc: }"
[ -n "$refusal" ] || fail "xbgr: no refusal from the adapter's test in the log"
stats=$(grep -a 'commits reached the KMS backend' "$out/xbgr.log" | sed 's/.*stats: //')
note "xbgr: $stats"
echo "$stats" | grep -q ' 0 failed' || fail "xbgr: a commit failed"
boxes xbgr 0 0 640 480

# llvmpipe under TCG: its first frames wait for LLVM to compile the shaders (seconds).
DMABUF_WAIT=10 run gles2 200 150 --renderer gles2
grep -aq 'wbc: renderer: GLES2 (.*); output buffers: GBM' "$out/gles2.log" ||
	fail "gles2: not composed by GLES2 into GBM buffers"
grep -aq 'Direct scan-out enabled' "$out/gles2.log" && fail "gles2: scanned out, not composited"
boxes gles2 220 165 200 150
echo PASS
