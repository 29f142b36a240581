// Line and direction histograms on the CPU: sample positions and values against scikit-image's
// profile_line (committed fixtures), hand-computed cases, the fast version against the reference,
// and every kind of bad input.
#include "histogram_test_util.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <QtTest>

#include <vector>

#include "fixtures/profile_line_fixtures.inc"

using namespace lacuna;
using namespace lacuna::ops;

namespace {

float fixture_value(const int x, const int y) {
    return float((x * 37 + y * 91) % 101) + 0.5f * float(x);
}

ImageF32 fixture_image() {
    ImageF32 image(23, 17);
    for (int y = 0; y < 17; ++y)
        for (int x = 0; x < 23; ++x) image.at(x, y) = fixture_value(x, y);
    return image;
}

ErrorCode error_of(const HistogramSource& source, const LineHistogramParams& p,
                   QString* text = nullptr) {
    try {
        (void)line_histogram_reference(source, p);
    } catch (const Error& e) {
        if (text) *text = e.what();
        return e.code();
    }
    return ErrorCode::DeviceError;  // sentinel: nothing thrown
}

}  // namespace

class TestLineHistogram : public QObject {
    Q_OBJECT
    std::mt19937 rng_{77};

  private slots:
    void positions_and_values_match_scikit_image() {
        const ImageF32 image = fixture_image();
        const HistogramSource source(image.view());
        int compared_nearest = 0, compared_bilinear = 0;
        for (const ProfileFixture& f : kProfileFixtures) {
            LineHistogramParams p;
            p.from = {f.x0, f.y0};
            p.to = {f.x1, f.y1};
            p.band_width = f.band;
            const LinePlan plan = plan_line(source, p);
            QCOMPARE(plan.geometry.positions, f.positions);
            QVERIFY(!plan.clipped);
            for (int i = 0; i < f.positions; ++i) {
                for (int j = 0; j < f.band; ++j) {
                    const std::size_t k = std::size_t(i) * f.band + j;
                    double x = 0, y = 0;
                    line_sample_point(plan.geometry, i, j, x, y);
                    QVERIFY2(std::abs(x - f.xs[k]) < 1e-9 && std::abs(y - f.ys[k]) < 1e-9,
                             qPrintable(QString("line %1 sample %2,%3: %4,%5 vs %6,%7")
                                            .arg(f.x0)
                                            .arg(i)
                                            .arg(j)
                                            .arg(x)
                                            .arg(y)
                                            .arg(f.xs[k])
                                            .arg(f.ys[k])));
                    float v = 0;
                    const bool inside_nearest = sample_nearest(image.view(), x, y, v);
                    QCOMPARE(inside_nearest, !std::isnan(f.nearest[k]));
                    if (inside_nearest) {
                        QVERIFY2(
                            double(v) == f.nearest[k],
                            qPrintable(QString("line from %1,%2 sample %3,%4 at %5,%6: %7 vs %8")
                                           .arg(f.x0)
                                           .arg(f.y0)
                                           .arg(i)
                                           .arg(j)
                                           .arg(x)
                                           .arg(y)
                                           .arg(v)
                                           .arg(f.nearest[k])));
                        ++compared_nearest;
                    }
                    // scipy's constant mode blends cval into the last pixel's outer half; inside
                    // [0, w-1] x [0, h-1] both interpolate the same four pixels.
                    if (sample_bilinear(image.view(), x, y, v)) {
                        QVERIFY2(!std::isnan(f.bilinear[k]),
                                 "a sample Lacuna reads must be inside for scikit-image too");
                        QVERIFY2(std::abs(double(v) - f.bilinear[k]) < 1e-4,
                                 qPrintable(QString("%1 vs %2").arg(v).arg(f.bilinear[k])));
                        ++compared_bilinear;
                    }
                }
            }
        }
        QVERIFY(compared_nearest > 200);
        QVERIFY(compared_bilinear > 200);
    }

    void segment_grazing_the_edge_keeps_both_ends() {
        // Regression (fuzz/fuzz_line_histogram.cpp): clipped to the image, this line keeps a
        // segment 1e-300 long at (0, 9); length + 1 rounded to 1 gave one position and NaN steps.
        ImageRgba8 image(16, 12, Rgba8{10, 20, 30, 255});
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {-2, 3};
        p.to = {1e-300, 9};
        const LinePlan plan = plan_line(source, p);
        QVERIFY(plan.clipped);
        QCOMPARE(plan.geometry.positions, 2);
        QVERIFY(std::isfinite(plan.geometry.step_x) && std::isfinite(plan.geometry.step_y));
        const LineHistogram reference = line_histogram_reference(source, p);
        const LineHistogram fast = line_histogram_fast(source, p);
        QCOMPARE(reference.positions, 2);
        QCOMPARE(fast.channels.front().counts, reference.channels.front().counts);
        QCOMPARE(reference.channels.front().samples, (std::vector<std::uint32_t>{1, 1}));
    }

    void far_away_endpoints_are_refused() {
        // Regression (fuzz/fuzz_line_histogram.cpp): this segment lies wholly left of the image,
        // but clipping it in doubles lost about 1e254 pixels, "clipped" it to a segment 1e144
        // long and converted that length to int (undefined behaviour; any count at all).
        ImageRgba8 image(16, 9, Rgba8{10, 20, 30, 255});
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {-1.0566888188147059e+270, -4.318825305619397e+140};
        p.to = {-1.4568159901474629e+144, 1.04342784217184e-309};
        QString text;
        QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
        QVERIFY2(text.contains("within"), qPrintable(text));
        // Within the bound the clip stays exact: a line from far left to far right is clipped to
        // the row it crosses.
        p.from = {-kMaxLineCoordinate, 4};
        p.to = {kMaxLineCoordinate, 4};
        const LinePlan plan = plan_line(source, p);
        QVERIFY(plan.clipped);
        QVERIFY(std::abs(plan.geometry.x0) < 1e-6 && std::abs(plan.geometry.x1 - 15) < 1e-6);
        QVERIFY(plan.geometry.positions == 16 || plan.geometry.positions == 17);
    }

    void direction_a_hair_off_the_axis_matches_the_reference() {
        // Regression (fuzz/fuzz_line_histogram.cpp): at 3.2e-8 degrees the row range of some
        // columns was billions of rows beyond the square; converting it to int was undefined
        // (INT_MIN on x86: the fast version walked two billion rows per column, seconds instead
        // of a millisecond).
        ImageRgba8 image(16, 12, Rgba8{10, 20, 30, 255});
        const HistogramSource source(image.view());
        DirectionHistogramParams p;
        p.angle_degrees = 3.16576936193452e-08;
        p.bins = 2289;
        const DirectionPlan plan = plan_direction(source, p);
        const int extent = plan.geometry.extent;
        for (int column = 0; column < extent; ++column) {
            int first = 0, last = 0;
            direction_row_range(plan.geometry, column, 16, 12, first, last);
            QVERIFY2(
                first >= 0 && first <= extent && last >= -1 && last < extent,
                qPrintable(QString("column %1: rows %2..%3").arg(column).arg(first).arg(last)));
        }
        const DirectionHistogram reference = direction_histogram_reference(source, p);
        const DirectionHistogram fast = direction_histogram_fast(source, p);
        QCOMPARE(fast.samples_outside, reference.samples_outside);
        QCOMPARE(fast.samples_out_of_range, reference.samples_out_of_range);
        QVERIFY(fast.counts == reference.counts);
    }

    void horizontal_line_counts_by_hand() {
        // Luminance x * 20 along a row: nearest samples at x = 0..9, one count each.
        ImageRgba8 image(10, 5);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 10; ++x)
                image.at(x, y) =
                    Rgba8{std::uint8_t(x * 20), std::uint8_t(x * 20), std::uint8_t(x * 20), 255};
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {0, 2};
        p.to = {9, 2};
        p.sampling = Sampling::Nearest;
        const LineHistogram h = line_histogram_reference(source, p);
        QCOMPARE(h.positions, 10);
        QCOMPARE(h.bins, 256);
        QCOMPARE(h.samples_outside, std::int64_t{0});
        for (int x = 0; x < 10; ++x) {
            const int bin = x * 20;  // 256 bins over 0..255: integer values keep their bin
            QCOMPARE(h.channels[0].count(bin, x, 256), 1u);
            QCOMPARE(h.channels[0].mean[x], h.channels[0].median[x]);
            QVERIFY(std::abs(h.channels[0].mean[x] - float(x * 20)) < 1e-3f);
        }
        std::uint64_t total = 0;
        for (const auto c : h.channels[0].counts) total += c;
        QCOMPARE(total, std::uint64_t{10});
    }

    void a_missing_value_blanks_only_its_own_samples() {
        // One NaN in a float plane; a bilinear line along pixel centres (row 3, and a band of 3
        // rows) reads it only at its own position: its neighbours keep their values (a
        // zero-weight tap must not turn them into NaN).
        ImageF32 values(9, 7);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 9; ++x) values.at(x, y) = float(10 * x + y);
        values.at(4, 3) = NAN;
        const HistogramSource source(values.view());
        LineHistogramParams p;
        p.from = {0, 3};
        p.to = {8, 3};
        p.sampling = Sampling::Bilinear;
        p.range = std::pair{0.0f, 100.0f};
        for (const int band : {1, 3}) {
            p.band_width = band;
            const LineHistogram h = line_histogram_reference(source, p);
            for (int x = 0; x < 9; ++x) {
                const std::uint32_t expected =
                    x == 4 ? std::uint32_t(band - 1) : std::uint32_t(band);
                QCOMPARE(h.channels[0].samples[std::size_t(x)], expected);
            }
            QCOMPARE(h.samples_out_of_range, std::int64_t{1});  // the NaN itself
            QCOMPARE(h.channels[0].mean[3], 33.0f);
            QCOMPARE(h.channels[0].mean[5], 53.0f);
            const LineHistogram fast = line_histogram_fast(source, p);
            QVERIFY(fast.channels[0].samples == h.channels[0].samples);
        }
    }

    void band_profile_by_hand() {
        // Column values 0, 10, 20, 30, 40 across a 5-wide vertical band at x = 2: a vertical line
        // down the middle column samples x = 0..4 (band) at each y.
        ImageF32 image(5, 4);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 5; ++x) image.at(x, y) = float(x * 10 + (x == 4 ? y : 0));
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {2, 0};
        p.to = {2, 3};
        p.band_width = 5;
        p.sampling = Sampling::Nearest;
        p.range = std::pair{0.0f, 50.0f};
        p.bins = 5;
        const LineHistogram h = line_histogram_reference(source, p);
        QCOMPARE(h.positions, 4);
        const ChannelHistogram& c = h.channels[0];
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(c.samples[i], 5u);
            QCOMPARE(c.min[i], 0.0f);
            QCOMPARE(c.max[i], float(40 + i));
            QCOMPARE(c.median[i], 20.0f);
            QCOMPARE(c.mean[i], float((0 + 10 + 20 + 30 + 40 + i) / 5.0));
            for (int b = 0; b < 5; ++b)
                QCOMPARE(c.count(b, i, 5), 1u);  // 0,10,20,30,4x → bins 0..4
        }
        // Even sample count: median is the mean of the two middle values.
        p.band_width = 4;
        p.from = {1.5, 0};
        p.to = {1.5, 3};
        const LineHistogram even = line_histogram_reference(source, p);
        QCOMPARE(even.channels[0].samples[0], 4u);  // x = 0, 1, 2, 3 after rounding 0, 1, 2, 3
    }

    void samples_outside_are_excluded_not_clamped() {
        const ImageF32 image = fixture_image();
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {0, 0};
        p.to = {22, 0};  // along the top edge: half the band hangs outside
        p.band_width = 9;
        p.sampling = Sampling::Nearest;
        const LineHistogram h = line_histogram_reference(source, p);
        QCOMPARE(h.positions, 23);
        QCOMPARE(h.samples_outside, std::int64_t{23 * 4});
        for (int i = 0; i < 23; ++i) QCOMPARE(h.channels[0].samples[i], 5u);
    }

    void endpoints_outside_are_clipped() {
        const ImageF32 image = fixture_image();
        const HistogramSource source(image.view());
        LineHistogramParams p;
        p.from = {-10, 8};
        p.to = {40, 8};
        const LineHistogram h = line_histogram_reference(source, p);
        QVERIFY(h.clipped);
        QCOMPARE(h.geometry.x0, 0.0);
        QCOMPARE(h.geometry.x1, 22.0);
        QCOMPARE(h.positions, 23);
        QCOMPARE(h.requested_from.x, -10.0);
    }

    void bad_input_is_refused_clearly() {
        const ImageF32 image = fixture_image();
        const HistogramSource source(image.view());
        const ImageRgba8 photo = test::random_photo(8, 8, rng_);
        const HistogramSource photo_source(photo.view());
        LineHistogramParams ok;
        ok.from = {1, 1};
        ok.to = {10, 12};
        QString text;
        auto p = ok;
        p.to = p.from;
        QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("zero length"));
        p = ok;
        p.from = {-50, -50};
        p.to = {-10, -30};
        QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
        QVERIFY2(text.contains("wholly outside"), qPrintable(text));
        for (const int bins : {0, -3, kMaxHistogramBins + 1}) {
            p = ok;
            p.bins = bins;
            QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
            QVERIFY(text.contains("bins must be from 1 to 65536"));
        }
        for (const int width : {0, kMaxBandWidth + 1}) {
            p = ok;
            p.band_width = width;
            QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
            QVERIFY(text.contains("band width"));
        }
        for (const auto& range :
             {std::pair{5.0f, 5.0f}, std::pair{9.0f, 2.0f}, std::pair{0.0f, float(INFINITY)}}) {
            p = ok;
            p.range = range;
            QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
            QVERIFY(text.contains("range"));
        }
        p = ok;
        p.from.x = NAN;
        QCOMPARE(error_of(source, p), ErrorCode::InvalidArgument);
        p = ok;
        p.channel = HistogramChannel::Red;
        QCOMPARE(error_of(source, p, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("measurement image"));
        p = ok;
        p.bins = kMaxHistogramBins;  // the largest allowed works
        QCOMPARE(line_histogram_reference(source, p).bins, kMaxHistogramBins);
        QCOMPARE(error_of(photo_source, ok), ErrorCode::DeviceError);  // a valid request: no error
    }

    void fast_equals_reference() {
        struct Case {
            int w, h;
            LineHistogramParams p;
        };
        std::vector<Case> cases;
        for (const auto& [w, h] : {std::pair{1, 31}, {31, 1}, {37, 23}, {640, 479}, {1001, 997}}) {
            std::uniform_real_distribution<double> ux(-3.0, w + 2.0), uy(-3.0, h + 2.0);
            for (int k = 0; k < 6; ++k) {
                LineHistogramParams p;
                p.from = {ux(rng_), uy(rng_)};
                p.to = {ux(rng_), uy(rng_)};
                if (w == 1)
                    p.from.x = p.to.x = 0;  // a 1-pixel-wide image: a vertical line through it
                if (h == 1) p.from.y = p.to.y = 0;
                p.band_width = std::array{1, 2, 3, 17, 64, 301}[k];
                p.sampling = k % 2 ? Sampling::Nearest : Sampling::Bilinear;
                p.channel = std::array{HistogramChannel::Luminance, HistogramChannel::Rgb,
                                       HistogramChannel::Green}[k % 3];
                p.bins = std::array{256, 7, 65536, 100, 256, 1000}[k];
                if (k == 3) p.range = std::pair{40.0f, 200.0f};
                cases.push_back({w, h, p});
            }
        }
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 image = test::random_photo(c.w, c.h, rng_);
            const HistogramSource source(image.view());
            LineHistogram gold;
            try {
                gold = line_histogram_reference(source, c.p);
            } catch (const Error&) {
                continue;  // a random segment that misses a 1-pixel image entirely
            }
            const QString diff = test::compare(gold, line_histogram_fast(source, c.p));
            QVERIFY2(diff.isEmpty(), qPrintable(QString("%1x%2: %3").arg(c.w).arg(c.h).arg(diff)));
            ++compared;
        }
        QVERIFY2(compared >= 25, qPrintable(QString::number(compared)));
    }

    void direction_rows_by_hand() {
        // 4 x 3 image: diagonal 5, so at 0 degrees columns 1..3 are exactly image rows 0..2.
        ImageF32 image(4, 3);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x) image.at(x, y) = float(y * 4 + x);
        const HistogramSource source(image.view());
        DirectionHistogramParams p;
        p.angle_degrees = 0;
        p.bins = 12;
        p.range = std::pair{0.0f, 12.0f};
        const DirectionHistogram h = direction_histogram_reference(source, p);
        QCOMPARE(h.positions, 5);
        for (int row = 0; row < 3; ++row) {
            for (int bin = 0; bin < 12; ++bin) {
                const std::uint32_t expected = bin / 4 == row ? 1u : 0u;
                QCOMPARE(h.counts[0][std::size_t(row + 1) * 12 + bin], expected);
            }
        }
        QCOMPARE(h.samples_outside, std::int64_t{25 - 12});
        const DirectionColumn column = direction_column_of(4, 3, {0, 1}, {3, 1});
        QCOMPARE(column.column, 2);  // image row 1
        QCOMPARE(column.angle_degrees, 0.0);
        // 90 degrees: columns are image columns, in reverse order (the normal points to -x).
        p.angle_degrees = 90;
        const DirectionHistogram v = direction_histogram_reference(source, p);
        std::uint64_t total = 0;
        for (const auto c : v.counts[0]) total += c;
        QCOMPARE(total, std::uint64_t{12});
        const DirectionColumn down = direction_column_of(4, 3, {3, 0}, {3, 2});
        QCOMPARE(down.angle_degrees, 90.0);
        for (int bin = 0; bin < 12; ++bin) {
            QCOMPARE(v.counts[0][std::size_t(down.column) * 12 + bin], (bin % 4 == 3) ? 1u : 0u);
        }
    }

    void direction_fast_equals_reference() {
        for (const auto& [w, h] : {std::pair{1, 1}, {1, 40}, {57, 31}, {320, 241}}) {
            const ImageRgba8 image = test::random_photo(w, h, rng_);
            const HistogramSource source(image.view());
            for (const double angle : {0.0, 45.0, 90.0, -30.0, 137.5, 180.0, 271.0}) {
                DirectionHistogramParams p;
                p.angle_degrees = angle;
                p.channel = angle > 100 ? HistogramChannel::Rgb : HistogramChannel::Luminance;
                p.sampling = angle == 45.0 ? Sampling::Bilinear : Sampling::Nearest;
                const DirectionHistogram gold = direction_histogram_reference(source, p);
                const QString diff = test::compare(gold, direction_histogram_fast(source, p));
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1x%2 at %3: %4").arg(w).arg(h).arg(angle).arg(diff)));
                // Every sample of the rotated square is counted once: inside (binned) or outside.
                std::uint64_t total = 0;
                for (const auto c : gold.counts[0]) total += c;
                QCOMPARE(std::int64_t(total) + gold.samples_outside,
                         std::int64_t(gold.positions) * gold.positions);
            }
        }
    }

    void shape_plans_like_the_source() {
        // The CUDA histogrammer plans from a source's shape alone (its planes are on the device).
        const ImageRgba8 image = test::random_photo(37, 23, rng_);
        const HistogramSource photo(image.view());
        const HistogramSource values(fixture_image().view());
        for (const HistogramSource* source : {&photo, &values}) {
            const HistogramSource shape = source->shape();
            QVERIFY(source->has_planes());
            QVERIFY(!shape.has_planes());
            QCOMPARE(shape.width(), source->width());
            QCOMPARE(shape.height(), source->height());
            QCOMPARE(shape.is_measurement(), source->is_measurement());
            QVERIFY(shape.natural_range() == source->natural_range());
            QVERIFY_THROWS_EXCEPTION(Error, (void)shape.plane(HistogramChannel::Luminance));
            LineHistogramParams p;
            p.from = {-2.5, 3.25};
            p.to = {30.5, 40.0};
            p.band_width = 5;
            p.channel = source->is_measurement() ? HistogramChannel::Value : HistogramChannel::Rgb;
            const LinePlan a = plan_line(*source, p);
            const LinePlan b = plan_line(shape, p);
            QCOMPARE(b.geometry.positions, a.geometry.positions);
            QCOMPARE(b.geometry.x0, a.geometry.x0);
            QCOMPARE(b.geometry.y1, a.geometry.y1);
            QCOMPARE(b.geometry.half_x, a.geometry.half_x);
            QCOMPARE(b.mapping.lo, a.mapping.lo);
            QCOMPARE(b.mapping.hi, a.mapping.hi);
            QCOMPARE(b.mapping.scale, a.mapping.scale);
            QCOMPARE(b.clipped, a.clipped);
            QVERIFY(b.planes == a.planes);
            DirectionHistogramParams d;
            d.angle_degrees = 20;
            QCOMPARE(plan_direction(shape, d).geometry.extent,
                     plan_direction(*source, d).geometry.extent);
        }
        const HistogramSource described = HistogramSource::photo_shape(37, 23);
        QCOMPARE(described.width(), 37);
        QCOMPARE(described.height(), 23);
        QVERIFY(!described.is_measurement());
        QVERIFY(described.natural_range() == photo.natural_range());
        QVERIFY(!described.has_planes());
        QVERIFY_THROWS_EXCEPTION(Error, HistogramSource::photo_shape(0, 5));
    }
};

QTEST_GUILESS_MAIN(TestLineHistogram)
#include "test_line_histogram.moc"
