// Approximate-first seam orders: the upsampled order keeps one pixel per seam index in every row
// (column), a hand-built coarse case upsamples exactly, the factor choice, order_distance, bad
// input, and on a real photo how far the factor-2 approximation is from the exact order.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "ppm.hpp"
#include "seam_test_util.hpp"

#include <QtTest>

#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

constexpr std::int32_t N = kNeverRemoved;

const std::string kPhoto = LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm";

/// A crop of the photo (odd sizes leave partial blocks at the right and bottom).
ImageRgba8 crop(const ImageRgba8& photo, const int w, const int h) {
    ImageRgba8 out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.at(x, y) = photo.at(x, y);
    return out;
}

/// Empty when every row (vertical) or column (horizontal) holds each index below order.seams
/// exactly once and nothing else but kNeverRemoved; else the first violation.
QString check_lines(const SeamOrder& order) {
    const bool vertical = order.direction == SeamDirection::Vertical;
    const int lines = vertical ? order.height : order.width;
    const int length = vertical ? order.width : order.height;
    for (int l = 0; l < lines; ++l) {
        std::vector<int> seen(static_cast<std::size_t>(order.seams), 0);
        for (int i = 0; i < length; ++i) {
            const std::int32_t k = vertical ? order.order.at(i, l) : order.order.at(l, i);
            if (k == N) continue;
            if (k < 0 || k >= order.seams)
                return QString("line %1 holds seam index %2 (depth %3)")
                    .arg(l)
                    .arg(k)
                    .arg(order.seams);
            if (++seen[static_cast<std::size_t>(k)] > 1)
                return QString("line %1 holds seam %2 twice").arg(l).arg(k);
        }
        for (int k = 0; k < order.seams; ++k)
            if (seen[static_cast<std::size_t>(k)] != 1)
                return QString("line %1 misses seam %2").arg(l).arg(k);
    }
    return {};
}

/// A flat grey image.
ImageRgba8 flat(const int w, const int h) {
    return ImageRgba8(w, h, Rgba8{128, 128, 128, 255});
}

template <class T>
Image<T> transposed(const Image<T>& src) {
    Image<T> out(src.height(), src.width());
    for (int y = 0; y < src.height(); ++y)
        for (int x = 0; x < src.width(); ++x) out.at(y, x) = src.at(x, y);
    return out;
}

}  // namespace

class TestSeamApproximate : public QObject {
    Q_OBJECT
    ImageRgba8 photo_;

  private slots:
    void initTestCase() {
        photo_ = test::read_ppm(kPhoto);
        QVERIFY2(!photo_.empty(), kPhoto.c_str());
    }

    // Every row (column) of the upsampled order is a permutation of the seam indices plus
    // never-removed pixels, for odd sizes, both directions, factors 2 and 4, with masks; the
    // partial blocks' columns (rows) are never removed; compaction gives the right size.
    void rows_hold_each_seam_once() {
        const ImageRgba8 img = crop(photo_, 157, 117);
        const Mask protect = test::rect_mask(157, 117, 20, 30, 40, 60);
        const Mask remove = test::rect_mask(157, 117, 100, 10, 106, 50);
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            for (const int factor : {2, 4}) {
                for (const bool masks : {false, true}) {
                    const CarveInput input{img.view(), masks ? &protect : nullptr,
                                           masks ? &remove : nullptr, SeamEnergy::Forward};
                    const bool vertical = dir == SeamDirection::Vertical;
                    const int extent = vertical ? 157 : 117;
                    const int requested = extent / 2 + 1;  // odd: rounded down to the factor
                    const SeamOrder o = seam_order_approximate(input, dir, requested, factor,
                                                               CarveImplementation::Fast);
                    const QString where = QString("%1 factor %2 masks %3")
                                              .arg(vertical ? "vertical" : "horizontal")
                                              .arg(factor)
                                              .arg(masks);
                    QVERIFY2(o.direction == dir, qPrintable(where));
                    QCOMPARE(o.width, 157);
                    QCOMPARE(o.height, 117);
                    QCOMPARE(o.seams, requested / factor * factor);
                    QCOMPARE(int(o.costs.size()), o.seams);
                    QCOMPARE(int(o.protected_crossed.size()), o.seams);
                    QCOMPARE(int(o.remove_crossed.size()), o.seams);
                    const QString lines = check_lines(o);
                    QVERIFY2(lines.isEmpty(), qPrintable(where + ": " + lines));
                    // The last extent % factor columns (rows) are never removed.
                    for (int a = extent / factor * factor; a < extent; ++a)
                        for (int b = 0; b < (vertical ? 117 : 157); ++b)
                            QCOMPARE(vertical ? o.order.at(a, b) : o.order.at(b, a), N);
                    const ImageRgba8 out = remove_seams<Rgba8>(img.view(), o, o.seams);
                    QCOMPARE(out.width(), vertical ? 157 - o.seams : 157);
                    QCOMPARE(out.height(), vertical ? 117 : 117 - o.seams);
                }
            }
        }
    }

    // A flat 9 × 7 image whose remove mask marks one pixel in blocks (2,0), (1,1) and (0,2):
    // the one coarse seam takes exactly those blocks, so the fine order is known by hand. Column
    // 8 and row 6 lie outside the whole blocks (the column is never removed, the row repeats
    // row 5).
    void upsamples_hand_built_case() {
        const ImageRgba8 img = flat(9, 7);
        Mask remove(9, 7, 0);
        remove.at(4, 0) = 255;  // block (2, 0)
        remove.at(3, 3) = 255;  // block (1, 1)
        remove.at(1, 4) = 255;  // block (0, 2)
        const std::vector<std::vector<std::int32_t>> expected = {
            {N, N, N, N, 0, 1, N, N, N},  //
            {N, N, N, N, 0, 1, N, N, N},  //
            {N, N, 0, 1, N, N, N, N, N},  //
            {N, N, 0, 1, N, N, N, N, N},  //
            {0, 1, N, N, N, N, N, N, N},  //
            {0, 1, N, N, N, N, N, N, N},  //
            {0, 1, N, N, N, N, N, N, N},  // below the last block row: a copy of row 5
        };
        // 3 seams asked: rounded down to 2 (one coarse seam).
        const SeamOrder v =
            seam_order_approximate({img.view(), nullptr, &remove, SeamEnergy::Forward},
                                   SeamDirection::Vertical, 3, 2, CarveImplementation::Reference);
        QCOMPARE(v.seams, 2);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 9; ++x) {
                if (v.order.at(x, y) != expected[y][x])
                    QFAIL(qPrintable(QString("vertical (%1, %2): %3, expected %4")
                                         .arg(x)
                                         .arg(y)
                                         .arg(v.order.at(x, y))
                                         .arg(expected[y][x])));
            }
        // Seam 0 crosses (4, 0); seam 1 crosses (3, 3) and (1, 4).
        QCOMPARE(v.remove_crossed, (std::vector<std::int32_t>{1, 2}));
        QCOMPARE(v.protected_crossed, (std::vector<std::int32_t>{0, 0}));
        QCOMPARE(v.costs.size(), std::size_t{2});
        QCOMPARE(v.costs[0], v.costs[1]);  // one coarse seam: one cost
        QVERIFY(v.costs[0] <= -3 * kSeamMaskWeight);

        // Horizontal: the same problem transposed.
        const Mask remove_t = transposed(remove);
        const ImageRgba8 img_t = flat(7, 9);
        const SeamOrder h =
            seam_order_approximate({img_t.view(), nullptr, &remove_t, SeamEnergy::Forward},
                                   SeamDirection::Horizontal, 2, 2, CarveImplementation::Fast);
        QCOMPARE(h.seams, 2);
        QCOMPARE(h.width, 7);
        QCOMPARE(h.height, 9);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 7; ++x) {
                if (h.order.at(x, y) != expected[x][y])
                    QFAIL(qPrintable(QString("horizontal (%1, %2): %3, expected %4")
                                         .arg(x)
                                         .arg(y)
                                         .arg(h.order.at(x, y))
                                         .arg(expected[x][y])));
            }
        QCOMPARE(h.remove_crossed, (std::vector<std::int32_t>{1, 2}));
    }

    // The coarse image is the rounded average of each whole block and a coarse mask pixel is set
    // when any pixel of its block is: the approximate order equals the order of that image,
    // computed here by hand and carved by the reference, upsampled (costs included).
    void downscales_by_block_average() {
        const ImageRgba8 img = crop(photo_, 23, 17);  // 11 × 8 blocks of 2 × 2, partial edges
        Mask protect(23, 17, 0);
        protect.at(9, 5) = 1;  // one pixel of block (4, 2)
        ImageRgba8 coarse(11, 8);
        Mask coarse_protect(11, 8, 0);
        coarse_protect.at(4, 2) = 255;
        for (int cy = 0; cy < 8; ++cy)
            for (int cx = 0; cx < 11; ++cx) {
                int sum[4] = {};
                for (int y = 2 * cy; y < 2 * cy + 2; ++y)
                    for (int x = 2 * cx; x < 2 * cx + 2; ++x) {
                        const Rgba8 p = img.at(x, y);
                        sum[0] += p.r;
                        sum[1] += p.g;
                        sum[2] += p.b;
                        sum[3] += p.a;
                    }
                const auto avg = [&](const int i) { return std::uint8_t((sum[i] + 2) / 4); };
                coarse.at(cx, cy) = Rgba8{avg(0), avg(1), avg(2), avg(3)};
            }
        for (const SeamEnergy energy : {SeamEnergy::Forward, SeamEnergy::Sobel}) {
            const SeamOrder c = seam_order_reference(
                {coarse.view(), &coarse_protect, nullptr, energy}, SeamDirection::Vertical, 6);
            const SeamOrder a =
                seam_order_approximate({img.view(), &protect, nullptr, energy},
                                       SeamDirection::Vertical, 12, 2, CarveImplementation::Fast);
            for (int s = 0; s < 12; ++s) QCOMPARE(a.costs[s], c.costs[s / 2]);
            for (int y = 0; y < 17; ++y)
                for (int x = 0; x < 23; ++x) {
                    const std::int32_t k = c.order.at(std::min(x / 2, 10), std::min(y / 2, 7));
                    const std::int32_t want = x >= 22 || k == N ? N : 2 * k + x % 2;
                    QCOMPARE(a.order.at(x, y), want);
                }
        }
    }

    void chooses_the_factor() {
        QCOMPARE(approximate_factor(3840, 2160), 8);
        QCOMPARE(approximate_factor(1920, 1080), 4);
        QCOMPARE(approximate_factor(1300, 800), 2);
        QCOMPARE(approximate_factor(600, 480), 1);
        QCOMPARE(approximate_factor(547, 548), 1);  // 299,756 pixels
        QCOMPARE(approximate_factor(548, 548), 2);  // 300,304 pixels
        QCOMPARE(approximate_factor(7680, 4320), 16);
        QCOMPARE(approximate_factor(100, 100, 2500), 2);
        QCOMPARE(approximate_factor(100, 100, 2499), 4);
        QCOMPARE(approximate_factor(2, 1000000, 10), 2);  // never below one pixel
        QVERIFY_THROWS_EXCEPTION(Error, approximate_factor(0, 10));
        QVERIFY_THROWS_EXCEPTION(Error, approximate_factor(10, 10, 0));
    }

    void distance_of_an_order_to_itself_is_zero() {
        const SeamOrder o =
            seam_order_fast({photo_.view()}, SeamDirection::Vertical, photo_.width() / 2);
        for (const int count : {0, 1, 17, o.seams}) {
            const OrderDistance d = order_distance(photo_.view(), o, o, count);
            QCOMPARE(d.differing_share, 0.0);
            QCOMPARE(d.exact_energy, d.approximate_energy);
            if (count > 0) QVERIFY(d.exact_energy > 0);
        }
    }

    // Two hand-made orders of a 4 × 2 image: the share counts pixels removed by only one of
    // them, the energies sum |ΔI| across and along with clamped borders (I = r + g + b).
    void distance_by_hand() {
        ImageRgba8 img(4, 2);
        const int values[2][4] = {{0, 10, 20, 30}, {5, 5, 5, 5}};
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 4; ++x) {
                const auto v = static_cast<std::uint8_t>(values[y][x]);
                img.at(x, y) = Rgba8{v, 0, 0, 255};
            }
        SeamOrder a, b;
        for (SeamOrder* o : {&a, &b}) {
            o->width = 4;
            o->height = 2;
            o->seams = 1;
            o->order = Image<std::int32_t>(4, 2, N);
        }
        a.order.at(0, 0) = 0;  // a removes (0,0) and (1,1)
        a.order.at(1, 1) = 0;
        b.order.at(0, 0) = 0;  // b removes (0,0) and (3,1)
        b.order.at(3, 1) = 0;
        const OrderDistance d = order_distance(img.view(), a, b, 1);
        QCOMPARE(d.differing_share, 2.0 / (2 * 1 * 2));
        // (0,0): |10 − 0| + |5 − 0| = 15; (1,1): |5 − 5| + |5 − 10| = 5; (3,1): 0 + |5 − 30| = 25.
        QCOMPARE(d.exact_energy, std::int64_t{15 + 5});
        QCOMPARE(d.approximate_energy, std::int64_t{15 + 25});
    }

    void rejects_bad_input() {
        const ImageRgba8 img = crop(photo_, 40, 30);
        const CarveInput input{img.view()};
        for (const int factor : {-2, 0, 1, 3, 6}) {
            try {
                (void)seam_order_approximate(input, SeamDirection::Vertical, 10, factor,
                                             CarveImplementation::Fast);
                QFAIL(qPrintable(QString("factor %1 accepted").arg(factor)));
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::InvalidArgument);
                QVERIFY2(QString(e.what()).contains("power of two"), e.what());
            }
        }
        // Too many seams for the image (40 wide: at most 39), and for the downscaled image (41
        // wide: 20 coarse columns, at most 19 coarse seams, 39 rounds down to 38).
        QVERIFY_THROWS_EXCEPTION(Error, seam_order_approximate(input, SeamDirection::Vertical, 40,
                                                               2, CarveImplementation::Fast));
        const ImageRgba8 wide = crop(photo_, 41, 30);
        try {
            (void)seam_order_approximate({wide.view()}, SeamDirection::Vertical, 40, 2,
                                         CarveImplementation::Fast);
            QFAIL("40 seams at factor 2 in a 41-pixel-wide image accepted");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::InvalidArgument);
            QVERIFY2(QString(e.what()).contains("at most 38 seams"), e.what());
        }
        QCOMPARE(seam_order_approximate({wide.view()}, SeamDirection::Vertical, 39, 2,
                                        CarveImplementation::Fast)
                     .seams,
                 38);
        QVERIFY_THROWS_EXCEPTION(Error, seam_order_approximate(input, SeamDirection::Vertical, -1,
                                                               2, CarveImplementation::Fast));
        QVERIFY_THROWS_EXCEPTION(Error, seam_order_approximate(input, SeamDirection::Horizontal, 10,
                                                               32, CarveImplementation::Fast));
        const Mask wrong(39, 30, 0);
        QVERIFY_THROWS_EXCEPTION(
            Error, seam_order_approximate({img.view(), &wrong}, SeamDirection::Vertical, 10, 2,
                                          CarveImplementation::Fast));

        const SeamOrder v = seam_order_fast(input, SeamDirection::Vertical, 10);
        const SeamOrder h = seam_order_fast(input, SeamDirection::Horizontal, 10);
        try {
            (void)order_distance(wide.view(), v, v, 5);
            QFAIL("an order of another image's size was accepted");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::InvalidArgument);
            QVERIFY2(QString(e.what()).contains("another size"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, order_distance(img.view(), v, h, 5));
        QVERIFY_THROWS_EXCEPTION(Error, order_distance(img.view(), v, v, 11));
        QVERIFY_THROWS_EXCEPTION(Error, order_distance(img.view(), v, v, -1));
    }

    // The real photo at 50 %: factor 2 gets close to the exact order but not equal.
    void photo_at_half_differs_but_not_much() {
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            const bool vertical = dir == SeamDirection::Vertical;
            const int count = (vertical ? photo_.width() : photo_.height()) / 2;
            const CarveInput input{photo_.view()};
            const SeamOrder exact = seam_order_fast(input, dir, count);
            const SeamOrder approx =
                seam_order_approximate(input, dir, count, 2, CarveImplementation::Fast);
            QCOMPARE(approx.seams, count);
            const OrderDistance d = order_distance(photo_.view(), exact, approx, count);
            qInfo(
                "%s %d × %d, %d seams, factor 2: differing share %.4f, energy exact %lld, "
                "approximate %lld (%.3f ×)",
                vertical ? "vertical" : "horizontal", photo_.width(), photo_.height(), count,
                d.differing_share, static_cast<long long>(d.exact_energy),
                static_cast<long long>(d.approximate_energy),
                static_cast<double>(d.approximate_energy) / static_cast<double>(d.exact_energy));
            QVERIFY2(d.differing_share > 0 && d.differing_share < 0.5,
                     qPrintable(QString::number(d.differing_share)));
            QVERIFY(d.exact_energy > 0 && d.approximate_energy > 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestSeamApproximate)
#include "test_seam_approximate.moc"
