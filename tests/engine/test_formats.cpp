// The constructed PNG, TIFF, JPEG and GIF files of tests/data/formats, each read with
// the values Pillow reads from it: tests/data/formats/make_format_files.py wrote them and checked
// every value below against Pillow, with the same formulas.
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <filesystem>
#include <string>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

constexpr int W = 7, H = 5;

fs::path data(const char* name) {
    return fs::path(LACUNA_SOURCE_DIR) / "tests/data/formats" / name;
}

int grey(const int x, const int y) {
    return (x * 37 + y * 11) % 256;
}

std::array<int, 3> rgb(const int x, const int y) {
    return {(x * 40 + 3) % 256, (y * 60 + 7) % 256, (x * y * 13 + 100) % 256};
}

std::array<int, 4> cmyk(const int x, const int y) {
    return {(x * 30) % 256, (y * 50) % 256, (x * y * 7) % 256, (x * 11 + y * 17) % 256};
}

// Pillow's cmyk2rgb (libImaging/Convert.c), written out independently of Lacuna's.
std::array<int, 3> pillow_cmyk_to_rgb(const std::array<int, 4>& c) {
    const int nk = 255 - c[3];
    std::array<int, 3> out{};
    for (int k = 0; k < 3; ++k) {
        const int t = c[static_cast<std::size_t>(k)] * nk + 128;
        out[static_cast<std::size_t>(k)] = std::clamp(nk - (((t >> 8) + t) >> 8), 0, 255);
    }
    return out;
}

// Every sample of page `page` against `want(x, y, c)`; the first difference is named.
template <typename F>
void expect_samples(const NativeImage& image, const int channels, F want, const char* what) {
    QCOMPARE(image.channels(), channels);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            for (int c = 0; c < channels; ++c) {
                const double got = image.sample(x, y, c);
                const double expected = want(x, y, c);
                if (got != expected)
                    QFAIL(qPrintable(QString("%1: (%2, %3) channel %4 is %5, Pillow reads %6")
                                         .arg(what)
                                         .arg(x)
                                         .arg(y)
                                         .arg(c)
                                         .arg(got)
                                         .arg(expected)));
            }
}

Error read_error(const fs::path& path) {
    try {
        (void)io::read_native(path);
    } catch (const Error& e) {
        return e;
    }
    return Error(ErrorCode::DeviceError, "no error");
}

}  // namespace

class TestFormats : public QObject {
    Q_OBJECT

  private slots:
    // A grey PNG's tRNS chunk makes one grey level transparent (it was dropped).
    void grey_png_with_trns_keeps_its_transparency() {
        const io::LoadedNative n = io::read_native(data("grey_trns.png"));
        QVERIFY(n.pages[0].format() == (PixelFormat{SampleType::U8, 4}));
        expect_samples(
            n.pages[0], 4,
            [](const int x, const int y, const int c) {
                const int v = (x == 2 && y == 3) ? 77 : grey(x, y);
                return c < 3 ? v : (v == 77 ? 0 : 255);
            },
            "grey_trns.png");
        QVERIFY(io::read_image(data("grey_trns.png")).info.has_alpha);
        QCOMPARE(int(io::read_image(data("grey_trns.png")).image.at(2, 3).a), 0);
    }

    // An index beyond the palette: libpng shows black, Pillow a grey ramp; refused, named.
    void png_palette_index_beyond_the_palette_is_refused() {
        const Error e = read_error(data("palette_out_of_range.png"));
        QCOMPARE(e.code(), ErrorCode::Corrupt);
        QVERIFY2(
            std::string(e.what()).find("palette index 4 beyond the 4 colours") != std::string::npos,
            e.what());
    }

    // ExtraSamples = 2: the colour is stored as it is, not multiplied by alpha. A reader
    // that premultiplies turns the pixel (255, 254, 237, 102) into (102, 102, 95, 102).
    void tiff_unassociated_alpha_is_kept_as_stored() {
        const io::LoadedNative n = io::read_native(data("rgba_unassociated.tif"));
        expect_samples(
            n.pages[0], 4,
            [](const int x, const int y, const int c) {
                if (x == 0 && y == 0) return std::array<int, 4>{255, 254, 237, 102}[std::size_t(c)];
                return c < 3 ? rgb(x, y)[std::size_t(c)] : (x * 50 + y * 9) % 256;
            },
            "rgba_unassociated.tif");
        const Rgba8 p = io::read_image(data("rgba_unassociated.tif")).image.at(0, 0);
        QCOMPARE((std::array<int, 4>{p.r, p.g, p.b, p.a}),
                 (std::array<int, 4>{255, 254, 237, 102}));
    }

    void cmyk_tiff_reads_as_pillow_converts_it() {
        const io::LoadedNative n = io::read_native(data("cmyk.tif"));
        expect_samples(
            n.pages[0], 3,
            [](const int x, const int y, const int c) {
                return pillow_cmyk_to_rgb(cmyk(x, y))[std::size_t(c)];
            },
            "cmyk.tif");
    }

    // Adobe CMYK (inverted, APP14): Pillow's RGB of the same libjpeg's decoding.
    void cmyk_jpeg_reads_as_pillow_converts_it() {
        const io::LoadedNative n = io::read_native(data("cmyk.jpg"));
        QCOMPARE(n.pages[0].channels(), 3);
        const struct {
            int x, y, r, g, b;
        } pillow[] = {{0, 0, 185, 128, 198},
                      {15, 0, 152, 121, 177},
                      {0, 15, 170, 79, 177},
                      {15, 15, 139, 75, 152}};
        for (const auto& p : pillow) {
            QCOMPARE(n.pages[0].sample(p.x, p.y, 0), double(p.r));
            QCOMPARE(n.pages[0].sample(p.x, p.y, 1), double(p.g));
            QCOMPARE(n.pages[0].sample(p.x, p.y, 2), double(p.b));
        }
    }

    // 16x16 tiles over 19x17 pixels: the right and bottom tiles are partly outside.
    void tiled_tiff_reads_every_tile() {
        const io::LoadedNative n = io::read_native(data("tiled.tif"));
        QCOMPARE(n.pages[0].width(), 19);
        QCOMPARE(n.pages[0].height(), 17);
        expect_samples(
            n.pages[0], 3,
            [](const int x, const int y, const int c) { return rgb(x, y)[std::size_t(c)]; },
            "tiled.tif");
    }

    // PlanarConfiguration = 2: all reds, then all greens, then all blues; 16-bit.
    void planar_tiff_reads_every_plane() {
        const io::LoadedNative n = io::read_native(data("planar.tif"));
        QVERIFY(n.pages[0].format() == (PixelFormat{SampleType::U16, 3}));
        expect_samples(
            n.pages[0], 3,
            [](const int x, const int y, const int c) {
                const int v[3] = {x * 9001 + 3, y * 12345 + 1, 65535 - x * y * 100};
                return v[c];
            },
            "planar.tif");
    }

    void bigtiff_opens() {
        const io::LoadedNative n = io::read_native(data("bigtiff.tif"));
        QCOMPARE(n.info.format, io::ImageFormat::Tiff);
        expect_samples(
            n.pages[0], 1, [](const int x, const int y, int) { return grey(x, y); }, "bigtiff.tif");
    }

    void signed_16_bit_tiff_reads_and_writes() {
        const io::LoadedNative n = io::read_native(data("signed16.tif"));
        QVERIFY(n.pages[0].format() == (PixelFormat{SampleType::I16, 1}));
        const auto value = [](const int x, const int y, int) { return -1024 + 700 * x - 3000 * y; };
        expect_samples(n.pages[0], 1, value, "signed16.tif");
        // Written back as signed 16-bit, every value kept ("TIFF has no signed 16-bit" was false).
        QVERIFY(io::format_holds(io::ImageFormat::Tiff, SampleType::I16, 1));
        QTemporaryDir dir;
        const fs::path out = fs::path(dir.path().toStdString()) / "again.tif";
        QVERIFY(io::write_native(out, n.pages[0]).empty());
        const io::LoadedNative back = io::read_native(out);
        QVERIFY(back.pages[0].format() == (PixelFormat{SampleType::I16, 1}));
        expect_samples(back.pages[0], 1, value, "again.tif");
    }

    // A progressive JPEG cut in half: libjpeg fills the rest with grey and only warns; Pillow
    // refuses it ("image file is truncated"), and so does Lacuna.
    void truncated_progressive_jpeg_is_refused() {
        const Error e = read_error(data("truncated_progressive.jpg"));
        QCOMPARE(e.code(), ErrorCode::Truncated);
        QVERIFY2(std::string(e.what()).find("the JPEG file is truncated") != std::string::npos,
                 e.what());
    }

    // Three frames, the later ones stored by Pillow as the changed rectangle with a transparent
    // index: each page is the picture a viewer shows, as Pillow composes it.
    void gif_frames_open_as_pages() {
        const io::LoadedNative n = io::read_native(data("anim.gif"));
        QCOMPARE(n.info.format, io::ImageFormat::Gif);
        QCOMPARE(n.pages.size(), std::size_t{3});
        QCOMPARE(n.info.pages, 3);
        for (int k = 0; k < 3; ++k)
            expect_samples(
                n.pages[std::size_t(k)], 3,
                [k](const int x, const int y, const int c) {
                    const int inside[3] = {(k * 80 + x * 20) % 256, (y * 40) % 256, 200};
                    const int outside[3] = {10, 20, 30};
                    return x >= k && y >= k ? inside[c] : outside[c];
                },
                qPrintable(QString("anim.gif frame %1").arg(k + 1)));
        // read_image: the first frame.
        const io::LoadedImage first = io::read_image(data("anim.gif"));
        QCOMPARE(first.image.width(), W);
        QCOMPARE(first.image.height(), H);
        QCOMPARE(int(first.image.at(6, 4).r), (6 * 20) % 256);
    }

    // A cut GIF: refused in its first frame, its earlier frames kept (with a notice) after.
    void cut_gif_is_refused_or_keeps_its_whole_frames() {
        QFile f(QString::fromStdString(data("anim.gif").string()));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray whole = f.readAll();
        const auto decode = [&](const int size) {
            const std::vector<std::uint8_t> bytes(whole.begin(), whole.begin() + size);
            return io::decode_native(bytes, "cut.gif");
        };
        try {
            decode(40);
            QFAIL("a GIF cut in its first frame opened");
        } catch (const Error& e) {
            QVERIFY2(e.code() == ErrorCode::Truncated || e.code() == ErrorCode::Corrupt, e.what());
            QVERIFY2(std::string(e.what()).find("cut.gif") != std::string::npos, e.what());
        }
        const io::LoadedNative cut = decode(int(whole.size()) - 30);
        QVERIFY(!cut.pages.empty() && cut.pages.size() < 3);
        bool said = false;
        for (const std::string& notice : cut.notices)
            said = said || notice.find("damaged or cut in frame") != std::string::npos;
        QVERIFY(said);
    }
};

QTEST_GUILESS_MAIN(TestFormats)
#include "test_formats.moc"
