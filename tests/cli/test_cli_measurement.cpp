// Measurements through the command line: retarget, inpaint, scale, filter and batch
// read 16-bit, signed, float, DICOM and FITS files as stored, decide on every bit as the editor
// does, move the stored samples and write them back in their own type.
#include "cli_run.hpp"
#include "../engine/scientific_test_files.hpp"

#include <lacuna/io/image_io.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

using namespace lacuna;

namespace {

using Result = test::CliResult;
using test::run_cli;
using test::verify_one_error_line;

QJsonObject json_object(const Result& r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

/// A textured 8-bit grey field spanning 0..255 (so its finite range is the type's: the
/// measurement path's normalisation is then exactly ×257 for the 16-bit copy, as for the photo
/// path's 8-bit image): diagonal stripes, a bright disc, a little hash noise.
NativeImage textured_u8(const int w, const int h) {
    NativeImage img(w, h, {SampleType::U8, 1});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int stripes = ((x + 2 * y) / 5) % 2 == 0 ? 60 : 140;
            const int dx = x - w / 3, dy = y - h / 2;
            const int disc = dx * dx + dy * dy < (h / 4) * (h / 4) ? 90 : 0;
            const unsigned hash =
                (static_cast<unsigned>(x) * 73856093u) ^ (static_cast<unsigned>(y) * 19349663u);
            img.set_sample(x, y, 0, std::min(255, stripes + disc + int(hash % 23)));
        }
    img.set_sample(0, 0, 0, 0);
    img.set_sample(w - 1, h - 1, 0, 255);
    return img;
}

NativeImage times_257(const NativeImage& img) {
    NativeImage out(img.width(), img.height(), {SampleType::U16, img.channels()});
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            for (int c = 0; c < img.channels(); ++c)
                out.set_sample(x, y, c, 257 * img.sample(x, y, c));
    return out;
}

void write(const QString& path, const NativeImage& img) {
    io::write_native(path.toStdString(), img);
}

NativeImage read_page(const QString& path) {
    return io::read_native(path.toStdString()).pages.at(0);
}

/// `big` is exactly 257 × `small`, sample by sample.
void verify_times_257(const NativeImage& small, const NativeImage& big) {
    QCOMPARE(big.width(), small.width());
    QCOMPARE(big.height(), small.height());
    QCOMPARE(big.sample_type(), SampleType::U16);
    // A grey photo comes back as RGB from the photo path: compare its red.
    QVERIFY(small.channels() == big.channels() || big.channels() == 1);
    int differing = 0;
    for (int y = 0; y < small.height(); ++y)
        for (int x = 0; x < small.width(); ++x)
            for (int c = 0; c < big.channels(); ++c)
                differing += big.sample(x, y, c) != 257 * small.sample(x, y, c) ? 1 : 0;
    QCOMPARE(differing, 0);
}

/// XResolution, YResolution, ResolutionUnit and ImageDescription of a TIFF's first directory,
/// parsed from the bytes (little- or big-endian), independently of the codecs.
struct TiffTags {
    double x = 0, y = 0;
    int unit = 2;  // TIFF's default: inch
    QString description;
};

TiffTags first_ifd(const QByteArray& b) {
    const bool little = b.startsWith("II");
    const auto u = [&](const qsizetype at, const int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) {
            const auto byte = static_cast<std::uint8_t>(b[at + (little ? i : n - 1 - i)]);
            v |= std::uint64_t{byte} << (8 * i);
        }
        return v;
    };
    TiffTags t;
    const qsizetype ifd = qsizetype(u(4, 4));
    const int count = int(u(ifd, 2));
    for (int i = 0; i < count; ++i) {
        const qsizetype e = ifd + 2 + 12 * i;
        const int tag = int(u(e, 2));
        const qsizetype value = qsizetype(u(e + 8, 4));
        if (tag == 282 || tag == 283) {
            const double r = double(u(value, 4)) / double(u(value + 4, 4));
            (tag == 282 ? t.x : t.y) = r;
        } else if (tag == 296) {
            t.unit = int(u(e + 8, 2));
        } else if (tag == 270) {
            const qsizetype n = qsizetype(u(e + 4, 4));
            t.description = QString::fromUtf8(n <= 4 ? b.mid(e + 8, n) : b.mid(value, n));
        }
    }
    return t;
}

}  // namespace

class TestCliMeasurement : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tmp(const QString& name) const { return dir_.filePath(name); }

  private slots:
    void convert_keeps_deep_colour_when_only_the_alpha_is_dropped() {
        // A 16-bit RGBA PNG to PPM (16-bit RGB) and to PFM (float RGB): the colour keeps every
        // bit, only the alpha goes, and no "write TIFF" advice follows.
        NativeImage rgba(6, 4, {SampleType::U16, 4});
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x) {
                for (int c = 0; c < 3; ++c) rgba.set_sample(x, y, c, 20011 * c + 977 * x + 53 * y);
                rgba.set_sample(x, y, 3, 40000);
            }
        write(tmp("rgba16.png"), rgba);
        for (const char* out : {"rgba16-out.ppm", "rgba16-out.pfm"}) {
            const Result r = run_cli({"convert", tmp("rgba16.png"), tmp(out)});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains("transparency dropped"), qPrintable(r.err));
            QVERIFY2(!r.err.contains("write TIFF") && !r.err.contains("8 bits"), qPrintable(r.err));
            const NativeImage back = read_page(tmp(out));
            QCOMPARE(back.channels(), 3);
            QVERIFY(back.sample_type() != SampleType::U8);
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 6; ++x)
                    for (int c = 0; c < 3; ++c)
                        QCOMPARE(back.sample(x, y, c), rgba.sample(x, y, c));
        }
    }

    // The photo path (8-bit PNG) and the measurement path (its ×257 16-bit copy) carve the same
    // seams: the 16-bit result is exactly 257 × the 8-bit one, both orders of a W×H shrink.
    void retarget_x257_copy_gives_the_same_seams() {
        const NativeImage small = textured_u8(48, 36);
        write(tmp("a8.png"), small);
        write(tmp("a16.png"), times_257(small));
        for (const QString energy : {"forward", "sobel"}) {
            const QStringList size{"--width",  "37",   "--height",  "29",
                                   "--energy", energy, "--backend", "cpu"};
            Result r = run_cli(QStringList{"retarget", tmp("a8.png"), tmp("o8.png")} + size);
            QVERIFY2(r.status == 0, qPrintable(r.err));
            r = run_cli(QStringList{"retarget", tmp("a16.png"), tmp("o16.png"), "--json"} + size);
            QVERIFY2(r.status == 0, qPrintable(r.err));
            QCOMPARE(json_object(r)["sample_type"].toString(), QString("u16"));
            QCOMPARE(json_object(r)["written_sample_type"].toString(), QString("u16"));
            QVERIFY2(!r.err.contains("8 bits"), qPrintable(r.err));  // nothing narrowed
            const NativeImage o8 = read_page(tmp("o8.png"));
            const NativeImage o16 = read_page(tmp("o16.png"));
            QCOMPARE(o16.format(), (PixelFormat{SampleType::U16, 1}));
            verify_times_257(o8, o16);
        }
    }

    // Samples differing by less than one 8-bit level are seen: a ramp 100 samples high on a flat
    // 16-bit field is kept (an 8-bit decision would see a flat image and carve through it).
    void retarget_decides_on_every_bit() {
        const int w = 40, h = 20;
        NativeImage img(w, h, {SampleType::U16, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                img.set_sample(x, y, 0, 30000 + (x >= 5 && x < 15 ? 10 * (x - 5) : 0));
        img.set_sample(0, 0, 0, 0);  // the range spans far more than the ramp
        img.set_sample(w - 1, h - 1, 0, 65535);
        write(tmp("ramp.png"), img);
        const Result r = run_cli({"retarget", tmp("ramp.png"), tmp("ramp-out.png"), "--width", "30",
                                  "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const NativeImage out = read_page(tmp("ramp-out.png"));
        QCOMPARE(out.width(), 30);
        // Every row still holds the whole ramp 30000..30090 in order.
        for (int y = 1; y < h - 1; ++y) {
            std::vector<double> ramp;
            for (int x = 0; x < out.width(); ++x)
                if (out.sample(x, y, 0) > 30000) ramp.push_back(out.sample(x, y, 0));
            QCOMPARE(int(ramp.size()), 9);
            for (std::size_t i = 0; i < ramp.size(); ++i) QCOMPARE(ramp[i], 30010.0 + 10 * i);
        }
    }

    // Float (NaN included) and 3-channel 16-bit keep their type; enlarging averages in the
    // stored type; JPEG cannot hold the samples and says so in one line.
    void retarget_keeps_float_and_colour() {
        NativeImage f(20, 12, {SampleType::F32, 1});
        for (int y = 0; y < 12; ++y)
            for (int x = 0; x < 20; ++x) f.set_sample(x, y, 0, 273.15 + 0.001 * (x * x + y));
        f.set_sample(19, 0, 0, std::numeric_limits<double>::quiet_NaN());
        write(tmp("f.tiff"), f);
        Result r = run_cli(
            {"retarget", tmp("f.tiff"), tmp("f-out.tiff"), "--width", "15", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        NativeImage out = read_page(tmp("f-out.tiff"));
        QCOMPARE(out.format(), (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(out.width(), 15);
        // Moved, not re-quantised: every row's values are a subset of the input row's.
        for (int y = 0; y < 12; ++y) {
            std::set<float> row;
            for (int x = 0; x < 20; ++x) row.insert(float(f.sample(x, y, 0)));
            for (int x = 0; x < 15; ++x) {
                const float v = float(out.sample(x, y, 0));
                QVERIFY(std::isnan(v) || row.count(v) == 1);
            }
        }
        r = run_cli(
            {"retarget", tmp("f.tiff"), tmp("f-out.pfm"), "--width", "30", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(read_page(tmp("f-out.pfm")).format(), (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(read_page(tmp("f-out.pfm")).width(), 30);

        NativeImage rgb(16, 10, {SampleType::U16, 3});
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 16; ++x)
                for (int c = 0; c < 3; ++c) rgb.set_sample(x, y, c, 1000 * c + 37 * x + 101 * y);
        write(tmp("rgb16.png"), rgb);
        r = run_cli({"retarget", tmp("rgb16.png"), tmp("rgb16-out.tiff"), "--height", "8",
                     "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        out = read_page(tmp("rgb16-out.tiff"));
        QCOMPARE(out.format(), (PixelFormat{SampleType::U16, 3}));
        QCOMPARE(out.height(), 8);

        r = run_cli({"retarget", tmp("rgb16.png"), tmp("rgb16-out.jpg"), "--height", "8",
                     "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("JPEG cannot hold 16-bit") &&
                     r.err.contains("to keep the 16-bit samples, write TIFF"),
                 qPrintable(r.err));
        // Photo-only options refuse with a sentence.
        r = run_cli(
            {"retarget", tmp("rgb16.png"), tmp("x.png"), "--width", "10", "--amount", "50"});
        verify_one_error_line(r, "retargeted by seams only");
        r = run_cli({"retarget", tmp("rgb16.png"), tmp("x.png"), "--width", "10", "--saliency"});
        verify_one_error_line(r, "carved on its values only");
        QVERIFY(!QFile::exists(tmp("x.png")));
    }

    // An 8-bit measurement (an 8-bit FITS frame) and its ×257 16-bit copy fill alike: the
    // stored samples move from the same sources and blend to the same values, each rounded to
    // its own type: outside the hole exactly 257 × the 8-bit samples, inside within half an
    // 8-bit level of it.
    void inpaint_x257_copy_gives_the_same_fill() {
        if (!test::fits_ready()) QSKIP("this build has no FITS support (CFITSIO)");
        const NativeImage small = textured_u8(48, 40);
        write(tmp("m8.fits"), small);
        write(tmp("m16.png"), times_257(small));
        NativeImage mask(48, 40, {SampleType::U8, 1});
        for (int y = 14; y < 24; ++y)
            for (int x = 20; x < 31; ++x) mask.set_sample(x, y, 0, 255);
        write(tmp("mask.png"), mask);
        Result r = run_cli({"inpaint", tmp("m8.fits"), tmp("mask.png"), tmp("f8.fits"), "--backend",
                            "cpu", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(json_object(r)["sample_type"].toString(), QString("u8"));
        r = run_cli({"inpaint", tmp("m16.png"), tmp("mask.png"), tmp("f16.png"), "--backend", "cpu",
                     "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(json_object(r)["written_sample_type"].toString(), QString("u16"));
        const NativeImage f8 = read_page(tmp("f8.fits"));
        const NativeImage f16 = read_page(tmp("f16.png"));
        QCOMPARE(f8.format(), (PixelFormat{SampleType::U8, 1}));
        int changed = 0;
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 48; ++x) {
                const bool hole = mask.sample(x, y, 0) != 0;
                const double v = f16.sample(x, y, 0);
                if (!hole) {
                    QCOMPARE(v, 257 * small.sample(x, y, 0));
                    QCOMPARE(f8.sample(x, y, 0), small.sample(x, y, 0));
                    continue;
                }
                QVERIFY2(
                    std::abs(v - 257 * f8.sample(x, y, 0)) <= 128,
                    qPrintable(
                        QString("%1,%2: %3 vs %4").arg(x).arg(y).arg(v).arg(f8.sample(x, y, 0))));
                changed += v != 257 * small.sample(x, y, 0) ? 1 : 0;
            }
        QVERIFY(changed > 20);
    }

    // --lines on a 16-bit measurement: a dark bar (1000 + 200 × level, off the ×257 grid) across
    // a hole is continued as for a picture (the note says how many lines), the samples outside
    // the hole stay, and the bar's tone runs through the hole.
    void inpaint_lines_on_a_measurement() {
        constexpr int w = 120, h = 90;
        const auto in_bar = [](const int x, const int y) {
            const double d = y - 0.25 * x - 30;
            return d >= 0 && d < 8;
        };
        NativeImage bar(w, h, {SampleType::U16, 3});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c)
                    bar.set_sample(x, y, c,
                                   1000 + 200 * ((in_bar(x, y) ? 50 : 190) + (7 * x + 3 * y) % 9));
        write(tmp("bar16.png"), bar);
        NativeImage mask(w, h, {SampleType::U8, 1});
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (std::hypot(x - 60, y - 49) <= 14) mask.set_sample(x, y, 0, 255);
        write(tmp("bar-mask.png"), mask);
        const Result r = run_cli({"inpaint", tmp("bar16.png"), tmp("bar-mask.png"),
                                  tmp("bar-out.png"), "--lines", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("continued 2 straight lines across the hole"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("not continued"), qPrintable(r.err));
        const NativeImage out = read_page(tmp("bar-out.png"));
        QCOMPARE(out.format(), (PixelFormat{SampleType::U16, 3}));
        int wrong = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (mask.sample(x, y, 0) == 0) {
                    for (int c = 0; c < 3; ++c) QCOMPARE(out.sample(x, y, c), bar.sample(x, y, c));
                    continue;
                }
                const double d = y - 0.25 * x - 30;
                if (std::abs(d) <= 1.5 || std::abs(d - 8) <= 1.5) continue;
                wrong += (out.sample(x, y, 0) < 1000 + 200 * 120) != in_bar(x, y);
            }
        QVERIFY2(wrong <= 5, qPrintable(QString::number(wrong)));
    }

    void criminisi_refuses_a_measurement() {
        write(tmp("c16.png"), times_257(textured_u8(24, 20)));
        NativeImage mask(24, 20, {SampleType::U8, 1});
        mask.set_sample(10, 10, 0, 255);
        write(tmp("cmask.png"), mask);
        const Result r = run_cli({"inpaint", tmp("c16.png"), tmp("cmask.png"), tmp("c-out.png"),
                                  "--method", "criminisi"});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "Criminisi alone would choose its patches on the 8-bit view");
        QVERIFY(!QFile::exists(tmp("c-out.png")));
    }

    // A CT slice (signed 16-bit, HU) through retarget: the stored samples move and are written
    // as signed 16-bit TIFF with the same values.
    void retarget_a_dicom_ct_slice() {
        if (!test::dicom_ready()) QSKIP("this build has no DICOM support (GDCM)");
#if LACUNA_TEST_GDCM
        const test::Bytes bytes = test::write_dicom(test::ct_spec());
        QFile file(tmp("ct.dcm"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
        file.close();
        const NativeImage ct = read_page(tmp("ct.dcm"));
        const Result r = run_cli({"retarget", tmp("ct.dcm"), tmp("ct.tiff"), "--width", "10",
                                  "--backend", "cpu", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(json_object(r)["sample_type"].toString(), QString("i16"));
        const NativeImage out = read_page(tmp("ct.tiff"));
        QCOMPARE(out.width(), 10);
        QCOMPARE(out.sample_type(), SampleType::I16);
        for (int y = 0; y < out.height(); ++y) {
            std::multiset<double> row;
            for (int x = 0; x < ct.width(); ++x) row.insert(ct.sample(x, y, 0));
            for (int x = 0; x < out.width(); ++x) QVERIFY(row.count(out.sample(x, y, 0)) > 0);
        }
#endif
    }

    // Scale moves samples (nearest, the photo path's own rule) or resamples them; the filter
    // refuses, as in the editor.
    void scale_and_filter() {
        const NativeImage small = textured_u8(30, 20);
        write(tmp("s8.png"), small);
        write(tmp("s16.png"), times_257(small));
        Result r = run_cli({"scale", tmp("s8.png"), tmp("so8.png"), "--width", "47", "--height",
                            "13", "--method", "nearest", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        r = run_cli({"scale", tmp("s16.png"), tmp("so16.pgm"), "--width", "47", "--height", "13",
                     "--method", "nearest"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        verify_times_257(read_page(tmp("so8.png")), read_page(tmp("so16.pgm")));
        // Interpolation resamples the stored samples (as ImageJ): the ×257 copy lands within
        // half an 8-bit level × 257 of 257 × the photo's result, in 16 bits.
        for (const char* method : {"bilinear", "bicubic", "bspline"}) {
            r = run_cli({"scale", tmp("s8.png"), tmp("si8.png"), "--width", "47", "--height", "13",
                         "--method", method, "--backend", "cpu"});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            r = run_cli({"scale", tmp("s16.png"), tmp("si16.png"), "--width", "47", "--height",
                         "13", "--method", method, "--json"});
            QVERIFY2(r.status == 0, qPrintable(r.err));
            QVERIFY2(r.out.contains("\"arithmetic\":\"float\""), qPrintable(r.out));
            const NativeImage eight = read_page(tmp("si8.png")), deep = read_page(tmp("si16.png"));
            QCOMPARE(deep.format(), (PixelFormat{SampleType::U16, 1}));
            double worst = 0;
            for (int y = 0; y < deep.height(); ++y)
                for (int x = 0; x < deep.width(); ++x)
                    worst = std::max(
                        worst, std::abs(deep.sample(x, y, 0) - 257.0 * eight.sample(x, y, 0)));
            QVERIFY2(worst <= 129, qPrintable(QString("%1: %2").arg(method).arg(worst)));
        }
    }

    // The bilateral filter keeps the data: an 8-bit RGB image (the photo path) and its ×257
    // 16-bit copy with --sigma-range × 257 land within 129 (half an 8-bit level × 257) of 257 ×
    // the photo's result, written as 16-bit; --sigma-range is required for a measurement;
    // --backend cuda says in one line that it runs on the CPU. (RGB, because a grey photo is
    // R = G = B to the photo filter, whose distance is then 3 |d|, where a grey measurement's is
    // |d|.)
    void filter_x257_copy_filters_alike() {
        const NativeImage grey = textured_u8(30, 20);
        NativeImage small(30, 20, {SampleType::U8, 3});
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 30; ++x)
                for (int c = 0; c < 3; ++c)
                    small.set_sample(x, y, c,
                                     c == 0 ? grey.sample(x, y, 0)
                                            : grey.sample((x + 5 * c) % 30, (y + 3 * c) % 20, 0));
        write(tmp("f8.png"), small);
        write(tmp("f16.png"), times_257(small));
        Result r = run_cli({"filter", "bilateral", tmp("f8.png"), tmp("fo8.png"), "--sigma-range",
                            "25", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        r = run_cli({"filter", "bilateral", tmp("f16.png"), tmp("fo16.png"), "--sigma-range",
                     QString::number(25 * 257), "--backend", "cuda", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("runs on the CPU"), qPrintable(r.err));
        const QJsonObject report = json_object(r);
        QCOMPARE(report["sample_type"].toString(), QString("u16"));
        QCOMPARE(report["written_sample_type"].toString(), QString("u16"));
        QCOMPARE(report["sigma_range_unit"].toString(), QString("stored samples"));
        const NativeImage eight = read_page(tmp("fo8.png")), deep = read_page(tmp("fo16.png"));
        QCOMPARE(deep.format(), (PixelFormat{SampleType::U16, 3}));
        QCOMPARE(eight.channels(), 3);
        double worst = 0;
        QString where;
        int changed = 0;
        for (int y = 0; y < deep.height(); ++y)
            for (int x = 0; x < deep.width(); ++x)
                for (int c = 0; c < 3; ++c) {
                    const double d = std::abs(deep.sample(x, y, c) - 257.0 * eight.sample(x, y, c));
                    if (d > worst)
                        where = QString("%1,%2 c%3: %4 vs 257 × %5")
                                    .arg(x)
                                    .arg(y)
                                    .arg(c)
                                    .arg(deep.sample(x, y, c))
                                    .arg(eight.sample(x, y, c));
                    worst = std::max(worst, d);
                    changed += deep.sample(x, y, c) != 257 * small.sample(x, y, c) ? 1 : 0;
                }
        QVERIFY2(worst <= 129, qPrintable(QString("worst %1 at %2").arg(worst).arg(where)));
        QVERIFY(changed > 100);  // it did filter
        r = run_cli({"filter", "bilateral", tmp("f16.png"), tmp("x.png")});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "give --sigma-range in its unit (stored samples)");
        QVERIFY(!QFile::exists(tmp("x.png")));
        r = run_cli({"filter", "bilateral", tmp("f16.png"), tmp("x.png"), "--sigma-range", "0"});
        verify_one_error_line(r, "range sigma");
        QVERIFY(!QFile::exists(tmp("x.png")));
    }

    // A calibrated float TIFF (kelvin, 0.25 mm pixels) with NaN holes: filtered in K, written
    // as float TIFF with its calibration and spacing, NaN where it was NaN, the flat part kept.
    void filter_keeps_float_nan_calibration_and_spacing() {
        NativeImage field(26, 18, {SampleType::F32, 1});
        for (int y = 0; y < 18; ++y)
            for (int x = 0; x < 26; ++x)
                field.set_sample(x, y, 0, (x < 13 ? 10.0 : 20.0) + 0.5 * ((x * 7 + y * 3) % 5));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        field.samples<float>(4)[5] = nan;
        field.samples<float>(9)[13] = nan;
        const Calibration kelvin{2.0, 273.15, "K"};  // value = 2 · sample + 273.15 K
        const PixelSpacing spacing{0.25, 0.25, "mm"};
        io::WriteOptions options;
        options.calibration = &kelvin;
        options.spacing = &spacing;
        io::write_native(tmp("k.tiff").toStdString(), field, options);
        const Result r = run_cli({"filter", "bilateral", tmp("k.tiff"), tmp("k-out.tiff"),
                                  "--sigma-range", "6", "--sigma-space", "2", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));  // nothing narrowed, nothing left out
        QCOMPARE(json_object(r)["sigma_range_unit"].toString(), QString("K"));
        QCOMPARE(json_object(r)["sample_type"].toString(), QString("f32"));
        const io::LoadedNative back = io::read_native(tmp("k-out.tiff").toStdString());
        QCOMPARE(back.calibration, kelvin);
        QCOMPARE(back.spacing, spacing);
        const NativeImage& out = back.pages.at(0);
        QCOMPARE(out.format(), field.format());
        // The step of 10 samples is 20 K, 3.3 σr: each side stays within its own values (the
        // far side weighs exp(-5.6) ≈ 0.004). Were σr taken in stored samples (the slope of 2
        // ignored), the step would be 1.7 σr, weigh 0.25 and pull the sides 2 samples towards
        // each other. NaN stays NaN and weighs nothing.
        for (int y = 0; y < 18; ++y)
            for (int x = 0; x < 26; ++x) {
                const double v = out.sample(x, y, 0);
                if (std::isnan(field.sample(x, y, 0))) {
                    QVERIFY(std::isnan(v));
                    continue;
                }
                QVERIFY2(x < 13 ? (v >= 10 && v <= 12.3) : (v >= 19.7 && v <= 22),
                         qPrintable(QString("%1,%2: %3").arg(x).arg(y).arg(v)));
            }
        // The ripple (≤ 2 samples, 4 K, within one σr) averages out.
        double spread = 0;
        for (int x = 1; x < 12; ++x)
            spread = std::max(spread, std::abs(out.sample(x, 12, 0) - out.sample(x - 1, 12, 0)));
        QVERIFY2(spread < 0.6, qPrintable(QString("spread %1").arg(spread)));
    }

    // A CT slice (signed 16-bit, HU): filtered with σr in HU, written as signed 16-bit TIFF in
    // HU with its pixel spacing.
    void filter_a_ct_slice_in_hu() {
        const QString ct = "/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm";
        if (!QFile::exists(ct)) QSKIP("python3-pydicom's test files are not installed");
        if (!test::dicom_ready()) QSKIP("this build has no DICOM support (GDCM)");
        const io::LoadedNative dicom = io::read_native(ct.toStdString());
        const Result r =
            run_cli({"filter", "bilateral", ct, tmp("ct-f.tiff"), "--sigma-range", "40", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(json_object(r)["sigma_range_unit"].toString(), QString("HU"));
        const io::LoadedNative back = io::read_native(tmp("ct-f.tiff").toStdString());
        QCOMPARE(back.calibration, dicom.calibration);
        QCOMPARE(back.spacing, dicom.spacing);
        QCOMPARE(back.pages.at(0).sample_type(), dicom.pages.at(0).sample_type());
        QVERIFY(!(back.pages.at(0) == dicom.pages.at(0)));
    }

    // Temporal smoothing works on 8-bit frames: a 16-bit PNG sequence and a float TIFF stack
    // are refused in one line (never narrowed), and nothing is written.
    void temporal_refuses_deep_frames() {
        QDir(dir_.path()).mkpath("seq");
        for (int i = 0; i < 3; ++i)
            write(tmp(QString("seq/f%1.png").arg(i, 5, 10, QChar('0'))),
                  times_257(textured_u8(16, 12)));
        Result r = run_cli(
            {"filter", "temporal", tmp("seq/f%05d.png"), tmp("seq/o%05d.png"), "--size", "3"});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "holds 16-bit frames: temporal smoothing works on 8-bit frames");
        QVERIFY(!QFile::exists(tmp("seq/o00000.png")));
        std::vector<cv::Mat> pages;
        for (int k = 0; k < 3; ++k) pages.emplace_back(6, 8, CV_32FC1, cv::Scalar(10.0 * k + 0.5));
        QVERIFY(cv::imwritemulti(tmp("stack.tiff").toStdString(), pages));
        r = run_cli({"filter", "temporal", tmp("stack.tiff"), tmp("stack-out.tiff")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "is a stack of 3 32-bit float grey pages");
        QVERIFY(!QFile::exists(tmp("stack-out.tiff")));
    }

    // batch runs the commands themselves: a folder of 16-bit files gives 16-bit results.
    void batch_keeps_sixteen_bits() {
        QDir(dir_.path()).mkpath("in");
        write(tmp("in/one.png"), times_257(textured_u8(32, 24)));
        const Result r = run_cli({"batch", "retarget", "--input", tmp("in"), "--output", tmp("out"),
                                  "--width", "50%", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err + r.out));
        const NativeImage out = read_page(tmp("out/one.png"));
        QCOMPARE(out.format(), (PixelFormat{SampleType::U16, 1}));
        QCOMPARE(out.width(), 16);
    }

    // Calibration travels: a real CT slice (pydicom's CT_small.dcm, HU) converted
    // to TIFF, and retargeted to TIFF, reads in HU again, here and in ImageJ (its description).
    void calibration_travels_through_tiff() {
        const QString ct = "/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm";
        if (!QFile::exists(ct)) QSKIP("python3-pydicom's test files are not installed");
        if (!test::dicom_ready()) QSKIP("this build has no DICOM support (GDCM)");
        const io::LoadedNative dicom = io::read_native(ct.toStdString());
        QCOMPARE(dicom.calibration.unit, std::string("HU"));
        Result r = run_cli({"convert", ct, tmp("ct.tiff")});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains("not written"), qPrintable(r.err));
        const io::LoadedNative back = io::read_native(tmp("ct.tiff").toStdString());
        QCOMPARE(back.calibration, dicom.calibration);
        // The same values in HU: every stored sample kept (as float, TIFF's type for signed).
        const NativeImage& a = dicom.pages.at(0);
        const NativeImage& b = back.pages.at(0);
        QCOMPARE(b.width(), a.width());
        int differing = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x)
                differing += a.sample(x, y, 0) != b.sample(x, y, 0) ? 1 : 0;
        QCOMPARE(differing, 0);
        r = run_cli({"info", "--json", tmp("ct.tiff")});
        const QJsonObject info = QJsonDocument::fromJson(r.out.toUtf8()).array().at(0).toObject();
        QCOMPARE(info["unit"].toString(), QString("HU"));
        QCOMPARE(info["calibration_intercept"].toDouble(), dicom.calibration.intercept);
        // A command writing a measurement carries it too.
        r = run_cli({"retarget", ct, tmp("ct-narrow.tiff"), "--width", "100", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(io::read_native(tmp("ct-narrow.tiff").toStdString()).calibration,
                 dicom.calibration);
        // Where the format carries none, one line says so.
        r = run_cli({"retarget", ct, tmp("ct-narrow.png"), "--width", "100", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("is not written: PNG files carry none"), qPrintable(r.err));
    }

    // Physical units: the spacing each kind of file states, carried through TIFF,
    // and the line's length and distances in that unit, anisotropic spacing measured in
    // physical space.
    void spacing_from_dicom() {
        const QString ct = "/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm";
        if (!QFile::exists(ct)) QSKIP("python3-pydicom's test files are not installed");
        if (!test::dicom_ready()) QSKIP("this build has no DICOM support (GDCM)");
        const io::LoadedNative dicom = io::read_native(ct.toStdString());
        // CT_small.dcm: PixelSpacing 0.661468\0.661468.
        QCOMPARE(dicom.spacing, (PixelSpacing{0.661468, 0.661468, "mm"}));
        // Through convert to TIFF and back.
        Result r = run_cli({"convert", ct, tmp("sp.tiff")});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const io::LoadedNative back = io::read_native(tmp("sp.tiff").toStdString());
        QCOMPARE(back.spacing.unit, std::string("mm"));
        QCOMPARE(back.spacing, dicom.spacing);  // exactly
        r = run_cli({"convert", ct, tmp("sp.png")});
        QVERIFY2(r.err.contains("pixel spacing (0.661468 mm) is not written"), qPrintable(r.err));
        // A 3-4-5 line: 5 pixels is 5 × 0.661468 mm.
        r = run_cli({"histogram", ct, "--from", "10,10", "--to", "40,50", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject o = json_object(r);
        QCOMPARE(o["length"].toDouble(), 50.0);
        QCOMPARE(o["length_physical"].toDouble(), 33.0734);  // 6 significant digits
        QCOMPARE(o["spacing_unit"].toString(), QString("mm"));
    }

    // A TIFF with an anisotropic ImageJ scale (0.5 mm across, 2 mm down): a diagonal line's
    // length and positions are measured in physical space; scaling changes the pixel size.
    void anisotropic_spacing_in_tiff() {
        NativeImage img(40, 50, {SampleType::U16, 1});
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 40; ++x) img.set_sample(x, y, 0, 100 * x + y);
        const PixelSpacing spacing{0.5, 2.0, "mm"};
        io::WriteOptions options;
        options.spacing = &spacing;
        io::write_native(tmp("aniso.tiff").toStdString(), img, options);
        QCOMPARE(io::read_native(tmp("aniso.tiff").toStdString()).spacing, spacing);
        Result r = run_cli({"histogram", tmp("aniso.tiff"), "--from", "0,0", "--to", "30,40",
                            "--json", "--profile-csv", tmp("aniso.csv")});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject o = json_object(r);
        QCOMPARE(o["length"].toDouble(), 50.0);
        // √((30 · 0.5)² + (40 · 2)²) = √(225 + 6400), not 50 × anything.
        // (--json prints 6 significant digits.)
        QCOMPARE(o["length_physical"].toDouble(), 81.3941);
        QCOMPARE(o["pixel_spacing_x"].toDouble(), 0.5);
        QCOMPARE(o["pixel_spacing_y"].toDouble(), 2.0);
        QFile csv(tmp("aniso.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QStringList rows;
        for (const QString& l : lines)
            if (l.startsWith("# pixel spacing"))
                QVERIFY2(l.contains("0.5 \u00d7 2 mm"), qPrintable(l));
            else if (!l.startsWith('#'))
                rows.push_back(l);
        QVERIFY2(rows[0].startsWith("position,x,y,distance,distance_mm,channel"),
                 qPrintable(rows[0]));
        const QStringList last = rows.last().split(',');
        QVERIFY(std::abs(last[4].toDouble() - std::sqrt(6625.0)) < 1e-6);
        // Scaled to half the width: each pixel is twice as wide.
        r = run_cli({"scale", tmp("aniso.tiff"), tmp("aniso-half.tiff"), "--width", "20",
                     "--height", "50", "--method", "nearest"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(io::read_native(tmp("aniso-half.tiff").toStdString()).spacing,
                 (PixelSpacing{1.0, 2.0, "mm"}));
    }

#if LACUNA_TEST_CFITSIO
    // FITS: CDELT in degrees on celestial axes gives arcsec; an unrotated CD matrix too; a
    // rotated one gives none (a distance would need the full WCS).
    void spacing_from_fits() {
        if (!test::fits_ready()) QSKIP("this build has no FITS support (CFITSIO)");
        const auto write = [&](const QString& name,
                               const std::vector<std::pair<const char*, double>>& keys) {
            test::FitsWriter writer(tmp(name).toStdString());
            writer.image(FLOAT_IMG, {8, 6}, {});
            writer.pixels(TFLOAT, std::vector<float>(48, 1.0f));
            writer.check();
            fitsfile* f = nullptr;
            int status = 0;
            fits_open_file(&f, tmp(name).toLocal8Bit().constData(), READWRITE, &status);
            char ra[] = "RA---TAN", dec[] = "DEC--TAN";
            fits_write_key(f, TSTRING, "CTYPE1", ra, "", &status);
            fits_write_key(f, TSTRING, "CTYPE2", dec, "", &status);
            for (const auto& [key, value] : keys) {
                double v = value;
                fits_write_key(f, TDOUBLE, key, &v, "", &status);
            }
            fits_close_file(f, &status);
            QCOMPARE(status, 0);
        };
        write("cdelt.fits", {{"CDELT1", -1.0 / 3600}, {"CDELT2", 2.0 / 3600}});
        PixelSpacing s = io::read_native(tmp("cdelt.fits").toStdString()).spacing;
        QCOMPARE(s.unit, std::string("arcsec"));
        QVERIFY(std::abs(s.x - 1.0) < 1e-9 && std::abs(s.y - 2.0) < 1e-9);
        write("cd.fits", {{"CD1_1", -0.5 / 3600}, {"CD2_2", 0.5 / 3600}, {"CD1_2", 0.0}});
        s = io::read_native(tmp("cd.fits").toStdString()).spacing;
        QVERIFY(s.known() && std::abs(s.x - 0.5) < 1e-9 && std::abs(s.y - 0.5) < 1e-9);
        write("rot.fits", {{"CD1_1", 1e-4}, {"CD2_2", 1e-4}, {"CD1_2", 3e-5}, {"CD2_1", -3e-5}});
        QVERIFY(!io::read_native(tmp("rot.fits").toStdString()).spacing.known());
        const Result r = run_cli({"info", tmp("cdelt.fits")});
        QVERIFY2(r.out.contains("pixel spacing: 1 \u00d7 2 arcsec"), qPrintable(r.out));
    }

    // Written FITS files carry the pixel size as CDELT/CUNIT (read here with CFITSIO), µm as
    // the standard's "um"; read back exactly through Lacuna.
    void spacing_written_in_fits() {
        if (!test::fits_ready()) QSKIP("this build has no FITS support (CFITSIO)");
        NativeImage img(8, 6, {SampleType::F32, 1});
        for (const PixelSpacing& spacing :
             {PixelSpacing{1.5, 3.0, "arcsec"}, PixelSpacing{0.25, 0.125, "\u00b5m"}}) {
            io::WriteOptions options;
            options.spacing = &spacing;
            const std::string path = tmp("spacing-out.fits").toStdString();
            io::write_native(path, img, options);
            QCOMPARE(io::read_native(path).spacing, spacing);
            fitsfile* f = nullptr;
            int status = 0;
            fits_open_file(&f, path.c_str(), READONLY, &status);
            double d1 = 0, d2 = 0;
            char u1[FLEN_VALUE] = {}, u2[FLEN_VALUE] = {};
            fits_read_key(f, TDOUBLE, "CDELT1", &d1, nullptr, &status);
            fits_read_key(f, TDOUBLE, "CDELT2", &d2, nullptr, &status);
            fits_read_key(f, TSTRING, "CUNIT1", u1, nullptr, &status);
            fits_read_key(f, TSTRING, "CUNIT2", u2, nullptr, &status);
            fits_close_file(f, &status);
            QCOMPARE(status, 0);
            QCOMPARE(d1, spacing.x);
            QCOMPARE(d2, spacing.y);
            const std::string unit = spacing.unit == "arcsec" ? "arcsec" : "um";
            QCOMPARE(std::string(u1), unit);
            QCOMPARE(std::string(u2), unit);
        }
    }
#endif

    // TIFF resolution in pixels per centimetre (as scanners and microscopes write it).
    void spacing_from_tiff_resolution() {
        cv::Mat grey(10, 10, CV_16UC1, cv::Scalar(1000));
        // 254 pixels per inch across (0.1 mm), 127 down (0.2 mm).
        QVERIFY(cv::imwrite(
            tmp("res.tiff").toStdString(), grey,
            {cv::IMWRITE_TIFF_RESUNIT, 2, cv::IMWRITE_TIFF_XDPI, 254, cv::IMWRITE_TIFF_YDPI, 127}));
        const PixelSpacing s = io::read_native(tmp("res.tiff").toStdString()).spacing;
        QCOMPARE(s.unit, std::string("mm"));
        QVERIFY2(std::abs(s.x - 0.1) < 1e-12 && std::abs(s.y - 0.2) < 1e-12,
                 qPrintable(QString::fromStdString(s.describe())));
    }

    // Written TIFFs carry the pixel size in the standard tags too (read here from the bytes,
    // not through Lacuna): a length as pixels per centimetre, another unit per pixel with
    // ResolutionUnit none and ImageJ's unit=; both read back exactly through Lacuna.
    void spacing_written_in_tiff_resolution() {
        NativeImage img(12, 9, {SampleType::F32, 1});
        for (const PixelSpacing& spacing :
             {PixelSpacing{0.5, 2.0, "mm"}, PixelSpacing{0.25, 0.125, "\u00b5m"},
              PixelSpacing{1.5, 3.0, "arcsec"}}) {
            io::WriteOptions options;
            options.spacing = &spacing;
            const std::string path = tmp("res-out.tiff").toStdString();
            io::write_native(path, img, options);
            QCOMPARE(io::read_native(path).spacing, spacing);
            QFile file(QString::fromStdString(path));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const TiffTags tags = first_ifd(file.readAll());
            const bool length = spacing.unit != "arcsec";
            const double per = spacing.unit == "mm" ? 0.1 : spacing.unit == "arcsec" ? 1 : 1e-4;
            QCOMPARE(tags.unit, length ? 3 : 1);
            QVERIFY2(std::abs(tags.x * spacing.x * per - 1) < 1e-6 &&
                         std::abs(tags.y * spacing.y * per - 1) < 1e-6,
                     qPrintable(QString("%1: %2 x %3")
                                    .arg(QString::fromStdString(spacing.unit))
                                    .arg(tags.x)
                                    .arg(tags.y)));
            QCOMPARE(tags.description.contains("unit=arcsec"), !length);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliMeasurement)
#include "test_cli_measurement.moc"
