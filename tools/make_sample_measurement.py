#!/usr/bin/env python3
"""Writes Lacuna's bundled measurement sample: a synthetic temperature field in kelvin.

A 256 x 192 heated plate: ambient air at 293.15 K with a gentle left-to-right gradient, three
heat sources (Gaussian hot spots up to ~75 K above ambient), a cooling channel along a sine
curve, mild sensor noise from a fixed-seed generator (so the file is reproducible byte for byte)
and four dead pixels stored as NaN. Written twice, with no third-party modules:

  resources/sample/temperature.fits  FITS, BITPIX -32, BUNIT = 'K' (the unit travels with it)
  resources/sample/temperature.tiff  32-bit float TIFF, uncompressed (no unit: TIFF has none)

Usage: tools/make_sample_measurement.py [OUTPUT_DIR]   (default: resources/sample)
"""
import math
import os
import struct
import sys

W, H = 256, 192
AMBIENT = 293.15


def field():
    sources = [(70.0, 60.0, 18.0, 75.0), (170.0, 120.0, 26.0, 48.0), (215.0, 40.0, 10.0, 60.0)]
    state = 12345

    def noise():
        nonlocal state
        state = (1103515245 * state + 12345) % (1 << 31)
        return (state / float(1 << 31) - 0.5) * 0.4  # +-0.2 K

    values = []
    for y in range(H):
        for x in range(W):
            t = AMBIENT + 4.0 * x / (W - 1)
            for cx, cy, sigma, peak in sources:
                t += peak * math.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * sigma * sigma))
            channel_y = 150 + 18 * math.sin(x / 25.0)
            t -= 14.0 * math.exp(-((y - channel_y) ** 2) / (2 * 4.0 * 4.0))
            values.append(t + noise())
    for x, y in [(30, 170), (31, 170), (200, 10), (128, 96)]:
        values[y * W + x] = float("nan")
    return values


def card(text):
    return text.ljust(80)[:80].encode("ascii")


def write_fits(path, values):
    cards = [
        "SIMPLE  =                    T / conforms to FITS",
        "BITPIX  =                  -32 / IEEE 32-bit float",
        "NAXIS   =                    2",
        "NAXIS1  =                  %3d / columns" % W,
        "NAXIS2  =                  %3d / rows" % H,
        "BUNIT   = 'K       '           / kelvin",
        "OBJECT  = 'heated plate'       / synthetic, tools/make_sample_measurement.py",
        "END",
    ]
    header = b"".join(card(c) for c in cards)
    header += b" " * (-len(header) % 2880)
    # FITS stores the first row at the bottom of the image: write rows bottom-up so that the
    # picture reads the same as the TIFF.
    rows = [values[y * W:(y + 1) * W] for y in range(H)]
    data = b"".join(struct.pack(">%df" % W, *row) for row in reversed(rows))
    data += b"\0" * (-len(data) % 2880)
    with open(path, "wb") as f:
        f.write(header + data)


def write_tiff(path, values):
    data = struct.pack("<%df" % (W * H), *values)
    entries = [  # tag, type (3 SHORT, 4 LONG), value
        (256, 4, W), (257, 4, H), (258, 3, 32), (259, 3, 1), (262, 3, 1),
        (273, 4, 8), (277, 3, 1), (278, 4, H), (279, 4, len(data)), (284, 3, 1), (339, 3, 3),
    ]
    ifd_offset = 8 + len(data)
    ifd = struct.pack("<H", len(entries))
    for tag, kind, value in entries:
        packed = struct.pack("<HI", value, 0)[:4] if kind == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, 1) + packed
    ifd += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", ifd_offset) + data + ifd)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("resources", "sample")
    os.makedirs(out, exist_ok=True)
    values = field()
    write_fits(os.path.join(out, "temperature.fits"), values)
    write_tiff(os.path.join(out, "temperature.tiff"), values)
    finite = [v for v in values if v == v]
    print("temperature field %dx%d: %.2f .. %.2f K, %d NaN" %
          (W, H, min(finite), max(finite), len(values) - len(finite)))


if __name__ == "__main__":
    main()
