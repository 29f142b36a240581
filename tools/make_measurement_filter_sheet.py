#!/usr/bin/env python3
"""Makes docs/screenshots/measurement-filter.png: a 16-bit phantom (a disc and bars 400 counts
above a 30000-count background, noise sigma 120 counts; all of it within 4 levels of an 8-bit
copy) filtered by `lacuna filter bilateral` on its stored samples (sigma-range 300 counts), beside
the same image narrowed to 8 bits first and filtered as a photo (sigma-range 300/257 levels).
Left to right: input, 16-bit result, 8-bit result; each shown over the input's 1st-99th
percentile. Standard library only. Usage: make_measurement_filter_sheet.py LACUNA OUT.png"""
import os, random, struct, subprocess, sys, tempfile, zlib

lacuna, OUT = sys.argv[1], os.path.abspath(sys.argv[2])
W, H = 160, 120
rng = random.Random(7)
def truth(x, y):
    v = 30000
    if (x - 50) ** 2 + (y - 60) ** 2 < 30 ** 2: v += 400
    if 100 <= x < 140 and (y // 12) % 2 == 0: v += 400
    return v
samples = [[max(0, min(65535, round(truth(x, y) + rng.gauss(0, 120)))) for x in range(W)]
           for y in range(H)]
tmp = tempfile.mkdtemp()
def write_pgm(path, rows, maxval):
    with open(path, 'wb') as f:
        f.write(b'P5\n%d %d\n%d\n' % (W, H, maxval))
        for r in rows:
            f.write(b''.join(struct.pack('>H', v) for v in r) if maxval > 255 else bytes(r))
def read_pgm(path):
    b = open(path, 'rb').read()
    parts = b.split(b'\n', 3)
    w, h = map(int, parts[1].split()); maxval = int(parts[2]); data = parts[3]
    if maxval > 255:
        vals = struct.unpack('>' + 'H' * (w * h), data[:2 * w * h])
    else:
        vals = data[:w * h]
    return [list(vals[y * w:(y + 1) * w]) for y in range(h)]
write_pgm(os.path.join(tmp, 'in16.pgm'), samples, 65535)
write_pgm(os.path.join(tmp, 'in8.pgm'), [[round(v / 257) for v in r] for r in samples], 255)
run = lambda *a: subprocess.run([lacuna, *a], check=True, capture_output=True)
run('filter', 'bilateral', os.path.join(tmp, 'in16.pgm'), os.path.join(tmp, 'out16.pgm'),
    '--sigma-range', '300', '--sigma-space', '3')
run('filter', 'bilateral', os.path.join(tmp, 'in8.pgm'), os.path.join(tmp, 'out8.png'),
    '--sigma-range', str(300 / 257), '--sigma-space', '3', '--backend', 'cpu')
run('convert', os.path.join(tmp, 'out8.png'), os.path.join(tmp, 'out8.pgm'))
out16 = read_pgm(os.path.join(tmp, 'out16.pgm'))
out8 = [[257 * v for v in r] for r in read_pgm(os.path.join(tmp, 'out8.pgm'))]
flat = sorted(v for r in samples for v in r)
lo, hi = flat[len(flat) // 100], flat[len(flat) * 99 // 100]
gap = 6
CW = 3 * W + 2 * gap
canvas = [[255] * CW for _ in range(H)]
for i, img in enumerate([samples, out16, out8]):
    for y in range(H):
        for x in range(W):
            t = (img[y][x] - lo) / (hi - lo)
            canvas[y][i * (W + gap) + x] = max(0, min(255, round(255 * t)))
raw = b''.join(b'\x00' + bytes(r) for r in canvas)
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', CW, H, 8, 0, 0, 0, 0)) +
       chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
open(OUT, 'wb').write(png)
# How close each result is to the truth (mean |error| in counts, inside the image).
def error(img):
    return sum(abs(img[y][x] - truth(x, y)) for y in range(H) for x in range(W)) / (W * H)
print('mean |error| vs truth (counts): input %.1f, 16-bit filter %.1f, 8-bit filter %.1f'
      % (error(samples), error(out16), error(out8)))
