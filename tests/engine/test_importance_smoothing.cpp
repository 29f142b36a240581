// Saliency, lines and skin over a video (video/importance_smoothing.hpp): a per-frame map whose
// detection jitters (the object's box moved ±3 px at random, a frame that misses it, a one-frame
// false detection) changes much less from frame to frame once smoothed, still follows the moving
// object (its centre within a few pixels, where a plain temporal mean lags), and a scene cut
// restarts the filter. Then the real saliency term on a noisy pan, and the video pipeline (the CPU
// wave carver) carving with the smoothed maps in frame order.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/video_retarget.hpp>
#include <lacuna/video/importance_smoothing.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <random>

using namespace lacuna;
using namespace lacuna::video;

namespace {

constexpr int kW = 160, kH = 96, kSide = 24, kSpeed = 2, kLevel = 40;
constexpr int kShot = 30;  ///< frames of the first shot; the second starts with a cut

/// A fixed texture (smooth enough for the flow, varied enough to be tracked).
std::uint8_t texture(const int x, const int y, const int seed) {
    const double v = 128 + 45 * std::sin(0.21 * x + 0.5 * seed) * std::cos(0.17 * y) +
                     30 * std::sin(0.07 * (x + 2 * y) + seed);
    return static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
}

/// The object's true left edge: moving kSpeed px a frame; the second shot has it elsewhere.
int object_x(const int f) {
    return f < kShot ? 20 + kSpeed * f : 110 - kSpeed * (f - kShot);
}
constexpr int kObjectY = 36;

/// Frame f: a static background, a bright textured square moving across it; after the cut a
/// darker background of another texture.
ImageRgba8 frame(const int f) {
    ImageRgba8 img(kW, kH);
    const bool second = f >= kShot;
    const int ox = object_x(f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            std::uint8_t v = texture(x, y, second ? 3 : 0);
            if (second) v = static_cast<std::uint8_t>(v / 3);
            const bool in = x >= ox && x < ox + kSide && y >= kObjectY && y < kObjectY + kSide;
            if (in) {
                const std::uint8_t t = texture(x - ox + 200, y - kObjectY + 100, 7);
                img.at(x, y) = {255, static_cast<std::uint8_t>(t), 40, 255};
            } else {
                img.at(x, y) = {v, v, v, 255};
            }
        }
    return img;
}

/// The "detector": the object's box with ±3 px of jitter in position and size, at a level that
/// varies ±8; frame 12 misses it; frame 17 also has a one-frame false box elsewhere.
Mask detection(const int f, std::mt19937& rng) {
    std::uniform_int_distribution<int> jitter(-3, 3), level(-8, 8);
    Mask m(kW, kH, 0);
    const auto box = [&](const int x0, const int y0, const int w, const int h, const int v) {
        for (int y = std::max(0, y0); y < std::min(kH, y0 + h); ++y)
            for (int x = std::max(0, x0); x < std::min(kW, x0 + w); ++x)
                m.at(x, y) = static_cast<std::uint8_t>(v);
    };
    const int dx = jitter(rng), dy = jitter(rng), dw = jitter(rng), dh = jitter(rng);
    const int v = kLevel + level(rng);
    if (f != 12) box(object_x(f) + dx, kObjectY + dy, kSide + dw, kSide + dh, v);
    if (f == 17) box(120, 10, 20, 20, kLevel);
    return m;
}

/// Mean |L_t(x) − L_{t−1}(x − d(x))|, d the true motion (the object's step inside its box at t,
/// none elsewhere): how much the map changes beyond what the motion explains.
double change_beyond_motion(const Mask& previous, const Mask& current, const int f) {
    double sum = 0;
    const int ox = object_x(f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const bool in = x >= ox && x < ox + kSide && y >= kObjectY && y < kObjectY + kSide;
            const int sx = in ? std::clamp(x - kSpeed, 0, kW - 1) : x;
            sum += std::abs(int(current.at(x, y)) - int(previous.at(sx, y)));
        }
    return sum / (kW * kH);
}

/// The level-weighted centre x of the map's pixels at or above `threshold`.
double centre_x(const Mask& m, const int threshold = 12) {
    double sum = 0, weight = 0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x)
            if (m.at(x, y) >= threshold) {
                sum += (x + 0.5) * m.at(x, y);
                weight += m.at(x, y);
            }
    return weight > 0 ? sum / weight : -1;
}

struct Run {
    double raw_change = 0, smoothed_change = 0;  ///< means over the first shot's frame pairs
    double worst_offset = 0;                     ///< |centre − truth|, frames 6 .. kShot − 1
    std::vector<Mask> raw, smoothed;
    int cuts = 0;
};

Run run(const ImportanceSmoothingParams& params) {
    std::mt19937 rng(11);
    ImportanceSmoother smoother(ops::ImportanceParams{}, params);
    Run r;
    for (int f = 0; f < kShot + 8; ++f) {
        const ImageRgba8 img = frame(f);
        r.raw.push_back(detection(f, rng));
        r.smoothed.push_back(smoother.smooth(img.view(), r.raw.back()));
    }
    for (int f = 1; f < kShot; ++f) {
        r.raw_change += change_beyond_motion(r.raw[f - 1], r.raw[f], f) / (kShot - 1);
        r.smoothed_change +=
            change_beyond_motion(r.smoothed[f - 1], r.smoothed[f], f) / (kShot - 1);
    }
    for (int f = 6; f < kShot; ++f) {
        if (qEnvironmentVariableIsSet("LACUNA_TEST_VERBOSE"))
            qInfo("frame %d: raw %.2f smoothed %.2f truth %.1f", f, centre_x(r.raw[f]),
                  centre_x(r.smoothed[f]), object_x(f) + kSide * 0.5);
        r.worst_offset = std::max(r.worst_offset,
                                  std::abs(centre_x(r.smoothed[f]) - (object_x(f) + kSide * 0.5)));
    }
    r.cuts = smoother.cuts();
    return r;
}

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

}  // namespace

class TestImportanceSmoothing : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    [[nodiscard]] std::filesystem::path tmp(const std::string& name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

  private slots:
    void jittery_detections_settle_and_follow_the_object() {
        const Run r = run({});
        qInfo("change beyond motion: per frame %.3f, smoothed %.3f; worst centre offset %.2f px",
              r.raw_change, r.smoothed_change, r.worst_offset);
        // The jitter: whole box edges move every frame (a mean over the whole frame, most of it
        // empty). Smoothed, a third of that at most.
        QVERIFY(r.raw_change > 0.5);
        QVERIFY2(
            r.smoothed_change < r.raw_change / 3,
            qPrintable(QString("smoothed %1 against %2").arg(r.smoothed_change).arg(r.raw_change)));
        // It follows the object: its centre (of levels from 12) within 4 px of the truth over the
        // shot (the jitter moves a single detection's centre up to 4.5 px; the part of a box on
        // the static background stays behind, which is most of what remains).
        QVERIFY2(r.worst_offset <= 4.0, qPrintable(QString::number(r.worst_offset)));
        // The missed frame keeps the object protected (the filter remembers it) ...
        const Mask& missed = r.smoothed[12];
        QVERIFY(missed.at(object_x(12) + kSide / 2, kObjectY + kSide / 2) >= kLevel / 2);
        QCOMPARE(int(r.raw[12].at(object_x(12) + kSide / 2, kObjectY + kSide / 2)), 0);
        // ... and the one-frame false box reaches a fraction of its level only.
        QVERIFY(r.smoothed[17].at(130, 20) <= kLevel / 4);
        QCOMPARE(int(r.raw[17].at(130, 20)), kLevel);
    }

    void a_temporal_mean_without_the_flow_lags() {
        ImportanceSmoothingParams still;
        still.follow_motion = false;
        const Run r = run(still);
        qInfo("without the flow: worst centre offset %.2f px", r.worst_offset);
        // (1 − α)/α × 2 px = 8 px behind at N = 9: why the filter warps along the motion.
        QVERIFY(r.worst_offset > 5.0);
    }

    void a_cut_restarts_the_filter() {
        const Run r = run({});
        QCOMPARE(r.cuts, 1);
        // The cut's frame is its own map; nothing of the first shot's object remains.
        QCOMPARE(r.smoothed[kShot].view().width, kW);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                QCOMPARE(r.smoothed[kShot].at(x, y), r.raw[kShot].at(x, y));
        // The next frame already blends again (it differs from its raw map somewhere).
        bool blended = false;
        for (int y = 0; y < kH && !blended; ++y)
            for (int x = 0; x < kW && !blended; ++x)
                blended = r.smoothed[kShot + 1].at(x, y) != r.raw[kShot + 1].at(x, y);
        QVERIFY(blended);
    }

    void window_one_is_the_per_frame_map() {
        ImportanceSmoothingParams off;
        off.window = 1;
        const Run r = run(off);
        for (std::size_t f = 0; f < r.raw.size(); ++f)
            for (int y = 0; y < kH; ++y)
                QVERIFY(std::equal(r.raw[f].row(y), r.raw[f].row(y) + kW, r.smoothed[f].row(y)));
        ops::ImportanceParams imp;
        imp.faces = false;
        imp.skin = true;
        ImportanceSmoother smoother(imp, off);
        const ImageRgba8 img = frame(3);
        const Mask a = smoother.next(img.view(), {});
        const Mask b = ops::importance_map(img.view(), imp).levels;
        for (int y = 0; y < kH; ++y) QVERIFY(std::equal(a.row(y), a.row(y) + kW, b.row(y)));
    }

    void tracked_faces_are_added_after_smoothing() {
        // Skin smoothed, the tracked face drawn at its weight on top, at once (not ramped up).
        ops::ImportanceParams imp;
        imp.faces = true;
        imp.face_weight = 50;
        imp.skin = true;
        ImportanceSmoother with_faces(imp, {});
        ops::ImportanceParams skin_only = imp;
        skin_only.faces = false;
        ImportanceSmoother skin(skin_only, {});
        const ops::FaceBox face{100, 20, 30, 36, false};
        for (int f = 0; f < 4; ++f) {
            const ImageRgba8 img = frame(f);
            const std::vector<ops::FaceBox> faces =
                f == 3 ? std::vector{face} : std::vector<ops::FaceBox>{};
            const Mask a = with_faces.next(img.view(), faces);
            const Mask b = skin.next(img.view(), {});
            const Mask drawn = ops::importance_map(
                                   img.view(),
                                   [&] {
                                       ops::ImportanceParams p;
                                       p.face_weight = 50;
                                       return p;
                                   }(),
                                   faces)
                                   .levels;
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x)
                    QCOMPARE(int(a.at(x, y)), std::min(63, b.at(x, y) + drawn.at(x, y)));
        }
        QCOMPARE(int(with_faces.next(frame(4).view(), {face}).at(115, 38)), 50);
    }

    void bad_parameters_are_refused() {
        ImportanceSmoothingParams p;
        p.window = 0;
        QVERIFY_THROWS_EXCEPTION(Error, ImportanceSmoother(ops::ImportanceParams{}, p));
        p.window = 9;
        p.cut_threshold = -1;
        QVERIFY_THROWS_EXCEPTION(Error, ImportanceSmoother(ops::ImportanceParams{}, p));
        ImportanceSmoother s(ops::ImportanceParams{}, {});
        const ImageRgba8 img = frame(0);
        QVERIFY_THROWS_EXCEPTION(Error, s.smooth(img.view(), Mask(kW - 1, kH, 0)));
    }

    void the_pipeline_carves_with_the_smoothed_maps_in_order() {
        // retarget_video (the CPU wave carver: frames side by side) on a PNG sequence of 14
        // frames of the moving object, skin on (the square is skin-coloured: 255, t, 40 is not,
        // so a skin patch rides on it), against the smoother and the carver run by hand.
        std::filesystem::create_directories(tmp("in"));
        std::filesystem::create_directories(tmp("out"));
        {
            io::VideoWriter writer(tmp("in/%02d.png"), kW, kH, 25.0);
            for (int f = 0; f < 14; ++f) {
                ImageRgba8 img = frame(f);
                for (int y = kObjectY + 4; y < kObjectY + kSide - 4; ++y)
                    for (int x = object_x(f) + 4; x < object_x(f) + kSide - 4; ++x)
                        img.at(x, y) = {200, 150, 120, 255};  // skin (YCrCb in Chai & Ngan's box)
                writer.write(img);
            }
            writer.finish();
        }
        video::RetargetVideoOptions o;
        o.input = tmp("in/%02d.png");
        o.output = tmp("out/%02d.png");
        o.params.width = 110;
        o.params.height = kH;
        o.params.importance_unit = ops::importance_unit(o.params.energy);
        o.importance.skin = true;
        o.importance.skin_weight = 40;
        const video::RetargetVideoResult r = video::retarget_video(o);
        QCOMPARE(r.frames, 14);
        QVERIFY(r.importance_smooth_seconds > 0);
        ImportanceSmoother smoother(o.importance,
                                    {o.params.importance_window, o.params.cut_threshold});
        ops::VideoRetargeter carver(kW, kH, o.params, ops::CarveImplementation::Fast);
        io::VideoReader in(tmp("in/%02d.png"));
        io::VideoReader out(tmp("out/%02d.png"));
        bool skin_seen = false;
        for (int f = 0; f < 14; ++f) {
            const ImageRgba8 src = *in.next();
            const Mask map = smoother.next(src.view(), {});
            skin_seen = skin_seen || map.at(object_x(f) + kSide / 2, kObjectY + kSide / 2) > 20;
            const ImageRgba8 expected = carver.process(src.view(), &map);
            const std::optional<ImageRgba8> got = out.next();
            QVERIFY(got.has_value());
            QVERIFY2(equal_pixels(expected.view(), got->view()), qPrintable(QString::number(f)));
        }
        QVERIFY(skin_seen);
    }

    void a_pan_through_the_coarse_flow_keeps_the_box() {
        // A 400 × 240 window panning 4 px a frame over fruits.jpg (the flow runs on a copy 320
        // long and is scaled back) with a box fixed on the photo as the term: the smoothed box
        // stays on it (a mean without the flow would trail 16 px behind).
        const ImageRgba8 src = photo("fruits.jpg");
        constexpr int w = 400, h = 240, pan = 4, frames = 16, bx = 250, by = 120, side = 60;
        ImportanceSmoother smoother(ops::ImportanceParams{}, {});
        double worst = 0;
        for (int f = 0; f < frames; ++f) {
            const int x0 = 40 + pan * f;
            ImageRgba8 img(w, h);
            Mask box(w, h, 0);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    img.at(x, y) = src.at(x0 + x, 80 + y);
                    const int px = x0 + x, py = 80 + y;
                    if (px >= bx && px < bx + side && py >= by && py < by + side) box.at(x, y) = 40;
                }
            const Mask m = smoother.smooth(img.view(), box);
            double sum = 0, weight = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    sum += (x + 0.5) * m.at(x, y);
                    weight += m.at(x, y);
                }
            worst = std::max(worst, std::abs(sum / weight - (bx - x0 + side * 0.5)));
        }
        qInfo("a box on a 4 px pan: worst centre offset %.2f px", worst);
        QVERIFY2(worst <= 1.5, qPrintable(QString::number(worst)));
    }

    void saliency_over_a_pan_settles() {
        // Real saliency: 24 frames of a 400 × 240 window panning 3 px a frame over fruits.jpg,
        // each with a little sensor noise (what makes spectral residual flicker). The smoothed
        // maps change less beyond the pan than the per-frame maps, and less than a mean without
        // the flow (400 columns: the flow runs on a 320-column copy and is scaled back).
        const ImageRgba8 src = photo("fruits.jpg");
        ops::ImportanceParams imp;
        imp.faces = false;
        imp.saliency = true;
        try {
            (void)ops::saliency_map(src.view(), 64);
        } catch (const Error&) {
            QSKIP("this build has no OpenCV contrib saliency module");
        }
        constexpr int w = 400, h = 240, pan = 3, frames = 24;
        ImportanceSmoother smoother(imp, {});
        ImportanceSmoothingParams still;
        still.follow_motion = false;
        ImportanceSmoother without_flow(imp, still);
        std::mt19937 rng(3);
        std::normal_distribution<double> noise(0, 6);
        std::vector<Mask> raw, smoothed, unwarped;
        for (int f = 0; f < frames; ++f) {
            ImageRgba8 img(w, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    Rgba8 p = src.at(40 + pan * f + x, 80 + y);
                    for (std::uint8_t* c : {&p.r, &p.g, &p.b})
                        *c = static_cast<std::uint8_t>(std::clamp(*c + noise(rng), 0.0, 255.0));
                    img.at(x, y) = p;
                }
            raw.push_back(ops::importance_map(img.view(), imp).levels);
            smoothed.push_back(smoother.next(img.view(), {}));
            unwarped.push_back(without_flow.next(img.view(), {}));
        }
        const auto change = [&](const std::vector<Mask>& maps) {
            double sum = 0;
            int n = 0;
            for (int f = 1; f < frames; ++f)
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x + pan < w; ++x, ++n)
                        sum += std::abs(int(maps[f].at(x, y)) - int(maps[f - 1].at(x + pan, y)));
            return sum / n;
        };
        const double a = change(raw), b = change(smoothed), c = change(unwarped);
        qInfo(
            "saliency over a pan: change beyond the pan per frame %.3f, smoothed %.3f, "
            "without the flow %.3f",
            a, b, c);
        QVERIFY2(b < a / 2, qPrintable(QString("%1 against %2").arg(b).arg(a)));
        QVERIFY2(b < c, qPrintable(QString("%1 against %2 without the flow").arg(b).arg(c)));
        QCOMPARE(smoother.cuts(), 0);
    }
};

QTEST_APPLESS_MAIN(TestImportanceSmoothing)
#include "test_importance_smoothing.moc"
