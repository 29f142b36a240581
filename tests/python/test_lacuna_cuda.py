"""`import lacuna` on CUDA device arrays through DLPack (CuPy and PyTorch): the device path reads
the arrays where they are and gives the numbers of the module's CPU path (which
tests/python/test_lacuna.py holds equal to the CLI), and kymograph's result stays in device
memory (a lacuna.DeviceArray the consumer imports without a copy).

Skipped where the module was built without CUDA, or neither CuPy nor PyTorch sees a device.
Run by CTest as `python_module_cuda` (label gpu) with PYTHONPATH at the built module."""
import gc

import numpy as np
import pytest

import lacuna


def _cupy():
    try:
        import cupy
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # not installed, or no driver/device
        return None


def _torch():
    try:
        import torch
        return torch if torch.cuda.is_available() else None
    except Exception:
        return None


if not lacuna.has_cuda:
    pytest.skip("this lacuna module was built without CUDA", allow_module_level=True)

CUPY, TORCH = _cupy(), _torch()
if CUPY is None and TORCH is None:
    pytest.skip("neither CuPy nor PyTorch sees a CUDA device", allow_module_level=True)

BACKENDS = [pytest.param("cupy", marks=pytest.mark.skipif(CUPY is None, reason="no CuPy/device")),
            pytest.param("torch", marks=pytest.mark.skipif(TORCH is None, reason="no PyTorch/device"))]


def to_device(backend, array):
    if backend == "cupy":
        return CUPY.asarray(array)
    return TORCH.from_numpy(np.ascontiguousarray(array)).cuda()


def from_device(backend, result):
    """Imports a lacuna result without a copy; returns the array and its device address."""
    if backend == "cupy":
        a = CUPY.from_dlpack(result)
        return a, a.data.ptr
    t = TORCH.from_dlpack(result)
    assert t.is_cuda
    return t, t.data_ptr()


def to_host(backend, array):
    return CUPY.asnumpy(array) if backend == "cupy" else array.cpu().numpy()


def assert_device_memory(address):
    """The address lies in device memory (not host or managed memory): no host copy was made."""
    if CUPY is not None:
        attributes = CUPY.cuda.runtime.pointerGetAttributes(address)
        assert attributes.type == 2  # cudaMemoryTypeDevice
    else:
        # torch has no pointer query; the caching allocator's own memory is not ours, so check
        # that the driver knows the address (a host address raises).
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        memory_type = ctypes.c_uint(0)
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_MEMORYTYPE_DEVICE = 2, 2
        status = cuda.cuPointerGetAttribute(ctypes.byref(memory_type),
                                            CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            ctypes.c_uint64(address))
        assert status == 0 and memory_type.value == CU_MEMORYTYPE_DEVICE


def cube(frames=12, height=9, width=48, seed=4):
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 2, (frames, height, width)).astype(np.float32)
    for t in range(frames):
        c[t, 4, 2 + 3 * t] = 9.0  # a dot moving 3 px a frame
    c[3, 2, 5] = np.nan
    return c


PATH = [(0, 3), (20, 3), (20.5, 8.5), (40, 2.25)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_kymograph_on_the_device_equals_the_cpu(backend):
    host = cube()
    expected = lacuna.kymograph(host, PATH, band=3)
    result = lacuna.kymograph(to_device(backend, host), PATH, band=3)
    assert isinstance(result, lacuna.DeviceArray)
    assert result.shape == expected.shape and result.dtype == "float32"
    assert result.__dlpack_device__()[0] == 2  # kDLCUDA
    array, address = from_device(backend, result)
    assert address == result.data_ptr  # the consumer holds lacuna's memory, not a copy
    assert_device_memory(address)
    # Bit for bit: the CUDA kymograph equals the reference.
    assert np.array_equal(to_host(backend, array), expected, equal_nan=True)
    # The dot moving 3 px a frame, along a straight line through it: slope 3.
    straight, _ = from_device(backend, lacuna.kymograph(to_device(backend, host), [(0, 4), (47, 4)]))
    straight = to_host(backend, straight)
    assert np.array_equal(straight, lacuna.kymograph(host, [(0, 4), (47, 4)]), equal_nan=True)
    assert np.array_equal(np.nanargmax(straight, axis=1), 2 + 3 * np.arange(12))


@pytest.mark.parametrize("backend", BACKENDS)
def test_kymograph_column_crop_is_read_in_place(backend):
    host = cube(width=64)
    device = to_device(backend, host)
    view = device[:, :, 5:60]  # frames still stacked at rows x row stride
    got = to_host(backend, from_device(backend, lacuna.kymograph(view, PATH, band=3))[0])
    assert np.array_equal(got, lacuna.kymograph(host[:, :, 5:60], PATH, band=3), equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_kymograph_on_the_callers_stream_with_axes(backend):
    host = cube()
    expected = lacuna.kymograph(host, PATH, band=3, frame_interval=0.04)
    if backend == "cupy":
        stream = CUPY.cuda.Stream(non_blocking=True)
        with stream:
            device = to_device(backend, host)
            got = lacuna.kymograph(device, PATH, band=3, frame_interval=0.04, stream=stream.ptr)
            values = CUPY.from_dlpack(got["values"])
            host_values = CUPY.asnumpy(values)
    else:
        stream = TORCH.cuda.Stream()
        with TORCH.cuda.stream(stream):
            device = to_device(backend, host)
            got = lacuna.kymograph(device, PATH, band=3, frame_interval=0.04,
                                   stream=stream.cuda_stream)
            host_values = TORCH.from_dlpack(got["values"]).cpu().numpy()
    assert np.array_equal(host_values, expected["values"], equal_nan=True)
    assert np.array_equal(got["distance"], expected["distance"])
    assert np.array_equal(got["time"], expected["time"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_result_outlives_the_input(backend):
    host = cube()
    device = to_device(backend, host)
    result = lacuna.kymograph(device, PATH, band=3)
    del device
    gc.collect()
    array, _ = from_device(backend, result)
    del result
    gc.collect()
    assert np.array_equal(to_host(backend, array), lacuna.kymograph(host, PATH, band=3),
                          equal_nan=True)


def assert_same_line_histograms(a, b):
    assert a["range"] == b["range"] and a["clipped"] == b["clipped"]
    assert a["samples_outside"] == b["samples_outside"]
    for name, channel in b["channels"].items():
        got = a["channels"][name]
        for key in ("counts", "samples", "min", "max", "median"):
            assert np.array_equal(got[key], channel[key], equal_nan=True), key
        # The device sums the mean as a tree: within one float ulp (tests/cuda says the same).
        np.testing.assert_allclose(got["mean"], channel["mean"], rtol=2.5e-7, equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.uint16, np.int16, np.uint8])
def test_histograms_on_the_device_equal_the_cpu(backend, dtype):
    rng = np.random.default_rng(11)
    host = rng.uniform(0, 200, (90, 130)).astype(dtype)
    device = to_device(backend, host)
    line = ((3.5, 4), (120, 77.25))
    assert_same_line_histograms(lacuna.line_histogram(device, *line, band=5, bins=32),
                                lacuna.line_histogram(host, *line, band=5, bins=32))
    d = lacuna.direction_histogram(device, 30, bins=16)
    assert np.array_equal(d["channels"]["value"],
                          lacuna.direction_histogram(host, 30, bins=16)["channels"]["value"])
    # A crop of rows (any row stride) is read in place.
    assert_same_line_histograms(
        lacuna.line_histogram(device[10:80, 5:120], (1, 2), (100, 60), band=3),
        lacuna.line_histogram(host[10:80, 5:120], (1, 2), (100, 60), band=3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_photo_histograms_on_the_device_equal_the_cpu(backend):
    rng = np.random.default_rng(12)
    photo = rng.integers(0, 256, (70, 110, 4), dtype=np.uint8)
    device = to_device(backend, photo)
    for channel in (None, "rgb", "r"):
        assert_same_line_histograms(
            lacuna.line_histogram(device, (2, 3), (100, 60.5), band=3, channel=channel),
            lacuna.line_histogram(photo, (2, 3), (100, 60.5), band=3, channel=channel))
    got = lacuna.direction_histogram(device, 45, channel="rgb")["channels"]
    expected = lacuna.direction_histogram(photo, 45, channel="rgb")["channels"]
    assert sorted(got) == sorted(expected) == ["b", "g", "r"]
    for name in expected:
        assert np.array_equal(got[name], expected[name])
    with pytest.raises(ValueError, match="RGBA"):  # RGB (3 channels) has no device path
        lacuna.line_histogram(to_device(backend, photo[..., :3].copy()), (2, 3), (100, 60))


@pytest.mark.parametrize("backend", BACKENDS)
def test_device_refusals(backend):
    host = cube()
    device = to_device(backend, host)
    with pytest.raises(ValueError, match="float32"):
        lacuna.kymograph(to_device(backend, host.astype(np.float64)), PATH)
    with pytest.raises(ValueError, match="contiguous"):
        lacuna.kymograph(device[:, :, ::2], PATH)
    with pytest.raises(ValueError, match="contiguous"):
        lacuna.line_histogram(device[0][:, ::2], (1, 1), (20, 5))
    with pytest.raises(ValueError, match="2-D"):
        lacuna.line_histogram(device, (1, 1), (20, 5))
    with pytest.raises(ValueError, match="host arrays"):
        lacuna.retarget(to_device(backend, np.zeros((8, 8, 3), np.uint8)), width=6)
    with pytest.raises(ValueError, match="zero length"):
        lacuna.line_histogram(device[0], (3, 3), (3, 3))
