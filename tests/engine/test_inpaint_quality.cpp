// The fill-quality measures on hand-made images whose answers are known: identical images, a flat
// fill in a textured hole, lines and steps shifted by 1 and 5 px, and the edge detector itself.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_quality.hpp>

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr Rgba8 grey(const int v) {
    const auto c = static_cast<std::uint8_t>(v);
    return Rgba8{c, c, c, 255};
}

/// A deterministic texture: a hash of (x, y) in 0..255 (strong, fine-grained, no structure).
int hash_noise(const int x, const int y) {
    std::uint32_t h = static_cast<std::uint32_t>(x) * 73856093u ^
                      static_cast<std::uint32_t>(y) * 19349663u ^ 0x9e3779b9u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return static_cast<int>(h & 0xffu);
}

/// Noise of amplitude ±`amp` around 128.
ImageRgba8 noise(const int w, const int h, const int amp) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = grey(128 + (hash_noise(x, y) - 128) * amp / 128);
    return image;
}

Mask rect_mask(const int w, const int h, const int x0, const int y0, const int x1, const int y1) {
    Mask mask(w, h, std::uint8_t{0});
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) mask.at(x, y) = 1;
    return mask;
}

/// Flat grey 160 with a dark vertical line of `width` px starting at column `x`.
ImageRgba8 vertical_line(const int w, const int h, const int x, const int width) {
    ImageRgba8 image(w, h, grey(160));
    for (int y = 0; y < h; ++y)
        for (int xx = x; xx < x + width; ++xx) image.at(xx, y) = grey(40);
    return image;
}

/// Left of column `x` dark (60), from `x` on light (180).
ImageRgba8 step(const int w, const int h, const int x) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int xx = 0; xx < w; ++xx) image.at(xx, y) = grey(xx < x ? 60 : 180);
    return image;
}

/// `truth` outside the hole, `fill` inside (what a filler would return).
ImageRgba8 composite(const ImageRgba8& truth, const ImageRgba8& fill, const Mask& mask) {
    ImageRgba8 out = truth;
    for (int y = 0; y < truth.height(); ++y)
        for (int x = 0; x < truth.width(); ++x)
            if (mask.at(x, y) != 0) out.at(x, y) = fill.at(x, y);
    return out;
}

std::int64_t count(const Mask& m) {
    return count_selected(m.view());
}

}  // namespace

class TestInpaintQuality : public QObject {
    Q_OBJECT

  private slots:
    void identical_images_score_perfectly() {
        // Noise plus a line and a step, so there are texture and edges in the hole.
        ImageRgba8 truth = noise(160, 128, 20);
        for (int y = 0; y < 128; ++y) {
            truth.at(70, y) = grey(10);
            for (int x = 100; x < 160; ++x) truth.at(x, y) = grey(230);
        }
        const Mask mask = rect_mask(160, 128, 32, 32, 128, 96);
        const FillQuality q = measure_fill(truth.view(), mask, &truth);
        QVERIFY(std::isinf(q.psnr_db));
        QCOMPARE(q.texture_ratio, 1.0);
        QCOMPARE(q.tiles.tiles, 6 * 4);  // 96×64 hole on the 16-px grid
        QCOMPARE(q.tiles.tiles_off_2x, 0);
        QCOMPARE(q.tiles.p95_abs_log2, 0.0);
        for (const double r : q.tiles.ratios) QCOMPARE(r, 1.0);
        QVERIFY(q.edges.truth_edges > 0);
        QCOMPARE(q.edges.result_edges, q.edges.truth_edges);
        QCOMPARE(q.edges.precision, 1.0);
        QCOMPARE(q.edges.recall, 1.0);
    }

    void flat_fill_of_texture_inside_the_hole() {
        // Texture only well inside the hole: a flat result has no gradient and no edge at all.
        ImageRgba8 truth(128, 128, grey(128));
        const ImageRgba8 texture = noise(128, 128, 100);
        for (int y = 40; y < 88; ++y)
            for (int x = 40; x < 88; ++x) truth.at(x, y) = texture.at(x, y);
        const Mask mask = rect_mask(128, 128, 32, 32, 96, 96);
        const ImageRgba8 flat(128, 128, grey(128));
        const FillQuality q = measure_fill(flat.view(), mask, &truth);
        QCOMPARE(q.texture_ratio, 0.0);
        QVERIFY(q.edges.truth_edges > 0);
        QCOMPARE(q.edges.result_edges, std::int64_t{0});
        QCOMPARE(q.edges.recall, 0.0);
        QVERIFY(std::isnan(q.edges.precision));  // nothing to be precise about
        // Every tile with texture in the truth is far below (ratio ≈ 1 / (1 + texture)).
        QVERIFY(q.tiles.tiles_off_2x >= 9);
        QVERIFY(q.tiles.p95_abs_log2 > 3.0);
    }

    void flat_fill_of_textured_surroundings() {
        // Texture everywhere, a flat fill: only the hole's border has gradient or edges.
        const ImageRgba8 truth = noise(192, 160, 100);
        const Mask mask = rect_mask(192, 160, 32, 32, 160, 128);
        const ImageRgba8 flat = composite(truth, ImageRgba8(192, 160, grey(128)), mask);
        const FillQuality q = measure_fill(flat.view(), mask, &truth);
        QVERIFY2(q.texture_ratio < 0.1, qPrintable(QString::number(q.texture_ratio)));
        QCOMPARE(q.tiles.tiles, 8 * 6);
        QCOMPARE(q.tiles.tiles_off_2x, q.tiles.tiles);
        QVERIFY2(q.edges.recall < 0.15, qPrintable(QString::number(q.edges.recall)));
    }

    void noisy_half_and_smeared_half_average_out_globally_but_not_per_tile() {
        // The case the tile-wise ratio exists for: the global ratio looks fine.
        const ImageRgba8 truth = noise(128, 64, 30);
        const Mask mask = rect_mask(128, 64, 0, 0, 128, 64);
        ImageRgba8 result = noise(128, 64, 60);
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x) result.at(x, y) = grey(128);
        const TileTexture t = tile_texture(result.view(), mask, truth.view());
        const FillQuality q = measure_fill(result.view(), mask, &truth);
        QVERIFY2(q.texture_ratio > 0.8 && q.texture_ratio < 1.3,
                 qPrintable(QString::number(q.texture_ratio)));
        QCOMPARE(t.tiles, 32);
        QVERIFY2(t.tiles_off_2x >= 16, qPrintable(QString::number(t.tiles_off_2x)));
        QVERIFY(t.p95_abs_log2 > 1.0);
    }

    void tiles_with_little_hole_do_not_count() {
        const ImageRgba8 image = noise(64, 64, 30);
        // 20×20 at (14, 14): tile (0,0) has 4 px, (16,0) 32 px... only (16,16) has 256 ≥ 64.
        const Mask mask = rect_mask(64, 64, 14, 14, 34, 34);
        QCOMPARE(tile_texture(image.view(), mask, image.view()).tiles, 1);
        // Flat in flat is ratio 1, not 0/0.
        const ImageRgba8 flat(64, 64, grey(90));
        const TileTexture t = tile_texture(flat.view(), mask, flat.view());
        QCOMPARE(t.ratios.size(), std::size_t{1});
        QCOMPARE(t.ratios[0], 1.0);
    }

    void edge_detector_finds_a_step_and_ignores_weak_noise() {
        const ImageRgba8 s = step(64, 48, 30);
        const Mask e = detect_edges(s.view());
        // One column of edge pixels (the image border rows have no Sobel response).
        QCOMPARE(count(e), std::int64_t{48 - 2});
        for (int y = 1; y < 47; ++y) QCOMPARE(int(e.at(29, y)) + int(e.at(30, y)), 1);
        QCOMPARE(count(detect_edges(noise(64, 48, 6).view())), std::int64_t{0});
        QCOMPARE(count(detect_edges(ImageRgba8(64, 48, grey(77)).view())), std::int64_t{0});
    }

    void thin_line_shifted_by_one_is_within_tolerance() {
        const Mask mask = rect_mask(100, 64, 20, 8, 80, 56);
        const ImageRgba8 truth = vertical_line(100, 64, 50, 1);
        const ImageRgba8 result = composite(truth, vertical_line(100, 64, 51, 1), mask);
        const EdgeMatch m = measure_fill(result.view(), mask, &truth).edges;
        QVERIFY(m.truth_edges > 0);
        QCOMPARE(m.precision, 1.0);
        QCOMPARE(m.recall, 1.0);
    }

    void thin_line_shifted_by_five_is_caught() {
        const Mask mask = rect_mask(100, 64, 20, 8, 80, 56);
        const ImageRgba8 truth = vertical_line(100, 64, 50, 1);
        const ImageRgba8 result = composite(truth, vertical_line(100, 64, 55, 1), mask);
        const EdgeMatch m = measure_fill(result.view(), mask, &truth).edges;
        QVERIFY(m.truth_edges > 0 && m.result_edges > 0);
        // Only the few pixels where the shifted line meets the original at the hole's border.
        QVERIFY2(m.precision < 0.15, qPrintable(QString::number(m.precision)));
        QVERIFY2(m.recall < 0.15, qPrintable(QString::number(m.recall)));
    }

    void step_shifted_by_one_and_by_five() {
        const Mask mask = rect_mask(100, 64, 20, 8, 80, 56);
        const ImageRgba8 truth = step(100, 64, 50);
        const ImageRgba8 near = composite(truth, step(100, 64, 51), mask);
        const ImageRgba8 far = composite(truth, step(100, 64, 55), mask);
        const EdgeMatch a = measure_fill(near.view(), mask, &truth).edges;
        QCOMPARE(a.precision, 1.0);
        QCOMPARE(a.recall, 1.0);
        const EdgeMatch b = measure_fill(far.view(), mask, &truth).edges;
        QVERIFY2(b.precision < 0.15, qPrintable(QString::number(b.precision)));
        QVERIFY2(b.recall < 0.15, qPrintable(QString::number(b.recall)));
    }

    void dropped_line_and_duplicated_line() {
        const Mask mask = rect_mask(100, 64, 20, 8, 80, 56);
        const ImageRgba8 truth = vertical_line(100, 64, 50, 1);
        // Dropped: the hole filled with the background.
        const ImageRgba8 dropped = composite(truth, ImageRgba8(100, 64, grey(160)), mask);
        const EdgeMatch d = measure_fill(dropped.view(), mask, &truth).edges;
        QVERIFY2(d.recall < 0.15, qPrintable(QString::number(d.recall)));
        // Duplicated: the line kept and a second one 15 px away: recall 1, precision about 1/2.
        ImageRgba8 twice = truth;
        for (int y = 8; y < 56; ++y) twice.at(65, y) = grey(40);
        const EdgeMatch t = measure_fill(twice.view(), mask, &truth).edges;
        QCOMPARE(t.recall, 1.0);
        QVERIFY2(t.precision > 0.4 && t.precision < 0.6, qPrintable(QString::number(t.precision)));
    }

    // Line continuation: do lines that enter the hole leave it where they should? A vertical line
    // through a hole: kept, it is continued; dropped, bent away or shifted by 5 px, it is not.
    // Lines that end in the hole, or that the truth's own edges do not follow, do not count.
    void lines_crossing_the_hole_continued_or_not() {
        const Mask mask = rect_mask(100, 64, 20, 16, 80, 48);
        const ImageRgba8 truth = vertical_line(100, 64, 50, 1);
        const Mask truth_edges = detect_edges(truth.view());
        const std::vector<QualityLine> line{{50, 2, 50, 61}};
        const auto continued = [&](const ImageRgba8& result,
                                   const std::vector<QualityLine>& lines) {
            const LineContinuation l =
                match_lines(detect_edges(result.view()), truth_edges, lines, mask);
            return std::pair{l.continued, l.crossing};
        };
        QCOMPARE(continued(truth, line), (std::pair{1, 1}));
        const ImageRgba8 dropped = composite(truth, ImageRgba8(100, 64, grey(160)), mask);
        QCOMPARE(continued(dropped, line), (std::pair{0, 1}));
        QCOMPARE(continued(composite(truth, vertical_line(100, 64, 55, 1), mask), line),
                 (std::pair{0, 1}));
        // Bent: the line stops half-way down the hole (the lower half is background).
        ImageRgba8 half = truth;
        for (int y = 32; y < 48; ++y) half.at(50, y) = grey(160);
        QCOMPARE(continued(half, line), (std::pair{0, 1}));
        // A line ending in the hole, one wholly outside it, one the truth has no edge along.
        const std::vector<QualityLine> others{{50, 2, 50, 30}, {10, 2, 10, 61}, {30, 2, 30, 61}};
        QCOMPARE(continued(truth, others), (std::pair{0, 0}));
        QCOMPARE(continued(dropped, others), (std::pair{0, 0}));
    }

    // Foreign content: a hole filled with a colour that occurs nowhere in
    // the 16-px ring scores 1, one filled with the ring's own colours 0, and half of each 0.5.
    void foreign_content_counts_colours_absent_from_the_ring() {
        const int w = 64, h = 48;
        const Mask mask = rect_mask(w, h, 24, 16, 40, 32);  // 16 × 16
        ImageRgba8 image(w, h, grey(100));
        QCOMPARE(foreign_content(image.view(), mask), 0.0);
        for (int y = 16; y < 32; ++y)
            for (int x = 24; x < 32; ++x) image.at(x, y) = Rgba8{200, 30, 30, 255};
        QCOMPARE(foreign_content(image.view(), mask), 0.5);
        // 5-bit quantisation: 100 and 103 share a bin (96..103), 100 and 104 do not.
        ImageRgba8 near(w, h, grey(100));
        for (int y = 16; y < 32; ++y)
            for (int x = 24; x < 40; ++x) near.at(x, y) = grey(103);
        QCOMPARE(foreign_content(near.view(), mask), 0.0);
        for (int y = 16; y < 32; ++y)
            for (int x = 24; x < 40; ++x) near.at(x, y) = grey(104);
        QCOMPARE(foreign_content(near.view(), mask), 1.0);
        // A colour just outside the ring does not count as seen.
        ImageRgba8 far(w, h, grey(100));
        for (int y = 16; y < 32; ++y)
            for (int x = 24; x < 40; ++x) far.at(x, y) = grey(200);
        far.at(0, 0) = grey(200);  // 24 px from the hole: outside the ring
        QCOMPARE(foreign_content(far.view(), mask), 1.0);
        far.at(9, 16) = grey(200);  // 15 px: inside
        QCOMPARE(foreign_content(far.view(), mask), 0.0);
    }

    // The map `lacuna bench inpaint --save` draws (*_foreign.png): exactly the hole pixels whose
    // colour the ring lacks, none outside the hole, and its share is foreign_content.
    void foreign_pixels_marks_what_foreign_content_counts() {
        const int w = 64, h = 48;
        const Mask mask = rect_mask(w, h, 24, 16, 40, 32);  // 16 × 16
        ImageRgba8 image(w, h, grey(100));
        for (int y = 16; y < 32; ++y)
            for (int x = 24; x < 30; ++x) image.at(x, y) = Rgba8{200, 30, 30, 255};
        image.at(3, 3) = Rgba8{10, 200, 10, 255};  // outside the hole and its ring: not marked
        image.at(33, 20) = grey(104);              // another bin, in the hole: marked
        const Mask foreign = foreign_pixels(image.view(), mask);
        int marked = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const bool red = x >= 24 && x < 30 && y >= 16 && y < 32;
                const bool expect = red || (x == 33 && y == 20);
                QVERIFY2((foreign.at(x, y) != 0) == expect,
                         qPrintable(QString("(%1, %2): %3").arg(x).arg(y).arg(foreign.at(x, y))));
                marked += foreign.at(x, y) != 0;
            }
        QCOMPARE(marked, 6 * 16 + 1);
        QCOMPARE(foreign_content(image.view(), mask), (6.0 * 16 + 1) / 256.0);
    }

    // Low-pass PSNR forgives fine noise that plain PSNR punishes, but not a wrong tone; detail is
    // 1 for the truth itself and near 0 for a flat fill of a textured hole.
    void lowpass_psnr_and_detail() {
        const int w = 96, h = 96;
        const Mask mask = rect_mask(w, h, 32, 32, 64, 64);
        const ImageRgba8 truth = noise(w, h, 40);
        QVERIFY(std::isinf(lowpass_psnr(truth.view(), truth.view(), mask)));
        // Another noise of the same strength: plain PSNR is poor, low-pass PSNR good.
        ImageRgba8 other = truth;
        for (int y = 32; y < 64; ++y)
            for (int x = 32; x < 64; ++x)
                other.at(x, y) = grey(128 + (hash_noise(x + 1000, y) - 128) * 40 / 128);
        const FillQuality q = measure_fill(other.view(), mask, &truth);
        QVERIFY2(q.psnr_db < 20.0, qPrintable(QString::number(q.psnr_db)));
        QVERIFY2(q.lowpass_psnr_db > 30.0, qPrintable(QString::number(q.lowpass_psnr_db)));
        QVERIFY(std::abs(q.detail_ratio - 1.0) < 0.1);
        QVERIFY(q.truth_sobel >= kTexturedSobel);
        // A tone 20 levels off everywhere in the hole: low-pass PSNR about 20·log10(255/20),
        // a little above (the blur mixes in the ring's right tone near the border).
        ImageRgba8 off = truth;
        for (int y = 32; y < 64; ++y)
            for (int x = 32; x < 64; ++x) {
                const Rgba8 p = truth.at(x, y);
                off.at(x, y) = grey(std::min(255, p.r + 20));
            }
        const double lp = lowpass_psnr(off.view(), truth.view(), mask);
        QVERIFY2(lp > 22.0 && lp < 24.5, qPrintable(QString::number(lp)));
        // Flat: no detail.
        ImageRgba8 flat = truth;
        for (int y = 32; y < 64; ++y)
            for (int x = 32; x < 64; ++x) flat.at(x, y) = grey(128);
        QVERIFY(measure_fill(flat.view(), mask, &truth).detail_ratio < 0.4);
        QCOMPARE(mean_sobel(ImageRgba8(w, h, grey(77)).view(), mask), 0.0);
    }

    void wrong_sizes_are_rejected() {
        const ImageRgba8 a(32, 32, grey(1)), b(32, 31, grey(1));
        const Mask mask(32, 32, std::uint8_t{1});
        QVERIFY_THROWS_EXCEPTION(Error, (void)tile_texture(a.view(), mask, b.view()));
        QVERIFY_THROWS_EXCEPTION(Error, (void)measure_fill(a.view(), mask, &b));
    }
};

QTEST_GUILESS_MAIN(TestInpaintQuality)
#include "test_inpaint_quality.moc"
