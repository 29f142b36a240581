#!/usr/bin/env python3
"""Makes docs/screenshots/measurement-fill-lines.png and prints the numbers of the line
continuation in a measurement's fill (issue 31 item 2): tests/data/photos/building.jpg as a 16-bit
measurement whose samples all need more than 8 bits (1000 + 200 x level), three holes (discs of
radius 12) over straight edges the line stage joins: the building's left edge against the sky
(153,250), the roof's edge (250,80) and the ground floor's ledge (330,430); filled by `lacuna
inpaint --backend cpu` without and with --lines, RUNS times each.
Per fill: the wall time of the fill (--json fill_ms; median), the notes, and the PSNR in each hole
against the input on the 8-bit scale (level = (sample - 1000) / 200). Sheet (4x crops around the
holes, one row per hole): input, hole (magenta), without --lines, with --lines. Needs numpy and
ImageMagick's convert.
Usage: make_measurement_lines_sheet.py LACUNA OUT.png [RUNS]"""
import json, os, subprocess, sys, tempfile
import numpy as np

from sheet_images import read

lacuna, OUT = sys.argv[1], os.path.abspath(sys.argv[2])
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
BUILDING = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data',
                        'photos', 'building.jpg')
HOLES = [(153, 250, 12), (250, 80, 12), (330, 430, 12)]  # centre x, y, radius
tmp = tempfile.mkdtemp()


def write_ppm(path, rgb, top=255):
    h, w = rgb.shape[:2]
    body = rgb.astype('>u2' if top > 255 else np.uint8).tobytes()
    with open(path, 'wb') as f:
        f.write(b'P6\n%d %d\n%d\n' % (w, h, top) + body)


levels = np.rint(read(BUILDING) / 257)
h, w = levels.shape[:2]
samples = 1000 + 200 * levels
write_ppm(os.path.join(tmp, 'b16.ppm'), samples, 65535)
b16 = os.path.join(tmp, 'b16.png')
subprocess.run(['convert', os.path.join(tmp, 'b16.ppm'), '-depth', '16', 'PNG48:' + b16],
               check=True)
assert np.array_equal(read(b16), samples)
y, x = np.mgrid[0:h, 0:w]
discs = [(x - cx) ** 2 + (y - cy) ** 2 <= r * r for cx, cy, r in HOLES]
hole = np.any(discs, axis=0)
mask = os.path.join(tmp, 'mask.ppm')
write_ppm(mask, np.stack([hole * 255] * 3, axis=2))


def psnr(filled, where):
    d = (filled[where] - samples[where]) / 200
    return 10 * np.log10(255 ** 2 / np.mean(d * d))


fills = {}
for name, extra in (('plain', ['--no-lines']), ('lines', ['--lines'])):
    out = os.path.join(tmp, name + '.png')
    times = []
    for _ in range(RUNS):
        r = subprocess.run([lacuna, 'inpaint', b16, mask, out, '--backend', 'cpu', '--json'] +
                           extra, check=True, capture_output=True, text=True)
        times.append(json.loads(r.stdout)['fill_ms'])
    fills[name] = read(out)
    notes = [l for l in r.stderr.splitlines() if 'lines' in l or 'regions' in l or 'blobs' in l]
    print('%-6s fill_ms %s (median %.0f)  PSNR per hole %s' %
          (name, ' '.join('%.0f' % t for t in times), sorted(times)[len(times) // 2],
           ' '.join('%.2f' % psnr(fills[name], d) for d in discs)))
    for n in notes:
        print('       ' + n)
    assert np.array_equal(fills[name][~hole], samples[~hole])


def level(a):
    return np.clip(np.rint((a - 1000) / 200), 0, 255)


rows = []
cw, ch, zoom, gap = 80, 56, 4, 6
for cx, cy, r in HOLES:
    x0, y0 = cx - cw // 2, cy - ch // 2
    crop = np.s_[y0:y0 + ch, x0:x0 + cw]
    marked = levels.copy()
    marked[hole] = (255, 0, 255)
    cols = [levels[crop], marked[crop], level(fills['plain'])[crop], level(fills['lines'])[crop]]
    row = np.full((ch * zoom, len(cols) * cw * zoom + (len(cols) - 1) * gap, 3), 255.0)
    for i, c in enumerate(cols):
        ox = i * (cw * zoom + gap)
        row[:, ox:ox + cw * zoom] = np.repeat(np.repeat(c, zoom, axis=0), zoom, axis=1)
    rows += [row, np.full((gap, row.shape[1], 3), 255.0)]
sheet = np.concatenate(rows[:-1])
write_ppm(os.path.join(tmp, 'sheet.ppm'), sheet)
subprocess.run(['convert', os.path.join(tmp, 'sheet.ppm'), OUT], check=True)
print('wrote', OUT)
