// The line continuation before PatchMatch (inpaint_structure.hpp) on generated images: a slanted
// dark bar crossing a hole is continued within a pixel of where it truly runs, edges that are
// parallel but offset or that meet at an angle are not joined, an image without lines comes back
// unchanged, and through make_inpainter the stage only shrinks the hole PatchMatch fills.
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <QtTest>

#include <cmath>
#include <functional>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr int kW = 200, kH = 150;

/// A bright, slightly noisy wall (every patch distinct, as in a photo) and, where `dark` says,
/// a dark bar.
ImageRgba8 scene(const std::function<bool(double, double)>& dark, const unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-5, 5);
    ImageRgba8 image(kW, kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const int base = dark(x, y) ? 50 : 190;
            const auto c = [&](const int v) {
                return static_cast<std::uint8_t>(std::clamp(v + noise(rng), 0, 255));
            };
            image.at(x, y) = Rgba8{c(base), c(base - 10), c(base - 20), 255};
        }
    return image;
}

Mask disc(const double cx, const double cy, const double r) {
    Mask m(kW, kH, 0);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            if (std::hypot(x - cx, y - cy) <= r) m.at(x, y) = 1;
    return m;
}

/// The bar: between the lines y = 0.25 x + 50 and y = 0.25 x + 58 (perpendicular width about
/// 7.8 px), i.e. signed distance from its upper edge d = (y - 0.25 x - 50) / |(−0.25, 1)|.
constexpr double kSlope = 0.25, kTop = 50, kBottom = 58;
double distance_below(const double x, const double y, const double intercept) {
    return (y - kSlope * x - intercept) / std::hypot(kSlope, 1.0);
}
bool in_bar(const double x, const double y) {
    return distance_below(x, y, kTop) >= 0 && distance_below(x, y, kBottom) < 0;
}

bool same_image(const ImageRgba8& a, const ImageRgba8& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (!(a.at(x, y) == b.at(x, y))) return false;
    return true;
}

}  // namespace

class TestInpaintStructure : public QObject {
    Q_OBJECT

  private slots:
    void continues_a_bar_across_a_hole_within_a_pixel() {
        const ImageRgba8 truth = scene(in_bar);
        // A hole of radius 22 on the bar's middle: about 45 px of it hidden.
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        const LineCompletion done = continue_lines(truth.view(), hole, nullptr, {});
        // Both of the bar's edges are joined (each by a pair of traces, one from each side).
        QCOMPARE(static_cast<int>(done.lines.size()), 2);
        for (const ContinuedLine& line : done.lines) QVERIFY(!line.to_border);
        QVERIFY(done.filled > 0);
        // Every hole pixel within 4 px of either edge is filled by the bands...
        int checked = 0, wrong = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                if (hole.at(x, y) == 0) continue;
                const double top = std::abs(distance_below(x, y, kTop));
                const double bottom = std::abs(distance_below(x, y, kBottom));
                if (std::min(top, bottom) <= 3.0) QCOMPARE(done.hole.at(x, y), std::uint8_t(0));
                if (done.hole.at(x, y) != 0) continue;
                // ...and each filled pixel more than a pixel from an edge is dark exactly where
                // the bar runs: the bar is continued within 1 px.
                if (std::min(top, bottom) <= 1.0) continue;
                ++checked;
                const bool dark = done.image.at(x, y).r < 120;
                if (dark != in_bar(x, y)) ++wrong;
            }
        QVERIFY2(checked > 300, qPrintable(QString::number(checked)));
        QCOMPARE(wrong, 0);
        // Pixels outside the hole are never written.
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (hole.at(x, y) == 0) QVERIFY(done.image.at(x, y) == truth.at(x, y));
    }

    void joins_neither_offset_nor_bent_edges() {
        const Mask hole = disc(100, 60, 20);
        // The same horizontal bar, 6 px lower right of the hole than left of it.
        const ImageRgba8 offset = scene([](const double x, const double y) {
            const double top = x < 100 ? 50 : 56;
            return y >= top && y < top + 8;
        });
        // A bar bending by 5° at the hole's centre: the ends lie within 2 px of each other's line,
        // only the angle keeps them apart.
        const ImageRgba8 bent = scene([](const double x, const double y) {
            const double top = x < 100 ? 56 : 56 + std::tan(5.0 * 3.14159265 / 180) * (x - 100);
            return y >= top && y < top + 8;
        });
        for (const ImageRgba8* image : {&offset, &bent}) {
            // Each edge does reach the hole...
            QVERIFY(edges_into_hole(image->view(), hole, {}).size() >= 4);
            // ...but none is joined.
            const LineCompletion done = continue_lines(image->view(), hole, nullptr, {});
            QCOMPARE(static_cast<int>(done.lines.size()), 0);
            QCOMPARE(done.filled, std::int64_t(0));
            QVERIFY(same_image(done.image, *image));
        }
        // With a tolerance of 12° the bent bar is joined: the tolerance is what kept it apart.
        LineContinuationOptions loose;
        loose.angle_degrees = 12;
        loose.offset_pixels = 6;
        QVERIFY(!continue_lines(bent.view(), hole, nullptr, loose).lines.empty());
    }

    void without_lines_nothing_changes() {
        const ImageRgba8 plain = scene([](double, double) { return false; });
        const Mask hole = disc(100, 75, 25);
        const LineCompletion done = continue_lines(plain.view(), hole, nullptr, {});
        QCOMPARE(static_cast<int>(done.lines.size()), 0);
        QCOMPARE(done.filled, std::int64_t(0));
        QVERIFY(same_image(done.image, plain));
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) QCOMPARE(done.hole.at(x, y) != 0, hole.at(x, y) != 0);
        // Through the filler: with and without the stage, the same problem and the same fill.
        InpaintParams on, off;
        on.lines = true;
        const auto a = make_inpainter(plain.view(), hole, on, InpaintImplementation::Fast);
        const auto b = make_inpainter(plain.view(), hole, off, InpaintImplementation::Fast);
        QCOMPARE(a->problem().hole_pixels, b->problem().hole_pixels);
        while (!a->progress().done()) a->advance(1 << 20);
        while (!b->progress().done()) b->advance(1 << 20);
        QVERIFY(same_image(finished_image(*a), finished_image(*b)));
    }

    void patchmatch_fills_the_rest_around_the_bands() {
        const ImageRgba8 truth = scene(in_bar);
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        InpaintParams params;
        params.lines = true;
        const auto filler = make_inpainter(truth.view(), hole, params, InpaintImplementation::Fast);
        const InpaintProblem& problem = filler->problem();
        const LineCompletion done =
            continue_lines(truth.view(), hole, nullptr, line_options(params));
        // The problem is the stage's image and smaller hole; its valid sources are the whole
        // hole's (a band pixel is never a source).
        QCOMPARE(problem.hole_pixels,
                 static_cast<std::int64_t>(count_selected(hole.view())) - done.filled);
        QVERIFY(same_image(problem.image, done.image));
        QVERIFY(!problem.notes.empty());
        const InpaintProblem whole = prepare_inpaint(truth.view(), hole, params);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                QCOMPARE(problem.valid_source.at(x, y), whole.valid_source.at(x, y));
        while (!filler->progress().done()) filler->advance(1 << 20);
        const ImageRgba8 out = finished_image(*filler);
        // The bar runs through the filled hole: every hole pixel more than 1.5 px from its edges
        // has the bar's or the wall's tone.
        int wrong = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                if (hole.at(x, y) == 0) continue;
                if (std::min(std::abs(distance_below(x, y, kTop)),
                             std::abs(distance_below(x, y, kBottom))) <= 1.5)
                    continue;
                if ((out.at(x, y).r < 120) != in_bar(x, y)) ++wrong;
            }
        QVERIFY2(wrong <= 10, qPrintable(QString::number(wrong)));
    }
};

QTEST_GUILESS_MAIN(TestInpaintStructure)
#include "test_inpaint_structure.moc"
