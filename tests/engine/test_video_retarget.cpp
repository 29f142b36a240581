// Video retargeting: the temporal term in every carver (against the reference), the distance
// map, coherence over frames, scene cuts, protect masks, the flicker measure and bad input.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include "seam_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare;
using lacuna::test::random_seam_paths;
using lacuna::test::rect_mask;

namespace {

// A textured scene (smooth blobs and stripes) shifted `pan` pixels right, plus sensor noise:
// consecutive frames differ little, and many seams through the smooth parts cost about the same,
// so per-frame carving is free to jump between them.
ImageRgba8 scene(const int w, const int h, const double pan, const int noise, std::mt19937& rng,
                 const int variant = 0) {
    std::uniform_int_distribution<int> jitter(-noise, noise);
    ImageRgba8 img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double u = x - pan;
            double v = 120 + 60 * std::sin(u * 0.07 + variant) * std::cos(y * 0.05);
            if (static_cast<int>(std::floor(u / 23.0)) % 4 == 0) v += 50;  // stripes
            if (variant != 0) v = 255 - v;
            const auto c = [&](const double t) {
                return static_cast<std::uint8_t>(std::clamp(t + jitter(rng), 0.0, 255.0));
            };
            img.at(x, y) = Rgba8{c(v), c(0.8 * v + 20), c(0.6 * v + 40), 255};
        }
    return img;
}

/// importance_unit() of lacuna_importance (this test links the carvers only).
int importance_unit_for(const SeamEnergy kind) {
    switch (kind) {
        case SeamEnergy::Prewitt:
            return 96;
        case SeamEnergy::Sobel:
            return 128;
        default:
            return 48;
    }
}

}  // namespace

class TestVideoRetarget : public QObject {
    Q_OBJECT
    std::mt19937 rng_{17};

  private slots:
    void distance_map_is_exact() {
        SeamOrder order;
        order.direction = SeamDirection::Vertical;
        order.width = 9;
        order.height = 2;
        order.seams = 2;
        order.order = Image<std::int32_t>(9, 2, kNeverRemoved);
        order.order.at(2, 0) = 0;
        order.order.at(6, 0) = 1;
        order.order.at(8, 1) = 0;
        order.order.at(0, 1) = 1;
        const Mask map = temporal_distance_map(order, 2);
        const int row0[9] = {2, 1, 0, 1, 2, 1, 0, 1, 2};
        const int row1[9] = {0, 1, 2, 3, 4, 3, 2, 1, 0};
        for (int x = 0; x < 9; ++x) {
            QCOMPARE(int(map.at(x, 0)), row0[x]);
            QCOMPARE(int(map.at(x, 1)), row1[x]);
        }
        // Only the first seam: row 1 measures from column 8; the cap where a line has none.
        const Mask first = temporal_distance_map(order, 1);
        QCOMPARE(int(first.at(0, 1)), 8);
        QCOMPARE(int(temporal_distance_map(order, 0).at(4, 0)), kTemporalLevels - 1);
        // Horizontal seams measure along columns.
        order.direction = SeamDirection::Horizontal;
        const Mask columns = temporal_distance_map(order, 2);
        QCOMPARE(int(columns.at(2, 1)), 1);
        QCOMPARE(int(columns.at(0, 0)), 1);
        QCOMPARE(int(columns.at(1, 0)), kTemporalLevels - 1);  // column 1 has none removed
    }

    void temporal_term_equals_reference_in_every_carver() {
        int compared = 0;
        for (const auto& [w, h] : {std::pair{7, 5}, std::pair{23, 17}, std::pair{40, 31}}) {
            std::uniform_int_distribution<int> pick(0, 255), level(0, kTemporalLevels - 1);
            ImageRgba8 img(w, h);
            Mask distances(w, h, 0);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const auto v = static_cast<std::uint8_t>(pick(rng_) / 64 * 64);
                    img.at(x, y) = Rgba8{v, v, v, 255};
                    distances.at(x, y) = static_cast<std::uint8_t>(level(rng_));
                }
            const Mask protect = rect_mask(w, h, w / 3, h / 3, w / 2, h / 2);
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const int unit : {1, 40, kTemporalMaxUnit}) {
                        CarveInput in{img.view(), unit == 40 ? &protect : nullptr, nullptr, kind};
                        in.temporal = &distances;
                        in.temporal_unit = unit;
                        const int seams = std::min(6, (dir == SeamDirection::Vertical ? w : h) - 1);
                        const SeamOrder gold = seam_order_reference(in, dir, seams);
                        QCOMPARE(compare(gold, seam_order_fast(in, dir, seams)), QString());
                        ++compared;
                    }
        }
        QCOMPARE(compared, 3 * 5 * 2 * 3);
        // The term steers: a map that is 0 on column 5 and large elsewhere takes column 5 first.
        ImageRgba8 flat(12, 6, Rgba8{90, 90, 90, 255});
        Mask pull(12, 6, kTemporalLevels - 1);
        for (int y = 0; y < 6; ++y) pull.at(5, y) = 0;
        CarveInput in{flat.view(), nullptr, nullptr, SeamEnergy::Forward};
        QCOMPARE(seam_order_fast(in, SeamDirection::Vertical, 1).order.at(0, 3), 0);
        in.temporal = &pull;
        in.temporal_unit = 3;
        const SeamOrder pulled = seam_order_fast(in, SeamDirection::Vertical, 1);
        for (int y = 0; y < 6; ++y) QCOMPARE(pulled.order.at(5, y), 0);
        QCOMPARE(pulled.costs[0], std::int64_t{0});
    }

    void seam_paths_are_the_crossings() {
        // Two vertical seams of a 5 × 3 image, and the same order read as horizontal seams.
        SeamOrder order;
        order.width = 5;
        order.height = 3;
        order.seams = 2;
        order.order = Image<std::int32_t>(5, 3, kNeverRemoved);
        const int first[3] = {1, 2, 2}, second[3] = {4, 3, 4};
        for (int y = 0; y < 3; ++y) {
            order.order.at(first[y], y) = 0;
            order.order.at(second[y], y) = 1;
        }
        const SeamPaths paths = seam_paths(order, 2);
        QCOMPARE(paths.lines, 3);
        QCOMPARE(paths.count, 2);
        for (int y = 0; y < 3; ++y) {
            QCOMPARE(paths.at(0, y), first[y]);
            QCOMPARE(paths.at(1, y), second[y]);
        }
        QCOMPARE(seam_paths(order, 1).positions.size(), std::size_t{3});
        QVERIFY_THROWS_EXCEPTION(Error, seam_paths(order, 3));
        // Horizontal: a carve's own order gives one position per column, inside the column.
        const ImageRgba8 img = scene(30, 20, 0, 4, rng_);
        const CarveInput in{img.view(), nullptr, nullptr, SeamEnergy::Forward};
        const SeamOrder rows = seam_order_fast(in, SeamDirection::Horizontal, 6);
        const SeamPaths across = seam_paths(rows, 6);
        QCOMPARE(across.lines, 30);
        for (int k = 0; k < 6; ++k)
            for (int x = 0; x < 30; ++x) QCOMPARE(rows.order.at(x, across.at(k, x)), k);
    }

    void per_seam_term_equals_reference_in_every_carver() {
        // Random previous paths (near and far from each other) over sizes around the cap's
        // window, every energy, both directions, with and without a protect mask; the fast
        // carver also with its rows in blocks of 3 pixels (block ends inside the windows).
        int compared = 0;
        for (const int block_px : {0, 3})
            for (const auto& [w, h] : {std::pair{7, 5}, std::pair{40, 31}, std::pair{121, 23}}) {
                const ops::detail::ScopedCarveBlockSlots blocks(block_px);
                std::uniform_int_distribution<int> pick(0, 255);
                ImageRgba8 img(w, h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const auto v = static_cast<std::uint8_t>(pick(rng_) / 64 * 64);
                        img.at(x, y) = Rgba8{v, v, v, 255};
                    }
                const Mask protect = rect_mask(w, h, w / 3, h / 3, w / 2, h / 2);
                for (const SeamEnergy kind :
                     {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Forward,
                      SeamEnergy::Transversal})
                    for (const SeamDirection dir :
                         {SeamDirection::Vertical, SeamDirection::Horizontal})
                        for (const int unit : {1, 40, kTemporalMaxUnit}) {
                            const bool vertical = dir == SeamDirection::Vertical;
                            const int seams = std::min(12, (vertical ? w : h) - 1);
                            const SeamPaths paths =
                                random_seam_paths(vertical ? h : w, seams, vertical ? w : h, rng_);
                            CarveInput in{img.view(), unit == 40 ? &protect : nullptr, nullptr,
                                          kind};
                            in.temporal_seams = &paths;
                            in.temporal_unit = unit;
                            const SeamOrder gold = seam_order_reference(in, dir, seams);
                            QCOMPARE(compare(gold, seam_order_fast(in, dir, seams)), QString());
                            ++compared;
                        }
            }
        QCOMPARE(compared, 2 * 3 * 5 * 2 * 3);
    }

    void per_seam_term_steers_each_seam() {
        // A flat picture: without the term seam 0 takes column 0; with it, seam k takes the
        // pixels where the previous frame's seam k ran (columns 9, then 3, in original columns),
        // at no cost.
        ImageRgba8 flat(16, 6, Rgba8{90, 90, 90, 255});
        SeamPaths paths;
        paths.lines = 6;
        paths.count = 2;
        paths.positions = {9, 9, 9, 9, 9, 9, 3, 3, 3, 3, 3, 3};
        CarveInput in{flat.view(), nullptr, nullptr, SeamEnergy::Forward};
        QCOMPARE(seam_order_fast(in, SeamDirection::Vertical, 1).order.at(0, 3), 0);
        in.temporal_seams = &paths;
        in.temporal_unit = 5;
        for (const CarveImplementation how :
             {CarveImplementation::Reference, CarveImplementation::Fast}) {
            const SeamOrder pulled = seam_order(in, SeamDirection::Vertical, 2, how);
            for (int y = 0; y < 6; ++y) {
                QCOMPARE(pulled.order.at(9, y), 0);
                QCOMPARE(pulled.order.at(3, y), 1);
            }
            QCOMPARE(pulled.costs[0], std::int64_t{0});
            QCOMPARE(pulled.costs[1], std::int64_t{0});
        }
        // One column off costs one unit per row.
        Mask wall(16, 6, 0);
        for (int y = 0; y < 6; ++y) wall.at(9, y) = 255;  // protected: seam 0 must step aside
        in.protect = &wall;
        const SeamOrder aside = seam_order_fast(in, SeamDirection::Vertical, 1);
        QCOMPARE(aside.costs[0], std::int64_t{6 * 5});
        QCOMPARE(aside.order.at(8, 0), 0);
    }

    void temporal_frames_stay_coherent() {
        // Slow pan with noise: independent frames move their seams about; with either temporal
        // term the removed pixels of consecutive frames mostly coincide, and the flicker excess
        // drops.
        constexpr int w = 160, h = 90, frames = 8;
        std::vector<ImageRgba8> clip;
        for (int f = 0; f < frames; ++f) clip.push_back(scene(w, h, 0.5 * f, 6, rng_));
        double share[3] = {0, 0, 0}, excess[3] = {0, 0, 0};
        for (const int mode : {0, 1, 2}) {  // independent, per seam, removed pixels
            VideoRetargetParams p;
            p.width = 120;
            p.height = h;
            p.temporal = mode == 0 ? 0.0 : 2.0;
            p.term = mode == 2 ? TemporalTerm::RemovedPixels : TemporalTerm::PerSeam;
            VideoRetargeter carver(w, h, p, CarveImplementation::Fast);
            FlickerMeter meter;
            std::optional<SeamOrder> previous;
            for (const ImageRgba8& frame : clip) {
                const ImageRgba8 out = carver.process(frame.view());
                QCOMPARE(out.width(), 120);
                QCOMPARE(out.height(), h);
                meter.add(frame.view(), out.view());
                if (previous)
                    share[mode] += removed_pixels_changed(*previous, *carver.vertical_order(), 40);
                previous = carver.vertical_order();
            }
            QCOMPARE(carver.cuts(), 0);
            QCOMPARE(meter.pairs(), frames - 1);
            share[mode] /= frames - 1;
            excess[mode] = meter.excess();
        }
        qInfo(
            "removed pixels changing per frame: independent %.3f, per seam %.3f, removed pixels "
            "%.3f; flicker excess %.3f, %.3f, %.3f",
            share[0], share[1], share[2], excess[0], excess[1], excess[2]);
        for (const int mode : {1, 2}) {
            QVERIFY2(share[mode] < 0.5 * share[0],
                     qPrintable(QString("term %1: removed pixels changing per frame: independent "
                                        "%2, temporal %3")
                                    .arg(mode)
                                    .arg(share[0])
                                    .arg(share[mode])));
            QVERIFY2(excess[mode] < excess[0],
                     qPrintable(QString("term %1: flicker excess: independent %2, temporal %3")
                                    .arg(mode)
                                    .arg(excess[0])
                                    .arg(excess[mode])));
        }
        QCOMPARE(to_string(TemporalTerm::PerSeam), std::string("seam"));
        QCOMPARE(parse_temporal_term("removed"), std::optional{TemporalTerm::RemovedPixels});
        QCOMPARE(parse_temporal_term("nearest"), std::optional<TemporalTerm>{});
    }

    // The CPU wave: a thread per frame, each waiting only for the previous frame's seam k + 1,
    // gives the orders of the fast carver run frame after frame with the previous order's paths;
    // a cut in the middle follows nothing. Both directions, with and without a protect mask.
    void chained_frames_on_the_cpu_equal_frame_by_frame() {
        constexpr int w = 96, h = 60, frames = 5, seams = 24;
        std::vector<ImageRgba8> clip;
        for (int f = -1; f < frames; ++f) clip.push_back(scene(w, h, 0.7 * (f + 1), 5, rng_));
        const Mask protect = rect_mask(w, h, 30, 20, 50, 40);
        std::vector<bool> follows(frames, true);
        follows[2] = false;
        int compared = 0;
        for (const int block_px : {0, 5})  // the fast carver's rows in blocks of 5 pixels too
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                for (const bool masks : {false, true}) {
                    const ops::detail::ScopedCarveBlockSlots blocks(block_px);
                    const auto input = [&](const int f) {
                        return CarveInput{clip[static_cast<std::size_t>(f + 1)].view(),
                                          masks ? &protect : nullptr, nullptr, SeamEnergy::Forward};
                    };
                    const SeamPaths first =
                        seam_paths(seam_order_fast(input(-1), dir, seams), seams);
                    std::vector<CarveInput> inputs;
                    for (int f = 0; f < frames; ++f) inputs.push_back(input(f));
                    const std::vector<SeamOrder> chained =
                        seam_orders_fast_chained(inputs, dir, seams, &first, follows, 16);
                    QCOMPARE(chained.size(), std::size_t{frames});
                    SeamPaths previous = first;
                    for (int f = 0; f < frames; ++f) {
                        CarveInput in = input(f);
                        if (follows[static_cast<std::size_t>(f)]) {
                            in.temporal_seams = &previous;
                            in.temporal_unit = 16;
                        }
                        const SeamOrder gold = seam_order_fast(in, dir, seams);
                        QCOMPARE(compare(gold, chained[static_cast<std::size_t>(f)]), QString());
                        previous = seam_paths(gold, seams);
                        ++compared;
                    }
                }
        QCOMPARE(compared, 2 * 2 * 2 * frames);
        // Bad input: frames of two sizes, a first frame that follows no paths.
        const ImageRgba8 a(20, 10), b(21, 10);
        std::vector<CarveInput> two{CarveInput{a.view()}, CarveInput{b.view()}};
        QVERIFY_THROWS_EXCEPTION(Error, seam_orders_fast_chained(two, SeamDirection::Vertical, 3,
                                                                 nullptr, {false, true}, 8));
        two[1].image = a.view();
        QVERIFY_THROWS_EXCEPTION(Error, seam_orders_fast_chained(two, SeamDirection::Vertical, 3,
                                                                 nullptr, {true, true}, 8));
        QCOMPARE(
            seam_orders_fast_chained(two, SeamDirection::Vertical, 3, nullptr, {false, true}, 8)
                .size(),
            std::size_t{2});
    }

    // The video carver in groups of 3 on the CPU (a remainder, width and height, a protect mask,
    // a cut) gives the frames it gives one after another; other settings are not chained.
    void batched_video_on_the_cpu_equals_frame_by_frame() {
        constexpr int w = 120, h = 72, frames = 8;
        std::mt19937 other(3);
        std::vector<ImageRgba8> clip;
        for (int f = 0; f < frames; ++f)
            clip.push_back(f == 5 ? scene(w, h, 0, 5, other, 1) : scene(w, h, 0.6 * f, 5, rng_));
        const Mask protect = rect_mask(w, h, 40, 20, 70, 50);
        VideoRetargetParams p;
        p.width = 91;
        p.height = 63;
        p.temporal = 1.5;
        p.protect = &protect;
        p.chained_frames = 3;
        VideoRetargeter one_by_one(w, h, p, CarveImplementation::Fast);
        VideoRetargeter grouped(w, h, p, CarveImplementation::Fast);
        QCOMPARE(grouped.frames_in_flight(), 3);
        int checked = 0;
        for (int f = 0; f < frames; f += 3) {
            std::vector<ImageView<const Rgba8>> views;
            for (int g = f; g < std::min(frames, f + 3); ++g)
                views.push_back(clip[static_cast<std::size_t>(g)].view());
            const std::vector<ImageRgba8> out = grouped.process_batch(views);
            QCOMPARE(out.size(), views.size());
            for (std::size_t i = 0; i < views.size(); ++i) {
                const ImageRgba8 expected = one_by_one.process(views[i]);
                QCOMPARE(out[i].width(), 91);
                QCOMPARE(out[i].height(), 63);
                bool same = true;
                for (int y = 0; y < 63; ++y)
                    same = same && std::equal(out[i].row(y), out[i].row(y) + 91, expected.row(y));
                QVERIFY2(same, qPrintable(QString("frame %1").arg(f + static_cast<int>(i))));
                ++checked;
            }
        }
        QCOMPARE(checked, frames);
        QCOMPARE(grouped.cuts(), one_by_one.cuts());
        QVERIFY(grouped.cuts() >= 1);
        QCOMPARE(grouped.frames(), frames);
        QCOMPARE(compare(*grouped.vertical_order(), *one_by_one.vertical_order()), QString());
        QCOMPARE(compare(*grouped.horizontal_order(), *one_by_one.horizontal_order()), QString());
        // Approximate seams and the removed-pixels term go frame by frame.
        p.chained_frames = 0;
        p.approximate = 2;
        QCOMPARE(VideoRetargeter(w, h, p, CarveImplementation::Fast).frames_in_flight(), 1);
        p.approximate = 1;
        p.term = TemporalTerm::RemovedPixels;
        QCOMPARE(VideoRetargeter(w, h, p, CarveImplementation::Fast).frames_in_flight(), 1);
        QCOMPARE(VideoRetargeter(w, h, p, CarveImplementation::Reference).frames_in_flight(), 1);
    }

    // Video with faces: importance and a temporal term in one carve. The reference adds both
    // terms; the fast carver keeps a second level array (64-bit layout). Odd sizes, both
    // directions, every energy, both temporal terms, with and without a protect mask.
    void importance_with_temporal_equals_reference() {
        int compared = 0;
        for (const auto& [w, h] :
             {std::pair{7, 5}, std::pair{23, 17}, std::pair{41, 29}, std::pair{121, 23}}) {
            std::uniform_int_distribution<int> pick(0, 255), level(0, kTemporalLevels - 1);
            ImageRgba8 img(w, h);
            Mask distances(w, h, 0), importance(w, h, 0);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const auto v = static_cast<std::uint8_t>(pick(rng_) / 64 * 64);
                    img.at(x, y) = Rgba8{v, v, v, 255};
                    distances.at(x, y) = static_cast<std::uint8_t>(level(rng_));
                    // Importance in blobs (a face-like region and single pixels).
                    const bool blob = std::hypot(x - w * 0.6, y - h * 0.4) < std::min(w, h) / 3.0;
                    importance.at(x, y) =
                        static_cast<std::uint8_t>(blob ? 40 + level(rng_) % 24 : level(rng_) / 8);
                }
            const Mask protect = rect_mask(w, h, w / 5, h / 3, w / 3, h / 2);
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool per_seam : {false, true})
                        for (const int unit : {1, 40, kTemporalMaxUnit}) {
                            const bool vertical = dir == SeamDirection::Vertical;
                            const int seams = std::min(12, (vertical ? w : h) - 1);
                            const SeamPaths paths =
                                random_seam_paths(vertical ? h : w, seams, vertical ? w : h, rng_);
                            CarveInput in{img.view(), unit == 40 ? &protect : nullptr, nullptr,
                                          kind};
                            if (per_seam)
                                in.temporal_seams = &paths;
                            else
                                in.temporal = &distances;
                            in.temporal_unit = unit;
                            in.importance = &importance;
                            in.importance_unit = importance_unit_for(kind);
                            const SeamOrder gold = seam_order_reference(in, dir, seams);
                            QCOMPARE(compare(gold, seam_order_fast(in, dir, seams)), QString());
                            ++compared;
                        }
        }
        QCOMPARE(compared, 4 * 5 * 2 * 2 * 3);

        // The sum: a temporal map of zeros adds nothing, so the pair carves as importance alone
        // (which the carvers fold into the energies: another layout, the same seams and costs).
        const int w = 45, h = 27;
        const ImageRgba8 img = scene(w, h, 0, 9, rng_);
        Mask importance(w, h, 0), zeros(w, h, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 18; x < 30; ++x) importance.at(x, y) = kTemporalLevels - 1;
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            CarveInput alone{img.view(), nullptr, nullptr, SeamEnergy::Forward};
            alone.importance = &importance;
            alone.importance_unit = 48;
            CarveInput both = alone;
            both.temporal = &zeros;
            both.temporal_unit = 24;
            const SeamOrder gold = seam_order_reference(alone, dir, 10);
            QCOMPARE(compare(gold, seam_order_reference(both, dir, 10)), QString());
            QCOMPARE(compare(gold, seam_order_fast(both, dir, 10)), QString());
        }
        // Neither term is dropped: a flat image, a temporal pull to column 20 and importance 63
        // there: the seam goes elsewhere; without importance it takes column 20.
        ImageRgba8 flat(40, 9, Rgba8{90, 90, 90, 255});
        Mask pull(40, 9, 8), face(40, 9, 0);
        for (int y = 0; y < 9; ++y) {
            pull.at(20, y) = 0;
            for (int x = 16; x < 25; ++x) face.at(x, y) = kTemporalLevels - 1;
        }
        CarveInput in{flat.view(), nullptr, nullptr, SeamEnergy::Forward};
        in.temporal = &pull;
        in.temporal_unit = 3;
        for (int y = 0; y < 9; ++y)
            QCOMPARE(seam_order_fast(in, SeamDirection::Vertical, 1).order.at(20, y), 0);
        in.importance = &face;
        in.importance_unit = 48;
        for (const SeamOrder& o : {seam_order_reference(in, SeamDirection::Vertical, 1),
                                   seam_order_fast(in, SeamDirection::Vertical, 1)}) {
            for (int y = 0; y < 9; ++y)
                for (int x = 16; x < 25; ++x) QVERIFY(o.order.at(x, y) != 0);
            QCOMPARE(o.costs[0], std::int64_t{9 * 8 * 3});  // the pull's cost, none of the face's
        }
    }

    // The CPU wave and the video carver with a per-frame importance map: the same frames as
    // carving one after another.
    void importance_in_chained_and_batched_frames() {
        constexpr int w = 97, h = 61, frames = 5, seams = 20;
        std::vector<ImageRgba8> clip;
        std::vector<Mask> faces;
        for (int f = -1; f < frames; ++f) {
            clip.push_back(scene(w, h, 0.7 * (f + 1), 5, rng_));
            Mask m(w, h, 0);
            for (int y = 15; y < 45; ++y)
                for (int x = 30 + f; x < 55 + f; ++x) m.at(x, y) = 50;
            faces.push_back(std::move(m));
        }
        std::vector<bool> follows(frames, true);
        follows[3] = false;
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            const auto input = [&](const int f) {
                CarveInput in{clip[static_cast<std::size_t>(f + 1)].view(), nullptr, nullptr,
                              SeamEnergy::Forward};
                in.importance = &faces[static_cast<std::size_t>(f + 1)];
                in.importance_unit = 48;
                return in;
            };
            const SeamPaths first = seam_paths(seam_order_fast(input(-1), dir, seams), seams);
            std::vector<CarveInput> inputs;
            for (int f = 0; f < frames; ++f) inputs.push_back(input(f));
            const std::vector<SeamOrder> chained =
                seam_orders_fast_chained(inputs, dir, seams, &first, follows, 16);
            SeamPaths previous = first;
            for (int f = 0; f < frames; ++f) {
                CarveInput in = input(f);
                if (follows[static_cast<std::size_t>(f)]) {
                    in.temporal_seams = &previous;
                    in.temporal_unit = 16;
                }
                const SeamOrder gold = seam_order_reference(in, dir, seams);
                QCOMPARE(compare(gold, chained[static_cast<std::size_t>(f)]), QString());
                previous = seam_paths(gold, seams);
            }
        }
        VideoRetargetParams p;
        p.width = 71;
        p.height = 50;
        p.chained_frames = 3;
        VideoRetargeter one_by_one(w, h, p, CarveImplementation::Fast);
        VideoRetargeter grouped(w, h, p, CarveImplementation::Fast);
        std::vector<ImageView<const Rgba8>> views;
        std::vector<const Mask*> maps;
        for (int f = 0; f < 3; ++f) {
            views.push_back(clip[static_cast<std::size_t>(f)].view());
            maps.push_back(&faces[static_cast<std::size_t>(f)]);
        }
        const std::vector<ImageRgba8> out = grouped.process_batch(views, maps);
        for (std::size_t i = 0; i < 3; ++i) {
            const ImageRgba8 expected = one_by_one.process(views[i], maps[i]);
            bool same = true;
            for (int y = 0; y < 50; ++y)
                same = same && std::equal(out[i].row(y), out[i].row(y) + 71, expected.row(y));
            QVERIFY2(same, qPrintable(QString("frame %1").arg(i)));
        }
        // The importance took effect: without it the frames differ.
        VideoRetargeter plain(w, h, p, CarveImplementation::Fast);
        const ImageRgba8 without = plain.process(views[0]);
        VideoRetargeter with(w, h, p, CarveImplementation::Fast);
        const ImageRgba8 with_faces = with.process(views[0], maps[0]);
        bool differ = false;
        for (int y = 0; y < 50 && !differ; ++y)
            differ = !std::equal(without.row(y), without.row(y) + 71, with_faces.row(y));
        QVERIFY(differ);
        // A map of another size, a batch with maps for some frames only.
        const Mask small(10, 10, 0);
        QVERIFY_THROWS_EXCEPTION(Error, with.process(views[1], &small));
        QVERIFY_THROWS_EXCEPTION(Error, grouped.process_batch(views, {maps[0]}));
    }

    void approximate_seams_for_real_time() {
        // Seams of a 1/2- and 1/4-size copy: the target size exactly (any count, not only
        // multiples of the factor), and the temporal term still holds them steady.
        constexpr int w = 160, h = 96, frames = 6;
        std::vector<ImageRgba8> clip;
        for (int f = 0; f < frames; ++f) clip.push_back(scene(w, h, 0.5 * f, 6, rng_));
        for (const int factor : {2, 4}) {
            double share[2] = {0, 0};
            for (const int mode : {0, 1}) {
                VideoRetargetParams p;
                p.width = 123;  // 37 seams: not a multiple of the factor
                p.height = 90;
                p.temporal = mode == 0 ? 0.0 : 2.0;
                p.approximate = factor;
                VideoRetargeter carver(w, h, p, CarveImplementation::Fast);
                std::optional<SeamOrder> previous;
                for (const ImageRgba8& frame : clip) {
                    const ImageRgba8 out = carver.process(frame.view());
                    QCOMPARE(out.width(), 123);
                    QCOMPARE(out.height(), 90);
                    if (previous)
                        share[mode] +=
                            removed_pixels_changed(*previous, *carver.vertical_order(), 37);
                    previous = carver.vertical_order();
                }
            }
            QVERIFY2(
                share[1] < share[0],
                qPrintable(QString("factor %1: %2 vs %3").arg(factor).arg(share[0]).arg(share[1])));
        }
        VideoRetargetParams bad;
        bad.width = 100;
        bad.height = 96;
        bad.approximate = 3;
        QVERIFY_THROWS_EXCEPTION(Error, VideoRetargeter(w, h, bad, CarveImplementation::Fast));
    }

    void a_cut_resets_the_temporal_term() {
        constexpr int w = 96, h = 64;
        VideoRetargetParams p;
        p.width = 70;
        p.height = 56;
        p.temporal = 4.0;
        VideoRetargeter coherent(w, h, p, CarveImplementation::Fast);
        for (int f = 0; f < 3; ++f) (void)coherent.process(scene(w, h, f, 4, rng_).view());
        QVERIFY(!coherent.last_was_cut());
        const ImageRgba8 other = scene(w, h, 0, 4, rng_, 1);  // the next shot
        const ImageRgba8 after_cut = coherent.process(other.view());
        QVERIFY(coherent.last_was_cut());
        QCOMPARE(coherent.cuts(), 1);
        // The frame after the cut is carved as if it were the first.
        VideoRetargeter fresh(w, h, p, CarveImplementation::Fast);
        const ImageRgba8 first = fresh.process(other.view());
        QVERIFY(equal_pixels(after_cut.view(), first.view()));
        // Without the cut (threshold above any change) the term would have applied.
        p.cut_threshold = 1000;
        VideoRetargeter blind(w, h, p, CarveImplementation::Fast);
        for (int f = 0; f < 3; ++f) (void)blind.process(scene(w, h, f, 4, rng_).view());
        (void)blind.process(other.view());
        QVERIFY(!blind.last_was_cut());
    }

    void protect_mask_holds_on_every_frame() {
        constexpr int w = 80, h = 40;
        const Mask protect = rect_mask(w, h, 30, 0, 36, h);  // a 6-column band, full height
        VideoRetargetParams p;
        p.width = 50;
        p.height = h;
        p.protect = &protect;
        VideoRetargeter carver(w, h, p, CarveImplementation::Fast);
        for (int f = 0; f < 4; ++f) {
            ImageRgba8 frame = scene(w, h, f, 3, rng_);
            for (int y = 0; y < h; ++y)
                for (int x = 30; x < 36; ++x) frame.at(x, y) = Rgba8{255, 0, 255, 255};
            const ImageRgba8 out = carver.process(frame.view());
            for (int y = 0; y < h; ++y) {
                int magenta = 0;
                for (int x = 0; x < 50; ++x) magenta += out.at(x, y) == Rgba8{255, 0, 255, 255};
                QCOMPARE(magenta, 6);
            }
        }
    }

    void flicker_meter_measures_only_what_carving_adds() {
        // Output = the scaled input: no excess. Output that alternates: the excess is its change.
        std::vector<ImageRgba8> clip;
        for (int f = 0; f < 4; ++f) clip.push_back(scene(40, 30, f, 0, rng_));
        FlickerMeter same, jumpy;
        for (int f = 0; f < 4; ++f) {
            const ImageRgba8 scaled = resize_bilinear(clip[f].view(), 30, 30);
            same.add(clip[f].view(), scaled.view());
            ImageRgba8 shifted = scaled;
            if (f % 2 == 1)
                for (int y = 0; y < 30; ++y) shifted.at(0, y) = Rgba8{0, 0, 0, 255};
            jumpy.add(clip[f].view(), shifted.view());
        }
        QCOMPARE(same.pairs(), 3);
        QCOMPARE(same.excess(), 0.0);
        QVERIFY(jumpy.excess() > 0.5);
    }

    void bad_input_is_refused() {
        const auto code = [](auto&& fn) {
            try {
                fn();
            } catch (const Error& e) {
                return e.code();
            }
            return ErrorCode::DeviceError;
        };
        VideoRetargetParams p;
        p.width = 0;
        p.height = 10;
        QCOMPARE(code([&] { VideoRetargeter(20, 10, p, CarveImplementation::Fast); }),
                 ErrorCode::InvalidArgument);
        p.width = 40;  // 2 × 20 is beyond what one step of seams can insert
        QCOMPARE(code([&] { VideoRetargeter(20, 10, p, CarveImplementation::Fast); }),
                 ErrorCode::InvalidArgument);
        p.width = 15;
        const Mask wrong(19, 10, 0);
        p.protect = &wrong;
        QCOMPARE(code([&] { VideoRetargeter(20, 10, p, CarveImplementation::Fast); }),
                 ErrorCode::InvalidArgument);
        p.protect = nullptr;
        p.temporal = -1;
        QCOMPARE(code([&] { VideoRetargeter(20, 10, p, CarveImplementation::Fast); }),
                 ErrorCode::InvalidArgument);
        p.temporal = 1;
        VideoRetargeter carver(20, 10, p, CarveImplementation::Fast);
        const ImageRgba8 small(19, 10);
        QCOMPARE(code([&] { (void)carver.process(small.view()); }), ErrorCode::InvalidArgument);
        // A temporal map with a level beyond the cap, or a unit out of range.
        const ImageRgba8 img(8, 8);
        Mask levels(8, 8, kTemporalLevels);
        CarveInput in{img.view(), nullptr, nullptr, SeamEnergy::Forward};
        in.temporal = &levels;
        in.temporal_unit = 1;
        QCOMPARE(code([&] { (void)seam_order_fast(in, SeamDirection::Vertical, 2); }),
                 ErrorCode::InvalidArgument);
        levels = Mask(8, 8, 0);
        in.temporal_unit = kTemporalMaxUnit + 1;
        QCOMPARE(code([&] { (void)seam_order_reference(in, SeamDirection::Vertical, 2); }),
                 ErrorCode::InvalidArgument);
        // Per-seam paths: too few seams, lines of another image, a position outside the line,
        // or given together with a distance map.
        in.temporal = nullptr;
        in.temporal_unit = 1;
        SeamPaths paths;
        paths.lines = 8;
        paths.count = 1;
        paths.positions.assign(8, 3);
        in.temporal_seams = &paths;
        QCOMPARE(code([&] { (void)seam_order_fast(in, SeamDirection::Vertical, 2); }),
                 ErrorCode::InvalidArgument);
        paths.count = 2;
        paths.positions.assign(16, 3);
        QVERIFY(seam_order_fast(in, SeamDirection::Vertical, 2).seams == 2);
        paths.lines = 7;
        paths.positions.assign(14, 3);
        QCOMPARE(code([&] { (void)seam_order_reference(in, SeamDirection::Vertical, 2); }),
                 ErrorCode::InvalidArgument);
        paths.lines = 8;
        paths.positions.assign(16, 3);
        paths.positions[5] = 8;
        QCOMPARE(code([&] { (void)seam_order_fast(in, SeamDirection::Horizontal, 2); }),
                 ErrorCode::InvalidArgument);
        paths.positions[5] = 3;
        in.temporal = &levels;
        QCOMPARE(code([&] { (void)seam_order_fast(in, SeamDirection::Vertical, 2); }),
                 ErrorCode::InvalidArgument);
    }
};

QTEST_APPLESS_MAIN(TestVideoRetarget)
#include "test_video_retarget.moc"
