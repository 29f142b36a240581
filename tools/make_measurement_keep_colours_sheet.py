#!/usr/bin/env python3
"""Makes docs/screenshots/measurement-fill-keep-colours.png and prints the numbers of the
measurement fill's keep-colours stage (issue 31 item 2): tests/data/photos/home.jpg as a 16-bit
measurement (ImageMagick: -depth 16 PNG48, every sample 257 x its level), the sky hole of
test_inpaint_keep_colours (ellipse at 90,330, radii 28 x 22), filled by `lacuna inpaint --backend
cpu` with --no-keep-colours and --keep-colours. Per fill: the share of hole pixels whose proxy
colour (the 8-bit proxy over the input's range, 5 bits a channel) occurs nowhere among the known
pixels within 16 px (chessboard) of the hole, the same share for the input itself (the truth)
and the low-pass (sigma 3) PSNR in the hole against the input on the 8-bit scale. Sheet
(3x crop around the hole): input, fill without, its foreign pixels in red, fill with, its
foreign pixels. Needs numpy and ImageMagick's convert.
Usage: make_measurement_keep_colours_sheet.py LACUNA OUT.png"""
import os, subprocess, sys, tempfile
import numpy as np

from sheet_images import read

lacuna, OUT = sys.argv[1], os.path.abspath(sys.argv[2])
HOME = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data', 'photos',
                    'home.jpg')
tmp = tempfile.mkdtemp()


def run(*args):
    subprocess.run(args, check=True, capture_output=True)


def write_ppm(path, rgb):
    h, w = rgb.shape[:2]
    with open(path, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (w, h) + rgb.astype(np.uint8).tobytes())


home16 = os.path.join(tmp, 'home16.png')
run('convert', HOME, '-depth', '16', 'PNG48:' + home16)
inp = read(home16)
h, w = inp.shape[:2]
y, x = np.mgrid[0:h, 0:w]
hole = ((x - 90) / 28.5) ** 2 + ((y - 330) / 22.5) ** 2 <= 1.0
mask = os.path.join(tmp, 'mask.ppm')
write_ppm(mask, np.stack([hole * 255] * 3, axis=2))
lo, hi = inp.min(), inp.max()


def proxy(a):
    return np.rint(np.clip((a - lo) / (hi - lo), 0, 1) * 255).astype(np.int64)


def bins(p):
    return ((p[..., 0] >> 3) << 10) | ((p[..., 1] >> 3) << 5) | (p[..., 2] >> 3)


near = np.lib.stride_tricks.sliding_window_view(np.pad(hole, 16), (33, 33)).any(axis=(2, 3))
seen = np.zeros(1 << 15, bool)
seen[bins(proxy(inp))[near & ~hole]] = True


def blur(a, s=3.0):
    r = int(3 * s)
    k = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * s * s))
    k /= k.sum()
    a = np.pad(a, ((r, r), (r, r), (0, 0)), mode='edge')
    a = np.apply_along_axis(lambda v: np.convolve(v, k, 'valid'), 0, a)
    return np.apply_along_axis(lambda v: np.convolve(v, k, 'valid'), 1, a)


truth = np.mean(~seen[bins(proxy(inp))[hole]])
print(f'truth: foreign share {truth:.4f} (limit 1.2 x + 0.01 = {1.2 * truth + 0.01:.4f})')


def crop(path):
    """The 3x crop around the hole, 8 bits."""
    run('convert', path, '-crop', '110x80+35+290', '+repage', '-depth', '8', '-filter', 'point',
        '-resize', '300%', path + '.crop.png')
    return path + '.crop.png'


panels = [crop(home16)]
low_in = blur(inp / 257.0)
for flag in ('--no-keep-colours', '--keep-colours'):
    out = os.path.join(tmp, flag[2:] + '.png')
    run(lacuna, 'inpaint', home16, mask, out, '--backend', 'cpu', flag)
    filled = read(out)
    foreign = hole & ~seen[bins(proxy(filled))]
    mse = np.mean((blur(filled / 257.0) - low_in)[hole] ** 2)
    print(f'{flag}: foreign share {foreign.sum() / hole.sum():.4f} ({foreign.sum()} of '
          f'{hole.sum()} px), low-pass PSNR {10 * np.log10(255 ** 2 / mse):.2f} dB, largest '
          f'change outside the hole {np.abs(filled - inp)[~hole].max():.0f}')
    grey = (filled / 257.0).mean(axis=2) * 0.5
    shown = np.stack([grey] * 3, axis=2)
    shown[hole] = shown[hole] * 0.5 + 60
    shown[foreign] = (255, 0, 0)
    fmap = os.path.join(tmp, flag[2:] + '-map.ppm')
    write_ppm(fmap, shown)
    panels += [crop(out), crop(fmap)]
run('convert', *panels, '+append', '+repage', '-resize', '80%', '-depth', '8', OUT)
print('wrote', OUT)
