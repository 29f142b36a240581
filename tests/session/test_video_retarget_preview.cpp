// The Retarget panel's preview of a video frame carves with the importance the export gives that
// frame (app/session/clip_importance.*): saliency and skin smoothed over the shot along the motion,
// faces tracked over the clip — not the frame's own detections. On a generated clip with a cut,
// the preview's map of frame t equals the export pipeline's smoother fed frames 0..t, and the
// preview's picture equals the exported frame t (temporal weight 0: the export's seams of frame t
// then depend on that frame's map alone), stepping forward, across the cut and back.
#include <clip_importance.hpp>
#include <retarget_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/video_retarget.hpp>
#include <lacuna/video/importance_smoothing.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

using namespace lacuna;

namespace {

constexpr int kW = 128, kH = 80, kFrames = 12, kCut = 8;

std::uint8_t noise(const int x, const int y, const int seed) {
    std::uint32_t v = static_cast<std::uint32_t>(x) * 73856093u ^
                      static_cast<std::uint32_t>(y) * 19349663u ^
                      static_cast<std::uint32_t>(seed) * 83492791u;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    return static_cast<std::uint8_t>(v & 0xff);
}

std::uint8_t clamp8(const double v) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

/// Frame f: a textured background panning 1 px a frame, a skin-coloured disc moving 2 px a
/// frame whose size and tone jitter from frame to frame (the detectors' per-frame noise), and
/// fresh noise everywhere. From kCut on another scene (a cut): other colours, the disc elsewhere.
ImageRgba8 frame_at(const int f) {
    ImageRgba8 img(kW, kH);
    const bool second = f >= kCut;
    const int cx = second ? 90 - 2 * (f - kCut) : 30 + 2 * f;
    const int cy = second ? 30 : 42;
    const double r = 13 + 3 * ((f * 5) % 3) - (second ? 2 : 0);
    const double tone = (f % 2 == 0) ? 1.0 : 0.9;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const int u = x + f;
            const double wave = 45 * std::sin(u * 0.23) * std::cos(y * 0.19) +
                                (u % 17 < 2 ? 50 : 0) + noise(x, y, f) / 10.0;
            Rgba8 p =
                second
                    ? Rgba8{clamp8(30 + wave / 2), clamp8(40 + wave / 2), clamp8(120 + wave), 255}
                    : Rgba8{clamp8(110 + wave), clamp8(120 + wave), clamp8(90 + wave / 2), 255};
            if (std::hypot(x - cx, y - cy) < r) {
                const double n = noise(x, y, 100 + f) / 16.0;
                p = Rgba8{clamp8((224 + n) * tone), clamp8((168 + n) * tone),
                          clamp8((136 + n) * tone), 255};
            }
            img.at(x, y) = p;
        }
    return img;
}

bool equal(const Mask& a, const Mask& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        if (!std::equal(a.row(y), a.row(y) + a.width(), b.row(y))) return false;
    return true;
}

bool equal(const ImageRgba8& a, const ImageRgba8& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            if (p.r != q.r || p.g != q.g || p.b != q.b) return false;
        }
    return true;
}

int differing(const Mask& a, const Mask& b) {
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) n += a.at(x, y) != b.at(x, y);
    return n;
}

/// Frame `frame` carved to w × h from its map alone (no temporal term): the exact preview of
/// one frame, and the export's frame where a shot starts.
ImageRgba8 carve_alone(const ImageRgba8& frame, const Mask& map, const int w, const int h,
                       const SeamEnergy energy) {
    ops::VideoRetargetParams p;
    p.width = w;
    p.height = h;
    p.temporal = 0;
    p.energy = energy;
    p.importance_unit = ops::importance_unit(p.energy);
    ops::VideoRetargeter carver(frame.width(), frame.height(), p, ops::CarveImplementation::Fast);
    return carver.process(frame.view(), &map);
}

}  // namespace

class TestVideoRetargetPreview : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::filesystem::path clip_;
    std::vector<ImageRgba8> frames_;

    /// The mix the tests use: saliency and skin (fast, no cascades), faces off in the panel.
    static ops::RetargetMix mix() {
        ops::RetargetMix m;
        m.importance.faces = false;
        m.importance.saliency = true;
        m.importance.skin = true;
        return m;
    }

    /// What the export's pipeline gives its carver for every frame (retarget_video's smoother,
    /// fed in frame order with the export's options).
    static std::vector<Mask> export_maps(const video::RetargetVideoOptions& o,
                                         const std::vector<ImageRgba8>& frames) {
        video::ImportanceSmoothingParams sp;
        sp.window = o.params.importance_window;
        sp.cut_threshold = o.params.cut_threshold;
        video::ImportanceSmoother smoother(o.importance, sp);
        std::vector<Mask> maps;
        for (const ImageRgba8& f : frames) maps.push_back(smoother.next(f.view(), {}));
        return maps;
    }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const std::filesystem::path folder = dir_.filePath("in").toStdString();
        std::filesystem::create_directories(folder);
        clip_ = folder / "%03d.png";
        for (int f = 0; f < kFrames; ++f) {
            frames_.push_back(frame_at(f));
            (void)io::write_image(io::sequence_frame_path(clip_, f), frames_.back().view());
        }
    }

    /// The clip exported with `job` (a PNG sequence in `name`), every frame.
    std::vector<ImageRgba8> exported(const session::Session::VideoExport& job,
                                     const QString& name) {
        const std::filesystem::path out = std::filesystem::path(dir_.filePath(name).toStdString());
        std::filesystem::create_directories(out);
        video::RetargetVideoOptions o = job.options;
        o.output = out / "%03d.png";
        const video::RetargetVideoResult r = video::retarget_video(o);
        if (r.frames != kFrames || r.cuts != 1) return {};
        io::VideoReader reader(o.output);
        std::vector<ImageRgba8> written;
        while (auto f = reader.next()) written.push_back(std::move(*f));
        return written;
    }

    /// Polls until the exact single-frame preview is up and the match to the export runs
    /// (true), or nothing runs any more (false).
    static bool until_matching(session::Session& s) {
        while (s.retarget().poll())
            if (s.retarget().matching_export()) return true;
        return false;
    }

    void preview_of_a_frame_is_the_exports_frame() {
        session::Session s(false);
        s.open_video(clip_);
        QCOMPARE(s.video()->frame_count(), kFrames);
        // Without a temporal term the exact single-frame preview is the export's frame.
        session::Session::VideoExportSettings independent;
        independent.temporal = 0;
        s.set_video_export_settings(independent);
        s.select(session::ToolKind::Retarget);
        s.retarget().set_mix(mix());
        s.retarget().set_target(96, kH);
        s.retarget().wait();

        const session::Session::VideoExport job = s.prepare_video_export({}, 0.0);
        const std::vector<Mask> expected = export_maps(job.options, frames_);
        // The export, seams only and no temporal term: frame t's seams are its map's alone.
        const std::filesystem::path out = std::filesystem::path(dir_.filePath("out").toStdString());
        std::filesystem::create_directories(out);
        const video::RetargetVideoResult r = s.export_video(out / "%03d.png", 0.0, {});
        QCOMPARE(r.frames, kFrames);
        QCOMPARE(r.cuts, 1);
        io::VideoReader exported(out / "%03d.png");
        std::vector<ImageRgba8> written;
        while (auto f = exported.next()) written.push_back(std::move(*f));
        QCOMPARE(static_cast<int>(written.size()), kFrames);

        int seams_differ = 0;
        for (const int t : {0, 5, 6, 9, 10, 2, 11, 8}) {
            const bool stepped = t != s.video()->current();
            s.show_video_frame(t);
            if (stepped) {
                // Until this frame's maps are up the previous frame's preview stays (no flash
                // of the uncarved frame), and it cannot be applied to this frame.
                QVERIFY(s.retarget().previewing());
                QVERIFY(s.retarget().preview_held());
                QVERIFY(!s.retarget().apply());
            }
            s.retarget().wait();
            QVERIFY(!s.retarget().preview_held());
            QCOMPARE(s.video()->current(), t);
            const ops::ImportanceMap* map = s.retarget().importance();
            QVERIFY2(map != nullptr, qPrintable(QString("frame %1").arg(t)));
            QVERIFY2(equal(map->levels, expected[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1: the preview's map is not the export's").arg(t)));
            QVERIFY(s.retarget().previewing());
            const ImageRgba8 shown = s.shown_image();
            QVERIFY2(equal(shown, written[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1: the preview is not the exported frame").arg(t)));
            // The frame's own detections (the still path) are another map, and within the shot
            // (not its first frame) they carve other seams on some frames.
            const Mask own = ops::importance_map(frames_[static_cast<std::size_t>(t)].view(),
                                                 job.options.importance)
                                 .levels;
            if (t != 0 && t != kCut) {
                QVERIFY2(differing(own, map->levels) > kW * kH / 20,
                         qPrintable(QString("frame %1").arg(t)));
                ops::VideoRetargetParams p;
                p.width = 96;
                p.height = kH;
                p.temporal = 0;
                p.energy = s.retarget().energy();
                p.importance_unit = ops::importance_unit(p.energy);
                ops::VideoRetargeter alone(kW, kH, p, ops::CarveImplementation::Fast);
                seams_differ +=
                    !equal(alone.process(frames_[static_cast<std::size_t>(t)].view(), &own), shown);
            }
        }
        QVERIFY2(seams_differ >= 2, qPrintable(QString::number(seams_differ)));
    }

    void settled_preview_is_the_exported_frame() {
        // The dock's default temporal weight 1: the export's seams of frame t follow frame
        // t − 1's over the shot. Once matched, the preview is the exported frame, pixel for pixel.
        session::Session s(false);
        s.open_video(clip_);
        QCOMPARE(s.video_export_settings().temporal, 1.0);
        s.select(session::ToolKind::Retarget);
        s.retarget().set_mix(mix());
        s.retarget().set_target(96, kH);
        s.retarget().wait();
        const std::vector<ImageRgba8> written = exported(s.prepare_video_export({}), "chain-96");
        QCOMPARE(static_cast<int>(written.size()), kFrames);
        const std::vector<Mask> maps = export_maps(s.prepare_video_export({}).options, frames_);
        // The exact preview of frame t alone: the export's map, no temporal term.
        const auto alone = [&](const int t, const int w, const int h) {
            return carve_alone(frames_[static_cast<std::size_t>(t)],
                               maps[static_cast<std::size_t>(t)], w, h, s.retarget().energy());
        };
        QVERIFY(s.retarget().matches_export());  // frame 0 starts its shot
        QVERIFY(equal(s.shown_image(), written[0]));
        int chained_differ = 0;
        for (const int t : {5, 6, 7, 9, 10, 2, 11, 8, 3}) {
            const int carved = s.retarget().export_chain()->frames_carved();
            const int from = s.video()->current();
            s.show_video_frame(t);
            const bool matching = until_matching(s);
            // A shot's first frame is carved alone by the export too: nothing to match (frame 3
            // was carved on the way to 5: cached, it may be collected at once).
            if (t != 3)
                QVERIFY2(matching == (t != kCut),
                         qPrintable(QString("frame %1: %2")
                                        .arg(t)
                                        .arg(QString::fromStdString(s.retarget().status()))));
            if (matching) {
                // Before it settles the preview is the single-frame one (the live frame).
                QVERIFY2(equal(s.shown_image(), alone(t, 96, kH)),
                         qPrintable(QString("frame %1: the frame before matching").arg(t)));
                QVERIFY(!s.retarget().matches_export());
                QVERIFY(!s.retarget().apply());  // Apply waits for the exported frame
            }
            s.retarget().wait();
            QVERIFY2(s.retarget().matches_export(), qPrintable(QString("frame %1").arg(t)));
            const ImageRgba8 shown = s.shown_image();
            QVERIFY2(equal(shown, written[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1: the preview is not the exported frame").arg(t)));
            chained_differ += !equal(shown, alone(t, 96, kH));
            // A step forward within the shot costs one frame (the chain's state is kept);
            // frames carved before are cached.
            const int cost = s.retarget().export_chain()->frames_carved() - carved;
            if (t == from + 1 && t != kCut) QCOMPARE(cost, 1);
            if (t == 3) QCOMPARE(cost, 0);  // carved on the way to 5, and cached
        }
        // The test means something: the chain carves other seams than the frame alone.
        qInfo("frames whose exported picture differs from the frame carved alone: %d of 9",
              chained_differ);
        QVERIFY2(chained_differ >= 2, qPrintable(QString::number(chained_differ)));

        // Another target (narrower and lower: both directions), stepping on from there.
        const session::Session::VideoExport lower = [&] {
            s.retarget().set_target(100, 66);
            return s.prepare_video_export({});
        }();
        const std::vector<ImageRgba8> written_lower = exported(lower, "chain-100x66");
        QCOMPARE(static_cast<int>(written_lower.size()), kFrames);
        s.retarget().wait();
        QVERIFY(s.retarget().matches_export());
        QVERIFY(equal(s.shown_image(), written_lower[3]));
        for (const int t : {4, 10, 9}) {
            s.show_video_frame(t);
            s.retarget().wait();
            QVERIFY2(equal(s.shown_image(), written_lower[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1 at 100 × 66").arg(t)));
        }

        // A frame step while matching cancels it: the next frame's preview is its own export,
        // never the cancelled frame's picture.
        s.retarget().set_target(96, kH);
        s.show_video_frame(5);
        QVERIFY(until_matching(s));
        s.show_video_frame(6);
        QVERIFY(!s.retarget().matching_export());
        QVERIFY(s.retarget().preview_held());
        s.retarget().wait();
        QVERIFY(s.retarget().matches_export());
        QVERIFY(equal(s.shown_image(), written[6]));

        // A setting of the export changes what is matched: with no temporal term the frame
        // alone is the export's frame.
        session::Session::VideoExportSettings independent;
        independent.temporal = 0;
        s.set_video_export_settings(independent);
        s.retarget().wait();
        QVERIFY(s.retarget().matches_export());
        QVERIFY(equal(s.shown_image(), alone(6, 96, kH)));
        s.set_video_export_settings({});
        s.retarget().wait();
        QVERIFY(equal(s.shown_image(), written[6]));

        // Fast seams (the dock's "Seams"): the export's approximate seams, on a shot's first
        // frame too (the single-frame preview has exact ones).
        session::Session::VideoExportSettings fast;
        fast.approximate = 2;
        s.set_video_export_settings(fast);
        const std::vector<ImageRgba8> written_fast = exported(s.prepare_video_export({}), "fast");
        QCOMPARE(static_cast<int>(written_fast.size()), kFrames);
        for (const int t : {6, kCut, 9}) {
            s.show_video_frame(t);
            s.retarget().wait();
            QVERIFY(s.retarget().matches_export());
            QVERIFY2(equal(s.shown_image(), written_fast[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1, fast seams").arg(t)));
        }
        QVERIFY(!equal(written_fast[kCut], written[kCut]));
        s.set_video_export_settings({});
        s.show_video_frame(6);
        s.retarget().wait();
        QVERIFY(equal(s.shown_image(), written[6]));

        // Apply takes the exported frame.
        QVERIFY(s.retarget().apply());
        QVERIFY(equal(s.document().pixels(), written[6]));
    }

    void cache_restarts_at_the_shot_start() {
        // A cache of one map: frames behind the smoother start a fresh one at their shot's
        // first frame (the export's smoother restarts there too), and the maps stay the export's.
        session::Session s(false);
        s.open_video(clip_);
        s.retarget().set_mix(mix());
        const session::Session::VideoExport job = s.prepare_video_export({}, 0.0);
        const std::vector<Mask> expected = export_maps(job.options, frames_);
        session::ClipImportance clip(session::clip_importance_settings(job.options), 1);
        for (const int t : {9, 3, 10, 9, 8, 11, 0}) {
            const auto map = clip.map(t);
            QVERIFY2(equal(map->levels, expected[static_cast<std::size_t>(t)]),
                     qPrintable(QString("frame %1").arg(t)));
        }
        // 9: from 0; 3: from 0 again; 10: onwards (4..10); 9: from the cut (8, 9); 8: from the
        // cut; 11: onwards; 0: from 0.
        QCOMPARE(clip.restarts(), 5);
        QCOMPARE(clip.frames_computed(), 10 + 4 + 7 + 2 + 1 + 3 + 1);
        // A cancelled walk keeps what it computed; the next call goes on from there.
        session::ClipImportance cancelled(session::clip_importance_settings(job.options));
        bool threw = false;
        try {
            (void)cancelled.map(6, [](auto, const int done, int) { return done < 3; });
        } catch (const Error& e) {
            threw = e.code() == ErrorCode::Cancelled;
        }
        QVERIFY(threw);
        QVERIFY(cancelled.cached(2) != nullptr);
        QVERIFY(cancelled.cached(3) == nullptr);
        QVERIFY(equal(cancelled.map(6)->levels, expected[6]));
        QCOMPARE(cancelled.restarts(), 1);
        QCOMPARE(cancelled.frames_computed(), 7);
        // Beyond the clip: a clear error.
        threw = false;
        try {
            (void)cancelled.map(kFrames);
        } catch (const Error& e) {
            threw = e.code() == ErrorCode::InvalidArgument;
        }
        QVERIFY(threw);
    }

    void faces_follow_the_exports_switch() {
        session::Session s(false);
        s.open_video(clip_);
        s.select(session::ToolKind::Retarget);
        s.retarget().set_mix(mix());
        s.retarget().set_target(96, kH);
        s.retarget().wait();
        QVERIFY(!s.shown_clip_importance()->settings().faces());
        // The panel's face switch is on by default; the export tracks faces only with the Video
        // dock's switch, and so does the preview.
        ops::RetargetMix with_faces = mix();
        with_faces.importance.faces = true;
        s.retarget().set_mix(with_faces);
        QVERIFY(!s.shown_clip_importance()->settings().faces());
        s.set_video_faces(true);
        QVERIFY(s.shown_clip_importance()->settings().faces());
        QVERIFY(s.prepare_video_export({}, 0.0, 1, ops::TemporalTerm::PerSeam, s.video_faces())
                    .options.importance.faces);
        s.retarget().wait();  // the face pass over the clip (no faces in it), then the map
        QCOMPARE(s.shown_clip_importance()->face_passes(), 1);
        QVERIFY(s.retarget().importance() != nullptr);
        QVERIFY(s.retarget().importance()->faces.empty());
        QVERIFY(s.shown_clip_importance()->cached(0) != nullptr);
        // A caller that gives up while the face pass runs leaves it running: the next one
        // waits for the same pass (stepping frames during the pass loses no detection).
        session::ClipImportance faces(s.shown_clip_importance()->settings());
        bool threw = false;
        try {
            (void)faces.map(3, [](auto phase, int, int) {
                return phase != session::ClipImportance::Phase::Faces;
            });
        } catch (const Error& e) {
            threw = e.code() == ErrorCode::Cancelled;
        }
        QVERIFY(threw);
        QVERIFY(faces.cached(3) == nullptr);
        QVERIFY(faces.map(3) != nullptr);
        QCOMPARE(faces.face_passes(), 1);
        // An edited frame is not the clip's: its own detections apply.
        Mask all(kW, kH, 255);
        s.document().write_mask(session::MaskLayer::Fill, {0, 0, kW - 1, kH - 1}, all);
        QVERIFY(s.shown_clip_importance() != nullptr);  // a mask is not an edit of the pixels
        ImageRgba8 edited = clone(s.document().pixels().view());
        edited.at(0, 0) = Rgba8{0, 0, 0, 255};
        std::array<Mask, session::kMaskLayers> masks;
        for (int i = 0; i < session::kMaskLayers; ++i)
            masks[static_cast<std::size_t>(i)] =
                clone(s.document().mask(static_cast<session::MaskLayer>(i)).view());
        s.document().replace(edited, masks);
        QVERIFY(s.shown_clip_importance() == nullptr);
        s.show_video_frame(1);
        QVERIFY(s.shown_clip_importance() != nullptr);
    }

    /// README sheet: runs only when LACUNA_SCREENSHOT_DIR names a folder to write into. Four
    /// consecutive frames of tests/data/video/tree.avi narrowed to 60 % with saliency and lines:
    /// the frame's own map and its carve (what the preview did before), the export's map of the
    /// frame and the preview now.
    void sheet() {
        const QString folder = qEnvironmentVariable("LACUNA_SCREENSHOT_DIR");
        if (folder.isEmpty()) QSKIP("set LACUNA_SCREENSHOT_DIR to write the README sheet");
        session::Session s(false);
        s.open_video(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/video/tree.avi");
        ops::RetargetMix m;
        m.importance.faces = false;
        m.importance.saliency = true;
        m.importance.lines = true;
        s.select(session::ToolKind::Retarget);
        s.retarget().set_mix(m);
        const int w = s.document().width(), h = s.document().height(), target = w * 6 / 10;
        s.retarget().set_target(target, h);
        const auto grey = [](const Mask& levels) {
            ImageRgba8 out(levels.width(), levels.height());
            for (int y = 0; y < levels.height(); ++y)
                for (int x = 0; x < levels.width(); ++x) {
                    const auto v = static_cast<std::uint8_t>(levels.at(x, y) * 4);
                    out.at(x, y) = Rgba8{v, v, v, 255};
                }
            return out;
        };
        const int first = 30, rows = 4, gap = 4;
        const int sheet_w = 2 * w + 2 * target + 3 * gap;
        ImageRgba8 sheet(sheet_w, rows * h + (rows - 1) * gap);
        for (int y = 0; y < sheet.height(); ++y)
            for (int x = 0; x < sheet.width(); ++x) sheet.at(x, y) = Rgba8{255, 255, 255, 255};
        const auto paste = [&](const ImageRgba8& img, const int x0, const int y0) {
            for (int y = 0; y < img.height(); ++y)
                for (int x = 0; x < img.width(); ++x) sheet.at(x0 + x, y0 + y) = img.at(x, y);
        };
        for (int r = 0; r < rows; ++r) {
            s.show_video_frame(first + r);
            s.retarget().wait();
            const ImageRgba8 frame = clone(s.document().pixels().view());
            const ops::ImportanceParams terms = s.prepare_video_export({}, 0.0).options.importance;
            const Mask own = ops::importance_map(frame.view(), terms).levels;
            const int y0 = r * (h + gap);
            paste(grey(own), 0, y0);
            paste(carve_alone(frame, own, target, h, s.retarget().energy()), w + gap, y0);
            paste(grey(s.retarget().importance()->levels), w + target + 2 * gap, y0);
            paste(s.shown_image(), 2 * w + target + 3 * gap, y0);
        }
        (void)io::write_image((folder + "/video-retarget-preview.png").toStdString(), sheet.view());
    }
};

QTEST_GUILESS_MAIN(TestVideoRetargetPreview)
#include "test_video_retarget_preview.moc"
