#!/usr/bin/env python3
"""Makes docs/screenshots/measurement-scale.png: the sample temperature field (float, kelvin)
reduced to 48 x 36 and enlarged 6x by `lacuna scale` with each method (nearest, bilinear /
bicubic, bspline; left to right, top to bottom), shown over the finite range with a black-red-
yellow ramp. Standard library only. Usage: make_measurement_scale_sheet.py LACUNA OUT.png"""
import math, os, struct, subprocess, sys, tempfile, zlib

lacuna, OUT = sys.argv[1], os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp()
small = os.path.join(tmp, 'small.fits')
subprocess.run([lacuna, 'scale', os.path.join(here, '..', 'resources', 'sample', 'temperature.fits'),
                small, '--width', '48', '--height', '36', '--method', 'bilinear'], check=True)
names = ['nearest', 'bilinear', 'bicubic', 'bspline']
for n in names:
    subprocess.run([lacuna, 'scale', small, os.path.join(tmp, n + '.pfm'), '--width', '288',
                    '--height', '216', '--method', n], check=True)
os.chdir(tmp)
def pfm(path):
    b = open(path, 'rb').read()
    parts = b.split(b'\n', 3)
    w, h = map(int, parts[1].split()); scale = float(parts[2])
    fmt = '<' if scale < 0 else '>'
    vals = struct.unpack(fmt + 'f' * (w * h), parts[3][:4 * w * h])
    rows = [vals[(h - 1 - y) * w:(h - y) * w] for y in range(h)]  # PFM is bottom row first
    return w, h, rows
imgs = [pfm(n + '.pfm') for n in names]
finite = [v for _, _, rows in imgs for r in rows for v in r if math.isfinite(v)]
lo, hi = min(finite), max(finite)
def inferno_ish(t):  # a simple black-red-yellow-white ramp
    return (int(255 * min(1, 3 * t)), int(255 * min(1, max(0, 3 * t - 1))), int(255 * min(1, max(0, 3 * t - 2))))
w, h = imgs[0][0], imgs[0][1]
gap = 6
W, H = 2 * w + gap, 2 * h + gap
canvas = [[(255, 255, 255)] * W for _ in range(H)]
for i, (_, _, rows) in enumerate(imgs):
    ox, oy = (i % 2) * (w + gap), (i // 2) * (h + gap)
    for y in range(h):
        for x in range(w):
            v = rows[y][x]
            canvas[oy + y][ox + x] = (255, 0, 255) if not math.isfinite(v) else inferno_ish((v - lo) / (hi - lo))
raw = b''.join(b'\x00' + bytes(c for p in row for c in p) for row in canvas)
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')
open(OUT, 'wb').write(png)
print(W, H, lo, hi)
