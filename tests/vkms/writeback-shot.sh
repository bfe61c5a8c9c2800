#!/bin/bash
# examples/kms-writeback-shot captures a frame whose pixels are the documented content.
set -eu
shot=$1
out=/tmp/shot.ppm
"$shot" --mode 640x480 --overlay --cursor "$out"
python3 - "$out" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
header = b"P6\n640 480\n255\n"
assert data.startswith(header), data[:20]
px = data[len(header):]
assert len(px) == 640 * 480 * 3, len(px)
def at(x, y):
    i = (y * 640 + x) * 3
    return px[i:i + 3].hex()
bars = ["ffffff", "ffff00", "00ffff", "00ff00", "ff00ff", "ff0000", "0000ff", "000000"]
for b, want in enumerate(bars):
    got = at(b * 80 + 40, 400)
    assert got == want, f"bar {b}: {got} != {want}"
assert at(64, 48) == "808080" and at(223, 167) == "808080", "overlay missing"
assert at(63, 48) == "ffffff", "overlay too far left"
assert at(500, 300) == "ff0000" and at(563, 363) == "ff0000", "cursor missing"
assert at(499, 300) == "0000ff" and at(564, 300) == "000000", "cursor too wide"
print("writeback shot: bars, overlay and cursor where expected")
PY
