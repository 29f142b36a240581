// Device images against host gold: copies both ways over odd sizes, 1-pixel-wide images and
// pitched host buffers; streams (every image has its caller's, none allocates without one);
// grow-only capacity; the luminance kernel; out-of-memory.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>

#include <QtTest>

#include <random>
#include <vector>

using namespace lacuna;

namespace {

template <class T>
Image<T> random_image(const int w, const int h, const std::size_t extra_pitch, std::mt19937& rng) {
    Image<T> image(w, h, RowPitch{w * sizeof(T) + extra_pitch});
    std::uniform_int_distribution<int> byte(0, 255);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if constexpr (std::is_same_v<T, Rgba8>) {
                image.at(x, y) = Rgba8{std::uint8_t(byte(rng)), std::uint8_t(byte(rng)),
                                       std::uint8_t(byte(rng)), std::uint8_t(byte(rng))};
            } else if constexpr (std::is_same_v<T, float>) {
                image.at(x, y) = float(byte(rng)) * 0.37f - 20.0f;
            } else {
                image.at(x, y) = T(byte(rng));
            }
        }
    return image;
}

}  // namespace

class TestDeviceImage : public QObject {
    Q_OBJECT
    std::mt19937 rng_{1234};

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
        qInfo("device: %s", info.describe().c_str());
    }

    void backend_reports_the_device() {
        const BackendInfo info = select_backend(BackendRequest::Cuda);
        QCOMPARE(info.backend, Backend::Cuda);
        QVERIFY(!info.device_name.empty());
        QVERIFY(info.compute_major >= 7);
        QVERIFY(info.device_memory_bytes > (std::size_t{1} << 30));
        QVERIFY(info.reason.empty());
    }

    void round_trips_odd_sizes_and_pitches() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, extra);
        const auto rgba = random_image<Rgba8>(w, h, std::size_t(extra) * 4, rng_);
        const OwnedStream stream;
        const DeviceImage<Rgba8> d_rgba(rgba.view(), stream.get());
        QVERIFY(d_rgba.pitch() >= std::size_t(w) * 4);
        Image<Rgba8> back(
            w, h, RowPitch{std::size_t(w) * 4 + 12});  // a different host pitch on the way back
        d_rgba.download(back.view());
        QVERIFY(equal_pixels<Rgba8>(rgba.view(), back.view()));

        const auto f = random_image<float>(w, h, std::size_t(extra) * 4, rng_);
        QVERIFY(equal_pixels<float>(f.view(),
                                    DeviceImage<float>(f.view(), stream.get()).download().view()));
        const auto m = random_image<std::uint8_t>(w, h, std::size_t(extra), rng_);
        QVERIFY(equal_pixels<std::uint8_t>(
            m.view(), DeviceImage<std::uint8_t>(m.view(), stream.get()).download().view()));
    }
    void round_trips_odd_sizes_and_pitches_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("extra");
        QTest::newRow("1x1") << 1 << 1 << 0;
        QTest::newRow("1-wide") << 1 << 257 << 3;
        QTest::newRow("1-high") << 333 << 1 << 0;
        QTest::newRow("odd 37x23 pitched") << 37 << 23 << 5;
        QTest::newRow("1921x1081 pitched") << 1921 << 1081 << 16;
    }

    void async_copies_on_a_stream() {
        const OwnedStream stream;
        const auto src = random_image<float>(513, 129, 8, rng_);
        DeviceImage<float> d(513, 129, stream.get());
        QCOMPARE(d.stream(), stream.get());
        ImageF32 back(513, 129);
        d.upload_async(src.view());
        d.download_async(back.view());
        d.synchronize();
        QVERIFY(equal_pixels<float>(src.view(), back.view()));
    }

    void capacity_only_grows() {
        const OwnedStream stream;
        DeviceImage<Rgba8> d(640, 480, stream.get());
        const std::size_t pitch = d.pitch();
        const Rgba8* before = d.device_view().data;
        d.resize(320, 479);  // a shrinking image reuses the allocation
        QCOMPARE(d.device_view().data, before);
        QCOMPARE(d.pitch(), pitch);
        QCOMPARE(d.width(), 320);
        const auto src = random_image<Rgba8>(320, 479, 0, rng_);
        d.upload(src.view());
        QVERIFY(equal_pixels<Rgba8>(src.view(), d.download().view()));
        d.resize(641, 480);
        QCOMPARE(d.width(), 641);
    }

    void size_mismatch_is_an_error() {
        const OwnedStream stream;
        DeviceImage<float> d(10, 10, stream.get());
        const ImageF32 wrong(11, 10);
        try {
            d.upload(wrong.view());
            QFAIL("must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        }
    }

    void move_transfers_ownership() {
        const OwnedStream stream;
        DeviceImage<float> a(16, 16, stream.get());
        const float* p = a.device_view().data;
        DeviceImage<float> b = std::move(a);
        QVERIFY(a.empty());
        QCOMPARE(b.device_view().data, p);
        a = std::move(b);
        QCOMPARE(a.device_view().data, p);
    }

    void luminance_kernel_equals_cpu_gold() {
        const OwnedStream stream;
        for (const auto& [w, h] : {std::pair{1, 1}, {1, 97}, {641, 479}, {1920, 1080}}) {
            const auto src = random_image<Rgba8>(w, h, 28, rng_);
            const DeviceImage<Rgba8> d_src(src.view(), stream.get());
            DeviceImage<float> d_dst;  // no stream yet: it takes the source's
            luminance(d_src, d_dst);
            const ImageF32 gold = luminance(src.view());
            QVERIFY2(equal_pixels<float>(gold.view(), d_dst.download().view()),
                     qPrintable(QString("%1x%2").arg(w).arg(h)));
        }
    }

    void out_of_memory_is_reported_and_recoverable() {
        const OwnedStream stream;
        std::vector<DeviceImage<float>> hog;
        bool got_oom = false;
        // 1 GiB each (the largest image allowed); stop at the first failure.
        for (int i = 0; i < 1024 && !got_oom; ++i) {
            try {
                hog.emplace_back(16384, 16384, stream.get());
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::OutOfMemory);
                QVERIFY(QString(e.what()).startsWith("out of device memory"));
                got_oom = true;
            }
        }
        QVERIFY(got_oom);
        qInfo("out of memory after %d GiB", int(hog.size()));
        hog.clear();
        const auto src = random_image<float>(64, 64, 0, rng_);
        QVERIFY(equal_pixels<float>(
            src.view(), DeviceImage<float>(src.view(), stream.get()).download().view()));
    }

    // No copy, fill or wait of a device image may run on the legacy default stream: an image
    // gets memory only with a stream, and keeps one while it holds memory.
    void no_memory_without_a_stream() {
        const auto code = [](auto&& call) {
            try {
                call();
            } catch (const Error& e) {
                return static_cast<int>(e.code());
            }
            return -1;  // did not throw
        };
        const int invalid = static_cast<int>(ErrorCode::InvalidArgument);
        // check-device-streams: allow (the refusal of stream 0 is what is tested)
        QCOMPARE(code([] { DeviceImage<float> d(8, 8, DeviceStream{}); }), invalid);
        const ImageF32 host(8, 8, 1.0f);
        // check-device-streams: allow
        QCOMPARE(code([&] { DeviceImage<float> d(host.view(), DeviceStream{}); }), invalid);
        DeviceImage<float> slot;  // a member or a slot to assign: empty, no stream
        QCOMPARE(code([&] { slot.resize(8, 8); }), invalid);
        QVERIFY(slot.empty());
        slot.synchronize();  // nothing was ever enqueued for it: returns at once
        const OwnedStream stream;
        slot.set_stream(stream.get());
        slot.resize(8, 8);
        slot.upload(host.view());
        QVERIFY(equal_pixels<float>(host.view(), slot.download().view()));
        // check-device-streams: allow
        QCOMPARE(code([&] { slot.set_stream(DeviceStream{}); }), invalid);
        QCOMPARE(slot.stream(), stream.get());
    }
};

QTEST_GUILESS_MAIN(TestDeviceImage)
#include "test_device_image.moc"
