// The foreign-blob refill (inpaint_refill.hpp) on real photos with the truth known (the hole is
// cut where nothing was: the photo is the truth). A piece of an orange (fruits.jpg's pixels)
// pasted into PatchMatch's fill of a sky is found as one blob of colours the sky's ring lacks,
// filled again and gone; a clean fill is left byte for byte; a speck is not a blob; pixels
// outside the hole are never written; a blob on a ledge that enters the hole from the ring
// keeps its fill when the refill would erase the ledge.
#include "inpaint_test_util.hpp"

#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_quality.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <numbers>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

std::filesystem::path photo(const char* name) {
    return std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name;
}

bool same(const ImageRgba8& a, const ImageRgba8& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (!(a.at(x, y) == b.at(x, y))) return false;
    return true;
}

bool same_outside(const ImageRgba8& a, const ImageRgba8& b, const Mask& hole) {
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (hole.at(x, y) == 0 && !(a.at(x, y) == b.at(x, y))) return false;
    return true;
}

/// The bench's "obj sky blue clouds": home.jpg's sky with its blob hole, and PatchMatch's fill
/// (the default, without the refill).
struct Sky {
    ImageRgba8 truth = io::read_image(photo("home.jpg")).image;
    Mask hole = test::bench_blob(truth.width(), truth.height(), 175, 95, 34, 28, 4);
    ImageRgba8 fill = [this] {
        InpaintParams p;
        p.refill_foreign = false;
        return inpaint(truth.view(), hole, p, InpaintImplementation::Fast).image;
    }();
};

/// `fill` with a 14 × 12 piece of fruits.jpg's orange slice (at 180, 150 there) pasted at (x, y):
/// what PatchMatch does when it copies a look-alike object into a hole.
ImageRgba8 with_piece(const ImageRgba8& fill, const int x, const int y) {
    const ImageRgba8 fruits = io::read_image(photo("fruits.jpg")).image;
    ImageRgba8 out = clone(fill.view());
    for (int j = 0; j < 12; ++j)
        for (int i = 0; i < 14; ++i) out.at(x + i, y + j) = fruits.at(180 + i, 150 + j);
    return out;
}

/// A generated façade: a light, noisy wall (200..231 grey) crossed by a dark ledge (rows 58..61,
/// 30..37 grey) and a 40 × 30 hole over the ledge. The fill is the picture itself, except that
/// the ledge's middle inside the hole has a greenish grey its ring lacks (90, 110, 80): shades
/// of a structure that continues from the ring, as on the bench's façade "wall".
struct Ledge {
    static constexpr int w = 160, h = 120, ledge0 = 58, ledge1 = 61;
    Mask hole{w, h, std::uint8_t{0}};
    ImageRgba8 fill{w, h};
    Mask never{w, h, std::uint8_t{0}};  ///< the ledge outside the hole: no source can repaint it
    Ledge() {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const auto noise = static_cast<std::uint8_t>((x * 7919 + y * 104729) % 31 / 4);
                const bool on_ledge = y >= ledge0 && y <= ledge1;
                const std::uint8_t v = on_ledge ? 30 + noise : 200 + 4 * noise;
                fill.at(x, y) = Rgba8{v, v, v, 255};
                hole.at(x, y) = x >= 60 && x < 100 && y >= 45 && y < 75 ? 1 : 0;
                never.at(x, y) = on_ledge && hole.at(x, y) == 0 ? 1 : 0;
                if (on_ledge && x >= 68 && x < 92)
                    fill.at(x, y) = Rgba8{static_cast<std::uint8_t>(90 + noise),
                                          static_cast<std::uint8_t>(110 + noise),
                                          static_cast<std::uint8_t>(80 + noise), 255};
            }
    }
};

/// A 16-bit measurement whose samples need more than 8 bits: a noisy sky (each channel's noise
/// spans about two 8-bit levels), an orange block far from the hole, and a 40 × 40 hole. Its
/// fill is given as sources (what the measurement path moves samples by): the sky 45 px to the
/// left of each hole pixel, except a 16 × 14 piece copied from the orange block's corner with
/// two rows and columns of sky above and left of it (as PatchMatch copies a look-alike object
/// with its edge, which the blend then keeps). So the proxy's fill holds an orange blob the
/// sky's ring lacks.
struct DeepSky {
    static constexpr int w = 160, h = 120, hx0 = 50, hy0 = 40, hole_size = 40;
    static constexpr int px0 = 58, py0 = 48, pw = 16, ph = 14;  ///< the copied piece...
    static constexpr int bx0 = 60, by0 = 50, bw = 14, bh = 12;  ///< ...and its orange part
    NativeImage samples{w, h, {SampleType::U16, 3}};
    Mask hole{w, h, std::uint8_t{0}};
    FillSources sources;
    static bool orange(const int x, const int y) { return x >= 130 && x < 152 && y >= 8 && y < 32; }
    DeepSky() {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int n = (x * 7919 + y * 104729) % 601;
                samples.set_sample(x, y, 0, orange(x, y) ? 60000 + n : 12000 + n);
                samples.set_sample(x, y, 1, orange(x, y) ? 30000 + n : 26000 + (n * 7) % 601);
                samples.set_sample(x, y, 2, orange(x, y) ? 5000 + n : 50000 + (n * 13) % 601);
                hole.at(x, y) =
                    x >= hx0 && x < hx0 + hole_size && y >= hy0 && y < hy0 + hole_size ? 1 : 0;
            }
        sources = {w, h, {hx0, hy0, hx0 + hole_size - 1, hy0 + hole_size - 1}, {}};
        for (int y = hy0; y < hy0 + hole_size; ++y)
            for (int x = hx0; x < hx0 + hole_size; ++x) {
                const bool piece = x >= px0 && x < px0 + pw && y >= py0 && y < py0 + ph;
                sources.index.push_back(piece ? (y - 42) * w + (x + 70) : y * w + (x - 45));
            }
    }
};

InpaintParams with_refill() {
    InpaintParams p;
    p.refill_foreign = true;
    return p;
}

}  // namespace

class TestInpaintRefill : public QObject {
    Q_OBJECT

  private slots:
    void a_pasted_piece_is_filled_again() {
        const Sky sky;
        const ImageRgba8 bad = with_piece(sky.fill, 170, 90);
        const double bad_foreign = foreign_content(bad.view(), sky.hole);
        const double bad_db = lowpass_psnr(bad.view(), sky.truth.view(), sky.hole);
        QVERIFY2(bad_foreign > 0.03, qPrintable(QString::number(bad_foreign)));
        RefillReport report;
        const ImageRgba8 out =
            refill_foreign(sky.hole, with_refill(), InpaintImplementation::Fast, bad, &report);
        QCOMPARE(report.blobs, 1);
        QCOMPARE(report.kept, 1);
        QCOMPARE(report.structure_refused, 0);
        QVERIFY(report.foreign_before >= 14 * 12 / 2);
        QVERIFY(report.foreign_after * 10 <= report.foreign_before);
        QVERIFY(same_outside(out, bad, sky.hole));
        const double out_foreign = foreign_content(out.view(), sky.hole);
        const double out_db = lowpass_psnr(out.view(), sky.truth.view(), sky.hole);
        const double fill_db = lowpass_psnr(sky.fill.view(), sky.truth.view(), sky.hole);
        qInfo("foreign %.3f -> %.3f; low-pass PSNR %.2f -> %.2f dB (PatchMatch alone %.2f)",
              bad_foreign, out_foreign, bad_db, out_db, fill_db);
        QVERIFY(out_foreign <= 0.005);
        // The sky is back: within a dB of PatchMatch's own fill, far above the pasted one.
        QVERIFY2(out_db > bad_db + 8.0, qPrintable(QString::number(out_db - bad_db)));
        QVERIFY2(out_db > fill_db - 1.0, qPrintable(QString::number(out_db - fill_db)));
    }

    void the_piece_is_one_blob_within_the_hole() {
        const Sky sky;
        const ImageRgba8 bad = with_piece(sky.fill, 170, 90);
        const ForeignBlobs found = find_foreign_blobs(bad.view(), sky.hole);
        QCOMPARE(static_cast<int>(found.foreign_in_blob.size()), 1);
        // Most of the piece's pixels have colours the sky's ring lacks; the sky's do not.
        int foreign_in_piece = 0;
        for (int j = 0; j < 12; ++j)
            for (int i = 0; i < 14; ++i) foreign_in_piece += found.foreign.at(170 + i, 90 + j) != 0;
        QVERIFY(foreign_in_piece >= 14 * 12 / 2);
        QVERIFY(found.foreign_in_blob[0] >= foreign_in_piece);
        QVERIFY(found.foreign_in_blob[0] <= foreign_in_piece + 10);
        // The refilled blob covers the piece and a margin around it, and stays in the hole.
        int piece_covered = 0, margin_covered = 0, outside = 0;
        for (int y = 0; y < bad.height(); ++y)
            for (int x = 0; x < bad.width(); ++x) {
                if (found.refill.at(x, y) == 0) continue;
                outside += sky.hole.at(x, y) == 0;
                const bool in_piece = x >= 170 && x < 184 && y >= 90 && y < 102;
                piece_covered += in_piece;
                margin_covered += !in_piece && x >= 170 - kRefillGrow && x < 184 + kRefillGrow &&
                                  y >= 90 - kRefillGrow && y < 102 + kRefillGrow;
            }
        QCOMPARE(piece_covered, 14 * 12);
        QVERIFY(margin_covered > 0);
        QCOMPARE(outside, 0);
        // A clump smaller than kRefillMinForeign foreign pixels is noise, not a blob.
        ImageRgba8 speck = clone(sky.fill.view());
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i) speck.at(170 + i, 90 + j) = Rgba8{230, 120, 20, 255};
        QVERIFY(find_foreign_blobs(speck.view(), sky.hole).foreign_in_blob.empty());
    }

    void a_clean_fill_is_left_alone() {
        const Sky sky;
        RefillReport report;
        const ImageRgba8 out =
            refill_foreign(sky.hole, with_refill(), InpaintImplementation::Fast, sky.fill, &report);
        QCOMPARE(report.kept, 0);
        QVERIFY(same(out, sky.fill));
        // And through ops::inpaint: the option changes nothing here.
        const InpaintResult full =
            inpaint(sky.truth.view(), sky.hole, with_refill(), InpaintImplementation::Fast);
        QVERIFY(same(full.image, sky.fill));
    }

    void a_refill_that_erases_a_ledge_is_refused() {
        // The blob is the ledge's middle; with the ledge never sampled the refill can only paint
        // wall over it (and would be kept on its colours alone: no foreign pixel is left). The
        // ledge enters the hole from the ring as a straight edge, so the refill is refused.
        const Ledge ledge;
        const ForeignBlobs found = find_foreign_blobs(ledge.fill.view(), ledge.hole);
        QCOMPARE(static_cast<int>(found.foreign_in_blob.size()), 1);
        QVERIFY(found.foreign_in_blob[0] >= 24 * 4 - 4);
        QVERIFY(!edges_into_hole(ledge.fill.view(), ledge.hole, {}).empty());
        InpaintParams p = with_refill();
        p.never_sample = &ledge.never;
        RefillReport report;
        const ImageRgba8 out =
            refill_foreign(ledge.hole, p, InpaintImplementation::Fast, ledge.fill, &report);
        QCOMPARE(report.blobs, 1);
        QCOMPARE(report.kept, 0);
        QCOMPARE(report.structure_refused, 1);
        QCOMPARE(report.foreign_after, report.foreign_before);
        QVERIFY(same(out, ledge.fill));
    }

    // A measurement's refill (issue 31: "the 16-bit measurement fill gets the same
    // improvements"): decided on the 8-bit proxy of the fill the sources give, and applied by
    // moving the measurement's own samples from the refill's sources: every refilled sample is
    // an exact copy of a known sample outside the hole, the orange piece is gone, and nothing
    // outside the kept blob changes.
    void a_measurement_refill_moves_known_samples() {
        const DeepSky sky;
        const ImageRgba8 proxy = carving_proxy(sky.samples).image;
        InpaintParams params = with_refill();
        params.choose = false;
        const RefillChoice refill = refill_sources(proxy.view(), sky.hole, params,
                                                   InpaintImplementation::Fast, sky.sources, {});
        QCOMPARE(refill.report.blobs, 1);
        QCOMPARE(refill.report.kept, 1);
        QCOMPARE(refill.kept_blobs(), 1);
        const NativeImage before = fill_from_sources(sky.samples, sky.sources);
        NativeImage filled = before;
        apply_refill(filled, {0, 0, DeepSky::w - 1, DeepSky::h - 1}, sky.samples, refill);
        int moved = 0, piece_moved = 0;
        Mask refilled(DeepSky::w, DeepSky::h, std::uint8_t{0});
        const SearchRect& fb = refill.sources.box;
        for (int y = 0; y < DeepSky::h; ++y)
            for (int x = 0; x < DeepSky::w; ++x) {
                const std::int32_t b =
                    refill.blobs.label[static_cast<std::size_t>(y) * DeepSky::w + x];
                if (b < 0 || refill.kept[static_cast<std::size_t>(b)] == 0) continue;
                refilled.at(x, y) = 1;
                const std::int32_t s =
                    refill.sources.index[static_cast<std::size_t>(y - fb.y0) * (fb.x1 - fb.x0 + 1) +
                                         (x - fb.x0)];
                const int sx = s % DeepSky::w, sy = s / DeepSky::w;
                // A known sample of the sky: outside the hole, not the orange block.
                QCOMPARE(sky.hole.at(sx, sy), std::uint8_t{0});
                QVERIFY(!DeepSky::orange(sx, sy));
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(filled.sample(x, y, c), sky.samples.sample(sx, sy, c));
                ++moved;
                piece_moved += x >= DeepSky::bx0 && x < DeepSky::bx0 + DeepSky::bw &&
                               y >= DeepSky::by0 && y < DeepSky::by0 + DeepSky::bh;
            }
        QCOMPARE(piece_moved, DeepSky::bw * DeepSky::bh);
        QVERIFY(moved > piece_moved);  // the 2-px margin around the piece goes too
        for (int y = 0; y < DeepSky::h; ++y)
            for (int x = 0; x < DeepSky::w; ++x) {
                if (refilled.at(x, y) != 0) continue;
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(filled.sample(x, y, c), before.sample(x, y, c));
            }
        // No orange sample is left in the hole.
        for (int y = 0; y < DeepSky::h; ++y)
            for (int x = 0; x < DeepSky::w; ++x)
                if (sky.hole.at(x, y) != 0) QVERIFY(filled.sample(x, y, 0) < 20000);
        // A rectangle that does not hold the blob, or samples of another format: refused, and
        // the samples are left as they were.
        NativeImage small = copy_region(before, {0, 0, 59, 59});
        QVERIFY_THROWS_EXCEPTION(Error, apply_refill(small, {0, 0, 59, 59}, sky.samples, refill));
        QVERIFY(small == copy_region(before, {0, 0, 59, 59}));
        NativeImage grey(DeepSky::w, DeepSky::h, {SampleType::U16, 1});
        QVERIFY_THROWS_EXCEPTION(
            Error, apply_refill(grey, {0, 0, DeepSky::w - 1, DeepSky::h - 1}, sky.samples, refill));
        // The decision is the picture's: refill_foreign on the same proxy fill keeps the same
        // blob.
        const ImageRgba8 picture =
            blend_fill(fill_from_sources(proxy.view(), sky.sources), sky.hole, sky.sources);
        RefillReport report;
        (void)refill_foreign(sky.hole, params, InpaintImplementation::Fast, picture, &report);
        QCOMPARE(report.kept, refill.report.kept);
        QCOMPARE(report.blobs, refill.report.blobs);
        // Off: nothing is decided or moved.
        params.refill_foreign = false;
        QCOMPARE(refill_sources(proxy.view(), sky.hole, params, InpaintImplementation::Fast,
                                sky.sources, {})
                     .kept_blobs(),
                 0);
    }

    void off_or_criminisi_leaves_the_fill() {
        const Sky sky;
        const ImageRgba8 bad = with_piece(sky.fill, 170, 90);
        InpaintParams off;
        off.refill_foreign = false;
        RefillReport report;
        QVERIFY(
            same(refill_foreign(sky.hole, off, InpaintImplementation::Fast, bad, &report), bad));
        QCOMPARE(report.blobs, 0);
        InpaintParams criminisi = with_refill();
        criminisi.method = InpaintMethod::Criminisi;
        QVERIFY(same(refill_foreign(sky.hole, criminisi, InpaintImplementation::Fast, bad), bad));
    }
};

QTEST_APPLESS_MAIN(TestInpaintRefill)
#include "test_inpaint_refill.moc"
