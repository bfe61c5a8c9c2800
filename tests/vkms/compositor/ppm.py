#!/usr/bin/python3
"""ppm.py nonblack FILE       -> fraction of pixels that are not black (0..1)
   ppm.py diff FILE FILE      -> fraction of pixels that differ
   ppm.py size FILE           -> WxH
   ppm.py box FILE RRGGBB...  -> for each colour, a line "X Y W H N": the bounding box of
                                 its pixels and how many there are ("none" if there are
                                 none); one load of FILE for all (a Python start costs
                                 the TCG guest ~1 s)
   ppm.py near FILE TOL RRGGBB...
                              -> for each colour, the fraction of pixels within TOL (per
                                 channel) of it (0..1), on one line
   ppm.py unturn FILE T OUT   -> writes OUT: the panel's picture FILE (a writeback frame)
                                 of an output with wl_output transform T (0, 90, 180,
                                 270) turned back into the logical picture, the way
                                 wlroots draws it: logical pixel (x, y) of a W x H
                                 picture is the panel's wlr_box_transform by the inverse
                                 transform (90: x' = y, y' = W-1-x; 270: x' = H-1-y,
                                 y' = x)
   ppm.py triangle FILE       -> "R n x y G n x y B n x y": for each of nearly pure red,
                                 green and blue (that channel >= 200, the others <= 80),
                                 how many pixels and their centroid (weston-simple-egl's
                                 triangle has a red, a green and a blue corner)"""
import collections
import sys


def load(path):
    data = open(path, 'rb').read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b'#':
            pos = data.index(b'\n', pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b'P6' or int(fields[3]) != 255:
        sys.exit('%s: not a binary 8-bit PPM' % path)
    w, h = int(fields[1]), int(fields[2])
    px = data[pos + 1:pos + 1 + w * h * 3]
    if len(px) != w * h * 3:
        sys.exit('%s: truncated' % path)
    return w, h, px


def triangle(path):
    w, h, px = load(path)
    n, sx, sy = [0, 0, 0], [0, 0, 0], [0, 0, 0]
    for i, p in enumerate(zip(px[0::3], px[1::3], px[2::3])):
        hi = [v >= 200 for v in p]
        if sum(hi) != 1 or sorted(p)[1] > 80:
            continue
        c = hi.index(True)
        n[c] += 1
        sx[c] += i % w
        sy[c] += i // w
    return ' '.join('%s %d %d %d' % ('RGB'[c], n[c], sx[c] // n[c] if n[c] else -1,
                                     sy[c] // n[c] if n[c] else -1) for c in range(3))


def unturn(path, t, dst):
    w, h, px = load(path)
    rows = [[px[(y * w + x) * 3:(y * w + x) * 3 + 3] for x in range(w)] for y in range(h)]
    if t in (90, 270):
        lw, lh = h, w
    else:
        lw, lh = w, h
    at = {0: lambda x, y: rows[y][x],
          90: lambda x, y: rows[lw - 1 - x][y],
          180: lambda x, y: rows[lh - 1 - y][lw - 1 - x],
          270: lambda x, y: rows[x][lh - 1 - y]}[t]
    out = b''.join(at(x, y) for y in range(lh) for x in range(lw))
    with open(dst, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (lw, lh) + out)


def box(w, h, px, want):
    xs, ys, n = [], [], 0
    for y in range(h):
        row = px[y * w * 3:(y + 1) * w * 3]
        i = row.find(want)
        while i >= 0:
            if i % 3 == 0:
                xs.append(i // 3)
                ys.append(y)
                n += 1
            i = row.find(want, i + 1)
    if not n:
        return 'none'
    return '%d %d %d %d %d' % (min(xs), min(ys), max(xs) - min(xs) + 1,
                               max(ys) - min(ys) + 1, n)


def main():
    cmd = sys.argv[1]
    if cmd == 'unturn':
        unturn(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    if cmd == 'size':
        w, h, _ = load(sys.argv[2])
        print('%dx%d' % (w, h))
    elif cmd == 'nonblack':
        w, h, px = load(sys.argv[2])
        n = sum(1 for i in range(0, len(px), 3) if px[i] | px[i + 1] | px[i + 2])
        print('%.4f' % (n / (w * h)))
    elif cmd == 'diff':
        w, h, a = load(sys.argv[2])
        w2, h2, b = load(sys.argv[3])
        if (w, h) != (w2, h2):
            print('1.0000')
            return
        n = sum(1 for i in range(0, len(a), 3) if a[i:i + 3] != b[i:i + 3])
        print('%.4f' % (n / (w * h)))
    elif cmd == 'near':
        w, h, px = load(sys.argv[2])
        tol = int(sys.argv[3])
        # Count each colour once (in C), then compare the few distinct ones.
        counts = collections.Counter(zip(px[0::3], px[1::3], px[2::3]))
        fracs = []
        for want in sys.argv[4:]:
            want = bytes.fromhex(want)
            n = sum(c for rgb, c in counts.items()
                    if all(abs(a - b) <= tol for a, b in zip(rgb, want)))
            fracs.append('%.4f' % (n / (w * h)))
        print(' '.join(fracs))
    elif cmd == 'triangle':
        print(triangle(sys.argv[2]))
    elif cmd == 'box':
        w, h, px = load(sys.argv[2])
        for colour in sys.argv[3:]:
            print(box(w, h, px, bytes.fromhex(colour)))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
