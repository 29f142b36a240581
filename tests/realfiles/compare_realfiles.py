#!/usr/bin/python3
"""The real-file tier: every DICOM file of pydicom's test data and every FITS file of
astropy's test data goes through `lacuna info --json` and `lacuna convert FILE OUT.fits`, and the
values Lacuna writes (stored samples through the calibration, as astropy reads them back) are
compared with what pydicom or astropy read from the original file.

Each file ends in one of these:
  match    Lacuna reads it and every compared value agrees;
  noimage  the reference reader finds no image either, and Lacuna refuses it in one line;
  refused  the reference reads an image, Lacuna refuses it in one line, and the baseline
           (refused.txt) lists the file with the words of that line (files without an
           image are listed too, as "no image: <words>");
  known    a wrong result the baseline lists as "FAIL: <detail>" (to be fixed, and removed);
  FAIL     anything else: a wrong value, a refusal not in the baseline, a baseline entry for a
           file that now reads (remove it: the list only shrinks), library chatter on stderr.

Files pydicom decodes only through GDCM or pylibjpeg (not installed in Debian 12) are compared
with the same image stored uncompressed (TWINS); lossy files with no such twin are compared by
shape only, and the report says so.

Usage: compare_realfiles.py LACUNA BASELINE [--write-baseline]
Exit status: 0 all good, 1 failures, 77 when python3-pydicom, python3-astropy or numpy is missing.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    import pydicom
    from astropy.io import fits
    from pydicom.pixel_data_handlers.util import apply_modality_lut, convert_color_space
except ImportError as e:  # the tier needs Debian's python3-pydicom and python3-astropy
    print(f"SKIP: {e} (install python3-pydicom python3-astropy)")
    sys.exit(77)

warnings.simplefilter("ignore")

PYDICOM_DIR = os.path.join(os.path.dirname(pydicom.__file__), "data", "test_files")
ASTROPY_DIR = os.path.join(os.path.dirname(fits.__file__), "tests", "data")

# Compressed files pydicom here cannot decode, and the same image stored uncompressed.
TWINS = {
    "MR_small_jpeg_ls_lossless.dcm": "MR_small.dcm",
    "SC_rgb_jpeg_gdcm.dcm": "SC_rgb_rle.dcm",
}
# Lossy DICOM decoded by two different JPEG decoders (Pillow's libjpeg-turbo, GDCM's IJG copy):
# their inverse DCTs may differ by a grey level or two.
LOSSY_TOLERANCE = 2
# YBR_FULL → RGB is computed in floating point by both and rounded: ±1.
YBR_TOLERANCE = 1


def frame_count(ds):
    try:
        return int(ds.get("NumberOfFrames", 1) or 1)
    except (TypeError, ValueError):
        return None


class Reference:
    """What the reference reader found: pages in FITS order (bottom row first), shape (pages,
    channels, height, width), values calibrated; or why there is no image."""

    def __init__(self):
        self.pages = None  # np.ndarray (P, C, H, W) of calibrated values
        self.no_image = None  # str: why the reference has no image
        self.cannot_compare = None  # str: shape known, values not comparable
        self.shape = None  # (P, C, H, W)
        self.tolerance = 0.0
        self.note = ""


def dicom_reference(path):
    ref = Reference()
    try:
        ds = pydicom.dcmread(path, force=True)
    except Exception as e:
        ref.no_image = f"pydicom cannot parse it ({e})"
        return ref
    if "PixelData" not in ds:
        ref.no_image = "pydicom finds no pixel data"
        return ref
    if frame_count(ds) is None:
        ref.no_image = f"pydicom cannot read its Number of Frames ({ds.get('NumberOfFrames')})"
        return ref
    source = path
    try:
        arr = ds.pixel_array
    except Exception as e:
        twin = TWINS.get(os.path.basename(path))
        frames = frame_count(ds)
        rows, cols, spp = ds.get("Rows"), ds.get("Columns"), ds.get("SamplesPerPixel", 1)
        if twin:
            source = os.path.join(PYDICOM_DIR, twin)
            ref.note = f"compared with {twin} (pydicom here cannot decode this transfer syntax)"
            ds_twin = pydicom.dcmread(source, force=True)
            arr = ds_twin.pixel_array
            ds = ds_twin
        elif "only supported by" in str(e) or "handlers are available" in str(e):
            if rows and cols:
                ref.shape = (frames, spp, rows, cols)
                ref.cannot_compare = "pydicom here cannot decode it and it has no uncompressed twin"
                return ref
            ref.no_image = f"pydicom cannot decode it ({str(e)[:80]})"
            return ref
        else:
            ref.no_image = f"pydicom cannot decode it ({str(e)[:80]})"
            return ref
    frames = frame_count(ds)
    spp = int(ds.get("SamplesPerPixel", 1))
    if frames == 1:
        arr = arr[np.newaxis]
    if spp == 1:
        arr = arr[..., np.newaxis]
    photometric = str(ds.get("PhotometricInterpretation", ""))
    if photometric in ("YBR_FULL", "YBR_FULL_422"):
        arr = np.stack([convert_color_space(f, photometric, "RGB") for f in arr])
        ref.tolerance = max(ref.tolerance, YBR_TOLERANCE)
    values = arr.astype(np.float64)
    if spp == 1 and ("RescaleSlope" in ds or "RescaleIntercept" in ds):
        values = np.stack([apply_modality_lut(f[..., 0], ds) for f in arr])[..., np.newaxis]
        values = values.astype(np.float64)
    if "DoseGridScaling" in ds:  # RT Dose: dose = stored × Dose Grid Scaling (PS3.3 C.8.8.3)
        values = values * float(ds.DoseGridScaling)
        ref.tolerance = max(ref.tolerance, 0.0)
    # (P, H, W, C) → (P, C, H, W), bottom row first as FITS stores it.
    ref.pages = np.flip(np.transpose(values, (0, 3, 1, 2)), axis=2)
    ref.shape = ref.pages.shape
    ts = str(ds.file_meta.get("TransferSyntaxUID", "")) if hasattr(ds, "file_meta") else ""
    if ts in ("1.2.840.10008.1.2.4.50", "1.2.840.10008.1.2.4.51", "1.2.840.10008.1.2.4.91"):
        ref.tolerance = max(ref.tolerance, LOSSY_TOLERANCE)
    return ref


def fits_reference(path):
    ref = Reference()
    try:
        hdus = fits.open(path)
    except Exception as e:
        ref.no_image = f"astropy cannot open it ({e})"
        return ref
    for hdu in hdus:
        if isinstance(hdu, fits.GroupsHDU) or not hdu.is_image:
            continue
        try:
            data = hdu.data
        except Exception as e:
            ref.no_image = f"astropy cannot read its image ({e})"
            return ref
        if data is None or data.size == 0:
            continue
        shape = data.shape
        if data.ndim == 1:
            data = data[np.newaxis, np.newaxis, np.newaxis, :]
        elif data.ndim == 2:
            data = data[np.newaxis, np.newaxis]
        elif data.ndim == 3:
            data = data[:, np.newaxis]
        else:
            ref.shape = None
            ref.no_image = None
            ref.cannot_compare = f"a {data.ndim}-D image {shape}"
            ref.pages = None
            return ref
        ref.pages = data.astype(np.float64)
        ref.shape = ref.pages.shape
        return ref
    ref.no_image = "astropy finds no image HDU with pixels"
    return ref


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.splitlines()


def chatter(lines):
    """stderr lines that are not Lacuna's own."""
    return [line for line in lines if not line.startswith("lacuna: ")]


def check_file(lacuna, path, ref, tmp):
    """Returns (outcome, detail): outcome is match, refused, noimage or FAIL."""
    rc, out, err = run([lacuna, "info", "--json", path])
    if chatter(err):
        return "FAIL", f"library output on stderr: {chatter(err)[:3]}"
    if rc != 0:
        errors = [line for line in err if line.startswith("lacuna: error: ")]
        if len(errors) != 1:
            return "FAIL", f"refused without exactly one error line: {err}"
        reason = errors[0].split("': ", 1)[-1]
        return ("noimage" if ref.no_image else "refused"), reason
    if ref.no_image:
        return "FAIL", f"Lacuna reads an image where the reference does not ({ref.no_image})"
    info = json.loads(out)[0]
    pages, channels = info["pages"], info["channels"]
    got = (pages, channels, info["height"], info["width"])
    if ref.shape is not None and tuple(ref.shape) != got:
        return "FAIL", f"shape (pages, channels, height, width) {got}, reference {ref.shape}"
    if ref.cannot_compare:
        return "match", f"shape only: {ref.cannot_compare}"
    worst = 0.0
    for page in sorted({1, pages}):
        target = os.path.join(tmp, "out.fits")
        rc, out, err = run([lacuna, "convert", path, target, "--page", str(page),
                            "--overwrite"])
        if rc != 0 or chatter(err):
            return "FAIL", f"convert --page {page} failed: {err}"
        with fits.open(target) as written:
            data = written[0].data.astype(np.float64)
        if data.ndim == 2:
            data = data[np.newaxis]
        expected = ref.pages[page - 1]
        if data.shape != expected.shape:
            return "FAIL", f"page {page}: written shape {data.shape}, reference {expected.shape}"
        nan_mismatch = np.isnan(data) != np.isnan(expected)
        if nan_mismatch.any():
            return "FAIL", f"page {page}: {int(nan_mismatch.sum())} pixels NaN in one only"
        both = ~np.isnan(data)
        diff = np.abs(data[both] - expected[both])
        scale = np.maximum(np.abs(expected[both]), 1.0)
        # Float samples are written as 32-bit float: relative 1e-6; integers exact (or the
        # documented tolerance of lossy and YBR files).
        allowed = np.maximum(ref.tolerance, 2e-7 * scale * 4)
        if diff.size and (diff > allowed).any():
            i = int(np.argmax(diff - allowed))
            return "FAIL", (f"page {page}: {int((diff > allowed).sum())} values differ, worst "
                            f"{data[both][i]} vs reference {expected[both][i]}")
        if diff.size:
            worst = max(worst, float(diff.max()))
    detail = f"{got[0]}x{got[1]}x{got[2]}x{got[3]}, max |diff| {worst:g}"
    if ref.note:
        detail += f"; {ref.note}"
    return "match", detail


def read_baseline(path):
    entries = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, reason = line.split("\t", 1)
            entries[name] = reason
    return entries


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    lacuna, baseline_path = sys.argv[1], sys.argv[2]
    write = "--write-baseline" in sys.argv
    files = [("pydicom/" + os.path.basename(f), f, dicom_reference)
             for f in sorted(glob.glob(os.path.join(PYDICOM_DIR, "*.dcm")))]
    files += [("astropy/" + os.path.basename(f), f, fits_reference)
              for f in sorted(glob.glob(os.path.join(ASTROPY_DIR, "*.fits")))]
    baseline = read_baseline(baseline_path)
    failures, refused, counts = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, reader in files:
            ref = reader(path)
            outcome, detail = check_file(lacuna, path, ref, tmp)
            if outcome == "FAIL" and write:
                refused[name], outcome = "FAIL: " + detail, "known"
            if outcome in ("refused", "noimage"):
                # Refusals of files without an image are listed too, marked, so the list
                # shows every refusal's words.
                listed = detail if outcome == "refused" else "no image: " + detail
                refused[name] = listed
                if not write and name not in baseline:
                    outcome, detail = "FAIL", f"refused, not in the baseline: {detail}"
                elif not write and baseline[name] != listed:
                    outcome, detail = "FAIL", (f"refused with another reason: {listed} "
                                               f"(baseline: {baseline[name]})")
            elif outcome == "FAIL" and baseline.get(name, "").startswith("FAIL: "):
                # A known wrong result, listed so it is fixed, not forgotten: the tier fails
                # again when the detail changes or the file stops failing.
                if write or baseline[name][len("FAIL: "):] in detail:
                    refused[name] = "FAIL: " + detail
                    outcome = "known"
            elif name in baseline and not write:
                outcome, detail = "FAIL", (f"in the baseline but now {outcome} ({detail}): "
                                           "remove it from the baseline")
            counts[outcome] = counts.get(outcome, 0) + 1
            print(f"{outcome:8} {name}: {detail}")
            if outcome == "FAIL":
                failures.append(name)
    if write:
        with open(baseline_path, "w", encoding="utf-8") as f:
            f.write("# Every real file Lacuna refuses, with its one-line reason: files the reference\n"
                    "# reader (pydicom, astropy) reads too (a gap to close), files it finds no\n"
                    "# image in either (\"no image:\"), and files Lacuna gets wrong (\"FAIL:\").\n"
                    "# compare_realfiles.py fails when a file here reads, or is refused with\n"
                    "# other words, or a file not here is refused: the list only shrinks.\n"
                    "# Regenerate with --write-baseline after a fix, and read the diff.\n")
            for name in sorted(refused):
                f.write(f"{name}\t{refused[name]}\n")
    print(f"{len(files)} files: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
