// The line continuation before PatchMatch (inpaint_structure.hpp) on generated images: a slanted
// dark bar crossing a hole is continued within a pixel of where it truly runs, edges that are
// parallel but offset or that meet at an angle are not joined, a ledge whose wedge-shaped shadow
// steps at a panel joint inside the hole is continued with the step, an image without lines comes
// back unchanged, and through make_inpainter the stage only shrinks the hole PatchMatch fills.
// Every band pixel records the known pixel it copies, and a 16-bit measurement's fill moves its
// stored samples by the bands decided on its 8-bit proxy.
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <random>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr int kW = 200, kH = 150;

/// A slightly noisy picture (every patch distinct, as in a photo) whose red level is `level`
/// at each pixel (green 10 and blue 20 below it).
ImageRgba8 scene_levels(const std::function<int(double, double)>& level, const unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-5, 5);
    ImageRgba8 image(kW, kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const int base = level(x, y);
            const auto c = [&](const int v) {
                return static_cast<std::uint8_t>(std::clamp(v + noise(rng), 0, 255));
            };
            image.at(x, y) = Rgba8{c(base), c(base - 10), c(base - 20), 255};
        }
    return image;
}

/// A bright wall (level 190) and, where `dark` says, a dark bar (50).
ImageRgba8 scene(const std::function<bool(double, double)>& dark, const unsigned seed = 7) {
    return scene_levels([&](const double x, const double y) { return dark(x, y) ? 50 : 190; },
                        seed);
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

/// Hole pixels more than 1.5 px from the bar's edges whose tone is not the bar's or the wall's
/// as the scene has it there: 0 when the bar runs straight through the filled hole.
int bar_misses(const ImageRgba8& out, const Mask& hole) {
    int wrong = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            if (hole.at(x, y) == 0) continue;
            if (std::min(std::abs(distance_below(x, y, kTop)),
                         std::abs(distance_below(x, y, kBottom))) <= 1.5)
                continue;
            if ((out.at(x, y).r < 120) != in_bar(x, y)) ++wrong;
        }
    return wrong;
}

/// `image` as a 16-bit RGB measurement, 1000 + 200 × level plus a fine per-pixel part below one
/// proxy level, so that only the sample's own position reproduces it (the same values as float
/// samples with `type` F32).
NativeImage as_u16(const ImageRgba8& image, const SampleType type = SampleType::U16) {
    NativeImage samples(image.width(), image.height(), PixelFormat{type, 3});
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const Rgba8 p = image.at(x, y);
            const double fine = (7 * x + 13 * y) % 199;
            samples.set_sample(x, y, 0, 1000 + 200.0 * p.r + fine);
            samples.set_sample(x, y, 1, 1000 + 200.0 * p.g + fine);
            samples.set_sample(x, y, 2, 1000 + 200.0 * p.b + fine);
        }
    return samples;
}

/// Calls visit(x, y, source index) for every pixel a source map gives a source.
template <class Visit>
void each_source(const FillSources& sources, const Visit& visit) {
    const SearchRect& b = sources.box;
    const int bw = b.x1 - b.x0 + 1;
    for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x)
            if (const std::int32_t s =
                    sources.index[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)];
                s >= 0)
                visit(x, y, s);
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

    void records_the_source_of_every_band_pixel() {
        const ImageRgba8 truth = scene(in_bar);
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        const LineCompletion done = continue_lines(truth.view(), hole, nullptr, {});
        QVERIFY(done.filled > 0);
        // One source per band pixel (a hole pixel the stage took out of the hole), each a known
        // pixel; copying them reproduces the stage's image.
        std::int64_t recorded = 0;
        each_source(done.sources, [&](const int x, const int y, const std::int32_t s) {
            ++recorded;
            QVERIFY(hole.at(x, y) != 0 && done.hole.at(x, y) == 0);
            QVERIFY(hole.at(s % kW, s / kW) == 0);
        });
        QCOMPARE(recorded, done.filled);
        QVERIFY(same_image(fill_from_sources(truth.view(), done.sources), done.image));
        // No line: an empty map.
        const ImageRgba8 plain = scene([](double, double) { return false; });
        const LineCompletion none = continue_lines(plain.view(), hole, nullptr, {});
        QVERIFY(none.sources.empty());
    }

    // A hole no wider than the two bands (the bar's cross-section and 3 px beyond each edge):
    // the bands take every hole pixel and leave PatchMatch nothing, and the measurement's samples
    // are the bands' copies exactly (nothing blended, chosen or refilled over them).
    void measurement_whose_bands_take_the_whole_hole() {
        Mask hole(kW, kH, 0);
        for (int y = 0; y < kH; ++y)
            for (int x = 88; x <= 112; ++x)
                if (const double d = distance_below(x, y, kTop); d >= -3 && d <= 11)
                    hole.at(x, y) = 1;
        const NativeImage samples = as_u16(scene(in_bar));
        InpaintParams params;
        params.lines = true;
        const LineCompletion bands = continue_lines(carving_proxy(samples).image.view(), hole,
                                                    nullptr, line_options(params));
        std::int64_t pixels = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) pixels += hole.at(x, y);
        QCOMPARE(static_cast<int>(bands.lines.size()), 2);
        QCOMPARE(bands.filled, pixels);
        const NativeInpaintResult filled =
            inpaint(samples, hole, params, InpaintImplementation::Fast);
        QVERIFY(filled.samples == fill_from_sources(samples, bands.sources));
    }

    // A 16-bit measurement of the bar: the bands are decided on its proxy as a picture's are
    // (the same pixels: the note's count), every band pixel holds exactly the 16-bit samples of
    // its recorded source, and the bar runs through the filled hole. The choice and the refill
    // are off here: a region or blob they take would move band pixels too, as for a picture.
    void measurement_moves_its_samples_along_the_bands_data() {
        QTest::addColumn<int>("type");
        QTest::newRow("u16") << static_cast<int>(SampleType::U16);
        QTest::newRow("f32") << static_cast<int>(SampleType::F32);
    }

    void measurement_moves_its_samples_along_the_bands() {
        QFETCH(int, type);
        // The object to remove: a flat mid-tone over the hole, so nothing of the bar is left
        // there.
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        NativeImage samples = as_u16(scene(in_bar), static_cast<SampleType>(type));
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (hole.at(x, y) != 0)
                    for (int c = 0; c < 3; ++c) samples.set_sample(x, y, c, 30000);
        InpaintParams params;
        params.lines = true;
        params.choose = false;
        params.refill_foreign = false;
        const CarvingProxy proxy = carving_proxy(samples);
        const LineCompletion picture =
            continue_lines(proxy.image.view(), hole, nullptr, line_options(params));
        QCOMPARE(static_cast<int>(picture.lines.size()), 2);
        const NativeInpaintResult filled =
            inpaint(samples, hole, params, InpaintImplementation::Fast);
        const std::string note = "continued 2 straight lines across the hole (" +
                                 std::to_string(picture.filled) +
                                 " pixels filled along them first)";
        QVERIFY2(std::find(filled.notes.begin(), filled.notes.end(), note) != filled.notes.end(),
                 qPrintable(QString::fromStdString(filled.notes.empty() ? "" : filled.notes[0])));
        int moved = 0;
        each_source(picture.sources, [&](const int x, const int y, const std::int32_t s) {
            for (int c = 0; c < 3; ++c)
                if (filled.samples.sample(x, y, c) != samples.sample(s % kW, s / kW, c)) return;
            ++moved;
        });
        QCOMPARE(static_cast<std::int64_t>(moved), picture.filled);
        // The bar leaves the hole where it entered: seen on the result's proxy, every hole pixel
        // more than 1.5 px from its edges has the bar's or the wall's tone.
        const ImageRgba8 out = carving_proxy(filled.samples, proxy.raw_lo, proxy.raw_hi).image;
        const int wrong = bar_misses(out, hole);
        QVERIFY2(wrong <= 10, qPrintable(QString::number(wrong)));
        // Outside the hole nothing changes.
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (hole.at(x, y) == 0)
                    for (int c = 0; c < 3; ++c)
                        QCOMPARE(filled.samples.sample(x, y, c), samples.sample(x, y, c));
    }

    // PatchMatch around the bands decides on a decision image that holds the bands' samples
    // (made from the measurement with the bands moved in), with the bands out of its hole; its
    // sources then move the samples of the rest, which alone is blended. Exact, with nothing
    // after the blend (the choice, the refill and the kept colours off).
    void measurement_fills_the_rest_deciding_on_the_bands_samples() {
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        NativeImage samples = as_u16(scene(in_bar));
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (hole.at(x, y) != 0)
                    for (int c = 0; c < 3; ++c) samples.set_sample(x, y, c, 30000);
        InpaintParams params;
        params.lines = true;
        params.choose = false;
        params.refill_foreign = false;
        params.keep_colours = false;
        const CarvingProxy proxy = carving_proxy(samples);
        InpaintProblem problem = prepare_inpaint(proxy.image.view(), hole, params);
        const FillSources bands = continue_lines(problem, nullptr, line_options(params));
        QVERIFY(!bands.empty());
        const NativeImage banded = fill_from_sources(samples, bands);
        const Mask rest = clone(problem.hole.view());
        const int radius = problem.radius;
        const auto filler = make_deep_patchmatch_inpainter(
            std::move(problem), deep_carving_proxy(banded, proxy.raw_lo, proxy.raw_hi).image,
            InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(1 << 20);
        const FillSources around = patchmatch_sources(*patchmatch_field(*filler), rest, radius);
        const NativeImage expected = blend_samples(fill_from_sources(banded, around), rest, around,
                                                   {proxy.raw_lo, proxy.raw_hi});
        const NativeInpaintResult filled =
            inpaint(samples, hole, params, InpaintImplementation::Fast);
        QVERIFY(filled.samples == expected);
    }

    // What a measurement's choice and refill judge (sources_picture) is what a picture's fill
    // with lines shows after its blend: the bands copied and unblended, PatchMatch's sources
    // around them, only the rest blended.
    void sources_picture_is_the_pictures_fill_with_lines() {
        const ImageRgba8 truth = scene(in_bar);
        const Mask hole = disc(100, 0.25 * 100 + 54, 22);
        InpaintParams params;
        params.lines = true;
        const auto filler = make_inpainter(truth.view(), hole, params, InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(1 << 20);
        const InpaintProblem& problem = filler->problem();
        const FillSources around =
            patchmatch_sources(*patchmatch_field(*filler), problem.hole, problem.radius);
        const LineCompletion bands =
            continue_lines(truth.view(), hole, nullptr, line_options(params));
        QVERIFY(bands.filled > 0);
        QVERIFY(same_image(sources_picture(truth.view(), hole, around, &bands.sources),
                           finished_image(*filler)));
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

    // A light ledge on a façade of 60 px panels: its lower edge runs straight on across the
    // panels, but the shadow below it is a wedge on each panel, 2 px thick at the panel's left end
    // and 10 px at its right, so the shadow's lower edge steps at every joint. The hole covers a
    // joint. The ledge is joined, and its band, copied along the ledge by the panels' repeat,
    // has the shadow where the truth has it, the step included (the "wall" case of the bench:
    // copied by a few pixels, the wedge came out as a strip from each side, doubled where the
    // two copies met).
    void continues_a_ledge_whose_shadow_steps_inside_the_hole() {
        constexpr double kLedge = 60, kPanel = 60, kJoint = 100;
        const auto shadow_below = [&](const double x) {
            return 2 + 8 * std::fmod(x - kJoint + 10 * kPanel, kPanel) / kPanel;
        };
        const auto level = [&](const double x, const double y) {
            if (y < kLedge) return y >= kLedge - 8 ? 230 : 170;  // the ledge over the wall
            return y < kLedge + shadow_below(x) ? 50 : 170;      // its shadow, the wall
        };
        const ImageRgba8 truth = scene_levels(level);
        // The hole covers the joint at x = 100 and 10 px of the panel right of it.
        const Mask hole = disc(kJoint - 5, kLedge + 2, 15);
        const LineCompletion done = continue_lines(truth.view(), hole, nullptr, {});
        QVERIFY(std::any_of(done.lines.begin(), done.lines.end(), [&](const ContinuedLine& l) {
            return !l.to_border && std::abs(l.y0 - (kLedge - 0.5)) <= 1 &&
                   std::abs(l.y1 - (kLedge - 0.5)) <= 1;
        }));
        // Every band pixel in the shadow's rows (more than 1.5 px from its edges) is dark
        // exactly where the truth is.
        int checked = 0, wrong = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                if (hole.at(x, y) == 0 || done.hole.at(x, y) != 0 || y < kLedge + 1) continue;
                const double below = y - (kLedge + shadow_below(x) - 0.5);
                const bool near_joint =
                    std::abs(std::fmod(x - kJoint + 10 * kPanel, kPanel)) <= 1.5 ||
                    std::abs(std::fmod(x - kJoint + 10 * kPanel, kPanel) - kPanel) <= 1.5;
                if (std::abs(below) <= 1.5 || near_joint) continue;
                ++checked;
                if ((done.image.at(x, y).r < 110) != (level(x, y) < 110)) ++wrong;
            }
        QVERIFY2(checked > 60, qPrintable(QString::number(checked)));
        QVERIFY2(wrong == 0,
                 qPrintable(QString("%1 of %2 band pixels wrong").arg(wrong).arg(checked)));
    }

    // A bar whose lower side is a plain dark wall but whose upper side is a row of pieces darker
    // and brighter than the bar at irregular widths (a lattice's crossing bars and gaps seen at no
    // repeat the traces reach), mirrored about the hole's centre so that both sides' profiles
    // agree. The bar's lower edge is joined; its upper edge is not: no shift copies the pieces
    // beside the hole onto themselves (the copy is off by more than a third of the edge's step), so
    // a band would draw pieces where the truth has none (the bench's "lattice": a gap's dark beside
    // wood, its lower edge lost).
    void leaves_a_band_that_does_not_repeat_to_the_fill() {
        constexpr double kBarTop = 60, kBarBottom = 76, kCentre = 100;
        std::vector<int> pieces;  // the upper side's level at each distance from the centre
        std::mt19937 rng(11);
        std::uniform_int_distribution<int> width(4, 14);
        for (bool dark = true; pieces.size() < kW; dark = !dark)
            pieces.insert(pieces.end(), static_cast<std::size_t>(width(rng)), dark ? 60 : 250);
        const auto level = [&](const double x, const double y) {
            if (y < kBarTop)
                return pieces[static_cast<std::size_t>(std::abs(std::lround(x - kCentre)))];
            return y < kBarBottom ? 160 : 40;
        };
        const ImageRgba8 truth = scene_levels(level);
        const Mask hole = disc(kCentre, (kBarTop + kBarBottom) / 2, 22);
        const LineCompletion done = continue_lines(truth.view(), hole, nullptr, {});
        const auto joined_at = [&](const double y) {
            return std::any_of(done.lines.begin(), done.lines.end(), [&](const ContinuedLine& l) {
                return !l.to_border && std::abs(l.y0 - y) <= 1 && std::abs(l.y1 - y) <= 1;
            });
        };
        QVERIFY(joined_at(kBarBottom - 0.5));
        QVERIFY(!joined_at(kBarTop - 0.5));
        // Nothing above the bar's middle is filled by a band.
        for (int y = 0; y < kBarTop + 4; ++y)
            for (int x = 0; x < kW; ++x)
                if (hole.at(x, y) != 0) QCOMPARE(done.hole.at(x, y), std::uint8_t(1));
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
        off.lines = false;
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
        const int wrong = bar_misses(out, hole);
        QVERIFY2(wrong <= 10, qPrintable(QString::number(wrong)));
    }
};

QTEST_GUILESS_MAIN(TestInpaintStructure)
#include "test_inpaint_structure.moc"
