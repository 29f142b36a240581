// Seam carving on the CPU: the reference against brute force (every 8-connected seam of small
// images), the fast carver against the reference (identical order maps and costs), compaction,
// insertion, masks, and bad input.
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "seam_test_util.hpp"

#include <QtTest>

#include <filesystem>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare;
using lacuna::test::rect_mask;

namespace {

ImageRgba8 random_image(const int w, const int h, const int levels, std::mt19937& rng) {
    ImageRgba8 image(w, h);
    std::uniform_int_distribution<int> v(0, levels - 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto q = [&] { return std::uint8_t(v(rng) * (255 / std::max(levels - 1, 1))); };
            image.at(x, y) = Rgba8{q(), q(), q(), 255};
        }
    return image;
}

// The cost of one vertical seam (x per row) computed independently of any DP.
std::int64_t seam_cost(const ImageRgba8& img, const Mask* protect, const Mask* remove,
                       const SeamEnergy kind, const std::vector<int>& xs) {
    const auto row = [&](const int y) { return img.row(y); };
    const ClampedRgb<decltype(row)> pixels{row, img.width(), img.height()};
    std::int64_t total = 0;
    for (int y = 0; y < img.height(); ++y) {
        const int x = xs[y];
        total += pixel_energy(pixels, kind, x, y) +
                 mask_term(protect ? protect->at(x, y) : 0, remove ? remove->at(x, y) : 0);
        if (kind == SeamEnergy::Forward)
            total += forward_cost(pixels, x, y, y == 0 ? 0 : xs[y - 1] - x);
    }
    return total;
}

// Every 8-connected vertical seam; the cheapest, ties broken by the leftmost bottom pixel, then
// the leftmost pixel in the row above, and so on (the reference's rule).
std::pair<std::vector<int>, std::int64_t> brute_force(const ImageRgba8& img, const Mask* protect,
                                                      const Mask* remove, const SeamEnergy kind) {
    const int w = img.width(), h = img.height();
    std::vector<int> xs(h), best;
    std::int64_t best_cost = 0;
    const auto better = [&](const std::int64_t c) {
        if (best.empty() || c < best_cost) return true;
        if (c > best_cost) return false;
        for (int y = h - 1; y >= 0; --y) {
            if (xs[y] != best[y]) return xs[y] < best[y];
        }
        return false;
    };
    const std::function<void(int)> walk = [&](const int y) {
        if (y == h) {
            const std::int64_t c = seam_cost(img, protect, remove, kind, xs);
            if (better(c)) {
                best = xs;
                best_cost = c;
            }
            return;
        }
        for (int x = 0; x < w; ++x) {
            if (y > 0 && std::abs(x - xs[y - 1]) > 1) continue;
            xs[y] = x;
            walk(y + 1);
        }
    };
    walk(0);
    return {best, best_cost};
}

std::vector<int> seam_of(const SeamOrder& order, const int s) {
    std::vector<int> xs(order.height, -1);
    for (int y = 0; y < order.height; ++y)
        for (int x = 0; x < order.width; ++x)
            if (order.order.at(x, y) == s) xs[y] = x;
    return xs;
}

// The whole cumulative-cost map of `img` with the first k seams of `order` removed, computed
// from scratch (the reference's recurrence, independent of any carver): per row and original
// column, −1 where that pixel is gone.
std::vector<std::int64_t> full_costs_after(const ImageRgba8& img, const Mask* levels,
                                           const int unit, const SeamEnergy kind,
                                           const SeamOrder& order, const int k) {
    const int W = img.width(), h = img.height(), w = W - k;
    ImageRgba8 left(w, h);
    std::vector<int> column(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        int x = 0;
        for (int c = 0; c < W; ++c) {
            const std::int32_t s = order.order.at(c, y);
            if (s != kNeverRemoved && s < k) continue;
            left.at(x, y) = img.at(c, y);
            column[static_cast<std::size_t>(y) * w + x] = c;
            ++x;
        }
    }
    const auto row = [&](const int y) { return left.row(y); };
    const ClampedRgb<decltype(row)> pixels{row, w, h};
    std::vector<std::int64_t> dp(static_cast<std::size_t>(w) * h),
        out(static_cast<std::size_t>(W) * h, -1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const std::int64_t own = pixel_energy(pixels, kind, x, y) +
                                     (levels ? temporal_term(levels->at(column[i], y), unit) : 0);
            const bool forward = kind == SeamEnergy::Forward;
            std::int64_t best = 0;
            if (y == 0) {
                best = forward ? forward_cost(pixels, x, 0, 0) : 0;
            } else {
                bool any = false;
                for (int d = -1; d <= 1; ++d) {
                    if (x + d < 0 || x + d >= w) continue;
                    const std::int64_t c =
                        dp[i - w + d] + (forward ? forward_cost(pixels, x, y, d) : 0);
                    best = any ? std::min(best, c) : c;
                    any = true;
                }
            }
            dp[i] = best + own;
            out[static_cast<std::size_t>(y) * W + column[i]] = dp[i];
        }
    return out;
}

const SeamEnergy kEnergies[] = {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                SeamEnergy::Forward, SeamEnergy::Transversal};
constexpr int kEnergyCount = static_cast<int>(std::size(kEnergies));

ErrorCode retarget_error(const ImageRgba8& img, const RetargetParams& p, QString* text = nullptr) {
    try {
        (void)retarget(img.view(), p, CarveImplementation::Fast);
    } catch (const Error& e) {
        if (text) *text = e.what();
        return e.code();
    }
    return ErrorCode::DeviceError;  // sentinel: nothing thrown
}

}  // namespace

class TestSeamCarve : public QObject {
    Q_OBJECT
    std::mt19937 rng_{5};

  private slots:
    void carving_proxy_and_native_seams() {
        // The decision image normalises over the data's range with exact arithmetic: an 8-bit
        // image and its ×257 copy, or a signed copy shifted by −32768·…, decide alike.
        NativeImage bytes(13, 7, {SampleType::U8, 3});
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                for (int c = 0; c < 3; ++c)
                    bytes.set_sample(x, y, c, (x * 37 + y * 11 + c * 60) % 251 + 3);
        NativeImage deep(13, 7, {SampleType::U16, 3});
        NativeImage sign(13, 7, {SampleType::I16, 3});
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                for (int c = 0; c < 3; ++c) {
                    deep.set_sample(x, y, c, 257 * bytes.sample(x, y, c));
                    sign.set_sample(x, y, c, 100 * bytes.sample(x, y, c) - 20000);
                }
        const ops::CarvingProxy a = ops::carving_proxy(bytes), b = ops::carving_proxy(deep),
                                c = ops::carving_proxy(sign);
        QVERIFY(equal_pixels(a.image.view(), b.image.view()));
        QVERIFY(equal_pixels(a.image.view(), c.image.view()));
        QCOMPARE(a.raw_lo, 3.0);
        QCOMPARE(b.raw_hi, 257.0 * 253);
        // The darkest sample is level 0, the brightest 255, rounding half up in between.
        QCOMPARE(int(a.image.at(0, 0).r),
                 int(std::lround((bytes.sample(0, 0, 0) - 3) * 255.0 / 250)));
        // Removing moves whole pixels of any type; inserting averages in the stored type.
        const ops::SeamOrder order =
            ops::seam_order_fast({a.image.view(), nullptr, nullptr, SeamEnergy::Forward},
                                 ops::SeamDirection::Vertical, 4);
        const NativeImage narrow = ops::remove_seams(sign, order, 4);
        QCOMPARE(narrow.width(), 9);
        for (int y = 0; y < 7; ++y) {
            int out = 0;  // the kept pixels of each row, in order, every channel as stored
            for (int x = 0; x < 13; ++x) {
                if (order.order.at(x, y) < 4) continue;
                for (int ch = 0; ch < 3; ++ch)
                    QCOMPARE(narrow.sample(out, y, ch), sign.sample(x, y, ch));
                ++out;
            }
            QCOMPARE(out, 9);
        }
        NativeImage pair(2, 1, {SampleType::I16, 1});
        pair.set_sample(0, 0, 0, -5);
        pair.set_sample(1, 0, 0, -2);
        ops::SeamOrder first;
        first.direction = ops::SeamDirection::Vertical;
        first.width = 2;
        first.height = 1;
        first.seams = 1;
        first.order = Image<std::int32_t>(2, 1, ops::kNeverRemoved);
        first.order.at(0, 0) = 0;
        const NativeImage wide = ops::insert_seams(pair, first, 1);
        QCOMPARE(wide.width(), 3);
        QCOMPARE(wide.sample(1, 0, 0), -3.0);  // (-5 + -2 + 1) / 2 rounded down: half up
        QCOMPARE(wide.sample(2, 0, 0), -2.0);
    }

    void deep_decision_image_keeps_every_bit() {
        // The 16-bit decision image normalises like the 8-bit one, exactly, to 0..65535.
        NativeImage bytes(11, 5, {SampleType::U8, 1});
        NativeImage deep(11, 5, {SampleType::U16, 1});
        NativeImage real(11, 5, {SampleType::F32, 1});
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 11; ++x) {
                const int v = (x * 53 + y * 29) % 241 + 7;
                bytes.set_sample(x, y, 0, v);
                deep.set_sample(x, y, 0, 257 * v);
                real.set_sample(x, y, 0, 0.5 * v - 3);
            }
        const ops::DeepCarvingProxy a = ops::deep_carving_proxy(bytes),
                                    b = ops::deep_carving_proxy(deep),
                                    c = ops::deep_carving_proxy(real);
        QVERIFY(equal_pixels(a.image.view(), b.image.view()));
        QVERIFY(equal_pixels(a.image.view(), c.image.view()));
        const int v = static_cast<int>(bytes.sample(3, 2, 0));
        const double lo = a.raw_lo, hi = a.raw_hi;
        QCOMPARE(b.raw_hi, 257 * hi);
        QVERIFY(hi - lo > 200);
        QCOMPARE(int(a.image.at(3, 2).g), int(std::lround((v - lo) * 65535.0 / (hi - lo))));
        QCOMPARE(int(a.image.at(3, 2).a), 65535);

        // A ramp rising 120 samples on a 16-bit background, under hot columns that set the
        // range: less than half an 8-bit level, so the 8-bit proxy is flat there and its leftmost
        // tie-break takes the ramp with the first seams; the 16-bit decision image sees it and
        // carves the flat background instead.
        NativeImage field(24, 9, {SampleType::U16, 1});
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 24; ++x)
                field.set_sample(x, y, 0,
                                 x >= 2 && x <= 5 ? 1000 + 30 * (x - 1) : (x >= 22 ? 65535 : 1000));
        const ops::CarvingProxy coarse = ops::carving_proxy(field);
        const ops::DeepCarvingProxy fine = ops::deep_carving_proxy(field);
        QCOMPARE(int(coarse.image.at(3, 0).r), int(coarse.image.at(10, 0).r));  // flat at 8 bits
        QVERIFY(fine.image.at(3, 0).r > fine.image.at(10, 0).r);
        for (const SeamEnergy kind : kEnergies) {
            const ops::SeamOrder eight = ops::seam_order_fast(
                {coarse.image.view(), nullptr, nullptr, kind}, ops::SeamDirection::Vertical, 6);
            const ops::SeamOrder sixteen = ops::seam_order_fast(
                {fine.image.view(), nullptr, nullptr, kind}, ops::SeamDirection::Vertical, 6);
            QVERIFY2(eight.order.at(3, 4) < 6, qPrintable(QString::fromStdString(to_string(kind))));
            QVERIFY2(sixteen.order.at(3, 4) >= 6,
                     qPrintable(QString::fromStdString(to_string(kind))));
        }
    }

    void deep_carvers_agree_and_scale_with_8_bit() {
        int compared = 0;
        struct Case {
            int w, h, levels, seams;
        };
        const Case cases[] = {
            {2, 5, 4, 1}, {13, 1, 65536, 6}, {37, 23, 3, 20}, {41, 29, 65536, 30}};
        for (const Case& c : cases) {
            const Image<Rgba16> img = test::random_deep_image(c.w, c.h, c.levels, rng_);
            for (const SeamEnergy kind : kEnergies)
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const int extent = dir == SeamDirection::Vertical ? c.w : c.h;
                    const int seams = std::min(c.seams, extent - 1);
                    const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
                    const Mask remove =
                        rect_mask(c.w, c.h, c.w * 3 / 4, 0, std::min(c.w, c.w * 3 / 4 + 2), c.h);
                    for (const bool masks : {false, true}) {
                        const ops::DeepCarveInput in{img.view(), masks ? &protect : nullptr,
                                                     masks ? &remove : nullptr, kind};
                        const QString diff = compare(seam_order_reference(in, dir, seams),
                                                     seam_order_fast(in, dir, seams));
                        QVERIFY2(diff.isEmpty(), qPrintable(QString("%1x%2 %3: %4")
                                                                .arg(c.w)
                                                                .arg(c.h)
                                                                .arg(int(kind))
                                                                .arg(diff)));
                        ++compared;
                    }
                }
        }
        QCOMPARE(compared, 4 * kEnergyCount * 2 * 2);
        // An 8-bit image and its ×257 copy: the same seams, every cost × 257 (the energies are
        // homogeneous), with 32-bit energies where the 8-bit carver keeps 16-bit ones.
        const ImageRgba8 bytes = random_image(29, 19, 256, rng_);
        Image<Rgba16> scaled(29, 19);
        for (int y = 0; y < 19; ++y)
            for (int x = 0; x < 29; ++x) {
                const Rgba8 p = bytes.at(x, y);
                scaled.at(x, y) = Rgba16{static_cast<std::uint16_t>(257 * p.r),
                                         static_cast<std::uint16_t>(257 * p.g),
                                         static_cast<std::uint16_t>(257 * p.b), 65535};
            }
        for (const SeamEnergy kind : kEnergies)
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                const ops::SeamOrder a =
                    seam_order_fast({bytes.view(), nullptr, nullptr, kind}, dir, 15);
                ops::SeamOrder b = seam_order_fast(
                    ops::DeepCarveInput{scaled.view(), nullptr, nullptr, kind}, dir, 15);
                for (std::int64_t& cost : b.costs) {
                    QCOMPARE(cost % 257, std::int64_t{0});
                    cost /= 257;
                }
                QCOMPARE(compare(a, b), QString());
            }
    }

    void reference_matches_brute_force() {
        int checked = 0;
        for (const SeamEnergy kind : kEnergies) {
            for (int trial = 0; trial < 6; ++trial) {
                // Few grey levels: many equal costs, so the tie-break is exercised too.
                ImageRgba8 img = random_image(7, 6, trial < 3 ? 3 : 256, rng_);
                std::optional<Mask> protect, remove;
                if (trial == 4)
                    protect = rect_mask(7, 6, 2, 0, 4, 6);  // a protected band: seams go round it
                if (trial == 5) remove = rect_mask(7, 6, 5, 1, 6, 4);
                const Mask* pp = protect ? &*protect : nullptr;
                const Mask* rp = remove ? &*remove : nullptr;
                const SeamOrder order =
                    seam_order_reference({img.view(), pp, rp, kind}, SeamDirection::Vertical, 3);
                // Seam by seam: brute force on the image as it is when that seam is taken.
                for (int s = 0; s < 3; ++s) {
                    const auto [expected, cost] = brute_force(img, pp, rp, kind);
                    QCOMPARE(order.costs[s], cost);
                    // Map the current image's columns back to the original through the earlier
                    // seams.
                    std::vector<int> got = seam_of(order, s);
                    for (int y = 0; y < 6; ++y) {
                        int current = 0;
                        for (int x = 0; x < got[y]; ++x) current += order.order.at(x, y) > s;
                        QVERIFY2(current == expected[y],
                                 qPrintable(QString("%1 trial %2 seam %3 row %4: %5 vs %6")
                                                .arg(QString::fromStdString(to_string(kind)))
                                                .arg(trial)
                                                .arg(s)
                                                .arg(y)
                                                .arg(current)
                                                .arg(expected[y])));
                    }
                    // Remove that seam from the working copies for the next round.
                    // Columns already gone are dropped before this seam in `img`; rebuild the order
                    // on `img`'s grid.
                    SeamOrder local;
                    local.direction = SeamDirection::Vertical;
                    local.width = img.width();
                    local.height = 6;
                    local.seams = 1;
                    local.order = Image<std::int32_t>(img.width(), 6, kNeverRemoved);
                    for (int y = 0; y < 6; ++y) local.order.at(expected[y], y) = 0;
                    img = remove_seams<Rgba8>(img.view(), local, 1);
                    if (protect) protect = remove_seams<std::uint8_t>(protect->view(), local, 1);
                    if (remove) remove = remove_seams<std::uint8_t>(remove->view(), local, 1);
                    pp = protect ? &*protect : nullptr;
                    rp = remove ? &*remove : nullptr;
                    ++checked;
                }
            }
        }
        QCOMPARE(checked, kEnergyCount * 6 * 3);
    }

    void protected_band_is_avoided_and_removal_taken_first() {
        ImageRgba8 img = random_image(9, 8, 256, rng_);
        const Mask protect = rect_mask(9, 8, 0, 0, 5, 8);  // columns 0..4 protected
        const SeamOrder p = seam_order_reference({img.view(), &protect, nullptr, SeamEnergy::Sobel},
                                                 SeamDirection::Vertical, 4);
        QCOMPARE(p.protected_crossed,
                 (std::vector<std::int32_t>{0, 0, 0, 0}));  // 4 free columns: all avoid it
        const Mask remove = rect_mask(9, 8, 2, 0, 3, 8);    // column 2 marked
        const SeamOrder r = seam_order_reference({img.view(), nullptr, &remove, SeamEnergy::Sobel},
                                                 SeamDirection::Vertical, 1);
        for (int y = 0; y < 8; ++y) QCOMPARE(r.order.at(2, y), 0);
        QCOMPARE(r.remove_crossed[0], 8);
    }

    void fast_equals_reference() {
        int compared = 0;
        const ImageRgba8 photo =
            io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "resources/sample/fruits.jpg")
                .image;
        ImageRgba8 crop(97, 61);
        for (int y = 0; y < 61; ++y)
            for (int x = 0; x < 97; ++x) crop.at(x, y) = photo.at(200 + x, 150 + y);
        struct Case {
            ImageRgba8 img;
            int seams;
        };
        std::vector<Case> cases;
        cases.push_back({random_image(2, 5, 4, rng_), 1});
        cases.push_back({random_image(13, 1, 256, rng_), 6});
        cases.push_back({random_image(37, 23, 3, rng_), 20});
        cases.push_back({random_image(64, 33, 256, rng_), 40});
        cases.push_back({crop, 60});
        for (const Case& c : cases) {
            for (const SeamEnergy kind : kEnergies) {
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const int extent =
                        dir == SeamDirection::Vertical ? c.img.width() : c.img.height();
                    const int seams = std::min(c.seams, extent - 1);
                    const int w = c.img.width(), h = c.img.height();
                    const Mask protect = rect_mask(w, h, w / 4, h / 4, w / 2, h / 2);
                    const Mask remove =
                        rect_mask(w, h, w * 3 / 4, 0, std::min(w, w * 3 / 4 + 2), h);
                    for (const bool masks : {false, true}) {
                        const CarveInput in{c.img.view(), masks ? &protect : nullptr,
                                            masks ? &remove : nullptr, kind};
                        const QString diff = compare(seam_order_reference(in, dir, seams),
                                                     seam_order_fast(in, dir, seams));
                        QVERIFY2(diff.isEmpty(),
                                 qPrintable(QString("%1x%2 %3 %4 masks %5: %6")
                                                .arg(w)
                                                .arg(h)
                                                .arg(QString::fromStdString(to_string(kind)))
                                                .arg(dir == SeamDirection::Vertical ? "vertical"
                                                                                    : "horizontal")
                                                .arg(masks)
                                                .arg(diff)));
                        ++compared;
                    }
                }
            }
        }
        QCOMPARE(compared, 5 * kEnergyCount * 2 * 2);
    }

    // The fast carver stores each row in blocks and a removal shifts only within its block (one
    // block up to 2048 columns, 1024-pixel blocks beyond). Blocks of 1, 2, 3 and 5 pixels put
    // block ends everywhere in small images: every cell next to one takes the general path,
    // blocks run empty, a seam crosses them. Identical to the reference with every energy, both
    // directions, without masks (32-bit costs), with importance levels folded into them, and
    // with masks and levels beside them (64-bit costs).
    void fast_in_small_blocks_equals_reference() {
        const ImageRgba8 photo =
            io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "resources/sample/fruits.jpg")
                .image;
        ImageRgba8 crop(61, 37);
        for (int y = 0; y < 37; ++y)
            for (int x = 0; x < 61; ++x) crop.at(x, y) = photo.at(300 + x, 120 + y);
        std::vector<std::pair<ImageRgba8, int>> cases;
        cases.emplace_back(random_image(2, 5, 4, rng_), 1);
        cases.emplace_back(random_image(19, 11, 3, rng_), 15);
        cases.emplace_back(random_image(40, 23, 256, rng_), 30);
        cases.emplace_back(crop, 50);
        std::uniform_int_distribution<int> level(0, kTemporalLevels - 1);
        int compared = 0;
        for (const int block_px : {1, 2, 3, 5}) {
            const detail::ScopedCarveBlockSlots blocks(block_px);
            for (const auto& [img, most] : cases) {
                const int w = img.width(), h = img.height();
                Mask levels(w, h, 0);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        if (x > w / 2) levels.at(x, y) = static_cast<std::uint8_t>(level(rng_));
                const Mask protect = rect_mask(w, h, w / 4, h / 4, w / 2, h / 2);
                const Mask remove = rect_mask(w, h, w * 3 / 4, 0, std::min(w, w * 3 / 4 + 2), h);
                for (const SeamEnergy kind : kEnergies)
                    for (const SeamDirection dir :
                         {SeamDirection::Vertical, SeamDirection::Horizontal})
                        for (const int terms : {0, 1, 2}) {  // none, importance, masks + it
                            const int extent = dir == SeamDirection::Vertical ? w : h;
                            const int seams = std::min(most, extent - 1);
                            CarveInput in{img.view(), terms == 2 ? &protect : nullptr,
                                          terms == 2 ? &remove : nullptr, kind};
                            if (terms > 0) {
                                in.importance = &levels;
                                in.importance_unit = 48;
                            }
                            const QString diff = compare(seam_order_reference(in, dir, seams),
                                                         seam_order_fast(in, dir, seams));
                            QVERIFY2(diff.isEmpty(),
                                     qPrintable(QString("blocks of %1, %2x%3 %4 %5 terms %6: %7")
                                                    .arg(block_px)
                                                    .arg(w)
                                                    .arg(h)
                                                    .arg(QString::fromStdString(to_string(kind)))
                                                    .arg(int(dir))
                                                    .arg(terms)
                                                    .arg(diff)));
                            ++compared;
                        }
            }
        }
        QCOMPARE(compared, 4 * 4 * kEnergyCount * 2 * 3);
    }

    // seam_order_fast_profiled counts the incremental update's work (what `lacuna bench retarget`
    // reports as a proxy for the device's): the cells whose cost changed equal, exactly, the
    // cells where the from-scratch cost maps before and after each removal differ, with and
    // without an importance plateau and a line (a landscape of levels that funnels the cheapest
    // paths); and the band recomputed around them is tight (a few cells a row beyond them), so
    // no cheaper bound of the changed band is left to find.
    void fast_update_work_is_counted_and_tight() {
        const ImageRgba8 photo =
            io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "resources/sample/fruits.jpg")
                .image;
        const int W = 120, h = 70, seams = 30;
        ImageRgba8 img(W, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < W; ++x) img.at(x, y) = photo.at(150 + 2 * x, 100 + 2 * y);
        Mask levels(W, h, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < W; ++x) {
                const double dx = (x - 70) / 22.0, dy = (y - 30) / 18.0;
                const double r = std::sqrt(dx * dx + dy * dy);
                int level = r <= 1 ? 40 : std::max(0, static_cast<int>(40 * (1 - (r - 1) / 0.35)));
                if (y >= 52 && y <= 54 && x >= 10 && x < 90) level = std::max(level, 32);
                levels.at(x, y) = static_cast<std::uint8_t>(level);
            }
        const int unit = 48;
        for (const SeamEnergy kind : {SeamEnergy::Forward, SeamEnergy::Sobel})
            for (const bool with_levels : {false, true}) {
                CarveInput in{img.view(), nullptr, nullptr, kind};
                if (with_levels) {
                    in.importance = &levels;
                    in.importance_unit = unit;
                }
                CarveProfile profile;
                const SeamOrder order =
                    seam_order_fast_profiled(in, SeamDirection::Vertical, seams, profile);
                // Rows 120 wide: the spans take the vectorised row update (with levels, forward
                // energy's are packed above the intensities), which the block tests' short spans
                // do not reach.
                const QString diff =
                    compare(seam_order_reference(in, SeamDirection::Vertical, seams), order);
                QVERIFY2(diff.isEmpty(), qPrintable(diff));
                QVERIFY(
                    compare(seam_order_fast(in, SeamDirection::Vertical, seams), order).isEmpty());
                std::int64_t changed = 0;
                std::vector<std::int64_t> before =
                    full_costs_after(img, in.importance, unit, kind, order, 0);
                for (int k = 1; k < seams; ++k) {
                    const std::vector<std::int64_t> after =
                        full_costs_after(img, in.importance, unit, kind, order, k);
                    for (std::size_t i = 0; i < after.size(); ++i)
                        changed += after[i] >= 0 && after[i] != before[i];
                    before = after;
                }
                const QString what = QString("%1 levels %2: cells %3 changed %4, from scratch %5")
                                         .arg(QString::fromStdString(to_string(kind)))
                                         .arg(with_levels)
                                         .arg(profile.cells_per_seam)
                                         .arg(profile.changed_cells_per_seam)
                                         .arg(double(changed) / (seams - 1));
                QVERIFY2(profile.changed_cells_per_seam == double(changed) / (seams - 1),
                         qPrintable(what));
                QVERIFY2(profile.cells_per_seam >= profile.changed_cells_per_seam,
                         qPrintable(what));
                // Beyond the changed cells: the seam's neighbourhood (its energies were
                // recomputed) and one column either side of the row above's changes.
                QVERIFY2(profile.cells_per_seam - profile.changed_cells_per_seam <= 3.0 * h,
                         qPrintable(what));
                QCOMPARE(profile.seams, seams);
                QCOMPARE(profile.cost_bits, 32);
                QCOMPARE(profile.folded_levels, with_levels);
                qInfo("%s", qPrintable(what));
            }
    }

    // The level term folded into 32-bit costs (kMaxFoldedLevelTerm, seam_energy.h) at its worst:
    // 32768 rows or columns (the largest image side), every channel 0 or 255, levels mostly 63,
    // at the largest unit that folds (the fast carver's 32-bit layout), the first that does not
    // and the largest there is (its 64-bit layout; folded, that one would wrap the 16-bit
    // energies): the reference's 64-bit costs and seams every way, every energy.
    void folded_levels_at_the_extremes() {
        std::mt19937 rng(5);
        const int unit = kMaxFoldedLevelTerm / (kTemporalLevels - 1);
        QVERIFY(level_unit_folds(unit));
        QVERIFY(!level_unit_folds(unit + 1));
        const test::ExtremeLevels tall = test::extreme_levels(4, kMaxImageSide, rng);
        const test::ExtremeLevels wide = test::extreme_levels(kMaxImageSide, 4, rng);
        std::int64_t largest = 0;
        for (const SeamEnergy energy :
             {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Forward})
            for (const int u : {unit, unit + 1, kTemporalMaxUnit})
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const test::ExtremeLevels& e = dir == SeamDirection::Vertical ? tall : wide;
                    CarveInput in{e.image.view(), nullptr, nullptr, energy};
                    in.importance = &e.levels;
                    in.importance_unit = u;
                    const SeamOrder ref = seam_order_reference(in, dir, 3);
                    const QString diff = compare(ref, seam_order_fast(in, dir, 3));
                    QVERIFY2(diff.isEmpty(),
                             qPrintable(QString("%1 unit %2 %3: %4")
                                            .arg(QString::fromStdString(to_string(energy)))
                                            .arg(u)
                                            .arg(int(dir))
                                            .arg(diff)));
                    largest = std::max(largest, ref.costs[0]);
                }
        // The cheapest seams cost more than 2^29: the 32-bit costs are used near their range.
        QVERIFY2(largest > (std::int64_t{1} << 29), qPrintable(QString::number(largest)));
    }

    void compaction_and_insertion() {
        const ImageRgba8 img = random_image(31, 17, 256, rng_);
        const SeamOrder order = seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward},
                                                SeamDirection::Vertical, 10);
        for (int k = 0; k <= 10; ++k) {
            const ImageRgba8 smaller = remove_seams<Rgba8>(img.view(), order, k);
            QCOMPARE(smaller.width(), 31 - k);
            // The survivors keep their left-to-right order.
            for (int y = 0; y < 17; ++y) {
                int out = 0;
                for (int x = 0; x < 31; ++x)
                    if (order.order.at(x, y) >= k) QCOMPARE(smaller.at(out++, y), img.at(x, y));
            }
        }
        const ImageRgba8 wider = insert_seams(img.view(), order, 4);
        QCOMPARE(wider.width(), 35);
        for (int y = 0; y < 17; ++y) {
            int out = 0;
            for (int x = 0; x < 31; ++x) {
                QCOMPARE(wider.at(out++, y), img.at(x, y));
                if (order.order.at(x, y) < 4) {
                    const Rgba8 a = img.at(x, y), b = img.at(std::min(x + 1, 30), y);
                    QCOMPARE(int(wider.at(out, y).g), (a.g + b.g + 1) / 2);
                    ++out;
                }
            }
        }
        // Horizontal compaction.
        const SeamOrder rows = seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Sobel},
                                               SeamDirection::Horizontal, 5);
        QCOMPARE(remove_seams<Rgba8>(img.view(), rows, 5).height(), 12);
        QCOMPARE(insert_seams(img.view(), rows, 5).height(), 22);
    }

    // The "show seams" view: exactly the pixels of the first `count` seams take the colour, in
    // both directions; the rest is the image; bad counts and orders are refused.
    void paint_seams_marks_the_first_seams() {
        const ImageRgba8 img = random_image(31, 17, 256, rng_);
        const Rgba8 colour{255, 0, 255, 0};  // alpha 0: no pixel of the image has it
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            const int lines = dir == SeamDirection::Vertical ? 17 : 31;
            const int most = (dir == SeamDirection::Vertical ? 31 : 17) - 1;
            const SeamOrder order =
                seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward}, dir, most);
            for (const int k : {0, 1, 7, most}) {
                const ImageRgba8 painted = paint_seams(img.view(), order, k, colour);
                QCOMPARE(painted.width(), 31);
                QCOMPARE(painted.height(), 17);
                int marked = 0;
                for (int y = 0; y < 17; ++y)
                    for (int x = 0; x < 31; ++x) {
                        const bool in_seam = order.order.at(x, y) < k;
                        QCOMPARE(painted.at(x, y), in_seam ? colour : img.at(x, y));
                        marked += in_seam;
                    }
                QCOMPARE(marked, k * lines);  // one pixel per seam in every row (column)
            }
            QVERIFY_THROWS_EXCEPTION(Error, paint_seams(img.view(), order, most + 1, colour));
            QVERIFY_THROWS_EXCEPTION(Error, paint_seams(img.view(), order, -1, colour));
        }
        const ImageRgba8 other = random_image(30, 17, 256, rng_);
        const SeamOrder order = seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward},
                                                SeamDirection::Vertical, 3);
        QVERIFY_THROWS_EXCEPTION(Error, paint_seams(other.view(), order, 1, colour));
#ifndef LACUNA_HAS_CUDA
        // Without CUDA every device function says so.
        const DeviceImage<Rgba8> none;
        DeviceImage<Rgba8> dst;
        const DeviceSeamOrder device_order;
        const auto code = [](auto&& call) {
            try {
                call();
            } catch (const Error& e) {
                return e.code();
            }
            return ErrorCode::InvalidArgument;
        };
        // No device, so no stream to give: the call must refuse before it would use one.
        // check-device-streams: allow
        QCOMPARE(code([&] { (void)upload_order(order, DeviceStream{}); }),
                 ErrorCode::CudaUnavailable);
        QCOMPARE(code([&] {
                     (void)seam_order_cuda(DeviceCarveInput{&none, nullptr, nullptr},
                                           SeamDirection::Vertical, 1);
                 }),
                 ErrorCode::CudaUnavailable);
        QCOMPARE(code([&] { remove_seams(none, device_order, 0, dst); }),
                 ErrorCode::CudaUnavailable);
        QCOMPARE(code([&] { insert_seams(none, device_order, 0, dst); }),
                 ErrorCode::CudaUnavailable);
        QCOMPARE(code([&] { insert_seams_nearest(none, device_order, 0, dst); }),
                 ErrorCode::CudaUnavailable);
        QCOMPARE(code([&] { paint_seams(none, device_order, 0, colour, dst); }),
                 ErrorCode::CudaUnavailable);
#endif
    }

    void retarget_sizes_masks_and_overlay() {
        const ImageRgba8 img = random_image(40, 30, 256, rng_);
        RetargetParams p;
        p.width = 31;
        p.height = 24;
        p.want_overlay = true;
        const RetargetResult both = retarget(img.view(), p, CarveImplementation::Fast);
        QCOMPARE(both.image.width(), 31);
        QCOMPARE(both.image.height(), 24);
        QCOMPARE(both.overlay.width(), 40);
        int marked = 0;
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x) marked += both.overlay.at(x, y) != img.at(x, y);
        QVERIFY(marked >= 9 * 30);  // at least the vertical seams' pixels
        // Reference and fast agree on the whole pipeline.
        const RetargetResult ref = retarget(img.view(), p, CarveImplementation::Reference);
        QVERIFY(equal_pixels<Rgba8>(ref.image.view(), both.image.view()));
        QCOMPARE(ref.width_first, both.width_first);

        // Protection kept, removal cleared.
        const Mask protect = rect_mask(40, 30, 5, 5, 15, 25);
        const Mask remove = rect_mask(40, 30, 25, 3, 29, 20);
        RetargetParams m;
        m.width = 40 - seams_to_clear(remove, SeamDirection::Vertical);
        m.height = 30;
        m.protect = &protect;
        m.remove = &remove;
        QCOMPARE(m.width, 36);
        const RetargetResult r = retarget(img.view(), m, CarveImplementation::Fast);
        QCOMPARE(r.protected_removed, std::int64_t{0});
        QCOMPARE(r.remove_left, std::int64_t{0});
        QVERIFY(r.notes.empty());

        // Enlarging past 50 % goes in steps and reaches the exact size.
        p = RetargetParams{};
        p.width = 75;
        p.height = 30;
        const RetargetResult big = retarget(img.view(), p, CarveImplementation::Fast);
        QCOMPARE(big.image.width(), 75);
        QCOMPARE(big.seams_inserted_vertical, 35);
    }

    void bad_input_is_refused() {
        const ImageRgba8 img = random_image(20, 10, 256, rng_);
        RetargetParams p;
        p.width = 0;
        p.height = 10;
        QString text;
        QCOMPARE(retarget_error(img, p, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("at least 1 pixel"));
        p.width = 41;
        QCOMPARE(retarget_error(img, p, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("more than twice"));
        p.width = 15;
        const Mask wrong(19, 10, 0);
        p.protect = &wrong;
        QCOMPARE(retarget_error(img, p, &text), ErrorCode::InvalidArgument);
        QVERIFY2(text.contains("protect mask is 19x10 but the image is 20x10"), qPrintable(text));
        const Mask all(20, 10, 255);
        p.protect = &all;
        QCOMPARE(retarget_error(img, p, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("nothing can be carved"));
        p.protect = nullptr;
        p.remove = &wrong;
        QCOMPARE(retarget_error(img, p, &text), ErrorCode::InvalidArgument);
        const ImageRgba8 dot(1, 1, Rgba8{1, 2, 3, 255});
        RetargetParams d;
        d.width = 2;
        d.height = 1;
        QCOMPARE(retarget_error(dot, d, &text), ErrorCode::InvalidArgument);
        QVERIFY(text.contains("1x1"));
        // A protect mask that cannot be avoided is carved, and the result says so.
        const Mask wall = rect_mask(20, 10, 0, 4, 20, 5);  // a full protected row
        RetargetParams q;
        q.width = 18;
        q.height = 10;
        q.protect = &wall;
        const RetargetResult r = retarget(img.view(), q, CarveImplementation::Fast);
        QCOMPARE(r.protected_removed, std::int64_t{2});
        QCOMPARE(r.notes.size(), std::size_t{1});
        QVERIFY(QString::fromStdString(r.notes[0]).contains("protect mask had to be carved"));
        // Too many seams for a seam order.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::L1},
                                                 SeamDirection::Vertical, 20));
    }
};

QTEST_GUILESS_MAIN(TestSeamCarve)
#include "test_seam_carve.moc"
