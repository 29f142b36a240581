// The 3-D convolution: the fast CPU path against the gold reference (float against double, within
// a stated tolerance) over kernels of every kind, odd sizes and kernels wider than the frames;
// OpenCV's filter2D per frame summed over time gives the same; the frame count is N − k + 1; bad
// parameters are refused with a sentence.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/conv3d.hpp>

#include "conv3d_test_util.hpp"

#include <QtTest>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace lacuna;
using namespace lacuna::ops;
using lacuna::test::random_kernel;
using lacuna::test::random_volume;

namespace {

/// Largest |a − b| relative to the scale of the sums: Σ|w| · 255.
double worst_error(const Volume& a, const Volume& b, const Kernel3D& kernel) {
    double scale = 0;
    for (const float w : kernel.weights) scale += std::abs(w);
    scale *= 255;
    double worst = 0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        worst = std::max(worst, std::abs(double(a.data[i]) - double(b.data[i])) / scale);
    return worst;
}

void expect_refusal(const std::function<void()>& call, const char* words) {
    try {
        call();
        QFAIL(qPrintable(QString("no error; expected '%1'").arg(words)));
    } catch (const Error& e) {
        QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        QVERIFY2(QString(e.what()).contains(words), e.what());
    }
}

}  // namespace

class TestConv3d : public QObject {
    Q_OBJECT

  private slots:
    void fast_equals_reference_data() {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("kind");  // 0 box, 1 gaussian, 2 random signed
        QTest::newRow("33x21 k3 box, seed's k+3 frames") << 33 << 21 << 3 << 0;
        QTest::newRow("17x9 k5 gaussian") << 17 << 9 << 5 << 1;
        QTest::newRow("40x31 k7 random") << 40 << 31 << 7 << 2;
        QTest::newRow("1x1 k3 random") << 1 << 1 << 3 << 2;
        QTest::newRow("2x5 k7 (wider than the frame) gaussian") << 2 << 5 << 7 << 1;
        QTest::newRow("64x3 k1 random") << 64 << 3 << 1 << 2;
        QTest::newRow("29x23 k15 box") << 29 << 23 << 15 << 0;
    }
    void fast_equals_reference() {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, k);
        QFETCH(int, kind);
        const Volume in = random_volume(w, h, k + 3, 7);
        const Kernel3D kernel = kind == 0   ? box_kernel(k)
                                : kind == 1 ? gaussian_kernel(k, k / 4.0 + 0.5, k / 3.0 + 0.5)
                                            : random_kernel(k, 9);
        const Volume gold = conv3d_reference(in, kernel);
        const Volume fast = conv3d_fast(in, kernel);
        QCOMPARE(gold.frames, 4);
        QCOMPARE(fast.frames, 4);
        QCOMPARE(fast.width, w);
        const double err = worst_error(gold, fast, kernel);
        // Float sums of up to 31³ products against double ones.
        QVERIFY2(err < 2e-6, qPrintable(QString::number(err)));
    }

    void a_box_keeps_a_constant_and_a_delta_gives_the_kernel_back() {
        Volume flat(9, 7, 8);
        std::fill(flat.data.begin(), flat.data.end(), 100.0f);
        const Volume out = conv3d_fast(flat, box_kernel(5));
        QCOMPARE(out.frames, 4);
        for (const float v : out.data) QVERIFY(std::abs(v - 100.0f) < 1e-3f);
        // A single 1 in the middle of a 9x9x5 volume: the output (1 frame) is the kernel's
        // middle frame reversed in x and y (a correlation), exactly.
        const Kernel3D kernel = random_kernel(5, 3);
        Volume delta(9, 9, 5);
        delta.at(4, 4, 2) = 1.0f;
        const Volume response = conv3d_fast(delta, kernel);
        QCOMPARE(response.frames, 1);
        for (int dy = 0; dy < 5; ++dy)
            for (int dx = 0; dx < 5; ++dx)
                QCOMPARE(response.at(4 + 2 - dx, 4 + 2 - dy, 0),
                         kernel.weights[(2 * 5 + dy) * 5 + dx]);
    }

    void equals_opencv_filter2d_summed_over_time() {
        // Lin et al.'s CPU comparison: each output frame is Σ_dt filter2D(frame t+dt, slice dt).
        const int w = 47, h = 35, k = 5;
        const Volume in = random_volume(w, h, k + 3, 11);
        const Kernel3D kernel = random_kernel(k, 12);
        const Volume ours = conv3d_fast(in, kernel);
        Volume peer(w, h, 4);
        for (int t = 0; t < 4; ++t) {
            cv::Mat sum = cv::Mat::zeros(h, w, CV_32F);
            for (int dt = 0; dt < k; ++dt) {
                const cv::Mat frame(
                    h, w, CV_32F, const_cast<float*>(in.data.data() + std::size_t(t + dt) * w * h));
                const cv::Mat slice(
                    k, k, CV_32F,
                    const_cast<float*>(kernel.weights.data() + std::size_t(dt) * k * k));
                cv::Mat filtered;
                cv::filter2D(frame, filtered, CV_32F, slice, cv::Point(-1, -1), 0,
                             cv::BORDER_REFLECT_101);
                sum += filtered;
            }
            std::copy(sum.begin<float>(), sum.end<float>(),
                      peer.data.begin() + std::ptrdiff_t(t) * w * h);
        }
        const double err = worst_error(ours, peer, kernel);
        QVERIFY2(err < 2e-6, qPrintable(QString::number(err)));
    }

    void temporal_filter_keeps_the_frame_count_and_mirrors_the_ends() {
        // A clip of 7 random 13x9 frames (and one of 2, shorter than the kernel), smoothed with a
        // 5-deep Gaussian: every output frame equals the reference convolution of the clip
        // mirrored at its ends (… f2 f1 | f0 … f6 | f5 f4 …), per channel, within a level.
        const Kernel3D kernel = gaussian_kernel(5, 1.0, 1.2);
        for (const int n : {7, 2}) {
            std::mt19937 rng(n);
            std::vector<ImageRgba8> clip;
            for (int t = 0; t < n; ++t) {
                ImageRgba8 f(13, 9);
                for (int y = 0; y < 9; ++y)
                    for (int x = 0; x < 13; ++x)
                        f.at(x, y) = Rgba8{std::uint8_t(rng()), std::uint8_t(rng()),
                                           std::uint8_t(rng()), std::uint8_t(rng())};
                clip.push_back(f);
            }
            TemporalFilter filter(kernel, false);
            std::vector<ImageRgba8> out;
            for (const ImageRgba8& f : clip)
                for (ImageRgba8& o : filter.push(f)) out.push_back(std::move(o));
            if (n == 7) QCOMPARE(int(out.size()), 7 - 2);  // the last two wait for the end
            for (ImageRgba8& o : filter.finish()) out.push_back(std::move(o));
            QCOMPARE(int(out.size()), n);
            for (int c = 0; c < 3; ++c) {
                Volume padded(13, 9, n + 4);
                for (int t = 0; t < n + 4; ++t) {
                    int s = t - 2;
                    while (s < 0 || s >= n) s = n == 1 ? 0 : (s < 0 ? -s : 2 * (n - 1) - s);
                    for (int y = 0; y < 9; ++y)
                        for (int x = 0; x < 13; ++x) {
                            const Rgba8 p = clip[s].at(x, y);
                            padded.at(x, y, t) = c == 0 ? p.r : c == 1 ? p.g : p.b;
                        }
                }
                const Volume gold = conv3d_reference(padded, kernel);
                for (int t = 0; t < n; ++t)
                    for (int y = 0; y < 9; ++y)
                        for (int x = 0; x < 13; ++x) {
                            const Rgba8 p = out[t].at(x, y);
                            const int got = c == 0 ? p.r : c == 1 ? p.g : p.b;
                            const double want = std::clamp(double(gold.at(x, y, t)), 0.0, 255.0);
                            QVERIFY2(std::abs(got - want) <= 0.5 + 1e-3,
                                     qPrintable(QString("frame %1 (%2,%3) channel %4: %5 vs %6")
                                                    .arg(t)
                                                    .arg(x)
                                                    .arg(y)
                                                    .arg(c)
                                                    .arg(got)
                                                    .arg(want)));
                            QCOMPARE(p.a, clip[t].at(x, y).a);
                        }
            }
        }
        TemporalFilter filter(kernel, false);
        (void)filter.push(ImageRgba8(4, 4));
        QVERIFY_THROWS_EXCEPTION(Error, filter.push(ImageRgba8(5, 4)));
    }

    void bad_parameters_are_refused() {
        const Volume in = random_volume(8, 8, 6, 1);
        expect_refusal([] { (void)box_kernel(4); }, "must be odd and from 1 to 31, not 4");
        expect_refusal([] { (void)box_kernel(33); }, "not 33");
        expect_refusal([] { (void)gaussian_kernel(5, 0.0, 1.0); }, "sigma must be greater than 0");
        expect_refusal([] { (void)kernel_from_values(3, std::vector<float>(26, 1.0f)); },
                       "needs 27 weights, not 26");
        expect_refusal(
            [] {
                std::vector<float> w(27, 1.0f);
                w[5] = std::nanf("");
                (void)kernel_from_values(3, w);
            },
            "finite");
        expect_refusal([&] { (void)conv3d_fast(in, box_kernel(7)); },
                       "needs at least 7 frames, not 6");
        expect_refusal([&] { (void)conv3d_reference(in, box_kernel(7)); }, "at least 7 frames");
        expect_refusal([] { (void)conv3d_fast(Volume(4, 4, 0), box_kernel(1)); }, "not 0");
        QVERIFY_THROWS_EXCEPTION(Error, conv3d_fast(Volume(0, 4, 3), box_kernel(3)));
    }
};

QTEST_GUILESS_MAIN(TestConv3d)
#include "test_conv3d.moc"
