// NativeImage, calibration, value statistics, auto-contrast and the display mapping's CPU
// reference (what the editor's image shader is checked against).
#include <lacuna/core/display.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace lacuna;

class TestNativeImage : public QObject {
    Q_OBJECT
  private slots:
    void samples_keep_their_type() {
        NativeImage img(5, 3, {SampleType::I16, 1});
        QCOMPARE(img.row_bytes(), std::size_t{10});
        QVERIFY(img.pitch() % 64 == 0);
        img.set_sample(4, 2, 0, -1024);
        img.set_sample(0, 0, 0, 40000);  // saturates at the type's end, never wraps
        img.set_sample(1, 0, 0, std::numeric_limits<double>::quiet_NaN());
        QCOMPARE(img.sample(4, 2, 0), -1024.0);
        QCOMPARE(img.sample(0, 0, 0), 32767.0);
        QCOMPARE(img.sample(1, 0, 0), 0.0);
        NativeImage f(2, 2, {SampleType::F32, 3});
        f.set_sample(1, 1, 2, 273.15);
        QCOMPARE(f.sample(1, 1, 2), double(273.15f));
        QVERIFY_THROWS_EXCEPTION(Error, NativeImage(4, 4, {SampleType::U16, 2}));
        QVERIFY_THROWS_EXCEPTION(Error, NativeImage(0, 4, {SampleType::U16, 1}));
    }

    void measurement_plane_applies_the_calibration() {
        NativeImage ct(3, 2, {SampleType::I16, 1});
        for (int i = 0; i < 6; ++i) ct.set_sample(i % 3, i / 3, 0, -2000 + 900 * i);
        const Calibration hu{1.0, -1024.0, "HU"};
        const ImageF32 plane = measurement_plane(ct, hu);
        QCOMPARE(plane.at(2, 1), float(-2000 + 900 * 5 - 1024));
        QCOMPARE(hu.describe(), std::string("value = 1 * sample - 1024 HU"));
        QCOMPARE(Calibration{}.describe(), std::string("none"));
        QCOMPARE((Calibration{1.0, 0.0, "K"}.describe()), std::string("values in K"));
        // Colour: Rec. 709 luminance of R, G, B.
        NativeImage rgb(1, 1, {SampleType::U16, 3});
        rgb.set_sample(0, 0, 0, 1000);
        rgb.set_sample(0, 0, 1, 2000);
        rgb.set_sample(0, 0, 2, 3000);
        QCOMPARE(measurement_plane(rgb).at(0, 0),
                 float(0.2126 * 1000 + 0.7152 * 2000 + 0.0722 * 3000));
    }

    void statistics_ignore_non_finite_values() {
        ImageF32 v(4, 1);
        v.at(0, 0) = 3.5f;
        v.at(1, 0) = std::numeric_limits<float>::quiet_NaN();
        v.at(2, 0) = -7.25f;
        v.at(3, 0) = std::numeric_limits<float>::infinity();
        const ValueStats s = value_stats(v.view());
        QCOMPARE(s.min, -7.25);
        QCOMPARE(s.max, 3.5);
        QCOMPARE(s.finite, std::int64_t{2});
        QCOMPARE(s.non_finite, std::int64_t{2});
    }

    void auto_window_saturates_the_given_share_at_each_end() {
        // 1000 shuffled values 0..999 plus NaNs: with 1% saturated, ten values lie beyond each
        // end, so the window is [10, 989] (the oracle: sort, take the k-th from each end).
        ImageF32 v(100, 11);
        std::vector<float> values;
        for (int i = 0; i < 1000; ++i) values.push_back(float((i * 337) % 1000));
        for (int i = 0; i < 100; ++i) values.push_back(std::numeric_limits<float>::quiet_NaN());
        for (int i = 0; i < 1100; ++i) v.at(i % 100, i / 100) = values[std::size_t(i)];
        const auto [lo, hi] = auto_window(v.view(), 0.01);
        QCOMPARE(lo, 10.0);
        QCOMPARE(hi, 989.0);
        const auto [lo0, hi0] = auto_window(v.view(), 0.0);
        QCOMPARE(lo0, 0.0);
        QCOMPARE(hi0, 999.0);
        ImageF32 none(2, 2, std::numeric_limits<float>::quiet_NaN());
        QCOMPARE(auto_window(none.view()), (std::pair<double, double>(0.0, 1.0)));
    }

    void render_display_maps_the_window_through_the_lut() {
        // Kelvin samples, window 290..310 K: the ends get the LUT's ends, the middle its middle.
        NativeImage t(5, 1, {SampleType::F32, 1});
        const double values[5] = {280.0, 290.0, 300.0, 310.0, 320.0};
        for (int x = 0; x < 5; ++x) t.set_sample(x, 0, 0, values[x]);
        const ImageRgba8 grey = render_display(t, {}, {290.0, 310.0}, Lut::Grey);
        QCOMPARE(int(grey.at(0, 0).r), 0);  // below the window: clamped
        QCOMPARE(int(grey.at(1, 0).r), 0);
        QCOMPARE(int(grey.at(2, 0).r), 128);  // round(0.5 · 255)
        QCOMPARE(int(grey.at(3, 0).r), 255);
        QCOMPARE(int(grey.at(4, 0).r), 255);
        const ImageRgba8 hot = render_display(t, {}, {290.0, 310.0}, Lut::Inferno);
        QVERIFY(hot.at(2, 0) == lut_table(Lut::Inferno)[128]);
        QVERIFY(hot.at(3, 0) == lut_table(Lut::Inferno)[255]);
        // NaN is shown in its own colour, which no LUT contains.
        t.set_sample(2, 0, 0, std::numeric_limits<double>::quiet_NaN());
        for (const Lut lut : all_luts()) {
            QVERIFY(render_display(t, {}, {290.0, 310.0}, lut).at(2, 0) == kNanColour);
            const auto& table = lut_table(lut);
            QVERIFY(std::find(table.begin(), table.end(), kNanColour) == table.end());
        }
        // The calibration applies before the window: CT samples, window in HU.
        NativeImage ct(2, 1, {SampleType::U16, 1});
        ct.set_sample(0, 0, 0, 1024);  // 0 HU
        ct.set_sample(1, 0, 0, 1064);  // 40 HU
        const ImageRgba8 shown = render_display(ct, {1.0, -1024.0, "HU"}, {-160, 240}, Lut::Grey);
        QCOMPARE(int(shown.at(0, 0).r), window_index(0.0, {-160, 240}));
        QCOMPARE(int(shown.at(1, 0).r), 128);
        // Marked clipping: outside the window in its own colours, inside unchanged.
        NativeImage warm(3, 1, {SampleType::F32, 1});
        warm.set_sample(0, 0, 0, 280.0);
        warm.set_sample(1, 0, 0, 300.0);
        warm.set_sample(2, 0, 0, 320.0);
        const ImageRgba8 marked = render_display(warm, {}, {290.0, 310.0}, Lut::Inferno, true);
        QVERIFY(marked.at(0, 0) == kBelowColour);
        QVERIFY(marked.at(1, 0) == lut_table(Lut::Inferno)[128]);
        QVERIFY(marked.at(2, 0) == kAboveColour);
        // A window of zero width splits at its value.
        QCOMPARE(window_index(5.0, {5.0, 5.0}), 255);
        QCOMPARE(window_index(4.9, {5.0, 5.0}), 0);
    }

    // ImageJ's Set Scale with a pixel aspect ratio: the line is measured in physical space
    // with it, so PixelSpacing::length gives the typed length back.
    void set_scale_from_a_line_with_an_aspect_ratio() {
        const PixelSpacing square = spacing_from_line(30, 40, 25, "um");
        QCOMPARE(square, (PixelSpacing{0.5, 0.5, "um"}));
        // Pixels twice as tall: the line is √(30² + 80²) = 85.44 widths long.
        const PixelSpacing tall = spacing_from_line(30, 40, 100, "mm", 2.0);
        QCOMPARE(tall.x, 100 / std::hypot(30.0, 80.0));
        QCOMPARE(tall.y, 2 * tall.x);
        QVERIFY(std::abs(tall.length(30, 40) - 100) < 1e-12);
        // A vertical line sets the height; a horizontal one the width, the aspect the other.
        QCOMPARE(spacing_from_line(0, -20, 10, "mm", 0.25), (PixelSpacing{2.0, 0.5, "mm"}));
        QCOMPARE(spacing_from_line(20, 0, 10, "mm", 3.0), (PixelSpacing{0.5, 1.5, "mm"}));
        // Nothing to go on: unknown.
        QVERIFY(!spacing_from_line(0, 0, 10, "mm").known());
        QVERIFY(!spacing_from_line(3, 4, 0, "mm").known());
        QVERIFY(!spacing_from_line(3, 4, 10, "").known());
        QVERIFY(!spacing_from_line(3, 4, 10, "mm", 0).known());
        QVERIFY(!spacing_from_line(3, 4, 10, "mm", std::nan("")).known());
    }

    void lut_names_round_trip() {
        for (const Lut lut : all_luts()) QCOMPARE(parse_lut(to_string(lut)), std::optional(lut));
        QCOMPARE(parse_lut("gray"), std::optional(Lut::Grey));
        QVERIFY(!parse_lut("jet"));
        QVERIFY(lut_table(Lut::Viridis)[0] == (Rgba8{68, 1, 84, 255}));
    }

    void conversions_between_formats() {
        NativeImage grey(2, 1, {SampleType::U16, 1});
        grey.set_sample(0, 0, 0, 65535);
        const NativeImage rgba = convert(grey, {SampleType::U16, 4});
        QCOMPARE(rgba.sample(0, 0, 1), 65535.0);
        QCOMPARE(rgba.sample(1, 0, 3), 65535.0);  // alpha added opaque
        const ImageRgba8 photo(2, 2, Rgba8{10, 20, 30, 40});
        const NativeImage native = to_native(photo.view());
        const ImageRgba8 back = to_rgba8(native);
        QVERIFY(equal_pixels(back.view(), photo.view()));
        QVERIFY_THROWS_EXCEPTION(Error, to_rgba8(grey));
        NativeImage region = copy_region(rgba, {1, 0, 1, 0});
        region.set_sample(0, 0, 0, 7);
        NativeImage target = rgba;
        paste_region(target, {0, 0, 0, 0}, region);
        QCOMPARE(target.sample(0, 0, 0), 7.0);
    }
};

QTEST_GUILESS_MAIN(TestNativeImage)
#include "test_native_image.moc"
