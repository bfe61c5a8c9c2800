#!/usr/bin/python3
"""A minimal RFB 3.8 client (RFC 6143) for the wayvnc test, python3 stdlib only.

  rfb-client.py HOST PORT frames N PREFIX   N full (non-incremental) framebuffer updates,
                                            1 s apart, written as PREFIX-I.bgr0
                                            (raw B,G,R,0 rows, what frame-tool reads),
                                            after wayvnc's placeholder (skip_placeholder)
  rfb-client.py HOST PORT type TEXT         KeyEvent press+release for each character
                                            (Latin-1 keysyms)

Security type None only; pixel format 32 bpp true colour, little-endian, red at bit 16,
so each pixel is B,G,R,0 in memory; Raw encoding only. Prints what the server said.
"""
import socket
import struct
import sys
import time


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            sys.exit('rfb: connection closed after %d of %d bytes' % (len(buf), n))
        buf += chunk
    return bytes(buf)


def connect(host, port):
    s = None
    for _ in range(50):                  # wayvnc may still be starting
        try:
            s = socket.create_connection((host, port), timeout=60)
            break
        except OSError:
            time.sleep(0.2)
    if s is None:
        sys.exit('rfb: cannot connect to %s:%d' % (host, port))
    version = recv_exact(s, 12)
    print('rfb: server version %r' % version)
    if not version.startswith(b'RFB 003.'):
        sys.exit('rfb: not an RFB server')
    s.sendall(b'RFB 003.008\n')
    n = recv_exact(s, 1)[0]
    if n == 0:
        length, = struct.unpack('>I', recv_exact(s, 4))
        sys.exit('rfb: refused: %s' % recv_exact(s, length).decode(errors='replace'))
    types = list(recv_exact(s, n))
    print('rfb: security types %s' % types)
    if 1 not in types:
        sys.exit('rfb: no None security type')
    s.sendall(bytes([1]))
    result, = struct.unpack('>I', recv_exact(s, 4))
    if result != 0:
        sys.exit('rfb: security result %d' % result)
    s.sendall(bytes([1]))                # ClientInit: shared
    w, h = struct.unpack('>HH', recv_exact(s, 4))
    recv_exact(s, 16)                    # the server's pixel format: replaced below
    length, = struct.unpack('>I', recv_exact(s, 4))
    name = recv_exact(s, length).decode(errors='replace')
    print('rfb: desktop %r %dx%d' % (name, w, h))
    pixel_format = struct.pack('>BBBBHHHBBB3x', 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
    s.sendall(struct.pack('>B3x', 0) + pixel_format)            # SetPixelFormat
    s.sendall(struct.pack('>BxHi', 2, 1, 0))                    # SetEncodings: Raw
    return s, w, h


def read_update(s, fb, w):
    """Server messages until a FramebufferUpdate; its rectangles go into fb."""
    while True:
        kind = recv_exact(s, 1)[0]
        if kind == 0:
            n, = struct.unpack('>xH', recv_exact(s, 3))
            for _ in range(n):
                x, y, rw, rh, enc = struct.unpack('>HHHHi', recv_exact(s, 12))
                if enc != 0:
                    sys.exit('rfb: rectangle in encoding %d, asked for Raw only' % enc)
                data = recv_exact(s, rw * rh * 4)
                for row in range(rh):
                    at = ((y + row) * w + x) * 4
                    fb[at:at + rw * 4] = data[row * rw * 4:(row + 1) * rw * 4]
            return n
        if kind == 2:                    # Bell
            continue
        if kind == 3:                    # ServerCutText
            length, = struct.unpack('>3xI', recv_exact(s, 7))
            recv_exact(s, length)
            continue
        sys.exit('rfb: unexpected server message %d' % kind)


def full_update(s, fb, w, h):
    s.sendall(struct.pack('>BBHHHH', 3, 0, 0, 0, w, h))        # full update request
    return read_update(s, fb, w)


def skip_placeholder(s, fb, w, h, limit=60.0):
    """wayvnc 0.5 serves a placeholder, every byte 0x60, until its first screencopy
    frame is in (main.c, create_placeholder_buffer): a client faster than that capture
    gets it. Full updates until one is not that, at most LIMIT s; the first one that is
    not is left in fb, and its count of rectangles returned."""
    placeholder = bytes([0x60]) * len(fb)
    n = full_update(s, fb, w, h)
    skipped, end = 0, time.monotonic() + limit
    while fb == placeholder:
        if time.monotonic() > end:
            sys.exit('rfb: only the placeholder after %d s' % limit)
        skipped += 1
        time.sleep(0.2)
        n = full_update(s, fb, w, h)
    if skipped:
        print('rfb: %d update(s) of the placeholder before the first capture' % skipped)
    return n


def frames(s, w, h, count, prefix, delay=1.0):
    fb = bytearray(w * h * 4)
    n = skip_placeholder(s, fb, w, h)
    for i in range(1, count + 1):
        if i > 1:
            n = full_update(s, fb, w, h)
        with open('%s-%d.bgr0' % (prefix, i), 'wb') as f:
            f.write(fb)
        print('rfb: update %d: %d rectangle(s)' % (i, n))
        time.sleep(delay)


def type_text(s, w, h, text):
    for ch in text:
        sym = ord(ch)
        s.sendall(struct.pack('>BBxxI', 4, 1, sym))
        s.sendall(struct.pack('>BBxxI', 4, 0, sym))
        time.sleep(0.05)
    print('rfb: typed %r' % text)
    time.sleep(1)                        # let the server read them before the close


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    host, port, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s, w, h = connect(host, port)
    if cmd == 'frames' and len(sys.argv) == 6:
        frames(s, w, h, int(sys.argv[4]), sys.argv[5])
    elif cmd == 'type' and len(sys.argv) == 5:
        type_text(s, w, h, sys.argv[4])
    else:
        sys.exit(__doc__)
    s.close()


if __name__ == '__main__':
    main()
