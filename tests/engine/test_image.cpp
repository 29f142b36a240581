// Host images: pitched layout, views, copies, limits, masks, and the luminance reference.
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>

#include <QtTest>

#include <cstring>

using namespace lacuna;

class TestImage : public QObject {
    Q_OBJECT
  private slots:
    // grow_mask: a disc around every selected pixel; shrinking undoes growing a
    // square; the image's edge counts as selected when shrinking.
    void grow_mask_grows_by_a_disc_and_shrinks_back() {
        Mask dot(21, 21, std::uint8_t{0});
        dot.at(10, 10) = 1;
        // Lattice points with x² + y² <= r²: 1, 5, 13, 29, 49 for r = 0..4.
        const int discs[] = {1, 5, 13, 29, 49};
        for (int r = 0; r <= 4; ++r)
            QCOMPARE(count_selected(grow_mask(dot.view(), r).view()), std::int64_t(discs[r]));
        const Mask grown = grow_mask(dot.view(), 3);
        QCOMPARE(int(grown.at(13, 10)), 255);
        QCOMPARE(int(grown.at(12, 12)), 255);  // 2² + 2² = 8 <= 9
        QCOMPARE(int(grown.at(13, 11)), 0);    // 3² + 1² = 10 > 9
        // A 9 × 9 square shrunk by 2 is the 5 × 5 square inside; grown back by 2 it is the
        // square with rounded corners (the disc's corners are cut), never more than the square.
        Mask square(30, 30, std::uint8_t{0});
        for (int y = 10; y < 19; ++y)
            for (int x = 10; x < 19; ++x) square.at(x, y) = 7;
        const Mask shrunk = grow_mask(square.view(), -2);
        QCOMPARE(count_selected(shrunk.view()), std::int64_t(25));
        QCOMPARE(int(shrunk.at(12, 12)), 255);
        QCOMPARE(int(shrunk.at(11, 12)), 0);
        const Mask back = grow_mask(shrunk.view(), 2);
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 30; ++x)
                if (back.at(x, y)) QVERIFY(square.at(x, y));
        QCOMPARE(count_selected(back.view()), std::int64_t(81 - 4 * 3));
        // Touching the edge: shrinking keeps it there; growing stops at the image.
        Mask edge(10, 10, std::uint8_t{0});
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 4; ++x) edge.at(x, y) = 1;
        const Mask edge_shrunk = grow_mask(edge.view(), -1);
        QCOMPARE(int(edge_shrunk.at(0, 0)), 255);
        QCOMPARE(int(edge_shrunk.at(2, 5)), 255);
        QCOMPARE(int(edge_shrunk.at(3, 5)), 0);
        QCOMPARE(count_selected(grow_mask(edge.view(), 2).view()), std::int64_t(60));
        QCOMPARE(count_selected(grow_mask(Mask(8, 8, std::uint8_t{0}).view(), 3).view()),
                 std::int64_t(0));
    }

    void dense_round_trip_drops_and_restores_padding() {
        Image<std::int32_t> image(5, 3, RowPitch{64});  // rows padded to 16 values
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) image.at(x, y) = y * 10 + x;
        const std::vector<std::int32_t> dense = to_dense(image.view());
        QCOMPARE(dense.size(), std::size_t{15});
        QCOMPARE(dense[7], 12);  // row 1, column 2
        QCOMPARE(dense[14], 24);
        const Image<std::int32_t> back = from_dense(dense, 5, 3);
        QVERIFY(equal_pixels<std::int32_t>(back.view(), image.view()));
    }

    void default_pitch_is_padded_and_aligned() {
        const ImageRgba8 image(13, 5);
        QCOMPARE(image.pitch(), std::size_t{64});  // 13 * 4 = 52 bytes → 64
        QCOMPARE(image.width(), 13);
        QCOMPARE(image.height(), 5);
        const ImageF32 wide(100, 2);
        QCOMPARE(wide.pitch(), std::size_t{448});  // 400 → 448
    }

    void explicit_pitch_larger_than_width_addresses_rows() {
        ImageRgba8 image(7, 3, RowPitch{7 * 4 + 36});
        QCOMPARE(image.pitch(), std::size_t{64});
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 7; ++x)
                image.at(x, y) = Rgba8{std::uint8_t(x), std::uint8_t(y), 9, 255};
        const auto* base = reinterpret_cast<const std::uint8_t*>(image.row(0));
        // Pixel (5, 2) sits at 2 rows of 64 bytes plus 5 pixels of 4 bytes.
        QCOMPARE(int(base[2 * 64 + 5 * 4 + 0]), 5);
        QCOMPARE(int(base[2 * 64 + 5 * 4 + 1]), 2);
        QCOMPARE(int(base[2 * 64 + 5 * 4 + 2]), 9);
    }

    void rejects_bad_pitch() {
        QVERIFY_THROWS_EXCEPTION(Error, ImageRgba8(10, 2, RowPitch{39}));  // < 40 bytes
        QVERIFY_THROWS_EXCEPTION(Error, ImageF32(10, 2, RowPitch{42}));    // not a multiple of 4
    }

    void size_limits_are_enforced() {
        const auto code_of = [](int w, int h) {
            try {
                ImageRgba8 image(w, h);
            } catch (const Error& e) {
                return e.code();
            }
            return ErrorCode::InvalidArgument;  // not thrown: caught below by the comparisons
        };
        QCOMPARE(code_of(0, 10), ErrorCode::EmptyImage);
        QCOMPARE(code_of(10, 0), ErrorCode::EmptyImage);
        QCOMPARE(code_of(kMaxImageSide + 1, 1), ErrorCode::TooLarge);
        QCOMPARE(code_of(20000, 20000), ErrorCode::TooLarge);  // 400 MP > 2^28
        QVERIFY_THROWS_EXCEPTION(Error, ImageRgba8(-1, 5));
        const ImageF32 one(1, 1);
        QVERIFY(!one.empty());
        QVERIFY(ImageF32().empty());
    }

    void copy_between_different_pitches_keeps_pixels_not_padding() {
        ImageRgba8 src(9, 4, RowPitch{9 * 4 + 12});
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 9; ++x)
                src.at(x, y) =
                    Rgba8{std::uint8_t(x * 20), std::uint8_t(y * 50), 7, std::uint8_t(200 + y)};
        ImageRgba8 dst(9, 4, RowPitch{9 * 4 + 100});
        copy_pixels<Rgba8>(src.view(), dst.view());
        QVERIFY(equal_pixels<Rgba8>(src.view(), dst.view()));
        QCOMPARE(dst.at(8, 3), (Rgba8{160, 150, 7, 203}));
        dst.at(0, 0).r = 1;
        QVERIFY(!equal_pixels<Rgba8>(src.view(), dst.view()));
        const ImageRgba8 small(3, 3);
        QVERIFY_THROWS_EXCEPTION(Error, copy_pixels<Rgba8>(small.view(), dst.view()));
    }

    void copies_are_deep() {
        ImageF32 a(4, 4, 1.5f);
        const ImageF32 b = a;
        a.at(2, 2) = 9.0f;
        QCOMPARE(b.at(2, 2), 1.5f);
        QCOMPARE(b.pitch(), a.pitch());
        const ImageF32 c = clone<float>(a.view());
        QCOMPARE(c.at(2, 2), 9.0f);
    }

    void luminance_is_rec709() {
        ImageRgba8 image(3, 1);
        image.at(0, 0) = Rgba8{255, 255, 255, 255};
        image.at(1, 0) = Rgba8{255, 0, 0, 0};
        image.at(2, 0) = Rgba8{10, 20, 30, 255};
        const ImageF32 y = luminance(image.view());
        QVERIFY(qAbs(y.at(0, 0) - 255.0f) < 1e-3f);
        QVERIFY(qAbs(y.at(1, 0) - 0.2126f * 255) < 1e-4f);
        QVERIFY(qAbs(y.at(2, 0) - (0.2126f * 10 + 0.7152f * 20 + 0.0722f * 30)) < 1e-4f);
    }

    void masks_count_and_convert() {
        ImageRgba8 painted(5, 4, Rgba8{0, 0, 0, 255});
        painted.at(1, 1) = Rgba8{255, 255, 255, 255};
        painted.at(2, 1) = Rgba8{0, 90, 0, 255};
        painted.at(3, 3) = Rgba8{255, 255, 255, 0};  // transparent: not selected
        const Mask mask = mask_from_image(painted.view());
        QCOMPARE(count_selected(mask.view()), std::int64_t{2});
        QCOMPARE(int(mask.at(1, 1)), 255);
        QCOMPARE(int(mask.at(3, 3)), 0);
        QVERIFY_THROWS_EXCEPTION(Error, check_mask_size(mask.view(), 6, 4, "protect mask"));
        check_mask_size(mask.view(), 5, 4, "protect mask");
    }
};

QTEST_GUILESS_MAIN(TestImage)
#include "test_image.moc"
