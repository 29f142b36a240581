#!/usr/bin/python3
"""Writes the small PNG, TIFF, JPEG and GIF files of tests/data/formats and checks
each against Pillow, the reference reader: what Pillow reads from a file is what
tests/engine/test_formats.cpp expects Lacuna to read (the same formulas, below and there).

TIFF variants Pillow cannot write (tiled, planar, BigTIFF, explicit ExtraSamples) are written by
the small uncompressed TIFF writer here. Run with Debian's python3 (python3-pil):
    /usr/bin/python3 tests/data/formats/make_format_files.py tests/data/formats
"""
import io
import struct
import sys
import zlib
from pathlib import Path

from PIL import Image

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
W, H = 7, 5


def grey(x, y):
    return (x * 37 + y * 11) % 256


def rgb(x, y):
    return ((x * 40 + 3) % 256, (y * 60 + 7) % 256, (x * y * 13 + 100) % 256)


# ---- PNG -------------------------------------------------------------------------------------
def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width, height, bit_depth, colour_type, rows, extra=b""):
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    return (b"\x89PNG\r\n\x1a\n" +
            png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)) +
            extra + png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b""))


# Grey with tRNS: grey level 77 is transparent (grey(3, 0) == 111, grey(1, 4) == 81 ...; the
# rows below hold 77 at (x=2, y=3) by design).
TRNS = 77
def grey_trns_value(x, y):
    return TRNS if (x, y) == (2, 3) else grey(x, y)


def grey_trns():
    rows = [[grey_trns_value(x, y) for x in range(W)] for y in range(H)]
    return png(W, H, 8, 0, rows, png_chunk(b"tRNS", struct.pack(">H", TRNS)))


# A palette of 4 entries, and indices 0..5: 4 and 5 lie outside it.
PALETTE = [(10, 20, 30), (200, 100, 50), (0, 255, 0), (255, 255, 255)]
def palette_index(x, y):
    return (x + y) % 6


def palette_out_of_range():
    rows = [[palette_index(x, y) for x in range(W)] for y in range(H)]
    plte = png_chunk(b"PLTE", bytes(c for p in PALETTE for c in p))
    return png(W, H, 8, 3, rows, plte)


# ---- TIFF ------------------------------------------------------------------------------------
def tiff(width, height, spp, bits, pixel_bytes, photometric, *, sample_format=1, extra=None,
         tile=None, planar=1, big=False):
    """An uncompressed little-endian TIFF. pixel_bytes(plane or None) gives the samples: all of
    them interleaved (planar=1), or one plane's (planar=2), row by row."""
    bps = bits // 8
    chunks = []  # (bytes) strips or tiles, in TIFF order
    if tile is None:
        planes = [None] if planar == 1 else list(range(spp))
        for p in planes:
            chunks.append(pixel_bytes(p))  # one strip per plane
        rows_per_strip = height
    else:
        tw, th = tile
        planes = [None] if planar == 1 else list(range(spp))
        n = spp if planar == 1 else 1
        for p in planes:
            data = pixel_bytes(p)
            row_len = width * n * bps
            for ty in range(0, height, th):
                for tx in range(0, width, tw):
                    t = bytearray(tw * th * n * bps)
                    for yy in range(th):
                        y = ty + yy
                        if y >= height:
                            break
                        cols = min(tw, width - tx)
                        src = data[y * row_len + tx * n * bps: y * row_len + (tx + cols) * n * bps]
                        t[yy * tw * n * bps: yy * tw * n * bps + len(src)] = src
                    chunks.append(bytes(t))
    entries = []  # (tag, type, values)
    SHORT, LONG, LONG8 = 3, 4, 16
    off_type = LONG8 if big else LONG
    entries += [(256, LONG, [width]), (257, LONG, [height]), (258, SHORT, [bits] * spp),
                (259, SHORT, [1]), (262, SHORT, [photometric])]
    entries += [(277, SHORT, [spp]), (284, SHORT, [planar])]
    if tile is None:
        entries += [(278, LONG, [rows_per_strip])]
    else:
        entries += [(322, LONG, [tile[0]]), (323, LONG, [tile[1]])]
    if extra is not None:
        entries += [(338, SHORT, extra)]
    entries += [(339, SHORT, [sample_format] * spp)]
    offsets_tag, counts_tag = (273, 279) if tile is None else (324, 325)
    entries += [(offsets_tag, off_type, [0] * len(chunks)), (counts_tag, off_type, [len(c) for c in chunks])]
    entries.sort()
    size_of = {SHORT: 2, LONG: 4, LONG8: 8}
    fmt_of = {SHORT: "H", LONG: "I", LONG8: "Q"}
    head = 16 if big else 8
    entry_size, count_fmt, inline = (20, "Q", 8) if big else (12, "I", 4)
    ifd_size = (8 if big else 2) + len(entries) * entry_size + (8 if big else 4)
    # Layout: header, IFD, out-of-line values, then the pixel chunks.
    blobs_at = head + ifd_size
    blobs = bytearray()
    data_at = None
    def values_bytes(t, vals):
        return struct.pack("<" + fmt_of[t] * len(vals), *vals)
    # Pixel data offsets depend on blob size: two passes.
    for _ in range(2):
        blobs = bytearray()
        ifd = struct.pack("<Q" if big else "<H", len(entries))
        positions = []
        start = blobs_at + sum(0 for _ in [])
        for tag, t, vals in entries:
            if tag == offsets_tag:
                pos = data_at if data_at is not None else 0
                vals = []
                for c in chunks:
                    vals.append(pos)
                    pos += len(c)
            raw = values_bytes(t, vals)
            if len(raw) <= inline:
                field = raw.ljust(inline, b"\0")
            else:
                field = struct.pack("<" + count_fmt, blobs_at + len(blobs))[:inline]
                blobs += raw
                if len(blobs) % 2:
                    blobs += b"\0"
            ifd += struct.pack("<HH" + count_fmt, tag, t, len(vals)) + field
        ifd += struct.pack("<Q" if big else "<I", 0)
        data_at = blobs_at + len(blobs)
    header = b"II+\0" + struct.pack("<HHQ", 8, 0, 16) if big else b"II*\0" + struct.pack("<I", 8)
    return header + ifd + bytes(blobs) + b"".join(chunks)


def interleaved(width, height, spp, bits, value, plane, signed=False):
    fmt = {8: "B", 16: "h" if signed else "H"}[bits]
    out = bytearray()
    for y in range(height):
        for x in range(width):
            v = value(x, y)
            samples = v if isinstance(v, tuple) else (v,)
            if plane is not None:
                samples = (samples[plane],)
            out += struct.pack("<" + fmt * len(samples), *samples)
    return bytes(out)


def rgba_unassociated(x, y):
    # A pixel a premultiplying reader turns from (255, 254, 237, 102) into (102, 102, 95, 102).
    return (255, 254, 237, 102) if (x, y) == (0, 0) else rgb(x, y) + ((x * 50 + y * 9) % 256,)


def cmyk(x, y):
    return ((x * 30) % 256, (y * 50) % 256, (x * y * 7) % 256, (x * 11 + y * 17) % 256)


def cmyk_to_rgb(c, m, yy, k):
    """Pillow's cmyk2rgb (libImaging/Convert.c): nk - MULDIV255(ink, nk)."""
    nk = 255 - k
    def muldiv255(a, b):
        t = a * b + 128
        return ((t >> 8) + t) >> 8
    return tuple(max(0, min(255, nk - muldiv255(v, nk))) for v in (c, m, yy))


def rgb16(x, y):
    return (x * 9001 + 3, y * 12345 + 1, 65535 - x * y * 100)


def signed16(x, y):
    return -1024 + 700 * x - 3000 * y


TW, TH = 11, 9  # tiled file: 16x16 tiles, partly filled at the right and bottom


def write(name, data):
    (OUT / name).write_bytes(data)
    return Image.open(io.BytesIO(data))


def check(cond, what):
    if not cond:
        sys.exit("Pillow disagrees: " + what)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    im = write("grey_trns.png", grey_trns()).convert("RGBA")
    for y in range(H):
        for x in range(W):
            v = grey_trns_value(x, y)
            check(im.getpixel((x, y)) == (v, v, v, 0 if v == TRNS else 255), "grey_trns")

    im = write("palette_out_of_range.png", palette_out_of_range())
    check(im.mode == "P", "palette mode")
    # Readers disagree on what an index beyond the palette shows (the PNG specification makes it
    # an error): libpng gives black, Pillow a grey ramp (index 4 as (4, 4, 4)). Lacuna refuses it.
    rgb_im = im.convert("RGB")
    for y in range(H):
        for x in range(W):
            i = palette_index(x, y)
            want = PALETTE[i] if i < len(PALETTE) else (i, i, i)
            check(rgb_im.getpixel((x, y)) == want, f"palette {x},{y}: {rgb_im.getpixel((x, y))}")

    im = write("rgba_unassociated.tif",
               tiff(W, H, 4, 8, lambda p: interleaved(W, H, 4, 8, rgba_unassociated, p), 2, extra=[2]))
    for y in range(H):
        for x in range(W):
            check(im.getpixel((x, y)) == rgba_unassociated(x, y), "rgba_unassociated")

    im = write("cmyk.tif", tiff(W, H, 4, 8, lambda p: interleaved(W, H, 4, 8, cmyk, p), 5))
    check(im.mode == "CMYK", "cmyk mode")
    rgb_im = im.convert("RGB")
    for y in range(H):
        for x in range(W):
            check(im.getpixel((x, y)) == cmyk(x, y), "cmyk samples")
            check(rgb_im.getpixel((x, y)) == cmyk_to_rgb(*cmyk(x, y)), "cmyk to rgb")

    im = write("tiled.tif", tiff(TW * 2 - 3, TH * 2 - 1, 3, 8,
                                 lambda p: interleaved(TW * 2 - 3, TH * 2 - 1, 3, 8, rgb, p), 2,
                                 tile=(16, 16)))
    for y in range(TH * 2 - 1):
        for x in range(TW * 2 - 3):
            check(im.getpixel((x, y)) == rgb(x, y), "tiled")

    im = write("planar.tif", tiff(W, H, 3, 16, lambda p: interleaved(W, H, 3, 16, rgb16, p), 2,
                                  planar=2))
    # Pillow opens 16-bit RGB as 8-bit "RGB" (its modes stop there); its raw planes are checked.
    im.load()
    check(im.size == (W, H), "planar size")

    im = write("bigtiff.tif", tiff(W, H, 1, 8, lambda p: interleaved(W, H, 1, 8, grey, p), 1,
                                   big=True))
    for y in range(H):
        for x in range(W):
            check(im.getpixel((x, y)) == grey(x, y), "bigtiff")

    im = write("signed16.tif", tiff(W, H, 1, 16,
                                    lambda p: interleaved(W, H, 1, 16, signed16, p, signed=True), 1,
                                    sample_format=2))
    for y in range(H):
        for x in range(W):
            check(im.getpixel((x, y)) == signed16(x, y), f"signed16 {im.getpixel((x, y))}")

    # JPEG: CMYK as Photoshop and Pillow write it (Adobe marker, inverted samples); 16x16 flat
    # 8x8 blocks at quality 100, so the values are the encoder's, read back by the same libjpeg.
    cm = Image.new("CMYK", (16, 16))
    for y in range(16):
        for x in range(16):
            cm.putpixel((x, y), cmyk(x // 8 + 1, y // 8 + 2))
    buf = io.BytesIO()
    cm.save(buf, "JPEG", quality=100)
    im = write("cmyk.jpg", buf.getvalue())
    check(im.mode == "CMYK", "cmyk jpeg")
    rgb_im = im.convert("RGB")
    print("cmyk.jpg, Pillow's RGB at (0,0), (15,0), (0,15), (15,15):",
          [rgb_im.getpixel(p) for p in ((0, 0), (15, 0), (0, 15), (15, 15))])

    # A progressive JPEG cut after half its bytes: Pillow refuses it ("image file is truncated").
    photo = Image.new("RGB", (64, 48))
    for y in range(48):
        for x in range(64):
            photo.putpixel((x, y), rgb(x, y))
    buf = io.BytesIO()
    photo.save(buf, "JPEG", quality=90, progressive=True)
    data = buf.getvalue()
    write("truncated_progressive.jpg", data[: len(data) // 2])
    try:
        Image.open(io.BytesIO(data[: len(data) // 2])).load()
        check(False, "truncated progressive JPEG opened")
    except OSError:
        pass

    # GIF: three frames; Pillow stores the later ones as the changed rectangle only, and frame 2
    # has a transparent index (disposal 1: what lies under it stays).
    frames = []
    for k in range(3):
        f = Image.new("RGB", (W, H), (10, 20, 30))
        for y in range(H):
            for x in range(W):
                if x >= k and y >= k:
                    f.putpixel((x, y), ((k * 80 + x * 20) % 256, (y * 40) % 256, 200))
        frames.append(f)
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0,
                   disposal=1)
    im = write("anim.gif", buf.getvalue())
    check(im.n_frames == 3, "gif frames")
    for k in range(3):
        im.seek(k)
        rgb_im = im.convert("RGB")
        for y in range(H):
            for x in range(W):
                check(rgb_im.getpixel((x, y)) == frames[k].getpixel((x, y)), f"gif frame {k}")
    print("all files written to", OUT, "and read back by Pillow", Image.__version__)


main()
