// The Regions tool on a device session against a host session: a line, a polyline and a
// rectangle, each partly off the image, on a photo, a float measurement with NaNs and a
// calibrated 16-bit measurement. The device session's profiles (the CUDA kymograph on the
// document's plane, built on the device) equal the host session's bit for bit, when added and
// at every move of a pointer drag; a drag moves only the plan up and the profile back; a new
// calibration rebuilds the device plane; a device failure moves the session to the host with a
// notice and the same profiles. Needs a CUDA device (label gpu); no display.
#include <regions_tool.hpp>
#include <session.hpp>

#include <lacuna/core/backend.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/regions.hpp>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace lacuna;
using session::Pointer;
using session::RegionsTool;

namespace {

constexpr int kW = 517;
constexpr int kH = 311;

Pointer at(const double x, const double y) {
    return {x, y, false, 1.0};
}

ImageRgba8 photo() {
    ImageRgba8 image(kW, kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            image.at(x, y) = Rgba8{std::uint8_t((x * 7 + y * 3) % 256), std::uint8_t((x * y) % 251),
                                   std::uint8_t((200 - x + y) % 256), 255};
    return image;
}

NativeImage measurement(const SampleType type) {
    NativeImage samples(kW, kH, {type, 1});
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            samples.set_sample(x, y, 0,
                               type == SampleType::F32
                                   ? 250.0 + 0.75 * x + 0.33 * y + ((x * y) % 11) * 0.1
                                   : double((x * 211 + y * 97) % 30000));
    if (type == SampleType::F32) {
        // NaNs on the line's path and a block of them under the polyline.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        samples.set_sample(100, 94, 0, nan);
        for (int y = 172; y < 184; ++y)
            for (int x = 130; x < 140; ++x) samples.set_sample(x, y, 0, nan);
    }
    return samples;
}

/// A line, a polyline and a rectangle, each partly off the image.
void add_three(RegionsTool& tool) {
    ops::ProfileRegion line;
    line.points = {{-20.5, 15.25}, {400.75, 290.5}};
    line.width = 7;
    tool.add(line);
    ops::ProfileRegion poly;
    poly.shape = ops::RegionShape::Polyline;
    poly.points = {{30.5, 40.5}, {250.25, 330.75}, {540.5, 100.0}, {300, -12.5}};
    poly.width = 16;
    tool.add(poly);
    ops::ProfileRegion rect;
    rect.shape = ops::RegionShape::Rectangle;
    rect.x = 450;
    rect.y = 250;
    rect.width = 120;
    rect.height = 90;
    tool.add(rect);
}

/// Where the two profiles differ (bits, or NaN against NaN), or an empty string.
QString difference(const ops::RegionProfile* device, const ops::RegionProfile* host) {
    if (device == nullptr || host == nullptr) return "no profile";
    if (device->plan.positions() != host->plan.positions() ||
        device->plan.distance != host->plan.distance)
        return "different positions";
    for (std::size_t k = 0; k < host->values.size(); ++k) {
        const float a = host->values[k], b = device->values[k];
        const bool same = std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof a) == 0;
        if (!same)
            return QString("position %1: device %2, host %3")
                .arg(k)
                .arg(double(b), 0, 'g', 9)
                .arg(double(a), 0, 'g', 9);
    }
    return {};
}

int nan_count(const ops::RegionProfile* p) {
    int n = 0;
    for (const float v : p->values) n += std::isnan(v) ? 1 : 0;
    return n;
}

/// Opens the same document in both sessions: 0 a photo, 1 a float measurement with NaNs, 2 a
/// calibrated 16-bit measurement.
void open(session::Session& s, const int kind) {
    if (kind == 0)
        s.open(photo());
    else if (kind == 1)
        s.open_measurement({measurement(SampleType::F32)}, {1.0, 0.0, "K"});
    else
        s.open_measurement({measurement(SampleType::U16)}, {0.01, 250.0, "K"});
}

}  // namespace

class TestRegionsDevice : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        const BackendInfo backend = select_backend(BackendRequest::Auto);
        if (backend.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(backend.reason)));
    }

    void profiles_equal_the_host_sessions() {
        for (int kind = 0; kind < 3; ++kind) {
            const QString tag = QString("document %1").arg(kind);
            session::Session device(true), host(false);
            open(device, kind);
            open(host, kind);
            QVERIFY2(device.on_device(), qPrintable(tag));
            RegionsTool& d = device.regions();
            RegionsTool& h = host.regions();
            for (session::Session* s : {&device, &host}) s->select(session::ToolKind::Regions);
            add_three(d);
            add_three(h);
            for (int i = 0; i < 3; ++i) {
                const QString diff = difference(d.profile(i), h.profile(i));
                QVERIFY2(diff.isEmpty(), qPrintable(tag + QString(" region %1: ").arg(i) + diff));
                QVERIFY(nan_count(h.profile(i)) > 0);  // partly off the image
            }
            QVERIFY2(d.device_profiles() >= 3, qPrintable(tag));
            QCOMPARE(h.device_profiles(), std::uint64_t{0});

            // Pointer drags: the whole line, a polyline vertex, a rectangle corner. Each move
            // re-profiles the moved region on the device: the plan goes up (a few KB), only the
            // profile comes back.
            const struct {
                double x, y;  // where the drag starts (continuous coordinates)
            } grabs[] = {{190.25 + 0.5, 152.875 + 0.5},  // the line's middle
                         {250.25 + 0.5, 330.75 + 0.5},   // a polyline vertex off the image
                         {450.0, 250.0}};                // the rectangle's top-left corner
            for (int g = 0; g < 3; ++g) {
                for (session::Session* s : {&device, &host})
                    QVERIFY(s->regions().press(at(grabs[g].x, grabs[g].y)));
                QCOMPARE(d.selected(), g);
                QCOMPARE(h.selected(), g);
                for (int i = 1; i <= 8; ++i) {
                    const double x = grabs[g].x - 4.25 * i, y = grabs[g].y - 3.5 * i;
                    h.move(at(x, y));
                    const std::uint64_t on_device = d.device_profiles();
                    const TransferStats before = transfer_stats();
                    d.move(at(x, y));
                    const TransferStats moved = transfer_stats() - before;
                    QCOMPARE(d.device_profiles(), on_device + 1);
                    const ops::RegionProfile* p = d.profile(g);
                    const QString diff = difference(p, h.profile(g));
                    QVERIFY2(diff.isEmpty(),
                             qPrintable(tag + QString(" drag %1 move %2: ").arg(g).arg(i) + diff));
                    QCOMPARE(moved.download_bytes, std::uint64_t(p->values.size() * 4));
                    QCOMPARE(moved.uploads, std::uint64_t{1});
                    QVERIFY(moved.upload_bytes <=
                            p->plan.segments.size() * 96 + p->values.size() * 8 + 32);
                }
                for (session::Session* s : {&device, &host}) s->regions().release(at(0, 0));
                QVERIFY(d.regions() == h.regions());
            }
            QVERIFY2(device.on_device(), qPrintable(tag));
            if (kind == 2) {
                // A new calibration: the device plane is built again from the samples there.
                const Calibration millikelvin{0.5, -10.0, "mK"};
                device.set_calibration(millikelvin);
                host.set_calibration(millikelvin);
                for (int i = 0; i < 3; ++i) {
                    const QString diff = difference(d.profile(i), h.profile(i));
                    QVERIFY2(diff.isEmpty(),
                             qPrintable(QString("recalibrated %1: ").arg(i) + diff));
                }
            }
        }
    }

    void a_device_failure_falls_back_to_the_host() {
        session::Session device(true), host(false);
        open(device, 1);
        open(host, 1);
        QVERIFY(device.on_device());
        add_three(device.regions());
        add_three(host.regions());
        const std::uint64_t on_device = device.regions().device_profiles();
        QVERIFY(on_device >= 3);
        (void)device.take_notices();
        device.inject_device_failure();
        ops::ProfileRegion moved = host.regions().regions()[1];
        for (ops::Point2& v : moved.points) v = {v.x + 7.5, v.y - 3.25};
        device.regions().replace(1, moved);
        host.regions().replace(1, moved);
        QVERIFY(!device.on_device());
        bool told = false;
        for (const std::string& n : device.take_notices())
            told = told || n.find("GPU failed") != std::string::npos;
        QVERIFY(told);
        QCOMPARE(device.regions().device_profiles(), on_device);
        for (int i = 0; i < 3; ++i) {
            const QString diff = difference(device.regions().profile(i), host.regions().profile(i));
            QVERIFY2(diff.isEmpty(), qPrintable(QString("region %1: ").arg(i) + diff));
        }
    }
};

QTEST_GUILESS_MAIN(TestRegionsDevice)
#include "test_regions_device.moc"
