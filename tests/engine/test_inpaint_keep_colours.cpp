// The blend's colours kept to the surroundings' (keep_ring_colours, patchmatch.hpp; issue 31):
// the gradient-domain blend's tone correction may not give a pixel a 5-bit colour that the
// known 16-px ring around the hole lacks, unless its copied colour lacks it already. Checked on
// a generated ramp whose blend crosses a shade the ring does not have, and end to end on
// home.jpg's sky (the bench's "sky" hole), where the blend mixed pasted birds and the cornice's
// shades into the blue.
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_quality.hpp>
#include <lacuna/ops/patchmatch.hpp>

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;

namespace {

std::filesystem::path photo(const char* name) {
    return std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name;
}

int bin(const Rgba8 p) {
    return ((p.r >> 3) << 10) | ((p.g >> 3) << 5) | (p.b >> 3);
}

/// The 5-bit colours of the known pixels within 16 px (chessboard) of the hole, read the slow
/// and obvious way.
std::vector<bool> ring_set(const ImageRgba8& image, const Mask& hole) {
    std::vector<bool> seen(1 << 15, false);
    const int w = image.width(), h = image.height();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (hole.at(x, y) != 0) continue;
            bool near = false;
            for (int dy = -16; dy <= 16 && !near; ++dy)
                for (int dx = -16; dx <= 16 && !near; ++dx) {
                    const int qx = x + dx, qy = y + dy;
                    near = qx >= 0 && qy >= 0 && qx < w && qy < h && hole.at(qx, qy) != 0;
                }
            if (near) seen[static_cast<std::size_t>(bin(image.at(x, y)))] = true;
        }
    return seen;
}

bool between(const int v, const int a, const int b) {
    return v >= std::min(a, b) && v <= std::max(a, b);
}

/// The rule, pixel by pixel: outside the hole and where `result` differs from `blended` nothing
/// changed; elsewhere each channel lies between the copy and the blend, a blend the ring has or
/// a correction over kKeepColoursMaxCorrection levels is kept, and a colour the ring lacks is
/// left only where the copy's colour lacks it too or the correction is over that bound.
void check_rule(const ImageRgba8& copy, const ImageRgba8& blended, const Mask& hole,
                const ImageRgba8& before, const ImageRgba8& after) {
    const std::vector<bool> seen = ring_set(blended, hole);
    const auto in_ring = [&](const Rgba8 p) { return seen[static_cast<std::size_t>(bin(p))]; };
    for (int y = 0; y < hole.height(); ++y)
        for (int x = 0; x < hole.width(); ++x) {
            const Rgba8 c = copy.at(x, y), b = blended.at(x, y), o = after.at(x, y);
            if (hole.at(x, y) == 0 || !(before.at(x, y) == b)) {
                QVERIFY(o == before.at(x, y));
                continue;
            }
            QVERIFY(between(o.r, c.r, b.r) && between(o.g, c.g, b.g) && between(o.b, c.b, b.b));
            const int correction =
                std::max({std::abs(c.r - b.r), std::abs(c.g - b.g), std::abs(c.b - b.b)});
            if (in_ring(b) || correction > kKeepColoursMaxCorrection) QVERIFY(o == b);
            if (in_ring(c) && correction <= kKeepColoursMaxCorrection)
                QVERIFY2(in_ring(o), qPrintable(QString("at %1,%2").arg(x).arg(y)));
        }
}

Mask ellipse(const int w, const int h, const int cx, const int cy, const int rx, const int ry) {
    Mask m(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            // Half a pixel wider than the radii: about OpenCV's filled ellipse, which the bench
            // draws (on messi5.jpg's fabric hole it covers every pixel of it, and 20 more).
            const double u = (x - cx) / (rx + 0.5), v = (y - cy) / (ry + 0.5);
            if (u * u + v * v <= 1.0) m.at(x, y) = 255;
        }
    return m;
}

}  // namespace

class TestInpaintKeepColours : public QObject {
    Q_OBJECT

  private slots:
    // A wall of 90 left of x = 40 and 110 right of it (5-bit bins 11 and 13; nothing in bin 12,
    // 96 … 103), a hole across the step copied wholly from the dark side: the blend ramps the
    // copy from 90 to 110 through bin 12, which the ring lacks. Kept, the ramp keeps to 88 … 95
    // and 104 … 111: no pixel in bin 12, each between its copy and its blend, and those the
    // blend put in the ring's bins unchanged.
    void a_ramp_keeps_to_the_rings_shades() {
        const int w = 96, h = 64;
        ImageRgba8 wall(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const auto v = static_cast<std::uint8_t>(x < 40 ? 90 : 110);
                wall.at(x, y) = Rgba8{v, v, v, 255};
            }
        Mask hole(w, h, 0);
        FillSources sources{w, h, {26, 20, 53, 43}, {}};
        ImageRgba8 copy = wall;
        for (int y = 20; y <= 43; ++y)
            for (int x = 26; x <= 53; ++x) {
                hole.at(x, y) = 1;
                sources.index.push_back(y * w + (x - 26 + 2));  // the dark side, x 2 … 29
                copy.at(x, y) = wall.at(x - 26 + 2, y);
            }
        const ImageRgba8 blended = blend_fill(copy, hole, sources);
        const auto in_bin_12 = [&](const ImageRgba8& image) {
            int n = 0;
            for (int y = 20; y <= 43; ++y)
                for (int x = 26; x <= 53; ++x) n += (image.at(x, y).r >> 3) == 12;
            return n;
        };
        QVERIFY2(in_bin_12(blended) > 20, qPrintable(QString::number(in_bin_12(blended))));
        const ImageRgba8 kept = keep_ring_colours(copy, blended, hole, blended);
        QCOMPARE(in_bin_12(kept), 0);
        check_rule(copy, blended, hole, blended, kept);
        // The right side still meets its border: the blend's correction stays there.

        // A pixel another stage replaced (the choice, the refill) is left as that stage made it.
        ImageRgba8 chosen = blended;
        for (int y = 20; y <= 43; ++y)
            for (int x = 26; x <= 53; ++x) chosen.at(x, y) = Rgba8{200, 0, 0, 255};
        const ImageRgba8 untouched = keep_ring_colours(copy, blended, hole, chosen);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) QVERIFY(untouched.at(x, y) == chosen.at(x, y));
    }

    // The bench's "sky" hole in home.jpg (seed 1): the fill pastes a few birds and the blend
    // mixes them and the cornice's shades into the blue, colours the ring lacks (foreign content
    // 0.095 against the truth's 0.063: over the bench's limit, 1.2 × the truth's + 0.01). With
    // the stage (0.030: under the limit), ops::inpaint's fill follows the rule pixel by pixel,
    // and its low-pass PSNR against the photo moves by less than 0.1 dB.
    void the_sky_loses_the_blends_foreign_shades() {
        const ImageRgba8 photo_ = io::read_image(photo("home.jpg")).image;
        const Mask hole = ellipse(photo_.width(), photo_.height(), 90, 330, 28, 22);
        InpaintParams off;
        off.keep_colours = false;
        const ImageRgba8 plain =
            inpaint(photo_.view(), hole, off, InpaintImplementation::Fast).image;
        const ImageRgba8 kept =
            inpaint(photo_.view(), hole, InpaintParams{}, InpaintImplementation::Fast).image;
        const double limit = 1.2 * foreign_content(photo_.view(), hole) + 0.01;
        const double foreign_plain = foreign_content(plain.view(), hole);
        const double foreign_kept = foreign_content(kept.view(), hole);
        qInfo() << "foreign content" << foreign_plain << "->" << foreign_kept << "limit" << limit;
        QVERIFY2(foreign_plain > limit, qPrintable(QString::number(foreign_plain)));
        QVERIFY2(foreign_kept < limit && foreign_kept < 0.7 * foreign_plain,
                 qPrintable(QString::number(foreign_kept)));
        const double lp_plain = lowpass_psnr(plain.view(), photo_.view(), hole);
        const double lp_kept = lowpass_psnr(kept.view(), photo_.view(), hole);
        QVERIFY2(std::abs(lp_kept - lp_plain) < 0.1,
                 qPrintable(QString("%1 against %2").arg(lp_kept).arg(lp_plain)));
        // The stage on the fill's own copy and blend, after what the choice and the refill made
        // of it, gives ops::inpaint's picture.
        const auto filler = make_inpainter(photo_.view(), hole, off, InpaintImplementation::Fast);
        while (!filler->progress().done()) filler->advance(1 << 20);
        const ImageRgba8 copy = filler->image();
        const ImageRgba8 blended = finished_image(*filler);
        QVERIFY(blended.width() == plain.width());
        const ImageRgba8 staged = keep_ring_colours(copy, blended, hole, plain);
        for (int y = 0; y < hole.height(); ++y)
            for (int x = 0; x < hole.width(); ++x) QVERIFY(staged.at(x, y) == kept.at(x, y));
        check_rule(copy, blended, hole, plain, kept);
    }
};

QTEST_APPLESS_MAIN(TestInpaintKeepColours)
#include "test_inpaint_keep_colours.moc"
