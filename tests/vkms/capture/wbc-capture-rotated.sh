#!/bin/bash
# Screencopy on a turned output (wbc --rotate 90, 640x480 mode, 480x640 logical), over
# `wbc-pattern-client --static`:
#  1. screencopy-check region-90: a region given in logical coordinates is the right box
#     of the panel's buffer (turned and sized through the transform).
#  2. grim (which turns the frames by wl_output's transform itself) gets an exact 480x640
#     client frame, and `grim -g "10,20 200x100"` gets exactly that picture's crop.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
"$client" --static & s=\$!
sleep $(secs 3)
export ASAN_OPTIONS=detect_leaks=0   # the checker's own proxies at its exit
"$WBC_SCREENCOPY_CHECK" region-90 >"$out/check.log" 2>&1 || exit 11
unset ASAN_OPTIONS
grim -t ppm "$out/full.ppm" || exit 10
grim -t ppm -g "10,20 200x100" "$out/region.ppm" || exit 10
kill \$s
wait \$s
exit 0
APP
rm -f "$out/full.ppm" "$out/region.ppm"
wbc --mode 640x480 --rotate 90 --allow-capture -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
grep -a 'wbc: ' "$out/log"
echo "--- screencopy-check"
cat "$out/check.log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc (11: screencopy-check region-90; 10: grim)"
n=$("$tool" ppm-exact "$out/full.ppm")
note "grim ($(ppm size "$out/full.ppm")): frame-tool says '$n'"
[ "$n" = 0 ] || fail "grim's picture is not exactly the client's frame 0"
[ "$(ppm size "$out/region.ppm")" = 200x100 ] || fail "grim -g gave $(ppm size "$out/region.ppm")"
python3 - "$here" "$out/full.ppm" "$out/region.ppm" <<'PY' || fail "grim -g is not that crop of the picture"
import sys
sys.path.insert(0, sys.argv[1])         # ppm.py's directory
from ppm import load
w, h, full = load(sys.argv[2])
rw, rh, part = load(sys.argv[3])
crop = b''.join(full[((y + 20) * w + 10) * 3:((y + 20) * w + 10 + rw) * 3] for y in range(rh))
if crop != part:
    sys.exit('grim -g "10,20 200x100" differs from the crop of the whole picture')
print('# grim -g "10,20 200x100" equals the crop (10,20) 200x100 of the exact picture')
PY
echo PASS
