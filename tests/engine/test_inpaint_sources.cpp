// The colour prior on PatchMatch's sources (inpaint_sources.hpp, InpaintParams::source_colours)
// on a generated picture: a hole on the seam between a smooth grey wall and a black-and-white
// checker, and far away a look-alike object, an orange and blue checker of the same mean grey
// and half the contrast. On PatchMatch's coarse levels it matches the hole's middle (grey, half
// textured) best; without the prior the fill pastes a strip of it at the seam (seeds 1-3: a
// fifth of the hole), with it the hole gets the wall's own colours. The prior never
// takes away a source patch that lies in the hole's surroundings, nor one of a foreign region
// that reaches the hole (structure continuing into it), and every backend sees the same
// sources because prepare_inpaint applies it (the 16-bit measurement fill included). Without the
// prior, the per-region choice takes Criminisi for this hole, in the 16-bit fill as in the
// picture's.
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_quality.hpp>
#include <lacuna/ops/inpaint_sources.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr int kW = 240, kH = 160;
constexpr double kHoleX = 120, kHoleY = 90, kHoleR = 22;
/// The look-alike, far from the hole (38 px and more).
constexpr int kObjX0 = 10, kObjX1 = 60, kObjY0 = 8, kObjY1 = 50;
/// The region that reaches to within 32 px of the hole (scene(true)), 20 px right of it.
constexpr int kNearX0 = 164, kNearX1 = 200, kNearY0 = 84, kNearY1 = 96;

/// Left of x = 120 a smooth grey wall, right of it a checker of 2 × 2 grey blocks (luma 40 /
/// 216); the hole straddles the seam, so the texture PatchMatch asks for inside it is about half
/// the checker's. The look-alike is a checker of orange-ish and blue-ish blocks with the same
/// mean grey and about half the checker's contrast: on the coarse levels it is the best match
/// for the hole's middle. `near`: a third checker (green / purple) reaching close to the hole.
ImageRgba8 scene(const bool near = false) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> noise(-3, 3);
    ImageRgba8 image(kW, kH);
    const auto c = [&](const int v) {
        return static_cast<std::uint8_t>(std::clamp(v + noise(rng), 0, 255));
    };
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const bool odd = (((x >> 1) + (y >> 1)) & 1) != 0;
            Rgba8& p = image.at(x, y);
            if (x >= kObjX0 && x < kObjX1 && y >= kObjY0 && y < kObjY1)
                p = odd ? Rgba8{c(200), c(150), c(90), 255} : Rgba8{c(60), c(110), c(170), 255};
            else if (near && x >= kNearX0 && x < kNearX1 && y >= kNearY0 && y < kNearY1)
                p = odd ? Rgba8{c(90), c(200), c(90), 255} : Rgba8{c(170), c(60), c(170), 255};
            else if (x < 120)
                p = Rgba8{c(128), c(128), c(128), 255};
            else
                p = odd ? Rgba8{c(216), c(216), c(216), 255} : Rgba8{c(40), c(40), c(40), 255};
        }
    return image;
}

Mask hole_mask() {
    Mask m(kW, kH, 0);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            if (std::hypot(x - kHoleX, y - kHoleY) <= kHoleR) m.at(x, y) = 1;
    return m;
}

/// Share of hole pixels whose colour is nearer the look-alike's than the wall's (a pixel with
/// R, G and B far apart: the wall is grey).
double object_share(const ImageRgba8& image, const Mask& hole) {
    std::int64_t n = 0, object = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            if (hole.at(x, y) == 0) continue;
            ++n;
            const Rgba8 p = image.at(x, y);
            const int spread = std::max({p.r, p.g, p.b}) - std::min({p.r, p.g, p.b});
            object += spread > 40;
        }
    return static_cast<double>(object) / static_cast<double>(n);
}

InpaintParams params(const bool colours, const std::uint32_t seed = 1) {
    InpaintParams p;
    p.method = InpaintMethod::PatchMatch;
    p.seed = seed;
    p.source_colours = colours;
    // The per-region choice (inpaint_choice.hpp) would hand this small hole to Criminisi and hide
    // what the sources alone do, and so would the foreign-blob refill (inpaint_refill.hpp): these
    // tests are about PatchMatch's sources.
    p.choose = false;
    p.refill_foreign = false;
    return p;
}

/// Chessboard distance from (x, y) to the nearest hole pixel (the hole is small).
int distance_to_hole(const Mask& hole, const int x, const int y) {
    int best = 1 << 20;
    for (int j = 0; j < kH; ++j)
        for (int i = 0; i < kW; ++i)
            if (hole.at(i, j) != 0)
                best = std::min(best, std::max(std::abs(i - x), std::abs(j - y)));
    return best;
}

bool same_mask(const Mask& a, const Mask& b) {
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            if ((a.at(x, y) != 0) != (b.at(x, y) != 0)) return false;
    return true;
}

/// `image` as a 16-bit RGB measurement, each level mapped to offset + scale × level.
NativeImage as_u16(const ImageRgba8& image, const double offset, const double scale) {
    NativeImage samples(image.width(), image.height(), PixelFormat{SampleType::U16, 3});
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const Rgba8 p = image.at(x, y);
            samples.set_sample(x, y, 0, offset + scale * p.r);
            samples.set_sample(x, y, 1, offset + scale * p.g);
            samples.set_sample(x, y, 2, offset + scale * p.b);
        }
    return samples;
}

}  // namespace

class TestInpaintSources : public QObject {
    Q_OBJECT

  private slots:
    void prior_keeps_the_look_alike_out_of_the_hole() {
        const ImageRgba8 image = scene();
        const Mask hole = hole_mask();
        for (const std::uint32_t seed : {1u, 2u, 3u}) {
            const InpaintResult plain =
                inpaint(image.view(), hole, params(false, seed), InpaintImplementation::Fast);
            const InpaintResult prior =
                inpaint(image.view(), hole, params(true, seed), InpaintImplementation::Fast);
            const double before = object_share(plain.image, hole);
            const double after = object_share(prior.image, hole);
            const double foreign_before = foreign_content(plain.image.view(), hole);
            const double foreign_after = foreign_content(prior.image.view(), hole);
            qInfo("seed %u: look-alike's colours in the hole %.3f -> %.3f, foreign %.3f -> %.3f",
                  seed, before, after, foreign_before, foreign_after);
            QVERIFY2(before > 0.15, "the scene no longer baits the plain fill");
            QVERIFY(after < 0.01);
            QVERIFY(foreign_after < 0.02);
        }
    }

    // The look-alike PatchMatch pastes is foreign colour to the per-region choice (on by
    // default; off in the other tests): the picture's fill and the 16-bit measurement's (the
    // scene's levels as 1000 + 200 × level) both take Criminisi for the hole, and the
    // measurement's hole then holds exactly the samples of Criminisi's sources on its proxy.
    void measurement_choice_takes_criminisi_over_the_look_alike() {
        const ImageRgba8 image = scene();
        const Mask hole = hole_mask();
        const NativeImage samples = as_u16(image, 1000.0, 200.0);
        InpaintParams p = params(false);
        p.choose = true;
        const auto noted = [](const std::vector<std::string>& notes) {
            return std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
                return n.find("1 of 1 hole regions filled by Criminisi") != std::string::npos;
            });
        };
        QVERIFY(noted(inpaint(image.view(), hole, p, InpaintImplementation::Fast).notes));
        const NativeInpaintResult chosen = inpaint(samples, hole, p, InpaintImplementation::Fast);
        QVERIFY(noted(chosen.notes));
        const CarvingProxy proxy = carving_proxy(samples);
        InpaintParams criminisi = p;
        criminisi.method = InpaintMethod::Criminisi;
        const auto filler =
            make_inpainter(proxy.image.view(), hole, criminisi, InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(1 << 20);
        QVERIFY(fill_from_sources(samples, criminisi_sources(*filler)) == chosen.samples);
        // The look-alike is gone from the hole (it was a fifth of it without the choice).
        const auto share = [&](const NativeImage& filled) {
            return object_share(carving_proxy(filled, proxy.raw_lo, proxy.raw_hi).image, hole);
        };
        const double before =
            share(inpaint(samples, hole, params(false), InpaintImplementation::Fast).samples);
        const double after = share(chosen.samples);
        qInfo("16-bit, the choice: look-alike's colours in the hole %.3f -> %.3f", before, after);
        QVERIFY(before > 0.15);
        QVERIFY(after < 0.01);
    }

    void measurement_fill_takes_the_same_sources() {
        // The scene as 16-bit RGB (each level × 257): the measurement fill prepares its sources
        // on the 8-bit proxy with the same prior, so the look-alike stays out there too.
        const ImageRgba8 image = scene();
        const Mask hole = hole_mask();
        const NativeImage samples = as_u16(image, 0.0, 257.0);
        const auto share = [&](const NativeImage& filled) {
            ImageRgba8 out(kW, kH);
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x)
                    out.at(x, y) =
                        Rgba8{static_cast<std::uint8_t>(filled.sample(x, y, 0) / 257),
                              static_cast<std::uint8_t>(filled.sample(x, y, 1) / 257),
                              static_cast<std::uint8_t>(filled.sample(x, y, 2) / 257), 255};
            return object_share(out, hole);
        };
        const double before =
            share(inpaint(samples, hole, params(false), InpaintImplementation::Fast).samples);
        const double after =
            share(inpaint(samples, hole, params(true), InpaintImplementation::Fast).samples);
        qInfo("16-bit: look-alike's colours in the hole %.3f -> %.3f", before, after);
        QVERIFY2(before > 0.15, "the scene no longer baits the plain fill");
        QVERIFY(after < 0.01);
    }

    void prior_narrows_the_problem_sources_and_notes_it() {
        const ImageRgba8 image = scene();
        const Mask hole = hole_mask();
        const InpaintProblem plain = prepare_inpaint(image.view(), hole, params(false));
        const InpaintProblem prior = prepare_inpaint(image.view(), hole, params(true));
        std::int64_t lost = 0, gained = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool a = plain.valid_source.at(x, y) != 0;
                const bool b = prior.valid_source.at(x, y) != 0;
                lost += a && !b;
                gained += b && !a;
                // Only the look-alike's patches go (its box grown by the patch radius).
                if (a && !b) {
                    QVERIFY(x >= kObjX0 - 4 && x < kObjX1 + 4 && y >= kObjY0 - 4 && y < kObjY1 + 4);
                }
            }
        QCOMPARE(gained, 0);
        QVERIFY(lost > 1500);
        QVERIFY(!prior.notes.empty());
        // Criminisi takes every source as before.
        InpaintParams criminisi = params(true);
        criminisi.method = InpaintMethod::Criminisi;
        const InpaintProblem c = prepare_inpaint(image.view(), hole, criminisi);
        QVERIFY(same_mask(c.valid_source, plain.valid_source));
    }

    void prior_never_removes_the_ring_or_a_region_reaching_the_hole() {
        // A look-alike region that runs into the hole continues into it: its patches stay.
        const ImageRgba8 image = scene(true);
        const Mask hole = hole_mask();
        const InpaintProblem plain = prepare_inpaint(image.view(), hole, params(false));
        const SourcePriorOptions options;
        const int r = plain.radius;
        const SearchRect every{r, r, kW - 1 - r, kH - 1 - r};
        const SourcePriorResult result = restrict_sources(
            image.view(), plain.hole, plain.valid_source, every, r, plain.hole_pixels, options);
        QVERIFY(result.applied);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                if (plain.valid_source.at(x, y) == 0) continue;
                const bool in_ring = distance_to_hole(hole, x, y) <= options.ring - r;
                const bool near_object =
                    y >= kNearY0 - r && y < kNearY1 + r && x >= kNearX0 - r && x < kNearX1 + r;
                if (in_ring || near_object) QVERIFY(result.valid.at(x, y) != 0);
            }
        // The far look-alike still goes.
        QCOMPARE(result.valid.at(35, 30), std::uint8_t{0});
    }

    void prior_falls_back_when_it_would_starve_the_fill() {
        // Fewer centres left than the hole has pixels: every source stays.
        const ImageRgba8 image = scene();
        const Mask hole = hole_mask();
        const InpaintProblem plain = prepare_inpaint(image.view(), hole, params(false));
        const int r = plain.radius;
        const SearchRect every{r, r, kW - 1 - r, kH - 1 - r};
        const SourcePriorResult kept = restrict_sources(
            image.view(), plain.hole, plain.valid_source, every, r, plain.hole_pixels, {});
        QVERIFY(kept.applied);
        QVERIFY(kept.after < kept.before);
        const SourcePriorResult starved = restrict_sources(
            image.view(), plain.hole, plain.valid_source, every, r, kept.after + 1, {});
        QVERIFY(!starved.applied);
    }
};

QTEST_APPLESS_MAIN(TestInpaintSources)
#include "test_inpaint_sources.moc"
