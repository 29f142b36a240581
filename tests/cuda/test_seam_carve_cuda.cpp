// CUDA seam carving against the CPU: identical seam orders, costs and mask counts (the fast CPU
// carver is itself tested equal to the reference), and the GPU slider's compaction against the
// CPU's, over odd sizes, one-pixel-high images, every energy, with and without masks. The device
// path (inputs, maps and previews on the device) against the host path, bit for bit, with the
// host <-> device traffic it causes counted: none.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/transfer_stats.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include "../engine/ppm.hpp"
#include "../engine/seam_test_util.hpp"

#include <cuda_runtime.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::compare;
using lacuna::test::rect_mask;

namespace {

ImageRgba8 test_image(const int w, const int h, const int levels, std::mt19937& rng) {
    ImageRgba8 image(w, h);
    std::uniform_int_distribution<int> v(0, levels - 1);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            // A smooth scene plus noise: long low-energy paths and ties both occur.
            const auto q = [&](const int base) {
                return std::uint8_t(std::clamp(base + v(rng) * (64 / levels), 0, 255));
            };
            image.at(x, y) = Rgba8{q((x * 3) % 200), q((y * 5) % 180), q(((x + y) * 2) % 220), 255};
        }
    return image;
}

/// The repository's photo crop scaled bilinearly to w × h with a little deterministic noise: real
/// structure, large smooth areas (many equal costs) and no two rows alike.
ImageRgba8 scaled_photo(const int w, const int h) {
    const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
    ImageRgba8 out(w, h);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> noise(-2, 2);
    for (int y = 0; y < h; ++y) {
        const double fy = (y + 0.5) * photo.height() / h - 0.5;
        const int y0 = std::clamp(static_cast<int>(std::floor(fy)), 0, photo.height() - 1);
        const int y1 = std::min(y0 + 1, photo.height() - 1);
        const double ty = std::clamp(fy - y0, 0.0, 1.0);
        for (int x = 0; x < w; ++x) {
            const double fx = (x + 0.5) * photo.width() / w - 0.5;
            const int x0 = std::clamp(static_cast<int>(std::floor(fx)), 0, photo.width() - 1);
            const int x1 = std::min(x0 + 1, photo.width() - 1);
            const double tx = std::clamp(fx - x0, 0.0, 1.0);
            const auto mix = [&](auto channel) {
                const double top =
                    channel(photo.at(x0, y0)) * (1 - tx) + channel(photo.at(x1, y0)) * tx;
                const double bottom =
                    channel(photo.at(x0, y1)) * (1 - tx) + channel(photo.at(x1, y1)) * tx;
                return static_cast<std::uint8_t>(std::clamp(
                    static_cast<int>(top * (1 - ty) + bottom * ty + 0.5) + noise(rng), 0, 255));
            };
            out.at(x, y) = Rgba8{mix([](Rgba8 p) { return p.r; }), mix([](Rgba8 p) { return p.g; }),
                                 mix([](Rgba8 p) { return p.b; }), 255};
        }
    }
    return out;
}

/// Every channel random (alpha too: insert_seams averages it).
template <class T>
Image<T> random_pixels(const int w, const int h, std::mt19937& rng) {
    Image<T> image(w, h);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if constexpr (std::is_same_v<T, Rgba8>) {
                image.at(x, y) = Rgba8{std::uint8_t(byte(rng)), std::uint8_t(byte(rng)),
                                       std::uint8_t(byte(rng)), std::uint8_t(byte(rng))};
            } else {
                image.at(x, y) = T(byte(rng));
            }
        }
    return image;
}

/// Empty when nothing moved between host and device; else what did.
QString moved(const TransferStats& d) {
    if (d == TransferStats{}) return {};
    return QString("%1 uploads (%2 bytes), %3 downloads (%4 bytes)")
        .arg(d.uploads)
        .arg(d.upload_bytes)
        .arg(d.downloads)
        .arg(d.download_bytes);
}

/// Empty when the device map is the host order's map (shape and every rank).
QString compare_device(const SeamOrder& host, const DeviceSeamOrder& device) {
    if (device.direction != host.direction || device.width != host.width ||
        device.height != host.height || device.seams != host.seams)
        return "shape differs";
    if (device.order.width() != host.width || device.order.height() != host.height)
        return "map size differs";
    const Image<std::int32_t> map = device.order.download();
    for (int y = 0; y < host.height; ++y)
        for (int x = 0; x < host.width; ++x)
            if (map.at(x, y) != host.order.at(x, y))
                return QString("order at %1,%2: host %3, device %4")
                    .arg(x)
                    .arg(y)
                    .arg(host.order.at(x, y))
                    .arg(map.at(x, y));
    return {};
}

/// A valid order without carving (big images): in every row (vertical) or column (horizontal)
/// each index below `seams` once, at random places; compaction needs nothing more.
SeamOrder random_order(const int w, const int h, const SeamDirection direction, const int seams,
                       std::mt19937& rng) {
    SeamOrder order;
    order.direction = direction;
    order.width = w;
    order.height = h;
    order.seams = seams;
    order.order = Image<std::int32_t>(w, h);
    const bool vertical = direction == SeamDirection::Vertical;
    std::vector<std::int32_t> line(static_cast<std::size_t>(vertical ? w : h));
    for (int a = 0; a < (vertical ? h : w); ++a) {
        std::iota(line.begin(), line.end(), 0);
        std::shuffle(line.begin(), line.end(), rng);
        for (int b = 0; b < static_cast<int>(line.size()); ++b) {
            const std::int32_t v = line[b] < seams ? line[b] : kNeverRemoved;
            (vertical ? order.order.at(b, a) : order.order.at(a, b)) = v;
        }
    }
    return order;
}

/// Median device time of `launch` in ms (events on `stream`, after a warm-up run).
template <class Launch>
double median_ms(const cudaStream_t stream, const int repeats, Launch&& launch) {
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    launch();
    cudaStreamSynchronize(stream);
    std::vector<float> times;
    for (int r = 0; r < repeats; ++r) {
        cudaEventRecord(start, stream);
        launch();
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
}

/// Importance levels as the carvers take them: a soft ellipse up to kTemporalLevels (a face)
/// over random low levels (saliency, skin).
Mask face_over_low_levels(const int w, const int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> low(0, 20);
    Mask levels(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double r =
                std::hypot((x - w / 2.0) / (w / 5.0 + 1), (y - h / 2.0) / (h / 4.0 + 1));
            const int face =
                static_cast<int>(std::lround(kTemporalLevels * std::clamp(1.5 - r, 0.0, 1.0)));
            levels.at(x, y) =
                static_cast<std::uint8_t>(std::min(kTemporalLevels - 1, face + low(rng)));
        }
    return levels;
}

}  // namespace

class TestSeamCarveCuda : public QObject {
    Q_OBJECT
    std::mt19937 rng_{99};

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void cuda_equals_cpu() {
        struct Case {
            int w, h, levels, seams;
        };
        // 4500 wide: the DP without prefetching (costs in shared memory); 30000 wide: two cost
        // rows no longer fit shared memory, so the map lives in global memory.
        const Case cases[] = {{2, 5, 4, 1},         {13, 1, 256, 6},   {1, 31, 256, 0},
                              {37, 23, 3, 20},      {64, 33, 256, 40}, {641, 479, 8, 200},
                              {1500, 1100, 16, 30}, {4500, 40, 16, 3}, {30000, 3, 16, 2}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, c.levels, rng_);
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal}) {
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const int extent = dir == SeamDirection::Vertical ? c.w : c.h;
                    const int seams = std::min(c.seams, extent - 1);
                    if (seams < 0) continue;
                    const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
                    const Mask remove =
                        rect_mask(c.w, c.h, c.w * 3 / 4, 0, std::min(c.w, c.w * 3 / 4 + 2), c.h);
                    for (const bool masks : {false, true}) {
                        const CarveInput in{img.view(), masks ? &protect : nullptr,
                                            masks ? &remove : nullptr, kind};
                        const SeamOrder gold = c.w * c.h <= 5000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(),
                                 qPrintable(QString("%1x%2 %3 %4 masks %5: %6")
                                                .arg(c.w)
                                                .arg(c.h)
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
        QVERIFY(compared >= 100);
    }

    // 16-bit decision images (measurement documents): 32-bit aux terms and 64-bit costs on the
    // device, the same seams and costs as the CPU carvers; wide enough for staged windows and for
    // rows read from global memory.
    void deep_cuda_equals_cpu() {
        struct Case {
            int w, h, levels, seams;
        };
        const Case cases[] = {{2, 5, 4, 1},           {13, 1, 65536, 6},   {37, 23, 3, 20},
                              {641, 479, 65536, 120}, {1500, 301, 17, 40}, {30000, 3, 65536, 2}};
        int compared = 0;
        for (const Case& c : cases) {
            const Image<Rgba16> img = test::random_deep_image(c.w, c.h, c.levels, rng_);
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal}) {
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const int extent = dir == SeamDirection::Vertical ? c.w : c.h;
                    const int seams = std::min(c.seams, extent - 1);
                    const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
                    for (const bool masks : {false, true}) {
                        const DeepCarveInput in{img.view(), masks ? &protect : nullptr, nullptr,
                                                kind};
                        const SeamOrder gold = c.w * c.h <= 5000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(), qPrintable(QString("%1x%2 %3 dir %4 masks %5: %6")
                                                                .arg(c.w)
                                                                .arg(c.h)
                                                                .arg(int(kind))
                                                                .arg(int(dir))
                                                                .arg(masks)
                                                                .arg(diff)));
                        ++compared;
                    }
                }
            }
        }
        QCOMPARE(compared, 6 * 5 * 2 * 2);
    }

    // Video's temporal term (distance levels in the mask byte's upper bits on the device): the
    // same seams and costs as the CPU carvers, with and without a protect mask, both directions.
    void temporal_term_equals_cpu() {
        struct Case {
            int w, h, seams;
        };
        const Case cases[] = {{13, 7, 5}, {97, 61, 30}, {641, 479, 100}, {1500, 40, 20}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, 16, rng_);
            std::uniform_int_distribution<int> level(0, kTemporalLevels - 1);
            Mask distances(c.w, c.h, 0);
            for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x)
                    distances.at(x, y) = static_cast<std::uint8_t>(level(rng_));
            const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
            for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool masks : {false, true}) {
                        CarveInput in{img.view(), masks ? &protect : nullptr, nullptr, kind};
                        in.temporal = &distances;
                        in.temporal_unit = masks ? 9 : 40;
                        const int seams =
                            std::min(c.seams, (dir == SeamDirection::Vertical ? c.w : c.h) - 1);
                        const SeamOrder gold = c.w * c.h <= 10000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(),
                                 qPrintable(QString("%1x%2: %3").arg(c.w).arg(c.h).arg(diff)));
                        ++compared;
                    }
        }
        QCOMPARE(compared, 4 * 2 * 2 * 2);
    }

    // A still's importance levels through their own field (host and device inputs,
    // and the approximate-first preview that keeps a block's largest level): the CPU's seams.
    void importance_field_equals_cpu() {
        struct Case {
            int w, h, seams;
        };
        const Case cases[] = {{13, 7, 5}, {97, 61, 30}, {641, 479, 100}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, 16, rng_);
            std::uniform_int_distribution<int> level(0, kTemporalLevels - 1);
            Mask importance(c.w, c.h, 0);
            for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x)
                    importance.at(x, y) = static_cast<std::uint8_t>(level(rng_) / 2);
            const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
            const OwnedStream inputs;
            const DeviceImage<Rgba8> device_image(img.view(), inputs.get());
            const DeviceImage<std::uint8_t> device_importance(importance.view(), inputs.get());
            const DeviceImage<std::uint8_t> device_protect(protect.view(), inputs.get());
            for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool masks : {false, true}) {
                        CarveInput in{img.view(), masks ? &protect : nullptr, nullptr, kind};
                        in.importance = &importance;
                        in.importance_unit = kind == SeamEnergy::Sobel ? 128 : 48;
                        const int seams =
                            std::min(c.seams, (dir == SeamDirection::Vertical ? c.w : c.h) - 1);
                        const SeamOrder gold = c.w * c.h <= 10000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString what = QString("%1x%2 %3 %4 masks %5")
                                                 .arg(c.w)
                                                 .arg(c.h)
                                                 .arg(QString::fromStdString(to_string(kind)))
                                                 .arg(dir == SeamDirection::Vertical ? "v" : "h")
                                                 .arg(masks);
                        QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(), qPrintable(what + ": " + diff));
                        DeviceCarveInput device_in{&device_image, masks ? &device_protect : nullptr,
                                                   nullptr, kind};
                        device_in.importance = &device_importance;
                        device_in.importance_unit = in.importance_unit;
                        diff = compare_device(gold, seam_order_cuda(device_in, dir, seams));
                        QVERIFY2(diff.isEmpty(), qPrintable(what + " device input: " + diff));
                        if (c.w >= 64 && c.h >= 32) {
                            const int quick = std::min(seams, 12);
                            diff = compare(seam_order_approximate(in, dir, quick, 2,
                                                                  CarveImplementation::Fast),
                                           seam_order_approximate(in, dir, quick, 2,
                                                                  CarveImplementation::Cuda));
                            QVERIFY2(diff.isEmpty(), qPrintable(what + " approximate: " + diff));
                        }
                        ++compared;
                    }
        }
        QCOMPARE(compared, 3 * 2 * 2 * 2);
    }

    // Issue 32, item 4: a fixed level map without masks (importance) folds into the unmasked
    // 32-bit layout on the device (gradient energies: the level in the colour copy's alpha,
    // added where energies are computed; forward energy: bits 10..15 of the intensity term, added
    // in the recurrence), moved with the pixels by removal, transposition and compaction. Every
    // energy, odd sizes, the image a sub-view of a larger one, bands beyond the shared-memory
    // window (4500 wide) and rows from global memory (30000 wide), both directions, host and
    // device inputs, and a retarget on the device: the CPU's seams, costs and image; the profile
    // says the carve took the 32-bit layout.
    void importance_fold_equals_cpu() {
        struct Case {
            int w, h, seams;
        };
        const Case cases[] = {{1, 9, 4},       {2, 5, 1},     {13, 1, 6},
                              {37, 23, 20},    {97, 61, 40},  {641, 479, 120},
                              {1500, 301, 40}, {4500, 40, 3}, {30000, 3, 2}};
        const auto unit_for = [](const SeamEnergy kind) {
            return kind == SeamEnergy::Sobel ? 128 : kind == SeamEnergy::Prewitt ? 96 : 48;
        };
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 larger = test_image(c.w + 7, c.h + 5, 16, rng_);
            const ImageView<const Rgba8> view =
                sub_view(larger.view(), PixelRect{3, 2, 3 + c.w - 1, 2 + c.h - 1});
            const Mask importance = face_over_low_levels(c.w, c.h, rng_);
            const OwnedStream inputs;
            const DeviceImage<Rgba8> device_image(view, inputs.get());
            const DeviceImage<std::uint8_t> device_importance(importance.view(), inputs.get());
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal})
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    CarveInput in{view, nullptr, nullptr, kind};
                    in.importance = &importance;
                    in.importance_unit = unit_for(kind);
                    const int seams =
                        std::min(c.seams, (dir == SeamDirection::Vertical ? c.w : c.h) - 1);
                    const SeamOrder gold = c.w * c.h <= 10000 ? seam_order_reference(in, dir, seams)
                                                              : seam_order_fast(in, dir, seams);
                    const QString what = QString("%1x%2 %3 %4")
                                             .arg(c.w)
                                             .arg(c.h)
                                             .arg(QString::fromStdString(to_string(kind)))
                                             .arg(dir == SeamDirection::Vertical ? "v" : "h");
                    QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                    QVERIFY2(diff.isEmpty(), qPrintable(what + ": " + diff));
                    CarveProfile profile;
                    diff = compare(gold, seam_order_cuda_profiled(in, dir, seams, profile));
                    QVERIFY2(diff.isEmpty(), qPrintable(what + " profiled: " + diff));
                    QVERIFY2(profile.cost_bits == 32 && profile.folded_levels, qPrintable(what));
                    DeviceCarveInput device_in{&device_image, nullptr, nullptr, kind};
                    device_in.importance = &device_importance;
                    device_in.importance_unit = in.importance_unit;
                    diff = compare_device(gold, seam_order_cuda(device_in, dir, seams));
                    QVERIFY2(diff.isEmpty(), qPrintable(what + " device input: " + diff));
                    ++compared;
                }
            if (c.w == 641) {
                // Both sides shrink on the device: the levels are compacted and transposed with
                // the image between the passes.
                for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward}) {
                    RetargetParams params;
                    params.width = 521;
                    params.height = 400;
                    params.energy = kind;
                    params.importance = &importance;
                    params.importance_unit = unit_for(kind);
                    const RetargetResult cpu = retarget(view, params, CarveImplementation::Fast);
                    const RetargetResult gpu = retarget(view, params, CarveImplementation::Cuda);
                    QVERIFY(equal_pixels<Rgba8>(cpu.image.view(), gpu.image.view()));
                    QCOMPARE(gpu.total_cost, cpu.total_cost);
                    QCOMPARE(gpu.width_first, cpu.width_first);
                }
            }
        }
        QCOMPARE(compared, 9 * 5 * 2);
    }

    // The finder spreads each batch's strips over a thread-block cluster of 1, 2 or 4 blocks
    // (SMs) on devices with clusters; every count must give the CPU's seams and costs: plain and
    // level maps (forward and gradient energies), 64-bit masks, bands that go back and forth
    // between shared and global memory (4500 wide), both directions. The automatic choice: one
    // block for a small plain map, four for a level map of 4K's size (where clusters exist).
    void finder_clusters_equal_cpu() {
        struct Case {
            int w, h, seams;
            SeamEnergy energy;
            bool levels, masks;
        };
        const Case cases[] = {{641, 479, 120, SeamEnergy::Forward, false, false},
                              {641, 479, 120, SeamEnergy::Forward, true, false},
                              {533, 301, 90, SeamEnergy::L1, true, false},
                              {421, 317, 80, SeamEnergy::Forward, false, true},
                              {1500, 301, 40, SeamEnergy::Forward, true, false},
                              {4500, 40, 4, SeamEnergy::Forward, true, false}};
        struct Restore {
            ~Restore() { set_cuda_finder_blocks(0); }
        } restore;
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = scaled_photo(c.w, c.h);
            const Mask levels = face_over_low_levels(c.w, c.h, rng_);
            const Mask protect = rect_mask(c.w, c.h, c.w / 3, c.h / 3, c.w / 2, 2 * c.h / 3);
            CarveInput in{img.view(), c.masks ? &protect : nullptr, nullptr, c.energy};
            if (c.levels) {
                in.importance = &levels;
                in.importance_unit = 48;
            }
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                const int seams =
                    std::min(c.seams, (dir == SeamDirection::Vertical ? c.w : c.h) - 1);
                const SeamOrder gold = seam_order_fast(in, dir, seams);
                for (const int blocks : {1, 2, 4}) {
                    set_cuda_finder_blocks(blocks);
                    CarveProfile profile;
                    const QString diff =
                        compare(gold, seam_order_cuda_profiled(in, dir, seams, profile));
                    QVERIFY2(diff.isEmpty(),
                             qPrintable(QString("%1x%2 %3 %4 blocks %5: %6")
                                            .arg(c.w)
                                            .arg(c.h)
                                            .arg(QString::fromStdString(to_string(c.energy)))
                                            .arg(dir == SeamDirection::Vertical ? "v" : "h")
                                            .arg(blocks)
                                            .arg(diff)));
                    QVERIFY(profile.finder_blocks >= 1 && profile.finder_blocks <= blocks);
                    ++compared;
                }
            }
        }
        QCOMPARE(compared, 6 * 2 * 3);

        set_cuda_finder_blocks(0);
        int device = 0;
        cudaDeviceProp properties{};
        QCOMPARE(cudaGetDevice(&device), cudaSuccess);
        QCOMPARE(cudaGetDeviceProperties(&properties, device), cudaSuccess);
        const bool clusters = properties.major >= 9;
        const ImageRgba8 small = scaled_photo(641, 479);
        CarveProfile profile;
        (void)seam_order_cuda_profiled(
            CarveInput{small.view(), nullptr, nullptr, SeamEnergy::Forward},
            SeamDirection::Vertical, 3, profile);
        QCOMPARE(profile.finder_blocks, 1);
        const ImageRgba8 large = scaled_photo(2200, 1500);  // 3.3 million cells, as 4K's map
        const Mask large_levels = face_over_low_levels(2200, 1500, rng_);
        CarveInput with_levels{large.view(), nullptr, nullptr, SeamEnergy::Forward};
        with_levels.importance = &large_levels;
        with_levels.importance_unit = 48;
        const SeamOrder order =
            seam_order_cuda_profiled(with_levels, SeamDirection::Vertical, 3, profile);
        QCOMPARE(profile.finder_blocks, clusters ? 4 : 1);
        QVERIFY(compare(seam_order_fast(with_levels, SeamDirection::Vertical, 3), order).isEmpty());
        qInfo("finder blocks on this device: %d for a 2200x1500 level map (compute %d.%d)",
              profile.finder_blocks, properties.major, properties.minor);
    }

    // An importance map with every level 0 (the default terms on a photo without a face) adds
    // nothing: the carve takes the plain layout, not the level-reading one, with the same seams.
    void importance_without_levels_takes_the_plain_map() {
        const ImageRgba8 img = test_image(301, 97, 16, rng_);
        const Mask zero(301, 97, 0);
        for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward}) {
            const CarveInput plain{img.view(), nullptr, nullptr, kind};
            CarveInput in = plain;
            in.importance = &zero;
            in.importance_unit = 64;
            CarveProfile profile;
            const SeamOrder order =
                seam_order_cuda_profiled(in, SeamDirection::Vertical, 120, profile);
            QCOMPARE(profile.cost_bits, 32);
            QVERIFY(!profile.folded_levels);
            QVERIFY(compare(seam_order_fast(plain, SeamDirection::Vertical, 120), order).isEmpty());
        }
    }

    // The folded sums at their worst (kMaxFoldedLevelTerm, seam_energy.h): 32768 rows or
    // columns (the largest image side), every channel 0 or 255, levels mostly 63, at the largest
    // unit that folds (the 32-bit layout), the first that does not and the largest there is (the
    // 64-bit masked layout; folded, that one would wrap the 16-bit terms): the reference's 64-bit
    // costs and seams, every energy, both directions.
    void importance_fold_at_the_extremes() {
        std::mt19937 rng(5);
        const int unit = kMaxFoldedLevelTerm / (kTemporalLevels - 1);
        const test::ExtremeLevels tall = test::extreme_levels(4, kMaxImageSide, rng);
        const test::ExtremeLevels wide = test::extreme_levels(kMaxImageSide, 4, rng);
        for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                      SeamEnergy::Forward, SeamEnergy::Transversal})
            for (const int u : {unit, unit + 1, kTemporalMaxUnit})
                for (const SeamDirection dir :
                     {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                    const test::ExtremeLevels& e = dir == SeamDirection::Vertical ? tall : wide;
                    CarveInput in{e.image.view(), nullptr, nullptr, kind};
                    in.importance = &e.levels;
                    in.importance_unit = u;
                    const SeamOrder gold = seam_order_reference(in, dir, 3);
                    CarveProfile profile;
                    const QString diff =
                        compare(gold, seam_order_cuda_profiled(in, dir, 3, profile));
                    const QString what = QString("%1 unit %2 %3")
                                             .arg(QString::fromStdString(to_string(kind)))
                                             .arg(u)
                                             .arg(dir == SeamDirection::Vertical ? "v" : "h");
                    QVERIFY2(diff.isEmpty(), qPrintable(what + ": " + diff));
                    QCOMPARE(profile.cost_bits, u == unit ? 32 : 64);
                    QCOMPARE(profile.folded_levels, u == unit);
                    QVERIFY2(gold.costs[0] > (std::int64_t{1} << 29), qPrintable(what));
                }
    }

    // The per-seam term on the device: each removal moves the levels from seam k's crossing to
    // seam k + 1's and widens the next update's band over them. Random previous paths (near and
    // far apart), widths beyond the shared-memory window, both directions, with and without a
    // protect mask: the same seams and costs as the CPU.
    void per_seam_term_equals_cpu() {
        struct Case {
            int w, h, seams;
        };
        const Case cases[] = {{13, 7, 5}, {97, 61, 30}, {641, 479, 100}, {1500, 40, 20}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, 16, rng_);
            const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
            for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool masks : {false, true}) {
                        const bool vertical = dir == SeamDirection::Vertical;
                        const int seams = std::min(c.seams, (vertical ? c.w : c.h) - 1);
                        const SeamPaths paths = test::random_seam_paths(vertical ? c.h : c.w, seams,
                                                                        vertical ? c.w : c.h, rng_);
                        CarveInput in{img.view(), masks ? &protect : nullptr, nullptr, kind};
                        in.temporal_seams = &paths;
                        in.temporal_unit = masks ? 9 : 40;
                        const SeamOrder gold = c.w * c.h <= 10000
                                                   ? seam_order_reference(in, dir, seams)
                                                   : seam_order_fast(in, dir, seams);
                        const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                        QVERIFY2(diff.isEmpty(), qPrintable(QString("%1x%2 dir %3 masks %4: %5")
                                                                .arg(c.w)
                                                                .arg(c.h)
                                                                .arg(int(dir))
                                                                .arg(masks)
                                                                .arg(diff)));
                        ++compared;
                    }
        }
        QCOMPARE(compared, 4 * 2 * 2 * 2);
    }

    // Video with faces: importance and a temporal term in one carve. On the device the
    // importance rides with the pixels (alpha byte for gradient energies, aux bits 10..15 for
    // forward energy) and the temporal level in the mask bits. Odd sizes up to beyond the
    // shared-memory window, every energy, both directions, both temporal terms, with and without
    // a protect mask, units from 1 to beyond the fold's bound: the seams and costs of the CPU.
    void importance_with_temporal_equals_cpu() {
        struct Case {
            int w, h, seams;
        };
        const Case cases[] = {{13, 7, 5}, {97, 61, 30}, {641, 479, 100}, {1501, 41, 20}};
        std::uniform_int_distribution<int> level(0, kTemporalLevels - 1);
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 img = test_image(c.w, c.h, 16, rng_);
            const Mask protect = rect_mask(c.w, c.h, c.w / 5, c.h / 4, c.w / 3, c.h / 2);
            Mask importance(c.w, c.h, 0), distances(c.w, c.h, 0);
            for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x) {
                    const bool face =
                        std::hypot(x - c.w * 0.6, y - c.h * 0.45) < std::min(c.w, c.h) / 3.0;
                    importance.at(x, y) =
                        static_cast<std::uint8_t>(face ? 40 + level(rng_) % 24 : level(rng_) / 8);
                    distances.at(x, y) = static_cast<std::uint8_t>(level(rng_));
                }
            for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                          SeamEnergy::Forward, SeamEnergy::Transversal})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool per_seam : {false, true})
                        for (const bool masks : {false, true}) {
                            const bool vertical = dir == SeamDirection::Vertical;
                            const int seams = std::min(c.seams, (vertical ? c.w : c.h) - 1);
                            const SeamPaths paths = test::random_seam_paths(
                                vertical ? c.h : c.w, seams, vertical ? c.w : c.h, rng_);
                            CarveInput in{img.view(), masks ? &protect : nullptr, nullptr, kind};
                            if (per_seam)
                                in.temporal_seams = &paths;
                            else
                                in.temporal = &distances;
                            in.temporal_unit = masks ? 9 : 40;
                            in.importance = &importance;
                            // 48: the forward unit; 1000: beyond the fold's bound (masked aux).
                            in.importance_unit = masks ? 1000 : 48;
                            const SeamOrder gold = c.w * c.h <= 10000
                                                       ? seam_order_reference(in, dir, seams)
                                                       : seam_order_fast(in, dir, seams);
                            const QString diff = compare(gold, seam_order_cuda(in, dir, seams));
                            QVERIFY2(diff.isEmpty(),
                                     qPrintable(QString("%1x%2 energy %3 dir %4 per-seam %5 "
                                                        "masks %6: %7")
                                                    .arg(c.w)
                                                    .arg(c.h)
                                                    .arg(int(kind))
                                                    .arg(int(dir))
                                                    .arg(per_seam)
                                                    .arg(masks)
                                                    .arg(diff)));
                            ++compared;
                        }
        }
        QCOMPARE(compared, 4 * 5 * 2 * 2 * 2);
    }

    // The wavefront and the video carver with a per-frame importance map: the CPU's frames.
    void importance_in_chained_and_batched_frames_equals_cpu() {
        constexpr int w = 161, h = 91, frames = 5, seams = 40;
        const ImageRgba8 wide = scaled_photo(w + 2 * frames + 2, h);
        std::vector<ImageRgba8> clip;
        std::vector<Mask> faces;
        for (int f = -1; f < frames; ++f) {
            ImageRgba8 out(w, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) out.at(x, y) = wide.at(x + 2 * (f + 1), y);
            clip.push_back(std::move(out));
            Mask m(w, h, 0);
            for (int y = 20; y < 70; ++y)
                for (int x = 60 + f; x < 100 + f; ++x) m.at(x, y) = 50;
            faces.push_back(std::move(m));
        }
        std::vector<bool> follows(frames, true);
        follows[2] = false;
        for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward})
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                const auto input = [&](const int f) {
                    CarveInput in{clip[static_cast<std::size_t>(f + 1)].view(), nullptr, nullptr,
                                  kind};
                    in.importance = &faces[static_cast<std::size_t>(f + 1)];
                    in.importance_unit = 48;
                    return in;
                };
                const SeamPaths first = seam_paths(seam_order_fast(input(-1), dir, seams), seams);
                std::vector<CarveInput> inputs;
                for (int f = 0; f < frames; ++f) inputs.push_back(input(f));
                const std::vector<SeamOrder> chained =
                    seam_orders_cuda_chained(inputs, dir, seams, &first, follows, 16);
                SeamPaths previous = first;
                for (int f = 0; f < frames; ++f) {
                    CarveInput in = input(f);
                    if (follows[static_cast<std::size_t>(f)]) {
                        in.temporal_seams = &previous;
                        in.temporal_unit = 16;
                    }
                    const SeamOrder gold = seam_order_fast(in, dir, seams);
                    const QString diff = compare(gold, chained[static_cast<std::size_t>(f)]);
                    QVERIFY2(diff.isEmpty(), qPrintable(QString("frame %1 energy %2 dir %3: %4")
                                                            .arg(f)
                                                            .arg(int(kind))
                                                            .arg(int(dir))
                                                            .arg(diff)));
                    previous = seam_paths(gold, seams);
                }
            }
        // The video carver in groups of 3 on the device = the CPU's frames one after another.
        VideoRetargetParams p;
        p.width = 121;
        p.height = 80;
        p.chained_frames = 3;
        VideoRetargeter cpu(w, h, p, CarveImplementation::Fast);
        VideoRetargeter gpu(w, h, p, CarveImplementation::Cuda);
        std::vector<ImageView<const Rgba8>> views;
        std::vector<const Mask*> maps;
        for (std::size_t f = 0; f < 5; ++f) {
            views.push_back(clip[f].view());
            maps.push_back(&faces[f]);
        }
        const std::vector<ImageRgba8> first_three =
            gpu.process_batch({views.begin(), views.begin() + 3}, {maps.begin(), maps.begin() + 3});
        const std::vector<ImageRgba8> last_two =
            gpu.process_batch({views.begin() + 3, views.end()}, {maps.begin() + 3, maps.end()});
        for (std::size_t f = 0; f < 5; ++f) {
            const ImageRgba8 expected = cpu.process(views[f], maps[f]);
            const ImageRgba8& got = f < 3 ? first_three[f] : last_two[f - 3];
            bool same = got.width() == expected.width() && got.height() == expected.height();
            for (int y = 0; same && y < got.height(); ++y)
                same = std::equal(got.row(y), got.row(y) + got.width(), expected.row(y));
            QVERIFY2(same, qPrintable(QString("frame %1").arg(f)));
        }
    }

    // Video's wavefront: frames carved side by side, each following the one before through the
    // crossings it records on the device (a cut in the middle follows nothing), equal the CPU
    // carver run frame after frame with the previous order's paths. Frames are a pan over the
    // photo, both directions, with and without a protect mask.
    void chained_frames_equal_frame_by_frame() {
        struct Case {
            int w, h, seams, frames;
        };
        const Case cases[] = {{61, 37, 20, 5}, {641, 181, 120, 6}};
        int compared = 0;
        for (const Case& c : cases) {
            const ImageRgba8 wide = scaled_photo(c.w + 2 * c.frames + 2, c.h);
            const auto frame = [&](const int f) {
                ImageRgba8 out(c.w, c.h);
                for (int y = 0; y < c.h; ++y)
                    for (int x = 0; x < c.w; ++x) out.at(x, y) = wide.at(x + 2 * (f + 1), y);
                return out;
            };
            std::vector<ImageRgba8> clip;
            for (int f = -1; f < c.frames; ++f) clip.push_back(frame(f));
            const Mask protect = rect_mask(c.w, c.h, c.w / 4, c.h / 4, c.w / 2, c.h / 2);
            std::vector<bool> follows(static_cast<std::size_t>(c.frames), true);
            follows[2] = false;  // a cut
            for (const SeamEnergy kind : {SeamEnergy::Sobel, SeamEnergy::Forward})
                for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal})
                    for (const bool masks : {false, true}) {
                        const int unit = masks ? 9 : 40;
                        const auto input = [&](const int f) {
                            return CarveInput{clip[static_cast<std::size_t>(f + 1)].view(),
                                              masks ? &protect : nullptr, nullptr, kind};
                        };
                        const SeamPaths first =
                            seam_paths(seam_order_fast(input(-1), dir, c.seams), c.seams);
                        std::vector<CarveInput> inputs;
                        for (int f = 0; f < c.frames; ++f) inputs.push_back(input(f));
                        const std::vector<SeamOrder> chained =
                            seam_orders_cuda_chained(inputs, dir, c.seams, &first, follows, unit);
                        QCOMPARE(chained.size(), static_cast<std::size_t>(c.frames));
                        SeamPaths previous = first;
                        for (int f = 0; f < c.frames; ++f) {
                            CarveInput in = input(f);
                            if (follows[static_cast<std::size_t>(f)]) {
                                in.temporal_seams = &previous;
                                in.temporal_unit = unit;
                            }
                            const SeamOrder gold = seam_order_fast(in, dir, c.seams);
                            const QString diff =
                                compare(gold, chained[static_cast<std::size_t>(f)]);
                            QVERIFY2(diff.isEmpty(),
                                     qPrintable(QString("%1x%2 frame %3 dir %4 masks %5: %6")
                                                    .arg(c.w)
                                                    .arg(c.h)
                                                    .arg(f)
                                                    .arg(int(dir))
                                                    .arg(masks)
                                                    .arg(diff)));
                            previous = seam_paths(gold, c.seams);
                            ++compared;
                        }
                    }
        }
        QCOMPARE(compared, (5 + 6) * 2 * 2 * 2);
        // Bad input: frames of two sizes, a first frame that follows no paths.
        const ImageRgba8 a(20, 10), b(21, 10);
        std::vector<CarveInput> two{CarveInput{a.view()}, CarveInput{b.view()}};
        QVERIFY_THROWS_EXCEPTION(Error, seam_orders_cuda_chained(two, SeamDirection::Vertical, 3,
                                                                 nullptr, {false, true}, 8));
        two[1].image = a.view();
        QVERIFY_THROWS_EXCEPTION(Error, seam_orders_cuda_chained(two, SeamDirection::Vertical, 3,
                                                                 nullptr, {true, true}, 8));
        QCOMPARE(
            seam_orders_cuda_chained(two, SeamDirection::Vertical, 3, nullptr, {false, true}, 8)
                .size(),
            std::size_t{2});
    }

    // The video carver in groups on the device (three frames side by side, so groups and a
    // remainder) gives the frames the CPU gives one after another: both directions, a protect
    // mask on every frame and a cut.
    void batched_video_equals_cpu() {
        constexpr int w = 160, h = 96, frames = 8;
        const ImageRgba8 wide = scaled_photo(w + 2 * frames, h);
        std::mt19937 other(5);
        std::vector<ImageRgba8> clip;
        for (int f = 0; f < frames; ++f) {
            if (f == 4) {
                clip.push_back(test_image(w, h, 16, other));  // a new shot
                continue;
            }
            ImageRgba8 out(w, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) out.at(x, y) = wide.at(x + 2 * f, y);
            clip.push_back(std::move(out));
        }
        const Mask protect = rect_mask(w, h, 60, 30, 90, 70);
        VideoRetargetParams p;
        p.width = 121;
        p.height = 83;
        p.temporal = 1.5;
        p.protect = &protect;
        p.chained_frames = 3;
        VideoRetargeter cpu(w, h, p, CarveImplementation::Fast);
        VideoRetargeter gpu(w, h, p, CarveImplementation::Cuda);
        QCOMPARE(gpu.frames_in_flight(), 3);
        int checked = 0;
        for (int f = 0; f < frames; f += 3) {
            std::vector<ImageView<const Rgba8>> views;
            for (int g = f; g < std::min(frames, f + 3); ++g)
                views.push_back(clip[static_cast<std::size_t>(g)].view());
            const std::vector<ImageRgba8> out = gpu.process_batch(views);
            QCOMPARE(out.size(), views.size());
            for (std::size_t i = 0; i < views.size(); ++i) {
                const ImageRgba8 expected = cpu.process(views[i]);
                QCOMPARE(out[i].width(), 121);
                QCOMPARE(out[i].height(), 83);
                for (int y = 0; y < 83; ++y)
                    for (int x = 0; x < 121; ++x)
                        QVERIFY2(out[i].at(x, y) == expected.at(x, y),
                                 qPrintable(QString("frame %1 pixel %2,%3")
                                                .arg(f + static_cast<int>(i))
                                                .arg(x)
                                                .arg(y)));
                ++checked;
            }
        }
        QCOMPARE(checked, frames);
        QCOMPARE(cpu.cuts(), 2);  // into the new shot and back out of it
        QCOMPARE(gpu.cuts(), 2);
        QCOMPARE(gpu.frames(), frames);
        QCOMPARE(compare(*gpu.vertical_order(), *cpu.vertical_order()), QString());
        QCOMPARE(compare(*gpu.horizontal_order(), *cpu.horizontal_order()), QString());
    }

    void real_photo_equals_cpu() {
        const ImageRgba8 photo = test::read_ppm(LACUNA_SOURCE_DIR "/tests/data/fruits-crop.ppm");
        QCOMPARE(photo.width(), 160);
        const Mask protect = rect_mask(160, 120, 60, 30, 100, 90);
        for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                      SeamEnergy::Forward, SeamEnergy::Transversal}) {
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                for (const bool masks : {false, true}) {
                    const CarveInput in{photo.view(), masks ? &protect : nullptr, nullptr, kind};
                    const int seams = dir == SeamDirection::Vertical ? 80 : 60;
                    const QString diff = compare(seam_order_reference(in, dir, seams),
                                                 seam_order_cuda(in, dir, seams));
                    QVERIFY2(diff.isEmpty(), qPrintable(diff));
                }
            }
        }
    }

    // The incremental cost update must not drift over a long run: 500 seams of a 1031 × 707 photo
    // (and long runs for the other energies, with masks, and horizontally).
    void long_run_equals_cpu() {
        const ImageRgba8 photo = scaled_photo(1031, 707);
        const Mask protect = rect_mask(1031, 707, 400, 200, 600, 500);
        const Mask remove = rect_mask(1031, 707, 800, 100, 830, 600);
        struct Run {
            SeamEnergy energy;
            SeamDirection direction;
            bool masks;
            int seams;
        };
        const Run runs[] = {{SeamEnergy::Forward, SeamDirection::Vertical, false, 500},
                            {SeamEnergy::Sobel, SeamDirection::Vertical, false, 300},
                            {SeamEnergy::Forward, SeamDirection::Vertical, true, 300},
                            {SeamEnergy::L1, SeamDirection::Horizontal, true, 250},
                            {SeamEnergy::Forward, SeamDirection::Horizontal, false, 350}};
        for (const Run& r : runs) {
            const CarveInput in{photo.view(), r.masks ? &protect : nullptr,
                                r.masks ? &remove : nullptr, r.energy};
            const QString diff = compare(seam_order_fast(in, r.direction, r.seams),
                                         seam_order_cuda(in, r.direction, r.seams));
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("%1 %2 masks %3: %4")
                                    .arg(QString::fromStdString(to_string(r.energy)))
                                    .arg(r.direction == SeamDirection::Vertical ? "vertical"
                                                                                : "horizontal")
                                    .arg(r.masks)
                                    .arg(diff)));
        }
    }

    // Bands wider than shared memory (a remove mask changes whole rows; very wide rows) take the
    // global-memory path for some rows; the profile says how many, and the result stays exact.
    void wide_bands_and_profile() {
        const ImageRgba8 photo = scaled_photo(2600, 300);
        const Mask remove = rect_mask(2600, 300, 100, 0, 2500, 300);
        const CarveInput in{photo.view(), nullptr, &remove, SeamEnergy::Forward};
        CarveProfile profile;
        const SeamOrder gpu = seam_order_cuda_profiled(in, SeamDirection::Vertical, 60, profile);
        QVERIFY2(compare(seam_order_fast(in, SeamDirection::Vertical, 60), gpu).isEmpty(),
                 "profiled carve differs");
        QCOMPARE(profile.seams, 60);
        QVERIFY(profile.update_ms_per_seam > 0);
        QVERIFY(profile.cells_per_seam > 0);
        QVERIFY(profile.direct_rows_share > 0);
        qInfo("2600x300 remove mask: %.0f cells/seam, %.1f %% rows from global memory",
              profile.cells_per_seam, 100 * profile.direct_rows_share);
    }

    // Shrinking with CUDA keeps the image, masks and orders on the device between the passes:
    // the result must equal the fast CPU carver's, in both orders and with masks.
    void retarget_on_device_equals_cpu() {
        const ImageRgba8 photo = scaled_photo(421, 317);
        const Mask protect = rect_mask(421, 317, 150, 100, 260, 220);
        const Mask remove = rect_mask(421, 317, 330, 40, 345, 300);
        struct Case {
            int width, height;
            SeamEnergy energy;
            bool masks;
        };
        const Case cases[] = {
            {300, 250, SeamEnergy::Forward, false}, {300, 250, SeamEnergy::Forward, true},
            {421, 200, SeamEnergy::Sobel, true},    {211, 317, SeamEnergy::L1, false},
            {1, 317, SeamEnergy::Forward, false},   {400, 1, SeamEnergy::Prewitt, true}};
        for (const Case& c : cases) {
            RetargetParams params;
            params.width = c.width;
            params.height = c.height;
            params.energy = c.energy;
            params.protect = c.masks ? &protect : nullptr;
            params.remove = c.masks ? &remove : nullptr;
            const RetargetResult cpu = retarget(photo.view(), params, CarveImplementation::Fast);
            const RetargetResult gpu = retarget(photo.view(), params, CarveImplementation::Cuda);
            const QString what = QString("%1x%2 %3 masks %4")
                                     .arg(c.width)
                                     .arg(c.height)
                                     .arg(QString::fromStdString(to_string(c.energy)))
                                     .arg(c.masks);
            QVERIFY2(equal_pixels<Rgba8>(cpu.image.view(), gpu.image.view()), qPrintable(what));
            QCOMPARE(gpu.total_cost, cpu.total_cost);
            QCOMPARE(gpu.width_first, cpu.width_first);
            QCOMPARE(gpu.protected_removed, cpu.protected_removed);
            QCOMPARE(gpu.remove_left, cpu.remove_left);
            QCOMPARE(gpu.notes, cpu.notes);
        }
    }

    void retarget_with_importance_and_mix_matches_cpu() {
        // Importance levels go in as the per-pixel level term and the mix (amount,
        // automatic) drives the same carvers: the GPU gives the CPU's image, bit for bit, on the
        // device-resident shrink path (seams only, no overlay) and the mixed path.
        const ImageRgba8 photo = scaled_photo(421, 317);
        Mask levels(421, 317, 0);
        for (int y = 0; y < 317; ++y)
            for (int x = 0; x < 421; ++x) {
                const double r = std::hypot((x - 200) / 60.0, (y - 150) / 80.0);
                levels.at(x, y) = static_cast<std::uint8_t>(
                    std::lround(63 * std::clamp(1.0 - (r - 1) / 0.4, 0.0, 1.0)));
            }
        struct Case {
            int width, height;
            double amount;
            bool automatic;
        };
        const Case cases[] = {{300, 250, 100, false},
                              {211, 317, 100, false},
                              {250, 317, 50, false},
                              {421, 400, 30, false},
                              {260, 280, 100, true}};
        for (const Case& c : cases) {
            RetargetParams params;
            params.width = c.width;
            params.height = c.height;
            params.importance = &levels;
            params.importance_unit = 48;
            params.amount = c.amount;
            params.automatic = c.automatic;
            const RetargetResult cpu = retarget(photo.view(), params, CarveImplementation::Fast);
            const RetargetResult gpu = retarget(photo.view(), params, CarveImplementation::Cuda);
            const QString what = QString("%1x%2 amount %3 auto %4")
                                     .arg(c.width)
                                     .arg(c.height)
                                     .arg(c.amount)
                                     .arg(c.automatic);
            QVERIFY2(equal_pixels<Rgba8>(cpu.image.view(), gpu.image.view()), qPrintable(what));
            QCOMPARE(gpu.total_cost, cpu.total_cost);
            QCOMPARE(gpu.width_mix.seams, cpu.width_mix.seams);
            QCOMPARE(gpu.width_mix.crop, cpu.width_mix.crop);
            QCOMPARE(gpu.height_mix.seams, cpu.height_mix.seams);
        }
    }

    void progress_and_cancel() {
        const ImageRgba8 photo = scaled_photo(400, 300);
        const CarveInput in{photo.view(), nullptr, nullptr, SeamEnergy::Forward};
        std::vector<int> reports;
        const SeamOrder order =
            seam_order_cuda(in, SeamDirection::Vertical, 200, [&](const int done, const int total) {
                reports.push_back(done);
                return total == 200;
            });
        QVERIFY(reports.size() >= 3);
        QCOMPARE(reports.back(), 200);
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        QVERIFY(compare(seam_order_fast(in, SeamDirection::Vertical, 200), order).isEmpty());
        int calls = 0;
        try {
            seam_order_cuda(in, SeamDirection::Vertical, 200,
                            [&](int, int) { return ++calls < 2; });
            QFAIL("cancelling did not stop the carve");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QCOMPARE(calls, 2);
    }

    void slider_frames_equal_cpu_compaction() {
        for (const auto& [w, h] : {std::pair{9, 4}, {333, 101}, {1921, 1081}}) {
            const ImageRgba8 img = test_image(w, h, 32, rng_);
            const SeamOrder order =
                seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward},
                                SeamDirection::Vertical, w / 2);
            CudaSeamSlider slider(img.view(), order);
            for (const int k : {0, 1, w / 4, w / 2}) {
                QVERIFY2(equal_pixels<Rgba8>(remove_seams<Rgba8>(img.view(), order, k).view(),
                                             slider.frame(k).view()),
                         qPrintable(QString("%1x%2 minus %3").arg(w).arg(h).arg(k)));
            }
            QVERIFY_THROWS_EXCEPTION(Error, slider.frame(w / 2 + 1));
        }
    }

    // ---- device-resident maps and previews ----

    // The carve from device images equals the carve from host images (same orders exactly), and
    // moves nothing between host and device: odd sizes (pitched rows with padding), both
    // directions, every energy, with and without masks, up to the most seams allowed.
    void device_input_carve_equals_host_input() {
        const ImageRgba8 photo = scaled_photo(211, 157);
        Mask protect = rect_mask(211, 157, 60, 40, 120, 110);
        const Mask remove = rect_mask(211, 157, 150, 20, 160, 140);
        protect.at(3, 3) = 1;  // any non-zero byte is set, not only 255
        const OwnedStream inputs;
        const DeviceImage<Rgba8> image(photo.view(), inputs.get());
        const DeviceImage<std::uint8_t> device_protect(protect.view(), inputs.get());
        const DeviceImage<std::uint8_t> device_remove(remove.view(), inputs.get());
        struct Case {
            SeamEnergy energy;
            SeamDirection direction;
            bool protect, remove;
            int seams;
        };
        const Case cases[] = {
            {SeamEnergy::Forward, SeamDirection::Vertical, false, false, 120},
            {SeamEnergy::Forward, SeamDirection::Horizontal, false, false, 100},
            {SeamEnergy::Forward, SeamDirection::Vertical, true, true, 150},
            {SeamEnergy::Forward, SeamDirection::Horizontal, true, true, 90},
            {SeamEnergy::Sobel, SeamDirection::Horizontal, true, false, 156},
            {SeamEnergy::L1, SeamDirection::Vertical, false, true, 210},
            {SeamEnergy::Prewitt, SeamDirection::Vertical, false, false, 0},
        };
        for (const Case& c : cases) {
            const QString what =
                QString("%1 %2 protect %3 remove %4 seams %5")
                    .arg(QString::fromStdString(to_string(c.energy)))
                    .arg(c.direction == SeamDirection::Vertical ? "vertical" : "horizontal")
                    .arg(c.protect)
                    .arg(c.remove)
                    .arg(c.seams);
            const CarveInput host_in{photo.view(), c.protect ? &protect : nullptr,
                                     c.remove ? &remove : nullptr, c.energy};
            const SeamOrder host = seam_order_cuda(host_in, c.direction, c.seams);
            const DeviceCarveInput device_in{&image, c.protect ? &device_protect : nullptr,
                                             c.remove ? &device_remove : nullptr, c.energy};
            const TransferStats before = transfer_stats();
            const DeviceSeamOrder device = seam_order_cuda(device_in, c.direction, c.seams);
            const QString traffic = moved(transfer_stats() - before);
            QVERIFY2(traffic.isEmpty(), qPrintable(what + ": " + traffic));
            const QString diff = compare_device(host, device);
            QVERIFY2(diff.isEmpty(), qPrintable(what + ": " + diff));
        }
    }

    // Device inputs on their own stream, images whose rows are not a multiple of anything.
    void device_input_on_another_stream() {
        const OwnedStream stream;  // non-blocking: ordered after the inputs only by events
        const ImageRgba8 img = test_image(97, 61, 8, rng_);
        DeviceImage<Rgba8> image(97, 61, stream.get());
        image.upload_async(img.view());  // not waited for: the carve must order itself after it
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            const CarveInput in{img.view(), nullptr, nullptr, SeamEnergy::Forward};
            const int seams = dir == SeamDirection::Vertical ? 96 : 60;
            const DeviceSeamOrder device = seam_order_cuda(
                DeviceCarveInput{&image, nullptr, nullptr, SeamEnergy::Forward}, dir, seams);
            QCOMPARE(device.order.stream(), stream.get());
            const QString diff = compare_device(seam_order_fast(in, dir, seams), device);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    void device_input_progress_cancel_and_errors() {
        const ImageRgba8 photo = scaled_photo(400, 300);
        const OwnedStream inputs;
        const DeviceImage<Rgba8> image(photo.view(), inputs.get());
        const CarveInput host_in{photo.view(), nullptr, nullptr, SeamEnergy::Forward};
        const DeviceCarveInput in{&image, nullptr, nullptr, SeamEnergy::Forward};
        std::vector<int> host_reports, reports;
        const SeamOrder host =
            seam_order_cuda(host_in, SeamDirection::Vertical, 200, [&](const int done, int) {
                host_reports.push_back(done);
                return true;
            });
        const DeviceSeamOrder device =
            seam_order_cuda(in, SeamDirection::Vertical, 200, [&](const int done, const int total) {
                reports.push_back(done);
                return total == 200;
            });
        QCOMPARE(reports, host_reports);
        QVERIFY(reports.size() >= 3);
        QCOMPARE(reports.back(), 200);
        QVERIFY(compare_device(host, device).isEmpty());
        int calls = 0;
        try {
            (void)seam_order_cuda(in, SeamDirection::Horizontal, 200,
                                  [&](int, int) { return ++calls < 2; });
            QFAIL("cancelling did not stop the carve");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QCOMPARE(calls, 2);

        // The same errors, word for word, as the host-input carve.
        const auto message = [](auto&& carve) -> QString {
            try {
                carve();
            } catch (const Error& e) {
                return e.code() == ErrorCode::InvalidArgument ? QString(e.what()) : "wrong code";
            }
            return "no error";
        };
        const Mask wrong(399, 300, 0);
        const DeviceImage<std::uint8_t> device_wrong(wrong.view(), inputs.get());
        for (const bool as_protect : {true, false}) {
            const CarveInput bad_host{photo.view(), as_protect ? &wrong : nullptr,
                                      as_protect ? nullptr : &wrong, SeamEnergy::Forward};
            const DeviceCarveInput bad{&image, as_protect ? &device_wrong : nullptr,
                                       as_protect ? nullptr : &device_wrong, SeamEnergy::Forward};
            const QString expected =
                message([&] { (void)seam_order_cuda(bad_host, SeamDirection::Vertical, 3); });
            QVERIFY2(expected.contains("mask is 399x300"), qPrintable(expected));
            QCOMPARE(message([&] { (void)seam_order_cuda(bad, SeamDirection::Vertical, 3); }),
                     expected);
        }
        for (const auto& [dir, seams] : {std::pair{SeamDirection::Vertical, 400},
                                         {SeamDirection::Horizontal, 300},
                                         {SeamDirection::Vertical, -1}}) {
            const QString expected = message([&] { (void)seam_order_cuda(host_in, dir, seams); });
            QVERIFY2(expected.contains("cannot find"), qPrintable(expected));
            QCOMPARE(message([&] { (void)seam_order_cuda(in, dir, seams); }), expected);
        }
        QVERIFY(message([] {
                    (void)seam_order_cuda(DeviceCarveInput{}, SeamDirection::Vertical, 0);
                }).contains("no image"));
    }

    // remove / insert / insert_nearest / paint on device images equal the host functions bit for
    // bit, both directions, Rgba8 and uint8, counts 0, 1, half and all, moving nothing between
    // host and device; the outputs live on their own stream and are reused (grow-only).
    void device_previews_equal_host() {
        const OwnedStream stream;  // non-blocking: ordered after the inputs only by events
        const OwnedStream inputs;  // the inputs' and the maps' own
        DeviceImage<Rgba8> removed(1, 1, stream.get()), inserted(1, 1, stream.get()),
            nearest(1, 1, stream.get()), painted(1, 1, stream.get());
        DeviceImage<std::uint8_t> removed8(1, 1, stream.get()), nearest8(1, 1, stream.get());
        const Rgba8 colour{255, 0, 200, 17};
        int compared = 0;
        // 613 × 29: rows longer than one step of the row kernel; 37 × 300: several column tiles
        // and a partial one; 1 × 70 and 70 × 1 hold no seam across their short side.
        for (const auto& [w, h] :
             {std::pair{211, 157}, {613, 29}, {37, 300}, {2, 2}, {1, 70}, {70, 1}}) {
            const ImageRgba8 img = random_pixels<Rgba8>(w, h, rng_);
            const Image<std::uint8_t> mask = random_pixels<std::uint8_t>(w, h, rng_);
            const DeviceImage<Rgba8> device_img(img.view(), inputs.get());
            const DeviceImage<std::uint8_t> device_mask(mask.view(), inputs.get());
            for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
                const int most = (dir == SeamDirection::Vertical ? w : h) - 1;
                const SeamOrder order =
                    seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward}, dir, most);
                const DeviceSeamOrder device_order = upload_order(order, inputs.get());
                QVERIFY(compare_device(order, device_order).isEmpty());
                for (const int k : {0, 1, most / 2, most}) {
                    if (k > most) continue;
                    const QString what =
                        QString("%1x%2 %3 count %4")
                            .arg(w)
                            .arg(h)
                            .arg(dir == SeamDirection::Vertical ? "vertical" : "horizontal")
                            .arg(k);
                    const TransferStats before = transfer_stats();
                    remove_seams(device_img, device_order, k, removed);
                    insert_seams(device_img, device_order, k, inserted);
                    insert_seams_nearest(device_img, device_order, k, nearest);
                    paint_seams(device_img, device_order, k, colour, painted);
                    remove_seams(device_mask, device_order, k, removed8);
                    insert_seams_nearest(device_mask, device_order, k, nearest8);
                    const QString traffic = moved(transfer_stats() - before);
                    QVERIFY2(traffic.isEmpty(), qPrintable(what + ": " + traffic));
                    const auto same = [&](const auto& host, const auto& device, const char* op) {
                        using T = std::remove_cvref_t<decltype(host.at(0, 0))>;
                        const auto back = device.download();
                        QVERIFY2(equal_pixels<T>(host.view(), back.view()),
                                 qPrintable(what + ": " + op));
                        ++compared;
                    };
                    same(remove_seams<Rgba8>(img.view(), order, k), removed, "remove");
                    same(insert_seams(img.view(), order, k), inserted, "insert");
                    same(insert_seams_nearest<Rgba8>(img.view(), order, k), nearest,
                         "insert nearest");
                    same(paint_seams(img.view(), order, k, colour), painted, "paint");
                    same(remove_seams<std::uint8_t>(mask.view(), order, k), removed8,
                         "remove uint8");
                    same(insert_seams_nearest<std::uint8_t>(mask.view(), order, k), nearest8,
                         "insert nearest uint8");
                }
                QVERIFY_THROWS_EXCEPTION(Error,
                                         remove_seams(device_img, device_order, most + 1, removed));
                QVERIFY_THROWS_EXCEPTION(Error,
                                         insert_seams(device_img, device_order, -1, inserted));
            }
        }
        QVERIFY(compared >= 6 * 2 * 3 * 6);
        // The order of another image, and a pass into its own source, are refused.
        const ImageRgba8 img = random_pixels<Rgba8>(20, 10, rng_);
        DeviceImage<Rgba8> device_img(img.view(), inputs.get());
        const DeviceSeamOrder order =
            upload_order(seam_order_fast({img.view(), nullptr, nullptr, SeamEnergy::Forward},
                                         SeamDirection::Vertical, 5),
                         inputs.get());
        const DeviceImage<Rgba8> other(21, 10, inputs.get());
        try {
            remove_seams(other, order, 2, removed);
            QFAIL("an order of another size was accepted");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        }
        QVERIFY_THROWS_EXCEPTION(Error, paint_seams(device_img, order, 2, colour, device_img));
    }

    // A 4K slider frame: the device passes on a synthetic valid order (random places per row or
    // column) equal the host's, and their device times are printed (median of 21).
    void preview_times_4k() {
        const int w = 3840, h = 2160;
        const ImageRgba8 img = random_pixels<Rgba8>(w, h, rng_);
        const OwnedStream inputs;  // the input's and the maps' own
        const DeviceImage<Rgba8> device_img(img.view(), inputs.get());
        const OwnedStream stream;  // non-blocking: ordered after the inputs only by events
        DeviceImage<Rgba8> out(1, 1, stream.get());
        const Rgba8 colour{255, 0, 0, 255};
        for (const SeamDirection dir : {SeamDirection::Vertical, SeamDirection::Horizontal}) {
            const bool vertical = dir == SeamDirection::Vertical;
            const int seams = (vertical ? w : h) / 2;
            const SeamOrder order = random_order(w, h, dir, seams, rng_);
            const DeviceSeamOrder device_order = upload_order(order, inputs.get());
            const int half = seams / 2;
            remove_seams(device_img, device_order, half, out);
            QVERIFY(equal_pixels<Rgba8>(remove_seams<Rgba8>(img.view(), order, half).view(),
                                        out.download().view()));
            insert_seams(device_img, device_order, half, out);
            QVERIFY(equal_pixels<Rgba8>(insert_seams(img.view(), order, half).view(),
                                        out.download().view()));
            const auto time = [&](auto&& pass) { return median_ms(stream.get(), 21, pass); };
            const double remove_ms =
                time([&] { remove_seams(device_img, device_order, half, out); });
            const double remove_all_ms =
                time([&] { remove_seams(device_img, device_order, seams, out); });
            const double insert_ms =
                time([&] { insert_seams(device_img, device_order, half, out); });
            const double paint_ms =
                time([&] { paint_seams(device_img, device_order, half, colour, out); });
            qInfo(
                "4K %s previews (%d of %d seams): remove %.3f ms (all %d: %.3f ms), insert "
                "%.3f ms, paint %.3f ms",
                vertical ? "vertical" : "horizontal", half, seams, remove_ms, seams, remove_all_ms,
                insert_ms, paint_ms);
            QVERIFY(remove_ms > 0);
            if (vertical) {  // the old slider's dense compaction, for comparison
                qInfo("4K CudaSeamSlider frame (dense buffers, %d seams): %.3f ms", half,
                      CudaSeamSlider(img.view(), order).time_frame_ms(half, 21));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSeamCarveCuda)
#include "test_seam_carve_cuda.moc"
