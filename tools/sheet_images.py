"""Reading images for the sheet scripts (tools/make_*_sheet.py): ImageMagick's `convert` writes
16-bit PPM, which numpy reads without a codec of its own."""
import subprocess

import numpy as np


def read(path):
    """An RGB image as float samples on 0 .. 65535 (8-bit files scaled by 257)."""
    data = subprocess.run(['convert', path, '-depth', '16', 'ppm:-'], check=True,
                          capture_output=True).stdout
    magic, size, top, body = data.split(b'\n', 3)
    w, h = map(int, size.split())
    return np.frombuffer(body, dtype='>u2').reshape(h, w, 3).astype(np.float64)
