#!/usr/bin/env python3
"""tools/check-device-streams.py against files written here: each way of landing on the legacy
default stream is reported on its own line, the same work on the caller's stream is not, and the
repository itself passes."""
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = ROOT / "tools" / "check-device-streams.py"

BAD = """\
void make(DeviceStream stream = nullptr);
void bad(const ImageRgba8& image, float* p, int w, int h, const SeamOrder& host_order) {
    DeviceImage<Rgba8> a(image.view());
    DeviceImage<Rgba8> b(w, h);
    auto c = DeviceImage<float>(w, h, nullptr);
    auto d = std::make_unique<DeviceImage<float>>(image.view());
    DeviceBuffer<float> buf;
    buf.zero_async(4);
    buf.download(p, 4);
    buf.upload(p, 4, nullptr);
    ops::CudaBilateral filter(nullptr);
    const auto order = ops::upload_order(host_order);
    a.set_stream(nullptr);
    cudaMemcpy(p, p, 4, cudaMemcpyDeviceToDevice);
    cudaMemset(p, 0, 4);
    cudaDeviceSynchronize();
    cudaMemcpyAsync(p, p, 4, cudaMemcpyDeviceToDevice, 0);
    cudaStreamSynchronize(nullptr);
    k<<<1, 32>>>(p);
    k<<<1, 32, 0>>>(p);
    k<<<1, 32, 0, 0>>>(p);
}
"""
EXPECTED = {
    1: "a stream parameter defaulting to the default stream",
    3: "a DeviceImage made without a stream",
    4: "a DeviceImage made without a stream",
    5: "a DeviceImage made without a stream",
    6: "a DeviceImage made without a stream",
    8: "DeviceBuffer::zero_async without a stream",
    9: "DeviceBuffer::download without a stream",
    10: "DeviceBuffer::upload without a stream",
    11: "a CudaBilateral made without a stream",
    12: "upload_order without a stream",
    13: "set_stream on the default stream (nullptr)",
    14: "cudaMemcpy always runs on the default stream",
    15: "cudaMemset always runs on the default stream",
    16: "cudaDeviceSynchronize always runs on the default stream",
    17: "cudaMemcpyAsync on the default stream (0)",
    18: "cudaStreamSynchronize on the default stream (nullptr)",
    19: "kernel launch without a stream",
    20: "kernel launch without a stream",
    21: "kernel launch without a stream",
}

GOOD = """\
void make(DeviceStream stream);
DeviceImage<Rgba16> proxy(const DeviceImage<std::uint8_t>& rows, int width);
void good(const ImageRgba8& image, float* p, int w, int h, const SeamOrder& host_order,
          const DeviceImage<float>& other) {
    const OwnedStream stream;
    DeviceImage<Rgba8> a(image.view(), stream.get());
    DeviceImage<Rgba8> b(w, h, stream.get());
    DeviceImage<Rgba8> slot;
    auto moved = std::make_unique<DeviceImage<Rgba16>>(proxy(rows, w));
    const Image<float> back = other.download();
    DeviceBuffer<float> buf;
    buf.zero_async(4, stream.get());
    buf.download(p, 4, stream.get());
    ops::CudaBilateral filter(stream.get());
    const auto order = ops::upload_order(host_order, stream.get());
    a.set_stream(doc.stream());
    cudaMemcpyAsync(p, p, 4, cudaMemcpyDeviceToDevice, stream.get());
    cudaStreamSynchronize(stream.get());
    k<<<1, 32, 0, stream.get()>>>(p);
    // check-device-streams: allow (a test of the refusal)
    DeviceImage<float> refused(w, h, DeviceStream{});
}
"""


def run(root):
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)


class CheckDeviceStreams(unittest.TestCase):
    def tree(self, text):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        engine = pathlib.Path(folder.name) / "engine"
        engine.mkdir()
        (engine / "work.cu").write_text(text)
        return pathlib.Path(folder.name)

    def test_each_default_stream_use_is_reported(self):
        result = run(self.tree(BAD))
        self.assertEqual(result.returncode, 1, result.stdout)
        found = {}
        for line in result.stdout.splitlines():
            path, number, what = line.split(":", 2)
            self.assertEqual(path, "engine/work.cu")
            found.setdefault(int(number), set()).add(what.strip())
        self.assertEqual(found, {n: {what} for n, what in EXPECTED.items()})

    def test_the_callers_stream_passes(self):
        result = run(self.tree(GOOD))
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_the_repository_passes(self):
        result = run(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main()
