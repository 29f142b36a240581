// The three CUDA 3-D convolutions (baseline, shared-memory tiles, streaming) against the fast CPU
// path (itself checked against the gold reference in test_conv3d): identical floats over odd
// sizes (so the device rows, padded to 128 bytes, have a pitch other than the width), kernels up
// to 15 deep, kernels wider than the frame, and longer stacks than Lin et al.'s
// k + 3 (the streaming kernel's running sums wrap around); bad calls refused.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/conv3d.hpp>

#include "../engine/conv3d_test_util.hpp"

#include <QtTest>

#include <cmath>
#include <random>
#include <tuple>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::random_kernel;
using lacuna::test::random_volume;

namespace {

QString first_difference(const Volume& cpu, const Volume& cuda) {
    if (cpu.data.size() != cuda.data.size()) return "sizes differ";
    for (std::size_t i = 0; i < cpu.data.size(); ++i)
        if (cpu.data[i] != cuda.data[i])
            return QString("value %1: cpu %2, cuda %3")
                .arg(i)
                .arg(double(cpu.data[i]), 0, 'g', 9)
                .arg(double(cuda.data[i]), 0, 'g', 9);
    return {};
}

}  // namespace

class TestConv3dCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        if (select_backend(BackendRequest::Auto).backend != Backend::Cuda)
            QSKIP("no usable CUDA device");
    }

    void every_algorithm_equals_the_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("frames");
        QTest::addColumn<int>("k");
        QTest::newRow("1x1, k3, 6 frames") << 1 << 1 << 6 << 3;
        QTest::newRow("33x9, k5, 8 frames") << 33 << 9 << 8 << 5;
        QTest::newRow("3x4, k7 (wider than the frame), 10 frames") << 3 << 4 << 10 << 7;
        QTest::newRow("181x97, k9, 12 frames") << 181 << 97 << 12 << 9;
        QTest::newRow("97x61, k15, 18 frames") << 97 << 61 << 18 << 15;
        QTest::newRow("65x33, k3, 40 frames (streaming wraps)") << 65 << 33 << 40 << 3;
    }
    void every_algorithm_equals_the_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, frames);
        QFETCH(int, k);
        const Volume in = random_volume(w, h, frames, 5);
        const Kernel3D kernel = random_kernel(k, 6);
        const Volume cpu = conv3d_fast(in, kernel);
        for (const auto algorithm :
             {Conv3dAlgorithm::Baseline, Conv3dAlgorithm::Shared, Conv3dAlgorithm::Streaming}) {
            const Volume cuda = conv3d_cuda(in, kernel, algorithm);
            QVERIFY2(first_difference(cpu, cuda).isEmpty(),
                     qPrintable(QString(to_string(algorithm).data()) + ": " +
                                first_difference(cpu, cuda)));
        }
    }

    void hybrid_fourier_equals_the_direct_convolution_within_float_rounding() {
        // Lin et al.'s hybrid: spectra of padded frames, a temporal sum, an inverse FFT. Not the
        // same floats as the direct sums: within 1e-4 of the sums' scale (Σ|w| · 255).
        for (const auto& [w, h, frames, k] :
             {std::tuple{33, 9, 8, 5}, std::tuple{181, 97, 12, 9}, std::tuple{3, 4, 10, 7},
              std::tuple{720, 560, 18, 15}}) {
            const Volume in = random_volume(w, h, frames, 8);
            const Kernel3D kernel = random_kernel(k, 9);
            const Volume cpu = conv3d_fast(in, kernel);
            const Volume fft = conv3d_cuda(in, kernel, Conv3dAlgorithm::HybridFft);
            QCOMPARE(fft.frames, cpu.frames);
            double scale = 0;
            for (const float x : kernel.weights) scale += std::abs(x);
            scale *= 255;
            double worst = 0;
            for (std::size_t i = 0; i < cpu.data.size(); ++i)
                worst = std::max(worst, std::abs(double(cpu.data[i]) - fft.data[i]) / scale);
            qInfo("%dx%d, %d frames, k %d: worst difference %.3g of the scale", w, h, frames, k,
                  worst);
            QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
        }
    }

    void temporal_filter_on_the_device_equals_the_cpu() {
        const Kernel3D kernel = gaussian_kernel(5, 1.0, 1.5);
        TemporalFilter cpu(kernel, false), gpu(kernel, true);
        std::vector<ImageRgba8> a, b;
        std::mt19937 rng(3);
        for (int t = 0; t < 9; ++t) {
            ImageRgba8 f(37, 21);
            for (int y = 0; y < 21; ++y)
                for (int x = 0; x < 37; ++x)
                    f.at(x, y) =
                        Rgba8{std::uint8_t(rng()), std::uint8_t(rng()), std::uint8_t(rng()), 255};
            for (ImageRgba8& o : cpu.push(f)) a.push_back(std::move(o));
            for (ImageRgba8& o : gpu.push(f)) b.push_back(std::move(o));
        }
        for (ImageRgba8& o : cpu.finish()) a.push_back(std::move(o));
        for (ImageRgba8& o : gpu.finish()) b.push_back(std::move(o));
        QCOMPARE(int(a.size()), 9);
        QCOMPARE(int(b.size()), 9);
        for (int t = 0; t < 9; ++t) QVERIFY(equal_pixels<Rgba8>(a[t].view(), b[t].view()));
    }

    void bad_calls_are_refused() {
        OwnedStream stream;
        CudaConv3d conv(stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, conv.run(Conv3dAlgorithm::Shared));  // nothing uploaded
        QVERIFY_THROWS_EXCEPTION(Error, conv.upload(random_volume(8, 8, 4, 1), box_kernel(5)));
        QVERIFY_THROWS_EXCEPTION(
            Error, conv3d_cuda(Volume(0, 8, 5), box_kernel(3), Conv3dAlgorithm::Baseline));
    }
};

QTEST_GUILESS_MAIN(TestConv3dCuda)
#include "test_conv3d_cuda.moc"
