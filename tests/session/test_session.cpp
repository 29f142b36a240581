// The editing core driven headless on the host path (the CI machine: no CUDA, Mesa EGL): every
// interaction of the editor's tools gives exactly what the engine's operations give, undo and redo
// put back exactly what was there, and what is presented is what the session holds.
#include "session_scenario.hpp"
#include "../engine/inpaint_test_util.hpp"
#include "../engine/image_test_util.hpp"
#include "../engine/metadata_test_util.hpp"

#include <filter_tool.hpp>
#include <line_tool.hpp>
#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>

#include <lacuna/core/display.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/scale.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/render/egl_context.hpp>
#include <lacuna/video/smooth_video.hpp>

#include <QProcess>
#include "../render/icc_profiles.hpp"
#include <lacuna/render/display_colour.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <random>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>

using namespace lacuna;
using session::MaskLayer;
using session::Pointer;

namespace {

constexpr int kW = 301;
constexpr int kH = 203;

int seams_for(const int extent) {
    return std::max(0, std::min(extent - 1, extent - std::max(1, extent / 10)));
}

/// A stroke through `points` (continuous image coordinates), painted the way the tool must.
Mask expected_stroke(Mask mask, const std::vector<std::pair<double, double>>& points,
                     const ops::BrushSettings& brush) {
    ops::paint_dab(mask, points[0].first, points[0].second, brush);
    for (std::size_t i = 1; i < points.size(); ++i)
        ops::paint_segment(mask, points[i - 1].first, points[i - 1].second, points[i].first,
                           points[i].second, brush);
    return mask;
}

/// How many samples of two images of the same format differ.
int count_differing(const NativeImage& a, const NativeImage& b) {
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            for (int c = 0; c < a.channels(); ++c) n += a.sample(x, y, c) != b.sample(x, y, c);
    return n;
}

void stroke(session::Tool& tool, const std::vector<std::pair<double, double>>& points) {
    tool.press(Pointer{points[0].first, points[0].second});
    for (std::size_t i = 1; i < points.size(); ++i)
        tool.move(Pointer{points[i].first, points[i].second});
    tool.release(Pointer{points.back().first, points.back().second});
}

/// The measurement fills' checkerboard (6-px squares of 40 and 160 with a little texture) as an
/// 8-bit measurement and its ×257 16-bit copy: the same decision image, so the same sources.
constexpr int kBoardW = 120, kBoardH = 90;
std::pair<NativeImage, NativeImage> checkerboard_measurements() {
    NativeImage bytes(kBoardW, kBoardH, {SampleType::U8, 1});
    for (int y = 0; y < kBoardH; ++y)
        for (int x = 0; x < kBoardW; ++x)
            bytes.set_sample(x, y, 0, 40 + ((x / 6 + y / 6) % 2) * 120 + (x * y) % 13);
    NativeImage deep(kBoardW, kBoardH, {SampleType::U16, 1});
    for (int y = 0; y < kBoardH; ++y)
        for (int x = 0; x < kBoardW; ++x) deep.set_sample(x, y, 0, 257 * bytes.sample(x, y, 0));
    return {std::move(bytes), std::move(deep)};
}

/// A dark bar (y − 0.25 x − 60 in [0, 8)) across a noisy wall as a 16-bit measurement:
/// 1000 + 200 × level plus a part finer than a proxy level.
NativeImage bar_measurement() {
    return test::bar_measurement(kW, kH);
}

/// Starts the fill brushed in `s`, cancels it after its first batch and checks that the
/// measurement's samples (`samples`), its proxy (kept in `proxy`) and the brushed hole are as
/// they were.
void cancel_after_one_batch_keeps_the_document(session::Session& s, const NativeImage& samples,
                                               ImageRgba8& proxy) {
    proxy = clone(s.document().pixels().view());
    QVERIFY(s.remove_object().start_fill());
    s.remove_object().advance(1);
    QVERIFY(s.remove_object().fill_running());
    s.remove_object().cancel_fill();
    QVERIFY(s.document().samples() == samples);
    QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), proxy.view()));
    QVERIFY(s.document().mask_painted(MaskLayer::Fill));
}

/// The end message's line for the engine's note on continued lines, as the CLI prints the note
/// ("\nNote: continued 1 straight line across the hole (… pixels filled along them first).");
/// empty when the engine continued none.
std::string continued_lines_line(const std::vector<std::string>& notes) {
    for (const std::string& n : notes)
        if (n.rfind("continued ", 0) == 0) return "\nNote: " + n + ".";
    return {};
}

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
    std::unique_ptr<render::EglContext> egl_;
    std::unique_ptr<render::ImageRenderer> renderer_;
    ImageRgba8 photo_ = test::scenario_photo(kW, kH);

    /// The frame the renderer shows equals the session's image wherever no mask is tinted.
    void check_presented(session::Session& s) {
        if (!renderer_) return;
        const ImageRgba8 frame = test::presented_frame(s, *renderer_);
        const ImageRgba8 shown = s.shown_image();
        QCOMPARE(frame.width(), shown.width());
        QCOMPARE(frame.height(), shown.height());
        const int layer =
            s.active_tool() != nullptr ? s.active_tool()->overlay().mask_layer.value_or(-1) : -1;
        int compared = 0;
        for (int y = 0; y < shown.height(); ++y)
            for (int x = 0; x < shown.width(); ++x) {
                if (layer >= 0 && !s.showing_preview() &&
                    s.document().mask(static_cast<MaskLayer>(layer)).at(x, y) != 0)
                    continue;
                if (frame.at(x, y) != shown.at(x, y))
                    QFAIL(qPrintable(QString("presented pixel (%1, %2) differs").arg(x).arg(y)));
                ++compared;
            }
        QVERIFY(compared > 0);
    }

  private slots:
    void initTestCase() {
        egl_ = std::make_unique<render::EglContext>();
        if (!egl_->ok()) {
            qWarning("no headless EGL context (%s): presentation is not checked",
                     egl_->error().c_str());
            return;
        }
        renderer_ = std::make_unique<render::ImageRenderer>();
        std::string error;
        if (!renderer_->initialize(error)) {
            qWarning("renderer: %s", error.c_str());
            renderer_.reset();
        }
    }

    void cleanupTestCase() {
        if (renderer_) renderer_->release();
        renderer_.reset();
    }

    void tools_are_one_list_with_one_preview_order() {
        const auto same = [](const ImageRgba8& a, const ImageRgba8& b) {
            return equal_pixels(a.view(), b.view());
        };
        session::Session s(false);
        // Every tool once, in the order their previews take precedence.
        const std::vector<session::ToolKind> kinds{
            session::ToolKind::Filter, session::ToolKind::Retarget, session::ToolKind::RemoveObject,
            session::ToolKind::LineHistogram, session::ToolKind::Regions};
        QCOMPARE(s.tools().size(), kinds.size());
        for (std::size_t i = 0; i < kinds.size(); ++i) QCOMPARE(s.tools()[i]->kind(), kinds[i]);
        // The filter tool has no pointer input: it is never the active tool.
        s.select(session::ToolKind::Filter);
        QCOMPARE(s.active_kind(), session::ToolKind::Pan);
        QVERIFY(s.active_tool() == nullptr);

        s.open(clone(photo_.view()));
        s.retarget().wait();
        s.retarget().set_target(kW - 40, kH);
        s.retarget().wait();
        QVERIFY(s.retarget().previewing());
        QVERIFY(s.showing_preview());
        QCOMPARE(s.shown_width(), kW - 40);
        const ImageRgba8 carved = s.shown_image();
        QCOMPARE(carved.width(), kW - 40);
        check_presented(s);
        // A filter preview comes first, whatever else previews.
        const ops::BilateralParams params{3.0, 30.0, 4};
        s.filter().set_bilateral(params);
        QVERIFY(s.filter().begin(session::FilterKind::Bilateral));
        QCOMPARE(s.shown_width(), kW);
        QVERIFY(same(s.shown_image(), ops::bilateral_fast(photo_.view(), {}, params)));
        check_presented(s);
        // Ended, the retarget preview is shown again, as it was.
        s.filter().cancel();
        QCOMPARE(s.shown_width(), kW - 40);
        QVERIFY(same(s.shown_image(), carved));
        check_presented(s);
        // A tool that shows the document (the line) makes the retarget preview give way.
        s.select(session::ToolKind::LineHistogram);
        QVERIFY(!s.showing_preview());
        QCOMPARE(s.shown_width(), kW);
        QVERIFY(same(s.shown_image(), photo_));
        check_presented(s);

        // Document events reach every tool, active or not: a new document makes the line tool
        // forget its line and the retarget tool start its maps over (no preview until then).
        s.select(session::ToolKind::Pan);
        s.line().set_line({10, 10}, {100, 40});
        QVERIFY(s.line().has_line());
        s.open(clone(photo_.view()));
        QVERIFY(!s.line().has_line());
        QVERIFY(!s.retarget().previewing());
        QVERIFY(!s.showing_preview());
    }

    void filters_preview_apply_and_undo() {
        const auto same = [](const ImageRgba8& a, const ImageRgba8& b) {
            return equal_pixels(a.view(), b.view());
        };
        session::Session s(false);
        s.open(clone(photo_.view()));
        session::FilterTool& f = s.filter();
        // A mask painted first: the bilateral filter keeps it, a scale clears it.
        s.select(session::ToolKind::RemoveObject);
        stroke(*s.active_tool(), {{50.5, 50.5}, {80.5, 60.5}});
        const Mask painted = clone(s.document().mask(MaskLayer::Fill).view());
        QVERIFY(count_selected(painted.view()) > 0);

        // Bilateral: the preview is shown, the document untouched, until Apply.
        const ops::BilateralParams params{4.0, 25.0, 6};
        f.set_bilateral(params);
        QVERIFY(f.begin(session::FilterKind::Bilateral));
        const ImageRgba8 expected = ops::bilateral_fast(photo_.view(), {}, params);
        QVERIFY(same(s.shown_image(), expected));
        QVERIFY(same(s.document().pixels(), photo_));
        QVERIFY(f.last_ms() > 0);
        QVERIFY(f.ran_on().rfind("CPU", 0) == 0);
        check_presented(s);
        // Live: another range sigma gives another preview.
        const std::uint64_t serial = f.preview_serial();
        f.set_bilateral({4.0, 60.0, 6});
        QVERIFY(f.preview_serial() != serial);
        const ImageRgba8 wider = ops::bilateral_fast(photo_.view(), {}, {4.0, 60.0, 6});
        QVERIFY(same(s.shown_image(), wider));
        f.set_bilateral(params);
        QVERIFY(f.apply());
        QVERIFY(!f.previewing());
        QCOMPARE(QString::fromStdString(s.history().undo_label()), QString("Bilateral Filter"));
        QVERIFY(same(s.document().pixels(), expected));
        QVERIFY(equal_pixels(s.document().mask(MaskLayer::Fill).view(), painted.view()));
        check_presented(s);

        // A guide of the wrong size is refused and the preview stays; the right size is used.
        QVERIFY(f.begin(session::FilterKind::Bilateral));
        QVERIFY(!f.set_guide(ImageRgba8(10, 10)));
        QVERIFY(QString::fromStdString(f.status()).contains("must have the picture's size"));
        const ImageRgba8 flat(kW, kH, Rgba8{40, 40, 40, 255});
        QVERIFY(f.set_guide(clone(flat.view())));
        // A flat guide: every range weight is 1, so the filter is a plain Gaussian blur.
        const ImageRgba8 guided = ops::bilateral_fast(expected.view(), flat.view(), params);
        QVERIFY(same(s.shown_image(), guided));
        f.cancel();
        f.clear_guide();
        QVERIFY(same(s.shown_image(), expected));

        // Scale: a new size, masks cleared; undo gives both back exactly.
        QVERIFY(f.begin(session::FilterKind::Scale));
        f.set_scale(452, 305, ops::ScaleMethod::BSpline);
        QCOMPARE(s.shown_width(), 452);
        QCOMPARE(s.shown_height(), 305);
        check_presented(s);
        QVERIFY(f.apply());
        QCOMPARE(QString::fromStdString(s.history().undo_label()), QString("Scale to 452 × 305"));
        const ImageRgba8 scaled =
            ops::scale_fast(expected.view(), 452, 305, ops::ScaleMethod::BSpline);
        QVERIFY(same(s.document().pixels(), scaled));
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
        QVERIFY(s.undo());
        QVERIFY(same(s.document().pixels(), expected));
        QVERIFY(equal_pixels(s.document().mask(MaskLayer::Fill).view(), painted.view()));
        QVERIFY(s.undo());
        QVERIFY(same(s.document().pixels(), photo_));
        QVERIFY(s.redo());
        QVERIFY(same(s.document().pixels(), expected));
        check_presented(s);
    }

    void temporal_smoothing_previews_the_frame_and_exports_the_clip() {
        // A 9-frame PNG sequence (lossless both ways): the preview of frame f is frame f of the
        // exported clip, exactly, and the export keeps every frame.
        QTemporaryDir dir;
        const std::string pattern = (dir.path() + "/in/%03d.png").toStdString();
        std::filesystem::create_directories((dir.path() + "/in").toStdString());
        std::filesystem::create_directories((dir.path() + "/out").toStdString());
        {
            io::VideoWriter writer(pattern, 40, 24, 12.0);
            for (int f = 0; f < 9; ++f) {
                ImageRgba8 img(40, 24);
                for (int y = 0; y < 24; ++y)
                    for (int x = 0; x < 40; ++x) {
                        const int noise = ((x * 37 + y * 91 + f * 53) % 41) - 20;
                        const auto v = static_cast<std::uint8_t>(
                            std::clamp(120 + 60 * (((x + 2 * f) / 6) % 2) + noise, 0, 255));
                        img.at(x, y) = Rgba8{v, std::uint8_t(255 - v), std::uint8_t(v / 2), 255};
                    }
                writer.write(img);
            }
            writer.finish();
        }
        session::Session s(false);
        s.open(clone(photo_.view()));
        QVERIFY(!s.filter().begin(session::FilterKind::Temporal));  // a photo, not a video
        QVERIFY(QString::fromStdString(s.filter().status()).contains("works on videos"));
        s.open_video(pattern);
        session::FilterTool& f = s.filter();
        f.set_temporal(5, 1.0, 1.5);
        QVERIFY(f.begin(session::FilterKind::Temporal));
        QVERIFY(!f.apply());  // a clip is exported, not applied
        const std::string out_pattern = (dir.path() + "/out/%03d.png").toStdString();
        video::SmoothVideoOptions o = f.prepare_temporal_export(out_pattern);
        o.use_cuda = false;
        const video::SmoothVideoResult r = video::smooth_video(o, {});
        QCOMPARE(r.frames, 9);
        for (const int index : {0, 4, 8}) {
            s.show_video_frame(index);
            QVERIFY(f.previewing());
            char name[32];
            std::snprintf(name, sizeof name, "/out/%03d.png", index);
            const ImageRgba8 exported = io::read_image((dir.path() + name).toStdString()).image;
            QVERIFY2(equal_pixels<Rgba8>(s.shown_image().view(), exported.view()),
                     qPrintable(QString("frame %1").arg(index)));
            QVERIFY(!equal_pixels<Rgba8>(s.shown_image().view(), s.document().pixels().view()));
        }
        check_presented(s);
        // Cancelled after two frames: nothing under the chosen name.
        const std::string cancelled = (dir.path() + "/cancelled.avi").toStdString();
        o.output = cancelled;
        int calls = 0;
        QVERIFY_THROWS_EXCEPTION(Error, video::smooth_video(o, [&](const video::VideoProgress&) {
                                     return ++calls < 2;
                                 }));
        QVERIFY(!std::filesystem::exists(cancelled));
        f.cancel();
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(), s.document().pixels().view()));
    }

    // Filters ▸ Bilateral on a measurement stack filters the stored samples of the page shown
    // (ops::bilateral_native, σr in HU), previews them through the proxy, applies as one
    // undoable edit that keeps the masks and leaves the other page alone; Scale refuses.
    void filters_work_on_measurement_samples() {
        session::Session s(false);
        NativeImage first(23, 17, {SampleType::U16, 1}), second(23, 17, {SampleType::U16, 1});
        for (int y = 0; y < 17; ++y)
            for (int x = 0; x < 23; ++x) {
                first.set_sample(x, y, 0, (x < 11 ? 1000 : 3000) + 37 * ((x * 7 + y * 5) % 11));
                second.set_sample(x, y, 0, 500 + 13 * x);
            }
        const Calibration hu{0.5, -1024, "HU"};
        s.open_measurement({first, second}, hu);
        QCOMPARE(s.page_count(), 2);
        session::FilterTool& f = s.filter();
        QVERIFY(f.on_samples());
        QCOMPARE(f.range_unit(), std::string("HU"));
        // 5% of the page's range in HU, (3370 − 1000) × 0.5 = 1185 HU, to two digits.
        QCOMPARE(f.suggested_sigma_range(), 59.0);
        QVERIFY(!f.begin(session::FilterKind::Scale));
        QVERIFY(QString::fromStdString(f.status()).contains("lacuna scale"));
        QVERIFY_THROWS_EXCEPTION(Error, f.set_bilateral({2, 0, 0}));
        // σr in HU, beyond the photo limit of 1000 levels: allowed here.
        f.set_bilateral({2, 5000, 0});
        const ops::BilateralParams params{2, 60, 0};  // the ripple (≤ 185 HU) partly, not the step
        f.set_bilateral(params);
        s.select(session::ToolKind::RemoveObject);
        stroke(*s.active_tool(), {{5.5, 5.5}, {9.5, 8.5}});
        const Mask painted = clone(s.document().mask(MaskLayer::Fill).view());
        QVERIFY(f.begin(session::FilterKind::Bilateral));
        const NativeImage expected =
            ops::bilateral_native(first, hu, {}, params, ops::BilateralImplementation::Fast);
        QVERIFY(!(expected == first));
        QVERIFY(s.document().samples() == first);  // a preview only
        QVERIFY(f.host_frame() != nullptr);
        const auto [lo, hi] = s.document().proxy_range();
        const ImageRgba8 proxy = ops::carving_proxy(expected, lo, hi).image;
        QVERIFY(equal_pixels<Rgba8>(f.host_frame()->view(), proxy.view()));
        QVERIFY(f.ran_on().find("stored samples") != std::string::npos);
        QVERIFY(s.showing_preview());
        QVERIFY(f.apply());
        QVERIFY(s.document().samples() == expected);
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), painted.view()));
        QCOMPARE(s.history().undo_label(), std::string("Bilateral Filter"));
        s.show_page(1);
        QVERIFY(s.document().samples() == second);  // the other page is untouched
        s.show_page(0);
        QVERIFY(s.document().samples() == expected);  // the edited page kept its samples
        QVERIFY(s.undo());
        QVERIFY(s.document().samples() == first);
        QVERIFY(s.redo());
        QVERIFY(s.document().samples() == expected);
    }

    void brush_strokes_paint_what_the_engine_paints() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        QVERIFY(!s.on_device());
        s.select(session::ToolKind::RemoveObject);
        ops::BrushSettings brush{12.5, 0.5, false};
        s.remove_object().set_brush(brush);
        std::vector<std::pair<double, double>> points;
        for (int i = 0; i < 100; ++i)
            points.push_back({20.0 + i * 2.3, 40.0 + 25 * std::sin(i * 0.1)});
        stroke(*s.active_tool(), points);
        const Mask expected = expected_stroke(Mask(kW, kH, 0), points, brush);
        QVERIFY(count_selected(expected.view()) > 1000);
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), expected.view()));
        QCOMPARE(s.history().count(), 1);
        check_presented(s);

        // The eraser lowers coverage along its path; undo and redo are exact.
        s.remove_object().set_erase(true);
        const std::vector<std::pair<double, double>> erase{{60, 40}, {120, 45}, {200, 60}};
        stroke(*s.active_tool(), erase);
        brush.erase = true;
        const Mask erased = expected_stroke(clone(expected.view()), erase, brush);
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), erased.view()));
        QVERIFY(s.undo());
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), expected.view()));
        QVERIFY(s.undo());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
        QVERIFY(s.redo());
        QVERIFY(s.redo());
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), erased.view()));
        QVERIFY(!s.redo());
        check_presented(s);
    }

    void switching_tools_never_drops_a_stroke() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::RemoveObject);
        s.active_tool()->press(Pointer{50, 50});
        s.active_tool()->move(Pointer{90, 60});
        s.select(session::ToolKind::LineHistogram);  // mid-stroke
        QCOMPARE(s.history().count(), 1);
        QVERIFY(count_selected(s.document().mask(MaskLayer::Fill).view()) > 0);
    }

    void slider_frames_are_compactions_of_the_seam_maps() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::Retarget);
        session::RetargetTool& tool = s.retarget();
        tool.wait();
        QVERIFY(tool.vertical_exact());
        const ops::SeamOrder vertical =
            ops::seam_order_fast({photo_.view()}, ops::SeamDirection::Vertical, seams_for(kW));
        for (int step = 0; step < 50; ++step) {
            const int width = kW - 1 - (step * 170) / 49;
            tool.set_target(width, kH);
            QVERIFY(tool.previewing());
            const ImageRgba8 expected =
                ops::remove_seams<Rgba8>(photo_.view(), vertical, kW - width);
            QVERIFY2(equal_pixels<Rgba8>(s.shown_image().view(), expected.view()),
                     qPrintable(QString("width %1").arg(width)));
            if (step % 10 == 0) check_presented(s);
        }
        // Enlarging duplicates the first seams.
        tool.set_target(kW + 30, kH);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(),
                                    ops::insert_seams(photo_.view(), vertical, 30).view()));
        // Height: the horizontal map of the narrowed image.
        tool.set_target(kW - 60, kH - 40);
        // The approximate map may come first and the exact one after it: wait for the exact one.
        for (int i = 0; i < 100 && !(tool.horizontal_ready_for(kW - 60) && tool.horizontal_exact());
             ++i) {
            tool.wait();
            s.poll();
        }
        QVERIFY(tool.horizontal_ready_for(kW - 60) && tool.horizontal_exact());
        const ImageRgba8 narrowed = ops::remove_seams<Rgba8>(photo_.view(), vertical, 60);
        const ops::SeamOrder horizontal =
            ops::seam_order_fast({narrowed.view()}, ops::SeamDirection::Horizontal, seams_for(kH));
        const ImageRgba8 expected = ops::remove_seams<Rgba8>(narrowed.view(), horizontal, 40);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(), expected.view()));
        check_presented(s);
        // Apply commits the frame; undo and redo are exact.
        QVERIFY(tool.apply());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), expected.view()));
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QVERIFY(s.redo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), expected.view()));
        check_presented(s);
    }

    void retarget_maps_wait_while_another_tool_edits() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::Retarget);
        session::RetargetTool& tool = s.retarget();
        tool.wait();
        tool.set_target(kW - 40, kH);
        tool.wait();
        QVERIFY(tool.apply());
        QCOMPARE(s.document().width(), kW - 40);
        tool.wait();
        QVERIFY(tool.vertical_ready());

        // An undo while another tool is active sets the maps aside and starts nothing.
        s.select(session::ToolKind::RemoveObject);
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QVERIFY(!tool.busy());
        QVERIFY(!tool.vertical_ready());
        QVERIFY(!tool.previewing());
        QCOMPARE(tool.progress().total, 0);
        QVERIFY(tool.progress().what.find("when you retarget") != std::string::npos);

        // Retargeting again starts them over, from the document as it is now.
        s.select(session::ToolKind::Retarget);
        tool.wait();
        QVERIFY(tool.vertical_exact());
        tool.set_target(kW - 50, kH);
        const ops::SeamOrder vertical =
            ops::seam_order_fast({photo_.view()}, ops::SeamDirection::Vertical, seams_for(kW));
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(),
                                    ops::remove_seams<Rgba8>(photo_.view(), vertical, 50).view()));

        // While the pan tool shows the preview, an edit restarts the maps at once.
        s.select(session::ToolKind::Pan);
        QVERIFY(tool.previewing());
        QVERIFY(s.redo());
        QVERIFY(tool.busy() || tool.vertical_ready());
    }

    void retarget_importance_amount_and_detections() {
        // Importance in the editor: the tool's map of faces goes into every carve, the Amount
        // gives the CLI's mix (seams, then area scaling, per side), Automatic picks per side,
        // and the detections are drawn and become the protect mask.
        const ImageRgba8 photo = io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) /
                                                "tests/data/photos/messi5.jpg")
                                     .image;
        const int w = photo.width(), h = photo.height();
        const ops::ImportanceMap map = ops::importance_map(photo.view(), ops::ImportanceParams{});
        QVERIFY(!map.faces.empty());
        session::Session s(false);
        s.open(clone(photo.view()));
        s.select(session::ToolKind::Retarget);
        session::RetargetTool& tool = s.retarget();
        tool.wait();
        QVERIFY(tool.vertical_exact());
        QVERIFY(tool.importance() != nullptr);
        QCOMPARE(tool.importance()->faces.size(), map.faces.size());
        // Faces are on by default: the seams are those of the carve with the map.
        ops::CarveInput in{photo.view()};
        in.importance = &map.levels;
        in.importance_unit = ops::importance_unit(SeamEnergy::Forward);
        const ops::SeamOrder vertical =
            ops::seam_order_fast(in, ops::SeamDirection::Vertical, seams_for(w));
        const ops::SeamOrder plain =
            ops::seam_order_fast({photo.view()}, ops::SeamDirection::Vertical, seams_for(w));
        // 300 seams: the plain ones cut the face, those with the map do not.
        const ImageRgba8 with_faces = ops::remove_seams<Rgba8>(photo.view(), vertical, 300);
        const ImageRgba8 without = ops::remove_seams<Rgba8>(photo.view(), plain, 300);
        QVERIFY(!equal_pixels<Rgba8>(with_faces.view(), without.view()));
        tool.set_target(w - 300, h);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(), with_faces.view()));
        // Amount 50 %: the CLI's mixed retarget, bit for bit, both sides.
        ops::RetargetMix mix;
        mix.amount = 50;
        tool.set_mix(mix);
        tool.set_target(w - 100, h - 60);
        tool.wait();
        QVERIFY(tool.horizontal_ready_for(w - 100));
        ops::RetargetParams p;
        p.width = w - 100;
        p.height = h - 60;
        p.amount = 50;
        p.importance = &map.levels;
        p.importance_unit = in.importance_unit;
        const ops::RetargetResult cli =
            ops::retarget(photo.view(), p, ops::CarveImplementation::Fast);
        QCOMPARE(cli.width_mix.seams, 50);
        QCOMPARE(cli.height_mix.seams, 30);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(), cli.image.view()));
        // Amount 0: plain scaling, one side after the other as the CLI does.
        mix.amount = 0;
        tool.set_mix(mix);
        tool.wait();
        p.amount = 0;
        QVERIFY(equal_pixels<Rgba8>(
            s.shown_image().view(),
            ops::retarget(photo.view(), p, ops::CarveImplementation::Fast).image.view()));
        QVERIFY(test::mean_abs_diff(s.shown_image(),
                                    ops::resample_area(photo.view(), w - 100, h - 60)) < 0.5);
        // Automatic: each side's amount a quarter step, the frame at the target.
        mix.automatic = true;
        tool.set_mix(mix);
        tool.wait();
        QCOMPARE(s.shown_image().width(), w - 100);
        QCOMPARE(s.shown_image().height(), h - 60);
        for (const double a : {tool.width_amount(), tool.height_amount()})
            QVERIFY(a >= 0 && a <= 100 && std::fmod(a, 25) == 0);
        QVERIFY2(tool.status().find("Automatic") != std::string::npos, tool.status().c_str());
        // The detections over the original, then as the protect mask (one undoable edit).
        tool.set_target(w, h);
        tool.set_show_detections(true);
        QCOMPARE(tool.overlay().ellipses.size(), map.faces.size());
        const ops::FaceBox& face = map.faces.front();
        const int cx = face.x + face.width / 2, cy = face.y + face.height / 2;
        QCOMPARE(int(s.document().mask(MaskLayer::Protect).at(cx, cy)), 0);
        QVERIFY(tool.protect_detections());
        QCOMPARE(int(s.document().mask(MaskLayer::Protect).at(cx, cy)), 255);
        QCOMPARE(int(s.document().mask(MaskLayer::Protect).at(5, 5)), 0);
        QVERIFY(s.undo());
        QCOMPARE(int(s.document().mask(MaskLayer::Protect).at(cx, cy)), 0);
        // Faces off: no map, the plain seams.
        mix = {};
        mix.importance.faces = false;
        tool.set_mix(mix);
        tool.wait();
        QVERIFY(tool.importance() == nullptr);
        tool.set_target(w - 300, h);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(), without.view()));
    }

    void retarget_quick_preview_keeps_faces() {
        // A photo large enough for the approximate-first map (factor 2): it takes the same map
        // through its own downscale (a block's largest level), i.e. seam_order_approximate with
        // the importance field.
        const ImageRgba8 small = io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) /
                                                "tests/data/photos/messi5.jpg")
                                     .image;
        const ImageRgba8 photo =
            ops::resample_area(small.view(), small.width() * 2, small.height() * 2);
        const int w = photo.width(), h = photo.height();
        QCOMPARE(ops::approximate_factor(w, h), 2);
        const ops::ImportanceMap map = ops::importance_map(photo.view(), ops::ImportanceParams{});
        QVERIFY(!map.empty());
        session::Session s(false);
        s.open(clone(photo.view()));
        s.select(session::ToolKind::Retarget);
        session::RetargetTool& tool = s.retarget();
        tool.hold_exact_maps(true);
        while (!tool.vertical_ready()) {
            tool.poll();
            QTest::qWait(5);
        }
        QVERIFY(!tool.vertical_exact());
        ops::CarveInput in{photo.view()};
        in.importance = &map.levels;
        in.importance_unit = ops::importance_unit(SeamEnergy::Forward);
        const int seams = std::min(seams_for(w), (w / 2 - 1) * 2) / 2 * 2;
        const ops::SeamOrder quick = ops::seam_order_approximate(
            in, ops::SeamDirection::Vertical, seams, 2, ops::CarveImplementation::Fast);
        tool.set_target(w - 400, h);
        QVERIFY(equal_pixels<Rgba8>(s.shown_image().view(),
                                    ops::remove_seams<Rgba8>(photo.view(), quick, 400).view()));
        tool.hold_exact_maps(false);
        tool.wait();
        QVERIFY(tool.vertical_exact());
    }

    void fill_steps_equal_the_engine_and_cancel_restores() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({14, 1.0, false});
        stroke(*s.active_tool(), {{170, 80}, {195, 80}, {195, 100}, {170, 100}, {182, 92}});
        const Mask coverage = clone(s.document().mask(MaskLayer::Fill).view());
        Mask hole(kW, kH, 0);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
        const ops::InpaintParams params;
        auto reference =
            ops::make_inpainter(photo_.view(), hole, params, ops::InpaintImplementation::Fast);

        // Cancel puts the picture back exactly.
        QVERIFY(s.remove_object().start_fill());
        s.remove_object().advance(3);
        s.remove_object().cancel_fill();
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QCOMPARE(s.history().count(), 1);

        QVERIFY(s.remove_object().start_fill());
        for (const int n : {1, 4, 16}) {
            s.remove_object().advance(n);
            reference->advance(n);
            QVERIFY2(equal_pixels<Rgba8>(s.document().pixels().view(), reference->image().view()),
                     qPrintable(QString("after %1 more").arg(n)));
            check_presented(s);
        }
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        reference->advance(1 << 20);
        // The end: PatchMatch's fill blended in the gradient domain, as ops::inpaint gives it.
        const ImageRgba8 blended = ops::finished_image(*reference);
        QVERIFY(!equal_pixels<Rgba8>(blended.view(), reference->image().view()));
        // ...and, as ops::inpaint, the per-region choice after the blend.
        std::vector<int> chosen;
        const ImageRgba8 chosen_fill = ops::choose_fill(
            photo_.view(), hole, params, ops::InpaintImplementation::Fast, blended, &chosen);
        // ...and the foreign-blob refill after the choice.
        const ImageRgba8 refilled = ops::refill_foreign(
            hole, params, ops::InpaintImplementation::Fast, clone(chosen_fill.view()));
        // ...and the blend's colours kept to the ring's at the end (keep_ring_colours).
        const ImageRgba8 finished =
            ops::keep_ring_colours(reference->image(), blended, hole, clone(refilled.view()));
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), finished.view()));
        // The message says when regions took Criminisi's fill, and only then.
        const auto taken = std::count(chosen.begin(), chosen.end(), 1);
        const std::string said = s.remove_object().message();
        QCOMPARE(said.find("Criminisi in") != std::string::npos, taken > 0);
        if (taken > 0)
            QVERIFY2(said.find("Criminisi in " + std::to_string(taken) + " of " +
                               std::to_string(chosen.size())) != std::string::npos,
                     said.c_str());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
        QCOMPARE(s.history().count(), 2);
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QVERIFY(
            equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(), coverage.view()));
        QVERIFY(s.redo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), finished.view()));

        // An empty mask: a hint, no edit.
        QVERIFY(!s.remove_object().start_fill());
        QVERIFY(s.remove_object().message().find("Nothing to fill") != std::string::npos);
        QCOMPARE(s.history().count(), 2);
    }

    // Where the per-region choice takes Criminisi's fill (the circuit board of the bench, where
    // PatchMatch pastes pins into the chip's corner), the editor's fill ends as ops::inpaint's
    // and its message says which fill the region took.
    void fill_message_says_when_criminisi_was_chosen() {
        const std::filesystem::path board = "/usr/share/doc/opencv-doc/examples/data/board.jpg";
        if (!std::filesystem::exists(board))
            QSKIP("opencv-doc is not installed (packaging/install-deps.sh installs it)");
        const ImageRgba8 picture = io::read_image(board).image;
        session::Session s(false);
        s.open(clone(picture.view()));
        s.select(session::ToolKind::RemoveObject);
        // The hole of the bench's case, near enough: an ellipse over the chip's corner.
        Mask hole(picture.width(), picture.height(), 0);
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) {
                const double dx = (x - 450) / 42.0, dy = (y - 350) / 38.0;
                hole.at(x, y) = dx * dx + dy * dy <= 1 ? 255 : 0;
            }
        s.remove_object().replace_mask(hole, "hole");
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        const std::string said = s.remove_object().message();
        QVERIFY2(said.find("Criminisi in 1 of 1 region") != std::string::npos, said.c_str());
        // ...and the picture is ops::inpaint's, Criminisi's in the hole.
        const ops::InpaintResult engine = ops::inpaint(picture.view(), hole, ops::InpaintParams{},
                                                       ops::InpaintImplementation::Fast);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), engine.image.view()));
    }

    // With the foreign-blob refill on (the "refill-foreign" parameter), the editor's fill ends as
    // ops::inpaint's with the same parameters, and its message says how many blobs were filled
    // again. opencv-doc's stuff.jpg, a blob hole on the table near the bench's "plain table"
    // (30 px higher), where PatchMatch brings a blob of colours the table's ring lacks. (The
    // bench's "pole on cobbles" showed it before known pixels counted double in the patch
    // distance; its fill no longer needs the refill.)
    void fill_with_the_refill_ends_as_the_engine() {
        const std::filesystem::path stuff = "/usr/share/doc/opencv-doc/examples/data/stuff.jpg";
        if (!std::filesystem::exists(stuff))
            QSKIP("opencv-doc is not installed (packaging/install-deps.sh installs it)");
        const ImageRgba8 picture = io::read_image(stuff).image;
        const Mask hole = test::bench_blob(picture.width(), picture.height(), 510, 360, 48, 38, 4);
        session::Session s(false);
        s.open(clone(picture.view()));
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams params = s.remove_object().fill_params();
        params.refill_foreign = true;
        s.remove_object().set_fill_params(params);
        s.remove_object().replace_mask(hole, "hole");
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        const ops::InpaintResult engine =
            ops::inpaint(picture.view(), hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), engine.image.view()));
        bool noted = false;
        for (const std::string& n : engine.notes)
            noted |= n.find("filled again") != std::string::npos;
        QVERIFY(noted);
        const std::string said = s.remove_object().message();
        QVERIFY2(said.find("of foreign colours filled again") != std::string::npos, said.c_str());
        // Without the refill the picture differs in the hole: the stage did something.
        params.refill_foreign = false;
        const ops::InpaintResult plain =
            ops::inpaint(picture.view(), hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(!equal_pixels<Rgba8>(plain.image.view(), engine.image.view()));
    }

    // The table of opencv-doc's stuff.jpg (the bench's "plain table" blob hole, 30 px higher) as
    // a 16-bit measurement (257 × level, what a 16-bit PNG of the photo holds), where the
    // measurement's PatchMatch fill brings a blob of colours the table's ring lacks: the editor's
    // fill, run batch by batch, refills it as ops::inpaint of samples does (decided on the proxy,
    // the samples moved from the refill's sources), ends with the engine's samples and says so;
    // without the refill the samples differ, and every sample the refill changed is one of the
    // photo's own, unblended.
    void measurement_fill_with_the_refill_ends_as_the_engine() {
        const std::filesystem::path stuff = "/usr/share/doc/opencv-doc/examples/data/stuff.jpg";
        if (!std::filesystem::exists(stuff))
            QSKIP("opencv-doc is not installed (packaging/install-deps.sh installs it)");
        const ImageRgba8 picture = io::read_image(stuff).image;
        NativeImage samples(picture.width(), picture.height(), {SampleType::U16, 3});
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x) {
                const Rgba8 p = picture.at(x, y);
                samples.set_sample(x, y, 0, 257 * p.r);
                samples.set_sample(x, y, 1, 257 * p.g);
                samples.set_sample(x, y, 2, 257 * p.b);
            }
        const Mask hole = test::bench_blob(picture.width(), picture.height(), 510, 360, 48, 38, 4);
        session::Session s(false);
        s.open_measurement({samples}, {});
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams params = s.remove_object().fill_params();
        QVERIFY(params.refill_foreign);  // the default
        s.remove_object().replace_mask(hole, "hole");
        ImageRgba8 proxy;
        cancel_after_one_batch_keeps_the_document(s, samples, proxy);
        if (QTest::currentTestFailed()) return;
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const ops::NativeInpaintResult engine =
            ops::inpaint(samples, hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(std::any_of(engine.notes.begin(), engine.notes.end(), [](const std::string& n) {
            return n.find("filled again") != std::string::npos;
        }));
        const std::string said = s.remove_object().message();
        QVERIFY2(said.find("of foreign colours filled again") != std::string::npos, said.c_str());
        QVERIFY(s.document().samples() == engine.samples);
        params.refill_foreign = false;
        const ops::NativeInpaintResult plain =
            ops::inpaint(samples, hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(!(plain.samples == engine.samples));
        // What the refill changed are copies of the photo's samples (257 × level in every
        // channel), not blends (the blended fill around them is not); only hole pixels changed.
        int changed = 0;
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) {
                bool differs = false;
                for (int c = 0; c < 3; ++c)
                    differs |= plain.samples.sample(x, y, c) != engine.samples.sample(x, y, c);
                if (!differs) continue;
                QVERIFY(hole.at(x, y) != 0);
                ++changed;
                for (int c = 0; c < 3; ++c) {
                    const auto v = static_cast<int>(engine.samples.sample(x, y, c));
                    QVERIFY2(v % 257 == 0, qPrintable(QString::number(v)));
                }
            }
        QVERIFY(changed > 0);
        QVERIFY(s.undo());
        QVERIFY(s.document().samples() == samples);
    }

    // The same board as a 16-bit measurement whose samples all need more than 8 bits (1000 +
    // 200 × level): the editor's fill, run batch by batch, makes the same choice on the proxy,
    // ends with ops::inpaint's samples (Criminisi's sources' samples in the hole, unblended) and
    // says so; undo puts the samples back.
    void measurement_fill_message_says_when_criminisi_was_chosen() {
        const std::filesystem::path board = "/usr/share/doc/opencv-doc/examples/data/board.jpg";
        if (!std::filesystem::exists(board))
            QSKIP("opencv-doc is not installed (packaging/install-deps.sh installs it)");
        const ImageRgba8 picture = io::read_image(board).image;
        NativeImage samples(picture.width(), picture.height(), {SampleType::U16, 3});
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x) {
                const Rgba8 p = picture.at(x, y);
                samples.set_sample(x, y, 0, 1000 + 200 * p.r);
                samples.set_sample(x, y, 1, 1000 + 200 * p.g);
                samples.set_sample(x, y, 2, 1000 + 200 * p.b);
            }
        session::Session s(false);
        s.open_measurement({samples}, {});
        s.select(session::ToolKind::RemoveObject);
        Mask hole(picture.width(), picture.height(), 0);
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) {
                const double dx = (x - 450) / 42.0, dy = (y - 350) / 38.0;
                hole.at(x, y) = dx * dx + dy * dy <= 1 ? 255 : 0;
            }
        s.remove_object().replace_mask(hole, "hole");
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const std::string said = s.remove_object().message();
        QVERIFY2(said.find("Criminisi in 1 of 1 region") != std::string::npos, said.c_str());
        const ops::NativeInpaintResult engine = ops::inpaint(
            samples, hole, s.remove_object().fill_params(), ops::InpaintImplementation::Fast);
        QVERIFY(std::any_of(engine.notes.begin(), engine.notes.end(), [](const std::string& n) {
            return n.find("filled by Criminisi") != std::string::npos;
        }));
        QVERIFY(s.document().samples() == engine.samples);
        QVERIFY(s.undo());
        QVERIFY(s.document().samples() == samples);
    }

    // A small stroke in a large picture: the tool reads the coverage once and prepares the fill
    // over the stroke's box only; the fill still ends exactly as the engine's on the whole
    // picture (photo: ops::inpaint's blended image; measurement: the sources moved and blended
    // in the samples' values), its rectangle is the stroke's, and only that is in the edit.
    void small_fill_in_a_large_picture_equals_the_engine() {
        constexpr int w = 1200, h = 900;
        const ImageRgba8 photo = test::scenario_photo(w, h);
        const std::vector<std::pair<double, double>> points{{610, 430}, {640, 445}, {628, 460}};
        const ops::BrushSettings brush{12, 0.6, false};
        {
            session::Session s(false);
            s.open(clone(photo.view()));
            s.select(session::ToolKind::RemoveObject);
            s.remove_object().set_brush(brush);
            stroke(*s.active_tool(), points);
            const Mask coverage = clone(s.document().mask(MaskLayer::Fill).view());
            Mask hole(w, h, 0);
            PixelRect painted;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
                    if (coverage.at(x, y) != 0) painted.unite({x, y, x, y});
                }
            QVERIFY(painted.width() < 100 && painted.height() < 100);
            const ops::InpaintResult expected =
                ops::inpaint(photo.view(), hole, s.remove_object().fill_params(),
                             ops::InpaintImplementation::Fast);
            QVERIFY(s.remove_object().start_fill());
            while (s.remove_object().fill_running()) s.remove_object().advance(64);
            QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), expected.image.view()));
            QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
            QCOMPARE(s.history().count(), 2);
            QVERIFY(s.undo());
            QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo.view()));
            QVERIFY(equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Fill).view(),
                                               coverage.view()));
        }
        NativeImage field(w, h, {SampleType::F32, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                field.set_sample(x, y, 0, 280.0 + 6.0 * std::sin(x * 0.05 + y * 0.031) + 0.01 * y);
        session::Session s(false);
        s.open_measurement({field}, {1.0, 0.0, "K"});
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush(brush);
        stroke(*s.active_tool(), points);
        const Mask coverage = clone(s.document().mask(MaskLayer::Fill).view());
        Mask taken(w, h, 0);  // what a fill takes: coverage >= 128 (the soft edge is not)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) taken.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
        const auto [lo, hi] = s.document().proxy_range();
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        // The oracle on the whole picture, as measurement_fill_moves_the_stored_samples has it.
        const ops::InpaintParams params = s.remove_object().fill_params();
        const ops::InpaintProblem problem =
            ops::prepare_inpaint(ops::carving_proxy(field).image.view(), taken, params);
        const Mask hole = problem.hole;
        const auto filler = ops::make_deep_patchmatch_inpainter(
            problem, ops::deep_carving_proxy(field, lo, hi).image,
            ops::InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(64);
        const ops::FillSources sources =
            ops::patchmatch_sources(*ops::patchmatch_field(*filler), hole, params.patch / 2);
        const NativeImage expected =
            ops::blend_samples(ops::fill_from_sources(field, sources), hole, sources, {lo, hi});
        QVERIFY(!(expected == field));
        QVERIFY(s.document().samples() == expected);
        QVERIFY(s.undo());
        QVERIFY(s.document().samples() == field);
    }

    void fill_with_lines_equals_the_engine() {
        // A dark bar across a noisy wall and a hole brushed over its middle: with the line
        // continuation on, the session's fill ends as ops::inpaint's with it (the stage joined
        // the bar's edges: the problem's note says so).
        const ImageRgba8 wall = test::bar_picture(kW, kH);
        session::Session s(false);
        s.open(clone(wall.view()));
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams params;
        params.lines = true;
        s.remove_object().set_fill_params(params);
        s.remove_object().set_brush({20, 1.0, false});
        stroke(*s.active_tool(), {{140, 85}, {160, 100}, {150, 110}});
        Mask hole(kW, kH, 0);
        const Mask& coverage = s.document().mask(MaskLayer::Fill);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
        const ops::InpaintResult engine =
            ops::inpaint(wall.view(), hole, params, ops::InpaintImplementation::Fast);
        const std::string note = continued_lines_line(engine.notes);
        QVERIFY(!note.empty());
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), engine.image.view()));
        // The end message names the continued lines, as `lacuna inpaint` notes them.
        const std::string& said = s.remove_object().message();
        QVERIFY2(said.find(note) != std::string::npos, said.c_str());
    }

    // The same bar as a 16-bit measurement (1000 + 200 × level, plus a part finer than a proxy
    // level): with lines on, the editor's fill, run batch by batch, continues the bar as
    // ops::inpaint of samples does (the bands decided on the proxy, their samples moved before
    // the deep fill decides around them) and ends with the engine's samples; without lines the
    // samples differ. A fill cancelled after its first batch leaves the samples, the proxy and
    // the brushed hole as they were (the bands' samples are moved only at the end); undo and
    // redo move the whole fill, bands included.
    void measurement_fill_with_lines_ends_as_the_engine() {
        const NativeImage samples = bar_measurement();
        const Mask hole = test::bar_hole(kW, kH);
        session::Session s(false);
        s.open_measurement({samples}, {});
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams params = s.remove_object().fill_params();
        params.lines = true;
        s.remove_object().set_fill_params(params);
        s.remove_object().replace_mask(hole, "hole");
        ImageRgba8 proxy;
        cancel_after_one_batch_keeps_the_document(s, samples, proxy);
        if (QTest::currentTestFailed()) return;
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const ops::NativeInpaintResult engine =
            ops::inpaint(samples, hole, params, ops::InpaintImplementation::Fast);
        const std::string note = continued_lines_line(engine.notes);
        QVERIFY(!note.empty());
        QVERIFY(s.document().samples() == engine.samples);
        // The end message names the continued lines, as `lacuna inpaint` notes them.
        QVERIFY2(s.remove_object().message().find(note) != std::string::npos,
                 s.remove_object().message().c_str());
        params.lines = false;
        const ops::NativeInpaintResult plain =
            ops::inpaint(samples, hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(!(plain.samples == engine.samples));
        QVERIFY(s.undo());
        QVERIFY(s.document().samples() == samples);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), proxy.view()));
        QVERIFY(s.redo());
        QVERIFY(s.document().samples() == engine.samples);
    }

    // The editor's branch where the bands take every pixel of the hole (the bar's cross-section
    // and 3 px beyond each edge): PatchMatch has nothing left to move, and the fill ends with
    // ops::inpaint's samples, the bands' copies.
    void measurement_fill_whose_bands_take_the_whole_hole() {
        const NativeImage samples = bar_measurement();
        Mask hole(kW, kH, 0);
        for (int y = 0; y < kH; ++y)
            for (int x = 140; x <= 160; ++x)
                if (const double d = test::bar_distance(x, y); d >= -3 && d <= 11)
                    hole.at(x, y) = 255;
        session::Session s(false);
        s.open_measurement({samples}, {});
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams params = s.remove_object().fill_params();
        params.lines = true;
        s.remove_object().set_fill_params(params);
        s.remove_object().replace_mask(hole, "hole");
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const ops::NativeInpaintResult engine =
            ops::inpaint(samples, hole, params, ops::InpaintImplementation::Fast);
        int pixels = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) pixels += hole.at(x, y) != 0 ? 1 : 0;
        const QString all = QString("(%1 pixels filled along them first)").arg(pixels);
        QVERIFY(std::any_of(engine.notes.begin(), engine.notes.end(), [&](const std::string& n) {
            return QString::fromStdString(n).contains(all);
        }));
        QVERIFY(!(engine.samples == samples));
        QVERIFY(s.document().samples() == engine.samples);
        // The end message counts the bands' pixels (PatchMatch's progress has none).
        const QString message = QString::fromStdString(s.remove_object().message());
        QVERIFY2(message.startsWith(QString("Filled %1 pixels").arg(pixels)), qPrintable(message));
        QVERIFY2(message.contains(QString("%1 of them along continued lines").arg(pixels)),
                 qPrintable(message));
    }

    // Found by the monkey test: Apply while a fill was running replaced the picture under the
    // fill, whose next step, cancel or end then wrote its rectangle of the old picture into the
    // new one (and recorded it for undo). The fill owns the pixels until it ends, as for undo:
    // Apply refuses, says why, and works once the fill is done; undo is exact throughout.
    void retarget_apply_waits_for_a_running_fill() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({14, 1.0, false});
        stroke(*s.active_tool(), {{250, 150}, {285, 185}});
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(kW - 120, kH);
        QVERIFY(s.retarget().previewing());
        QVERIFY(s.remove_object().start_fill());
        s.remove_object().advance(1);
        QVERIFY(!s.retarget().apply());
        QVERIFY2(s.retarget().status().find("fill") != std::string::npos,
                 s.retarget().status().c_str());
        QCOMPARE(s.document().width(), kW);
        QCOMPARE(s.history().count(), 1);
        while (s.remove_object().fill_running()) s.remove_object().advance(64);
        QCOMPARE(s.history().count(), 2);
        const ImageRgba8 filled = clone(s.document().pixels().view());
        // The maps start over on the filled picture; the target stays.
        s.retarget().wait();
        QVERIFY(s.retarget().previewing());
        QVERIFY2(s.retarget().apply(), s.retarget().status().c_str());
        QCOMPARE(s.document().width(), kW - 120);
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), filled.view()));
        QVERIFY(s.undo());
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
    }

    // The sampling-area brush and Fill Again, with PatchMatch: the fill equals the engine's with
    // the painted never-sample mask, and Fill Again gives the next seed's result in place of the
    // last one.
    void never_sample_brush_and_fill_again() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        ops::InpaintParams params;
        params.method = ops::InpaintMethod::PatchMatch;
        params.seed = 7;
        tool.set_fill_params(params);
        tool.set_brush({14, 1.0, false});
        stroke(tool, {{170, 80}, {195, 80}, {195, 100}, {170, 100}, {182, 92}});
        tool.set_layer(MaskLayer::NeverSample);
        QCOMPARE(tool.overlay().mask_layer.value_or(-1), static_cast<int>(MaskLayer::NeverSample));
        tool.set_brush({20, 1.0, false});
        stroke(tool, {{120, 60}, {120, 140}});
        const Mask never = clone(s.document().mask(MaskLayer::NeverSample).view());
        QVERIFY(count_selected(never.view()) > 0);
        QCOMPARE(s.history().count(), 2);
        Mask hole(kW, kH, 0);
        const Mask& coverage = s.document().mask(MaskLayer::Fill);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;

        QVERIFY(tool.start_fill());
        while (tool.fill_running()) tool.advance(64);
        params.never_sample = &never;
        const ops::InpaintResult seven =
            ops::inpaint(photo_.view(), hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), seven.image.view()));
        QCOMPARE(s.history().count(), 3);
        QVERIFY(tool.can_fill_again());

        QVERIFY(tool.fill_again());
        while (tool.fill_running()) tool.advance(64);
        params.seed = 8;
        params.choose = false;  // Fill again asks for another PatchMatch result: no choice
        const ops::InpaintResult eight =
            ops::inpaint(photo_.view(), hole, params, ops::InpaintImplementation::Fast);
        QVERIFY(!equal_pixels<Rgba8>(seven.image.view(), eight.image.view()));
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), eight.image.view()));
        QCOMPARE(s.history().count(), 3);  // the new fill replaced the old one
        // The status names the method and the seed that made this result.
        QVERIFY2(tool.message().find("by PatchMatch (seed 8,") != std::string::npos,
                 tool.message().c_str());
        // Undo puts back the picture and the mask as they were before either fill.
        QVERIFY(s.undo());
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        QVERIFY(!tool.can_fill_again());
        QVERIFY(!tool.fill_again());
    }

    void line_drags_equal_the_reference() {
        session::Session s(false);
        s.open(clone(photo_.view()));
        s.select(session::ToolKind::LineHistogram);
        session::LineTool& tool = s.line();
        tool.set_band(9);
        tool.set_channels({ops::HistogramChannel::Luminance, ops::HistogramChannel::Red});
        const ops::HistogramSource source(photo_.view());
        tool.press(Pointer{30.5, 40.5});
        for (int i = 1; i <= 50; ++i) {
            tool.move(Pointer{30.5 + i * 4.7, 40.5 + i * 2.9});
            const ops::LineHistogram* shown = tool.result();
            QVERIFY(shown != nullptr);
            QCOMPARE(shown->channels.size(), std::size_t{2});
            ops::LineHistogramParams params;
            params.from = tool.from();
            params.to = tool.to();
            params.band_width = 9;
            for (std::size_t c = 0; c < 2; ++c) {
                params.channel = shown->channels[c].channel;
                const ops::LineHistogram expected = ops::line_histogram_reference(source, params);
                QVERIFY(shown->channels[c].counts == expected.channels[0].counts);
                QVERIFY(shown->channels[c].samples == expected.channels[0].samples);
            }
        }
        tool.release(Pointer{});
        QCOMPARE(tool.overlay().line_band, 9);
        // A click without a drag: a zero-length line is explained, not a crash.
        tool.press(Pointer{200.5, 10.5});
        tool.release(Pointer{200.5, 10.5});
        QVERIFY(tool.result() == nullptr);
        QVERIFY(!tool.message().empty());
    }

    void measurement_documents_measure_in_their_units() {
        // A 16-bit file as the editor opens it: through read_native, samples kept.
        QTemporaryDir dir;
        const std::string path = dir.filePath("thermal16.png").toStdString();
        NativeImage thermal(97, 61, {SampleType::U16, 1});
        for (int y = 0; y < 61; ++y)
            for (int x = 0; x < 97; ++x)
                thermal.set_sample(x, y, 0, 20000 + 150 * x + 37 * y + (x * y) % 23);
        io::write_native(path, thermal);
        io::LoadedNative loaded = io::read_native(path);
        session::Session s(false);
        s.open_measurement(std::move(loaded.pages), loaded.calibration);
        QVERIFY(s.document().measurement());
        QVERIFY(s.document().format() == (PixelFormat{SampleType::U16, 1}));
        QCOMPARE(s.page_count(), 1);  // a single image: no stack copy beside the document
        // The status bar's readout: the stored sample, then calibrated.
        auto r = s.readout(10.7, 20.2);
        QVERIFY(r.has_value());
        QCOMPARE(r->raw[0], 20000.0 + 1500 + 740 + 200 % 23);
        s.set_calibration({0.01, 250.0, "K"});
        r = s.readout(10.7, 20.2);
        QCOMPARE(r->value, 0.01 * (20000.0 + 1500 + 740 + 200 % 23) + 250.0);
        QCOMPARE(r->unit, std::string("K"));
        QVERIFY(!s.readout(97.0, 3.0).has_value());
        // The line histogram bins calibrated values exactly as `lacuna histogram` does: the
        // same plane (value = slope · sample + intercept as float) through the reference.
        ImageF32 kelvin(97, 61);
        for (int y = 0; y < 61; ++y)
            for (int x = 0; x < 97; ++x)
                kelvin.at(x, y) = float(0.01 * thermal.sample(x, y, 0) + 250.0);
        const ops::HistogramSource oracle(kelvin.view());
        s.select(session::ToolKind::LineHistogram);
        session::LineTool& tool = s.line();
        tool.set_band(5);
        tool.set_bins(64);
        tool.set_line({3, 4}, {90.5, 55});
        ops::LineHistogramParams params;
        params.from = {3, 4};
        params.to = {90.5, 55};
        params.band_width = 5;
        params.bins = 64;
        const ops::LineHistogram expected = ops::line_histogram_reference(oracle, params);
        QVERIFY(tool.result() != nullptr);
        QCOMPARE(tool.result()->range_lo, expected.range_lo);
        QCOMPARE(tool.result()->range_hi, expected.range_hi);
        QVERIFY(tool.result()->channels[0].counts == expected.channels[0].counts);
        QVERIFY(tool.result()->channels[0].mean == expected.channels[0].mean);
        // A typed range, then the line's own min–max.
        tool.set_range(session::LineTool::RangeMode::Typed, {460.0, 470.0});
        params.range = std::pair<float, float>(460.0f, 470.0f);
        QCOMPARE(tool.result()->range_lo, 460.0f);
        QVERIFY(tool.result()->channels[0].counts ==
                ops::line_histogram_reference(oracle, params).channels[0].counts);
        tool.set_range(session::LineTool::RangeMode::Line);
        const ops::ChannelHistogram& c = expected.channels[0];
        float lo = std::numeric_limits<float>::infinity(), hi = -lo;
        for (std::size_t p = 0; p < c.samples.size(); ++p)
            if (c.samples[p] > 0) {
                lo = std::min(lo, c.min[p]);
                hi = std::max(hi, c.max[p]);
            }
        QCOMPARE(tool.result()->range_lo, lo);
        QCOMPARE(tool.result()->range_hi, hi);
        QCOMPARE(tool.result()->samples_out_of_range, std::int64_t{0});
        // Object removal by Criminisi refuses, saying why, and changes nothing.
        s.select(session::ToolKind::RemoveObject);
        ops::InpaintParams criminisi = s.remove_object().fill_params();
        criminisi.method = ops::InpaintMethod::Criminisi;
        s.remove_object().set_fill_params(criminisi);
        stroke(*s.active_tool(), {{40, 30}, {48, 34}});
        QVERIFY(!s.remove_object().start_fill());
        QVERIFY(s.remove_object().message().find("PatchMatch") != std::string::npos);
        QVERIFY(s.document().samples() == thermal);
    }

    void measurement_fill_moves_the_stored_samples() {
        // PatchMatch decides on the 16-bit decision image; its final vote's sources move the
        // stored samples, which are then blended in the gradient domain in their own values. An
        // 8-bit measurement and its ×257 16-bit copy have the same decision image, so they take
        // the same sources and blend alike (up to each type's rounding). The per-region choice
        // is left out here (it takes Criminisi on this hole: the next test).
        constexpr int w = kBoardW, h = kBoardH;
        const auto [bytes, deep] = checkerboard_measurements();
        std::vector<NativeImage> filled;
        for (const NativeImage* samples : {&bytes, &deep}) {
            session::Session s(false);
            s.open_measurement({*samples}, {});
            s.select(session::ToolKind::RemoveObject);
            ops::InpaintParams patchmatch;
            patchmatch.choose = false;
            s.remove_object().set_fill_params(patchmatch);
            s.remove_object().set_brush({14, 1.0, false});
            stroke(*s.active_tool(), {{50, 40}, {70, 48}});
            const Mask coverage = clone(s.document().mask(MaskLayer::Fill).view());
            const auto [lo, hi] = s.document().proxy_range();
            QVERIFY(s.remove_object().start_fill());
            while (s.remove_object().fill_running()) s.remove_object().step(30.0);
            QVERIFY(s.document().measurement());
            // The oracle: the same fill on the decision image, its sources applied to the samples.
            const ops::InpaintParams params = s.remove_object().fill_params();
            const ops::InpaintProblem problem =
                ops::prepare_inpaint(ops::carving_proxy(*samples).image.view(), coverage, params);
            const Mask hole = problem.hole;
            const auto filler = ops::make_deep_patchmatch_inpainter(
                problem, ops::deep_carving_proxy(*samples, lo, hi).image,
                ops::InpaintImplementation::Fast);
            while (!filler->progress().done()) filler->advance(8);
            // The sources' samples moved into the hole, then blended in the data's own values.
            const ops::FillSources sources =
                ops::patchmatch_sources(*ops::patchmatch_field(*filler), hole, params.patch / 2);
            const NativeImage moved = ops::fill_from_sources(*samples, sources);
            const NativeImage blended = ops::blend_samples(moved, hole, sources, {lo, hi});
            QVERIFY(!(blended == moved));  // the blend changed something
            // ...and its corrections kept to the ring's proxy colours (keep-colours).
            NativeImage expected = blended;
            ops::keep_ring_colours(expected, {0, 0, w - 1, h - 1}, blended, *samples, sources,
                                   ops::carving_proxy(*samples, lo, hi).image, hole, {lo, hi});
            qInfo("keep-colours moved %d of the blended samples",
                  count_differing(expected, blended));
            QVERIFY(s.document().samples() == expected);
            QVERIFY(!(s.document().samples() == *samples));
            filled.push_back(s.document().samples());
            // Undo puts the stored samples back exactly.
            QVERIFY(s.undo());
            QVERIFY(s.document().samples() == *samples);
            QVERIFY(s.redo());
            QVERIFY(s.document().samples() == filled.back());
        }
        // The same sources on both; the blend solves the same values and rounds each to its own
        // type, so a 16-bit sample is within half an 8-bit level of 257 × the 8-bit one.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                QVERIFY2(
                    std::abs(filled[1].sample(x, y, 0) - 257 * filled[0].sample(x, y, 0)) <= 128,
                    qPrintable(QString("%1,%2").arg(x).arg(y)));
    }

    // The same checkerboard hole with the per-region choice (the default): the blended
    // PatchMatch fill brings greys the squares around it lack, so the region takes Criminisi,
    // on the 8-bit measurement and its ×257 copy alike. The editor ends with ops::inpaint's
    // samples, every hole sample that of its Criminisi source, and says so.
    void measurement_fill_takes_criminisi_as_a_picture_would() {
        constexpr int w = kBoardW, h = kBoardH;
        const auto [bytes, deep] = checkerboard_measurements();
        std::vector<NativeImage> filled;
        for (const NativeImage* samples : {&bytes, &deep}) {
            session::Session s(false);
            s.open_measurement({*samples}, {});
            s.select(session::ToolKind::RemoveObject);
            s.remove_object().set_brush({14, 1.0, false});
            stroke(*s.active_tool(), {{50, 40}, {70, 48}});
            Mask hole(w, h, 0);
            const Mask& coverage = s.document().mask(MaskLayer::Fill);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
            QVERIFY(s.remove_object().start_fill());
            while (s.remove_object().fill_running()) s.remove_object().step(30.0);
            const std::string said = s.remove_object().message();
            qInfo("%s", said.c_str());
            QVERIFY2(said.find("Criminisi in 1 of 1 region") != std::string::npos, said.c_str());
            const ops::NativeInpaintResult engine = ops::inpaint(
                *samples, hole, s.remove_object().fill_params(), ops::InpaintImplementation::Fast);
            QVERIFY(s.document().samples() == engine.samples);
            // Criminisi's fill of the proxy, as sources: the hole's samples are theirs.
            ops::InpaintParams criminisi;
            criminisi.method = ops::InpaintMethod::Criminisi;
            const auto filler = ops::make_inpainter(ops::carving_proxy(*samples).image.view(), hole,
                                                    criminisi, ops::InpaintImplementation::Fast);
            while (!filler->progress().done()) filler->advance(1 << 20);
            const ops::FillSources sources = ops::criminisi_sources(*filler);
            QVERIFY(ops::fill_from_sources(*samples, sources) == engine.samples);
            filled.push_back(s.document().samples());
        }
        // Copies, not blends: the ×257 copy's samples are exactly 257 × the 8-bit ones.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                QCOMPARE(filled[1].sample(x, y, 0), 257 * filled[0].sample(x, y, 0));
    }

    // keep-colours at the end of the editor's measurement fill, as ops::inpaint of samples
    // keeps them (issue 31 item 2): a 16-bit wall of two tones, off the ×257 grid, its bright
    // side painted never-sample, so that the fill copies the dark side into a hole across the
    // step and the blend ramps it up to the bright border through proxy colours the 16-px ring
    // lacks. The editor's samples equal the engine's, none of those colours is left, and without
    // the stage the engine's fill has hundreds (the choice and the refill off: either would
    // replace the ramp with unblended copies first).
    void measurement_fill_keeps_the_rings_colours_as_the_engine() {
        constexpr int w = 96, h = 64;
        NativeImage wall(w, h, {SampleType::U16, 3});
        const double dark[3] = {90 * 257 + 37, 80 * 257 - 20, 100 * 257 + 11};
        const double bright[3] = {110 * 257 - 50, 100 * 257 + 60, 120 * 257 - 5};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c) wall.set_sample(x, y, c, x < 40 ? dark[c] : bright[c]);
        for (int c = 0; c < 3; ++c) {  // the proxy's range: the type's
            wall.set_sample(0, 0, c, 0);
            wall.set_sample(w - 1, h - 1, c, 65535);
        }
        session::Session s(false);
        s.open_measurement({wall}, {});
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        ops::InpaintParams params = tool.fill_params();
        params.choose = false;
        params.refill_foreign = false;
        QVERIFY(params.keep_colours);
        tool.set_fill_params(params);
        tool.set_brush({12, 1.0, false});
        stroke(tool, {{30, 32}, {50, 32}});
        tool.set_layer(MaskLayer::NeverSample);
        tool.set_brush({33, 1.0, false});
        stroke(tool, {{72, -10}, {72, 74}});
        tool.set_layer(MaskLayer::Fill);
        const Mask never = clone(s.document().mask(MaskLayer::NeverSample).view());
        Mask hole(w, h, 0);
        const Mask& coverage = s.document().mask(MaskLayer::Fill);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) hole.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
        QVERIFY(never.at(40, 32) != 0 && never.at(30, 0) == 0 && hole.at(40, 32) != 0);
        QVERIFY(tool.start_fill());
        while (tool.fill_running()) tool.step(30.0);
        params.never_sample = &never;
        const NativeImage engine =
            ops::inpaint(wall, hole, params, ops::InpaintImplementation::Fast).samples;
        QVERIFY(s.document().samples() == engine);
        ops::InpaintParams off = params;
        off.keep_colours = false;
        const NativeImage plain =
            ops::inpaint(wall, hole, off, ops::InpaintImplementation::Fast).samples;
        // The 5-bit colours of the proxy's known pixels within 16 px of the hole, the slow way.
        const ImageRgba8 proxy = ops::carving_proxy(wall).image;
        const auto bin = [](const Rgba8 p) {
            return ((p.r >> 3) << 10) | ((p.g >> 3) << 5) | (p.b >> 3);
        };
        std::vector<bool> seen(1 << 15, false);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                bool near = false;
                for (int dy = -16; dy <= 16 && !near; ++dy)
                    for (int dx = -16; dx <= 16 && !near; ++dx)
                        near = x + dx >= 0 && y + dy >= 0 && x + dx < w && y + dy < h &&
                               hole.at(x + dx, y + dy) != 0;
                if (near && hole.at(x, y) == 0)
                    seen[static_cast<std::size_t>(bin(proxy.at(x, y)))] = true;
            }
        const auto foreign = [&](const NativeImage& samples) {
            const ImageRgba8 shown = ops::carving_proxy(samples, 0, 65535).image;
            int n = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    n += hole.at(x, y) != 0 && !seen[static_cast<std::size_t>(bin(shown.at(x, y)))];
            return n;
        };
        const int foreign_plain = foreign(plain), foreign_kept = foreign(s.document().samples());
        qInfo("hole pixels with proxy colours the ring lacks: %d without the stage, %d with",
              foreign_plain, foreign_kept);
        QVERIFY2(foreign_plain > 100, qPrintable(QString::number(foreign_plain)));
        QCOMPARE(foreign_kept, 0);
        // Only the hole's samples moved.
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3 && hole.at(x, y) == 0; ++c)
                    QCOMPARE(s.document().samples().sample(x, y, c), wall.sample(x, y, c));
    }

    // Document::write_samples converts only the written rectangle when the finite range is
    // known unchanged, and everything otherwise: after every kind of write (inside the range,
    // removing the only maximum, removing one of two minima, beyond the range, NaN, alpha beyond
    // the colours' range) the proxy and its range are what a rebuild from the samples gives.
    void measurement_proxy_follows_region_writes() {
        for (const PixelFormat format :
             {PixelFormat{SampleType::F32, 1}, PixelFormat{SampleType::U16, 4}}) {
            constexpr int w = 41, h = 27;
            NativeImage field(w, h, format);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    for (int c = 0; c < format.channels; ++c)
                        field.set_sample(x, y, c, c == 3 ? 65535 : 100 + 3 * x + 2 * y + c);
            field.set_sample(w - 1, 0, 0, 100);  // a second minimum, away from (0, 0)
            session::Session s(false);
            s.open_measurement({field}, {1.0, 0.0, "K"});
            session::Document& doc = s.document();
            const auto write = [&](const PixelRect& rect, const auto value, const char* what) {
                NativeImage region(rect.width(), rect.height(), format);
                for (int y = 0; y < rect.height(); ++y)
                    for (int x = 0; x < rect.width(); ++x)
                        for (int c = 0; c < format.channels; ++c)
                            region.set_sample(x, y, c, value(x, y, c));
                doc.write_samples(rect, region);
                const ops::CarvingProxy rebuilt = ops::carving_proxy(doc.samples());
                QVERIFY2(equal_pixels<Rgba8>(doc.pixels().view(), rebuilt.image.view()), what);
                QVERIFY2(doc.proxy_range() == std::make_pair(rebuilt.raw_lo, rebuilt.raw_hi), what);
            };
            const double top = 100 + 3 * (w - 1) + 2 * (h - 1) + (format.channels > 1 ? 2 : 0);
            QCOMPARE(doc.proxy_range().second, top);
            write(
                {10, 5, 19, 12}, [](int x, int y, int) { return 150 + x + y; }, "inside");
            QCOMPARE(doc.proxy_range().second, top);
            write(
                {w - 4, h - 3, w - 1, h - 1}, [](int, int, int) { return 120; },
                "the only maximum removed");
            QVERIFY(doc.proxy_range().second < top);
            write(
                {0, 0, 2, 2}, [](int, int, int) { return 130; }, "one of two minima removed");
            QCOMPARE(doc.proxy_range().first, 100.0);
            write(
                {w - 1, 0, w - 1, 0}, [](int, int, int) { return 101; }, "the last minimum");
            QVERIFY(doc.proxy_range().first > 100.0);
            write(
                {20, 20, 24, 22}, [](int x, int, int) { return 400 + x; }, "beyond the range");
            QCOMPARE(doc.proxy_range().second, 404.0);
            write(
                {3, 3, 6, 6},
                [&](int, int, int c) { return c == 3 ? 9000.0 : 250.0 + (c == 0 ? 0 : 1); },
                "alpha beyond the colours");
            if (format.sample == SampleType::F32) {
                write(
                    {20, 20, 24, 22}, [](int, int, int) { return std::nan(""); },
                    "NaN over the maximum");
                QVERIFY(doc.proxy_range().second < 400.0);
            }
        }
    }

    // The carving proxy stays what a rebuild from the stored samples gives, through a fill
    // that removes the range's highest samples, a retarget, and undo and redo of both (a fill
    // that left its 8-bit vote in the proxy and the old range would make a later rebuild decide
    // on other pixels, so the proxy would depend on the path taken).
    void measurement_proxy_follows_the_samples() {
        constexpr int w = 110, h = 80;
        NativeImage field(w, h, {SampleType::F32, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                field.set_sample(x, y, 0, 20.0 + 5.0 * std::sin(x * 0.3) + 0.07 * y);
        for (int y = 35; y <= 44; ++y)
            for (int x = 50; x <= 60; ++x) field.set_sample(x, y, 0, 400.0);  // the hot spot
        session::Session s(false);
        s.open_measurement({field}, {1.0, 0.0, "K"});
        const auto proxy_follows = [&](const char* when) {
            const ops::CarvingProxy rebuilt = ops::carving_proxy(s.document().samples());
            QVERIFY2(equal_pixels<Rgba8>(s.document().pixels().view(), rebuilt.image.view()), when);
            QVERIFY2(s.document().proxy_range() == std::make_pair(rebuilt.raw_lo, rebuilt.raw_hi),
                     when);
        };
        proxy_follows("opened");
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({16, 1.0, false});
        stroke(*s.active_tool(), {{49, 36}, {61, 43}});
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        QVERIFY(s.document().proxy_range().second < 399.0);  // the hot spot is gone
        proxy_follows("filled");
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(w - 12, h);
        s.retarget().wait();
        QVERIFY(s.retarget().apply());
        proxy_follows("retargeted");
        QVERIFY(s.undo());
        proxy_follows("retarget undone");
        QVERIFY(s.undo());
        proxy_follows("fill undone");
        QVERIFY(s.document().samples() == field);
        QVERIFY(s.redo());
        proxy_follows("fill redone");
        QVERIFY(s.redo());
        proxy_follows("retarget redone");
    }

    void measurement_fill_decides_on_every_bit() {
        // Stripes 96 samples high, under half an 8-bit level of the range: the remove-object
        // fill continues them in phase, which a fill deciding on the 8-bit proxy cannot (it sees
        // a flat area; the engine test measures it). Red if the editor falls back to the proxy.
        const NativeImage stripes = lacuna::test::faint_stripes(96, 64);
        NativeImage with_object = stripes;  // a bright blob on the stripes, to remove
        for (int y = 27; y <= 37; ++y)
            for (int x = 52; x <= 64; ++x) with_object.set_sample(x, y, 0, 52000);
        session::Session s(false);
        s.open_measurement({with_object}, {});
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({12, 1.0, false});
        stroke(*s.active_tool(), {{54, 30}, {62, 34}});
        const Mask coverage = clone(s.document().mask(MaskLayer::Fill).view());
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const Mask hole = ops::prepare_inpaint(ops::carving_proxy(stripes).image.view(), coverage,
                                               s.remove_object().fill_params())
                              .hole;
        QVERIFY(count_selected(hole.view()) > 100);
        QVERIFY(lacuna::test::stripe_error(with_object, hole) > 1000);
        QCOMPARE(lacuna::test::stripe_error(s.document().samples(), hole), 0.0);
        QVERIFY(s.document().samples().format() == stripes.format());
    }

    void editor_numbers_equal_lacuna_histogram() {
        // The same files and line through the editor's session and through `lacuna histogram`
        // (its matrix CSV): every count, and the range, equal. A 16-bit PNG (values as stored)
        // and a FITS-less float TIFF with a NaN.
        QTemporaryDir dir;
        NativeImage deep(83, 47, {SampleType::U16, 1});
        NativeImage field(83, 47, {SampleType::F32, 1});
        for (int y = 0; y < 47; ++y)
            for (int x = 0; x < 83; ++x) {
                deep.set_sample(x, y, 0, (x * 613 + y * 1999 + x * y * 7) % 65536);
                field.set_sample(x, y, 0, 250.0 + 0.75 * x + 0.33 * y + ((x * y) % 11) * 0.1);
            }
        field.set_sample(40, 20, 0, std::numeric_limits<double>::quiet_NaN());
        for (const auto& [name, samples] :
             {std::pair{"deep.png", &deep}, std::pair{"field.tiff", &field}}) {
            const QString path = dir.filePath(name);
            io::write_native(path.toStdString(), *samples);
            io::LoadedNative loaded = io::read_native(path.toStdString());
            session::Session s(false);
            s.open_measurement(std::move(loaded.pages), loaded.calibration);
            s.select(session::ToolKind::LineHistogram);
            s.line().set_band(7);
            s.line().set_bins(128);
            s.line().set_line({2.25, 3.5}, {79.75, 41.0});
            const ops::LineHistogram* h = s.line().result();
            QVERIFY(h != nullptr);
            const QString csv = dir.filePath("counts.csv");
            QProcess cli;
            cli.start(LACUNA_CLI_PATH,
                      {"histogram", path, "--from", "2.25,3.5", "--to", "79.75,41", "--width", "7",
                       "--bins", "128", "--csv", csv, "--backend", "cpu"});
            QVERIFY(cli.waitForFinished(60000));
            QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
            QFile file(csv);
            QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
            int bin = 0;
            bool header = true;
            while (!file.atEnd()) {
                const QString line = QString::fromUtf8(file.readLine()).trimmed();
                if (line.startsWith('#') || line.isEmpty()) continue;
                if (header) {  // channel,bin,bin_lo,bin_hi,p0,p1,…
                    QCOMPARE(line.count(",p"), h->positions);
                    header = false;
                    continue;
                }
                const QStringList cells = line.split(',');
                QCOMPARE(cells[1].toInt(), bin);
                if (bin == 0) QCOMPARE(cells[2].toFloat(), h->range_lo);
                for (int p = 0; p < h->positions; ++p)
                    QCOMPARE(cells[4 + p].toUInt(), h->channels[0].count(bin, p, h->bins));
                ++bin;
            }
            QCOMPARE(bin, 128);
        }
    }

    // The opened file's profile and camera data go into Save As, with Orientation 1 and the
    // size the retarget left. Opening a video forgets them.
    void save_keeps_the_opened_files_metadata() {
        QTemporaryDir dir;
        const std::filesystem::path in = dir.filePath("photo.jpg").toStdString();
        const std::vector<std::uint8_t> icc = test::make_icc_profile("Lacuna Test RGB");
        test::make_test_photo(in, icc);
        io::LoadedImage loaded = io::read_image(in);
        session::Session s(false);
        s.open(std::move(loaded.image), std::move(loaded.metadata));
        QVERIFY(s.metadata().icc == icc);
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(s.document().width() - 8, s.document().height());
        QVERIFY(s.retarget().apply());
        QCOMPARE(s.document().width(), test::kStoredH - 8);  // upright: 32 wide, now 24
        const std::filesystem::path out = dir.filePath("saved.png").toStdString();
        QVERIFY(s.save(out).empty());
        const test::FileMetadata f = test::read_file_metadata(out);
        QVERIFY(f.icc == icc);
        QCOMPARE(f.exif_value("Exif.Image.Make"), test::KnownMetadata{}.make);
        QCOMPARE(f.exif_value("Exif.Image.Orientation"), std::string("1"));
        QCOMPARE(f.exif_value("Exif.Photo.PixelXDimension"), std::string("24"));
        QCOMPARE(f.exif_value("Exif.Photo.PixelYDimension"), std::string("48"));
        QCOMPARE(f.iptc.at("Iptc.Application2.Caption"), test::KnownMetadata{}.caption);
        // A new document from pixels alone carries nothing.
        s.open(clone(photo_.view()));
        QVERIFY(s.metadata().empty());
    }

    // Colour management of the view: a photo with a wide-gamut profile is shown
    // converted to the display's profile; the document keeps its stored values; a display with
    // the image's own profile, or a measurement, shows the values as stored.
    void the_view_converts_the_photos_profile_to_the_displays() {
        if (!renderer_) QSKIP("no EGL context");
        const std::vector<std::uint8_t> wide = test::wide_gamut_profile();
        session::Session s(false);
        io::Metadata metadata;
        metadata.icc = wide;
        s.open(clone(photo_.view()), metadata);
        QCOMPARE(QString::fromStdString(s.colour_conversion()), QString("Test wide RGB → sRGB"));
        const ImageRgba8 shown = test::presented_frame(s, *renderer_);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), photo_.view()));
        int worst = 0, moved = 0;
        for (int y = 0; y < shown.height(); y += 7)
            for (int x = 0; x < shown.width(); x += 5) {
                const Rgba8 c = photo_.at(x, y);
                const auto e = render::convert_for_display(wide, {}, {c.r, c.g, c.b});
                const Rgba8 g = shown.at(x, y);
                worst = std::max(
                    {worst, std::abs(g.r - e[0]), std::abs(g.g - e[1]), std::abs(g.b - e[2])});
                moved += std::abs(g.g - c.g) > 4;
            }
        QVERIFY2(worst <= 3, qPrintable(QString::number(worst)));
        QVERIFY(moved > 0);
        // The display has the image's profile: nothing to convert, exact stored values.
        s.set_display_profile(wide);
        QCOMPARE(QString::fromStdString(s.colour_conversion()), QString());
        QVERIFY(equal_pixels<Rgba8>(test::presented_frame(s, *renderer_).view(), photo_.view()));
        // A broken display profile is refused; the one in use stays.
        std::vector<std::uint8_t> broken = wide;
        broken.resize(40);
        bool refused = false;
        try {
            s.set_display_profile(broken);
        } catch (const Error&) {
            refused = true;
        }
        QVERIFY(refused);
        QVERIFY(s.display_profile() == wide);
        // Back to sRGB; a document without a profile shows its values as stored.
        s.set_display_profile({});
        QVERIFY(!s.colour_conversion().empty());
        s.open(clone(photo_.view()));
        QVERIFY(s.colour_conversion().empty());
        QVERIFY(equal_pixels<Rgba8>(test::presented_frame(s, *renderer_).view(), photo_.view()));
    }

    void video_frames_masks_and_export() {
        // A PNG sequence (lossless): frame f is a texture shifted f pixels, with a bright bar.
        QTemporaryDir dir;
        const std::string pattern = (dir.path() + "/in/%03d.png").toStdString();
        QDir().mkpath(dir.path() + "/in");
        const auto frame_at = [](const int f) {
            ImageRgba8 img(64, 40);
            for (int y = 0; y < 40; ++y)
                for (int x = 0; x < 64; ++x) {
                    const int u = x + f;
                    const auto v = static_cast<std::uint8_t>(
                        100 + 70 * std::sin(u * 0.35) * std::cos(y * 0.25) + (u % 13 < 2 ? 60 : 0));
                    img.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(v / 3 + 30), 200, 255};
                }
            return img;
        };
        {
            io::VideoWriter writer(pattern, 64, 40, 24.0);
            for (int f = 0; f < 12; ++f) writer.write(frame_at(f));
            writer.finish();
        }
        session::Session s(false);
        s.open_video(pattern);
        QVERIFY(s.video() != nullptr);
        QCOMPARE(s.video()->frame_count(), 12);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), frame_at(0).view()));
        // A protect mask painted on one frame stays for the others.
        Mask protect(64, 40, 0);
        for (int y = 0; y < 40; ++y)
            for (int x = 20; x < 26; ++x) protect.at(x, y) = 255;
        s.document().write_mask(MaskLayer::Protect, {0, 0, 63, 39}, protect);
        s.show_video_frame(7);
        QCOMPARE(s.video()->current(), 7);
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), frame_at(7).view()));
        s.show_video_frame(2);  // backwards: reopened and read forward
        QVERIFY(equal_pixels<Rgba8>(s.document().pixels().view(), frame_at(2).view()));
        QVERIFY(equal_pixels<std::uint8_t>(s.document().mask(MaskLayer::Protect).view(),
                                           protect.view()));
        QCOMPARE(s.video()->time_code(2), std::string("00:00.02 · frame 3 of 12"));
        s.show_video_frame(100);  // clamped
        QCOMPARE(s.video()->current(), 11);
        // The retarget panel's target decides the export; the preview follows the frame.
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(48, 40);
        s.retarget().wait();
        QCOMPARE(s.shown_width(), 48);
        const std::string out = (dir.path() + "/out/%03d.png").toStdString();
        QDir().mkpath(dir.path() + "/out");
        int reported = 0;
        const video::RetargetVideoResult r = s.export_video(out, 1.0, [&](const auto& p) {
            reported = p.frame;
            return true;
        });
        QCOMPARE(r.frames, 12);
        QCOMPARE(reported, 12);
        QCOMPARE(r.out_width, 48);
        // The exported frames are what the video carver gives with the same settings.
        ops::VideoRetargetParams p;
        p.width = 48;
        p.height = 40;
        p.energy = s.retarget().energy();
        p.temporal = 1.0;
        p.protect = &protect;
        ops::VideoRetargeter carver(64, 40, p, ops::CarveImplementation::Fast);
        io::VideoReader written(out);
        for (int f = 0; f < 12; ++f) {
            const ImageRgba8 expected = carver.process(frame_at(f).view());
            QVERIFY2(equal_pixels<Rgba8>(expected.view(), written.next()->view()),
                     qPrintable(QString::number(f)));
        }
        // Approximate seams for real time: the same as the carver with that factor.
        const std::string fast = (dir.path() + "/fast/%03d.png").toStdString();
        QDir().mkpath(dir.path() + "/fast");
        QCOMPARE(s.export_video(fast, 1.0, {}, 2).frames, 12);
        p.approximate = 2;
        ops::VideoRetargeter approximate(64, 40, p, ops::CarveImplementation::Fast);
        io::VideoReader fast_frames(fast);
        for (int f = 0; f < 12; ++f) {
            const ImageRgba8 expected = approximate.process(frame_at(f).view());
            QVERIFY(equal_pixels<Rgba8>(expected.view(), fast_frames.next()->view()));
        }
        // The other temporal term: the same as the carver with that term.
        const std::string removed = (dir.path() + "/removed/%03d.png").toStdString();
        QDir().mkpath(dir.path() + "/removed");
        QCOMPARE(s.prepare_video_export(removed, 1.0, 1, ops::TemporalTerm::RemovedPixels)
                     .options.params.term,
                 ops::TemporalTerm::RemovedPixels);
        QCOMPARE(s.export_video(removed, 1.0, {}, 1, ops::TemporalTerm::RemovedPixels).frames, 12);
        p.approximate = 1;
        p.term = ops::TemporalTerm::RemovedPixels;
        ops::VideoRetargeter by_removed(64, 40, p, ops::CarveImplementation::Fast);
        io::VideoReader removed_frames(removed);
        for (int f = 0; f < 12; ++f) {
            const ImageRgba8 expected = by_removed.process(frame_at(f).view());
            QVERIFY(equal_pixels<Rgba8>(expected.view(), removed_frames.next()->view()));
        }
        // Importance: the Retarget panel's terms and weights; faces only with the export's
        // switch (the face pass is slow), tracked over the clip (these frames have none: the
        // export still equals the carver's frames).
        ops::RetargetMix mix;
        mix.importance.face_weight = 40;
        mix.importance.skin = true;
        s.retarget().set_mix(mix);
        s.retarget().wait();
        const session::Session::VideoExport plain_job = s.prepare_video_export(removed, 1.0);
        QVERIFY(!plain_job.options.importance.faces);
        QVERIFY(plain_job.options.importance.skin);
        // Skin (saliency, lines) smoothed along the motion as the CLI's default does.
        QCOMPARE(plain_job.options.params.importance_window,
                 ops::VideoRetargetParams{}.importance_window);
        QVERIFY(plain_job.options.params.importance_window > 1);
        const session::Session::VideoExport faces_job =
            s.prepare_video_export(removed, 1.0, 1, ops::TemporalTerm::PerSeam, true);
        QVERIFY(faces_job.options.importance.faces);
        QCOMPARE(faces_job.options.importance.face_weight, 40);
        QCOMPARE(faces_job.options.params.importance_unit, ops::importance_unit(p.energy));
        s.retarget().set_mix(ops::RetargetMix{});
        s.retarget().wait();
        const std::string tracked = (dir.path() + "/tracked/%03d.png").toStdString();
        QDir().mkpath(dir.path() + "/tracked");
        const video::RetargetVideoResult faced =
            s.export_video(tracked, 1.0, {}, 1, ops::TemporalTerm::PerSeam, true);
        QCOMPARE(faced.frames, 12);
        QCOMPARE(faced.importance_terms, std::vector<std::string>{"faces"});
        QCOMPARE(faced.face_tracks, 0);
        QCOMPARE(faced.faces_examined_frames, 6);
        // Cancel: an error, and no file under the name.
        const std::string cancelled = (dir.path() + "/cancelled.mp4").toStdString();
        try {
            (void)s.export_video(cancelled, 1.0, [](const auto& p) { return p.frame < 3; });
            QFAIL("cancel must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QVERIFY(!QFile::exists(QString::fromStdString(cancelled)));
        // Opening a photo leaves video mode.
        s.open(frame_at(0));
        QVERIFY(s.video() == nullptr);
    }

    void measurement_retarget_decides_on_every_bit() {
        // A ramp 120 samples high on a 16-bit background under hot columns that set the range:
        // flat at 8 bits (the 8-bit proxy's leftmost tie-break would carve it first), visible to
        // the 16-bit decision image, so the editor's retarget carves the background instead.
        constexpr int w = 24, h = 9;
        NativeImage field(w, h, {SampleType::U16, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                field.set_sample(x, y, 0,
                                 x >= 2 && x <= 5 ? 1000 + 30 * (x - 1) : (x >= 22 ? 65535 : 1000));
        session::Session s(false);
        s.open_measurement({field}, {1.0, 0.0, "counts"});
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(w - 6, h - 2);
        s.retarget().wait();
        QVERIFY2(s.retarget().apply(), s.retarget().status().c_str());
        const NativeImage& out = s.document().samples();
        QCOMPARE(out.width(), w - 6);
        QCOMPARE(out.height(), h - 2);
        for (int y = 0; y < h - 2; ++y) {
            QList<double> row;
            for (int x = 0; x < w - 6; ++x) row.append(out.sample(x, y, 0));
            for (const double ramp : {1030.0, 1060.0, 1090.0, 1120.0})
                QVERIFY2(row.contains(ramp),
                         qPrintable(QString("row %1 lost %2").arg(y).arg(ramp)));
        }
        // What the 8-bit proxy would have done: the ramp goes with the first seams.
        const ops::CarvingProxy coarse = ops::carving_proxy(field);
        const ops::SeamOrder eight =
            ops::seam_order_fast({coarse.image.view(), nullptr, nullptr, SeamEnergy::Forward},
                                 ops::SeamDirection::Vertical, 6);
        QVERIFY(eight.order.at(3, 0) < 6);
    }

    void measurement_retarget_moves_the_stored_samples() {
        // An 8-bit grey measurement and its exact ×257 16-bit copy: the seams are found on the
        // same decision image, so both lose the same pixels, and the stored samples move
        // unconverted: the 16-bit result is exactly 257 × the 8-bit one.
        constexpr int w = 97, h = 61;
        NativeImage bytes(w, h, {SampleType::U8, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                bytes.set_sample(x, y, 0,
                                 (x * 7 + y * 3 + ((x - 40) * (x - 40) + y * y) / 50) % 256);
        NativeImage deep = convert(bytes, {SampleType::U16, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) deep.set_sample(x, y, 0, 257 * bytes.sample(x, y, 0));
        std::vector<NativeImage> results;
        for (const NativeImage* samples : {&bytes, &deep}) {
            session::Session s(false);
            s.open_measurement({*samples}, {1.0, 0.0, "K"});
            s.select(session::ToolKind::Retarget);
            s.retarget().wait();
            s.retarget().set_target(w - 20, h);
            QVERIFY(s.showing_preview());
            if (renderer_) {
                // The preview is proxy pixels shown through the proxy's calibration: what is
                // presented equals the CPU reference of it.
                const ImageRgba8 frame = test::presented_frame(s, *renderer_);
                const ImageRgba8 shown = s.shown_image();
                QCOMPARE(frame.width(), w - 20);
                int worst = 0;
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w - 20; ++x)
                        worst = std::max({worst, std::abs(frame.at(x, y).r - shown.at(x, y).r),
                                          std::abs(frame.at(x, y).g - shown.at(x, y).g)});
                QVERIFY2(worst <= 3, qPrintable(QString("preview differs by %1").arg(worst)));
            }
            QVERIFY2(s.retarget().apply(), s.retarget().status().c_str());
            QVERIFY(s.document().measurement());
            QVERIFY(s.document().format() == samples->format());
            QCOMPARE(s.document().width(), w - 20);
            // The seams are those of the 16-bit decision image, applied to the samples.
            const ops::DeepCarvingProxy proxy = ops::deep_carving_proxy(*samples);
            const ops::SeamOrder order = ops::seam_order_fast(
                ops::DeepCarveInput{proxy.image.view(), nullptr, nullptr, SeamEnergy::Forward},
                ops::SeamDirection::Vertical, 20);
            QVERIFY(s.document().samples() == ops::remove_seams(*samples, order, 20));
            results.push_back(s.document().samples());
            // Undo puts the stored samples back exactly; redo carves them again.
            QVERIFY(s.undo());
            QVERIFY(s.document().samples() == *samples);
            QVERIFY(s.redo());
            QVERIFY(s.document().samples() == results.back());
        }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w - 20; ++x)
                QCOMPARE(results[1].sample(x, y, 0), 257 * results[0].sample(x, y, 0));
        // Enlarging averages in the stored type: float stays float, NaN stays NaN.
        NativeImage field(41, 23, {SampleType::F32, 1});
        for (int y = 0; y < 23; ++y)
            for (int x = 0; x < 41; ++x) field.set_sample(x, y, 0, 300.0 + 0.37 * x - 0.11 * y);
        field.set_sample(10, 10, 0, std::numeric_limits<double>::quiet_NaN());
        session::Session s(false);
        s.open_measurement({field}, {1.0, 0.0, "K"});
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(41 + 6, 23);
        QVERIFY(s.retarget().apply());
        QCOMPARE(s.document().width(), 47);
        QVERIFY(s.document().format() == (PixelFormat{SampleType::F32, 1}));
        int nans = 0;
        for (int y = 0; y < 23; ++y)
            for (int x = 0; x < 47; ++x) nans += std::isnan(s.document().samples().sample(x, y, 0));
        QVERIFY(nans >= 1 && nans <= 3);  // the NaN, and any average that includes it
    }

    void measurement_display_and_stacks() {
        // Float pages with a NaN: auto-contrast window, LUT, and what is presented.
        std::vector<NativeImage> pages;
        for (int k = 0; k < 3; ++k) {
            NativeImage page(41, 29, {SampleType::F32, 1});
            for (int y = 0; y < 29; ++y)
                for (int x = 0; x < 41; ++x) page.set_sample(x, y, 0, 290.0 + k * 10 + x * 0.25);
            page.set_sample(4, 4, 0, std::numeric_limits<double>::quiet_NaN());
            pages.push_back(std::move(page));
        }
        session::Session s(false);
        s.open_measurement(pages, {1.0, 0.0, "K"});
        QCOMPARE(s.page_count(), 3);
        const ImageF32 first = measurement_plane(pages[0]);
        const auto [lo, hi] = auto_window(first.view());
        QCOMPARE(s.display().window, (DisplayWindow{lo, hi}));
        s.set_lut(Lut::Inferno);
        const ImageRgba8 shown_now = s.shown_image();
        const ImageRgba8 reference =
            render_display(pages[0], {1.0, 0.0, "K"}, {lo, hi}, Lut::Inferno);
        QVERIFY(equal_pixels(shown_now.view(), reference.view()));
        QVERIFY(s.shown_image().at(4, 4) == kNanColour);
        if (renderer_) {
            const ImageRgba8 frame = test::presented_frame(s, *renderer_);
            const ImageRgba8 shown = s.shown_image();
            int worst = 0;
            for (int y = 0; y < shown.height(); ++y)
                for (int x = 0; x < shown.width(); ++x)
                    worst = std::max({worst, std::abs(frame.at(x, y).r - shown.at(x, y).r),
                                      std::abs(frame.at(x, y).g - shown.at(x, y).g),
                                      std::abs(frame.at(x, y).b - shown.at(x, y).b)});
            QVERIFY2(worst <= 3, qPrintable(QString("presented differs by %1").arg(worst)));
        }
        // The page slider: the readout and the histogram follow the page.
        s.select(session::ToolKind::LineHistogram);
        s.line().set_line({0, 10}, {40, 10});
        const float mean_page0 = s.line().result()->channels[0].mean[0];
        s.show_page(2);
        QCOMPARE(s.page(), 2);
        QCOMPARE(s.readout(0.5, 0.5)->value, 310.0);
        QCOMPARE(s.line().result()->channels[0].mean[0], mean_page0 + 20.0f);
        // A fill edits the page on show and survives flipping pages; a retarget closes the
        // stack's other pages (they keep the original size), with a notice.
        s.select(session::ToolKind::RemoveObject);
        s.remove_object().set_brush({8, 1.0, false});
        stroke(*s.active_tool(), {{20, 14}, {24, 16}});
        QVERIFY(s.remove_object().start_fill());
        while (s.remove_object().fill_running()) s.remove_object().step(30.0);
        const NativeImage filled = s.document().samples();
        QVERIFY(!(filled == pages[2]));
        s.show_page(0);
        QVERIFY(s.document().samples() == pages[0]);
        s.show_page(2);
        QVERIFY(s.document().samples() == filled);
        s.select(session::ToolKind::Retarget);
        s.retarget().wait();
        s.retarget().set_target(35, 29);
        QVERIFY(s.retarget().apply());
        QCOMPARE(s.page_count(), 1);
        QCOMPARE(s.document().width(), 35);
        bool said = false;
        for (const std::string& n : s.take_notices())
            said = said || n.find("closed") != std::string::npos;
        QVERIFY(said);
        s.show_page(1);  // nothing to show: no exception, nothing changes
        QCOMPARE(s.document().width(), 35);
        // A typed calibration keeps the window on the same samples.
        const DisplayWindow before = s.display().window;
        s.set_calibration({1.0, -273.15, "degC"});
        QVERIFY(std::abs(s.display().window.lo - (before.lo - 273.15)) < 1e-9);
        QCOMPARE(s.readout(0.5, 0.5)->unit, std::string("degC"));
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
