"""`import lacuna` against the `lacuna` command line on the same inputs: the module and the CLI
call the same engine functions, so every number must be equal (exact, not toleranced).

Run by CTest (tests/python/CMakeLists.txt) with PYTHONPATH at the built module and LACUNA_CLI at
the built `lacuna`."""
import csv
import io
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import lacuna

CLI = os.environ["LACUNA_CLI"]
SOURCE = Path(os.environ["LACUNA_SOURCE_DIR"])
FITS = SOURCE / "resources/sample/temperature.fits"
PHOTO = SOURCE / "tests/data/fruits-crop.ppm"


def run_cli(*args):
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done


def csv_rows(path):
    lines = [l for l in Path(path).read_text().splitlines() if not l.startswith("#")]
    return list(csv.reader(io.StringIO("\n".join(lines))))


def write_pgm(path, mask):
    h, w = mask.shape
    Path(path).write_bytes(b"P5\n%d %d\n255\n" % (w, h) + (mask.astype(np.uint8) * 255).tobytes())


def test_read_gives_calibrated_values_like_info():
    image = lacuna.read(FITS)
    info = json.loads(run_cli("info", FITS, "--json").stdout)[0]
    values = image["values"]
    assert values.dtype == np.float32 and values.ndim == 3
    assert values.shape == (info["pages"], info["height"], info["width"])
    assert image["unit"] == info["unit"] == "K"
    assert image["slope"] == info["calibration_slope"]
    assert image["intercept"] == info["calibration_intercept"]
    # info prints six significant digits.
    assert float(np.nanmin(values)) == pytest.approx(info["value_min"], rel=1e-5)
    assert float(np.nanmax(values)) == pytest.approx(info["value_max"], rel=1e-5)
    # The calibration applied to the stored samples gives the values.
    expected = image["samples"].astype(np.float64) * image["slope"] + image["intercept"]
    assert np.array_equal(values, expected.astype(np.float32), equal_nan=True)


def test_read_applies_bscale_bzero_like_astropy(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    rng = np.random.default_rng(3)
    physical = np.round(rng.uniform(-200, 900, (7, 11)) * 2) / 2  # multiples of the scale
    hdu = fits.PrimaryHDU(physical.copy())
    hdu.scale("int16", bscale=0.5, bzero=100)
    hdu.header["BUNIT"] = "HU"
    hdu.writeto(tmp_path / "scaled.fits")
    image = lacuna.read(tmp_path / "scaled.fits")
    assert image["samples"].dtype == np.int16
    assert (image["slope"], image["intercept"], image["unit"]) == (0.5, 100.0, "HU")
    with fits.open(tmp_path / "scaled.fits") as peer:
        assert np.array_equal(image["values"][0], peer[0].data[::-1].astype(np.float32))
    assert np.array_equal(image["values"][0], physical[::-1].astype(np.float32))


def test_read_refuses_missing_files():
    with pytest.raises(FileNotFoundError):
        lacuna.read(SOURCE / "no-such-file.tif")


def test_line_histogram_equals_the_cli(tmp_path):
    values = lacuna.read(FITS)["values"][0]
    h = lacuna.line_histogram(values, (12.5, 20), (230, 170.25), band=7, bins=40)
    run_cli("histogram", FITS, "--from", "12.5,20", "--to", "230,170.25", "--width", 7, "--bins", 40,
            "--csv", tmp_path / "m.csv", "--profile-csv", tmp_path / "p.csv")
    counts = h["channels"]["value"]["counts"]
    rows = csv_rows(tmp_path / "m.csv")
    cli_counts = np.array([[int(v) for v in row[4:]] for row in rows[1:]]).T  # positions x bins
    assert counts.shape == cli_counts.shape
    assert np.array_equal(counts, cli_counts)
    profile = csv_rows(tmp_path / "p.csv")[1:]
    assert len(profile) == counts.shape[0]
    for i, row in enumerate(profile):
        assert float(row[1]) == pytest.approx(h["x"][i], rel=1e-8)  # 9 digits in the CSV
        assert np.float32(row[5]) == h["channels"]["value"]["mean"][i]
        assert np.float32(row[6]) == h["channels"]["value"]["median"][i]


def test_direction_histogram_equals_the_cli(tmp_path):
    values = lacuna.read(FITS)["values"][0]
    h = lacuna.direction_histogram(values, 30, bins=16)
    run_cli("histogram", FITS, "--direction", 30, "--bins", 16, "--csv", tmp_path / "d.csv")
    rows = csv_rows(tmp_path / "d.csv")
    cli_counts = np.array([[int(v) for v in row[4:]] for row in rows[1:]]).T
    assert np.array_equal(h["channels"]["value"], cli_counts)


def test_photo_histogram_channels():
    photo = lacuna.read(PHOTO)["samples"][0]  # rows x columns x 3, uint8
    h = lacuna.line_histogram(photo, (0, 5), (40, 30), channel="rgb", bins=8)
    assert sorted(h["channels"].keys()) == ["b", "g", "r"]
    with pytest.raises(ValueError, match="zero length"):
        lacuna.line_histogram(photo, (3, 3), (3, 3))


def moving_dot_cube(frames=12, height=9, width=48):
    cube = np.full((frames, height, width), 1.5, np.float32)
    for t in range(frames):
        cube[t, 4, 2 + 3 * t] = 9.0
    return cube


def test_kymograph_slope_three_and_equal_to_the_cli(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    cube = moving_dot_cube()
    hdu = fits.PrimaryHDU(cube[:, ::-1, :])  # FITS rows run bottom-up
    hdu.header["BUNIT"] = "K"
    hdu.writeto(tmp_path / "cube.fits")
    image = lacuna.read(tmp_path / "cube.fits")
    assert np.array_equal(image["values"], cube)
    k = lacuna.kymograph(image["values"], [(0, 4), (47, 4)])
    assert k.shape == (12, 48)
    peaks = k.argmax(axis=1)
    assert np.array_equal(peaks, 2 + 3 * np.arange(12))
    assert np.polyfit(np.arange(12), peaks, 1)[0] == pytest.approx(3.0, abs=1e-12)
    # A polyline with a band, through the CLI: the float TIFF holds the same numbers.
    path = [(0, 3), (20, 3), (20.5, 8.5), (40, 2.25)]
    k = lacuna.kymograph(image["values"], path, band=3)
    run_cli("kymograph", tmp_path / "cube.fits", "--polyline", "0,3,20,3,20.5,8.5,40,2.25",
            "--band", 3, tmp_path / "k.tif", "--csv", tmp_path / "k.csv")
    cli = lacuna.read(tmp_path / "k.tif")["samples"][0]
    assert cli.dtype == np.float32
    assert np.array_equal(k, cli, equal_nan=True)
    positions = lacuna.path_positions(path)
    assert positions.shape == (k.shape[1], 3)
    rows = csv_rows(tmp_path / "k.csv")
    assert len(rows[0]) == 1 + k.shape[1]
    assert np.array_equal(np.array([[np.float32(v) for v in r[1:]] for r in rows[1:]]), k,
                          equal_nan=True)


def comment_numbers(path, prefix):
    line = next(l for l in Path(path).read_text().splitlines() if l.startswith(prefix))
    return np.array([float(v) for v in line.split(": ", 1)[1].split(",")])


def test_read_gives_spacing_and_frame_interval_and_kymograph_uses_them(tmp_path):
    fits = pytest.importorskip("astropy.io.fits")
    cube = moving_dot_cube()
    hdu = fits.PrimaryHDU(cube[:, ::-1, :])
    hdu.header["CDELT1"], hdu.header["CUNIT1"] = 0.5, "mm"
    hdu.header["CDELT2"], hdu.header["CUNIT2"] = 0.25, "mm"
    hdu.header["CDELT3"], hdu.header["CUNIT3"], hdu.header["CTYPE3"] = 40.0, "ms", "TIME"
    hdu.writeto(tmp_path / "timed.fits")
    image = lacuna.read(tmp_path / "timed.fits")
    assert image["spacing"] == (0.5, 0.25, "mm")
    assert image["frame_interval"] == 0.04
    assert "CDELT3" in image["frame_interval_source"]
    path = [(0, 4), (20, 4), (30, 8)]
    plain = lacuna.kymograph(image["values"], path, band=3)
    k = lacuna.kymograph(image["values"], path, band=3, spacing=image["spacing"],
                         frame_interval=image["frame_interval"])
    assert np.array_equal(k["values"], plain, equal_nan=True)
    assert k["distance_unit"] == "mm" and k["time_unit"] == "s"
    # 20 px across at 0.5 mm, then (10, 4) px at (0.5, 0.25) mm.
    assert k["distance"][20] == 10.0
    assert k["distance"][-1] == pytest.approx(10.0 + np.hypot(5.0, 1.0), rel=1e-15)
    # The CLI's CSV on the same file: the same distances in mm and times in s (9 significant
    # digits there).
    run_cli("kymograph", tmp_path / "timed.fits", "--polyline", "0,4,20,4,30,8", "--band", 3,
            "--csv", tmp_path / "k.csv")
    assert np.allclose(comment_numbers(tmp_path / "k.csv", "# distance (mm"), k["distance"],
                       rtol=1e-8, atol=0)
    rows = csv_rows(tmp_path / "k.csv")
    assert rows[0][:2] == ["frame", "time_s"]
    assert np.allclose(np.array([float(r[1]) for r in rows[1:]]), k["time"], rtol=1e-8, atol=0)
    assert np.array_equal(k["time"], np.arange(12) * 0.04)
    # Without them: pixels and frame numbers (axes=True asks for the dict whatever the file
    # states).
    k = lacuna.kymograph(image["values"], path, frame_interval=None, spacing=None)
    assert isinstance(k, np.ndarray)
    k = lacuna.kymograph(image["values"], path, spacing=None, axes=True)
    assert k["distance_unit"] == "px" and k["time_unit"] == "frame"
    assert np.array_equal(k["time"], np.arange(12))
    k = lacuna.kymograph(image["values"], path, frame_interval=0.5)
    assert k["distance_unit"] == "px" and k["time"][3] == 1.5
    assert np.array_equal(k["distance"], lacuna.path_positions(path)[:, 2])
    # A photo states neither.
    photo = lacuna.read(PHOTO)
    assert photo["spacing"] is None and photo["frame_interval"] is None


def test_kymograph_refuses_bad_input():
    cube = moving_dot_cube()
    with pytest.raises(ValueError, match="at least two points"):
        lacuna.kymograph(cube, [(1, 1)])
    with pytest.raises(ValueError, match="band width"):
        lacuna.kymograph(cube, [(1, 1), (5, 1)], band=0)
    with pytest.raises(ValueError, match="3-D"):
        lacuna.kymograph(cube[0], [(1, 1), (5, 1)])
    with pytest.raises(ValueError, match="spacing"):
        lacuna.kymograph(cube, [(1, 1), (5, 1)], spacing=(0.0, 1.0, "mm"))
    with pytest.raises(ValueError, match="spacing"):
        lacuna.kymograph(cube, [(1, 1), (5, 1)], spacing=(1.0, "mm"))
    with pytest.raises(ValueError, match="frame_interval"):
        lacuna.kymograph(cube, [(1, 1), (5, 1)], frame_interval=-1.0)


def test_retarget_equals_the_cli(tmp_path):
    photo = lacuna.read(PHOTO)["samples"][0]
    h, w, _ = photo.shape
    out = lacuna.retarget(photo, width=w - 17, height=h - 9)
    assert out.shape == (h - 9, w - 17, 3) and out.dtype == np.uint8
    run_cli("retarget", PHOTO, tmp_path / "r.png", "--width", w - 17, "--height", h - 9,
            "--backend", "cpu")
    assert np.array_equal(out, lacuna.read(tmp_path / "r.png")["samples"][0][..., :3])


def test_inpaint_equals_the_cli(tmp_path):
    photo = lacuna.read(PHOTO)["samples"][0]
    h, w, _ = photo.shape
    mask = np.zeros((h, w), bool)
    mask[25:75, 45:105] = True  # large enough that PatchMatch's seed changes the fill
    write_pgm(tmp_path / "mask.pgm", mask)
    for method in ("patchmatch", "criminisi"):
        out = lacuna.inpaint(photo, mask, method=method)
        assert out.shape == photo.shape
        assert np.array_equal(out[~mask], photo[~mask])  # only the hole changes
        run_cli("inpaint", PHOTO, tmp_path / "mask.pgm", tmp_path / "i.png", "--method", method,
                "--backend", "cpu")
        assert np.array_equal(out, lacuna.read(tmp_path / "i.png")["samples"][0][..., :3]), method
    # The seed is passed through: another seed, another fill (as the CLI's --seed).
    assert not np.array_equal(lacuna.inpaint(photo, mask, seed=2), lacuna.inpaint(photo, mask))
    with pytest.raises(ValueError, match="mask"):
        lacuna.inpaint(photo, mask[:-1], method="patchmatch")


# ---- DLPack on the CPU: arrays from any producer, read where they are ----

class Producer:
    """An array known only through the DLPack protocol (numpy's own `__dlpack__` underneath):
    what a foreign CPU array (a CPU PyTorch tensor, a JAX array) looks like to lacuna."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        assert stream is None  # CPU producers are asked without a stream
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def assert_same_line_histograms(a, b):
    assert a["range"] == b["range"]
    for name, channel in a["channels"].items():
        for key in ("counts", "mean", "median", "min", "max", "samples"):
            assert np.array_equal(channel[key], b["channels"][name][key], equal_nan=True), key


def test_dlpack_inputs_equal_numpy_inputs():
    values = lacuna.read(FITS)["values"][0]
    line = ((12.5, 20), (230, 170.25))
    expected = lacuna.line_histogram(values, *line, band=7, bins=40)
    assert_same_line_histograms(lacuna.line_histogram(Producer(values), *line, band=7, bins=40),
                                expected)
    # A bare capsule too (the older `from_dlpack` style), taken once.
    capsule = values.__dlpack__()
    assert_same_line_histograms(lacuna.line_histogram(capsule, *line, band=7, bins=40), expected)
    with pytest.raises(ValueError, match="already consumed"):
        lacuna.line_histogram(capsule, *line)
    assert np.array_equal(lacuna.direction_histogram(Producer(values), 30)["channels"]["value"],
                          lacuna.direction_histogram(values, 30)["channels"]["value"])
    cube = moving_dot_cube()
    path = [(0, 3), (20, 3), (20.5, 8.5), (40, 2.25)]
    k = lacuna.kymograph(Producer(cube), path, band=3)
    assert isinstance(k, np.ndarray)  # CPU in, numpy out
    assert np.array_equal(k, lacuna.kymograph(cube, path, band=3), equal_nan=True)
    # Integer samples are converted as numpy's are.
    counts = (np.nan_to_num(values) * 10).astype(np.int64)
    assert_same_line_histograms(lacuna.line_histogram(Producer(counts), *line),
                                lacuna.line_histogram(counts, *line))
    photo = lacuna.read(PHOTO)["samples"][0]
    h, w, _ = photo.shape
    assert np.array_equal(lacuna.retarget(Producer(photo), width=w - 5),
                          lacuna.retarget(photo, width=w - 5))


def test_dlpack_views_honour_their_strides():
    values = lacuna.read(FITS)["values"][0]
    line = ((3, 4), (40, 30))
    # A crop (rows of a larger image: read in place) and every other column (copied).
    for view in (values[5:60, 7:90], values[:, ::2], values[::-1, :]):
        expected = lacuna.line_histogram(np.ascontiguousarray(view), *line, band=3)
        assert_same_line_histograms(lacuna.line_histogram(view, *line, band=3), expected)
        if view.strides[0] > 0:  # numpy 1.24 exports no negative strides through DLPack
            assert_same_line_histograms(lacuna.line_histogram(Producer(view), *line, band=3),
                                        expected)
    cube = np.random.default_rng(5).uniform(0, 9, (6, 12, 50)).astype(np.float32)
    path = [(0, 3), (20, 3), (30.5, 8.5)]
    for view in (cube[:, 1:, 4:], cube[::2, :, ::2], cube[:, 2:9, :]):
        expected = lacuna.kymograph(np.ascontiguousarray(view), path, band=3)
        assert np.array_equal(lacuna.kymograph(view, path, band=3), expected, equal_nan=True)
        assert np.array_equal(lacuna.kymograph(Producer(view), path, band=3), expected,
                              equal_nan=True)


def test_dlpack_refuses_what_it_cannot_read():
    values = lacuna.read(FITS)["values"][0]
    with pytest.raises(ValueError, match="complex64"):
        lacuna.line_histogram(Producer(values.astype(np.complex64)), (3, 4), (40, 30))
    with pytest.raises(ValueError, match="complex64"):
        lacuna.kymograph(Producer(moving_dot_cube().astype(np.complex64)), [(0, 4), (9, 4)])

    class OnAnotherDevice(Producer):
        def __dlpack_device__(self):
            return (10, 0)  # kDLROCM

    with pytest.raises(ValueError, match="rocm:0"):
        lacuna.line_histogram(OnAnotherDevice(values), (3, 4), (40, 30))
    with pytest.raises(TypeError, match="__dlpack__"):
        lacuna.line_histogram(object(), (3, 4), (40, 30))
REGIONS = [
    {"name": "across", "type": "line", "points": [[10, 20], [200, 40]], "width": 5},
    {"name": "bend", "type": "polyline", "points": [[0, 0], [60, 10], [80, 120]], "width": 3},
    {"name": "box", "type": "rectangle", "x": 30, "y": 40, "width": 50, "height": 12},
    {"name": "off", "type": "line", "points": [[-20, 50], [40, 50]]},
]


def regions_csv_by_name(path):
    by_name = {}
    for row in csv_rows(path)[1:]:
        by_name.setdefault(row[0], []).append(row)
    return by_name


@pytest.mark.parametrize("image_path", [FITS, PHOTO])
def test_region_profiles_equal_the_cli(tmp_path, image_path):
    regions_file = tmp_path / "regions.json"
    regions_file.write_text(json.dumps(REGIONS))
    run_cli("histogram", image_path, "--regions", regions_file, "--csv", tmp_path / "r.csv")
    cli = regions_csv_by_name(tmp_path / "r.csv")
    data = lacuna.read(image_path)
    image = data["values"][0] if image_path == FITS else data["samples"][0]
    from_list = lacuna.region_profiles(image, REGIONS)
    from_file = lacuna.region_profiles(image, str(regions_file))
    assert [p["name"] for p in from_list] == [r["name"] for r in REGIONS]
    for mine, again in zip(from_list, from_file):
        rows = cli[mine["name"]]
        assert mine["type"] == rows[0][1]
        assert len(rows) == len(mine["values"])
        assert np.array_equal(mine["values"], again["values"], equal_nan=True)
        for i, row in enumerate(rows):
            assert float(row[3]) == pytest.approx(mine["x"][i], rel=1e-8, abs=1e-9)
            assert float(row[4]) == pytest.approx(mine["y"][i], rel=1e-8, abs=1e-9)
            assert float(row[5]) == pytest.approx(mine["distance"][i], rel=1e-8, abs=1e-9)
            cli_value = np.float32(row[6]) if row[6] not in ("", "nan", "NaN") else np.float32("nan")
            if np.isnan(cli_value):
                assert np.isnan(mine["values"][i])
            else:
                assert cli_value == mine["values"][i]
    # The line starting off the image has NaN there, as the CLI's empty cells say.
    assert np.isnan(from_list[3]["values"][0])
    assert from_list[2]["band"] == 12


def test_region_profiles_refuse_bad_regions():
    values = np.zeros((10, 10), np.float32)
    with pytest.raises(ValueError):
        lacuna.region_profiles(values, [{"name": "a", "type": "circle", "points": [[0, 0], [1, 1]]}])
    with pytest.raises(ValueError):
        lacuna.region_profiles(values, "/nonexistent/regions.json")
    with pytest.raises(ValueError):
        lacuna.region_profiles(values, REGIONS[:1], channel="rgb")
