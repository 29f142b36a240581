// PatchMatch completion with CUDA against the CPU filler: the same field and the same bytes after
// partial and full fills on odd sizes with holes touching a border, the device filler (started
// from a device document) through copy_filled, and timings end to end (setup included) for the
// two benchmark cases.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/kernels/patchmatch_terms.h>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include "../../engine/ops/inpaint/factories.hpp"
#include "../engine/inpaint_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::box_mask;
using lacuna::test::compare_images;
using lacuna::test::odd_hole;

namespace {

/// Smooth gradients, stripes and noise: textured enough that the field matters.
ImageRgba8 scene(const int w, const int h, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-15, 15);
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int stripe = ((x + y / 3) % 12) < 6 ? 60 : 0;
            const auto c = [&](const int v) {
                return std::uint8_t(std::clamp(v + noise(rng), 0, 255));
            };
            image.at(x, y) =
                Rgba8{c(40 + (x * 150) / w + stripe), c(200 - (y * 120) / h), c(80 + stripe), 255};
        }
    return image;
}

QString compare_fields(const Inpainter& a, const Inpainter& b) {
    const auto fa = patchmatch_field(a);
    const auto fb = patchmatch_field(b);
    if (!fa || !fb) return "no field";
    if (fa->level != fb->level) return QString("levels %1 and %2").arg(fa->level).arg(fb->level);
    if (fa->depth != fb->depth) return QString("depths %1 and %2").arg(fa->depth).arg(fb->depth);
    for (std::size_t i = 0; i < fa->nnf.size(); ++i)
        if (fa->nnf[i] != fb->nnf[i] || fa->dist[i] != fb->dist[i])
            return QString("entry %1: %2 (%3) vs %4 (%5)")
                .arg(i)
                .arg(fa->nnf[i])
                .arg(fa->dist[i])
                .arg(fb->nnf[i])
                .arg(fb->dist[i]);
    return {};
}

/// A measurement's samples as the device document holds them: raw rows of bytes.
DeviceImage<std::uint8_t> device_rows(const NativeImage& samples, const DeviceStream stream) {
    return DeviceImage<std::uint8_t>(
        ImageView<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(samples.row(0)),
                                      int(samples.row_bytes()), samples.height(), samples.pitch()),
        stream);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

class TestPatchMatchCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void cuda_equals_cpu_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("patch");
        QTest::addColumn<bool>("border");
        QTest::addColumn<bool>("never");
        // The colour prior (source_colours) narrows the host problem's valid sources before
        // either filler starts; the CUDA filler uploads them and decides as the CPU does.
        QTest::addColumn<bool>("colours");
        QTest::newRow("97x71 p7 border") << 97 << 71 << 7 << true << false << false;
        QTest::newRow("203x157 p9 border never") << 203 << 157 << 9 << true << true << false;
        QTest::newRow("203x157 p9 border colours") << 203 << 157 << 9 << true << false << true;
        QTest::newRow("331x199 p5 centre") << 331 << 199 << 5 << false << false << false;
        QTest::newRow("45x37 p7 single level") << 45 << 37 << 7 << true << false << false;
    }
    void cuda_equals_cpu() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(bool, border);
        QFETCH(bool, never);
        QFETCH(bool, colours);
        const ImageRgba8 image = scene(w, h, unsigned(w * h));
        const Mask mask = odd_hole(w, h, border);
        const Mask never_mask = lacuna::test::never_sample_spot(w, h);
        InpaintParams params;
        params.patch = patch;
        params.method = InpaintMethod::PatchMatch;
        params.seed = 7;
        params.never_sample = never ? &never_mask : nullptr;
        params.source_colours = colours;
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const auto gpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        // With the prior, 17978 of 25740 centres go on the CPU (and a note says so).
        if (colours) QVERIFY(!cpu->problem().notes.empty());
        for (const int step : {1, 5, 1 << 20}) {
            const InpaintProgress pc = cpu->advance(step);
            const InpaintProgress pg = gpu->advance(step);
            QCOMPARE(pg.iterations, pc.iterations);
            QCOMPARE(pg.filled, pc.filled);
            QCOMPARE(compare_fields(*cpu, *gpu), QString());
            QCOMPARE(compare_images(cpu->image(), gpu->image()), QString());
        }
        QVERIFY(gpu->progress().done());
    }

    // The gradient channels (on where no straight edge reaches the hole, levels >= 1): on
    // generated grain, where both fillers take them, the same fields and bytes at every step.
    void gradient_channels_cuda_equals_cpu() {
        const int w = 160, h = 120;
        const ImageRgba8 image = lacuna::test::grain(w, h, 5);
        const Mask mask = box_mask(w, h, 60, 40, 40, 30);
        InpaintParams params;
        params.patch = 9;
        params.method = InpaintMethod::PatchMatch;
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const auto gpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        cpu->advance(1);
        gpu->advance(1);
        QCOMPARE(patchmatch_field(*cpu)->gradient_weight, patchmatch_terms::kGradientWeight);
        QCOMPARE(patchmatch_field(*gpu)->gradient_weight, patchmatch_terms::kGradientWeight);
        QCOMPARE(compare_fields(*cpu, *gpu), QString());
        for (const int step : {1, 5, 1 << 20}) {
            const InpaintProgress pc = cpu->advance(step);
            const InpaintProgress pg = gpu->advance(step);
            QCOMPARE(pg.iterations, pc.iterations);
            QCOMPARE(compare_fields(*cpu, *gpu), QString());
            QCOMPARE(compare_images(cpu->image(), gpu->image()), QString());
        }
        QVERIFY(gpu->progress().done());
    }

    // ops::inpaint ends with keep_ring_colours on the host, from the filler's image before the
    // blend and the blended image: the CUDA filler's (blended on the device) give the CPU's
    // bytes, with the stage and without it.
    void inpaint_keeps_colours_alike_data() { cuda_equals_cpu_data(); }
    void inpaint_keeps_colours_alike() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(bool, border);
        const ImageRgba8 image = scene(w, h, unsigned(w * h));
        const Mask mask = odd_hole(w, h, border);
        InpaintParams params;
        params.patch = patch;
        params.seed = 7;
        QVERIFY(params.keep_colours);
        for (const bool keep : {true, false}) {
            params.keep_colours = keep;
            const InpaintResult cpu =
                inpaint(image.view(), mask, params, InpaintImplementation::Fast);
            const InpaintResult gpu =
                inpaint(image.view(), mask, params, InpaintImplementation::Cuda);
            QCOMPARE(compare_images(cpu.image, gpu.image), QString());
        }
    }

    // The blend runs blend_terms.h's per-node code in the same order on both sides: the device's
    // bytes are the host's.
    void device_blend_equals_host_data() { cuda_equals_cpu_data(); }
    void device_blend_equals_host() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(bool, border);
        QFETCH(bool, never);
        const ImageRgba8 image = scene(w, h, unsigned(w + h));
        const Mask mask = odd_hole(w, h, border);
        const Mask never_mask = lacuna::test::never_sample_spot(w, h);
        InpaintParams params;
        params.patch = patch;
        params.method = InpaintMethod::PatchMatch;
        params.never_sample = never ? &never_mask : nullptr;
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const auto gpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        // Not done yet: nothing to blend in place.
        gpu->advance(1);
        QVERIFY(!gpu->blend_in_place(BlendOptions{}));
        cpu->advance(1 << 20);
        gpu->advance(1 << 20);
        const ImageRgba8 raw = gpu->image();
        const ImageRgba8 host = finished_image(std::as_const(*cpu));
        QVERIFY(gpu->blend_in_place(BlendOptions{}));
        const ImageRgba8 device = gpu->image();
        QVERIFY(gpu->blend_in_place(BlendOptions{}));  // once only: the same bytes again
        QCOMPARE(compare_images(gpu->image(), device), QString());
        QCOMPARE(compare_images(finished_image(*gpu), device), QString());
        QCOMPARE(compare_fields(*cpu, *gpu), QString());
        QCOMPARE(compare_images(device, host), QString());
        int changed = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) changed += device.at(x, y) != raw.at(x, y);
        QVERIFY(changed > 0);  // the blend did something
    }

    void device_inpainter_blends_in_place() {
        const OwnedStream stream;
        const int w = 211, h = 143;
        const ImageRgba8 image = scene(w, h, 3);
        const Mask mask = odd_hole(w, h, true);
        InpaintParams params;
        params.patch = 7;
        params.method = InpaintMethod::PatchMatch;
        const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        Mask coverage(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) coverage.at(x, y) = mask.at(x, y) ? 255 : 0;
        const DeviceImage<Rgba8> pixels(image.view(), stream.get());
        const DeviceImage<std::uint8_t> device_coverage(coverage.view(), stream.get());
        const auto device = make_device_inpainter(pixels, device_coverage, problem);
        device->advance(1 << 20);
        const auto host = make_inpainter(image.view(), mask, params, InpaintImplementation::Cuda);
        host->advance(1 << 20);
        const ImageRgba8 expected = finished_image(*host);
        QVERIFY(device->blend_in_place(BlendOptions{}));
        DeviceImage<Rgba8> dst(image.view(), stream.get());
        device->copy_filled(dst, PixelRect{0, 0, w - 1, h - 1});
        // The same fill blended by the same device code: the same bytes.
        QCOMPARE(compare_images(dst.download(), expected), QString());
    }

    void deep_cuda_equals_cpu_data() { cuda_equals_cpu_data(); }
    void deep_cuda_equals_cpu() {
        const OwnedStream stream;
        // The 16-bit fill (a measurement's decision image): the same field, the same shown
        // pixels and the same sources on both backends, partial and full, through image() and
        // through copy_filled.
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, patch);
        QFETCH(bool, border);
        QFETCH(bool, never);
        const ImageRgba8 image = scene(w, h, unsigned(w * h));
        // The decision image: the scene's levels × 257 plus detail below 8 bits.
        Image<Rgba16> decision(w, h);
        std::mt19937 rng(unsigned(w + h));
        std::uniform_int_distribution<int> low(0, 200);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const Rgba8 p = image.at(x, y);
                const auto c = [&](const int v) {
                    return std::uint16_t(std::min(65535, 257 * v + low(rng)));
                };
                decision.at(x, y) = Rgba16{c(p.r), c(p.g), c(p.b), 65535};
            }
        const Mask mask = odd_hole(w, h, border);
        const Mask never_mask = lacuna::test::never_sample_spot(w, h);
        InpaintParams params;
        params.patch = patch;
        params.method = InpaintMethod::PatchMatch;
        params.seed = 5;
        params.never_sample = never ? &never_mask : nullptr;
        const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        const auto cpu = make_deep_patchmatch_inpainter(problem, clone(decision.view()),
                                                        InpaintImplementation::Fast);
        const auto gpu = make_deep_patchmatch_inpainter(problem, clone(decision.view()),
                                                        InpaintImplementation::Cuda);
        const auto device = make_deep_patchmatch_device_inpainter(problem, clone(decision.view()));
        const PixelRect all{0, 0, w - 1, h - 1};
        for (const int step : {1, 5, 1 << 20}) {
            const InpaintProgress pc = cpu->advance(step);
            const InpaintProgress pg = gpu->advance(step);
            device->advance(step);
            QCOMPARE(pg.iterations, pc.iterations);
            QCOMPARE(patchmatch_field(*gpu)->depth, 16);
            QCOMPARE(compare_fields(*cpu, *gpu), QString());
            QCOMPARE(compare_images(cpu->image(), gpu->image()), QString());
            DeviceImage<Rgba8> dst(image.view(), stream.get());
            device->copy_filled(dst, all);
            QCOMPARE(compare_images(dst.download(), cpu->image()), QString());
        }
        QVERIFY(gpu->progress().done());
        const Mask& hole = problem.hole;
        QVERIFY(patchmatch_sources(*patchmatch_field(*cpu), hole, patch / 2) ==
                patchmatch_sources(*patchmatch_field(*gpu), hole, patch / 2));
    }

    void deep_decision_on_device_equals_host_data() {
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("channels");
        for (const SampleType t :
             {SampleType::U8, SampleType::U16, SampleType::I16, SampleType::F32})
            for (const int c : {1, 3, 4})
                QTest::newRow(qPrintable(QString("type %1, %2 channels").arg(int(t)).arg(c)))
                    << int(t) << c;
    }
    void deep_decision_on_device_equals_host() {
        const OwnedStream stream;
        // deep_carving_proxy from a document's device rows = the host's, bit for bit: odd sizes,
        // samples outside the range (clamped), NaN (float), the document's own range and one
        // narrower than the data.
        QFETCH(int, type);
        QFETCH(int, channels);
        const PixelFormat format{SampleType(type), channels};
        for (const auto& [w, h] : {std::pair{1, 1}, std::pair{37, 23}, std::pair{301, 7}}) {
            NativeImage samples(w, h, format);
            std::mt19937 rng(unsigned(w * 131 + h + type * 7 + channels));
            std::uniform_real_distribution<double> u(0.0, 1.0);
            const double top = format.sample == SampleType::U8    ? 255
                               : format.sample == SampleType::F32 ? 1000.5
                                                                  : 65535;
            const double bottom = format.sample == SampleType::I16   ? -32768
                                  : format.sample == SampleType::F32 ? -3.25
                                                                     : 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    for (int c = 0; c < channels; ++c) {
                        double v = bottom + (top - bottom) * u(rng);
                        if (format.sample != SampleType::F32) v = std::floor(v);
                        samples.set_sample(x, y, c, v);
                    }
            if (format.sample == SampleType::F32 && w * h > 1)
                samples.set_sample(w / 2, h / 2, 0, std::numeric_limits<double>::quiet_NaN());
            const DeviceImage<std::uint8_t> rows = device_rows(samples, stream.get());
            const DeepCarvingProxy own = deep_carving_proxy(samples);
            const double mid = (own.raw_lo + own.raw_hi) / 2;
            for (const auto& [lo, hi] : {std::pair{own.raw_lo, own.raw_hi},
                                         std::pair{own.raw_lo + (mid - own.raw_lo) / 3, mid}}) {
                const Image<Rgba16> host = deep_carving_proxy(samples, lo, hi).image;
                const Image<Rgba16> device = deep_carving_proxy(rows, format, w, lo, hi).download();
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        if (!(host.at(x, y) == device.at(x, y)))
                            QFAIL(qPrintable(QString("%1x%2 range %3..%4: (%5, %6) host %7, "
                                                     "device %8")
                                                 .arg(w)
                                                 .arg(h)
                                                 .arg(lo)
                                                 .arg(hi)
                                                 .arg(x)
                                                 .arg(y)
                                                 .arg(host.at(x, y).g)
                                                 .arg(device.at(x, y).g)));
            }
        }
    }

    void deep_fill_from_a_device_decision_equals_cpu() {
        const OwnedStream stream;
        // The editor's device path: the decision image made on the device from the samples, the
        // fill started from it (only the hole's box goes up) = the CPU fill of the host's
        // decision image; and it continues the faint stripes the 8-bit proxy cannot see.
        const auto [samples, proxy, mask, params, problem] =
            lacuna::test::stripes_problem(133, 71, 80, 35, 13, 10, 7);
        const DeviceImage<std::uint8_t> rows = device_rows(samples, stream.get());
        const TransferStats before = transfer_stats();
        const DeviceImage<Rgba16> decision =
            deep_carving_proxy(rows, samples.format(), samples.width(), 0, 65535);
        const auto device = make_deep_patchmatch_device_inpainter(problem, decision);
        device->advance(1 << 20);
        const TransferStats moved = transfer_stats() - before;
        // The hole's box and a few counters, nothing of the image's size.
        QVERIFY2(
            moved.upload_bytes + moved.download_bytes < 4096,
            qPrintable(QString("%1 bytes moved").arg(moved.upload_bytes + moved.download_bytes)));
        const auto cpu = make_deep_patchmatch_inpainter(
            problem, deep_carving_proxy(samples, 0, 65535).image, InpaintImplementation::Fast);
        cpu->advance(1 << 20);
        QCOMPARE(compare_fields(*cpu, *device), QString());
        const NativeImage filled = fill_from_sources(
            samples, patchmatch_sources(*patchmatch_field(*device), problem.hole, 3));
        QCOMPARE(lacuna::test::stripe_error(filled, problem.hole), 0.0);
    }

    void measurement_fill_with_lines_cuda_equals_cpu() {
        // ops::inpaint of samples with lines: the bands are decided on the host and the CUDA deep
        // filler gets the same smaller hole and the decision image with the bands' samples in,
        // so the finished samples equal the CPU's exactly (the choice and the refill off: only
        // the line path is compared). A 16-bit bar, 1000 + 200 × level plus a part below one
        // proxy level, brushed over in its middle.
        constexpr int w = 203, h = 151;
        NativeImage samples(w, h, {SampleType::U16, 3});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double d = y - 0.25 * x - 40;
                const int v = d >= 0 && d < 8 ? 50 : 190;
                for (int c = 0; c < 3; ++c)
                    samples.set_sample(
                        x, y, c,
                        1000 + 200.0 * (v - 5 * c + (7 * x + 3 * y) % 9) + (7 * x + 13 * y) % 199);
            }
        Mask mask(w, h, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (std::hypot(x - 100, y - 69) <= 18) mask.at(x, y) = 255;
        InpaintParams params;
        params.method = InpaintMethod::PatchMatch;
        params.lines = true;
        params.choose = false;
        params.refill_foreign = false;
        const NativeInpaintResult cpu = inpaint(samples, mask, params, InpaintImplementation::Fast);
        const NativeInpaintResult gpu = inpaint(samples, mask, params, InpaintImplementation::Cuda);
        QVERIFY(std::any_of(cpu.notes.begin(), cpu.notes.end(), [](const std::string& n) {
            return n.find("continued") != std::string::npos;
        }));
        QVERIFY(gpu.notes == cpu.notes);
        QVERIFY(!(cpu.samples == samples));
        QVERIFY(gpu.samples == cpu.samples);
    }

    void device_inpainter_equals_cpu_data() {
        QTest::addColumn<bool>("never");
        QTest::addColumn<bool>("colours");
        QTest::newRow("hole only") << false << false;
        QTest::newRow("never-sample") << true << false;
        QTest::newRow("source colours") << false << true;
    }
    void device_inpainter_equals_cpu() {
        const OwnedStream stream;
        QFETCH(bool, never);
        QFETCH(bool, colours);
        const int w = 211, h = 143;
        const ImageRgba8 image = scene(w, h, 3);
        const Mask mask = odd_hole(w, h, true);
        const Mask never_mask = lacuna::test::never_sample_spot(w, h);
        InpaintParams params;
        params.patch = 7;
        params.method = InpaintMethod::PatchMatch;
        params.never_sample = never ? &never_mask : nullptr;
        params.source_colours = colours;
        // Coverage: painted 0..255, the hole is >= 128.
        std::mt19937 rng(1);
        std::uniform_int_distribution<int> in(128, 255), out(0, 127);
        Mask coverage(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                coverage.at(x, y) = std::uint8_t(mask.at(x, y) ? in(rng) : out(rng));
        const InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
        // The colour prior narrows the host problem's sources on this scene (its colours
        // drift across the picture): 17072 of 25230 centres go on the CPU.
        QCOMPARE(!problem.notes.empty(), colours);
        const auto cpu = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const DeviceImage<Rgba8> pixels(image.view(), stream.get());
        const DeviceImage<std::uint8_t> device_coverage(coverage.view(), stream.get());
        // The editor's rule: no interaction copies the image or a mask between host and device
        // (only the never-sample and source-colour cases upload the valid sources, which exist
        // only on the host).
        const TransferStats before = transfer_stats();
        const auto device = make_device_inpainter(pixels, device_coverage, problem);
        QCOMPARE(device->progress().total, cpu->progress().total);
        device->advance(1 << 20);
        const TransferStats moved = transfer_stats() - before;
        qInfo("device PatchMatch %dx%d%s: %llu uploads (%llu bytes), %llu downloads (%llu bytes)",
              w, h, never ? " with never-sample" : (colours ? " with source colours" : ""),
              (unsigned long long)moved.uploads, (unsigned long long)moved.upload_bytes,
              (unsigned long long)moved.downloads, (unsigned long long)moved.download_bytes);
        if (!never && !colours) QVERIFY(moved.upload_bytes + moved.download_bytes < 4096);
        const PixelRect all{0, 0, w - 1, h - 1};
        cpu->advance(1 << 20);
        {
            DeviceImage<Rgba8> dst(image.view(), stream.get());
            device->copy_filled(dst, all);
            QCOMPARE(compare_images(dst.download(), cpu->image()), QString());
        }
        // Partial fills too, from a fresh pair.
        const auto cpu2 = make_inpainter(image.view(), mask, params, InpaintImplementation::Fast);
        const auto device2 = make_device_inpainter(pixels, device_coverage, problem);
        for (const int step : {1, 5, 1 << 20}) {
            cpu2->advance(step);
            device2->advance(step);
            DeviceImage<Rgba8> dst(image.view(), stream.get());
            device2->copy_filled(dst, all);
            QCOMPARE(compare_images(dst.download(), cpu2->image()), QString());
        }
        QVERIFY(device2->progress().done());
        // A coverage that does not match the problem is refused: one more pixel, and one pixel
        // moved outside the hole's box.
        Mask other = coverage;
        other.at(0, 0) = 255;
        const DeviceImage<std::uint8_t> wrong(other.view(), stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, make_device_inpainter(pixels, wrong, problem));
        Mask moved_px = coverage;
        for (int y = 0; y < h && moved_px.at(w - 1, h - 1) < 128; ++y)
            for (int x = 0; x < w; ++x)
                if (moved_px.at(x, y) >= 128) {
                    moved_px.at(x, y) = 0;
                    moved_px.at(w - 1, h - 1) = 255;
                    break;
                }
        const DeviceImage<std::uint8_t> wrong2(moved_px.view(), stream.get());
        QVERIFY_THROWS_EXCEPTION(Error, make_device_inpainter(pixels, wrong2, problem));
        // An empty hole hands the pixels back.
        const Mask empty(w, h, 0);
        const DeviceImage<std::uint8_t> none(empty.view(), stream.get());
        const auto idle =
            make_device_inpainter(pixels, none, prepare_inpaint(image.view(), empty, params));
        QVERIFY(idle->progress().done());
        DeviceImage<Rgba8> dst(scene(w, h, 99).view(), stream.get());
        idle->copy_filled(dst, all);
        QCOMPARE(compare_images(dst.download(), image), QString());
    }

    void timings() {
        struct Case {
            int w, h, hole_w, hole_h;
        };
        using clock = std::chrono::steady_clock;
        const auto ms = [](const clock::time_point a, const clock::time_point b) {
            return std::chrono::duration<double, std::milli>(b - a).count();
        };
        for (const Case c : {Case{1920, 1080, 300, 200}, Case{512, 384, 76, 128}}) {
            const ImageRgba8 image = scene(c.w, c.h, 5);
            const Mask mask =
                box_mask(c.w, c.h, (c.w - c.hole_w) / 2, (c.h - c.hole_h) / 2, c.hole_w, c.hole_h);
            InpaintParams params;
            params.patch = 9;
            params.method = InpaintMethod::PatchMatch;
            // PatchMatch, its blend and keep-colours, phase by phase: the per-region choice and
            // the foreign-blob refill (host stages after the fill, timed with the rest of the
            // default by `lacuna bench inpaint`) are off. The refill takes a blob of the 512×384
            // scene.
            params.choose = false;
            params.refill_foreign = false;
            std::vector<double> gpu_ms, cpu_ms, prep_ms, setup_ms, advance_ms, wait_ms, image_ms,
                blend_ms, destroy_ms;
            TransferStats moved;
            for (int run = 0; run < 8; ++run) {
                const TransferStats s0 = transfer_stats();
                const auto t0 = clock::now();
                const InpaintResult r =
                    inpaint(image.view(), mask, params, InpaintImplementation::Cuda);
                const auto t1 = clock::now();
                moved = transfer_stats() - s0;
                QVERIFY(r.progress.done());
                // The same fill in phases: host preparation, the filler's setup (uploads, setup
                // kernels, its one read-back), advance (enqueues the EM iterations), the first
                // image() (waits for the kernels, then reads back) and a second image() (the
                // read-back alone).
                const auto p0 = clock::now();
                InpaintProblem problem = prepare_inpaint(image.view(), mask, params);
                const auto p1 = clock::now();
                auto filler =
                    lacuna::ops::detail::make_patchmatch_cuda_inpainter(std::move(problem));
                const auto p2 = clock::now();
                filler->advance(1 << 20);
                const auto p3 = clock::now();
                const ImageRgba8 first = filler->image();
                const auto p4 = clock::now();
                const ImageRgba8 second = filler->image();
                const auto p5 = clock::now();
                // What ops::inpaint returns: the fill blended in the gradient domain, on the
                // device.
                const ImageRgba8 finished = finished_image(*filler);
                const auto p6 = clock::now();
                filler.reset();
                const auto p7 = clock::now();
                // ops::inpaint ends with keep-colours (the blend kept to the ring's colours).
                QVERIFY(params.keep_colours);
                const ImageRgba8 kept = keep_ring_colours(first, finished, mask, finished);
                QCOMPARE(compare_images(kept, r.image), QString());
                QVERIFY(compare_images(first, r.image) != QString());
                if (run < 2) continue;  // the first runs pay for the CUDA context and the pools
                gpu_ms.push_back(ms(t0, t1));
                prep_ms.push_back(ms(p0, p1));
                setup_ms.push_back(ms(p1, p2));
                advance_ms.push_back(ms(p2, p3));
                wait_ms.push_back(ms(p3, p4) - ms(p4, p5));
                image_ms.push_back(ms(p4, p5));
                blend_ms.push_back(ms(p5, p6));
                destroy_ms.push_back(ms(p6, p7));
            }
            for (int run = 0; run < 1; ++run) {
                const auto t0 = clock::now();
                inpaint(image.view(), mask, params, InpaintImplementation::Fast);
                const auto t1 = clock::now();
                cpu_ms.push_back(ms(t0, t1));
            }
            qInfo(
                "PatchMatch %dx%d, hole %dx%d: CUDA %.2f ms (median of 6, end to end), CPU "
                "%.1f ms (%u threads)",
                c.w, c.h, c.hole_w, c.hole_h, median(gpu_ms), median(cpu_ms),
                std::max(1u, std::thread::hardware_concurrency()));
            qInfo(
                "  breakdown: prepare_inpaint (host) %.2f, setup (uploads + setup kernels + "
                "read-back) %.2f, advance (enqueue) %.2f, EM kernels (wait) %.2f, image() "
                "read-back %.2f, blend (host, with its reads) %.2f, destruction %.2f ms; moved up "
                "%llu B in %llu copies, down %llu B in %llu copies",
                median(prep_ms), median(setup_ms), median(advance_ms), median(wait_ms),
                median(image_ms), median(blend_ms), median(destroy_ms),
                (unsigned long long)moved.upload_bytes, (unsigned long long)moved.uploads,
                (unsigned long long)moved.download_bytes, (unsigned long long)moved.downloads);
        }
    }
};

QTEST_GUILESS_MAIN(TestPatchMatchCuda)
#include "test_patchmatch_cuda.moc"
