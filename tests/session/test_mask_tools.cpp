// The Remove Object tool's mask tools, headless: grow and shrink, box and scribble selection by
// GrabCut,
// loading and saving a mask file. Each is one undoable edit whose mask is checked pixel by pixel.
// And how a fill shows itself: every coarse PatchMatch level, untinted.
#include <grabcut.hpp>
#include <remove_object_tool.hpp>
#include <session.hpp>

#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <opencv2/core.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace lacuna;
using session::MaskLayer;
using session::Pointer;

namespace {

constexpr int kW = 200;
constexpr int kH = 160;
constexpr double kDiscX = 96.5, kDiscY = 78.5, kDiscR = 32;

bool in_disc(const int x, const int y) {
    return std::hypot(x - kDiscX, y - kDiscY) <= kDiscR;
}

/// A dark disc on a light background textured with stripes, blotches and a fixed pseudo-random
/// grain (a wall, not a flat colour GrabCut would separate trivially).
ImageRgba8 disc_photo() {
    ImageRgba8 image(kW, kH);
    std::uint32_t state = 12345;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            state = state * 1664525u + 1013904223u;
            const int grain = static_cast<int>(state >> 27) - 16;  // −16..15
            if (in_disc(x, y)) {
                const auto v = static_cast<std::uint8_t>(45 + grain / 2 + (x % 7));
                image.at(x, y) = {v, static_cast<std::uint8_t>(v + 5),
                                  static_cast<std::uint8_t>(v + 12), 255};
            } else {
                const int stripe = ((x + 2 * y) / 6) % 2 == 0 ? 25 : 0;
                const int blotch = static_cast<int>(20 * std::sin(x * 0.11) * std::cos(y * 0.07));
                const auto v = static_cast<std::uint8_t>(190 + grain + stripe + blotch);
                image.at(x, y) = {v, static_cast<std::uint8_t>(v - 10),
                                  static_cast<std::uint8_t>(v - 30), 255};
            }
        }
    return image;
}

void stroke(session::Tool& tool, const std::vector<std::pair<double, double>>& points) {
    tool.press(Pointer{points[0].first, points[0].second});
    for (std::size_t i = 1; i < points.size(); ++i)
        tool.move(Pointer{points[i].first, points[i].second});
    tool.release(Pointer{points.back().first, points.back().second});
}

Mask binarised(const Mask& coverage) {
    Mask out(coverage.width(), coverage.height(), 0);
    for (int y = 0; y < coverage.height(); ++y)
        for (int x = 0; x < coverage.width(); ++x)
            out.at(x, y) = coverage.at(x, y) >= 128 ? 255 : 0;
    return out;
}

/// disc_photo with a second, smaller dark disc down and to the right, apart from the first: the
/// same colours, another object.
constexpr double kSecondX = 152.5, kSecondY = 128.5, kSecondR = 14;
bool in_second(const int x, const int y) {
    return std::hypot(x - kSecondX, y - kSecondY) <= kSecondR;
}
ImageRgba8 two_disc_photo() {
    ImageRgba8 image = disc_photo();
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            if (in_second(x, y)) image.at(x, y) = image.at(x - 56, y - 50);  // the first's pixels
    return image;
}

/// Shares of the first disc and of the background (second disc excluded) that `mask` takes,
/// and the share of the second disc.
struct Coverage {
    double disc = 0, background = 0, second = 0;
};
Coverage coverage_of(const Mask& mask) {
    std::int64_t n[3] = {0, 0, 0}, hit[3] = {0, 0, 0};
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const int k = in_disc(x, y) ? 0 : in_second(x, y) ? 2 : 1;
            ++n[k];
            hit[k] += mask.at(x, y) != 0;
        }
    return {static_cast<double>(hit[0]) / n[0], static_cast<double>(hit[1]) / n[1],
            static_cast<double>(hit[2]) / n[2]};
}

bool same(const Mask& a, const Mask& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            if (a.at(x, y) != b.at(x, y)) return false;
    return true;
}

}  // namespace

class TestMaskTools : public QObject {
    Q_OBJECT

  private slots:
    void grabcut_finds_a_dark_disc_on_texture() {
        const ImageRgba8 photo = disc_photo();
        const PixelRect box{52, 34, 141, 123};  // the disc and a dozen pixels around it
        const Mask mask = session::grabcut_mask(photo.view(), box);
        QCOMPARE(mask.width(), kW);
        QCOMPARE(mask.height(), kH);
        std::int64_t disc = 0, disc_hit = 0, background = 0, background_hit = 0;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool hit = mask.at(x, y) != 0;
                QVERIFY(mask.at(x, y) == 0 || mask.at(x, y) == 255);
                if (in_disc(x, y)) {
                    ++disc;
                    disc_hit += hit;
                } else {
                    ++background;
                    background_hit += hit;
                    // Nothing outside the box, ever.
                    if (x < box.x0 || x > box.x1 || y < box.y0 || y > box.y1) QVERIFY(!hit);
                }
            }
        const double disc_share = static_cast<double>(disc_hit) / disc;
        const double background_share = static_cast<double>(background_hit) / background;
        qInfo("disc covered %.4f, background taken %.4f", disc_share, background_share);
        QVERIFY(disc_share >= 0.90);
        QVERIFY(background_share < 0.05);
    }

    void grabcut_refuses_bad_boxes_in_one_line() {
        const ImageRgba8 photo = disc_photo();
        for (const PixelRect box : {PixelRect{10, 10, 11, 40}, PixelRect{-5, -5, kW + 5, kH + 5},
                                    PixelRect{kW + 10, 0, kW + 40, 30}}) {
            try {
                (void)session::grabcut_mask(photo.view(), box);
                QFAIL("a bad box was accepted");
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::InvalidArgument);
                QVERIFY(std::string(e.what()).find('\n') == std::string::npos);
            }
        }
    }

    void grabcut_scribble_finds_the_disc_under_a_stroke_and_not_its_twin() {
        const ImageRgba8 photo = two_disc_photo();
        // A cross over the disc's middle, 5 px wide, far from its outline. GrabCut's window
        // (the cross's box grown by its longer side) holds the twin.
        Mask seeds(kW, kH, 0);
        for (int y = 76; y <= 80; ++y)
            for (int x = 72; x <= 121; ++x) seeds.at(x, y) = 255;
        for (int y = 55; y <= 102; ++y)
            for (int x = 94; x <= 98; ++x) seeds.at(x, y) = 255;
        const Mask mask = session::grabcut_scribble_mask(photo.view(), seeds.view());
        QCOMPARE(mask.width(), kW);
        QCOMPARE(mask.height(), kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) QVERIFY(mask.at(x, y) == 0 || mask.at(x, y) == 255);
        const Coverage c = coverage_of(mask);
        qInfo("disc covered %.4f, background taken %.4f, second disc %.4f", c.disc, c.background,
              c.second);
        QVERIFY(c.disc >= 0.90);
        QVERIFY(c.background < 0.05);
        // The twin lies inside GrabCut's window and has the disc's colours, but no stroke
        // touches it.
        QCOMPARE(c.second, 0.0);
    }

    void grabcut_proposals_do_not_depend_on_opencvs_generator() {
        // GrabCut's k-means draws from OpenCV's per-thread generator: the same box or strokes
        // must propose the same mask whatever drew from it before, and leave it as it was.
        const ImageRgba8 photo = two_disc_photo();
        const PixelRect box{52, 34, 141, 123};
        Mask seeds(kW, kH, 0);
        for (int x = 72; x <= 121; ++x) seeds.at(x, 78) = 255;
        cv::theRNG() = cv::RNG(1);
        const Mask box_a = session::grabcut_mask(photo.view(), box);
        const Mask scribble_a = session::grabcut_scribble_mask(photo.view(), seeds.view());
        cv::theRNG() = cv::RNG(987654321);
        for (int i = 0; i < 1000; ++i) (void)cv::theRNG().next();
        const std::uint64_t state = cv::theRNG().state;
        const Mask scribble_b = session::grabcut_scribble_mask(photo.view(), seeds.view());
        const Mask box_b = session::grabcut_mask(photo.view(), box);
        QVERIFY(same(box_a, box_b));
        QVERIFY(same(scribble_a, scribble_b));
        QCOMPARE(cv::theRNG().state, state);
    }

    void grabcut_scribble_refuses_bad_seeds_in_one_line() {
        const ImageRgba8 photo = disc_photo();
        const Mask none(kW, kH, 0);
        const Mask all(kW, kH, 255);
        const Mask small(10, 10, 255);
        for (const Mask* seeds : {&none, &all, &small}) {
            try {
                (void)session::grabcut_scribble_mask(photo.view(), seeds->view());
                QFAIL("bad seeds were accepted");
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::InvalidArgument);
                QVERIFY(std::string(e.what()).find('\n') == std::string::npos);
            }
        }
    }

    void scribble_drag_proposes_the_object_as_one_undoable_edit() {
        session::Session s(false);
        s.open(two_disc_photo());
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        tool.set_brush({3, 1.0, false});
        tool.set_scribble_mode(true);
        QVERIFY(tool.overlay().brush_ring);  // the strokes' width shows
        tool.press(Pointer{80.5, 70.5});
        tool.move(Pointer{100.5, 90.5});
        // The strokes show while drawn; the mask is not touched yet.
        QCOMPARE(tool.overlay().scribble.size(), std::size_t{2});
        QCOMPARE(tool.overlay().scribble_radius, 3.0);
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
        tool.release(Pointer{112.5, 74.5});
        QVERIFY(tool.overlay().scribble.empty());
        QCOMPARE(s.history().count(), 1);
        QCOMPARE(s.history().undo_label(), std::string("Scribble Select"));
        const Mask& proposed = s.document().mask(MaskLayer::Fill);
        const Coverage c = coverage_of(proposed);
        qInfo("disc covered %.4f, background taken %.4f, second disc %.4f", c.disc, c.background,
              c.second);
        QCOMPARE(c.disc, 1.0);  // the object and its rim (kBoxMargin)
        QVERIFY(c.background < 0.06);
        QCOMPARE(c.second, 0.0);
        // The rim: kBoxMargin pixels beyond the disc's outline on its left.
        QCOMPARE(proposed.at(static_cast<int>(kDiscX - kDiscR) - 2, static_cast<int>(kDiscY)),
                 std::uint8_t{255});

        // A second scribble on the twin adds it: both objects are filled in one go.
        stroke(tool, {{148, 128}, {157, 129}});
        QCOMPARE(s.history().count(), 2);
        const Coverage both = coverage_of(s.document().mask(MaskLayer::Fill));
        QCOMPARE(both.disc, 1.0);
        QVERIFY(both.second >= 0.95);
        QVERIFY(s.undo());
        QVERIFY(s.undo());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});

        // Strokes wholly outside the picture: refused in one line, nothing changed.
        tool.press(Pointer{-50, -50});
        tool.release(Pointer{-40, -45});
        QCOMPARE(s.history().index(), 0);
        QVERIFY(tool.message().find("Scribble") != std::string::npos);
    }

    void grow_and_shrink_are_one_undoable_edit() {
        session::Session s(false);
        s.open(disc_photo());
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        tool.set_brush({10, 0.5, false});  // soft: coverage below ½ at the edge must not count
        stroke(tool, {{60, 60}, {120, 70}, {130, 110}});
        const Mask painted = clone(s.document().mask(MaskLayer::Fill).view());
        QCOMPARE(s.history().count(), 1);

        QVERIFY(tool.grow_mask(5));
        QCOMPARE(s.history().count(), 2);
        QCOMPARE(s.history().undo_label(), std::string("Grow Mask by 5 px"));
        const Mask grown = grow_mask(binarised(painted).view(), 5);
        QVERIFY(same(s.document().mask(MaskLayer::Fill), grown));
        QVERIFY(count_selected(grown.view()) > count_selected(binarised(painted).view()));
        // 10 px left of the stroke's start: past its half-coverage edge (about 7 px), inside +5.
        QCOMPARE(s.document().mask(MaskLayer::Fill).at(60 - 5 - 5, 60), std::uint8_t{255});

        QVERIFY(tool.grow_mask(-3));
        QCOMPARE(s.history().undo_label(), std::string("Shrink Mask by 3 px"));
        QVERIFY(same(s.document().mask(MaskLayer::Fill), grow_mask(grown.view(), -3)));

        QVERIFY(s.undo());
        QVERIFY(same(s.document().mask(MaskLayer::Fill), grown));
        QVERIFY(s.undo());
        QVERIFY(same(s.document().mask(MaskLayer::Fill), painted));

        QVERIFY(!tool.grow_mask(0));
        QVERIFY(!tool.grow_mask(ops::kMaxMaskGrow + 1));
        QCOMPARE(s.history().index(), 1);
        tool.clear_mask();
        QVERIFY(!tool.grow_mask(4));
        QVERIFY(tool.message().find("Nothing to grow") != std::string::npos);
    }

    void box_drag_proposes_grabcuts_mask_that_the_brush_refines() {
        session::Session s(false);
        const ImageRgba8 photo = disc_photo();
        s.open(clone(photo.view()));
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        tool.set_box_mode(true);
        QVERIFY(!tool.overlay().brush_ring);
        tool.press(Pointer{141.6, 123.2});  // from the lower right corner up and left
        tool.move(Pointer{100, 90});
        QVERIFY(tool.overlay().box.has_value());
        tool.move(Pointer{52.3, 34.9});
        QCOMPARE(*tool.overlay().box, (PixelRect{52, 34, 141, 123}));
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
        tool.release(Pointer{52.3, 34.9});
        QVERIFY(!tool.overlay().box.has_value());
        QCOMPARE(s.history().count(), 1);
        QCOMPARE(s.history().undo_label(), std::string("Box Select"));
        // GrabCut's object and its rim (kBoxMargin).
        const Mask proposed =
            grow_mask(session::grabcut_mask(photo.view(), {52, 34, 141, 123}).view(),
                      session::RemoveObjectTool::kBoxMargin);
        QVERIFY(same(s.document().mask(MaskLayer::Fill), proposed));

        // The brush adds to the proposal, the eraser takes from it; each its own edit.
        tool.set_box_mode(false);
        tool.set_brush({6, 1.0, false});
        stroke(tool, {{20, 20}, {30, 20}});
        QVERIFY(s.document().mask(MaskLayer::Fill).at(25, 20) != 0);
        tool.set_erase(true);
        stroke(tool, {{96, 78}, {100, 78}});
        QCOMPARE(s.document().mask(MaskLayer::Fill).at(98, 78), std::uint8_t{0});
        QCOMPARE(s.history().count(), 3);
        QVERIFY(s.undo());
        QVERIFY(s.undo());
        QVERIFY(same(s.document().mask(MaskLayer::Fill), proposed));
        QVERIFY(s.undo());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});

        // A click without a drag is refused in one line and changes nothing.
        tool.set_box_mode(true);
        tool.press(Pointer{40, 40});
        tool.release(Pointer{40.5, 40.5});
        QCOMPARE(s.history().index(), 0);
        QVERIFY(tool.message().find("3 × 3") != std::string::npos);
    }

    void a_box_where_grabcut_finds_nothing_selects_the_box() {
        // building.jpg's distant water tower: sky and trees inside the box and around it, so
        // GrabCut labels the whole box background. The drag must not end in nothing.
        const ImageRgba8 photo = io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) /
                                                "tests/data/photos/building.jpg")
                                     .image;
        const PixelRect box{49, 320, 134, 393};
        QCOMPARE(count_selected(session::grabcut_mask(photo.view(), box).view()), std::int64_t{0});
        session::Session s(false);
        s.open(clone(photo.view()));
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        tool.set_box_mode(true);
        (void)s.take_notices();
        tool.press(Pointer{49.5, 320.5});
        tool.move(Pointer{100, 350});
        tool.release(Pointer{134.5, 393.5});
        QCOMPARE(s.history().count(), 1);
        QCOMPARE(s.history().undo_label(), std::string("Box Select"));
        const Mask& selected = s.document().mask(MaskLayer::Fill);
        QCOMPARE(count_selected(selected.view()),
                 std::int64_t{box.width()} * std::int64_t{box.height()});
        QCOMPARE(selected.at(box.x0, box.y0), std::uint8_t{255});
        QCOMPARE(selected.at(box.x1, box.y1), std::uint8_t{255});
        QCOMPARE(selected.at(box.x0 - 1, box.y0), std::uint8_t{0});
        QCOMPARE(selected.at(box.x1 + 1, box.y1), std::uint8_t{0});
        const std::vector<std::string> notices = s.take_notices();
        QCOMPARE(notices.size(), std::size_t{1});
        QVERIFY(notices.front().find("whole box is selected") != std::string::npos);
        QVERIFY(s.undo());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});
    }

    void masks_save_and_load_as_white_on_black_png() {
        QTemporaryDir dir;
        session::Session s(false);
        s.open(disc_photo());
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        tool.set_brush({8, 0.5, false});
        stroke(tool, {{40, 40}, {150, 120}});
        const Mask painted = binarised(s.document().mask(MaskLayer::Fill));
        const std::string path = dir.filePath("mask.png").toStdString();
        QVERIFY(tool.save_mask(path));
        const io::LoadedImage written = io::read_image(path);
        QCOMPARE(written.image.width(), kW);
        QCOMPARE(written.image.height(), kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const Rgba8 p = written.image.at(x, y);
                QCOMPARE(p.r, painted.at(x, y));
                QCOMPARE(p.g, painted.at(x, y));
            }

        tool.clear_mask();
        const int before = s.history().index();
        QVERIFY(tool.load_mask(path));
        QCOMPARE(s.history().index(), before + 1);
        QCOMPARE(s.history().undo_label(), std::string("Load Mask"));
        QVERIFY(same(s.document().mask(MaskLayer::Fill), painted));
        QVERIFY(s.undo());
        QCOMPARE(count_selected(s.document().mask(MaskLayer::Fill).view()), std::int64_t{0});

        // Wrong size, missing file: one line each, nothing changed.
        ImageRgba8 small(10, 12);
        (void)io::write_image(dir.filePath("small.png").toStdString(), small.view());
        QVERIFY(!tool.load_mask(dir.filePath("small.png").toStdString()));
        QCOMPARE(tool.message(),
                 std::string("Mask small.png is 10 × 12 pixels; the picture is 200 × 160."));
        QVERIFY(!tool.load_mask(dir.filePath("missing.png").toStdString()));
        QVERIFY(!tool.message().empty());
        QVERIFY(tool.message().find('\n') == std::string::npos);
        QCOMPARE(s.history().index(), before);
        // An unwritable place: refused, the file is not left half written.
        QVERIFY(!tool.save_mask(dir.filePath("no/such/dir/mask.png").toStdString()));
        QVERIFY(!tool.message().empty());
    }

    void a_fill_shows_every_coarse_level_untinted() {
        session::Session s(false);
        const ImageRgba8 photo = disc_photo();
        s.open(clone(photo.view()));
        s.select(session::ToolKind::RemoveObject);
        session::RemoveObjectTool& tool = s.remove_object();
        ops::InpaintParams params;
        params.method = ops::InpaintMethod::PatchMatch;
        params.seed = 3;
        tool.set_fill_params(params);
        tool.set_brush({12, 1.0, false});
        stroke(tool, {{80, 70}, {110, 70}, {110, 90}});
        const Mask hole = binarised(s.document().mask(MaskLayer::Fill));
        QVERIFY(tool.overlay().mask_layer.has_value());
        QVERIFY(tool.start_fill());
        // The hole is not tinted while it fills: what is computed shows.
        QVERIFY(!tool.overlay().mask_layer.has_value());
        QCOMPARE(tool.shown_level(), -1);
        std::vector<int> shown;
        while (tool.fill_running()) {
            // A budget no batch reaches: only the end of a level ends a step.
            tool.step(1e9);
            if (!tool.fill_running()) break;
            shown.push_back(tool.shown_level());
            // The canvas's picture (the document while filling) holds that level's estimate in
            // the hole: not the object any more, and not a flat colour.
            std::int64_t changed = 0, in_hole = 0;
            int lo = 255, hi = 0;
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x) {
                    if (hole.at(x, y) == 0) continue;
                    ++in_hole;
                    const Rgba8 p = s.document().pixels().at(x, y);
                    changed += p != photo.at(x, y);
                    lo = std::min<int>(lo, p.g);
                    hi = std::max<int>(hi, p.g);
                }
            QVERIFY2(changed > in_hole * 9 / 10,
                     qPrintable(QString("%1 of %2").arg(changed).arg(in_hole)));
            QVERIFY2(hi - lo > 10, qPrintable(QString("flat: %1..%2").arg(lo).arg(hi)));
        }
        // 200 × 160: levels 2 (40 px short side), 1, then full size; one step each coarse one.
        QCOMPARE(shown, (std::vector<int>{2, 1}));
        QCOMPARE(tool.shown_level(), -1);
        QVERIFY(tool.overlay().mask_layer.has_value());
        // Shown in steps, filled as in one go: the engine's bytes.
        params.never_sample = nullptr;
        const ops::InpaintResult once =
            ops::inpaint(photo.view(), hole, params, ops::InpaintImplementation::Fast);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                if (s.document().pixels().at(x, y) != once.image.at(x, y))
                    QFAIL(qPrintable(
                        QString("pixel (%1, %2) differs from the engine's").arg(x).arg(y)));
    }
};

QTEST_GUILESS_MAIN(TestMaskTools)
#include "test_mask_tools.moc"
