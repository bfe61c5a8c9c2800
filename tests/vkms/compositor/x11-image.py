#!/usr/bin/python3
"""x11-image.py: a picture of known pixels for X11 clients, and the check of a frame.

   x11-image.py xwd W H FILE     write WxH of the picture as an X window dump (XWD, 24-bit
                                 TrueColor), which xwud (x11-apps) shows as it is
   x11-image.py diff PPM [X Y]   compare a binary PPM (a writeback frame) with the picture
                                 at its size: prints "N differing pixels" and the first few;
                                 with X Y (the pointer), pixels of the 64x64 square
                                 centred there (the cursor image, which writeback
                                 captures with the rest) may differ; exit status 1 when
                                 any other does

The picture: at (x, y), red = x mod 256, green = y mod 256, blue = 0x40 + 0x80 where
x >= 256 + 0x20 where y >= 256 (a gradient: a frame shifted, scaled or cut by a pixel
differs)."""
import struct
import sys

from ppm import load as load_ppm  # this directory: the PPM reader of ppm.py


def pixel(x, y):
    return (x & 0xff, y & 0xff, 0x40 * (x >= 256) + 0x80 * (x >= 512) + 0x20 * (y >= 256))


def rows(w, h, order):
    """The picture's pixels, row after row, each pixel as the bytes order names of
    r, g, b, or 0 (slices, not a loop per pixel: the TCG guest runs this too)."""
    out = bytearray()
    for y in range(h):
        row = bytearray(len(order) * w)
        for i, c in enumerate(order):
            if c == 'r':
                row[i::len(order)] = bytes(x & 0xff for x in range(w))
            elif c == 'g':
                row[i::len(order)] = bytes([y & 0xff]) * w
            elif c == 'b':
                row[i::len(order)] = bytes(pixel(x, y)[2] for x in range(w))
        out += row
    return bytes(out)


def xwd(w, h, path):
    name = b'wbc-x11-image\0'
    fields = [100 + len(name), 7, 2, 24, w, h, 0,
              0, 32, 0, 32, 32, w * 4,       # LSBFirst, bitmap unit/order/pad, bpp, stride
              4, 0xff0000, 0xff00, 0xff, 8,  # TrueColor and its masks
              256, 0, w, h, 0, 0, 0]         # colormap entries, no XWDColor, window
    with open(path, 'wb') as f:
        f.write(struct.pack('>25I', *fields) + name + rows(w, h, 'bgr0'))


def diff(path, cursor=None):
    w, h, px = load_ppm(path)
    want_px = rows(w, h, 'rgb')
    if px == want_px:
        print('0 differing pixels')
        return 0
    bad = []
    for y in range(h):
        i, j = y * w * 3, (y + 1) * w * 3
        if px[i:j] == want_px[i:j]:
            continue
        for x in range(w):
            got = tuple(px[i + 3 * x:i + 3 * x + 3])
            if got != pixel(x, y):
                bad.append((x, y, got, pixel(x, y)))
    outside = [b for b in bad if not cursor or abs(b[0] - cursor[0]) >= 32 or
               abs(b[1] - cursor[1]) >= 32]
    xs, ys = [b[0] for b in bad], [b[1] for b in bad]
    print('%d differing pixels in %d,%d-%d,%d, %d of them outside the cursor' %
          (len(bad), min(xs), min(ys), max(xs), max(ys), len(outside)))
    for x, y, got, want in outside[:5]:
        print('  at %d,%d: %02x%02x%02x, want %02x%02x%02x' % ((x, y) + got + want))
    return 1 if outside else 0


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'xwd':
        xwd(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) in (3, 5) and sys.argv[1] == 'diff':
        sys.exit(diff(sys.argv[2], tuple(map(int, sys.argv[3:5])) or None))
    else:
        sys.exit(__doc__)
