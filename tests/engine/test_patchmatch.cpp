// PatchMatch completion on the CPU: the one-iteration reference against a brute force written out
// here (target set, distance with the texture channel, nearest neighbours), the exact composite,
// determinism and the seed, a periodic texture reconstructed closely, small holes in real foliage
// and fabric that keep their texture, bad input with the same
// errors as Criminisi, and the step API (progress, cancel, history, image while coarse).
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/kernels/patchmatch_terms.h>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_quality.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "../../engine/ops/inpaint/factories.hpp"
#include "inpaint_test_util.hpp"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::box_mask;
using lacuna::test::compare_images;
using lacuna::test::odd_hole;

namespace {

/// Smooth gradients plus noise: every patch distinct, so nearest neighbours are unambiguous.
ImageRgba8 noisy_scene(const int w, const int h, const unsigned seed) {
    return lacuna::test::noisy_image(w, h, seed, 20, [](const int x, const int y) {
        return std::array<int, 3>{60 + 3 * x, 200 - 4 * y, 90 + 2 * (x + y)};
    });
}

/// Diagonal stripes of period `period` with a little noise: any hole is filled well by a shifted
/// copy, but not exactly.
ImageRgba8 stripes(const int w, const int h, const int period, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-6, 6);
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int phase = (x + y / 2) % period;
            const int v = std::clamp(40 + (phase < period / 2 ? 180 : 0) + noise(rng), 0, 255);
            image.at(x, y) = Rgba8{std::uint8_t(v), std::uint8_t(255 - v), 90, 255};
        }
    return image;
}

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

std::int64_t changed_outside(const ImageRgba8& before, const ImageRgba8& after, const Mask& mask) {
    std::int64_t changed = 0;
    for (int y = 0; y < before.height(); ++y)
        for (int x = 0; x < before.width(); ++x)
            if (mask.at(x, y) == 0 && before.at(x, y) != after.at(x, y)) ++changed;
    return changed;
}

/// Mean absolute error over the hole, per channel (r, g, b).
double hole_mae(const ImageRgba8& truth, const ImageRgba8& got, const Mask& mask) {
    double sum = 0;
    std::int64_t n = 0;
    for (int y = 0; y < truth.height(); ++y)
        for (int x = 0; x < truth.width(); ++x) {
            if (!mask.at(x, y)) continue;
            const Rgba8 a = truth.at(x, y), b = got.at(x, y);
            sum += std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b);
            n += 3;
        }
    return n == 0 ? 0.0 : sum / double(n);
}

ImageRgba8 fill(const ImageRgba8& image, const Mask& mask, InpaintParams params,
                const InpaintMethod method) {
    params.method = method;
    return inpaint(image.view(), mask, params, InpaintImplementation::Fast).image;
}

/// The message of the Error `fn` throws (empty if none).
template <class Fn>
QString error_of(Fn&& fn, ErrorCode* code = nullptr) {
    try {
        fn();
    } catch (const Error& e) {
        if (code) *code = e.code();
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestPatchMatch : public QObject {
    Q_OBJECT

  private slots:
    void sources_reproduce_the_fill_and_move_stored_samples() {
        // The final vote's sources, recomputed from the field, reproduce the filler's output
        // exactly; applied to an exact ×257 16-bit copy they give 257 × the 8-bit fill.
        const ImageRgba8 truth = photo("messi5.jpg");
        const Mask mask =
            lacuna::test::ellipse_mask(truth.width(), truth.height(), 240, 190, 20, 16);
        InpaintParams params;
        params.patch = 9;
        params.method = InpaintMethod::PatchMatch;
        const auto filler = make_inpainter(truth.view(), mask, params, InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(8);
        const ImageRgba8 out = filler->image();
        const Mask hole = prepare_inpaint(truth.view(), mask, params).hole;
        const FillSources sources =
            patchmatch_sources(*patchmatch_field(*filler), hole, params.patch / 2);
        const NativeImage filled = fill_from_sources(to_native(truth.view()), sources);
        const ImageRgba8 back = to_rgba8(filled);
        QVERIFY(equal_pixels(back.view(), out.view()));
        int moved = 0;
        for (const std::int32_t s : sources.index) moved += s >= 0;
        QCOMPARE(std::int64_t(moved), count_selected(hole.view()));
        NativeImage deep(truth.width(), truth.height(), {SampleType::U16, 3});
        for (int y = 0; y < truth.height(); ++y)
            for (int x = 0; x < truth.width(); ++x) {
                const Rgba8 p = truth.at(x, y);
                deep.set_sample(x, y, 0, 257 * p.r);
                deep.set_sample(x, y, 1, 257 * p.g);
                deep.set_sample(x, y, 2, 257 * p.b);
            }
        const NativeImage deep_filled = fill_from_sources(deep, sources);
        for (int y = 0; y < truth.height(); ++y)
            for (int x = 0; x < truth.width(); ++x)
                if (hole.at(x, y) != 0)
                    QCOMPARE(deep_filled.sample(x, y, 1), 257.0 * out.at(x, y).g);
        // Sources for another size, or whose box does not fit the image, are refused.
        QVERIFY_THROWS_EXCEPTION(Error, fill_from_sources(deep, FillSources{1, 2, {}, {}}));
        FillSources outside = sources;
        outside.box.x1 = truth.width();
        QVERIFY_THROWS_EXCEPTION(Error, fill_from_sources(deep, outside));
        // Only a rectangle: the same samples there as the whole fill.
        const PixelRect rect{200, 150, 280, 230};
        QVERIFY(fill_region_from_sources(deep, sources, rect) == copy_region(deep_filled, rect));
    }

    // The gradient-domain blend: a fill copied from a brighter part of a gradient
    // keeps its copied detail but takes the tone of the hole's surroundings.
    void blend_removes_a_tone_offset_and_keeps_copied_detail() {
        const int w = 96, h = 64;
        const auto value = [](const int x, const int y) {
            // A horizontal ramp (2 levels a pixel) with a fine ±6 texture.
            const std::uint32_t n = (static_cast<std::uint32_t>(x) * 73856093u) ^
                                    (static_cast<std::uint32_t>(y) * 19349663u);
            return 40 + 2 * x + static_cast<int>((n >> 7) % 13) - 6;
        };
        ImageRgba8 truth(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const auto v = static_cast<std::uint8_t>(value(x, y));
                truth.at(x, y) = Rgba8{v, v, static_cast<std::uint8_t>(255 - v), 200};
            }
        const Mask hole = box_mask(w, h, 30, 20, 20, 20);  // x 30..49, y 20..39
        // Every hole pixel copied from 25 px to its right: +50 levels of red and green.
        FillSources sources{w, h, {30, 20, 49, 39}, {}};
        ImageRgba8 filled = truth;
        for (int y = 20; y < 40; ++y)
            for (int x = 30; x < 50; ++x) {
                sources.index.push_back(y * w + x + 25);
                filled.at(x, y) = truth.at(x + 25, y);
            }
        const ImageRgba8 blended = blend_fill(filled, hole, sources);
        QCOMPARE(changed_outside(filled, blended, hole), std::int64_t(0));
        double before = 0, after = 0, detail = 0;
        for (int y = 20; y < 40; ++y)
            for (int x = 30; x < 50; ++x) {
                before += std::abs(filled.at(x, y).r - truth.at(x, y).r);
                after += std::abs(blended.at(x, y).r - truth.at(x, y).r);
                // The copied texture survives: each step is the source's step.
                if (x > 30)
                    detail += std::abs((blended.at(x, y).r - blended.at(x - 1, y).r) -
                                       (filled.at(x, y).r - filled.at(x - 1, y).r));
                QCOMPARE(int(blended.at(x, y).a), 200);
            }
        before /= 400, after /= 400, detail /= 380;
        QVERIFY2(before > 45, qPrintable(QString::number(before)));
        // What is left: the copied texture is another texture (±6) than the truth's.
        QVERIFY2(after < 6, qPrintable(QString::number(after)));
        QVERIFY2(detail < 1.0, qPrintable(QString::number(detail)));
        // Sources for another size are refused.
        QVERIFY_THROWS_EXCEPTION(Error, blend_fill(filled, hole, FillSources{w + 1, h, {}, {}}));
    }

    // A strong edge of the copied content holds a tone correction on its side (issue 31's
    // foreign colours): a dark | bright edge crosses the hole, the fill copies it from a place
    // where the bright side is 20 levels brighter. The bright side takes its surroundings'
    // tone; the dark side, which was right, stays as it was. Without the edge weight the
    // bright side's correction spreads across the edge and darkens the dark side into a grey
    // that is nowhere around the hole.
    void blend_keeps_a_correction_on_its_side_of_a_strong_edge() {
        const int w = 96, h = 96;
        ImageRgba8 truth(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int v = x < 40 ? 60 : (y < 50 ? 180 : 200);
                const auto c = static_cast<std::uint8_t>(v);
                truth.at(x, y) = Rgba8{c, c, c, 255};
            }
        const Mask hole = box_mask(w, h, 30, 20, 20, 20);  // x 30..49, y 20..39
        FillSources sources{w, h, {30, 20, 49, 39}, {}};
        ImageRgba8 filled = truth;
        for (int y = 20; y < 40; ++y)
            for (int x = 30; x < 50; ++x) {
                sources.index.push_back((y + 40) * w + x);
                filled.at(x, y) = truth.at(x, y + 40);
            }
        const auto worst = [&](const ImageRgba8& image) {
            int dark = 0, bright = 0;
            for (int y = 20; y < 40; ++y)
                for (int x = 30; x < 50; ++x) {
                    const int off = std::abs(image.at(x, y).r - truth.at(x, y).r);
                    (x < 40 ? dark : bright) = std::max(x < 40 ? dark : bright, off);
                }
            return std::pair{dark, bright};
        };
        QCOMPARE(worst(filled), (std::pair{0, 20}));
        const auto [dark, bright] = worst(blend_fill(filled, hole, sources));
        QVERIFY2(dark <= 1, qPrintable(QString::number(dark)));
        QVERIFY2(bright <= 3, qPrintable(QString::number(bright)));
        BlendOptions plain;
        plain.edge_levels = 0;
        const auto [plain_dark, plain_bright] = worst(blend_fill(filled, hole, sources, plain));
        QVERIFY2(plain_dark >= 5, qPrintable(QString::number(plain_dark)));
        QVERIFY2(plain_bright >= 5, qPrintable(QString::number(plain_bright)));
    }

    // A measurement's samples blend in their own values: a float ramp (3 units a pixel, around
    // 1000) and its 16-bit copy, filled from 25 px to the right (+75), come back to the ramp;
    // a NaN beside the hole leaves the moved samples as they are.
    void blend_samples_restores_a_ramp() {
        constexpr int w = 90, h = 60;
        const Mask hole = box_mask(w, h, 30, 20, 20, 20);  // x 30..49, y 20..39
        FillSources sources{w, h, {30, 20, 49, 39}, {}};
        for (int y = 20; y < 40; ++y)
            for (int x = 30; x < 50; ++x) sources.index.push_back(y * w + x + 25);
        for (const SampleType type : {SampleType::F32, SampleType::U16}) {
            NativeImage ramp(w, h, {type, 1});
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) ramp.set_sample(x, y, 0, 1000 + 3 * x);
            const NativeImage moved = fill_from_sources(ramp, sources);
            QCOMPARE(moved.sample(40, 30, 0), 1000.0 + 3 * 65);
            const NativeImage blended = blend_samples(moved, hole, sources, {1000, 1270});
            double most = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    if (!hole.at(x, y)) {
                        QCOMPARE(blended.sample(x, y, 0), ramp.sample(x, y, 0));
                        continue;
                    }
                    most = std::max(most, std::abs(blended.sample(x, y, 0) - ramp.sample(x, y, 0)));
                }
            // Within the solver's tolerance (and, for 16 bits, the rounding).
            QVERIFY2(most <= (type == SampleType::F32 ? 0.05 : 1.0),
                     qPrintable(QString::number(most)));
        }
        NativeImage blank(w, h, {SampleType::F32, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) blank.set_sample(x, y, 0, 1000 + 3 * x);
        blank.set_sample(29, 25, 0, std::nan(""));
        const NativeImage moved = fill_from_sources(blank, sources);
        const NativeImage kept = blend_samples(moved, hole, sources, {1000, 1270});
        QCOMPARE(kept.sample(40, 30, 0), moved.sample(40, 30, 0));
    }

    // The editor's finish: blend_samples_region of the unfilled samples is exactly the region of
    // blend_samples(fill_from_sources(...)), over every sample type, 1/3/4 channels, odd sizes,
    // an irregular hole with sources that point anywhere (some none), rectangles from the hole's
    // box to the whole image and at the borders, and a NaN next to the hole (left unblended).
    void blend_samples_region_equals_the_whole_blend() {
        const struct {
            int w, h, x0, y0, bw, bh;
        } cases[] = {{37, 29, 9, 7, 13, 11}, {61, 23, 0, 0, 17, 9}, {45, 51, 30, 40, 15, 11}};
        for (const auto& c : cases)
            for (const SampleType type :
                 {SampleType::U8, SampleType::U16, SampleType::I16, SampleType::F32})
                for (const int channels : {1, 3, 4}) {
                    // An irregular hole in the box: a disc-ish blob.
                    Mask hole(c.w, c.h, 0);
                    for (int y = c.y0; y < c.y0 + c.bh; ++y)
                        for (int x = c.x0; x < c.x0 + c.bw; ++x)
                            if ((x - c.x0) * (c.bw - 1 - (x - c.x0)) +
                                    (y - c.y0) * (c.bh - 1 - (y - c.y0)) >
                                4)
                                hole.at(x, y) = 255;
                    FillSources sources{c.w, c.h, {c.w, c.h, -1, -1}, {}};
                    for (int y = 0; y < c.h; ++y)
                        for (int x = 0; x < c.w; ++x)
                            if (hole.at(x, y))
                                sources.box = {
                                    std::min(sources.box.x0, x), std::min(sources.box.y0, y),
                                    std::max(sources.box.x1, x), std::max(sources.box.y1, y)};
                    const SearchRect& b = sources.box;
                    std::uint32_t seed = 12345;
                    for (int y = b.y0; y <= b.y1; ++y)
                        for (int x = b.x0; x <= b.x1; ++x) {
                            seed = seed * 1664525u + 1013904223u;
                            std::int32_t s = -1;
                            if (hole.at(x, y) && (seed >> 28) != 0) {
                                // Any pixel outside the hole.
                                int sx = static_cast<int>((seed >> 8) % c.w);
                                const int sy = static_cast<int>((seed >> 16) % c.h);
                                while (hole.at(sx, sy)) sx = (sx + 5) % c.w;
                                s = sy * c.w + sx;
                            }
                            sources.index.push_back(s);
                        }
                    NativeImage samples(c.w, c.h, {type, channels});
                    for (int y = 0; y < c.h; ++y)
                        for (int x = 0; x < c.w; ++x)
                            for (int k = 0; k < channels; ++k)
                                samples.set_sample(x, y, k,
                                                   (type == SampleType::I16 ? -40 : 0) + 7 * x +
                                                       3 * y + 11 * k + ((x * y) % 5));
                    const std::pair<double, double> range{0, 300};
                    const NativeImage whole =
                        blend_samples(fill_from_sources(samples, sources), hole, sources, range);
                    const PixelRect box{b.x0, b.y0, b.x1, b.y1};
                    for (const PixelRect rect :
                         {box,
                          PixelRect{std::max(0, b.x0 - 3), std::max(0, b.y0 - 2),
                                    std::min(c.w - 1, b.x1 + 5), std::min(c.h - 1, b.y1 + 1)},
                          PixelRect{0, 0, c.w - 1, c.h - 1}}) {
                        const NativeImage region =
                            blend_samples_region(samples, hole, sources, range, rect);
                        QVERIFY2(region == copy_region(whole, rect),
                                 qPrintable(QString("%1x%2 type %3, %4 channels")
                                                .arg(c.w)
                                                .arg(c.h)
                                                .arg(int(type))
                                                .arg(channels)));
                    }
                    // The blend changed something, or the comparison would be empty.
                    QVERIFY(!(whole == fill_from_sources(samples, sources)));
                    if (type == SampleType::F32 && channels == 1) {
                        // A NaN a pixel off the hole: both leave the moved samples unblended.
                        NativeImage blank = samples;
                        blank.set_sample(b.x0 > 0 ? b.x0 - 1 : b.x1 + 1, b.y0, 0, std::nan(""));
                        const NativeImage kept =
                            blend_samples(fill_from_sources(blank, sources), hole, sources, range);
                        const NativeImage region =
                            blend_samples_region(blank, hole, sources, range, box);
                        QVERIFY(region == copy_region(kept, box));
                        QVERIFY(region == fill_region_from_sources(blank, sources, box));
                    }
                }
        // A rectangle that does not hold the hole is refused.
        const Mask hole = box_mask(20, 20, 5, 5, 4, 4);
        FillSources sources{20, 20, {5, 5, 8, 8}, std::vector<std::int32_t>(16, 0)};
        const NativeImage samples(20, 20, {SampleType::F32, 1});
        QVERIFY_THROWS_EXCEPTION(
            Error, blend_samples_region(samples, hole, sources, {0, 1}, PixelRect{6, 5, 8, 8}));
    }

    // The editor's finish with continued lines: the blend read through the bands' map (no copy
    // of the samples with the bands moved in) is exactly the region of blend_samples(
    // fill_from_sources(fill_from_sources(samples, bands), sources)), where some sources are
    // band pixels and band pixels lie next to the hole; with no bands it is the plain one.
    void blend_samples_region_through_bands_equals_the_whole_blend() {
        constexpr int w = 41, h = 33;
        Mask hole(w, h, 0);
        for (int y = 12; y <= 22; ++y)
            for (int x = 12; x <= 28; ++x)
                if ((x - 20) * (x - 20) + 2 * (y - 17) * (y - 17) <= 60) hole.at(x, y) = 255;
        // The bands: two rows just outside the hole, copied from rows far above.
        FillSources bands{w, h, {12, 9, 28, 25}, {}};
        for (int y = 9; y <= 25; ++y)
            for (int x = 12; x <= 28; ++x) {
                const bool band = (y == 9 || y == 25) && x >= 14 && x <= 26;
                bands.index.push_back(band ? (y == 9 ? 1 : 3) * w + x + 1 : -1);
            }
        FillSources sources{w, h, {w, h, -1, -1}, {}};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (hole.at(x, y))
                    sources.box = {std::min(sources.box.x0, x), std::min(sources.box.y0, y),
                                   std::max(sources.box.x1, x), std::max(sources.box.y1, y)};
        const SearchRect& b = sources.box;
        std::uint32_t seed = 777;
        int into_bands = 0;
        for (int y = b.y0; y <= b.y1; ++y)
            for (int x = b.x0; x <= b.x1; ++x) {
                seed = seed * 1664525u + 1013904223u;
                std::int32_t s = -1;
                if (hole.at(x, y)) {
                    // Every third one a band pixel, the others anywhere outside the hole.
                    if ((seed >> 28) % 3 == 0) {
                        s = ((seed >> 20) % 2 == 0 ? 9 : 25) * w + 14 + (seed >> 8) % 13;
                        ++into_bands;
                    } else {
                        int sx = static_cast<int>((seed >> 8) % w);
                        const int sy = static_cast<int>((seed >> 16) % h);
                        while (hole.at(sx, sy)) sx = (sx + 5) % w;
                        s = sy * w + sx;
                    }
                }
                sources.index.push_back(s);
            }
        QVERIFY(into_bands > 10);
        for (const SampleType type : {SampleType::U16, SampleType::F32})
            for (const int channels : {1, 3}) {
                NativeImage samples(w, h, {type, channels});
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        for (int k = 0; k < channels; ++k)
                            samples.set_sample(
                                x, y, k,
                                (y < 5 ? 200 : 0) + 7 * x + 3 * y + 11 * k + ((x * y) % 5));
                const std::pair<double, double> range{0, 500};
                const NativeImage whole =
                    blend_samples(fill_from_sources(fill_from_sources(samples, bands), sources),
                                  hole, sources, range);
                for (const PixelRect rect :
                     {PixelRect{12, 9, 28, 25}, PixelRect{0, 0, w - 1, h - 1}}) {
                    const NativeImage region =
                        blend_samples_region(samples, bands, hole, sources, range, rect);
                    QVERIFY(region == copy_region(whole, rect));
                    // The bands count: without them the blend reads other samples.
                    QVERIFY(!(region == blend_samples_region(samples, hole, sources, range, rect)));
                    // No bands: the plain blend.
                    QVERIFY(blend_samples_region(samples, empty_sources(w, h), hole, sources, range,
                                                 rect) ==
                            blend_samples_region(samples, hole, sources, range, rect));
                }
            }
    }

    // What ops::inpaint returns for PatchMatch is the filler's image blended with its own
    // sources, its colours kept to the ring's (keep_ring_colours; without keep-colours the
    // blend as it is); for Criminisi, the filler's image.
    void inpaint_returns_the_blended_fill() {
        const ImageRgba8 truth = photo("home.jpg");
        const Mask mask =
            lacuna::test::ellipse_mask(truth.width(), truth.height(), 90, 330, 28, 22);
        InpaintParams params;
        params.method = InpaintMethod::PatchMatch;
        const auto filler = make_inpainter(truth.view(), mask, params, InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(8);
        const Mask hole = filler->problem().hole;
        const ImageRgba8 blended = blend_fill(
            filler->image(), hole, patchmatch_sources(*patchmatch_field(*filler), hole, 4));
        const ImageRgba8 raw = filler->image(), finished = finished_image(*filler);
        QVERIFY(!equal_pixels(blended.view(), raw.view()));
        QVERIFY(equal_pixels(finished.view(), blended.view()));
        const InpaintResult result =
            inpaint(truth.view(), mask, params, InpaintImplementation::Fast);
        const ImageRgba8 kept = keep_ring_colours(raw, blended, mask, blended);
        QVERIFY(!equal_pixels(kept.view(), blended.view()));
        QVERIFY(equal_pixels(result.image.view(), kept.view()));
        QCOMPARE(changed_outside(truth, result.image, hole), std::int64_t(0));
        InpaintParams plain = params;
        plain.keep_colours = false;
        const ImageRgba8 unkept =
            inpaint(truth.view(), mask, plain, InpaintImplementation::Fast).image;
        QVERIFY(equal_pixels(unkept.view(), blended.view()));
        params.method = InpaintMethod::Criminisi;
        const auto crim = make_inpainter(truth.view(), mask, params, InpaintImplementation::Fast);
        while (!crim->progress().done()) crim->advance(1 << 20);
        const ImageRgba8 crim_raw = crim->image(), crim_finished = finished_image(*crim);
        QVERIFY(equal_pixels(crim_finished.view(), crim_raw.view()));
    }

    void deep_fill_decides_on_every_bit() {
        // Stripes 96 samples high (the 8-bit proxy is flat there) with a hole in them: the fill
        // on the 16-bit decision image continues them, in phase; the fill on the proxy cannot
        // see them and puts them back out of phase.
        // Named references, not a structured binding: clang 14 (CI's sanitizer build) cannot
        // capture a binding in a lambda.
        const lacuna::test::StripesProblem stripes =
            lacuna::test::stripes_problem(96, 64, 58, 32, 11, 9, 7);
        const auto& samples = stripes.samples;
        const auto& proxy = stripes.proxy;
        const auto& mask = stripes.mask;
        const auto& params = stripes.params;
        const auto& problem = stripes.problem;
        const auto run = [&](std::unique_ptr<Inpainter> filler) {
            while (!filler->progress().done()) filler->advance(8);
            const PatchMatchField field = *patchmatch_field(*filler);
            return std::pair{fill_from_sources(samples, patchmatch_sources(field, problem.hole, 3)),
                             field};
        };
        const auto [deep, deep_field] = run(make_deep_patchmatch_inpainter(
            problem, deep_carving_proxy(samples).image, InpaintImplementation::Fast));
        const auto [flat, flat_field] =
            run(make_inpainter(proxy.view(), mask, params, InpaintImplementation::Fast));
        QCOMPARE(deep_field.depth, 16);
        QCOMPARE(flat_field.depth, 8);
        const double deep_error = lacuna::test::stripe_error(deep, problem.hole);
        const double flat_error = lacuna::test::stripe_error(flat, problem.hole);
        qInfo("mean |fill - stripes| in the hole: 16-bit decisions %.2f, 8-bit proxy %.2f",
              deep_error, flat_error);
        QCOMPARE(deep_error, 0.0);
        QVERIFY(flat_error > 20.0);
        // The 8-bit view of the deep fill: its proxy pixels outside the hole, the estimate / 257
        // (rounded) in it.
        const auto shown = make_deep_patchmatch_inpainter(
            problem, deep_carving_proxy(samples).image, InpaintImplementation::Fast);
        while (!shown->progress().done()) shown->advance(8);
        const ImageRgba8 view = shown->image();
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 96; ++x) {
                if (!problem.hole.at(x, y)) {
                    QVERIFY(view.at(x, y) == proxy.at(x, y));
                    continue;
                }
                // The decision image over the type's range is the samples themselves.
                const int level = (int(deep.sample(x, y, 0)) + 128) / 257;
                QCOMPARE(int(view.at(x, y).g), level);
            }
    }

    void deep_fill_refuses_a_decision_image_of_another_size() {
        // Named references, not a structured binding: clang 14 (CI's sanitizer build) cannot
        // capture a binding in a lambda.
        const lacuna::test::StripesProblem stripes =
            lacuna::test::stripes_problem(40, 30, 25, 15, 4, 4, 5);
        const auto& samples = stripes.samples;
        const auto& problem = stripes.problem;
        const Image<Rgba16> small(39, 30);
        const QString error = error_of([&] {
            (void)make_deep_patchmatch_inpainter(problem, clone(small.view()),
                                                 InpaintImplementation::Fast);
        });
        QVERIFY2(error.contains("39x30") && error.contains("40x30"), qPrintable(error));
        InpaintProblem criminisi = problem;
        criminisi.method = InpaintMethod::Criminisi;
        QVERIFY(error_of([&] {
                    (void)make_deep_patchmatch_inpainter(
                        criminisi, deep_carving_proxy(samples).image, InpaintImplementation::Fast);
                }).contains("PatchMatch"));
    }

    void reference_iteration_is_brute_force() {
        const int w = 40, h = 30, r = 3;
        const ImageRgba8 image = noisy_scene(w, h, 11);
        const Mask mask = box_mask(w, h, 17, 12, 10, 8);
        InpaintParams params;
        params.patch = 2 * r + 1;
        params.method = InpaintMethod::PatchMatch;
        const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        // The estimate: the hole painted a flat grey (what is in it must not matter to the
        // definition, only be used consistently). The texture: the engine's, then hole values
        // made up so the texture term is exercised in the hole too.
        ImageRgba8 estimate = clone(image.view());
        Mask texture = patchmatch_texture(image, problem.hole);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (mask.at(x, y)) {
                    estimate.at(x, y) = Rgba8{128, 128, 128, 255};
                    texture.at(x, y) = std::uint8_t((x * 7 + y * 3) % 40);
                }
        const PatchMatchIteration it = patchmatch_reference_iteration(
            estimate, texture, problem.hole, problem.valid_source, r, false);

        int targets = 0;
        for (int ty = 0; ty < h; ++ty)
            for (int tx = 0; tx < w; ++tx) {
                bool target = false;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx) {
                        const int x = tx + dx, y = ty + dy;
                        if (x >= 0 && y >= 0 && x < w && y < h && mask.at(x, y)) target = true;
                    }
                const std::size_t p = std::size_t(ty) * w + tx;
                if (!target) {
                    QCOMPARE(it.nnf[p], -1);
                    continue;
                }
                ++targets;
                std::int64_t best = -1;
                std::uint64_t best_d = ~0ull;
                for (int sy = r; sy < h - r; ++sy)
                    for (int sx = r; sx < w - r; ++sx) {
                        bool complete = true;
                        for (int dy = -r; dy <= r; ++dy)
                            for (int dx = -r; dx <= r; ++dx)
                                if (mask.at(sx + dx, sy + dy)) complete = false;
                        if (!complete) continue;
                        // The source prior: the distance from the source centre to the target
                        // box (the hole's box grown by r), over the box's longer side, squared,
                        // times 4 squared levels per patch pixel (integer division).
                        const long long bx0 = 17 - r, by0 = 12 - r, bx1 = 17 + 9 + r,
                                        by1 = 12 + 7 + r;
                        const long long ox = std::max({bx0 - sx, sx - bx1, 0LL});
                        const long long oy = std::max({by0 - sy, sy - by1, 0LL});
                        const long long ext = std::max(bx1 - bx0 + 1, by1 - by0 + 1);
                        std::uint64_t d = static_cast<std::uint64_t>(
                            (2 * r + 1) * (2 * r + 1) * 4 * (ox * ox + oy * oy) / (ext * ext));
                        for (int dy = -r; dy <= r; ++dy)
                            for (int dx = -r; dx <= r; ++dx) {
                                const int x = tx + dx, y = ty + dy;
                                if (x < 0 || y < 0 || x >= w || y >= h) continue;
                                const Rgba8 a = estimate.at(x, y);
                                const Rgba8 b = estimate.at(sx + dx, sy + dy);
                                const int dt = texture.at(x, y) - texture.at(sx + dx, sy + dy);
                                // Known target pixels count twice (kKnownWeight).
                                d += (mask.at(x, y) ? 1 : 2) *
                                     ((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) +
                                      (a.b - b.b) * (a.b - b.b) + 8 * dt * dt);
                            }
                        if (d < best_d) best_d = d, best = sy * w + sx;
                    }
                QVERIFY(best >= 0);
                if (it.nnf[p] != best || it.dist[p] != best_d)
                    QFAIL(qPrintable(QString("target %1,%2: got %3 (%4), brute force %5 (%6)")
                                         .arg(tx)
                                         .arg(ty)
                                         .arg(it.nnf[p])
                                         .arg(it.dist[p])
                                         .arg(best)
                                         .arg(best_d)));
            }
        QCOMPARE(targets, (10 + 2 * r) * (8 + 2 * r));
        // The vote: only hole pixels change, and they change (the grey was no source's colour).
        QCOMPARE(changed_outside(estimate, it.image, mask), std::int64_t(0));
        QVERIFY(hole_mae(estimate, it.image, mask) > 1.0);
        // Closer to the truth than the grey it started from.
        QVERIFY(hole_mae(image, it.image, mask) < hole_mae(image, estimate, mask));
    }

    void pixels_outside_the_mask_are_untouched() {
        const ImageRgba8 image = noisy_scene(97, 71, 3);
        const Mask mask = odd_hole(97, 71, true);
        InpaintParams params;
        params.patch = 7;
        params.method = InpaintMethod::PatchMatch;
        const InpaintResult result =
            inpaint(image.view(), mask, params, InpaintImplementation::Fast);
        QCOMPARE(changed_outside(image, result.image, mask), std::int64_t(0));
        QCOMPARE(result.progress.filled, count_selected(mask.view()));
        QVERIFY(hole_mae(image, result.image, mask) < 40.0);
    }

    void deterministic_and_seeded() {
        const ImageRgba8 image = stripes(131, 97, 9, 4);
        const Mask mask = odd_hole(131, 97, false);
        InpaintParams params;
        params.patch = 9;
        params.method = InpaintMethod::PatchMatch;
        const ImageRgba8 a = inpaint(image.view(), mask, params, InpaintImplementation::Fast).image;
        const ImageRgba8 b = inpaint(image.view(), mask, params, InpaintImplementation::Fast).image;
        QCOMPARE(compare_images(a, b), QString());
        // Reference runs the same (Fast) filler.
        const ImageRgba8 c =
            inpaint(image.view(), mask, params, InpaintImplementation::Reference).image;
        QCOMPARE(compare_images(a, c), QString());
        params.seed = 2;
        const ImageRgba8 d = inpaint(image.view(), mask, params, InpaintImplementation::Fast).image;
        QVERIFY(compare_images(a, d) != QString());
    }

    void periodic_texture_is_reproduced() {
        const int w = 160, h = 120;
        const ImageRgba8 image = stripes(w, h, 10, 9);
        const Mask mask = box_mask(w, h, 60, 40, 36, 30);
        InpaintParams params;
        params.patch = 9;
        params.search = InpaintSearch::Full;
        const double pm =
            hole_mae(image, fill(image, mask, params, InpaintMethod::PatchMatch), mask);
        const double cr =
            hole_mae(image, fill(image, mask, params, InpaintMethod::Criminisi), mask);
        // A blurred or smooth fill of these stripes would be off by about 90 levels on average.
        qInfo("hole MAE: PatchMatch %.2f, Criminisi %.2f (levels)", pm, cr);
        QVERIFY2(pm < 8.0, qPrintable(QString("PatchMatch MAE %1").arg(pm)));
        QVERIFY2(pm <= cr + 2.0,
                 qPrintable(QString("PatchMatch %1, Criminisi %2").arg(pm).arg(cr)));
    }

    void small_holes_in_fine_texture_keep_their_texture() {
        // `lacuna bench inpaint`'s foliage and fabric cases: small holes in fine texture, with
        // smooth areas of similar colours elsewhere in the photo. A plain L2 patch distance finds
        // those smooth areas closest, and the fill came out as a flat blob (texture ratio about
        // 0.4, a brown ellipse in the foliage, a grey one on the shirt). With the texture channel
        // fixed above level 0, weighted 8, the onion peel and a pyramid that stops while the
        // hole still spans 1.5 patches, every seed keeps its texture.
        struct Case {
            const char* photo;
            double cx, cy, rx, ry;
            int coarsest;  // the hole's box spans >= 13.5 px there, < 13.5 one level down
        };
        for (const Case& c :
             {Case{"building.jpg", 120, 425, 28, 22, 2}, Case{"messi5.jpg", 240, 190, 20, 16, 1}}) {
            const ImageRgba8 truth = photo(c.photo);
            const Mask mask =
                lacuna::test::ellipse_mask(truth.width(), truth.height(), c.cx, c.cy, c.rx, c.ry);
            InpaintParams params;
            params.patch = 9;
            params.method = InpaintMethod::PatchMatch;
            for (const std::uint32_t seed : {1u, 2u, 3u}) {
                params.seed = seed;
                const auto filler =
                    make_inpainter(truth.view(), mask, params, InpaintImplementation::Fast);
                filler->advance(1);
                QCOMPARE(patchmatch_field(*filler)->level, c.coarsest);
                while (!filler->progress().done()) filler->advance(8);
                const ImageRgba8 out = filler->image();
                const FillQuality q = measure_fill(out.view(), mask, &truth);
                qInfo("%s seed %u: texture ratio %.2f, PSNR %.1f dB", c.photo, seed,
                      q.texture_ratio, q.psnr_db);
                QVERIFY2(q.texture_ratio >= 0.7 && q.texture_ratio <= 1.5,
                         qPrintable(QString("%1 seed %2: texture ratio %3")
                                        .arg(c.photo)
                                        .arg(seed)
                                        .arg(q.texture_ratio)));
            }
        }
    }

    void gradient_channels_only_where_the_hole_lies_in_fine_texture() {
        // Image Melding's gradient channels (the luma's signed central differences in the patch
        // distance) on the coarse levels: on the bench they gain 1.4-2.8 dB on grass and up to
        // 2 dB on cobblestones and knit, but lose on smooth holes (sky, -3.7 dB) and on holes
        // that a straight edge reaches (a pole's line, a lattice's gap). So a fill takes them
        // only where the ring around the hole is finely textured and no straight edge reaches
        // the hole. The holes set's cases: foliage and grass take them; the shirt (its folds
        // reach the hole as straight edges), the wall (the ledge) and the sky beside the tree
        // (smooth) do not. Level 0 never does.
        struct Case {
            const char* name;
            const char* photo;
            double cx, cy, rx, ry;
            bool on;
        };
        for (const Case& c : {Case{"foliage", "building.jpg", 120, 425, 28, 22, true},
                              Case{"grass", "messi5.jpg", 150, 305, 40, 18, true},
                              Case{"fabric", "messi5.jpg", 240, 190, 20, 16, false},
                              Case{"wall", "building.jpg", 330, 250, 30, 22, false},
                              Case{"sky next to a tree", "building.jpg", 75, 262, 26, 26, false}}) {
            const ImageRgba8 image = photo(c.photo);
            const Mask mask =
                lacuna::test::ellipse_mask(image.width(), image.height(), c.cx, c.cy, c.rx, c.ry);
            InpaintParams params;
            params.patch = 9;
            params.method = InpaintMethod::PatchMatch;
            const auto filler =
                make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
            filler->advance(1);
            const std::optional<PatchMatchField> coarsest = patchmatch_field(*filler);
            QVERIFY(coarsest.has_value());
            QVERIFY2(coarsest->level >= 1, c.name);
            QVERIFY2(coarsest->gradient_weight ==
                         (c.on ? patchmatch_terms::kGradientWeight : std::uint32_t{0}),
                     qPrintable(QString("%1: gradient weight %2 at level %3")
                                    .arg(c.name)
                                    .arg(coarsest->gradient_weight)
                                    .arg(coarsest->level)));
            while (patchmatch_field(*filler)->level > 0) filler->advance(1);
            QVERIFY2(patchmatch_field(*filler)->gradient_weight == 0, c.name);
        }
        // Generated grain (no line at all) takes them too: test_patchmatch_cuda's case.
        const ImageRgba8 grain = lacuna::test::grain(160, 120, 5);
        InpaintParams params;
        params.patch = 9;
        params.method = InpaintMethod::PatchMatch;
        const auto filler = make_inpainter(grain.view(), box_mask(160, 120, 60, 40, 40, 30), params,
                                           InpaintImplementation::Fast);
        filler->advance(1);
        QVERIFY(patchmatch_field(*filler)->level >= 1);
        QCOMPARE(patchmatch_field(*filler)->gradient_weight, patchmatch_terms::kGradientWeight);
    }

    void bad_input_gets_the_same_errors() {
        const ImageRgba8 image = noisy_scene(40, 30, 5);
        InpaintParams pm;
        pm.patch = 7;
        pm.method = InpaintMethod::PatchMatch;
        InpaintParams cr = pm;
        cr.method = InpaintMethod::Criminisi;
        // Empty mask: nothing to do, the image comes back as it was.
        const Mask empty(40, 30, 0);
        const auto filler = make_inpainter(image.view(), empty, pm, InpaintImplementation::Fast);
        QVERIFY(filler->progress().done());
        QCOMPARE(filler->progress().total, std::int64_t(0));
        filler->advance(5);
        QCOMPARE(filler->progress().iterations, 0);
        QCOMPARE(compare_images(filler->image(), image), QString());
        // Wrong size, mask covering everything, a bad patch: the same errors as Criminisi.
        const Mask wrong(41, 30, 0);
        const Mask all(40, 30, 255);
        for (const Mask* mask : {&wrong, &all}) {
            ErrorCode pm_code{}, cr_code{};
            const QString pm_error = error_of(
                [&] { make_inpainter(image.view(), *mask, pm, InpaintImplementation::Fast); },
                &pm_code);
            const QString cr_error = error_of(
                [&] { make_inpainter(image.view(), *mask, cr, InpaintImplementation::Fast); },
                &cr_code);
            QVERIFY(!pm_error.isEmpty());
            QCOMPARE(pm_error, cr_error);
            QCOMPARE(pm_code, ErrorCode::InvalidArgument);
            QCOMPARE(cr_code, ErrorCode::InvalidArgument);
        }
        pm.patch = 8;
        QVERIFY(!error_of([&] {
                     make_inpainter(image.view(), box_mask(40, 30, 5, 5, 4, 4), pm,
                                    InpaintImplementation::Fast);
                 }).isEmpty());
    }

    void step_api_progress_and_cancel() {
        const int w = 203, h = 157;  // three levels: 203×157, 102×79, 51×40
        const ImageRgba8 image = noisy_scene(w, h, 8);
        const Mask mask = odd_hole(w, h, true);
        const std::int64_t total = count_selected(mask.view());
        InpaintParams params;
        params.patch = 7;
        params.method = InpaintMethod::PatchMatch;
        const auto filler = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        QCOMPARE(filler->progress().total, total);
        QCOMPARE(filler->progress().filled, std::int64_t(0));
        QVERIFY(!patchmatch_field(*filler).has_value());
        InpaintProgress p = filler->advance(1);
        QCOMPARE(p.iterations, 1);
        QVERIFY(!p.done());
        QVERIFY(p.filled > 0 && p.filled < total);
        // At the coarsest level the hole shows the coarse estimate, already not the input.
        const ImageRgba8 coarse = filler->image();
        QCOMPARE(changed_outside(image, coarse, mask), std::int64_t(0));
        QVERIFY(compare_images(coarse, image) != QString());
        QCOMPARE(patchmatch_field(*filler)->level, 2);
        // Cancel: the next advance throws and leaves the state as it was.
        filler->cancel();
        ErrorCode code{};
        QVERIFY(!error_of([&] { filler->advance(3); }, &code).isEmpty());
        QCOMPARE(code, ErrorCode::Cancelled);
        QCOMPARE(filler->progress().iterations, 1);
        // A fresh filler runs to the end: 12 + 8 + 4 EM iterations for three levels.
        const auto again = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        int steps = 0;
        std::int64_t last = 0;
        while (!again->progress().done()) {
            p = again->advance(5);
            QVERIFY(p.filled >= last);
            last = p.filled;
            ++steps;
            if (!p.done()) QVERIFY(p.filled < total);
        }
        QCOMPARE(p.iterations, 24);
        QCOMPARE(p.filled, total);
        QCOMPARE(steps, 5);
        QVERIFY(again->history().empty());
        QCOMPARE(again->advance(3).iterations, 24);
        const auto field = patchmatch_field(*again);
        QVERIFY(field.has_value());
        QCOMPARE(field->level, 0);
        QCOMPARE(field->width, w);
        // Every target of the final field points at a valid source.
        const InpaintProblem& problem = again->problem();
        int targets = 0;
        for (std::size_t i = 0; i < field->nnf.size(); ++i) {
            const std::int32_t s = field->nnf[i];
            if (s < 0) continue;
            ++targets;
            QVERIFY(problem.valid_source.at(s % w, s / w) != 0);
        }
        QVERIFY(targets >= total);
    }

    /// Benchmark, not a test: run with LACUNA_PATCHMATCH_BENCH=1.
    void cpu_timing_1080p() {
        if (qEnvironmentVariableIsEmpty("LACUNA_PATCHMATCH_BENCH"))
            QSKIP("set LACUNA_PATCHMATCH_BENCH=1 to time a 1920x1080 fill");
        const ImageRgba8 image = noisy_scene(1920, 1080, 5);
        const Mask mask = box_mask(1920, 1080, 810, 440, 300, 200);
        InpaintParams params;
        params.method = InpaintMethod::PatchMatch;
        QElapsedTimer timer;
        timer.start();
        const InpaintResult r = inpaint(image.view(), mask, params, InpaintImplementation::Fast);
        qInfo("PatchMatch CPU 1920x1080, hole 300x200: %lld ms end to end", timer.elapsed());
        QVERIFY(r.progress.done());
        // The same in phases: host preparation, the filler's setup (texture, masks, pyramid),
        // the EM iterations, image().
        timer.restart();
        InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        const qint64 t_prepare = timer.nsecsElapsed();
        const auto filler = lacuna::ops::detail::make_patchmatch_inpainter(std::move(problem));
        const qint64 t_setup = timer.nsecsElapsed();
        filler->advance(1 << 20);
        const qint64 t_em = timer.nsecsElapsed();
        const ImageRgba8 out = filler->image();
        const qint64 t_image = timer.nsecsElapsed();
        QCOMPARE(compare_images(out, r.image), QString());
        qInfo("  breakdown: prepare_inpaint %.1f, setup %.1f, EM iterations %.1f, image() %.1f ms",
              t_prepare / 1e6, (t_setup - t_prepare) / 1e6, (t_em - t_setup) / 1e6,
              (t_image - t_em) / 1e6);
    }
};

QTEST_GUILESS_MAIN(TestPatchMatch)
#include "test_patchmatch.moc"
