// The CPU brush: coverage at known distances, hardness limits, the eraser, clipping at the
// borders, dab spacing along a segment and the rectangles it reports.
#include <lacuna/kernels/brush_math.h>
#include <lacuna/ops/brush.hpp>

#include <QtTest>

#include <cmath>
#include <limits>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

BrushSettings brush(const double radius, const double hardness, const bool erase = false) {
    BrushSettings b;
    b.radius = radius;
    b.hardness = hardness;
    b.erase = erase;
    return b;
}

bool same_mask(const Mask& a, const Mask& b) {
    return equal_pixels<std::uint8_t>(a.view(), b.view());
}

}  // namespace

class TestBrush : public QObject {
    Q_OBJECT

  private slots:
    void coverage_at_known_distances() {
        const BrushSettings b = brush(10, 0.5);  // full to 5, then linear to 0 at 10
        QCOMPARE(int(dab_coverage(0.0, b)), 255);
        QCOMPARE(int(dab_coverage(5.0, b)), 255);
        QCOMPARE(int(dab_coverage(7.5, b)), 128);  // 127.5 rounds half away from zero
        QCOMPARE(int(dab_coverage(9.0, b)), 51);   // 255 × 0.2
        QCOMPARE(int(dab_coverage(6.0, b)), 204);  // 255 × 0.8
        QCOMPARE(int(dab_coverage(10.0, b)), 0);
        QCOMPARE(int(dab_coverage(10.5, b)), 0);
        QCOMPARE(int(dab_coverage(1e9, b)), 0);
    }

    void hardness_limits() {
        // Hardness 0: the falloff starts at the centre.
        QCOMPARE(int(dab_coverage(0.0, brush(4, 0))), 255);
        QCOMPARE(int(dab_coverage(1.0, brush(4, 0))), 191);  // 255 × 0.75 = 191.25
        QCOMPARE(int(dab_coverage(3.0, brush(4, 0))), 64);   // 63.75
        QCOMPARE(int(dab_coverage(4.0, brush(4, 0))), 0);
        // Hardness 1: full coverage to the edge, nothing beyond.
        QCOMPARE(int(dab_coverage(4.0, brush(4, 1))), 255);
        QCOMPARE(int(dab_coverage(std::nextafter(4.0, 5.0), brush(4, 1))), 0);
        // Out-of-range hardness is clamped; NaN counts as 0.
        QCOMPARE(int(dab_coverage(1.0, brush(4, 7))), 255);
        QCOMPARE(int(dab_coverage(1.0, brush(4, -3))), 191);
        QCOMPARE(int(dab_coverage(1.0, brush(4, std::numeric_limits<double>::quiet_NaN()))), 191);
    }

    void distance_is_from_pixel_centres() {
        QCOMPARE(brush_math::pixel_distance(5, 5, 5.5, 5.5), 0.0);
        QCOMPARE(brush_math::pixel_distance(8, 5, 5.5, 5.5), 3.0);
        QCOMPARE(brush_math::pixel_distance(8, 9, 5.5, 5.5), 5.0);  // 3-4-5
        QCOMPARE(brush_math::pixel_distance(0, 0, 0.0, 0.0), std::sqrt(0.5));
    }

    void dab_paints_with_max_and_reports_its_rect() {
        Mask mask(20, 15, 0);
        const PixelRect rect = paint_dab(mask, 5.5, 5.5, brush(4, 0));
        QCOMPARE(rect, (PixelRect{1, 1, 9, 9}));  // floor(5.5) ± ceil(4)
        QCOMPARE(int(mask.at(5, 5)), 255);
        QCOMPARE(int(mask.at(8, 5)), 64);
        QCOMPARE(int(mask.at(2, 5)), 64);
        QCOMPARE(int(mask.at(9, 5)), 0);  // on the radius
        QCOMPARE(int(mask.at(5, 1)), 0);
        for (int y = 0; y < 15; ++y)
            for (int x = 0; x < 20; ++x)
                if (x < rect.x0 || x > rect.x1 || y < rect.y0 || y > rect.y1)
                    QCOMPARE(int(mask.at(x, y)), 0);
        // A weaker dab never lowers what is there; a stronger one raises it.
        mask.at(8, 5) = 200;
        paint_dab(mask, 5.5, 5.5, brush(4, 0));
        QCOMPARE(int(mask.at(8, 5)), 200);
        paint_dab(mask, 5.5, 5.5, brush(4, 1));
        QCOMPARE(int(mask.at(8, 5)), 255);
    }

    void eraser_lowers_to_the_complement() {
        Mask mask(20, 15, 255);
        const PixelRect rect = paint_dab(mask, 5.5, 5.5, brush(4, 0, true));
        QCOMPARE(rect, (PixelRect{1, 1, 9, 9}));
        QCOMPARE(int(mask.at(5, 5)), 0);
        QCOMPARE(int(mask.at(8, 5)), 255 - 64);
        QCOMPARE(int(mask.at(9, 5)), 255);
        // Never raises: a pixel already below 255 − coverage stays.
        mask.at(8, 5) = 10;
        paint_dab(mask, 5.5, 5.5, brush(4, 0, true));
        QCOMPARE(int(mask.at(8, 5)), 10);
    }

    void clipping_at_the_borders() {
        Mask mask(12, 9, 0);
        QCOMPARE(paint_dab(mask, 0.25, 0.75, brush(3, 1)), (PixelRect{0, 0, 3, 3}));
        QCOMPARE(int(mask.at(0, 0)), 255);
        QCOMPARE(paint_dab(mask, 11.5, 8.5, brush(3, 1)), (PixelRect{8, 5, 11, 8}));
        QCOMPARE(int(mask.at(11, 8)), 255);
        QCOMPARE(paint_dab(mask, -1.0, 4.5, brush(3, 1)), (PixelRect{0, 1, 2, 7}));
        QCOMPARE(int(mask.at(0, 4)), 255);  // centre (0.5, 4.5) is 1.5 from (-1, 4.5)
        QCOMPARE(int(mask.at(2, 4)), 0);    // 3.5 away
        // Wholly outside: nothing painted, an empty rect.
        const Mask before = mask;
        QVERIFY(paint_dab(mask, -10.0, 4.0, brush(3, 1)).empty());
        QVERIFY(paint_dab(mask, 30.0, 4.0, brush(3, 1)).empty());
        QVERIFY(paint_dab(mask, 4.0, 1e300, brush(3, 1)).empty());
        QVERIFY(paint_segment(mask, -50, -50, -20, -30, brush(3, 1)).empty());
        QVERIFY(same_mask(mask, before));
        // Nonsense paints nothing rather than misbehaving.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(paint_dab(mask, nan, 4.0, brush(3, 1)).empty());
        QVERIFY(paint_segment(mask, 1, 1, 5, nan, brush(3, 1)).empty());
        QVERIFY(paint_dab(mask, 4.0, 4.0, brush(-1, 1)).empty());
        QVERIFY(
            paint_dab(mask, 4.0, 4.0, brush(std::numeric_limits<double>::infinity(), 1)).empty());
        QVERIFY(same_mask(mask, before));
    }

    void segment_spacing_and_rect() {
        // Radius 8: a dab every 2 pixels; 10 pixels → 5 dabs at x = 12.5, 14.5, …, 20.5.
        Mask mask(40, 30, 0);
        Mask expected(40, 30, 0);
        const BrushSettings b = brush(8, 0);
        const PixelRect rect = paint_segment(mask, 10.5, 10.5, 20.5, 10.5, b);
        PixelRect union_rect;
        for (const double x : {12.5, 14.5, 16.5, 18.5, 20.5})
            union_rect.unite(paint_dab(expected, x, 10.5, b));
        QVERIFY(same_mask(mask, expected));
        QCOMPARE(rect, union_rect);
        QCOMPARE(rect, (PixelRect{4, 2, 28, 18}));
        // The start is not a dab: (10, 10) is 2 from the first dab, not 0.
        QCOMPARE(int(mask.at(10, 10)), 191);  // 255 × 6 / 8
        QCOMPARE(int(mask.at(20, 10)), 255);  // the end is
    }

    void small_brushes_dab_every_half_pixel() {
        Mask mask(20, 5, 0);
        Mask expected(20, 5, 0);
        const BrushSettings b = brush(1, 0);  // a quarter radius would be 0.25: 0.5 instead
        paint_segment(mask, 2.5, 2.5, 4.5, 2.5, b);
        for (const double x : {3.0, 3.5, 4.0, 4.5}) paint_dab(expected, x, 2.5, b);
        QVERIFY(same_mask(mask, expected));
    }

    void zero_length_segment_is_one_dab() {
        Mask mask(9, 9, 0);
        Mask expected(9, 9, 0);
        const BrushSettings b = brush(2.5, 0.5);
        QCOMPARE(paint_segment(mask, 4.5, 4.5, 4.5, 4.5, b), paint_dab(expected, 4.5, 4.5, b));
        QVERIFY(same_mask(mask, expected));
    }

    void segment_clips_and_erases() {
        Mask mask(30, 20, 255);
        const BrushSettings b = brush(5, 1, true);
        const PixelRect rect = paint_segment(mask, -4.0, 10.0, 40.0, 10.0, b);
        QCOMPARE(rect, (PixelRect{0, 5, 29, 15}));
        for (int x = 0; x < 30; ++x) QCOMPARE(int(mask.at(x, 10)), 0);
        QCOMPARE(int(mask.at(7, 0)), 255);
        QCOMPARE(int(mask.at(7, 19)), 255);
    }
};

QTEST_GUILESS_MAIN(TestBrush)
#include "test_brush.moc"
