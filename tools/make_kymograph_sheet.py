#!/usr/bin/env python3
"""Writes docs/screenshots/kymograph.png: a generated stack of moving particles (a FITS cube in
kelvin), its kymograph along a line made by `lacuna kymograph`, and the two side by side.

Usage: tools/make_kymograph_sheet.py BUILD_DIR   (needs numpy, astropy and PIL: python3-numpy,
python3-astropy, python3-pil; the built `lacuna` in BUILD_DIR/app/cli and `import lacuna` in
BUILD_DIR/python)."""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from astropy.io import fits
from PIL import Image, ImageDraw

build = Path(sys.argv[1]).resolve()
sys.path.insert(0, str(build / "python"))
import lacuna  # noqa: E402

W, H, T = 256, 96, 64
rng = np.random.default_rng(5)
yy, xx = np.mgrid[0:H, 0:W]
cube = np.empty((T, H, W), np.float32)
for t in range(T):
    frame = 290.0 + rng.normal(0, 0.6, (H, W))
    # three particles on the line y = 48: 3 px a frame rightwards, 1.5 px leftwards, one still
    # that blinks every 16 frames
    for x0, v, amp in ((10, 3.0, 12.0), (240, -1.5, 8.0), (128, 0.0, 10.0 if (t // 8) % 2 else 0)):
        frame += amp * np.exp(-((xx - (x0 + v * t)) ** 2 + (yy - 48) ** 2) / (2 * 2.0 ** 2))
    cube[t] = frame
out = Path(__file__).resolve().parent.parent / "docs/screenshots/kymograph.png"
with tempfile.TemporaryDirectory() as tmp:
    hdu = fits.PrimaryHDU(cube[:, ::-1, :])
    hdu.header["BUNIT"] = "K"
    hdu.writeto(f"{tmp}/particles.fits")
    subprocess.run([str(build / "app/cli/lacuna"), "kymograph", f"{tmp}/particles.fits", "--line",
                    "0,48,255,48", "--band", "5", f"{tmp}/k.tif"], check=True)
    k = lacuna.read(f"{tmp}/k.tif")["values"][0]
    # The module gives the same numbers as the CLI.
    assert np.array_equal(k, lacuna.kymograph(lacuna.read(f"{tmp}/particles.fits")["values"],
                                              [(0, 48), (255, 48)], band=5))


def grey(a, lo, hi):
    return Image.fromarray((np.clip((a - lo) / (hi - lo), 0, 1) * 255).astype(np.uint8)).convert("RGB")


lo, hi = 288.0, 302.0
frame = grey(cube[20], lo, hi).resize((W * 2, H * 2), Image.NEAREST)
ImageDraw.Draw(frame).line([(1, 97), (2 * 255 + 1, 97)], fill=(255, 220, 0), width=1)
kymo = grey(k, lo, hi).resize((k.shape[1] * 2, T * 2), Image.NEAREST)
sheet = Image.new("RGB", (W * 2, H * 2 + T * 2 + 30), (40, 40, 40))
sheet.paste(frame, (0, 0))
sheet.paste(kymo, (0, H * 2 + 30))
d = ImageDraw.Draw(sheet)
d.text((6, H * 2 + 8), "kymograph along the yellow line, band 5: position ->, time (64 frames) down",
       fill=(230, 230, 230))
sheet.save(out)
print(out)
