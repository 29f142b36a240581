// lacuna kymograph end to end: a dot moving 3 px a frame through a float TIFF stack, a FITS cube
// (calibrated, with a unit), a PNG sequence and an MP4 gives a line of slope 3 in the float TIFF
// and the CSV; a polyline with a band equals the engine's kymograph; the time axis carries the
// video's frame rate; bad input is refused without writing anything.
#include "cli_run.hpp"
#include "scientific_test_files.hpp"

#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/ops/kymograph.hpp>

#include <opencv2/imgcodecs.hpp>

#include <tiffio.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

using namespace lacuna;

namespace {

using Result = test::CliResult;
using test::run_cli;
using test::verify_one_error_line;

QJsonObject json_of(const Result& r) {
    return QJsonDocument::fromJson(r.out.trimmed().toUtf8()).object();
}

// The CSV's data lines (comments dropped), split at commas.
std::vector<QStringList> csv_rows(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    std::vector<QStringList> rows;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.isEmpty() && !line.startsWith('#')) rows.push_back(QString(line).split(','));
    return rows;
}

QString csv_comments(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QString text;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith('#')) text += QString(line) + "\n";
    return text;
}

ImageF32 read_float(const QString& path) {
    const io::LoadedNative file = io::read_native(path.toStdString());
    const NativeImage& image = file.pages.at(0);
    if (image.sample_type() != SampleType::F32 || image.channels() != 1) return {};
    return measurement_plane(image);
}

int argmax(const float* row, const int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (row[i] > row[best]) best = i;
    return best;
}

// The least-squares slope of the peak position over the frames.
double peak_slope(const ImageF32& k) {
    double st = 0, sx = 0, stt = 0, stx = 0;
    const double n = k.height();
    for (int t = 0; t < k.height(); ++t) {
        const double x = argmax(k.row(t), k.width());
        st += t;
        sx += x;
        stt += double(t) * t;
        stx += t * x;
    }
    return (n * stx - st * sx) / (n * stt - st * st);
}

constexpr int kW = 64, kH = 9, kFrames = 16, kRow = 4;
float dot_frame_value(const int x, const int t) {
    return x == 2 + 3 * t ? 7.5f : 1.25f;
}

}  // namespace

class TestCliKymograph : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tmp(const QString& name) const { return dir_.filePath(name); }

    // The float stack: a dot of 7.5 on 1.25 at (2 + 3t, 4) in page t.
    QString write_stack() const {
        std::vector<cv::Mat> pages;
        for (int t = 0; t < kFrames; ++t) {
            cv::Mat page(kH, kW, CV_32FC1, cv::Scalar(1.25));
            page.at<float>(kRow, 2 + 3 * t) = 7.5f;
            pages.push_back(page);
        }
        const QString path = tmp("dot.tif");
        if (!cv::imwritemulti(path.toStdString(), pages)) return {};
        return path;
    }

  private slots:
    void stack_gives_slope_three();
    void polyline_with_band_equals_the_engine();
    void fits_cube_is_calibrated();
    void video_frames_and_frame_rate();
    void backends_give_the_same_bits();
    void time_axis_from_the_file();
    void bad_input_is_refused();
    void histogram_regions_give_one_csv();
    void histogram_regions_refuse_bad_files();
    void histogram_regions_in_the_files_unit();
};

void TestCliKymograph::stack_gives_slope_three() {
    const QString stack = write_stack();
    QVERIFY(!stack.isEmpty());
    const Result r = run_cli(
        {"kymograph", stack, "--line", "0,4,63,4", tmp("k.tif"), "--csv", tmp("k.csv"), "--json"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    const QJsonObject o = json_of(r);
    QCOMPARE(o["positions"].toInt(), kW);
    QCOMPARE(o["frames"].toInt(), kFrames);
    QCOMPARE(o["length"].toDouble(), 63.0);
    QVERIFY(!o.contains("frame_interval_s"));
    const ImageF32 k = read_float(tmp("k.tif"));
    QCOMPARE(k.width(), kW);
    QCOMPARE(k.height(), kFrames);
    for (int t = 0; t < kFrames; ++t)
        for (int x = 0; x < kW; ++x) QCOMPARE(k.at(x, t), dot_frame_value(x, t));
    QCOMPARE(peak_slope(k), 3.0);
    // The CSV holds the same values: frame, then one column per position.
    const auto rows = csv_rows(tmp("k.csv"));
    QCOMPARE(int(rows.size()), kFrames + 1);
    QCOMPARE(rows[0][0], QString("frame"));
    QCOMPARE(rows[0][1], QString("p0"));
    for (int t = 0; t < kFrames; ++t) {
        QCOMPARE(rows[t + 1].size(), kW + 1);
        for (int x = 0; x < kW; ++x) QCOMPARE(rows[t + 1][x + 1].toFloat(), k.at(x, t));
    }
    QVERIFY(csv_comments(tmp("k.csv")).contains("frame interval unknown"));
    // A typed frame interval becomes the time column.
    const Result timed = run_cli({"kymograph", stack, "--line", "0,4,63,4", "--frame-interval",
                                  "0.5", "--csv", tmp("kt.csv"), "--json"});
    QCOMPARE(timed.status, 0);
    QCOMPARE(json_of(timed)["frame_interval_s"].toDouble(), 0.5);
    const auto timed_rows = csv_rows(tmp("kt.csv"));
    QCOMPARE(timed_rows[0][1], QString("time_s"));
    QCOMPARE(timed_rows[5][1].toDouble(), 2.0);  // frame 4
}

void TestCliKymograph::polyline_with_band_equals_the_engine() {
    const QString stack = write_stack();
    const Result r = run_cli({"kymograph", stack, "--polyline", "0,3,30,3,30.5,8.5,50,2.25",
                              "--band", "3", tmp("p.tif"), "--csv", tmp("p.csv"), "--json"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    std::vector<ImageF32> frames;
    for (int t = 0; t < kFrames; ++t) {
        ImageF32 f(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) f.at(x, y) = y == kRow ? dot_frame_value(x, t) : 1.25f;
        frames.push_back(std::move(f));
    }
    ops::KymographParams p;
    p.path = {{0, 3}, {30, 3}, {30.5, 8.5}, {50, 2.25}};
    p.band_width = 3;
    const ImageF32 expected = ops::kymograph_reference(frames, p);
    QCOMPARE(json_of(r)["positions"].toInt(), expected.width());
    QCOMPARE(json_of(r)["vertices"].toInt(), 4);
    const ImageF32 k = read_float(tmp("p.tif"));
    QCOMPARE(k.width(), expected.width());
    QCOMPARE(k.height(), kFrames);
    for (int t = 0; t < kFrames; ++t)
        for (int x = 0; x < k.width(); ++x) {
            const float a = k.at(x, t), b = expected.at(x, t);
            QVERIFY(a == b || (std::isnan(a) && std::isnan(b)));
        }
    // Along the first segment (y = 3, band y = 2..4) the dot weighs a third.
    QCOMPARE(k.at(2, 0), float((1.25 + 1.25 + 7.5) / 3));
    // The '#' lines give each position's place and distance along the path.
    const QString comments = csv_comments(tmp("p.csv"));
    QVERIFY2(comments.contains("# x (px): 0,1,2,"), qPrintable(comments));
    QVERIFY(comments.contains("# distance (px): 0,1,2,"));
    QVERIFY(comments.contains("polyline"));
}

void TestCliKymograph::fits_cube_is_calibrated() {
    SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
    // Stored samples s, value = 2 s + 10 kelvin; FITS rows run bottom-up (row 4 of 9 stays 4).
    {
        test::FitsWriter w(tmp("cube.fits").toStdString());
        test::FitsKeys keys;
        keys.bscale = 2.0;
        keys.bzero = 10.0;
        keys.bunit = "K";
        w.image(FLOAT_IMG, {kW, kH, kFrames}, keys);
        std::vector<float> values;
        for (int t = 0; t < kFrames; ++t)
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x) values.push_back(y == kRow && x == 2 + 3 * t ? 5 : 1);
        w.pixels(TFLOAT, values);
        w.check();
    }
    const Result r = run_cli({"kymograph", tmp("cube.fits"), "--line", "0,4,63,4", tmp("c.tif"),
                              "--csv", tmp("c.csv"), "--json"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QCOMPARE(json_of(r)["unit"].toString(), QString("K"));
    QCOMPARE(json_of(r)["frames"].toInt(), kFrames);
    const ImageF32 k = read_float(tmp("c.tif"));
    QCOMPARE(k.height(), kFrames);
    for (int t = 0; t < kFrames; ++t) {
        QCOMPARE(k.at(2 + 3 * t, t), 20.0f);
        QCOMPARE(k.at(t == 0 ? 3 : 0, t), 12.0f);
    }
    QCOMPARE(peak_slope(k), 3.0);
    QVERIFY(csv_comments(tmp("c.csv")).contains("unit K"));
#endif
}

void TestCliKymograph::video_frames_and_frame_rate() {
    // A bright 3×3 square moving 3 px a frame; PNG frames are lossless, MP4 is not.
    const auto frame = [](const int t) {
        ImageRgba8 f(64, 16, Rgba8{10, 10, 10, 255});
        for (int y = 7; y <= 9; ++y)
            for (int x = 4 + 3 * t - 1; x <= 4 + 3 * t + 1; ++x) f.at(x, y) = {200, 200, 200, 255};
        return f;
    };
    for (const QString& name : {QString("seq/%03d.png"), QString("clip.mp4")}) {
        QDir(dir_.path()).mkpath("seq");
        {
            io::VideoWriter w(tmp(name).toStdString(), 64, 16, 20.0);
            for (int t = 0; t < 18; ++t) w.write(frame(t));
            w.finish();
        }
        const Result r = run_cli({"kymograph", tmp(name), "--line", "0,8,63,8", tmp("v.tif"),
                                  "--csv", tmp("v.csv"), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject o = json_of(r);
        QCOMPARE(o["frames"].toInt(), 18);
        const ImageF32 k = read_float(tmp("v.tif"));
        QCOMPARE(k.height(), 18);
        if (name.endsWith(".png")) {
            QVERIFY(!o.contains("frame_interval_s"));  // a sequence has no rate of its own
            for (int t = 0; t < 18; ++t) {
                QCOMPARE(argmax(k.row(t), k.width()), 3 + 3 * t);  // the square's left column
                QCOMPARE(k.at(4 + 3 * t, t), 200.0f);
                QCOMPARE(k.at(4 + 3 * t + 2, t), 10.0f);
            }
            QCOMPARE(peak_slope(k), 3.0);
        } else {
            QCOMPARE(o["frame_interval_s"].toDouble(), 0.05);
            // Lossy: the peak is within the square, its centre's value near 200, and the
            // square's centroid (values above the background) moves 3 px a frame.
            double st = 0, sc = 0, stt = 0, stc = 0;
            for (int t = 0; t < 18; ++t) {
                QVERIFY(std::abs(argmax(k.row(t), k.width()) - (4 + 3 * t)) <= 1);
                QVERIFY(std::abs(k.at(4 + 3 * t, t) - 200.0f) < 20.0f);
                double mass = 0, moment = 0;
                for (int x = 0; x < k.width(); ++x) {
                    const double above = k.at(x, t) > 50.0f ? k.at(x, t) - 10.0 : 0.0;
                    mass += above;
                    moment += above * x;
                }
                const double c = moment / mass;
                QVERIFY(std::abs(c - (4 + 3 * t)) < 0.25);
                st += t;
                sc += c;
                stt += double(t) * t;
                stc += t * c;
            }
            const double slope = (18 * stc - st * sc) / (18 * stt - st * st);
            QVERIFY2(std::abs(slope - 3.0) < 0.02, qPrintable(QString::number(slope)));
            const auto rows = csv_rows(tmp("v.csv"));
            QCOMPARE(rows[0][1], QString("time_s"));
            QCOMPARE(rows[11][1].toDouble(), 0.5);  // frame 10 at 20 fps
            QVERIFY(csv_comments(tmp("v.csv")).contains("20 fps"));
        }
    }
}

// --backend cpu and --backend cuda write the same floats (the device kymograph equals the CPU
// reference bit for bit); where CUDA cannot run, --backend cuda is one error line and no file.
void TestCliKymograph::backends_give_the_same_bits() {
    const QString stack = write_stack();
    const QStringList args = {"kymograph", stack, "--polyline", "-2,3.5,30,1,50.5,8.25",
                              "--band",    "7",   "--json"};
    const Result cpu = run_cli(args + QStringList{tmp("cpu.tif"), "--backend", "cpu"});
    QVERIFY2(cpu.status == 0, qPrintable(cpu.err));
    QCOMPARE(json_of(cpu)["backend"].toString(), QString("cpu"));
    const bool device = run_cli({"backend", "--backend", "cuda"}).status == 0;
    const Result cuda = run_cli(args + QStringList{tmp("cuda.tif"), "--backend", "cuda"});
    if (!device) {
        QCOMPARE(cuda.status, 1);
        verify_one_error_line(cuda, "CUDA");
        QVERIFY(!QFile::exists(tmp("cuda.tif")));
        return;
    }
    QVERIFY2(cuda.status == 0, qPrintable(cuda.err));
    QCOMPARE(json_of(cuda)["backend"].toString(), QString("cuda"));
    const ImageF32 a = read_float(tmp("cpu.tif")), b = read_float(tmp("cuda.tif"));
    QCOMPARE(b.width(), a.width());
    QCOMPARE(b.height(), a.height());
    for (int t = 0; t < a.height(); ++t)
        for (int x = 0; x < a.width(); ++x) {
            const float u = a.at(x, t), v = b.at(x, t);
            QVERIFY2(std::isnan(u) ? std::isnan(v) : std::memcmp(&u, &v, sizeof u) == 0,
                     qPrintable(QString("frame %1 position %2").arg(t).arg(x)));
        }
}

// The time between pages as the file states it becomes the CSV's time column and the JSON's
// frame_interval_s: ImageJ's finterval in a TIFF stack, DICOM Frame Time, a FITS time axis;
// --frame-interval still overrides.
void TestCliKymograph::time_axis_from_the_file() {
    const auto check = [&](const QString& in, const double seconds, const QString& source) {
        const Result r =
            run_cli({"kymograph", in, "--line", "0,4,63,4", "--csv", tmp("time.csv"), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const QJsonObject o = json_of(r);
        QCOMPARE(o["frames"].toInt(), kFrames);
        QCOMPARE(o["frame_interval_s"].toDouble(), seconds);
        QVERIFY2(o["frame_interval_source"].toString().contains(source),
                 qPrintable(o["frame_interval_source"].toString()));
        const auto rows = csv_rows(tmp("time.csv"));
        QCOMPARE(rows[0][1], QString("time_s"));
        QCOMPARE(rows[5][1].toDouble(), 4 * seconds);  // frame 4
        QVERIFY(csv_comments(tmp("time.csv")).contains(source));
        // Typed, it wins.
        const Result typed = run_cli({"kymograph", in, "--line", "0,4,63,4", "--frame-interval",
                                      "2", "--csv", tmp("time2.csv"), "--json"});
        QCOMPARE(typed.status, 0);
        QCOMPARE(json_of(typed)["frame_interval_s"].toDouble(), 2.0);
        QVERIFY(json_of(typed)["frame_interval_source"].toString().contains("--frame-interval"));
        QCOMPARE(csv_rows(tmp("time2.csv"))[5][1].toDouble(), 8.0);
    };
    {
        // The float stack with ImageJ's description on its first page, as ImageJ writes a
        // time-lapse (libtiff directly: OpenCV writes no description).
        TIFF* t = TIFFOpen(tmp("timed.tif").toStdString().c_str(), "w");
        QVERIFY(t != nullptr);
        for (int page = 0; page < kFrames; ++page) {
            TIFFSetField(t, TIFFTAG_IMAGEWIDTH, kW);
            TIFFSetField(t, TIFFTAG_IMAGELENGTH, kH);
            TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
            TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
            TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
            TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
            TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, kH);
            if (page == 0)
                TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION,
                             "ImageJ=1.53t\nimages=16\nframes=16\nfinterval=250\ntunit=ms\n");
            for (int y = 0; y < kH; ++y) {
                std::vector<float> row(kW);
                for (int x = 0; x < kW; ++x)
                    row[std::size_t(x)] = y == kRow ? dot_frame_value(x, page) : 1.25f;
                TIFFWriteScanline(t, row.data(), std::uint32_t(y), 0);
            }
            TIFFWriteDirectory(t);
        }
        TIFFClose(t);
        QCOMPARE(int(io::read_native(tmp("timed.tif").toStdString()).pages.size()), kFrames);
        check(tmp("timed.tif"), 0.25, "ImageJ finterval=250 ms");
    }
#if LACUNA_TEST_GDCM
    if (test::dicom_ready()) {
        test::DicomSpec spec;
        spec.width = kW;
        spec.height = kH;
        spec.frames = kFrames;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        for (int t = 0; t < kFrames; ++t)
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x)
                    spec.pixels.push_back(char(y == kRow && x == 2 + 3 * t ? 200 : 10));
        spec.modality = "XA";
        spec.extra = {{gdcm::Tag(0x0018, 0x1063), gdcm::VR::DS, "40"}};
        const test::Bytes bytes = test::write_dicom(spec);
        QFile out(tmp("cine.dcm"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
        out.close();
        check(tmp("cine.dcm"), 0.04, "DICOM Frame Time 40 ms");
    }
#endif
#if LACUNA_TEST_CFITSIO
    if (test::fits_ready()) {
        {
            test::FitsWriter w(tmp("timed.fits").toStdString());
            test::FitsKeys keys;
            keys.numbers = {{"CDELT1", 0.5}, {"CDELT2", 0.5}, {"CDELT3", 50.0}};
            keys.strings = {
                {"CUNIT1", "mm"}, {"CUNIT2", "mm"}, {"CUNIT3", "ms"}, {"CTYPE3", "TIME"}};
            w.image(FLOAT_IMG, {kW, kH, kFrames}, keys);
            w.pixels(TFLOAT, std::vector<float>(std::size_t{kW} * kH * kFrames, 1.0f));
            w.check();
        }
        check(tmp("timed.fits"), 0.05, "FITS CDELT3 = 50 ms");
        // The pixel size gives the distances in mm beside those in pixels.
        const Result r = run_cli({"kymograph", tmp("timed.fits"), "--line", "0,4,63,4", "--csv",
                                  tmp("mm.csv"), "--json"});
        QCOMPARE(json_of(r)["spacing_unit"].toString(), QString("mm"));
        QCOMPARE(json_of(r)["length_in_unit"].toDouble(), 31.5);
        QVERIFY2(
            csv_comments(tmp("mm.csv")).contains("# distance (mm, pixel size 0.5 mm): 0,0.5,1,"),
            qPrintable(csv_comments(tmp("mm.csv"))));
    }
#endif
}

void TestCliKymograph::bad_input_is_refused() {
    const QString stack = write_stack();
    Result r = run_cli({"kymograph", stack, tmp("never.tif")});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("--line"), qPrintable(r.err));
    r = run_cli({"kymograph", stack, "--line", "0,4,63", tmp("never.tif")});
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.contains("x0,y0,x1,y1"));
    r = run_cli({"kymograph", stack, "--line", "5,4,5,4", tmp("never.tif")});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.contains("zero length"), qPrintable(r.err));
    r = run_cli({"kymograph", stack, "--line", "0,4,9,4", "--band", "0", tmp("never.tif")});
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.contains("--band"));
    r = run_cli(
        {"kymograph", stack, "--line", "0,4,9,4", "--frame-interval", "-1", tmp("never.tif")});
    QCOMPARE(r.status, 2);
    r = run_cli({"kymograph", tmp("missing.tif"), "--line", "0,4,9,4", tmp("never.tif")});
    QCOMPARE(r.status, 1);
    QVERIFY(!QFile::exists(tmp("never.tif")));
    const QByteArray before = [&] {
        QFile f(stack);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    r = run_cli({"kymograph", stack, "--line", "0,4,9,4", stack});
    QCOMPARE(r.status, 1);
    QVERIFY(r.err.contains("refusing to overwrite the input"));
    QFile f(stack);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), before);
}

namespace {
bool write_text(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
}  // namespace

void TestCliKymograph::histogram_regions_give_one_csv() {
    // value = x + 100 y: bilinear sampling reproduces it anywhere inside.
    cv::Mat plane(20, 40, CV_32FC1);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 40; ++x) plane.at<float>(y, x) = float(x + 100 * y);
    QVERIFY(cv::imwrite(tmp("ramp.tif").toStdString(), plane));
    QVERIFY(write_text(tmp("regions.json"), R"([
        {"name": "across", "type": "line", "points": [[0, 5], [10, 5]]},
        {"name": "bend", "type": "polyline", "points": [[0, 0], [5, 0], [5, 5]], "width": 3},
        {"name": "box", "type": "rectangle", "x": 2, "y": 3, "width": 4, "height": 3},
        {"name": "slanted", "type": "line", "points": [[3.5, 2.25], [30, 17]], "width": 5}
    ])"));
    const Result r = run_cli({"histogram", tmp("ramp.tif"), "--regions", tmp("regions.json"),
                              "--csv", tmp("regions.csv"), "--json"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    const QJsonObject o = json_of(r);
    QCOMPARE(o["mode"].toString(), QString("regions"));
    const QJsonArray list = o["regions"].toArray();
    QCOMPARE(list.size(), 4);
    QCOMPARE(list[1].toObject()["positions"].toInt(), 11);
    QCOMPARE(list[2].toObject()["band_width"].toInt(), 3);
    const auto rows = csv_rows(tmp("regions.csv"));
    QCOMPARE(rows[0].join(','), QString("region,type,position,x,y,distance,value"));
    std::map<QString, std::vector<QStringList>> by_name;
    for (std::size_t i = 1; i < rows.size(); ++i) by_name[rows[i][0]].push_back(rows[i]);
    QCOMPARE(int(by_name["across"].size()), 11);
    for (int i = 0; i <= 10; ++i) QCOMPARE(by_name["across"][i][6].toFloat(), float(i + 500));
    // The polyline's band of 3 across a ramp in x and y averages to the centre's value, except
    // where it leaves the image (y = -1 at the top: only two samples).
    QCOMPARE(int(by_name["bend"].size()), 11);
    QCOMPARE(by_name["bend"][8][6].toFloat(), float(5 + 100 * 3));
    QCOMPARE(by_name["bend"][2][6].toFloat(), float(2 + 100 * 0.5));
    // The rectangle: columns 2..5, each the mean of rows 3, 4, 5.
    QCOMPARE(int(by_name["box"].size()), 4);
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(by_name["box"][i][3].toDouble(), double(2 + i));
        QCOMPARE(by_name["box"][i][6].toFloat(), float(2 + i + 400));
    }
    // A line region's profile is the histogram's mean profile along the same line.
    const Result h = run_cli({"histogram", tmp("ramp.tif"), "--from", "3.5,2.25", "--to", "30,17",
                              "--width", "5", "--profile-csv", tmp("profile.csv"), "--json"});
    QVERIFY2(h.status == 0, qPrintable(h.err));
    const auto profile = csv_rows(tmp("profile.csv"));
    QCOMPARE(profile.size(), by_name["slanted"].size() + 1);
    for (std::size_t i = 0; i < by_name["slanted"].size(); ++i)
        QCOMPARE(by_name["slanted"][i][6], profile[i + 1][5]);
    QVERIFY(csv_comments(tmp("regions.csv")).contains("4 regions"));
}

void TestCliKymograph::histogram_regions_in_the_files_unit() {
    // An ImageJ TIFF with 0.5 × 2 mm pixels (XResolution 2, YResolution 0.5 a mm): the regions'
    // CSV gains a distance_mm column measured in physical space; the pixel columns stay.
    TIFF* t = TIFFOpen(tmp("scaled.tif").toStdString().c_str(), "w");
    QVERIFY(t != nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 40);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 50);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 50);
    TIFFSetField(t, TIFFTAG_XRESOLUTION, 2.0f);
    TIFFSetField(t, TIFFTAG_YRESOLUTION, 0.5f);
    TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
    TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION, "ImageJ=1.53t\nunit=mm\n");
    std::vector<float> row(40);
    for (int y = 0; y < 50; ++y) {
        for (int x = 0; x < 40; ++x) row[std::size_t(x)] = float(x + 100 * y);
        TIFFWriteScanline(t, row.data(), std::uint32_t(y), 0);
    }
    TIFFClose(t);
    QVERIFY(write_text(tmp("scaled.json"), R"([
        {"name": "diagonal", "type": "line", "points": [[0, 0], [30, 40]]},
        {"name": "bend", "type": "polyline", "points": [[0, 0], [10, 0], [10, 10]]}
    ])"));
    const Result r = run_cli({"histogram", tmp("scaled.tif"), "--regions", tmp("scaled.json"),
                              "--csv", tmp("scaled.csv"), "--json"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    const auto rows = csv_rows(tmp("scaled.csv"));
    QCOMPARE(rows[0].join(','), QString("region,type,position,x,y,distance,distance_mm,value"));
    QVERIFY(csv_comments(tmp("scaled.csv")).contains("# pixel spacing: 0.5 × 2 mm"));
    std::map<QString, std::vector<QStringList>> by_name;
    for (std::size_t i = 1; i < rows.size(); ++i) by_name[rows[i][0]].push_back(rows[i]);
    // The diagonal: 50 px, √(15² + 80²) mm, evenly along it.
    const std::vector<QStringList>& d = by_name["diagonal"];
    QCOMPARE(int(d.size()), 51);
    const double mm = std::sqrt(15.0 * 15.0 + 80.0 * 80.0);
    QCOMPARE(d.back()[5].toDouble(), 50.0);
    QVERIFY(std::abs(d.back()[6].toDouble() - mm) < 1e-6);  // 9 significant digits
    QVERIFY(std::abs(d[10][6].toDouble() - mm * 10 / 50) < 1e-6);
    QCOMPARE(d[10][7].toFloat(), float(6 + 100 * 8));  // value after the new column
    // The bend: 10 px across (5 mm), then 10 px down (20 mm).
    const std::vector<QStringList>& b = by_name["bend"];
    QCOMPARE(b[10][6].toDouble(), 5.0);
    QCOMPARE(b.back()[6].toDouble(), 25.0);
    QCOMPARE(b.back()[5].toDouble(), 20.0);
    const QJsonArray list = json_of(r)["regions"].toArray();
    QVERIFY(std::abs(list[0].toObject()["length_in_unit"].toDouble() - mm) < 1e-4);  // %.6g
    QCOMPARE(list[0].toObject()["spacing_unit"].toString(), QString("mm"));
}

void TestCliKymograph::histogram_regions_refuse_bad_files() {
    cv::Mat plane(8, 8, CV_32FC1, cv::Scalar(1));
    QVERIFY(cv::imwrite(tmp("flat.tif").toStdString(), plane));
    const auto refused = [&](const QByteArray& json, const QString& says) {
        if (!write_text(tmp("bad.json"), json)) return false;
        QFile::remove(tmp("bad.csv"));
        const Result r = run_cli(
            {"histogram", tmp("flat.tif"), "--regions", tmp("bad.json"), "--csv", tmp("bad.csv")});
        if (r.status != 1 || !r.err.contains(says) || QFile::exists(tmp("bad.csv"))) {
            qWarning("%s", qPrintable(r.err));
            return false;
        }
        return true;
    };
    QVERIFY(refused(R"([{"name": "a", "type": "line", "points": [[0, 0], [3, 3]]},)", "line 1"));
    QVERIFY(refused("{}", "list of regions"));
    QVERIFY(refused("[]", "no regions"));
    QVERIFY(refused(R"([{"name": "a", "type": "circle"}])", "line, polyline or rectangle"));
    QVERIFY(refused(R"([{"name": "a", "type": "line", "points": [[0, 0], [3, 3], [4, 4]]}])",
                    "a line has two points"));
    QVERIFY(refused(R"([{"name": "a", "type": "line", "points": [[0, 0], [3, 3]]},
                        {"name": "a", "type": "line", "points": [[0, 1], [3, 3]]}])",
                    "region 2 ('a'): the name is used twice"));
    QVERIFY(refused(R"([{"name": "r", "type": "rectangle", "x": 1, "y": 1, "width": 3}])",
                    "\"height\""));
    QVERIFY(
        refused(R"([{"name": "z", "type": "line", "points": [[2, 2], [2, 2]]}])", "zero length"));
    const Result r = run_cli(
        {"histogram", tmp("flat.tif"), "--regions", tmp("none.json"), "--csv", tmp("bad.csv")});
    QCOMPARE(r.status, 1);
    QVERIFY(r.err.contains("cannot read the regions file"));
}

QTEST_GUILESS_MAIN(TestCliKymograph)
#include "test_cli_kymograph.moc"
