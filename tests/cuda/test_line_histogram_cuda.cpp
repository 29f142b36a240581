// CUDA line and direction histograms against the CPU gold: counts, counters, min, max and median
// exactly; the mean (summed as a tree on the GPU) within one float ulp.
// Odd sizes, 1-pixel-wide images, pitched device planes, both samplings, bins beyond shared memory.
// Planes built on the device from a device photo (and rebuilt for another photo) give the same
// results as planes uploaded from the host, with nothing copied between host and device.
#include "../engine/histogram_test_util.hpp"
#include "../engine/ppm.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <QtTest>

#include <cuda_runtime.h>

#include <array>
#include <utility>

using namespace lacuna;
using namespace lacuna::ops;

class TestLineHistogramCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{2024};

    /// Random lines, bands, channels and bins over `image`: `gpu` (planes built on the device)
    /// against the reference (the mean within one ulp, as everywhere here) and against a
    /// histogrammer with host-uploaded planes (exactly: same kernels, so same planes give the same
    /// bits). Returns the number of lines compared.
    int compare_device_built(const ImageRgba8& image, CudaLineHistogrammer& gpu,
                             const QString& tag) {
        const int w = image.width(), h = image.height();
        const HistogramSource source(image.view());
        CudaLineHistogrammer uploaded(source);
        std::uniform_real_distribution<double> ux(-3.0, w + 2.0), uy(-3.0, h + 2.0);
        int compared = 0;
        for (int k = 0; k < 10; ++k) {
            LineHistogramParams p;
            p.from = {ux(rng_), uy(rng_)};
            p.to = {ux(rng_), uy(rng_)};
            p.band_width = std::array{1, 2, 5, 64, 129, 3, 17, 1, 8, 33}[k];
            p.sampling = k % 2 ? Sampling::Nearest : Sampling::Bilinear;
            p.channel = std::array{HistogramChannel::Luminance, HistogramChannel::Rgb,
                                   HistogramChannel::Blue,      HistogramChannel::Red,
                                   HistogramChannel::Green,     HistogramChannel::Value}[k % 6];
            p.bins = std::array{256, 3, 9000, 256, 64, 1024}[k % 6];
            if (k == 4) p.range = std::pair{30.0f, 220.0f};
            LineHistogram gold;
            try {
                gold = line_histogram_reference(source, p);
            } catch (const Error&) {
                continue;
            }
            const LineHistogram got = gpu.line(p);
            const QString where = QString("%1 %2x%3 case %4: ").arg(tag).arg(w).arg(h).arg(k);
            QString diff = test::compare(gold, got, 1);
            if (diff.isEmpty()) diff = test::compare(uploaded.line(p), got, 0);
            if (diff.isEmpty() && (got.range_lo != gold.range_lo || got.range_hi != gold.range_hi))
                diff = "range differs";
            if (!diff.isEmpty()) {
                QTest::qFail(qPrintable(where + diff), __FILE__, __LINE__);
                return -1;
            }
            ++compared;
        }
        for (const double angle : {0.0, 33.0, 90.0, 211.5}) {
            DirectionHistogramParams d;
            d.angle_degrees = angle;
            d.channel = angle > 100 ? HistogramChannel::Rgb : HistogramChannel::Luminance;
            d.sampling = angle == 33.0 ? Sampling::Bilinear : Sampling::Nearest;
            const QString diff =
                test::compare(direction_histogram_reference(source, d), gpu.direction(d));
            if (!diff.isEmpty()) {
                QTest::qFail(
                    qPrintable(
                        QString("%1 %2x%3 at %4: %5").arg(tag).arg(w).arg(h).arg(angle).arg(diff)),
                    __FILE__, __LINE__);
                return -1;
            }
        }
        return compared;
    }

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void line_equals_reference() {
        int compared = 0;
        for (const auto& [w, h] :
             {std::pair{1, 1}, {1, 63}, {63, 1}, {37, 23}, {641, 479}, {1920, 1081}}) {
            const ImageRgba8 image = test::random_photo(w, h, rng_);
            const HistogramSource source(image.view());
            CudaLineHistogrammer gpu(source);
            std::uniform_real_distribution<double> ux(-3.0, w + 2.0), uy(-3.0, h + 2.0);
            for (int k = 0; k < 8; ++k) {
                LineHistogramParams p;
                p.from = {ux(rng_), uy(rng_)};
                p.to = {ux(rng_), uy(rng_)};
                if (w == 1) p.from.x = p.to.x = 0;
                if (h == 1) p.from.y = p.to.y = 0;
                if (w == 1 && h == 1) p.to = {0.0, 0.0}, p.from = {-1.0, 0.0};
                p.band_width = std::array{1, 2, 5, 64, 129, 2048, 3, 64}[k];
                p.sampling = k % 2 ? Sampling::Nearest : Sampling::Bilinear;
                p.channel = std::array{HistogramChannel::Luminance, HistogramChannel::Rgb,
                                       HistogramChannel::Blue}[k % 3];
                p.bins = std::array{256, 3, 65536, 9000, 256, 1024, 8192, 256}[k];
                if (k == 4) p.range = std::pair{30.0f, 220.0f};
                LineHistogram gold;
                try {
                    gold = line_histogram_reference(source, p);
                } catch (const Error&) {
                    continue;
                }
                const QString diff = test::compare(gold, gpu.line(p), 1);
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1x%2 case %3: %4").arg(w).arg(h).arg(k).arg(diff)));
                ++compared;
            }
        }
        QVERIFY2(compared >= 35, qPrintable(QString::number(compared)));
    }

    void real_photo_equals_reference() {
        const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
        QCOMPARE(photo.width(), 160);
        const HistogramSource source(photo.view());
        CudaLineHistogrammer gpu(source);
        LineHistogramParams p;
        p.from = {3.5, 110.25};
        p.to = {150.75, 4.5};
        p.band_width = 21;
        p.channel = HistogramChannel::Rgb;
        for (const Sampling s : {Sampling::Nearest, Sampling::Bilinear}) {
            p.sampling = s;
            const QString diff = test::compare(line_histogram_reference(source, p), gpu.line(p), 1);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
        DirectionHistogramParams d;
        d.angle_degrees = 33;
        QVERIFY(
            test::compare(direction_histogram_reference(source, d), gpu.direction(d)).isEmpty());
    }

    void measurement_line_equals_reference() {
        ImageF32 values(333, 211);
        std::normal_distribution<float> noise(36.6f, 2.0f);
        for (int y = 0; y < values.height(); ++y)
            for (int x = 0; x < values.width(); ++x) values.at(x, y) = noise(rng_);
        values.at(100, 100) = NAN;  // missing data: excluded from histogram and profile
        const HistogramSource source(values.view());
        LineHistogramParams p;
        p.from = {10.25, 20.5};
        p.to = {300.75, 190.125};
        p.band_width = 31;
        p.channel = HistogramChannel::Value;
        for (const Sampling s : {Sampling::Nearest, Sampling::Bilinear}) {
            p.sampling = s;
            const QString diff = test::compare(line_histogram_reference(source, p),
                                               CudaLineHistogrammer(source).line(p), 1);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    void native_samples_build_the_measurement_plane_on_the_device() {
        // Every sample type and channel count, odd sizes, a calibration: the device plane built
        // from the raw rows equals measurement_plane exactly (so the natural range does too),
        // and the lines equal the reference on the host plane.
        const PixelFormat formats[] = {
            {SampleType::U8, 1},  {SampleType::U16, 1}, {SampleType::I16, 1}, {SampleType::F32, 1},
            {SampleType::U16, 3}, {SampleType::F32, 4}, {SampleType::U8, 3}};
        const Calibration calibration{0.0137, -273.15, "degC"};
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        const OwnedStream stream;
        int formats_checked = 0;
        for (const PixelFormat format : formats) {
            const int w = 97 + formats_checked * 13, h = 61 + formats_checked * 7;
            NativeImage samples(w, h, format);
            const auto [lo, hi] = type_range(format.sample);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    for (int c = 0; c < format.channels; ++c)
                        samples.set_sample(x, y, c,
                                           format.sample == SampleType::F32
                                               ? 250.0 + 120.0 * unit(rng_)
                                               : lo + (hi - lo) * unit(rng_));
            if (format.sample == SampleType::F32) samples.set_sample(3, 4, 0, NAN);
            DeviceImage<std::uint8_t> rows(static_cast<int>(samples.row_bytes()), h, stream.get());
            rows.upload({reinterpret_cast<const std::uint8_t*>(samples.row(0)),
                         static_cast<int>(samples.row_bytes()), h, samples.pitch()});
            CudaLineHistogrammer gpu(rows, format, w, calibration);
            const ImageF32 host_plane = measurement_plane(samples, calibration);
            const HistogramSource source(host_plane.view());
            const QString tag = QString::fromStdString(describe(format));
            QCOMPARE(gpu.natural_range(), source.natural_range());
            LineHistogramParams p;
            p.from = {-2.5, 3.25};
            p.to = {w + 1.5, h - 4.75};
            p.band_width = 17;
            p.bins = 300;
            for (const Sampling sampling : {Sampling::Nearest, Sampling::Bilinear}) {
                p.sampling = sampling;
                const QString diff =
                    test::compare(line_histogram_reference(source, p), gpu.line(p), 1);
                QVERIFY2(diff.isEmpty(), qPrintable(tag + ": " + diff));
                // Same kernels on an uploaded copy of the host plane: the planes are equal
                // when every bit of the result is.
                const QString exact =
                    test::compare(CudaLineHistogrammer(source).line(p), gpu.line(p), 0);
                QVERIFY2(exact.isEmpty(), qPrintable(tag + " (exact): " + exact));
            }
            // The same rows as memory the histogrammer does not own (the Python module's DLPack
            // arrays), read on the caller's stream: the same bits.
            {
                const OwnedStream caller;
                rows.synchronize();
                CudaLineHistogrammer borrowed(std::as_const(rows).device_view(), caller.get(),
                                              format, w, calibration);
                QCOMPARE(borrowed.natural_range(), gpu.natural_range());
                const QString same = test::compare(gpu.line(p), borrowed.line(p), 0);
                QVERIFY2(same.isEmpty(), qPrintable(tag + " (device view): " + same));
            }
            // Rebuilt for another calibration: the range follows.
            gpu.rebuild(rows, format, w, Calibration{});
            QCOMPARE(gpu.natural_range(),
                     HistogramSource(measurement_plane(samples).view()).natural_range());
            ++formats_checked;
        }
        QCOMPARE(formats_checked, 7);
        // Rows that do not match their format are refused.
        DeviceImage<std::uint8_t> rows(10, 4, stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, CudaLineHistogrammer(rows, {SampleType::F32, 1}, 3, {}));
        // A view needs a stream to be read on.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 CudaLineHistogrammer(std::as_const(rows).device_view(),
                                                      nullptr,  // check-device-streams: allow
                                                      {SampleType::U8, 1}, 10, {}));
    }

    void direction_equals_reference() {
        for (const auto& [w, h] : {std::pair{1, 1}, {1, 77}, {77, 31}, {640, 481}}) {
            const ImageRgba8 image = test::random_photo(w, h, rng_);
            const HistogramSource source(image.view());
            CudaLineHistogrammer gpu(source);
            for (const double angle : {0.0, 30.0, 45.0, 90.0, 123.4, 180.0, -60.0}) {
                DirectionHistogramParams p;
                p.angle_degrees = angle;
                p.channel = angle < 0 ? HistogramChannel::Rgb : HistogramChannel::Luminance;
                p.sampling = angle == 30.0 ? Sampling::Bilinear : Sampling::Nearest;
                p.bins = angle == 123.4 ? 10000 : 256;
                const QString diff =
                    test::compare(direction_histogram_reference(source, p), gpu.direction(p));
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1x%2 at %3: %4").arg(w).arg(h).arg(angle).arg(diff)));
            }
        }
    }

    void device_photo_equals_reference() {
        ImageRgba8 image = test::random_photo(517, 301, rng_);
        const OwnedStream stream;
        const DeviceImage<Rgba8> photo(image.view(), stream.get());
        TransferStats before = transfer_stats();
        CudaLineHistogrammer gpu(photo);
        QVERIFY(transfer_stats() - before == TransferStats{});
        int compared = compare_device_built(image, gpu, "built");
        QVERIFY(compared >= 0);
        // Other pixels at the same size, then smaller, then larger than the first capacity.
        for (const auto& [w, h] : {std::pair{517, 301}, {211, 97}, {641, 479}, {1, 1}, {333, 5}}) {
            image = test::random_photo(w, h, rng_);
            const DeviceImage<Rgba8> next(image.view(), stream.get());
            before = transfer_stats();
            gpu.rebuild(next);
            QVERIFY(transfer_stats() - before == TransferStats{});
            const int more = compare_device_built(image, gpu, "rebuilt");
            QVERIFY(more >= 0);
            compared += more;
        }
        QVERIFY2(compared >= 35, qPrintable(QString::number(compared)));
        // A photo the histogrammer does not own (the Python module's DLPack arrays), as a view
        // read on the caller's stream: the same results, nothing through the host.
        const OwnedStream caller;
        const DeviceImage<Rgba8> foreign(image.view(), caller.get());
        before = transfer_stats();
        CudaLineHistogrammer borrowed(foreign.device_view(), caller.get());
        QVERIFY(transfer_stats() - before == TransferStats{});
        QVERIFY(compare_device_built(image, borrowed, "device view") > 0);
        // check-device-streams: allow
        QVERIFY_THROWS_EXCEPTION(Error, CudaLineHistogrammer(foreign.device_view(), nullptr));
    }

    void measurement_histogrammer_rebuilt_from_a_photo() {
        ImageF32 values(64, 48);
        for (int y = 0; y < values.height(); ++y)
            for (int x = 0; x < values.width(); ++x) values.at(x, y) = float(x * y) * 0.01f;
        const HistogramSource measurement(values.view());
        CudaLineHistogrammer gpu(measurement);
        const ImageRgba8 image = test::random_photo(99, 71, rng_);
        const OwnedStream stream;
        const DeviceImage<Rgba8> photo(image.view(), stream.get());
        gpu.rebuild(photo);
        QVERIFY(compare_device_built(image, gpu, "from measurement") > 0);
    }

    void photo_on_its_own_stream() {
        // A photo on a non-blocking stream: its planes are ready before the histogram kernels
        // (on the histogrammer's own stream) read them.
        const OwnedStream stream;
        {
            const ImageRgba8 image = test::random_photo(300, 200, rng_);
            DeviceImage<Rgba8> photo(image.width(), image.height(), stream.get());
            photo.upload_async(image.view());  // still in flight when the planes are built
            CudaLineHistogrammer gpu(photo);
            QVERIFY(compare_device_built(image, gpu, "stream") > 0);
        }
    }

    void empty_device_photo_is_refused() {
        const DeviceImage<Rgba8> empty;
        QVERIFY_THROWS_EXCEPTION(Error, CudaLineHistogrammer{empty});
    }

    void errors_reach_the_caller() {
        const ImageRgba8 image = test::random_photo(16, 16, rng_);
        const HistogramSource source(image.view());
        CudaLineHistogrammer gpu(source);
        LineHistogramParams p;
        p.from = p.to = {3, 3};
        QVERIFY_THROWS_EXCEPTION(Error, gpu.line(p));
        p.to = {10, 10};
        p.bins = 0;
        QVERIFY_THROWS_EXCEPTION(Error, gpu.line(p));
        p.bins = 256;
        QCOMPARE(gpu.line(p).positions, 11);  // still usable after a refused request
    }
};

QTEST_GUILESS_MAIN(TestLineHistogramCuda)
#include "test_line_histogram_cuda.moc"
