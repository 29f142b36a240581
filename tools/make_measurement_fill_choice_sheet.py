#!/usr/bin/env python3
"""Makes docs/screenshots/measurement-fill-choice.png: the circuit board of the inpainting bench
(opencv-doc's board.jpg) as a 16-bit measurement whose samples all need more than 8 bits
(1000 + 200 x level), a hole over the chip's corner (the bench's blob, grown 4 px), filled by
`lacuna inpaint` on the stored samples without (`--no-choose`) and with the per-region choice.
Columns, cropped around the hole and shown over the samples' range: the truth (the board
itself), the hole, PatchMatch alone, with the choice (Criminisi's sources' samples in the hole).
Standard library only. Usage: make_measurement_fill_choice_sheet.py LACUNA OUT.png"""
import math, os, struct, subprocess, sys, tempfile, zlib

BOARD = '/usr/share/doc/opencv-doc/examples/data/board.jpg'
lacuna, OUT = sys.argv[1], os.path.abspath(sys.argv[2])
if not os.path.exists(BOARD):
    sys.exit('make_measurement_fill_choice_sheet: ' + BOARD + ' is missing (install opencv-doc)')
tmp = tempfile.mkdtemp()


def png(path, w, h, depth, channels, rows):
    """Writes rows of samples (lists of ints, channels interleaved) as a PNG, filter 0."""
    fmt = '>' + ('H' if depth == 16 else 'B') * (w * channels)
    raw = b''.join(b'\0' + struct.pack(fmt, *r) for r in rows)
    kind = {1: 0, 3: 2}[channels]
    def chunk(tag, data):
        return (struct.pack('>I', len(data)) + tag + data +
                struct.pack('>I', zlib.crc32(tag + data) & 0xffffffff))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, kind, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def read_png(path):
    """Reads a non-interlaced grey or RGB PNG of 8 or 16 bits: (w, h, channels, rows)."""
    data = open(path, 'rb').read()
    pos, idat = 8, b''
    while pos < len(data):
        n, tag = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if tag == b'IHDR':
            w, h, depth, kind = struct.unpack('>IIBB', body[:10])
        elif tag == b'IDAT':
            idat += body
        pos += 12 + n
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[kind]
    bpp = channels * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    prev, rows = bytearray(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        fmt = '>' + ('H' if depth == 16 else 'B') * (w * channels)
        rows.append(struct.unpack(fmt, bytes(line)))
    return w, h, channels, rows


# The board as 8-bit RGB (lacuna reads the JPEG), then as the 16-bit measurement.
subprocess.run([lacuna, 'convert', BOARD, os.path.join(tmp, 'board.png')], check=True)
w, h, ch, board = read_png(os.path.join(tmp, 'board.png'))
if ch == 4:  # alpha dropped
    board = [[v for i, v in enumerate(r) if i % 4 != 3] for r in board]
assert ch in (3, 4)
png(os.path.join(tmp, 'board16.png'), w, h, 16, 3, [[1000 + 200 * v for v in r] for r in board])

# The bench's blob (app/cli/inpaint_object_cases.cpp; as test_inpaint_choice rasterises it),
# grown 4 px by --grow as the bench grows its holes.
cx, cy, rx, ry = 450, 350, 38, 34
outline = []
for i in range(72):
    a = 2 * math.pi * i / 72
    k = 1 + 0.18 * math.sin(3 * a + cx * 0.1) + 0.08 * math.sin(5 * a)
    outline.append((round(cx + k * rx * math.cos(a)), round(cy + k * ry * math.sin(a))))
def inside(x, y):
    c = False
    for i in range(len(outline)):
        (xi, yi), (xj, yj) = outline[i], outline[i - 1]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            c = not c
    return c
mask = [[255 if inside(x, y) else 0 for x in range(w)] for y in range(h)]
png(os.path.join(tmp, 'mask.png'), w, h, 8, 1, mask)

fills = {}
for name, extra in (('plain', ['--no-choose']), ('chosen', [])):
    out = os.path.join(tmp, name + '.png')
    subprocess.run([lacuna, 'inpaint', os.path.join(tmp, 'board16.png'), os.path.join(tmp, 'mask.png'),
                    out, '--grow', '4', '--backend', 'cpu'] + extra, check=True)
    fw, fh, fch, rows = read_png(out)
    assert (fw, fh, fch) == (w, h, 3)
    fills[name] = rows

# Crop around the hole, 2x, four columns; the hole's column shows it in magenta.
x0, y0, cw, chh, zoom, gap = 370, 280, 160, 140, 2, 6
def level(v):
    return max(0, min(255, round((v - 1000) / 200)))
def grown(x, y):
    return any(0 <= y + dy < h and 0 <= x + dx < w and mask[y + dy][x + dx]
               for dy in range(-4, 5) for dx in range(-4, 5) if dx * dx + dy * dy <= 16)
hole = [[grown(x0 + x, y0 + y) for x in range(cw)] for y in range(chh)]
cols = [
    lambda x, y: tuple(board[y][3 * x:3 * x + 3]),
    lambda x, y: (255, 0, 255) if hole[y - y0][x - x0] else tuple(board[y][3 * x:3 * x + 3]),
    lambda x, y: tuple(level(v) for v in fills['plain'][y][3 * x:3 * x + 3]),
    lambda x, y: tuple(level(v) for v in fills['chosen'][y][3 * x:3 * x + 3]),
]
W, H = len(cols) * cw * zoom + (len(cols) - 1) * gap, chh * zoom
sheet = [[255] * (3 * W) for _ in range(H)]
for i, col in enumerate(cols):
    ox = i * (cw * zoom + gap)
    for y in range(chh):
        for x in range(cw):
            p = col(x0 + x, y0 + y)
            for zy in range(zoom):
                r = sheet[y * zoom + zy]
                for zx in range(zoom):
                    o = 3 * (ox + x * zoom + zx)
                    r[o:o + 3] = p
png(OUT, W, H, 8, 3, sheet)
print('wrote', OUT)
