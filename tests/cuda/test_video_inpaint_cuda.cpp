// The video fill with its key fills on the GPU (ops::InpaintImplementation::Cuda, what `lacuna
// inpaint CLIP MASK OUT` uses when the backend is CUDA) against the same fill on the CPU: the
// CUDA image fill makes the fast CPU fill's decisions exactly, so every frame must be identical,
// byte for byte, with the same counts. Clips whose hidden background no frame shows, so key fills
// run and are carried: a still camera under a still mask, a moving card over a still camera
// after a scene cut, and a slow pan under a still mask.
#include <lacuna/core/backend.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/video/inpaint_video.hpp>

#include <QtTest>

#include <string>
#include <vector>

using namespace lacuna;

namespace {

constexpr int kW = 192, kH = 120;
const std::string kPhoto = LACUNA_SOURCE_DIR "/tests/data/photos/building.jpg";

struct Clip {
    std::vector<ImageRgba8> input;
    std::vector<Mask> masks;
};

/// The photo's window moving `pan` px a frame; a card of red and orange checks, still (one mask)
/// or moving 3 px a frame (a mask a frame); from frame `cut` on, the picture upside down.
Clip make_clip(const int frames, const int pan, const bool moving, const int cut = -1) {
    const ImageRgba8 photo = io::read_image(kPhoto).image;
    Clip c;
    Mask still(kW, kH, std::uint8_t{0});
    for (int f = 0; f < frames; ++f) {
        ImageRgba8 in(kW, kH);
        const bool flipped = cut >= 0 && f >= cut;
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x)
                in.at(x, y) = photo.at(30 + pan * f + x, 40 + (flipped ? kH - 1 - y : y));
        Mask card(kW, kH, std::uint8_t{0});
        const int x0 = moving ? 30 + 3 * f : 80, y0 = 40, size = 32;
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

/// The clip filled on the CPU and on the device, with what no frame shows from key fills
/// (`method` Image: at least `min_fills` of them) or from the 3-D fill (PatchMatch3d: at least
/// `min_fills` 3-D fills): identical frames and counts.
void expect_cuda_equals_cpu(const Clip& clip, const int min_fills,
                            const video::TemporalFill method = video::TemporalFill::Image) {
    video::VideoInpaintParams cpu, cuda;
    cpu.temporal.method = cuda.temporal.method = method;
    cpu.implementation = ops::InpaintImplementation::Fast;
    cuda.implementation = ops::InpaintImplementation::Cuda;
    cpu.volume_implementation = ops::PatchMatch3dImplementation::Fast;
    cuda.volume_implementation = ops::PatchMatch3dImplementation::Cuda;
    video::VideoInpaintStats a, b;
    const auto on_cpu = video::inpaint_frames(clip.input, clip.masks, cpu, &a);
    const auto on_gpu = video::inpaint_frames(clip.input, clip.masks, cuda, &b);
    const int fills = method == video::TemporalFill::Image ? a.key_fills : a.volume_fills;
    QVERIFY2(fills >= min_fills, qPrintable(QString::number(fills)));
    QCOMPARE(b.key_fills, a.key_fills);
    QCOMPARE(b.volume_fills, a.volume_fills);
    QCOMPARE(b.synthesized, a.synthesized);
    QCOMPARE(b.carried, a.carried);
    QCOMPARE(b.from_other_frames, a.from_other_frames);
    for (std::size_t f = 0; f < on_cpu.size(); ++f)
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const Rgba8 p = on_cpu[f].at(x, y), q = on_gpu[f].at(x, y);
                if (p.r != q.r || p.g != q.g || p.b != q.b || p.a != q.a)
                    QFAIL(qPrintable(QString("frame %1 differs at (%2, %3)").arg(f).arg(x).arg(y)));
            }
    qInfo("%d key fills, %lld of %lld hole pixels filled, %lld carried: identical", a.key_fills,
          static_cast<long long>(a.synthesized), static_cast<long long>(a.hole_pixels),
          static_cast<long long>(a.carried));
}

}  // namespace

class TestVideoInpaintCuda : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        const BackendInfo info = select_backend(BackendRequest::Auto);
        if (info.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(info.reason)));
    }

    void still_camera_still_mask() { expect_cuda_equals_cpu(make_clip(8, 0, false), 1); }
    void moving_card_across_a_cut() { expect_cuda_equals_cpu(make_clip(12, 0, true, 6), 2); }
    void slow_pan_still_mask() { expect_cuda_equals_cpu(make_clip(10, 1, false), 1); }
    void three_d_fill_still_camera() {
        expect_cuda_equals_cpu(make_clip(8, 0, false), 1, video::TemporalFill::PatchMatch3d);
    }
    void three_d_fill_across_a_cut() {
        expect_cuda_equals_cpu(make_clip(12, 0, true, 6), 2, video::TemporalFill::PatchMatch3d);
    }
};

QTEST_APPLESS_MAIN(TestVideoInpaintCuda)
#include "test_video_inpaint_cuda.moc"
