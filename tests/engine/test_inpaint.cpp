// Exemplar-based inpainting on the CPU: the reference's decisions checked independently (the
// target is the front pixel of highest priority, the source has the least SSD), structure and
// periodic texture reconstructed exactly, the exact composite, the fast filler against the
// reference on real photos at odd sizes, the fill as a source map, the step API, and bad input.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/kernels/inpaint_terms.h>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>

#include "inpaint_test_util.hpp"

#include <QtTest>

#include <random>
#include <tuple>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare_histories;
using lacuna::test::compare_images;
using lacuna::test::crop;
using lacuna::test::ellipse_mask;
using lacuna::test::never_sample_spot;
using lacuna::test::odd_hole;

namespace {

/// These tests are about the Criminisi filler; InpaintParams defaults to PatchMatch.
InpaintParams criminisi_params() {
    InpaintParams params;
    params.method = InpaintMethod::Criminisi;
    return params;
}

ImageRgba8 photo(const char* name) {
    return io::read_image(std::filesystem::path(LACUNA_SOURCE_DIR) / "tests/data/photos" / name)
        .image;
}

/// Vertical stripes of period `period`: any hole is filled exactly by a shifted copy.
ImageRgba8 stripes(const int w, const int h, const int period) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto v = static_cast<std::uint8_t>(40 + 200 * ((x % period) < period / 2));
            image.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(255 - v), 90, 255};
        }
    return image;
}

std::int64_t changed_outside(const ImageRgba8& before, const ImageRgba8& after, const Mask& mask) {
    std::int64_t changed = 0;
    for (int y = 0; y < before.height(); ++y)
        for (int x = 0; x < before.width(); ++x)
            if (mask.at(x, y) == 0 && before.at(x, y) != after.at(x, y)) ++changed;
    return changed;
}

/// Naive SSD written out here, independent of the engine's helpers.
std::uint32_t naive_ssd(const ImageRgba8& image, const Mask& known, const int px, const int py,
                        const int qx, const int qy, const int r) {
    std::uint32_t sum = 0;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            const int tx = px + dx, ty = py + dy;
            if (tx < 0 || ty < 0 || tx >= image.width() || ty >= image.height()) continue;
            if (!known.at(tx, ty)) continue;
            const Rgba8 a = image.at(tx, ty), b = image.at(qx + dx, qy + dy);
            sum += std::uint32_t((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) +
                                 (a.b - b.b) * (a.b - b.b));
        }
    return sum;
}

/// A row of TestInpaint::fast_matches_reference_data: the cropped photo, its hole (an ellipse plus
/// a thin bar; the "edge" rows touch the border), a never-sample spot and Criminisi's parameters.
/// params.never_sample points at never_mask, so a row is neither copied nor moved.
struct CriminisiRow {
    ImageRgba8 input;
    Mask mask;
    Mask never_mask;
    InpaintParams params = criminisi_params();
    bool never = false;
    bool search_parsed = false;

    CriminisiRow() {
        QFETCH(QString, image);
        QFETCH(int, x0);
        QFETCH(int, y0);
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(QString, search);
        QFETCH(bool, coherence);
        QFETCH(bool, never);
        input = crop(photo(image.toUtf8().constData()), x0, y0, w, h);
        mask = odd_hole(w, h, QString(QTest::currentDataTag()).contains("edge"));
        never_mask = never_sample_spot(w, h);
        params.patch = patch;
        params.coherence = coherence;
        params.never_sample = never ? &never_mask : nullptr;
        search_parsed = parse_inpaint_search(search.toStdString(), params);
        this->never = never;
    }
    CriminisiRow(const CriminisiRow&) = delete;
    CriminisiRow& operator=(const CriminisiRow&) = delete;
};

}  // namespace

class TestInpaint : public QObject {
    Q_OBJECT

  private slots:
    // The valid sources are the definition: a complete patch inside the image touching neither
    // the hole nor the never-sample area (checked patch by patch, on odd sizes and patches).
    void valid_sources_are_the_definition() {
        std::mt19937 rng(11);
        for (const auto& [w, h, patch] : {std::tuple{37, 29, 3}, {64, 41, 9}, {23, 57, 7}}) {
            ImageRgba8 image(w, h, Rgba8{90, 90, 90, 255});
            Mask mask(w, h, 0), never(w, h, 0);
            for (int k = 0; k < 6; ++k) {
                mask.at(int(rng() % w), int(rng() % h)) = 255;
                never.at(int(rng() % w), int(rng() % h)) = 255;
            }
            InpaintParams params = criminisi_params();
            params.patch = patch;
            params.search = InpaintSearch::Full;
            params.never_sample = &never;
            const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
            const int r = patch / 2;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    bool ok = x >= r && y >= r && x + r < w && y + r < h;
                    for (int dy = -r; ok && dy <= r; ++dy)
                        for (int dx = -r; ok && dx <= r; ++dx)
                            ok = mask.at(x + dx, y + dy) == 0 && never.at(x + dx, y + dy) == 0;
                    QCOMPARE(problem.valid_source.at(x, y) != 0, ok);
                }
        }
    }

    // A small hole in a large image: the valid sources (computed over the hole's box grown by the
    // radius, the rest of the interior filled) are still the definition everywhere, and a problem
    // prepared reading the mask only inside a box holding its pixels is the same problem.
    void small_hole_in_a_large_image_is_the_same_problem() {
        constexpr int w = 1031, h = 777;
        ImageRgba8 image(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                image.at(x, y) =
                    Rgba8{std::uint8_t(x * 7 + y), std::uint8_t(x ^ y), std::uint8_t(y * 3), 255};
        // In the middle (an ellipse with a stray pixel), and at the top-left and bottom-right
        // edges, where the grown box is clipped to the interior.
        for (const auto& [cx, cy, patch] :
             {std::tuple{500, 400, 9}, {3, 2, 7}, {w - 4, h - 2, 5}}) {
            Mask mask(w, h, 0);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const double dx = (x - cx) / 17.0, dy = (y - cy) / 9.0;
                    if (dx * dx + dy * dy <= 1.0) mask.at(x, y) = 200;
                }
            mask.at(std::min(cx + 20, w - 1), std::min(cy + 11, h - 1)) = 1;
            InpaintParams params;
            params.patch = patch;
            const InpaintProblem whole = prepare_inpaint(image.view(), mask, params);
            const int r = patch / 2;
            PixelRect box;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (mask.at(x, y) != 0) box.unite({x, y, x, y});
            QCOMPARE(whole.hole_box, (SearchRect{box.x0, box.y0, box.x1, box.y1}));
            // The definition, patch by patch over the whole image.
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    bool ok = x >= r && y >= r && x + r < w && y + r < h;
                    for (int dy = -r; ok && dy <= r; ++dy)
                        for (int dx = -r; ok && dx <= r; ++dx) ok = mask.at(x + dx, y + dy) == 0;
                    QVERIFY2(
                        (whole.valid_source.at(x, y) != 0) == ok,
                        qPrintable(QString("%1,%2 around %3,%4").arg(x).arg(y).arg(cx).arg(cy)));
                }
            // Read inside a box holding the mask's pixels (here grown by a few pixels): the same.
            const PixelRect around{box.x0 - 3, box.y0 - 5, box.x1 + 2, box.y1 + 4};
            const InpaintProblem boxed = prepare_inpaint(image.view(), mask, params, around);
            QVERIFY(equal_pixels<Rgba8>(boxed.image.view(), whole.image.view()));
            QVERIFY(equal_pixels<std::uint8_t>(boxed.hole.view(), whole.hole.view()));
            QVERIFY(
                equal_pixels<std::uint8_t>(boxed.valid_source.view(), whole.valid_source.view()));
            QCOMPARE(boxed.hole_box, whole.hole_box);
            QCOMPARE(boxed.hole_pixels, whole.hole_pixels);
            QCOMPARE(boxed.window, whole.window);
            QCOMPARE(boxed.notes, whole.notes);
        }
    }

    void first_decision_is_the_definition() {
        const ImageRgba8 image = crop(photo("butterfly.jpg"), 150, 100, 61, 47);
        const Mask mask = ellipse_mask(61, 47, 30, 23, 9, 6);
        InpaintParams params = criminisi_params();
        params.patch = 7;
        params.search = InpaintSearch::Full;
        const auto filler =
            make_inpainter(image.view(), mask, params, InpaintImplementation::Reference);
        filler->advance(1);
        const PatchChoice choice = filler->history().at(0);
        const int r = 3;
        // Target: the front pixel with the highest priority (lowest index on ties).
        Mask known(61, 47);
        std::vector<std::uint8_t> known_flat, luma;
        std::vector<std::int32_t> confidence;
        for (int y = 0; y < 47; ++y)
            for (int x = 0; x < 61; ++x) {
                known.at(x, y) = mask.at(x, y) ? 0 : 1;
                known_flat.push_back(known.at(x, y));
                luma.push_back(inpaint_terms::inpaint_luma(image.at(x, y)));
                confidence.push_back(mask.at(x, y) ? 0 : inpaint_terms::kFullConfidence);
            }
        const inpaint_terms::PriorityInputs in{
            61, 47, r, known_flat.data(), luma.data(), confidence.data()};
        double best = -1;
        int best_index = -1, front = 0;
        for (int y = 0; y < 47; ++y)
            for (int x = 0; x < 61; ++x) {
                const double p = inpaint_terms::priority_at(in, x, y);
                if (p < 0) continue;
                ++front;
                QVERIFY(mask.at(x, y) != 0);
                if (p > best) best = p, best_index = y * 61 + x;
            }
        QVERIFY(front > 20);
        QCOMPARE(choice.target, best_index);
        // Source: least SSD over all complete patches outside the hole (lowest index on ties).
        std::uint32_t best_ssd = ~0u;
        int best_source = -1;
        for (int y = r; y < 47 - r; ++y)
            for (int x = r; x < 61 - r; ++x) {
                bool complete = true;
                for (int dy = -r; dy <= r && complete; ++dy)
                    for (int dx = -r; dx <= r; ++dx)
                        if (mask.at(x + dx, y + dy)) complete = false;
                if (!complete) continue;
                const std::uint32_t ssd =
                    naive_ssd(image, known, best_index % 61, best_index / 61, x, y, r);
                if (ssd < best_ssd) best_ssd = ssd, best_source = y * 61 + x;
            }
        QCOMPARE(choice.source, best_source);
        QCOMPARE(choice.ssd, best_ssd);
        // The copy: the target patch's unknown pixels now hold the source patch's pixels.
        const ImageRgba8 after = filler->image();
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) {
                const int tx = best_index % 61 + dx, ty = best_index / 61 + dy;
                const Rgba8 expected = mask.at(tx, ty)
                                           ? image.at(best_source % 61 + dx, best_source / 61 + dy)
                                           : image.at(tx, ty);
                QCOMPARE(after.at(tx, ty), expected);
            }
    }

    void periodic_texture_is_reconstructed_exactly() {
        for (const auto implementation :
             {InpaintImplementation::Reference, InpaintImplementation::Fast}) {
            const ImageRgba8 image = stripes(73, 41, 6);
            const Mask mask = ellipse_mask(73, 41, 36, 20, 11, 8);
            InpaintParams params = criminisi_params();
            params.patch = 9;
            const InpaintResult result = inpaint(image.view(), mask, params, implementation);
            QVERIFY(result.progress.done());
            QCOMPARE(compare_images(result.image, image), QString());
        }
    }

    void straight_edge_is_continued() {
        // Two flat regions with a diagonal border through the hole: the fill must keep the border
        // where it was (structure propagation), exactly for a 45° line of pixels.
        ImageRgba8 image(64, 64);
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x)
                image.at(x, y) = x > y ? Rgba8{200, 60, 40, 255} : Rgba8{30, 90, 180, 255};
        const Mask mask = ellipse_mask(64, 64, 32, 32, 8, 8);
        InpaintParams params = criminisi_params();
        params.patch = 7;
        const InpaintResult result =
            inpaint(image.view(), mask, params, InpaintImplementation::Fast);
        QCOMPARE(compare_images(result.image, image), QString());
    }

    void pixels_outside_the_mask_are_untouched() {
        const ImageRgba8 image = crop(photo("fruits.jpg"), 101, 77, 131, 97);
        const Mask mask = ellipse_mask(131, 97, 60, 50, 21, 14);
        const InpaintResult result =
            inpaint(image.view(), mask, criminisi_params(), InpaintImplementation::Fast);
        QCOMPARE(changed_outside(image, result.image, mask), std::int64_t{0});
        std::int64_t changed_inside = 0;
        for (int y = 0; y < 97; ++y)
            for (int x = 0; x < 131; ++x)
                if (mask.at(x, y) && result.image.at(x, y) != image.at(x, y)) ++changed_inside;
        QVERIFY2(changed_inside > count_selected(mask.view()) / 2, "the hole was not filled");
        QCOMPARE(result.progress.filled, count_selected(mask.view()));
    }

    void fast_matches_reference_data() {
        QTest::addColumn<QString>("image");
        QTest::addColumn<int>("x0");
        QTest::addColumn<int>("y0");
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("patch");
        QTest::addColumn<QString>("search");
        QTest::addColumn<bool>("coherence");
        QTest::addColumn<bool>("never");
        QTest::newRow("butterfly 97x83 p9 window")
            << "butterfly.jpg" << 200 << 120 << 97 << 83 << 9 << "window" << true << false;
        QTest::newRow("fruits 101x67 p3 full")
            << "fruits.jpg" << 40 << 300 << 101 << 67 << 3 << "full" << true << false;
        QTest::newRow("building 89x71 p11 window:0.2")
            << "building.jpg" << 400 << 200 << 89 << 71 << 11 << "window:0.2" << true << true;
        QTest::newRow("messi 77x59 p5 no coherence")
            << "messi5.jpg" << 250 << 150 << 77 << 59 << 5 << "window:1" << false << false;
        QTest::newRow("messi corner 63x91 p7 edge hole")
            << "messi5.jpg" << 0 << 0 << 63 << 91 << 7 << "window" << true << false;
    }
    void fast_matches_reference() {
        const CriminisiRow row;
        QVERIFY(row.search_parsed);
        const ImageRgba8& input = row.input;
        const Mask& mask = row.mask;
        const Mask& never_mask = row.never_mask;
        const InpaintParams& params = row.params;
        const int w = row.input.width(), patch = row.params.patch;
        const bool never = row.never;
        const auto reference =
            make_inpainter(input.view(), mask, params, InpaintImplementation::Reference);
        const auto fast = make_inpainter(input.view(), mask, params, InpaintImplementation::Fast);
        // Different step sizes must not matter.
        while (!reference->progress().done()) reference->advance(1000);
        while (!fast->progress().done()) fast->advance(7);
        QCOMPARE(compare_histories(reference->history(), fast->history()), QString());
        QCOMPARE(compare_images(reference->image(), fast->image()), QString());
        QVERIFY(criminisi_sources(*reference) == criminisi_sources(*fast));
        QCOMPARE(changed_outside(input, fast->image(), mask), std::int64_t{0});
        if (never) {
            // No source pixel came from the never-sample area.
            const int r = patch / 2;
            for (const PatchChoice& c : fast->history())
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx)
                        QCOMPARE(never_mask.at(c.source % w + dx, c.source / w + dy),
                                 std::uint8_t{0});
        }
    }

    // Criminisi copies whole pixels, so its fill is a source map (criminisi_sources): applied
    // to the input it gives the filler's image exactly, part way and at the end; every hole
    // pixel has a source, a known pixel outside the never-sample area; nothing else has one.
    void sources_reproduce_the_fill_data() { fast_matches_reference_data(); }
    void sources_reproduce_the_fill() {
        const CriminisiRow row;
        QVERIFY(row.search_parsed);
        const ImageRgba8& input = row.input;
        const Mask& mask = row.mask;
        const Mask& never_mask = row.never_mask;
        const InpaintParams& params = row.params;
        const int w = row.input.width(), h = row.input.height();
        const bool never = row.never;
        const auto fast = make_inpainter(input.view(), mask, params, InpaintImplementation::Fast);
        const auto count = [](const FillSources& s) {
            return std::count_if(s.index.begin(), s.index.end(), [](auto i) { return i >= 0; });
        };
        fast->advance(5);
        const FillSources partial = criminisi_sources(*fast);
        QCOMPARE(count(partial), fast->progress().filled);
        QCOMPARE(compare_images(fill_from_sources(input.view(), partial), fast->image()),
                 QString());
        while (!fast->progress().done()) fast->advance(1 << 20);
        const FillSources sources = criminisi_sources(*fast);
        QCOMPARE(compare_images(fill_from_sources(input.view(), sources), fast->image()),
                 QString());
        QVERIFY(sources.box == fast->problem().hole_box);
        QCOMPARE(static_cast<std::int64_t>(count(sources)), count_selected(mask.view()));
        const int bw = sources.box.x1 - sources.box.x0 + 1;
        for (int y = sources.box.y0; y <= sources.box.y1; ++y)
            for (int x = sources.box.x0; x <= sources.box.x1; ++x) {
                const std::int32_t s =
                    sources.index[std::size_t((y - sources.box.y0) * bw + x - sources.box.x0)];
                QCOMPARE(s >= 0, mask.at(x, y) != 0);
                if (s < 0) continue;
                QCOMPARE(mask.at(s % w, s / w), std::uint8_t{0});
                if (never) QCOMPARE(never_mask.at(s % w, s / w), std::uint8_t{0});
            }
        // Only a Criminisi fill is a source map; sources of another size are refused.
        const auto patchmatch =
            make_inpainter(input.view(), mask, InpaintParams{}, InpaintImplementation::Fast);
        QVERIFY_THROWS_EXCEPTION(Error, (void)criminisi_sources(*patchmatch));
        const ImageRgba8 small = crop(input, 0, 0, w - 1, h);
        QVERIFY_THROWS_EXCEPTION(Error, (void)fill_from_sources(small.view(), sources));
    }

    void step_api_reports_progress_and_cancels() {
        const ImageRgba8 input = crop(photo("butterfly.jpg"), 10, 10, 120, 90);
        const Mask mask = ellipse_mask(120, 90, 60, 45, 20, 15);
        const auto filler =
            make_inpainter(input.view(), mask, criminisi_params(), InpaintImplementation::Fast);
        QCOMPARE(filler->progress().total, count_selected(mask.view()));
        QCOMPARE(filler->progress().filled, std::int64_t{0});
        const InpaintProgress first = filler->advance(3);
        QCOMPARE(first.iterations, 3);
        QVERIFY(first.filled > 0 && first.filled < first.total);
        // The partial image shows the fill growing: the hole pixels the three chosen patches
        // covered (`filled` of them) hold their source's pixels; the rest of the hole is as given.
        {
            const ImageRgba8 partial = filler->image();
            const int r = criminisi_params().patch / 2;
            std::vector<char> done(120 * 90, 0);
            std::int64_t covered = 0;
            QCOMPARE(filler->history().size(), std::size_t{3});
            for (const PatchChoice& c : filler->history()) {
                const int tx = c.target % 120, ty = c.target / 120;
                const int sx = c.source % 120, sy = c.source / 120;
                for (int dy = -r; dy <= r; ++dy)
                    for (int dx = -r; dx <= r; ++dx) {
                        const int x = tx + dx, y = ty + dy;
                        if (x < 0 || y < 0 || x >= 120 || y >= 90 || !mask.at(x, y)) continue;
                        if (done[std::size_t(y * 120 + x)]) continue;
                        done[std::size_t(y * 120 + x)] = 1;
                        ++covered;
                        QVERIFY(partial.at(x, y) == input.at(sx + dx, sy + dy));
                    }
            }
            QCOMPARE(covered, first.filled);
            for (int y = 0; y < 90; ++y)
                for (int x = 0; x < 120; ++x)
                    if (mask.at(x, y) && !done[std::size_t(y * 120 + x)])
                        QVERIFY(partial.at(x, y) == input.at(x, y));
        }
        const InpaintProgress second = filler->advance(2);
        QCOMPARE(second.iterations, 5);
        QVERIFY(second.filled > first.filled);
        filler->cancel();
        QVERIFY_THROWS_EXCEPTION(Error, filler->advance(1));
        try {
            filler->advance(1);
            QFAIL("advance() after cancel() must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QCOMPARE(filler->progress().iterations, 5);
        // Cancelling through the callback of the one-call API.
        QVERIFY_THROWS_EXCEPTION(
            Error, inpaint(input.view(), mask, criminisi_params(), InpaintImplementation::Fast,
                           [](const InpaintProgress&) { return false; }));
    }

    void deterministic() {
        const ImageRgba8 input = crop(photo("messi5.jpg"), 300, 100, 111, 87);
        const Mask mask = ellipse_mask(111, 87, 50, 40, 17, 12);
        const InpaintResult a =
            inpaint(input.view(), mask, criminisi_params(), InpaintImplementation::Fast);
        const InpaintResult b =
            inpaint(input.view(), mask, criminisi_params(), InpaintImplementation::Fast);
        QCOMPARE(compare_images(a.image, b.image), QString());
    }

    void empty_mask_is_a_no_op_with_a_note() {
        const ImageRgba8 input = stripes(40, 30, 4);
        const Mask mask(40, 30, 0);
        for (const auto implementation :
             {InpaintImplementation::Reference, InpaintImplementation::Fast}) {
            const InpaintResult result =
                inpaint(input.view(), mask, criminisi_params(), implementation);
            QCOMPARE(compare_images(result.image, input), QString());
            QCOMPARE(result.progress.total, std::int64_t{0});
            QCOMPARE(result.notes.size(), std::size_t{1});
            QVERIFY(result.notes[0].find("empty") != std::string::npos);
        }
    }

    void small_window_falls_back_to_full_search() {
        // The hole fills a band across the top; the only sources are far below it.
        ImageRgba8 input = stripes(60, 120, 6);
        Mask mask(60, 120, 0);
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 60; ++x) mask.at(x, y) = 255;
        Mask never(60, 120, 0);
        for (int y = 20; y < 80; ++y)
            for (int x = 0; x < 60; ++x) never.at(x, y) = 255;
        InpaintParams params = criminisi_params();
        params.patch = 5;
        params.window_factor = 0.0;
        params.never_sample = &never;
        const InpaintResult result =
            inpaint(input.view(), mask, params, InpaintImplementation::Fast);
        QCOMPARE(result.notes.size(), std::size_t{1});
        QVERIFY(result.notes[0].find("whole image") != std::string::npos);
        QCOMPARE(compare_images(result.image, input), QString());
    }

    void bad_input_data() {
        QTest::addColumn<int>("patch");
        QTest::addColumn<int>("mask_w");
        QTest::addColumn<int>("never_w");
        QTest::addColumn<int>("border");  // mask everything but a border this wide
        QTest::addColumn<double>("alpha");
        QTest::addColumn<QString>("message");
        QTest::newRow("mask size") << 9 << 39 << 0 << -1 << 0.5 << "mask";
        QTest::newRow("never size") << 9 << 40 << 41 << -1 << 0.5 << "never-sample";
        QTest::newRow("patch too big") << 31 << 40 << 0 << -1 << 0.5 << "does not fit";
        QTest::newRow("patch even") << 8 << 40 << 0 << -1 << 0.5 << "odd";
        QTest::newRow("patch too small") << 1 << 40 << 0 << -1 << 0.5 << "odd";
        QTest::newRow("no source") << 9 << 40 << 0 << 4 << 0.5 << "no complete 9×9 source patch";
        QTest::newRow("alpha negative") << 9 << 40 << 0 << -1 << -1.0 << "window factor";
    }
    void bad_input() {
        QFETCH(int, patch);
        QFETCH(int, mask_w);
        QFETCH(int, never_w);
        QFETCH(int, border);
        QFETCH(double, alpha);
        QFETCH(QString, message);
        const ImageRgba8 input = stripes(40, 30, 4);
        Mask mask(mask_w, 30, 0);
        mask.at(5, 5) = 255;
        if (border >= 0)
            for (int y = border; y < 30 - border; ++y)
                for (int x = border; x < 40 - border; ++x) mask.at(x, y) = 255;
        const Mask never(never_w > 0 ? never_w : 40, 30, 0);
        InpaintParams params = criminisi_params();
        params.patch = patch;
        params.window_factor = alpha;
        params.never_sample = never_w > 0 ? &never : nullptr;
        for (const auto implementation :
             {InpaintImplementation::Reference, InpaintImplementation::Fast}) {
            try {
                (void)make_inpainter(input.view(), mask, params, implementation);
                QFAIL("no error");
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::InvalidArgument);
                QVERIFY2(QString::fromStdString(e.what()).contains(message), e.what());
            }
        }
    }

    void search_parsing() {
        InpaintParams p = criminisi_params();
        QVERIFY(parse_inpaint_search("full", p));
        QCOMPARE(p.search, InpaintSearch::Full);
        QVERIFY(parse_inpaint_search("window:1.5", p));
        QCOMPARE(p.search, InpaintSearch::Window);
        QCOMPARE(p.window_factor, 1.5);
        QVERIFY(!parse_inpaint_search("window:", p));
        QVERIFY(!parse_inpaint_search("window:-1", p));
        QVERIFY(!parse_inpaint_search("window:abc", p));
        QVERIFY(!parse_inpaint_search("everywhere", p));
    }
};

QTEST_GUILESS_MAIN(TestInpaint)
#include "test_inpaint.moc"
