// The Qt-free renderer under headless EGL: draw the image 1:1 into a framebuffer object, read it
// back, and compare with the engine's pixels exactly; checkerboard behind transparency; background.
#include <GL/glew.h>

#include <lacuna/render/egl_context.hpp>
#include <lacuna/render/framebuffer.hpp>

#include <lacuna/core/display.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/render/display_colour.hpp>
#include <lacuna/render/image_renderer.hpp>

#include "icc_profiles.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

using namespace lacuna;

namespace {

using render::Framebuffer;

ImageRgba8 pattern(const int w, const int h, const std::size_t extra_pitch) {
    ImageRgba8 image(w, h, RowPitch{std::size_t(w) * 4 + extra_pitch});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = Rgba8{std::uint8_t(x * 13 + y), std::uint8_t(y * 7 + 3 * x),
                                   std::uint8_t((x ^ y) * 5), 255};
    return image;
}

/// Primaries, secondaries, greys, skin and sky tones, and a pseudo-random spread.
ImageRgba8 colour_chart(const int w, const int h) {
    ImageRgba8 image(w, h);
    std::uint32_t state = 12345;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            state = state * 1664525u + 1013904223u;
            image.at(x, y) = Rgba8{std::uint8_t(state >> 24), std::uint8_t(state >> 16),
                                   std::uint8_t(state >> 8), 255};
        }
    const Rgba8 fixed[] = {{255, 0, 0, 255},     {0, 255, 0, 255},     {0, 0, 255, 255},
                           {0, 255, 255, 255},   {255, 0, 255, 255},   {255, 255, 0, 255},
                           {0, 0, 0, 255},       {128, 128, 128, 255}, {255, 255, 255, 255},
                           {224, 172, 150, 255}, {90, 140, 210, 255}};
    for (std::size_t i = 0; i < std::size(fixed); ++i) image.at(int(i) % w, int(i) / w) = fixed[i];
    return image;
}

}  // namespace

class TestRenderEgl : public QObject {
    Q_OBJECT
    std::unique_ptr<render::EglContext> egl_;
    std::unique_ptr<render::ImageRenderer> renderer_;

  private slots:
    void initTestCase() {
        egl_ = std::make_unique<render::EglContext>();
        if (!egl_->ok())
            QSKIP(qPrintable("no headless EGL OpenGL context: " +
                             QString::fromStdString(egl_->error())));
        renderer_ = std::make_unique<render::ImageRenderer>();
        std::string error;
        QVERIFY2(renderer_->initialize(error), error.c_str());
        qInfo("GL: %s", renderer_->gl_description().c_str());
    }
    void cleanupTestCase() {
        renderer_.reset();  // GL objects go while the context is still current
        egl_.reset();
    }

    void clears_to_background() {
        Framebuffer fb(32, 16);
        QVERIFY(fb.complete());
        render::ImageRenderer empty;
        std::string error;
        QVERIFY(empty.initialize(error));
        empty.set_background({1.0f, 0.0f, 0.0f});
        empty.render(fb.id(), 32, 16, {});
        const ImageRgba8 out = fb.read();
        QCOMPARE(out.at(0, 0), (Rgba8{255, 0, 0, 255}));
        QCOMPARE(out.at(31, 15), (Rgba8{255, 0, 0, 255}));
        empty.release();
    }

    void samples_of_every_type_show_as_the_cpu_reference() {
        // Stored samples of each type go to a texture of that type; the shader maps them
        // through calibration, window and LUT as render_display does (one LUT step of float
        // rounding allowed), NaN exactly in its own colour.
        struct Case {
            PixelFormat format;
            Calibration calibration;
            DisplayWindow window;
            Lut lut;
        };
        const Case cases[] = {
            {{SampleType::U16, 1}, {}, {1000, 50000}, Lut::Grey},
            {{SampleType::I16, 1}, {1.0, -1024.0, "HU"}, {-1160, 1240}, Lut::Viridis},
            {{SampleType::F32, 1}, {1.0, 0.0, "K"}, {285.0, 315.0}, Lut::Inferno},
            {{SampleType::F32, 1}, {2.0, -10.0, "K"}, {560.0, 620.0}, Lut::Diverging},
            {{SampleType::U16, 3}, {}, {0, 65535}, Lut::Grey},
            {{SampleType::F32, 4}, {}, {0.0, 1.0}, Lut::Grey},
            {{SampleType::U8, 1}, {}, {20, 200}, Lut::Inferno},
        };
        for (const Case& c : cases) {
            NativeImage samples(37, 23, c.format);  // odd size; rows padded to 64 bytes
            for (int y = 0; y < 23; ++y)
                for (int x = 0; x < 37; ++x)
                    for (int k = 0; k < c.format.channels; ++k) {
                        double v = 0;
                        switch (c.format.sample) {
                            case SampleType::U8:
                                v = (x * 7 + y * 3 + k * 50) % 256;
                                break;
                            case SampleType::U16:
                                v = (x * 1777 + y * 901 + k * 9000) % 65536;
                                break;
                            case SampleType::I16:
                                v = -2000 + x * 61 + y * 37;
                                break;
                            case SampleType::F32:
                                v = c.format.channels == 4 ? (x + y + k) / 80.0
                                                           : 280.0 + x * 0.9 + y * 0.3;
                                break;
                        }
                        samples.set_sample(x, y, k, v);
                    }
            if (c.format.sample == SampleType::F32 && c.format.channels == 1)
                samples.set_sample(5, 7, 0, std::numeric_limits<double>::quiet_NaN());
            renderer_->set_samples(samples);
            renderer_->set_sample_mapping({c.calibration, c.window, c.lut});
            QVERIFY(renderer_->showing_samples());
            Framebuffer fb(37, 23);
            renderer_->render(fb.id(), 37, 23, {});
            const ImageRgba8 out = fb.read();
            const ImageRgba8 expected = render_display(samples, c.calibration, c.window, c.lut);
            int worst = 0;
            for (int y = 0; y < 23; ++y)
                for (int x = 0; x < 37; ++x) {
                    const Rgba8 a = out.at(x, y), b = expected.at(x, y);
                    if (b.a != 255) continue;  // translucent: the checkerboard shows through
                    worst = std::max(
                        {worst, std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
                }
            QVERIFY2(worst <= 3, qPrintable(QString("%1: differs by %2 levels")
                                                .arg(QString::fromStdString(describe(c.format)))
                                                .arg(worst)));
            if (c.format.sample == SampleType::F32 && c.format.channels == 1)
                QCOMPARE(out.at(5, 7), kNanColour);
        }
        // A photo afterwards is shown as itself again.
        const ImageRgba8 image = pattern(9, 5, 0);
        renderer_->set_image(image.view());
        QVERIFY(!renderer_->showing_samples());
    }

    void clipped_values_are_marked_like_the_reference() {
        NativeImage ramp(64, 3, {SampleType::F32, 1});
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 64; ++x) ramp.set_sample(x, y, 0, 270.5 + x);  // never on an edge
        renderer_->set_samples(ramp);
        renderer_->set_sample_mapping({{}, {290.0, 320.0}, Lut::Viridis, true});
        Framebuffer fb(64, 3);
        renderer_->render(fb.id(), 64, 3, {});
        const ImageRgba8 out = fb.read();
        const ImageRgba8 expected = render_display(ramp, {}, {290.0, 320.0}, Lut::Viridis, true);
        for (int x = 0; x < 64; ++x) {
            const Rgba8 a = out.at(x, 1), b = expected.at(x, 1);
            QVERIFY2(
                std::abs(a.r - b.r) <= 3 && std::abs(a.g - b.g) <= 3 && std::abs(a.b - b.b) <= 3,
                qPrintable(QString("x %1").arg(x)));
        }
        QCOMPARE(out.at(0, 1), kBelowColour);
        QCOMPARE(out.at(63, 1), kAboveColour);
    }

    void changing_the_window_needs_no_upload() {
        NativeImage ramp(256, 1, {SampleType::U16, 1});
        for (int x = 0; x < 256; ++x) ramp.set_sample(x, 0, 0, x * 257);
        renderer_->set_samples(ramp);
        Framebuffer fb(256, 1);
        renderer_->set_sample_mapping({{}, {0, 65535}, Lut::Grey});
        renderer_->render(fb.id(), 256, 1, {});
        QCOMPARE(int(fb.read().at(100, 0).r), 100);
        // Only the uniforms change: the half-width window doubles the contrast.
        renderer_->set_sample_mapping({{}, {0, 32767.5}, Lut::Grey});
        renderer_->render(fb.id(), 256, 1, {});
        QCOMPARE(int(fb.read().at(100, 0).r), 200);
        QCOMPARE(int(fb.read().at(200, 0).r), 255);
    }

    void draws_image_one_to_one_exactly() {
        // Odd size, pitched source: the upload must honour the row pitch.
        const ImageRgba8 image = pattern(61, 37, 20);
        renderer_->set_image(image.view());
        Framebuffer fb(80, 50);
        QVERIFY(fb.complete());
        render::ViewTransform view;
        view.origin_x = 7;
        view.origin_y = 5;
        renderer_->render(fb.id(), 80, 50, view);
        const ImageRgba8 out = fb.read();
        int mismatches = 0;
        for (int y = 0; y < 37; ++y)
            for (int x = 0; x < 61; ++x) mismatches += out.at(x + 7, y + 5) != image.at(x, y);
        QCOMPARE(mismatches, 0);
        QCOMPARE(out.at(0, 0), (Rgba8{41, 41, 43, 255}));  // default background 0.16/0.16/0.17
    }

    void mask_tint_and_brush_ring() {
        const ImageRgba8 grey(40, 30, Rgba8{100, 100, 100, 255});
        renderer_->set_image(grey.view());
        Mask mask(40, 30, 0);
        for (int y = 5; y < 15; ++y)
            for (int x = 5; x < 15; ++x) mask.at(x, y) = 255;
        renderer_->set_mask(mask.view());
        renderer_->set_mask_tint({1.0f, 0.0f, 0.0f}, 0.5f);
        Framebuffer fb(40, 30);
        renderer_->render(fb.id(), 40, 30, {});
        ImageRgba8 out = fb.read();
        // Half way from grey (100) to red: r ≈ 177.5, g = b ≈ 50; untouched outside the mask.
        const Rgba8 tinted = out.at(10, 10);
        QVERIFY2(std::abs(tinted.r - 177) <= 1 && std::abs(tinted.g - 50) <= 1 &&
                     std::abs(tinted.b - 50) <= 1,
                 qPrintable(QString("%1 %2 %3").arg(tinted.r).arg(tinted.g).arg(tinted.b)));
        QCOMPARE(out.at(30, 20), (Rgba8{100, 100, 100, 255}));
        // The brush ring: white on the radius, black just inside, the picture elsewhere.
        renderer_->set_mask(ImageView<const std::uint8_t>{});
        renderer_->set_brush(true, {20.5, 15.5}, 8.0);
        renderer_->render(fb.id(), 40, 30, {});
        out = fb.read();
        QCOMPARE(out.at(28, 15), (Rgba8{255, 255, 255, 255}));
        QCOMPARE(out.at(26, 15), (Rgba8{0, 0, 0, 255}));
        QCOMPARE(out.at(20, 15), (Rgba8{100, 100, 100, 255}));
        QCOMPARE(out.at(5, 25), (Rgba8{100, 100, 100, 255}));
        renderer_->set_brush(false);
    }

    void line_overlay_band_and_handles() {
        const ImageRgba8 grey(40, 40, Rgba8{100, 100, 100, 255});
        renderer_->set_image(grey.view());
        render::LineOverlay line;
        line.visible = true;
        line.from = {8, 20};
        line.to = {32, 20};
        line.band_half_width = 6;
        renderer_->set_line_overlay(line);
        Framebuffer fb(40, 40);
        renderer_->render(fb.id(), 40, 40, {});
        const ImageRgba8 out = fb.read();
        renderer_->set_line_overlay({});
        const Rgba8 centre = out.at(20, 19);  // the row the 1.5-px line covers
        QVERIFY2(centre.r > 240 && centre.g > 200 && centre.b < 60,
                 qPrintable(QString("%1 %2 %3").arg(centre.r).arg(centre.g).arg(centre.b)));
        // Inside the band: grey tinted towards yellow; outside: untouched.
        const Rgba8 band = out.at(20, 24);
        QVERIFY(band.r > 110 && band.b < 100);
        QCOMPARE(out.at(20, 32), (Rgba8{100, 100, 100, 255}));
        // The handles: a black-rimmed yellow square at each end.
        QVERIFY(out.at(8, 19).g > 200);
        const Rgba8 rim = out.at(3, 20);  // handle: 10 px square centred at x = 8
        QCOMPARE(out.at(2, 20), (Rgba8{100, 100, 100, 255}));
        QVERIFY2(rim == (Rgba8{0, 0, 0, 255}),
                 qPrintable(QString("%1 %2 %3").arg(rim.r).arg(rim.g).arg(rim.b)));
    }

    void smaller_image_reuses_texture_and_draws_exactly() {
        renderer_->set_image(pattern(61, 37, 0).view());
        const ImageRgba8 small = pattern(20, 11, 4);
        renderer_->set_image(small.view());
        QCOMPARE(renderer_->image_width(), 20);
        Framebuffer fb(20, 11);
        renderer_->render(fb.id(), 20, 11, {});
        QVERIFY(equal_pixels<Rgba8>(small.view(), fb.read().view()));
    }

    void zoom_two_repeats_pixels() {
        const ImageRgba8 image = pattern(9, 7, 0);
        renderer_->set_image(image.view());
        Framebuffer fb(18, 14);
        render::ViewTransform view;
        view.zoom = 2.0;
        renderer_->render(fb.id(), 18, 14, view);
        const ImageRgba8 out = fb.read();
        for (int y = 0; y < 14; ++y)
            for (int x = 0; x < 18; ++x) QCOMPARE(out.at(x, y), image.at(x / 2, y / 2));
    }

    void checkerboard_behind_transparency() {
        ImageRgba8 image(32, 32, Rgba8{255, 255, 255, 0});
        image.at(20, 20) = Rgba8{0, 0, 255, 255};
        renderer_->set_image(image.view());
        Framebuffer fb(32, 32);
        renderer_->render(fb.id(), 32, 32, {});
        const ImageRgba8 out = fb.read();
        QCOMPARE(out.at(20, 20), (Rgba8{0, 0, 255, 255}));
        // 8-pixel squares alternate between 40 % and 60 % grey.
        const Rgba8 a = out.at(2, 2), b = out.at(10, 2);
        QVERIFY(std::abs(int(a.r) - 102) <= 1 || std::abs(int(a.r) - 153) <= 1);
        QVERIFY(std::abs(int(a.r) - int(b.r)) >= 50);
        QCOMPARE(out.at(2, 10), b);
    }

    void colour_managed_display_shows_the_converted_colours() {
        // A wide-gamut photo on an sRGB display: every pixel read back from the framebuffer is
        // Little CMS's own 8-bit conversion of its stored colour, within the 33³ table's
        // trilinear error; without the table the stored colours go through unchanged.
        const std::vector<std::uint8_t> wide = test::wide_gamut_profile();
        const std::optional<render::DisplayLut> lut = render::make_display_lut(wide, {});
        QVERIFY(lut.has_value());
        QCOMPARE(lut->size, 33);
        QCOMPARE(QString::fromStdString(lut->description), QString("Test wide RGB → sRGB"));
        const int w = 24, h = 16;
        const ImageRgba8 chart = colour_chart(w, h);
        renderer_->set_image(chart.view());
        renderer_->set_display_lut(&*lut);
        QVERIFY(renderer_->colour_managed());
        Framebuffer fb(w, h);
        renderer_->render(fb.id(), w, h, {});
        const ImageRgba8 shown = fb.read();
        int worst = 0, moved = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const Rgba8 c = chart.at(x, y);
                const auto expected = render::convert_for_display(wide, {}, {c.r, c.g, c.b});
                const Rgba8 got = shown.at(x, y);
                const int d =
                    std::max({std::abs(got.r - expected[0]), std::abs(got.g - expected[1]),
                              std::abs(got.b - expected[2])});
                worst = std::max(worst, d);
                moved += std::max({std::abs(c.r - expected[0]), std::abs(c.g - expected[1]),
                                   std::abs(c.b - expected[2])}) > 8;
            }
        qInfo(
            "colour-managed: worst difference from Little CMS %d levels; %d of %d colours "
            "moved by more than 8 levels",
            worst, moved, w * h);
        QVERIFY2(worst <= 3, qPrintable(QString::number(worst)));
        QVERIFY(moved >
                w * h / 4);  // the conversion is visible, so the check above means something
        // Hand-checked: mid grey in gamma 2.2 shows as sRGB's 129 (linear 0.2195).
        const Rgba8 grey = shown.at(7, 0);
        QVERIFY2(std::abs(grey.r - 129) <= 1 && grey.r == grey.g && grey.g == grey.b,
                 qPrintable(QString("%1 %2 %3").arg(grey.r).arg(grey.g).arg(grey.b)));

        renderer_->set_display_lut(nullptr);
        QVERIFY(!renderer_->colour_managed());
        renderer_->render(fb.id(), w, h, {});
        QVERIFY(equal_pixels<Rgba8>(fb.read().view(), chart.view()));
    }

    void display_profiles_that_need_no_table_and_bad_ones() {
        const std::vector<std::uint8_t> wide = test::wide_gamut_profile();
        QVERIFY(!render::make_display_lut({}, {}).has_value());      // no profile: as stored
        QVERIFY(!render::make_display_lut(wide, wide).has_value());  // same on both sides
        // An sRGB image on the sRGB display: a table, but it changes nothing visible.
        const std::optional<render::DisplayLut> same =
            render::make_display_lut(test::srgb_profile_bytes(), {});
        QVERIFY(same.has_value());
        const ImageRgba8 chart = colour_chart(24, 16);
        renderer_->set_image(chart.view());
        renderer_->set_display_lut(&*same);
        Framebuffer fb(24, 16);
        renderer_->render(fb.id(), 24, 16, {});
        const ImageRgba8 shown = fb.read();
        int worst = 0;
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 24; ++x) {
                const Rgba8 a = shown.at(x, y), b = chart.at(x, y);
                worst = std::max(
                    {worst, std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
            }
        QVERIFY2(worst <= 2, qPrintable(QString::number(worst)));
        renderer_->set_display_lut(nullptr);
        // A profile Little CMS cannot read names itself.
        std::vector<std::uint8_t> broken = wide;
        broken.resize(60);
        bool refused = false;
        try {
            (void)render::make_display_lut(broken, {});
        } catch (const Error& e) {
            refused = e.code() == ErrorCode::Corrupt &&
                      std::string(e.what()).find("image's ICC profile") != std::string::npos;
        }
        QVERIFY(refused);
    }
};

QTEST_GUILESS_MAIN(TestRenderEgl)
#include "test_render_egl.moc"
