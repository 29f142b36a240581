// Kymographs on the CPU: a dot moving 3 px a frame gives a line of slope exactly 3, polylines
// and bands against hand-computed values, one segment against the line histogram's profile, the
// fast version against the reference (bit for bit), and bad input.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/regions.hpp>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

// Frame t: zero, one pixel of 100 at (start + 3t, row).
std::vector<ImageF32> moving_dot(const int width, const int height, const int frames,
                                 const int start, const int row) {
    std::vector<ImageF32> out;
    for (int t = 0; t < frames; ++t) {
        ImageF32 f(width, height, 0.0f);
        f.at(start + 3 * t, row) = 100.0f;
        out.push_back(std::move(f));
    }
    return out;
}

int argmax(const float* row, const int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (row[i] > row[best]) best = i;
    return best;
}

bool same_bits(const ImageF32& a, const ImageF32& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.row(y), b.row(y), sizeof(float) * static_cast<std::size_t>(a.width())))
            return false;
    return true;
}

ErrorCode error_of(const std::vector<ImageF32>& frames, const KymographParams& p,
                   QString* text = nullptr) {
    try {
        (void)kymograph_reference(frames, p);
    } catch (const Error& e) {
        if (text) *text = e.what();
        return e.code();
    }
    return ErrorCode::DeviceError;  // sentinel: nothing thrown
}

}  // namespace

class TestKymograph : public QObject {
    Q_OBJECT
  private slots:
    void moving_dot_gives_slope_three();
    void moving_dot_along_a_diagonal();
    void polyline_positions_and_values();
    void band_averages_across_the_normal();
    void band_excludes_samples_outside();
    void one_segment_equals_line_histogram_profile();
    void fast_equals_reference();
    void distances_in_the_pixel_spacing();
    void cuda_is_refused_without_cuda();
    void bad_input_is_refused();
    void rectangle_region_is_the_column_mean();
    void regions_file_reads_back_what_it_wrote();
};

void TestKymograph::moving_dot_gives_slope_three() {
    const auto frames = moving_dot(64, 9, 20, 2, 4);
    KymographParams p;
    p.path = {{0, 4}, {63, 4}};
    for (const Sampling s : {Sampling::Bilinear, Sampling::Nearest}) {
        p.sampling = s;
        const ImageF32 k = kymograph_reference(frames, p);
        QCOMPARE(k.width(), 64);
        QCOMPARE(k.height(), 20);
        // Least-squares slope of the peak's position against time: exactly 3.
        double st = 0, sx = 0, stt = 0, stx = 0;
        for (int t = 0; t < 20; ++t) {
            const int x = argmax(k.row(t), k.width());
            QCOMPARE(x, 2 + 3 * t);
            QCOMPARE(k.at(x, t), 100.0f);
            QCOMPARE(k.at(x == 0 ? 1 : x - 1, t), 0.0f);
            st += t;
            sx += x;
            stt += double(t) * t;
            stx += double(t) * x;
        }
        const double n = 20;
        QCOMPARE((n * stx - st * sx) / (n * stt - st * st), 3.0);
        QVERIFY(same_bits(k, kymograph_fast(frames, p)));
    }
}

void TestKymograph::moving_dot_along_a_diagonal() {
    // The dot moves (3, 3) a frame along the diagonal; the line's positions are sqrt(2) apart
    // and ceil(L)+1 of them, so the peak moves 3·sqrt(2) positions a frame (within a position).
    std::vector<ImageF32> frames;
    for (int t = 0; t < 10; ++t) {
        ImageF32 f(40, 40, 0.0f);
        f.at(3 * t + 5, 3 * t + 5) = 50.0f;
        frames.push_back(std::move(f));
    }
    KymographParams p;
    p.path = {{0, 0}, {39, 39}};
    const ImageF32 k = kymograph_fast(frames, p);
    const KymographPlan plan = plan_kymograph(40, 40, p);
    for (int t = 0; t < 10; ++t) {
        const Point2 at = plan.point(argmax(k.row(t), k.width()));
        QVERIFY(std::abs(at.x - (3 * t + 5)) <= 0.5);
        QVERIFY(std::abs(at.y - (3 * t + 5)) <= 0.5);
    }
}

void TestKymograph::polyline_positions_and_values() {
    // value = x + 100 y: bilinear sampling reproduces it exactly at any point inside.
    ImageF32 f(16, 16);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) f.at(x, y) = float(x + 100 * y);
    KymographParams p;
    p.path = {{0, 0}, {10, 0}, {10, 10}, {4, 2}};  // 10 + 10 + 10 pixels long
    const KymographPlan plan = plan_kymograph(16, 16, p);
    QCOMPARE(plan.positions(), 11 + 10 + 10);  // shared vertices counted once
    QCOMPARE(plan.length(), 30.0);
    QCOMPARE(plan.distance[15], 15.0);
    QCOMPARE(plan.point(15).x, 10.0);
    QCOMPARE(plan.point(15).y, 5.0);
    QCOMPARE(plan.point(20).y, 10.0);
    QCOMPARE(plan.point(30).x, 4.0);
    QCOMPARE(plan.point(30).y, 2.0);
    const ImageF32 k = kymograph_reference({f}, p);
    QCOMPARE(k.width(), 31);
    for (int i = 0; i <= 10; ++i) QCOMPARE(k.at(i, 0), float(i));                  // along the top
    for (int i = 0; i <= 10; ++i) QCOMPARE(k.at(10 + i, 0), float(10 + 100 * i));  // down
    // The last segment runs from (10, 10) to (4, 2), 10 pixels in 10 steps of (-0.6, -0.8).
    for (int i = 0; i <= 10; ++i) {
        const double x = 10 - 0.6 * i, y = 10 - 0.8 * i;
        QVERIFY2(std::abs(k.at(20 + i, 0) - (x + 100 * y)) < 1e-3, qPrintable(QString::number(i)));
    }
}

void TestKymograph::band_averages_across_the_normal() {
    // value = x²: a vertical segment with a band of 3 averages x-1, x, x+1 (nearest sampling:
    // the band's points fall on pixel centres); a horizontal one with value = y² the rows.
    ImageF32 f(12, 12);
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 12; ++x) f.at(x, y) = float(x * x + 1000 * y * y);
    KymographParams p;
    p.band_width = 3;
    p.sampling = Sampling::Nearest;
    p.path = {{5, 1}, {5, 6}, {9, 6}};  // down, then right: the band follows each normal
    const ImageF32 k = kymograph_reference({f}, p);
    QCOMPARE(k.width(), 6 + 4);
    for (int i = 0; i <= 5; ++i) {
        const int y = 1 + i;
        QCOMPARE(k.at(i, 0), float((16 + 25 + 36) / 3.0 + 1000.0 * y * y));
    }
    for (int i = 1; i <= 4; ++i) {
        const int x = 5 + i;
        QCOMPARE(k.at(5 + i, 0), float(x * x + 1000.0 * (25 + 36 + 49) / 3.0));
    }
    // A band of 5 on the same vertical line, bilinear: the mean of x² over x = 3..7.
    p.band_width = 5;
    p.sampling = Sampling::Bilinear;
    p.path = {{5, 2}, {5, 8}};
    const ImageF32 k5 = kymograph_fast({f}, p);
    for (int i = 0; i <= 6; ++i) {
        const double y = 2 + i;
        QVERIFY(std::abs(k5.at(i, 0) - ((9 + 16 + 25 + 36 + 49) / 5.0 + 1000 * y * y)) < 1e-2);
    }
}

void TestKymograph::band_excludes_samples_outside() {
    ImageF32 f(8, 8);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) f.at(x, y) = float(x);
    KymographParams p;
    p.band_width = 3;
    p.sampling = Sampling::Nearest;
    p.path = {{0, 1}, {0, 5}};  // the band reaches x = -1: those samples are left out
    const ImageF32 k = kymograph_reference({f}, p);
    for (int i = 0; i < k.width(); ++i) QCOMPARE(k.at(i, 0), 0.5f);
    // Positions wholly outside the image hold NaN; the path is not clipped.
    p.band_width = 1;
    p.path = {{-3, 2}, {3, 2}};
    const ImageF32 out = kymograph_fast({f}, p);
    QCOMPARE(out.width(), 7);
    for (int i = 0; i < 3; ++i) QVERIFY(std::isnan(out.at(i, 0)));
    for (int i = 3; i < 7; ++i) QCOMPARE(out.at(i, 0), float(i - 3));
    // NaN samples are left out of the mean.
    f.at(4, 3) = NAN;
    p.band_width = 3;
    p.path = {{4, 1}, {4, 5}};
    const ImageF32 nan_band = kymograph_reference({f}, p);
    QCOMPARE(nan_band.at(2, 0), 4.0f);  // (3 + 5) / 2 at y = 3
}

void TestKymograph::one_segment_equals_line_histogram_profile() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-50.0f, 200.0f);
    ImageF32 f(41, 33);
    for (int y = 0; y < 33; ++y)
        for (int x = 0; x < 41; ++x) f.at(x, y) = value(rng);
    const HistogramSource source(f.view());
    for (const int band : {1, 4, 9}) {
        LineHistogramParams lp;
        lp.from = {6.3, 7.7};
        lp.to = {33.1, 25.4};
        lp.band_width = band;
        const LineHistogram h = line_histogram_reference(source, lp);
        KymographParams kp;
        kp.path = {lp.from, lp.to};
        kp.band_width = band;
        const ImageF32 k = kymograph_reference({f}, kp);
        QCOMPARE(k.width(), h.positions);
        for (int i = 0; i < h.positions; ++i) {
            const float a = k.at(i, 0), b = h.channels[0].mean[static_cast<std::size_t>(i)];
            QVERIFY2(a == b || (std::isnan(a) && std::isnan(b)), qPrintable(QString::number(i)));
        }
    }
}

void TestKymograph::fast_equals_reference() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> value(0.0f, 1000.0f);
    for (const int frames : {1, 3, 37}) {
        std::vector<ImageF32> stack;
        for (int t = 0; t < frames; ++t) {
            ImageF32 f(53, 29);
            for (int y = 0; y < 29; ++y)
                for (int x = 0; x < 53; ++x) f.at(x, y) = value(rng);
            f.at(t % 53, 10) = NAN;
            stack.push_back(std::move(f));
        }
        for (const Sampling s : {Sampling::Bilinear, Sampling::Nearest})
            for (const int band : {1, 2, 7}) {
                KymographParams p;
                p.sampling = s;
                p.band_width = band;
                p.path = {{-4.5, 3.25}, {30.7, 20.1}, {60.2, 2.0}, {12.0, 27.9}};
                QVERIFY(same_bits(kymograph_reference(stack, p), kymograph_fast(stack, p)));
            }
    }
}

// Distances in the data's unit: 10 px across at 0.5 mm a column, then 4 px down at 2 mm a row.
void TestKymograph::distances_in_the_pixel_spacing() {
    KymographParams p;
    p.path = {{1, 1}, {11, 1}, {11, 5}};
    const KymographPlan plan = plan_kymograph(16, 8, p);
    QCOMPARE(plan.positions(), 15);
    const std::vector<double> mm = kymograph_distances(plan, {0.5, 2.0, "mm"});
    for (int i = 0; i <= 10; ++i) QCOMPARE(mm[std::size_t(i)], 0.5 * i);
    for (int i = 1; i <= 4; ++i) QCOMPARE(mm[std::size_t(10 + i)], 5.0 + 2.0 * i);
    QCOMPARE(kymograph_distances(plan, {}), plan.distance);  // unknown: pixels
    // A diagonal of an anisotropic pixel: sqrt((3 * 0.5)^2 + (4 * 2)^2) mm over 5 steps.
    p.path = {{0, 0}, {3, 4}};
    const KymographPlan diagonal = plan_kymograph(16, 8, p);
    const std::vector<double> d = kymograph_distances(diagonal, {0.5, 2.0, "mm"});
    QCOMPARE(d.back(), std::hypot(1.5, 8.0));
    QCOMPARE(d[2], std::hypot(1.5, 8.0) * 2 / 5);
}

// A CPU-only build says so in a sentence (tests/cuda compares the device path where there is one).
void TestKymograph::cuda_is_refused_without_cuda() {
    if (cuda_built()) QSKIP("this build has CUDA: tests/cuda/test_kymograph_cuda covers it");
    KymographParams p;
    p.path = {{0, 0}, {5, 5}};
    QString text;
    try {
        (void)kymograph_cuda(moving_dot(16, 8, 2, 0, 0), p,
                             nullptr);  // check-device-streams: allow
    } catch (const Error& e) {
        QCOMPARE(e.code(), ErrorCode::CudaUnavailable);
        text = e.what();
    }
    QVERIFY2(text.contains("CPU-only"), qPrintable(text));
}

void TestKymograph::bad_input_is_refused() {
    const std::vector<ImageF32> frames = moving_dot(16, 8, 2, 0, 0);
    KymographParams p;
    QString text;
    p.path = {{1, 1}};
    QCOMPARE(error_of(frames, p, &text), ErrorCode::InvalidArgument);
    QVERIFY(text.contains("at least two points"));
    p.path = {{1, 1}, {5, 1}, {5, 1}};
    QCOMPARE(error_of(frames, p, &text), ErrorCode::InvalidArgument);
    QVERIFY(text.contains("segment 2") && text.contains("zero length"));
    p.path = {{1, 1}, {NAN, 1}};
    QCOMPARE(error_of(frames, p), ErrorCode::InvalidArgument);
    p.path = {{1, 1}, {2e9, 1}};
    QCOMPARE(error_of(frames, p), ErrorCode::InvalidArgument);
    p.path = {{0, 0}, {9e8, 1}};  // within the coordinate bound, far too long: refused at once
    QCOMPARE(error_of(frames, p, &text), ErrorCode::InvalidArgument);
    QVERIFY2(text.contains("positions long"), qPrintable(text));
    p.path = {{1, 1}, {5, 1}};
    p.band_width = 0;
    QCOMPARE(error_of(frames, p, &text), ErrorCode::InvalidArgument);
    QVERIFY(text.contains("band width"));
    p.band_width = 1;
    QCOMPARE(error_of({}, p), ErrorCode::EmptyImage);
    std::vector<ImageF32> mixed = moving_dot(16, 8, 2, 0, 0);
    mixed.emplace_back(15, 8, 0.0f);
    QCOMPARE(error_of(mixed, p, &text), ErrorCode::InvalidArgument);
    QVERIFY(text.contains("frame 3"));
    bool threw = false;
    try {
        (void)kymograph_fast(mixed, p);
    } catch (const Error&) {
        threw = true;
    }
    QVERIFY(threw);
}

// A rectangle's profile: per column, the mean (double sum, rounded once) of its rows' pixels
// inside the image and not NaN — summed here directly, top row first.
void TestKymograph::rectangle_region_is_the_column_mean() {
    ImageF32 plane(23, 17);
    for (int y = 0; y < 17; ++y)
        for (int x = 0; x < 23; ++x) plane.at(x, y) = 0.37f * x * x - 1.3f * y + 0.01f * x * y;
    plane.at(6, 4) = std::numeric_limits<float>::quiet_NaN();
    for (const int height : {1, 4, 7}) {
        ops::ProfileRegion r;
        r.shape = ops::RegionShape::Rectangle;
        r.x = 3;
        r.y = 2;
        r.width = 24;  // runs off the right edge: NaN there
        r.height = height;
        const ops::RegionProfile p = ops::profile_region(r, plane.view());
        QCOMPARE(p.plan.positions(), 24);
        for (int c = 0; c < 24; ++c) {
            double sum = 0;
            int n = 0;
            for (int y = 2; y < 2 + height; ++y) {
                const int x = 3 + c;
                if (x >= 23 || std::isnan(plane.at(x, y))) continue;
                sum += plane.at(x, y);
                ++n;
            }
            const float expected =
                n ? static_cast<float>(sum / n) : std::numeric_limits<float>::quiet_NaN();
            const float got = p.values[std::size_t(c)];
            QVERIFY2(std::isnan(expected) ? std::isnan(got) : got == expected,
                     qPrintable(QString("column %1 height %2").arg(c).arg(height)));
        }
    }
}

void TestKymograph::regions_file_reads_back_what_it_wrote() {
    const std::string text =
        R"([{"name": "a\u0001\"b\\", "type": "line", "points": [[0.1, -0], [1e5, )"
        R"(3.3333333333333335]], "width": 7, "color": "#aBcDeF"},
           {"name": "p", "type": "polyline", "points": [[0, 0], [5e-324, 1], [2, 2]],
            "sampling": "nearest"},
           {"name": "r", "type": "rectangle", "x": -3.25, "y": 1e-7, "width": 2, "height": 9}])";
    const std::vector<ops::ProfileRegion> regions = ops::parse_regions(text, "t.json");
    QCOMPARE(regions.size(), std::size_t(3));
    QCOMPARE(regions[0].name, std::string("a\x01\"b\\"));
    QCOMPARE(regions[0].points[1].y, 3.3333333333333335);
    QCOMPARE(regions[0].color, std::string("#aBcDeF"));
    QVERIFY(regions[1].sampling == Sampling::Nearest);
    QVERIFY(!regions[2].sampling);
    QCOMPARE(regions[2].params().sampling, Sampling::Nearest);
    QCOMPARE(regions[2].params().path[1].x, -3.25 + 1);
    QVERIFY(ops::parse_regions(ops::regions_json(regions), "back.json") == regions);
    // An empty list: refused by default (the CLI), accepted on request (the editor).
    QVERIFY_THROWS_EXCEPTION(Error, (void)ops::parse_regions("[]", "e.json"));
    QVERIFY(ops::parse_regions(ops::regions_json({}), "e.json", true).empty());
    // The writer refuses what the reader would.
    std::vector<ops::ProfileRegion> twice{regions[0], regions[0]};
    QVERIFY_THROWS_EXCEPTION(Error, (void)ops::regions_json(twice));
    ops::ProfileRegion bad = regions[2];
    bad.color = "red";
    QVERIFY_THROWS_EXCEPTION(Error, (void)ops::regions_json({bad}));
}

QTEST_GUILESS_MAIN(TestKymograph)
#include "test_kymograph.moc"
