// The paths that keep an 8K photo's load and carve small (docs/notes/large-images.md), each
// against the path it replaced: a JPEG decoded straight into RGBA rows (read_image) or streamed
// row by row (read_photo_rows) gives the pixels of the B, G, R decode turned upright (read_native
// keeps that path), for odd sizes, grey, CMYK, every EXIF orientation and an ICC profile; the
// line histogram's planes built from those rows (only some channels, or only one line's band)
// give the same results as planes of the whole image; and a retarget that takes the caller's
// image gives the result of the one that copies it.
#include "histogram_test_util.hpp"
#include "metadata_test_util.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace lacuna;
using namespace lacuna::test;
namespace fs = std::filesystem;

namespace {

// Noise on gradients, so that chroma upsampling and the IDCT matter in every block.
cv::Mat noisy_bgr(const int w, const int h, const int channels, const unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(-40, 40);
    cv::Mat m(h, w, CV_8UC(channels));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c)
                m.ptr<std::uint8_t>(y)[x * channels + c] = cv::saturate_cast<std::uint8_t>(
                    (x * 255 / std::max(w - 1, 1) + y * 7 * (c + 1)) % 256 + noise(rng));
    return m;
}

std::vector<std::uint8_t> jpeg_of(const cv::Mat& m, const std::vector<int>& params = {}) {
    std::vector<std::uint8_t> bytes;
    if (!cv::imencode(".jpg", m, bytes, params)) throw std::runtime_error("cannot encode");
    return bytes;
}

// read_image's pixels against the stored decode of read_native (R, G, B or grey) turned upright.
QString compare_to_native(const ImageRgba8& rgba, const NativeImage& native) {
    if (rgba.width() != native.width() || rgba.height() != native.height())
        return QString("size %1x%2, native %3x%4")
            .arg(rgba.width())
            .arg(rgba.height())
            .arg(native.width())
            .arg(native.height());
    for (int y = 0; y < rgba.height(); ++y)
        for (int x = 0; x < rgba.width(); ++x) {
            const Rgba8 p = rgba.at(x, y);
            const bool grey = native.channels() == 1;
            const int want[3] = {int(native.sample(x, y, 0)),
                                 int(native.sample(x, y, grey ? 0 : 1)),
                                 int(native.sample(x, y, grey ? 0 : 2))};
            if (p.r != want[0] || p.g != want[1] || p.b != want[2] || p.a != 255)
                return QString("pixel (%1, %2): %3 %4 %5 %6, native %7 %8 %9")
                    .arg(x)
                    .arg(y)
                    .arg(p.r)
                    .arg(p.g)
                    .arg(p.b)
                    .arg(p.a)
                    .arg(want[0])
                    .arg(want[1])
                    .arg(want[2]);
        }
    return {};
}

// The rows read_photo_rows gives, gathered and turned upright by the test itself (the stored
// (x, y) → upright mapping written out per orientation, as EXIF defines it).
struct Streamed {
    ImageRgba8 upright;
    io::StreamedPhoto photo;
};

Streamed stream(const fs::path& path) {
    ImageRgba8 stored;
    int orientation = 1;
    std::optional<io::StreamedPhoto> photo =
        io::read_photo_rows(path, {[&](const int w, const int h, const int o) {
                                       stored = ImageRgba8(w, h);
                                       orientation = o;
                                   },
                                   [&](const int y) { return stored.row(y); },
                                   {}});
    if (!photo) throw std::runtime_error("not streamed");
    const int w = stored.width(), h = stored.height();
    const bool turns = orientation >= 5;
    Streamed out{ImageRgba8(turns ? h : w, turns ? w : h), std::move(*photo)};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int u = x, v = y;
            switch (orientation) {
                case 2:
                    u = w - 1 - x;
                    break;
                case 3:
                    u = w - 1 - x, v = h - 1 - y;
                    break;
                case 4:
                    v = h - 1 - y;
                    break;
                case 5:
                    u = y, v = x;
                    break;
                case 6:
                    u = h - 1 - y, v = x;
                    break;
                case 7:
                    u = h - 1 - y, v = w - 1 - x;
                    break;
                case 8:
                    u = y, v = w - 1 - x;
                    break;
                default:
                    break;
            }
            out.upright.at(u, v) = stored.at(x, y);
        }
    return out;
}

// A source built by PhotoPlanesBuilder from a file's streamed rows.
ops::HistogramSource planes_of(const fs::path& path,
                               const std::vector<ops::HistogramChannel>& channels,
                               const std::optional<ops::LineHistogramParams>& line = {}) {
    std::optional<ops::PhotoPlanesBuilder> builder;
    std::vector<Rgba8> row;
    (void)io::read_photo_rows(path, {[&](const int w, const int h, const int o) {
                                         builder.emplace(w, h, o, channels);
                                         if (line) builder->only_line(*line);
                                         row.resize(std::size_t(w));
                                     },
                                     [&](int) { return row.data(); },
                                     [&](const int y) { builder->add_row(y, row.data()); }});
    return std::move(*builder).finish();
}

bool same_plane(const ImageView<const float> a, const ImageView<const float> b) {
    if (a.width != b.width || a.height != b.height) return false;
    for (int y = 0; y < a.height; ++y)
        if (std::memcmp(a.row(y), b.row(y), sizeof(float) * std::size_t(a.width)) != 0)
            return false;
    return true;
}

}  // namespace

class TestLargeImages : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    fs::path write(const std::string& name, const std::vector<std::uint8_t>& bytes) {
        const fs::path path = fs::path(dir_.path().toStdString()) / name;
        write_bytes(path, bytes);
        return path;
    }

  private slots:
    // Colour (baseline and progressive, 4:2:0) and grey JPEGs of odd sizes: the RGBA decode gives
    // the B, G, R decode's values, and streaming gives the same rows.
    void rgba_decode_is_the_stored_decode() {
        const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {101, 3}, {17, 64}, {250, 131}};
        unsigned seed = 1;
        for (const auto& [w, h] : sizes) {
            for (const int channels : {3, 1}) {
                for (const int progressive : {0, 1}) {
                    if (channels == 1 && progressive == 1) continue;
                    const fs::path path =
                        write("odd.jpg", jpeg_of(noisy_bgr(w, h, channels, ++seed),
                                                 {cv::IMWRITE_JPEG_QUALITY, 90,
                                                  cv::IMWRITE_JPEG_PROGRESSIVE, progressive}));
                    const io::LoadedImage image = io::read_image(path);
                    const io::LoadedNative native = io::read_native(path);
                    const QString diff = compare_to_native(image.image, native.pages[0]);
                    QVERIFY2(diff.isEmpty(), qPrintable(QString("%1x%2, %3 channel(s): %4")
                                                            .arg(w)
                                                            .arg(h)
                                                            .arg(channels)
                                                            .arg(diff)));
                    QCOMPARE(image.info.channels, channels);
                    QCOMPARE(image.info.width, w);
                    QCOMPARE(image.info.height, h);
                    QCOMPARE(image.info.bit_depth, 8);
                    QVERIFY(!image.info.has_alpha);
                    QCOMPARE(image.info.file_bytes, fs::file_size(path));
                    const Streamed streamed = stream(path);
                    QVERIFY(equal_pixels<Rgba8>(streamed.upright.view(), image.image.view()));
                }
            }
        }
    }

    // Adobe CMYK (inverted, APP14): converted per row as the whole-image conversion did.
    void cmyk_jpeg_decodes_alike() {
        const fs::path path = fs::path(LACUNA_SOURCE_DIR) / "tests/data/formats/cmyk.jpg";
        const io::LoadedImage image = io::read_image(path);
        const io::LoadedNative native = io::read_native(path);
        const QString diff = compare_to_native(image.image, native.pages[0]);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // Pillow's value (tests/data/formats/make_format_files.py), so that both paths cannot
        // have drifted together.
        QCOMPARE(int(image.image.at(15, 15).r), 139);
        QCOMPARE(int(image.image.at(15, 15).g), 75);
        QCOMPARE(int(image.image.at(15, 15).b), 152);
        QVERIFY(equal_pixels<Rgba8>(stream(path).upright.view(), image.image.view()));
    }

    // Every EXIF orientation, with an ICC profile and the rest of a camera's metadata: the same
    // upright pixels, size, metadata and notices as the generic path; the streamed planes equal
    // the planes of the upright image.
    void every_orientation_turns_alike() {
        const std::vector<std::uint8_t> icc = make_icc_profile("Lacuna test RGB", 300);
        for (int orientation = 1; orientation <= 8; ++orientation) {
            const fs::path path = fs::path(dir_.path().toStdString()) /
                                  ("turned" + std::to_string(orientation) + ".jpg");
            write_bytes(path, jpeg_of(noisy_bgr(37, 23, 3, 90u + unsigned(orientation))));
            KnownMetadata known;
            known.orientation = orientation;
            attach_metadata(path, known, 37, 23, &icc);
            const io::LoadedImage image = io::read_image(path);
            const io::LoadedNative native = io::read_native(path);
            const QString diff = compare_to_native(image.image, native.pages[0]);
            QVERIFY2(diff.isEmpty(),
                     qPrintable(QString("orientation %1: %2").arg(orientation).arg(diff)));
            QCOMPARE(image.info.width, orientation >= 5 ? 23 : 37);
            QCOMPARE(image.metadata.orientation_applied, native.metadata.orientation_applied);
            QCOMPARE(image.metadata.orientation_applied, orientation != 1);
            QCOMPARE(image.metadata.icc, icc);
            QCOMPARE(image.notices, native.notices);

            const Streamed streamed = stream(path);
            QVERIFY(equal_pixels<Rgba8>(streamed.upright.view(), image.image.view()));
            QCOMPARE(streamed.photo.info.width, image.info.width);
            QCOMPARE(streamed.photo.info.height, image.info.height);
            QCOMPARE(streamed.photo.metadata.orientation_applied, orientation != 1);
            QCOMPARE(streamed.photo.metadata.icc, icc);

            const ops::HistogramSource whole(image.image.view());
            const ops::HistogramSource built =
                planes_of(path, {ops::HistogramChannel::Luminance, ops::HistogramChannel::Rgb});
            QCOMPARE(built.width(), whole.width());
            QCOMPARE(built.height(), whole.height());
            for (const auto c : {ops::HistogramChannel::Luminance, ops::HistogramChannel::Red,
                                 ops::HistogramChannel::Green, ops::HistogramChannel::Blue})
                QVERIFY2(same_plane(built.plane(c).view(), whole.plane(c).view()),
                         qPrintable(QString("orientation %1, channel %2")
                                        .arg(orientation)
                                        .arg(QString::fromStdString(ops::to_string(c)))));
        }
    }

    // Other files are not streamed: read_photo_rows leaves them to read_image.
    void only_jpeg_streams() {
        const fs::path png = write(
            "x.png",
            io::encode_image(ImageRgba8(3, 2, Rgba8{1, 2, 3, 255}).view(), io::ImageFormat::Png));
        bool called = false;
        QVERIFY(!io::read_photo_rows(
            png,
            {[&](int, int, int) { called = true; }, [&](int) -> Rgba8* { return nullptr; }, {}}));
        QVERIFY(!called);
        // A damaged JPEG fails as read_image does.
        std::vector<std::uint8_t> cut = jpeg_of(noisy_bgr(64, 64, 3, 5));
        cut.resize(cut.size() / 2);
        const fs::path bad = write("cut.jpg", cut);
        std::vector<Rgba8> row(64);
        QVERIFY_THROWS_EXCEPTION(
            Error, (void)io::read_photo_rows(
                       bad, {[](int, int, int) {}, [&](int) { return row.data(); }, {}}));
    }

    // Planes of some channels only: the others are refused by name, the built ones are exact.
    void planes_of_some_channels() {
        std::mt19937 rng(7);
        const ImageRgba8 photo = random_photo(29, 31, rng);
        const ops::HistogramSource all(photo.view());
        const ops::HistogramSource lum(photo.view(), {ops::HistogramChannel::Luminance});
        QVERIFY(lum.has_plane(ops::HistogramChannel::Luminance));
        QVERIFY(!lum.has_plane(ops::HistogramChannel::Red));
        QVERIFY(same_plane(lum.plane(ops::HistogramChannel::Luminance).view(),
                           all.plane(ops::HistogramChannel::Luminance).view()));
        QVERIFY_THROWS_EXCEPTION(Error, (void)lum.plane(ops::HistogramChannel::Green));
        const ops::HistogramSource rgb(photo.view(), {ops::HistogramChannel::Rgb});
        QVERIFY(!rgb.has_plane(ops::HistogramChannel::Luminance));
        ops::LineHistogramParams p;
        p.from = {2, 3};
        p.to = {25, 27};
        p.band_width = 5;
        p.channel = ops::HistogramChannel::Rgb;
        QVERIFY(compare(ops::line_histogram_fast(rgb, p), ops::line_histogram_reference(all, p))
                    .isEmpty());
        p.channel = ops::HistogramChannel::Luminance;
        QVERIFY_THROWS_EXCEPTION(Error, (void)ops::line_histogram_fast(rgb, p));
    }

    // Planes filled only along one line's band: that line's histogram (reference and fast,
    // bilinear and nearest, clipped or not, upright or turned) equals the whole image's; any
    // other line or a direction is refused.
    void one_line_planes_answer_that_line_exactly() {
        const fs::path upright_path = write("line1.jpg", jpeg_of(noisy_bgr(97, 61, 3, 11)));
        const fs::path turned_path = fs::path(dir_.path().toStdString()) / "line6.jpg";
        write_bytes(turned_path, jpeg_of(noisy_bgr(97, 61, 3, 12)));
        KnownMetadata known;
        known.orientation = 6;
        attach_metadata(turned_path, known, 97, 61);
        struct Case {
            ops::Point2 from, to;
            int band;
            Sampling sampling;
        };
        const Case cases[] = {{{3, 4}, {55, 90}, 9, Sampling::Bilinear},
                              {{0, 0}, {60, 96}, 1, Sampling::Bilinear},
                              {{-20, 30.5}, {80, 10.25}, 13, Sampling::Bilinear},
                              {{10.5, 2}, {10.5, 90}, 7, Sampling::Nearest},
                              {{59.7, 0.2}, {0.4, 95.9}, 32, Sampling::Nearest},
                              {{5, 50}, {58, 49}, 64, Sampling::Bilinear}};
        for (const fs::path& path : {upright_path, turned_path}) {
            const ops::HistogramSource whole(io::read_image(path).image.view());
            for (const Case& c : cases) {
                ops::LineHistogramParams p;
                p.from = {c.from.x, c.from.y};
                p.to = {c.to.x, c.to.y};
                p.band_width = c.band;
                p.sampling = c.sampling;
                const ops::HistogramSource line =
                    planes_of(path, {ops::HistogramChannel::Luminance}, p);
                QVERIFY(line.only_line().has_value());
                const ops::LineHistogram want = ops::line_histogram_reference(whole, p);
                const QString ref = compare(ops::line_histogram_reference(line, p), want);
                const QString fast = compare(ops::line_histogram_fast(line, p), want);
                const QString where = QString("%1, line (%2, %3)-(%4, %5) band %6")
                                          .arg(QString::fromStdString(path.filename().string()))
                                          .arg(c.from.x)
                                          .arg(c.from.y)
                                          .arg(c.to.x)
                                          .arg(c.to.y)
                                          .arg(c.band);
                QVERIFY2(ref.isEmpty(), qPrintable(where + ": " + ref));
                QVERIFY2(fast.isEmpty(), qPrintable(where + ": " + fast));
                // Fewer pixels were filled than the image holds (a wide band may cover it).
                ops::LineHistogramParams other = p;
                other.to.x += 1;
                QVERIFY_THROWS_EXCEPTION(Error, (void)ops::line_histogram_fast(line, other));
                other = p;
                other.band_width += 2;
                QVERIFY_THROWS_EXCEPTION(Error, (void)ops::line_histogram_fast(line, other));
                ops::DirectionHistogramParams d;
                QVERIFY_THROWS_EXCEPTION(Error, (void)ops::direction_histogram_fast(line, d));
                // The bins, range and channel's profile may change: they read the same pixels.
                p.bins = 17;
                p.range = std::pair{10.0f, 200.0f};
                QVERIFY(compare(ops::line_histogram_fast(line, p),
                                ops::line_histogram_reference(whole, p))
                            .isEmpty());
            }
        }
    }

    // A line that cannot be drawn leaves the planes whole, and the refusal is plan_line's own.
    void undrawable_line_is_refused_as_before() {
        const fs::path path = write("small.jpg", jpeg_of(noisy_bgr(20, 10, 3, 3)));
        ops::LineHistogramParams p;
        p.from = {100, 100};
        p.to = {200, 300};
        const ops::HistogramSource line = planes_of(path, {ops::HistogramChannel::Luminance}, p);
        QVERIFY(!line.only_line());
        QVERIFY_THROWS_EXCEPTION(Error, (void)ops::line_histogram_fast(line, p));
    }

    // retarget(ImageRgba8&&) carves the caller's image: the result of the copying retarget,
    // width only, both sides (two orders), with the overlay, and enlarging.
    void retarget_taking_the_image_is_the_same() {
        std::mt19937 rng(3);
        const ImageRgba8 photo = random_photo(61, 37, rng);
        struct Case {
            int width, height;
            bool overlay;
        };
        for (const Case& c : {Case{50, 37, false}, Case{48, 30, false}, Case{52, 33, true},
                              Case{70, 37, false}, Case{55, 40, true}}) {
            ops::RetargetParams p;
            p.width = c.width;
            p.height = c.height;
            p.want_overlay = c.overlay;
            const ops::RetargetResult copied =
                ops::retarget(photo.view(), p, ops::CarveImplementation::Fast);
            ImageRgba8 mine = clone(photo.view());
            const ops::RetargetResult taken =
                ops::retarget(std::move(mine), p, ops::CarveImplementation::Fast);
            QVERIFY(equal_pixels<Rgba8>(taken.image.view(), copied.image.view()));
            QCOMPARE(taken.total_cost, copied.total_cost);
            QCOMPARE(taken.width_first, copied.width_first);
            QCOMPARE(taken.overlay.empty(), !c.overlay);
            if (c.overlay)
                QVERIFY(equal_pixels<Rgba8>(taken.overlay.view(), copied.overlay.view()));
        }
    }
};

QTEST_GUILESS_MAIN(TestLargeImages)
#include "test_large_images.moc"
