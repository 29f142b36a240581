// The video fill's compact form (flows of several frame pairs at once, each flow field kept only
// where propagation reads it, one reference per hole pixel, frames handed on as they are final)
// against its plain form (every flow field whole, the pairs one after another): the frames and
// the counts must be identical, on a pan under a still mask, a moving card under per-frame masks
// (with a frame that has no hole), a clip with a scene cut, and through `inpaint_video` to files.
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/inpaint_video.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <string>
#include <vector>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

constexpr int kW = 200, kH = 120;
const std::string kPhoto = LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg";

struct Clip {
    std::vector<ImageRgba8> input;
    std::vector<Mask> masks;  ///< one (still) or one a frame
};

/// The photo's window at (20 + pan·f, 60 + sway) with a red and orange card: still (the still
/// mask) or moving 5 px right and 1 px down a frame (one mask a frame, the card grown by 2 px).
/// The sway is sub-pixel-free but changes direction, so steps fail the check at places.
Clip make_clip(const int frames, const int pan, const bool moving) {
    const ImageRgba8 photo = io::read_image(kPhoto).image;
    Clip c;
    Mask still(kW, kH, std::uint8_t{0});
    for (int f = 0; f < frames; ++f) {
        const int ox = 20 + pan * f, oy = 60 + (f % 4 < 2 ? f % 4 : 4 - f % 4);
        ImageRgba8 in(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) in.at(x, y) = photo.at(ox + x, oy + y);
        Mask card(kW, kH, std::uint8_t{0});
        const int x0 = moving ? 20 + 5 * f : 110, y0 = moving ? 40 + f : 30, size = 28;
        for (int y = y0; y < y0 + size; ++y)
            for (int x = x0; x < x0 + size; ++x) {
                const bool check = ((x - x0) / 4 + (y - y0) / 4) % 2 == 0;
                in.at(x, y) = check ? Rgba8{230, 30, 30, 255} : Rgba8{250, 140, 20, 255};
                card.at(x, y) = 255;
            }
        c.input.push_back(std::move(in));
        if (moving)
            c.masks.push_back(grow_mask(card.view(), 2));
        else
            still = grow_mask(card.view(), 2);
    }
    if (!moving) c.masks.push_back(std::move(still));
    return c;
}

int differing_pixels(const ImageRgba8& a, const ImageRgba8& b) {
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const Rgba8 p = a.at(x, y), q = b.at(x, y);
            n += p.r != q.r || p.g != q.g || p.b != q.b || p.a != q.a;
        }
    return n;
}

/// Fills `clip` both ways and checks every frame and count is the same.
void expect_compact_equals_plain(const Clip& clip, const video::TemporalFill method) {
    video::VideoInpaintParams compact, plain;
    compact.temporal.method = plain.temporal.method = method;
    compact.compact = true;
    plain.compact = false;
    video::VideoInpaintStats a, b;
    const std::vector<ImageRgba8> fast = video::inpaint_frames(clip.input, clip.masks, compact, &a);
    const std::vector<ImageRgba8> slow = video::inpaint_frames(clip.input, clip.masks, plain, &b);
    QCOMPARE(fast.size(), slow.size());
    for (std::size_t f = 0; f < fast.size(); ++f)
        QVERIFY2(differing_pixels(fast[f], slow[f]) == 0,
                 qPrintable(QString("frame %1: %2 pixels differ")
                                .arg(f)
                                .arg(differing_pixels(fast[f], slow[f]))));
    QCOMPARE(a.hole_pixels, b.hole_pixels);
    QCOMPARE(a.from_other_frames, b.from_other_frames);
    QCOMPARE(a.carried, b.carried);
    QCOMPARE(a.synthesized, b.synthesized);
    QCOMPARE(a.key_fills, b.key_fills);
    QCOMPARE(a.volume_fills, b.volume_fills);
    QCOMPARE(a.cuts, b.cuts);
    qInfo("%lld hole pixels: %lld from other frames, %lld carried, %lld filled on %d key frames",
          static_cast<long long>(a.hole_pixels), static_cast<long long>(a.from_other_frames),
          static_cast<long long>(a.carried), static_cast<long long>(a.synthesized), a.key_fills);
}

/// Both ways of filling what no frame shows.
void expect_compact_equals_plain(const Clip& clip) {
    for (const video::TemporalFill method :
         {video::TemporalFill::PatchMatch3d, video::TemporalFill::Image})
        expect_compact_equals_plain(clip, method);
}

}  // namespace

class TestVideoInpaintCompact : public QObject {
    Q_OBJECT

  private slots:
    void still_mask_over_a_pan() { expect_compact_equals_plain(make_clip(24, 3, false)); }

    // Per-frame masks, one of them empty, over a still camera: references chain through the
    // neighbours' holes and key fills are carried.
    void moving_card_and_an_empty_mask() {
        Clip c = make_clip(20, 0, true);
        c.masks[7] = Mask(kW, kH, std::uint8_t{0});
        expect_compact_equals_plain(c);
    }

    void moving_card_over_a_pan() { expect_compact_equals_plain(make_clip(20, 4, true)); }

    // Two shots: the second the first upside down and darker.
    void a_scene_cut() {
        Clip c = make_clip(12, 3, false);
        for (int f = 6; f < 12; ++f) {
            ImageRgba8 flipped(kW, kH);
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x) {
                    Rgba8 p = c.input[f].at(x, kH - 1 - y);
                    p.r /= 3, p.g /= 3, p.b /= 3;
                    flipped.at(x, y) = p;
                }
            c.input[f] = std::move(flipped);
        }
        video::VideoInpaintStats stats;
        (void)video::inpaint_frames(c.input, c.masks, {}, &stats);
        QCOMPARE(stats.cuts, 1);
        expect_compact_equals_plain(c);
    }

    // The sink receives every frame once, in order, as the vector form returns them.
    void the_sink_gets_the_frames_in_order() {
        const Clip c = make_clip(10, 3, true);
        const std::vector<ImageRgba8> all = video::inpaint_frames(c.input, c.masks, {});
        int next = 0;
        video::inpaint_frames(c.input, c.masks, {}, [&](const int t, ImageRgba8&& frame) {
            QCOMPARE(t, next);
            QCOMPARE(differing_pixels(frame, all[static_cast<std::size_t>(t)]), 0);
            ++next;
        });
        QCOMPARE(next, 10);
    }

    // inpaint_video encodes each frame on its own thread while the fill goes on: the PNG
    // sequence it writes is the in-memory fill of the decoded clip, byte for byte; a failing
    // fill (cancelled halfway) leaves no output.
    void the_file_job_writes_what_the_fill_gives() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const Clip c = make_clip(16, 3, true);
        fs::create_directories(root / "in");
        fs::create_directories(root / "masks");
        {
            io::VideoWriter w(root / "in" / "%04d.png", kW, kH, 25.0);
            for (const ImageRgba8& f : c.input) w.write(f);
            w.finish();
            io::VideoWriter m(root / "masks" / "%04d.png", kW, kH, 25.0);
            for (const Mask& mask : c.masks) {
                ImageRgba8 picture(kW, kH);
                for (int y = 0; y < kH; ++y)
                    for (int x = 0; x < kW; ++x) {
                        const std::uint8_t v = mask.at(x, y) ? 255 : 0;
                        picture.at(x, y) = Rgba8{v, v, v, 255};
                    }
                m.write(picture);
            }
            m.finish();
        }
        video::InpaintVideoOptions o;
        o.input = root / "in" / "%04d.png";
        o.mask = root / "masks" / "%04d.png";
        o.output = root / "out" / "%04d.png";
        fs::create_directories(root / "out");
        const video::InpaintVideoResult r = video::inpaint_video(o);
        QCOMPARE(r.frames, 16);
        const std::vector<ImageRgba8> expected = video::inpaint_frames(c.input, c.masks, {});
        io::VideoReader reader(o.output);
        int f = 0;
        while (auto frame = reader.next()) {
            QVERIFY(f < 16);
            QCOMPARE(differing_pixels(*frame, expected[static_cast<std::size_t>(f)]), 0);
            ++f;
        }
        QCOMPARE(f, 16);

        o.output = root / "cancelled" / "%04d.png";
        fs::create_directories(root / "cancelled");
        QVERIFY_THROWS_EXCEPTION(Error,
                                 video::inpaint_video(o, [](const video::VideoInpaintProgress& p) {
                                     return !(p.stage == "fill" && p.done >= 8);
                                 }));
        QVERIFY(fs::is_empty(root / "cancelled"));
    }
};

QTEST_APPLESS_MAIN(TestVideoInpaintCompact)
#include "test_video_inpaint_compact.moc"
