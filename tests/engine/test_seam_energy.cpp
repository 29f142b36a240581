// The four seam energies on their own, against truth that does not share their code: values
// worked out by hand on a 3 × 3 image, and OpenCV's filters on random images (Sobel with
// BORDER_REPLICATE where its kernels are ours — ksize 1 is L1's central difference, ksize 3 is
// Sobel — filter2D for Prewitt and for forward energy's neighbour differences). The carvers'
// tests compare them with each other through pixel_energy, so a wrong energy would pass there.
#include <lacuna/core/image.hpp>
#include <lacuna/kernels/seam_energy.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <QtTest>

#include <array>
#include <cstdint>
#include <random>

using namespace lacuna;

namespace {

// R = 10x, G = 20y, B = 90 at the centre only:
//   R: 0 10 20    G:  0  0  0    B: 0  0 0     intensity R+G+B:  0  10  20
//      0 10 20       20 20 20       0 90 0                      20 120  40
//      0 10 20       40 40 40       0  0 0                      40  50  60
ImageRgba8 hand_image() {
    ImageRgba8 img(3, 3);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
            img.at(x, y) = Rgba8{std::uint8_t(10 * x), std::uint8_t(20 * y), 0, 255};
    img.at(1, 1).b = 90;
    return img;
}

template <class Pixel>
int energy_at(const Image<Pixel>& img, const SeamEnergy kind, const int x, const int y) {
    const auto row = [&](const int yy) { return img.row(yy); };
    const ClampedRgb<decltype(row)> pixels{row, img.width(), img.height()};
    return pixel_energy(pixels, kind, x, y);
}

int forward_at(const ImageRgba8& img, const int x, const int y, const int d) {
    const auto row = [&](const int yy) { return img.row(yy); };
    const ClampedRgb<decltype(row)> pixels{row, img.width(), img.height()};
    return forward_cost(pixels, x, y, d);
}

ImageRgba8 random_image(const int w, const int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> v(0, 255);
    ImageRgba8 img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img.at(x, y) =
                Rgba8{std::uint8_t(v(rng)), std::uint8_t(v(rng)), std::uint8_t(v(rng)), 255};
    return img;
}

// Channel c (0 = R, 1 = G, 2 = B) as a float plane; float holds every gradient here exactly.
cv::Mat plane(const ImageRgba8& img, const int c) {
    cv::Mat m(img.height(), img.width(), CV_32F);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const Rgba8 p = img.at(x, y);
            m.at<float>(y, x) = float(c == 0 ? p.r : (c == 1 ? p.g : p.b));
        }
    return m;
}

// Σ over R, G, B of |gx| + |gy|, with the gradients from OpenCV.
template <class Gradient>
cv::Mat opencv_energy(const ImageRgba8& img, Gradient gradient) {
    cv::Mat total = cv::Mat::zeros(img.height(), img.width(), CV_32F);
    for (int c = 0; c < 3; ++c) {
        cv::Mat gx, gy;
        gradient(plane(img, c), gx, gy);
        total += cv::abs(gx) + cv::abs(gy);
    }
    return total;
}

cv::Mat opencv_sobel(const ImageRgba8& img, const int ksize) {
    return opencv_energy(img, [&](const cv::Mat& p, cv::Mat& gx, cv::Mat& gy) {
        cv::Sobel(p, gx, CV_32F, 1, 0, ksize, 1.0, 0.0, cv::BORDER_REPLICATE);
        cv::Sobel(p, gy, CV_32F, 0, 1, ksize, 1.0, 0.0, cv::BORDER_REPLICATE);
    });
}

cv::Mat opencv_prewitt(const ImageRgba8& img) {
    // filter2D correlates (no kernel flip), so these are the gradients as written.
    const cv::Mat kx = (cv::Mat_<float>(3, 3) << -1, 0, 1, -1, 0, 1, -1, 0, 1);
    const cv::Mat ky = (cv::Mat_<float>(3, 3) << -1, -1, -1, 0, 0, 0, 1, 1, 1);
    return opencv_energy(img, [&](const cv::Mat& p, cv::Mat& gx, cv::Mat& gy) {
        cv::filter2D(p, gx, CV_32F, kx, cv::Point(-1, -1), 0.0, cv::BORDER_REPLICATE);
        cv::filter2D(p, gy, CV_32F, ky, cv::Point(-1, -1), 0.0, cv::BORDER_REPLICATE);
    });
}

// |a correlated with k| for a 3 × 3 kernel k, edges replicated.
cv::Mat abs_filter(const cv::Mat& src, const cv::Mat& k) {
    cv::Mat out;
    cv::filter2D(src, out, CV_32F, k, cv::Point(-1, -1), 0.0, cv::BORDER_REPLICATE);
    return cv::abs(out);
}

}  // namespace

class TestSeamEnergy : public QObject {
    Q_OBJECT

  private slots:
    void backward_energies_by_hand_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("x");
        QTest::addColumn<int>("y");
        QTest::addColumn<int>("expected");
        const int l1 = int(SeamEnergy::L1), prewitt = int(SeamEnergy::Prewitt),
                  sobel = int(SeamEnergy::Sobel);
        // L1, centre: R gx 20 - 0; G gy 40 - 0; B's centre is not a neighbour of itself.
        QTest::newRow("l1 centre") << l1 << 1 << 1 << 20 + 40;
        // L1, top-left: the clamped left and upper neighbours are the pixel itself.
        QTest::newRow("l1 corner") << l1 << 0 << 0 << 10 + 20;
        // L1, top-middle: R 20, G 20 - 0, B gy = 90 - 0.
        QTest::newRow("l1 top edge") << l1 << 1 << 0 << 20 + 20 + 90;
        // Prewitt, centre: R gx 3 × 20, G gy 3 × 40; B at the centre has weight 0.
        QTest::newRow("prewitt centre") << prewitt << 1 << 1 << 60 + 120;
        // Prewitt, top-middle: R gx 3 × 20, G gy 3 × 20 (the top row is row 0 repeated),
        // B gy 90 (bottom-centre).
        QTest::newRow("prewitt top edge") << prewitt << 1 << 0 << 60 + 60 + 90;
        // Prewitt, top-left: R gx 3 × 10, G gy 3 × 20, B's 90 is the bottom-right neighbour:
        // gx 90 and gy 90.
        QTest::newRow("prewitt corner") << prewitt << 0 << 0 << 30 + 60 + 180;
        // Sobel: the middle row and column weigh 2.
        QTest::newRow("sobel centre") << sobel << 1 << 1 << 80 + 160;
        QTest::newRow("sobel top edge") << sobel << 1 << 0 << 80 + 80 + 180;
        QTest::newRow("sobel corner") << sobel << 0 << 0 << 40 + 80 + 90 + 90;
        // Sobel, bottom-right: R gx (20+40+20) - (10+20+10), G gy (40+80+40) - (20+40+20), and
        // B's 90 is now the top-left neighbour: gx -90, gy -90.
        QTest::newRow("sobel bottom-right") << sobel << 2 << 2 << 40 + 80 + 90 + 90;
        // Transversal: |I(x + 1) - I(x - 1)| of the intensity R + G + B (I = 10 x + 20 y, plus
        // B's 90 at the centre), nothing vertical. Centre: 40 - 20 (its own 90 is not a
        // neighbour); left of the centre: |I(1,1) - I(0,1)| = 120 - 20 (the left neighbour
        // clamps to the pixel itself); right: |I(2,1) - I(1,1)| = |40 - 120|.
        const int transversal = int(SeamEnergy::Transversal);
        QTest::newRow("transversal centre") << transversal << 1 << 1 << 20;
        QTest::newRow("transversal left edge") << transversal << 0 << 1 << 100;
        QTest::newRow("transversal right edge") << transversal << 2 << 1 << 80;
        QTest::newRow("transversal top edge") << transversal << 1 << 0 << 20;
    }
    void backward_energies_by_hand() {
        QFETCH(int, kind);
        QFETCH(int, x);
        QFETCH(int, y);
        QFETCH(int, expected);
        QCOMPARE(energy_at(hand_image(), SeamEnergy(kind), x, y), expected);
    }

    void forward_energy_by_hand() {
        const ImageRgba8 img = hand_image();
        // Forward energy has no per-pixel term: it is all in the transition costs.
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 3; ++x) QCOMPARE(energy_at(img, SeamEnergy::Forward, x, y), 0);
        // (1, 1): the new horizontal edge |I(2,1) - I(0,1)| = |40 - 20|; from the upper left
        // also |I(1,0) - I(0,1)| = |10 - 20|, from the upper right |I(1,0) - I(2,1)| = |10 - 40|.
        QCOMPARE(forward_at(img, 1, 1, 0), 20);
        QCOMPARE(forward_at(img, 1, 1, -1), 20 + 10);
        QCOMPARE(forward_at(img, 1, 1, 1), 20 + 30);
        // (0, 2): the left neighbour clamps to the pixel itself: |50 - 40|, then |20 - 40| or
        // |20 - 50|.
        QCOMPARE(forward_at(img, 0, 2, -1), 10 + 20);
        QCOMPARE(forward_at(img, 0, 2, 1), 10 + 30);
        // Row 0 has no row above: every direction costs the horizontal edge only.
        QCOMPARE(forward_at(img, 1, 0, -1), 20);
        QCOMPARE(forward_at(img, 1, 0, 1), 20);
    }

    void backward_energies_match_opencv() {
        std::mt19937 rng(7);
        for (const auto [w, h] :
             std::array{std::pair{1, 1}, std::pair{1, 9}, std::pair{9, 1}, std::pair{2, 2},
                        std::pair{17, 11}, std::pair{64, 48}}) {
            const ImageRgba8 img = random_image(w, h, rng);
            const cv::Mat l1 = opencv_sobel(img, 1), sobel = opencv_sobel(img, 3),
                          prewitt = opencv_prewitt(img);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    QCOMPARE(energy_at(img, SeamEnergy::L1, x, y), int(l1.at<float>(y, x)));
                    QCOMPARE(energy_at(img, SeamEnergy::Sobel, x, y), int(sobel.at<float>(y, x)));
                    QCOMPARE(energy_at(img, SeamEnergy::Prewitt, x, y),
                             int(prewitt.at<float>(y, x)));
                }
        }
    }

    // Transversal energy, against OpenCV: the absolute horizontal central difference of the
    // intensity with the border replicated (liblqr's default energy, in integer units), which
    // is also forward energy's straight-step cost. Channels are summed before the difference,
    // so a red rise beside a green fall of the same size costs nothing (L1 would count both).
    void transversal_energy_matches_opencv() {
        std::mt19937 rng(13);
        for (const auto [w, h] :
             std::array{std::pair{1, 1}, std::pair{1, 9}, std::pair{9, 1}, std::pair{2, 2},
                        std::pair{17, 11}, std::pair{64, 48}}) {
            const ImageRgba8 img = random_image(w, h, rng);
            const cv::Mat intensity = plane(img, 0) + plane(img, 1) + plane(img, 2);
            const cv::Mat gx =
                abs_filter(intensity, (cv::Mat_<float>(3, 3) << 0, 0, 0, -1, 0, 1, 0, 0, 0));
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    QCOMPARE(energy_at(img, SeamEnergy::Transversal, x, y),
                             int(gx.at<float>(y, x)));
                    QCOMPARE(energy_at(img, SeamEnergy::Transversal, x, y),
                             forward_at(img, x, y, 0));
                }
        }
        ImageRgba8 swap(3, 1);
        swap.at(0, 0) = Rgba8{0, 200, 0, 255};
        swap.at(1, 0) = Rgba8{100, 100, 0, 255};
        swap.at(2, 0) = Rgba8{200, 0, 0, 255};
        QCOMPARE(energy_at(swap, SeamEnergy::Transversal, 1, 0), 0);
        QCOMPARE(energy_at(swap, SeamEnergy::L1, 1, 0), 400);
    }

    void forward_energy_matches_opencv() {
        std::mt19937 rng(11);
        for (const auto [w, h] : std::array{std::pair{1, 5}, std::pair{3, 3}, std::pair{40, 30}}) {
            const ImageRgba8 img = random_image(w, h, rng);
            cv::Mat intensity = plane(img, 0) + plane(img, 1) + plane(img, 2);
            // The new horizontal edge, right minus left; and the new vertical edges, above
            // minus left and above minus right.
            const cv::Mat up =
                abs_filter(intensity, (cv::Mat_<float>(3, 3) << 0, 0, 0, -1, 0, 1, 0, 0, 0));
            const cv::Mat left =
                abs_filter(intensity, (cv::Mat_<float>(3, 3) << 0, 1, 0, -1, 0, 0, 0, 0, 0));
            const cv::Mat right =
                abs_filter(intensity, (cv::Mat_<float>(3, 3) << 0, 1, 0, 0, 0, -1, 0, 0, 0));
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const int u = int(up.at<float>(y, x));
                    QCOMPARE(forward_at(img, x, y, 0), u);
                    QCOMPARE(forward_at(img, x, y, -1), y == 0 ? u : u + int(left.at<float>(y, x)));
                    QCOMPARE(forward_at(img, x, y, 1), y == 0 ? u : u + int(right.at<float>(y, x)));
                }
        }
    }

    // Deep (Rgba16) documents: 257 × an 8-bit image has 257 × its energy (the carvers rely on
    // it to pick the same seams at either depth).
    void deep_images_scale_exactly() {
        std::mt19937 rng(3);
        const ImageRgba8 img = random_image(13, 9, rng);
        Image<Rgba16> deep(13, 9);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 13; ++x) {
                const Rgba8 p = img.at(x, y);
                deep.at(x, y) = Rgba16{std::uint16_t(p.r * 257), std::uint16_t(p.g * 257),
                                       std::uint16_t(p.b * 257), 65535};
            }
        for (const SeamEnergy kind :
             {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Transversal})
            for (int y = 0; y < 9; ++y)
                for (int x = 0; x < 13; ++x)
                    QCOMPARE(energy_at(deep, kind, x, y), 257 * energy_at(img, kind, x, y));
    }
};

QTEST_APPLESS_MAIN(TestSeamEnergy)
#include "test_seam_energy.moc"
