#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that a PNG (a browser's screenshot) is not blank.

usage: png_check.py PNG [--min-colors N] [--min-nonbg FRACTION]
                       [--min-saturated FRACTION]
       png_check.py --self-test

Decodes the PNG with the standard library only (zlib, struct): 8-bit
greyscale, RGB, palette, greyscale+alpha and RGBA, not interlaced, filter
types 0-4.  Prints its size, its number of distinct colours and the fraction
of its pixels that are not the dominant (background) colour; exits 1 when
there are fewer than N colours or fewer such pixels than FRACTION (a blank
page: one colour, nothing but background), 2 when the file is not such a PNG.
It also prints the fraction of pixels of a strong colour (HSV saturation 0.5
or more: a flame graph's frames, a coverage report's hit and missed lines,
not grey text nor a pale gradient) and, given --min-saturated, checks it.

--self-test writes PNGs of its own (each filter type, each colour type, a
blank one, a corrupt one) and checks what this program makes of them.
"""
import argparse
import collections
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # by colour type
TYPE_NAMES = {0: "grey", 2: "RGB", 3: "palette", 4: "grey+alpha", 6: "RGBA"}


class BadPng(Exception):
    pass


def chunks(data):
    """The (type, body) of each chunk, CRCs checked, up to IEND."""
    if data[:8] != SIGNATURE:
        raise BadPng("not a PNG (bad signature)")
    pos = 8
    while True:
        if pos + 8 > len(data):
            raise BadPng("truncated (no IEND chunk)")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 8 + length
        if end + 4 > len(data):
            raise BadPng("truncated %s chunk" % kind.decode("latin-1"))
        body = data[pos + 8:end]
        (crc,) = struct.unpack(">I", data[end:end + 4])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise BadPng("bad CRC in the %s chunk" % kind.decode("latin-1"))
        yield kind, body
        if kind == b"IEND":
            return
        pos = end + 4


def unfilter(raw, width, height, bpp):
    """The pixel bytes of the image, row after row, without filter bytes."""
    stride = width * bpp
    if len(raw) < height * (stride + 1):
        raise BadPng("image data too short: %d bytes for %d rows of %d"
                     % (len(raw), height, stride + 1))
    out = bytearray(height * stride)
    prev = bytearray(stride)
    pos = 0
    for y in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += stride + 1
        if ftype == 0:
            pass
        elif ftype == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:  # Up
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:  # Average
            for i in range(bpp):
                line[i] = (line[i] + (prev[i] >> 1)) & 0xFF
            for i in range(bpp, stride):
                line[i] = (line[i] + ((line[i - bpp] + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                if pa <= pb and pa <= pc:
                    pred = a
                elif pb <= pc:
                    pred = b
                else:
                    pred = c
                line[i] = (line[i] + pred) & 0xFF
        else:
            raise BadPng("row %d: unknown filter type %d" % (y, ftype))
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return bytes(out)


def decode(path):
    """(width, height, colour type name, [pixel, ...]), each pixel a bytes
    object of its channels (palette entries resolved to RGB)."""
    with open(path, "rb") as f:
        data = f.read()
    header = None
    palette = None
    idat = []
    for kind, body in chunks(data):
        if kind == b"IHDR":
            if len(body) != 13:
                raise BadPng("bad IHDR chunk")
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise BadPng("no IHDR chunk")
    width, height, depth, ctype, comp, filt, interlace = header
    if ctype not in CHANNELS:
        raise BadPng("unknown colour type %d" % ctype)
    if depth != 8:
        raise BadPng("bit depth %d not handled (only 8)" % depth)
    if comp != 0 or filt != 0:
        raise BadPng("unknown compression or filter method")
    if interlace != 0:
        raise BadPng("interlaced PNGs not handled")
    if width == 0 or height == 0:
        raise BadPng("empty image (%dx%d)" % (width, height))
    if not idat:
        raise BadPng("no IDAT chunk")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise BadPng("bad image data: %s" % e)
    bpp = CHANNELS[ctype]
    pix = unfilter(raw, width, height, bpp)
    pixels = [pix[i:i + bpp] for i in range(0, len(pix), bpp)]
    if ctype == 3:
        if palette is None:
            raise BadPng("palette image without a PLTE chunk")
        try:
            pixels = [palette[3 * p[0]:3 * p[0] + 3] for p in pixels]
        except IndexError:
            raise BadPng("palette index out of range")
    elif ctype in (4, 6):
        # Fully transparent pixels are all the same, whatever their colour.
        clear = bytes(bpp)
        pixels = [clear if p[-1] == 0 else p for p in pixels]
    return width, height, TYPE_NAMES[ctype], pixels


def saturated(colour):
    """Whether a pixel (grey, RGB, grey+alpha or RGBA bytes) has an HSV
    saturation of 0.5 or more and is not (nearly) transparent."""
    if len(colour) in (2, 4) and colour[-1] < 128:
        return False
    if len(colour) < 3:
        return False
    hi, lo = max(colour[:3]), min(colour[:3])
    return hi > 0 and 2 * (hi - lo) >= hi


def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def encode(width, height, ctype, pix, filters, palette=None):
    """A PNG of the pixel bytes pix, row y filtered with filters[y % len]."""
    bpp = CHANNELS[ctype]
    stride = width * bpp
    raw = bytearray()
    prev = bytes(stride)
    for y in range(height):
        line = pix[y * stride:(y + 1) * stride]
        ftype = filters[y % len(filters)]
        out = bytearray([ftype])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 0:
                pred = 0
            elif ftype == 1:
                pred = a
            elif ftype == 2:
                pred = b
            elif ftype == 3:
                pred = (a + b) >> 1
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            out.append((line[i] - pred) & 0xFF)
        raw += out
        prev = line
    png = SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8,
                                                 ctype, 0, 0, 0))
    if palette is not None:
        png += chunk(b"PLTE", palette)
    return png + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b"")


def self_test():
    import os
    import random
    import subprocess
    import tempfile
    rnd = random.Random(1)
    failures = []

    def check(what, cond):
        if not cond:
            failures.append(what)

    def run(name, data, *opts):
        path = os.path.join(tmpdir, name)
        with open(path, "wb") as f:
            f.write(data)
        r = subprocess.run([sys.executable, os.path.abspath(__file__), path]
                           + list(opts), capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr

    with tempfile.TemporaryDirectory() as tmpdir:
        # Each colour type, each filter type (and all of them mixed): the
        # pixels decoded are the pixels encoded.
        w, h = 37, 23
        for ctype, bpp in sorted(CHANNELS.items()):
            pix = bytes(rnd.randrange(256) if rnd.random() < 0.5 else
                        (x * 7 + y * 3) & 0xFF
                        for y in range(h) for x in range(w * bpp))
            palette = bytes(rnd.randrange(256) for _ in range(768))
            for filters in ([0], [1], [2], [3], [4], [0, 1, 2, 3, 4, 4, 3, 2]):
                name = "t%d-f%s.png" % (ctype, "".join(map(str, filters)))
                path = os.path.join(tmpdir, name)
                with open(path, "wb") as f:
                    f.write(encode(w, h, ctype, pix, filters,
                                   palette if ctype == 3 else None))
                got = decode(path)[3]
                want = [pix[i:i + bpp] for i in range(0, len(pix), bpp)]
                if ctype == 3:
                    want = [palette[3 * p[0]:3 * p[0] + 3] for p in want]
                elif ctype in (4, 6):
                    want = [bytes(bpp) if p[-1] == 0 else p for p in want]
                check("%s: decoded pixels differ" % name, got == want)
        # A page of one colour is blank; with some text-like noise it is not.
        w, h = 200, 150
        blank = bytes([255, 255, 255]) * (w * h)
        rc, out = run("blank.png", encode(w, h, 2, blank, [0, 1, 2, 3, 4]))
        check("blank.png: exit %d, not 1: %s" % (rc, out),
              rc == 1 and "looks blank" in out)
        rc, out = run("blank-alpha.png",
                      encode(w, h, 6, bytes(4 * w * h), [0, 1, 2, 3, 4]))
        check("blank-alpha.png: exit %d, not 1: %s" % (rc, out), rc == 1)
        page = bytearray(blank)
        for y in range(10, 60):
            for x in range(10, 190):
                if rnd.random() < 0.3:
                    v = rnd.randrange(256)
                    page[3 * (y * w + x):3 * (y * w + x) + 3] = bytes([v, v, 255 - v])
        rc, out = run("page.png", encode(w, h, 2, bytes(page), [4, 2, 1]))
        check("page.png: exit %d, not 0: %s" % (rc, out), rc == 0)
        rc, out = run("page.png", encode(w, h, 2, bytes(page), [4, 2, 1]),
                      "--min-nonbg", "0.5")
        check("page.png --min-nonbg 0.5: exit %d, not 1: %s" % (rc, out), rc == 1)
        # A pale gradient (an empty flame graph's background) has colours
        # but no strong one.
        grad = bytes(c for y in range(h) for x in range(w)
                     for c in (0xee, 0xee, 0xee - (0xee - 0xb0) * y // h))
        rc, out = run("gradient.png", encode(w, h, 2, grad, [2]))
        check("gradient.png: exit %d, not 0: %s" % (rc, out), rc == 0)
        rc, out = run("gradient.png", encode(w, h, 2, grad, [2]),
                      "--min-saturated", "0.01")
        check("gradient.png --min-saturated: exit %d, not 1: %s" % (rc, out),
              rc == 1 and "strong colour" in out)
        rc, out = run("page.png", encode(w, h, 2, bytes(page), [3]),
                      "--min-saturated", "0.01")
        check("page.png --min-saturated: exit %d, not 0: %s" % (rc, out), rc == 0)
        # Not PNGs: exit 2.
        good = encode(w, h, 2, bytes(page), [1])
        bad = bytearray(good)
        bad[40] ^= 1
        for name, data in (("corrupt.png", bytes(bad)), ("short.png", good[:100]),
                           ("text.png", b"<html></html>\n")):
            rc, out = run(name, data)
            check("%s: exit %d, not 2: %s" % (name, rc, out),
                  rc == 2 and "png_check:" in out)
    for f in failures:
        print("FAIL: %s" % f)
    print("png_check self-test: %s" % ("%d failed" % len(failures)
                                         if failures else "passed"))
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description="Checks that a PNG is not blank.")
    ap.add_argument("png")
    ap.add_argument("--min-colors", type=int, default=16,
                    help="the fewest distinct colours (default 16)")
    ap.add_argument("--min-nonbg", type=float, default=0.005,
                    help="the least fraction of pixels not of the background "
                         "(most frequent) colour (default 0.005)")
    ap.add_argument("--min-saturated", type=float, default=0.0,
                    help="the least fraction of pixels of a strong colour "
                         "(HSV saturation >= 0.5; default 0: not checked)")
    args = ap.parse_args()
    try:
        width, height, ctype, pixels = decode(args.png)
    except (OSError, BadPng) as e:
        print("png_check: %s: %s" % (args.png, e), file=sys.stderr)
        return 2
    counts = collections.Counter(pixels)
    bg, nbg = counts.most_common(1)[0]
    nonbg = 1.0 - nbg / len(pixels)
    sat = sum(n for colour, n in counts.items() if saturated(colour)) / len(pixels)
    print("%s: %dx%d %s, %d colours, background #%s, %.4f of the pixels "
          "not background, %.4f of a strong colour"
          % (args.png, width, height, ctype, len(counts), bg.hex(), nonbg, sat))
    why = []
    if len(counts) < args.min_colors:
        why.append("%d colours, fewer than %d" % (len(counts), args.min_colors))
    if nonbg < args.min_nonbg:
        why.append("%.4f of the pixels not background, less than %g"
                   % (nonbg, args.min_nonbg))
    if sat < args.min_saturated:
        why.append("%.4f of the pixels of a strong colour, less than %g"
                   % (sat, args.min_saturated))
    if why:
        print("png_check: %s looks blank: %s" % (args.png, "; ".join(why)),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
