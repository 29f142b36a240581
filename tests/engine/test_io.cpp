// Image files: round trips in every format, alpha, 16-bit conversion, measurement data, and
// every kind of bad input (each must give one clear error naming the file).
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/core/native_image.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "header_probe.hpp"
#include "image_test_util.hpp"

#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

ImageRgba8 test_pattern(const int w, const int h, const bool with_alpha) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) =
                Rgba8{std::uint8_t(x * 255 / (w - 1)), std::uint8_t(y * 255 / (h - 1)),
                      std::uint8_t((x * 7 + y * 3) % 256),
                      with_alpha ? std::uint8_t(1 + (x + y) % 255) : std::uint8_t(255)};
    return image;
}

std::vector<std::uint8_t> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

ErrorCode read_error(const fs::path& p, QString* message = nullptr) {
    try {
        (void)io::read_image(p);
    } catch (const Error& e) {
        if (message) *message = e.what();
        return e.code();
    }
    return ErrorCode::DeviceError;  // sentinel: no error was thrown
}

using test::mean_abs_diff;

fs::path sample_photo() {
    return fs::path(LACUNA_SOURCE_DIR) / "resources/sample/fruits.jpg";
}

}  // namespace

class TestIo : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tmp(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }

  private slots:
    // format_holds says in advance what write_native does: keeps the samples, or narrows them
    // to 8 bits with a notice. Checked against real writes, so the two cannot drift apart.
    void format_holds_matches_what_is_written() {
        QTemporaryDir dir;
        const struct {
            const char* ext;
            io::ImageFormat format;
        } formats[] = {{"png", io::ImageFormat::Png},  {"tif", io::ImageFormat::Tiff},
                       {"pgm", io::ImageFormat::Pgm},  {"pfm", io::ImageFormat::Pfm},
                       {"jpg", io::ImageFormat::Jpeg}, {"webp", io::ImageFormat::Webp}};
        int kept = 0, narrowed = 0;
        for (const auto& f : formats)
            for (const SampleType type : {SampleType::U16, SampleType::I16, SampleType::F32}) {
                NativeImage image(9, 7, {type, 1});
                for (int y = 0; y < 7; ++y)
                    for (int x = 0; x < 9; ++x) image.set_sample(x, y, 0, 100.0 * x + y);
                const std::string path = dir.filePath(QString("t.%1").arg(f.ext)).toStdString();
                const std::vector<std::string> notices = io::write_native(path, image);
                const io::LoadedNative back = io::read_native(path);
                const bool same = back.pages.front().sample_type() == type;
                QVERIFY2(io::format_holds(f.format, type, 1) == same,
                         qPrintable(QString("%1, sample type %2").arg(f.ext).arg(int(type))));
                QVERIFY(same || !notices.empty());  // narrowing is never silent
                (same ? kept : narrowed)++;
            }
        QVERIFY(kept >= 4 && narrowed >= 8);
        QVERIFY(io::format_holds(io::ImageFormat::Jpeg, SampleType::U8, 3));
        QVERIFY(!io::format_holds(io::ImageFormat::Pfm, SampleType::U8, 1));
    }

    void lossless_round_trips_with_alpha_data() {
        QFETCH(QString, name);
        QFETCH(bool, keeps_alpha);
        const ImageRgba8 original = test_pattern(37, 23, keeps_alpha);
        const fs::path path = tmp(name.toUtf8().constData());
        const auto notices = io::write_image(path, original.view());
        QVERIFY(notices.empty());
        const io::LoadedImage loaded = io::read_image(path);
        QCOMPARE(loaded.image.width(), 37);
        QCOMPARE(loaded.image.height(), 23);
        QCOMPARE(loaded.info.has_alpha, keeps_alpha);
        QVERIFY2(equal_pixels<Rgba8>(original.view(), loaded.image.view()), qPrintable(name));
    }
    void lossless_round_trips_with_alpha_data_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("keeps_alpha");
        QTest::newRow("png rgba") << "a.png" << true;
        QTest::newRow("tiff rgba") << "a.tiff" << true;
        QTest::newRow("webp lossless rgba") << "a.webp" << true;
        QTest::newRow("png opaque") << "o.png" << false;
        QTest::newRow("bmp") << "a.bmp" << false;
        QTest::newRow("ppm") << "a.ppm" << false;
        QTest::newRow("tif opaque") << "o.tif" << false;
    }

    // A grey JPEG is one channel as stored (it was reported, and converted, as RGB).
    void grey_jpeg_is_one_channel() {
        cv::Mat grey(6, 8, CV_8UC1);
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 8; ++x) grey.at<std::uint8_t>(y, x) = std::uint8_t(x * 20 + y * 5);
        std::vector<std::uint8_t> bytes;
        QVERIFY(cv::imencode(".jpg", grey, bytes, {cv::IMWRITE_JPEG_QUALITY, 100}));
        const io::LoadedNative loaded = io::decode_native(bytes, "grey.jpg");
        QCOMPARE(loaded.info.channels, 1);
        QCOMPARE(loaded.pages.at(0).channels(), 1);
        QVERIFY(std::abs(loaded.pages[0].sample(7, 5, 0) - (7 * 20 + 5 * 5)) <= 2);
        // The 8-bit view is grey too: R = G = B.
        const io::LoadedImage view = io::decode_image(bytes, "grey.jpg");
        QCOMPARE(view.info.channels, 1);
        QCOMPARE(int(view.image.at(3, 2).r), int(view.image.at(3, 2).b));
    }

    void pgm_round_trip_is_grey() {
        ImageRgba8 grey(16, 9);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 16; ++x) {
                const auto v = std::uint8_t(x * 16 + y);
                grey.at(x, y) = Rgba8{v, v, v, 255};
            }
        io::write_image(tmp("g.pgm"), grey.view());
        const io::LoadedImage loaded = io::read_image(tmp("g.pgm"));
        QCOMPARE(loaded.info.format, io::ImageFormat::Pgm);
        QCOMPARE(loaded.info.channels, 1);
        QVERIFY(equal_pixels<Rgba8>(grey.view(), loaded.image.view()));
    }

    void jpeg_round_trip_is_close() {
        const ImageRgba8 original = test_pattern(64, 48, false);
        io::write_image(tmp("a.jpg"), original.view());
        const io::LoadedImage loaded = io::read_image(tmp("a.jpg"));
        QCOMPARE(loaded.info.format, io::ImageFormat::Jpeg);
        const double diff = mean_abs_diff(original, loaded.image);
        QVERIFY2(diff < 3.0, qPrintable(QString::number(diff)));
    }

    void transparency_dropped_with_a_notice() {
        const ImageRgba8 original = test_pattern(8, 8, true);
        const auto notices = io::write_image(tmp("t.jpg"), original.view());
        QCOMPARE(notices.size(), std::size_t{1});
        QVERIFY(QString::fromStdString(notices[0]).contains("JPEG has no alpha"));
    }

    void pitched_source_is_written_correctly() {
        ImageRgba8 pitched(10, 6, RowPitch{10 * 4 + 24});
        const ImageRgba8 pattern = test_pattern(10, 6, true);
        copy_pixels<Rgba8>(pattern.view(), pitched.view());
        io::write_image(tmp("p.png"), pitched.view());
        QVERIFY(equal_pixels<Rgba8>(pattern.view(), io::read_image(tmp("p.png")).image.view()));
    }

    void real_photo_reads() {
        const io::LoadedImage photo = io::read_image(sample_photo());
        QCOMPARE(photo.image.width(), 512);
        QCOMPARE(photo.image.height(), 480);
        QCOMPARE(photo.info.format, io::ImageFormat::Jpeg);
        QCOMPARE(photo.image.at(0, 0).a, std::uint8_t(255));
        // Same pixels as OpenCV's own decoder (BGR order there).
        const cv::Mat ref = cv::imread(sample_photo().string(), cv::IMREAD_COLOR);
        const cv::Vec3b bgr = ref.at<cv::Vec3b>(240, 300);
        const Rgba8 ours = photo.image.at(300, 240);
        QCOMPARE(int(ours.r), int(bgr[2]));
        QCOMPARE(int(ours.g), int(bgr[1]));
        QCOMPARE(int(ours.b), int(bgr[0]));
    }

    void sixteen_bit_input_is_converted_with_notice() {
        cv::Mat deep(5, 7, CV_16UC3);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x)
                deep.at<cv::Vec3w>(y, x) = cv::Vec3w(ushort(x * 9000), ushort(y * 257 * 60), 65535);
        QVERIFY(cv::imwrite(tmp("deep.png").string(), deep));
        const io::LoadedImage loaded = io::read_image(tmp("deep.png"));
        QCOMPARE(loaded.info.bit_depth, 16);
        QCOMPARE(loaded.notices.size(), std::size_t{1});
        QVERIFY(QString::fromStdString(loaded.notices[0]).contains("16-bit"));
        QCOMPARE(int(loaded.image.at(3, 2).b), int(std::lround(27000 / 257.0)));  // B was x*9000
        QCOMPARE(int(loaded.image.at(3, 2).g), 120);                              // G was y*257*60
        QCOMPARE(int(loaded.image.at(3, 2).r), 255);
    }

    void convert_keeps_sixteen_bit_and_float_samples() {
        // 16-bit colour PNG → TIFF and 16-bit PPM: every sample exactly as stored.
        cv::Mat deep(5, 7, CV_16UC3);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x)
                deep.at<cv::Vec3w>(y, x) =
                    cv::Vec3w(ushort(x * 9001 + 3), ushort(y * 12345 + 1), ushort(65535 - x * y));
        QVERIFY(cv::imwrite(tmp("deep16.png").string(), deep));
        for (const char* name : {"deep16.tiff", "deep16.ppm", "deep16-again.png"}) {
            const io::ConvertResult r = io::convert_image(tmp("deep16.png"), tmp(name));
            QCOMPARE(r.bit_depth, 16);
            QVERIFY(r.notices.empty());
            const cv::Mat back = cv::imread(tmp(name).string(), cv::IMREAD_UNCHANGED);
            QCOMPARE(back.type(), CV_16UC3);
            QCOMPARE(cv::norm(back, deep, cv::NORM_INF), 0.0);
        }
        // 16-bit grey → PGM keeps 16 bits.
        cv::Mat grey(3, 4, CV_16UC1);
        for (int i = 0; i < 12; ++i) grey.at<ushort>(i / 4, i % 4) = ushort(4095 - 300 * i);
        QVERIFY(cv::imwrite(tmp("ct12.png").string(), grey));
        QCOMPARE(io::convert_image(tmp("ct12.png"), tmp("ct12.pgm")).bit_depth, 16);
        QCOMPARE(cv::norm(cv::imread(tmp("ct12.pgm").string(), cv::IMREAD_UNCHANGED), grey,
                          cv::NORM_INF),
                 0.0);
        // Float TIFF → TIFF keeps the values, NaN included.
        cv::Mat field(3, 5, CV_32FC1);
        for (int i = 0; i < 15; ++i) field.at<float>(i / 5, i % 5) = 273.15f + 0.37f * float(i);
        field.at<float>(1, 2) = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(cv::imwrite(tmp("field.tiff").string(), field));
        QCOMPARE(io::convert_image(tmp("field.tiff"), tmp("field-copy.tif")).bit_depth, 32);
        const io::LoadedMeasurement m = io::read_measurement(tmp("field-copy.tif"));
        QCOMPARE(m.values.at(4, 2), 273.15f + 0.37f * 14.0f);
        QVERIFY(std::isnan(m.values.at(2, 1)));
        // A format that cannot hold the depth says so and writes 8 bits.
        const io::ConvertResult narrowed = io::convert_image(tmp("deep16.png"), tmp("deep.jpg"));
        QCOMPARE(narrowed.bit_depth, 8);
        bool said = false;
        for (const std::string& n : narrowed.notices)
            said = said || n.find("JPEG cannot hold 16-bit") != std::string::npos;
        QVERIFY(said);
        QVERIFY(!io::convert_image(tmp("field.tiff"), tmp("field.png")).notices.empty());
        QCOMPARE(cv::imread(tmp("field.png").string(), cv::IMREAD_UNCHANGED).depth(), CV_8U);
    }

    void read_native_keeps_type_channels_and_order() {
        // 16-bit RGB PNG: R, G, B in that order, every sample exact.
        cv::Mat deep(5, 7, CV_16UC3);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x)
                deep.at<cv::Vec3w>(y, x) =  // OpenCV order: B, G, R
                    cv::Vec3w(ushort(x * 9001 + 3), ushort(y * 12345 + 1), ushort(65535 - x * y));
        QVERIFY(cv::imwrite(tmp("n16.png").string(), deep));
        const io::LoadedNative n = io::read_native(tmp("n16.png"));
        QCOMPARE(n.pages.size(), std::size_t{1});
        const NativeImage& img = n.pages[0];
        QVERIFY(img.format() == (PixelFormat{SampleType::U16, 3}));
        QCOMPARE(n.info.sample, SampleType::U16);
        QCOMPARE(img.sample(6, 4, 0), double(65535 - 24));    // R
        QCOMPARE(img.sample(6, 4, 2), double(6 * 9001 + 3));  // B
        QCOMPARE(img.sample(3, 2, 1), double(2 * 12345 + 1));
        QVERIFY(n.calibration.identity());
        // Float TIFF keeps NaN and negatives; signed 16-bit TIFF keeps its sign.
        cv::Mat field(3, 5, CV_32FC1);
        for (int i = 0; i < 15; ++i) field.at<float>(i / 5, i % 5) = -40.5f + 17.25f * float(i);
        field.at<float>(2, 1) = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(cv::imwrite(tmp("nf.tiff").string(), field));
        const io::LoadedNative f = io::read_native(tmp("nf.tiff"));
        QVERIFY(f.pages[0].format() == (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(f.pages[0].sample(4, 2, 0), -40.5 + 17.25 * 14);
        QVERIFY(std::isnan(f.pages[0].sample(1, 2, 0)));
        cv::Mat ct(2, 3, CV_16SC1);
        for (int i = 0; i < 6; ++i) ct.at<short>(i / 3, i % 3) = short(-1024 + 700 * i);
        QVERIFY(cv::imwrite(tmp("ns.tiff").string(), ct));
        const io::LoadedNative s16 = io::read_native(tmp("ns.tiff"));
        QVERIFY(s16.pages[0].format() == (PixelFormat{SampleType::I16, 1}));
        QCOMPARE(s16.pages[0].sample(0, 0, 0), -1024.0);
        QCOMPARE(s16.pages[0].sample(2, 1, 0), double(-1024 + 3500));
    }

    void multi_page_tiff_opens_as_a_stack() {
        std::vector<cv::Mat> pages;
        for (int k = 0; k < 3; ++k) pages.emplace_back(4, 6, CV_32FC1, cv::Scalar(10.0 * k + 0.5));
        QVERIFY(cv::imwritemulti(tmp("stack.tiff").string(), pages));
        const io::LoadedNative n = io::read_native(tmp("stack.tiff"));
        QCOMPARE(n.pages.size(), std::size_t{3});
        QCOMPARE(n.info.pages, 3);
        for (int k = 0; k < 3; ++k)
            QCOMPARE(n.pages[std::size_t(k)].sample(5, 3, 0), 10.0 * k + 0.5);
    }

    void write_native_round_trips_each_depth() {
        NativeImage grey16(7, 3, {SampleType::U16, 1});
        NativeImage rgb16(5, 4, {SampleType::U16, 3});
        NativeImage field(6, 5, {SampleType::F32, 1});
        NativeImage colour_field(3, 2, {SampleType::F32, 3});
        // 8-bit colour goes through the photo writer: as it is, not ÷ 257 (it once was).
        NativeImage rgb8(5, 4, {SampleType::U8, 3});
        NativeImage rgba8(5, 4, {SampleType::U8, 4});
        for (NativeImage* img : {&rgb8, &rgba8})
            for (int y = 0; y < img->height(); ++y)
                for (int x = 0; x < img->width(); ++x)
                    for (int c = 0; c < img->channels(); ++c)
                        img->set_sample(x, y, c, (37 * x + 11 * y + 50 * c + 20) % 256);
        for (NativeImage* img : {&grey16, &rgb16, &field, &colour_field})
            for (int y = 0; y < img->height(); ++y)
                for (int x = 0; x < img->width(); ++x)
                    for (int c = 0; c < img->channels(); ++c)
                        img->set_sample(x, y, c,
                                        img->sample_type() == SampleType::F32
                                            ? -3.75 + 1.5 * x + 100.25 * y + c * 0.125
                                            : 40000 + 997 * x - 1201 * y + 7 * c);
        field.set_sample(2, 3, 0, std::numeric_limits<double>::quiet_NaN());
        const std::vector<std::pair<const NativeImage*, const char*>> cases = {
            {&grey16, "g.png"},         {&grey16, "g.pgm"}, {&grey16, "g.tiff"},
            {&rgb16, "c.png"},          {&rgb16, "c.ppm"},  {&rgb16, "c.tif"},
            {&field, "f.tiff"},         {&field, "f.pfm"},  {&colour_field, "cf.pfm"},
            {&colour_field, "cf.tiff"}, {&rgb8, "c8.png"},  {&rgb8, "c8.tiff"},
            {&rgba8, "a8.png"},         {&rgba8, "a8.tiff"}};
        for (const auto& [img, name] : cases) {
            QVERIFY2(io::write_native(tmp(name), *img).empty(), name);
            const io::LoadedNative back = io::read_native(tmp(name));
            QVERIFY2(back.pages[0].format() == img->format(), name);
            for (int y = 0; y < img->height(); ++y)
                for (int x = 0; x < img->width(); ++x)
                    for (int c = 0; c < img->channels(); ++c) {
                        const double a = img->sample(x, y, c), b = back.pages[0].sample(x, y, c);
                        QVERIFY2(a == b || (std::isnan(a) && std::isnan(b)), name);
                    }
        }
        // JPEG cannot hold 16 bits: it says so and writes 8 bits; the float range is named.
        const std::vector<std::string> said = io::write_native(tmp("g.jpg"), grey16);
        QCOMPARE(said.size(), std::size_t{1});
        QVERIFY(said[0].find("JPEG cannot hold 16-bit grey samples") != std::string::npos);
        const std::vector<std::string> range = io::write_native(tmp("f.png"), field);
        QVERIFY(!range.empty() && range[0].find("mapped to 0 .. 255") != std::string::npos);
        QCOMPARE(io::read_native(tmp("f.png")).pages[0].sample_type(), SampleType::U8);
    }

    void truncated_native_files_are_named_errors() {
        NativeImage field(64, 48, {SampleType::F32, 1});
        NativeImage deep(64, 48, {SampleType::U16, 1});
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 64; ++x) {
                field.set_sample(x, y, 0, std::sin(x * 0.3) * 50 + y);
                deep.set_sample(x, y, 0, (x * 977 + y * 131) % 65536);
            }
        io::write_native(tmp("whole.pfm"), field);
        io::write_native(tmp("whole16.png"), deep);
        io::write_native(tmp("whole16.pgm"), deep);
        io::write_native(tmp("whole.tiff"), field);
        io::write_native(tmp("whole16.tiff"), deep);
        for (const char* name :
             {"whole.pfm", "whole16.png", "whole16.pgm", "whole.tiff", "whole16.tiff"}) {
            std::ifstream in(tmp(name), std::ios::binary);  // NOLINT
            std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
            const std::string cut = std::string("cut-") + name;
            std::ofstream(tmp(cut.c_str()), std::ios::binary).write(bytes.data(), bytes.size() / 2);
            try {
                io::read_native(tmp(cut.c_str()));
                QFAIL(qPrintable(QString("no error for ") + cut.c_str()));
            } catch (const Error& e) {
                QVERIFY2(e.code() == ErrorCode::Truncated || e.code() == ErrorCode::Corrupt,
                         e.what());
                QVERIFY2(std::string(e.what()).find(cut) != std::string::npos, e.what());
            }
        }
    }

    void measurement_keeps_values() {
        cv::Mat thermal(4, 6, CV_16UC1);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x)
                thermal.at<ushort>(y, x) = ushort(1000 + 2711 * (x + 6 * y));
        QVERIFY(cv::imwrite(tmp("thermal.png").string(), thermal));
        const io::LoadedMeasurement m = io::read_measurement(tmp("thermal.png"));
        QCOMPARE(m.values.at(5, 3), float(1000 + 2711 * 23));
        cv::Mat ct(3, 3, CV_32FC1);
        for (int i = 0; i < 9; ++i) ct.at<float>(i / 3, i % 3) = -1000.5f + 321.25f * float(i);
        QVERIFY(cv::imwrite(tmp("ct.tiff").string(), ct));
        const io::LoadedMeasurement c = io::read_measurement(tmp("ct.tiff"));
        QCOMPARE(c.info.bit_depth, 32);
        QCOMPARE(c.values.at(2, 2), -1000.5f + 321.25f * 8);
    }

    void missing_file() {
        QString msg;
        QCOMPARE(read_error(tmp("nope.png"), &msg), ErrorCode::NotFound);
        QVERIFY(msg.contains("nope.png") && msg.contains("no such file"));
    }

    void directory_is_unreadable() {
        fs::create_directory(tmp("folder.png"));
        QString msg;
        QCOMPARE(read_error(tmp("folder.png"), &msg), ErrorCode::Unreadable);
        QVERIFY(msg.contains("directory"));
    }

    void permission_denied_is_unreadable() {
        if (::geteuid() == 0) QSKIP("root can read files without permission bits");
        io::write_image(tmp("locked.png"), test_pattern(4, 4, false).view());
        ::chmod(tmp("locked.png").c_str(), 0);
        QCOMPARE(read_error(tmp("locked.png")), ErrorCode::Unreadable);
    }

    void empty_file() {
        write_bytes(tmp("empty.png"), {});
        QCOMPARE(read_error(tmp("empty.png")), ErrorCode::Corrupt);
    }

    void corrupt_png_body() {
        auto bytes = io::encode_image(test_pattern(40, 40, false).view(), io::ImageFormat::Png);
        for (std::size_t i = 40; i < bytes.size() - 20; ++i) bytes[i] = std::uint8_t(i * 31);
        write_bytes(tmp("corrupt.png"), bytes);
        QString msg;
        QCOMPARE(read_error(tmp("corrupt.png"), &msg), ErrorCode::Corrupt);
        QVERIFY(msg.contains("corrupt.png"));
    }

    void truncated_png_and_jpeg() {
        for (const auto format : {io::ImageFormat::Png, io::ImageFormat::Jpeg}) {
            auto bytes = io::encode_image(test_pattern(64, 64, false).view(), format);
            bytes.resize(bytes.size() / 2);
            const fs::path p = tmp(format == io::ImageFormat::Png ? "half.png" : "half.jpg");
            write_bytes(p, bytes);
            QString msg;
            QCOMPARE(read_error(p, &msg), ErrorCode::Truncated);
            QVERIFY(msg.contains("truncated"));
        }
        // A real photo cut short, too.
        auto photo = file_bytes(sample_photo());
        photo.resize(photo.size() * 3 / 4);
        write_bytes(tmp("photo-cut.jpg"), photo);
        QCOMPARE(read_error(tmp("photo-cut.jpg")), ErrorCode::Truncated);
    }

    void png_chunk_longer_than_the_file_is_refused_before_decoding() {
        // Regression (fuzz/fuzz_image_decode.cpp): a small PNG, still ending in IEND, with a text
        // chunk declaring 1 GB. libpng allocated and cleared the declared length before finding
        // the file too short: seconds and a gigabyte for a 400-byte file. The probe now sees the
        // chunk run past the end, so the file is Truncated without reaching the decoder.
        const auto png = io::encode_image(test_pattern(12, 9, false).view(), io::ImageFormat::Png);
        std::vector<std::uint8_t> bytes(png.begin(), png.end() - 12);  // up to IEND
        const std::uint8_t chunk[] = {0x3E, 0x00, 0x00, 0x21, 'i', 'T',
                                      'X',  't',  'D',  'e',  's', 'c'};
        bytes.insert(bytes.end(), std::begin(chunk), std::end(chunk));
        bytes.insert(bytes.end(), png.end() - 12, png.end());  // IEND
        write_bytes(tmp("huge-chunk.png"), bytes);
        QElapsedTimer timer;
        timer.start();
        QString msg;
        QCOMPARE(read_error(tmp("huge-chunk.png"), &msg), ErrorCode::Truncated);
        QVERIFY(msg.contains("truncated"));
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString("took %1 ms").arg(timer.elapsed())));
    }

    void pfm_with_an_absurd_size_is_too_large() {
        // Regression (fuzz/fuzz_image_decode.cpp): the probe multiplied the header's width and
        // height before checking them; 8888888888888 × 8888888888888 overflowed int64
        // (undefined behaviour, reported by the sanitizer build's UBSan).
        const std::string pfm = "Pf\n8888888888888 8888888888888\n-1.0\n" + std::string(16, '\0');
        write_bytes(tmp("absurd.pfm"), {pfm.begin(), pfm.end()});
        QCOMPARE(read_error(tmp("absurd.pfm")), ErrorCode::TooLarge);
    }

    void pfm_reads_both_byte_orders_bottom_row_first_divided_by_scale() {
        // A big-endian colour PFM (positive scale) with scale 2: every sample is its stored value
        // / 2, the file's first row is the image's bottom row, and R, G, B stay in that order.
        // Grey little-endian (negative scale) with tokens split by tabs and several spaces, as
        // the header probe reads them.
        const auto be32 = [](std::vector<std::uint8_t>& out, const float v) {
            std::uint32_t w = 0;
            std::memcpy(&w, &v, 4);
            for (int shift = 24; shift >= 0; shift -= 8)
                out.push_back(static_cast<std::uint8_t>(w >> shift));
        };
        const std::string head = "PF\n3 2\n2.0\n";
        std::vector<std::uint8_t> colour(head.begin(), head.end());
        for (int file_row = 0; file_row < 2; ++file_row)
            for (int x = 0; x < 3; ++x)
                for (int c = 0; c < 3; ++c) be32(colour, float(100 * c + 10 * file_row + x) + 0.5f);
        write_bytes(tmp("be.pfm"), colour);
        const io::LoadedNative n = io::read_native(tmp("be.pfm"));
        const NativeImage& img = n.pages[0];
        QVERIFY(img.format() == (PixelFormat{SampleType::F32, 3}));
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 3; ++x)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(img.sample(x, y, c), (100.0 * c + 10.0 * (1 - y) + x + 0.5) / 2);

        const std::string grey_head = "Pf\t2   1\n-1.0\n";
        std::vector<std::uint8_t> grey(grey_head.begin(), grey_head.end());
        for (const float v : {-3.25f, 7.5f}) {
            const auto* b = reinterpret_cast<const std::uint8_t*>(&v);  // this machine: LE
            grey.insert(grey.end(), b, b + 4);
        }
        write_bytes(tmp("le.pfm"), grey);
        const io::LoadedNative g = io::read_native(tmp("le.pfm"));
        QVERIFY(g.pages[0].format() == (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(g.pages[0].sample(0, 0, 0), -3.25);
        QCOMPARE(g.pages[0].sample(1, 0, 0), 7.5);
    }

    void pfm_is_written_from_memory_as_opencv_wrote_it() {
        // OpenCV's PFM encoder went through a temporary file: with the temporary folder missing,
        // writing failed with "(-215:Assertion failed) code in function 'imencode'". Lacuna's
        // writer needs none and writes the bytes OpenCV's did (checked against cv::imencode,
        // with a temporary folder that exists).
        NativeImage grey(7, 3, {SampleType::F32, 1});
        NativeImage colour(4, 5, {SampleType::F32, 3});
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 7; ++x) grey.set_sample(x, y, 0, -1.5 + 0.37 * x + 11.0 * y);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 4; ++x)
                for (int c = 0; c < 3; ++c) colour.set_sample(x, y, c, 0.01 * (c + 3 * x + 12 * y));
        std::vector<uchar> opencv_grey, opencv_colour;
        cv::Mat g(3, 7, CV_32FC1), bgr(5, 4, CV_32FC3);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 7; ++x) g.at<float>(y, x) = float(grey.sample(x, y, 0));
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 4; ++x)
                for (int c = 0; c < 3; ++c)
                    bgr.at<cv::Vec3f>(y, x)[2 - c] = float(colour.sample(x, y, c));
        QVERIFY(cv::imencode(".pfm", g, opencv_grey));
        QVERIFY(cv::imencode(".pfm", bgr, opencv_colour));

        const QByteArray saved = qgetenv("OPENCV_TEMP_PATH");
        qputenv("OPENCV_TEMP_PATH", QByteArray::fromStdString(tmp("no-such-folder").string()));
        QVERIFY(!fs::exists(tmp("no-such-folder")));
        (void)io::write_native(tmp("grey.pfm"), grey);
        (void)io::write_native(tmp("colour.pfm"), colour);
        qputenv("OPENCV_TEMP_PATH", saved);
        if (saved.isEmpty()) qunsetenv("OPENCV_TEMP_PATH");
        const std::vector<std::uint8_t> ours_grey = file_bytes(tmp("grey.pfm"));
        const std::vector<std::uint8_t> ours_colour = file_bytes(tmp("colour.pfm"));
        QVERIFY(
            std::equal(ours_grey.begin(), ours_grey.end(), opencv_grey.begin(), opencv_grey.end()));
        QVERIFY(std::equal(ours_colour.begin(), ours_colour.end(), opencv_colour.begin(),
                           opencv_colour.end()));
        // And they read back exactly.
        const NativeImage back = io::read_native(tmp("colour.pfm")).pages[0];
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 4; ++x)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(back.sample(x, y, c), double(float(colour.sample(x, y, c))));
    }

    void malformed_pfm_is_refused_in_one_line_and_leaves_no_temporary_file() {
        // OpenCV's PFM reader cannot read from memory: imdecode copied the bytes to a file in
        // OPENCV_TEMP_PATH (else /tmp) and left it there when the header it parsed gave a
        // height of 0 ("1\f 5": OpenCV reads one separator, the probe any run of them), and its
        // message ran over two lines. CI's fuzzing (fuzz/run.sh) left hundreds of them in /tmp.
        const fs::path temp_dir = tmp("opencv-temp");
        fs::create_directories(temp_dir);
        const QByteArray saved = qgetenv("OPENCV_TEMP_PATH");
        qputenv("OPENCV_TEMP_PATH", QByteArray::fromStdString(temp_dir.string()));
        struct Cases {
            const char* name;
            std::string bytes;
            std::optional<ErrorCode> code;  ///< none: the file reads
        };
        const std::vector<Cases> cases = {
            {"feed.pfm", std::string("Pf\n1\f 5\n-1.0\n") + std::string(20, '\0'), std::nullopt},
            {"scale.pfm",
             std::string("Pf\n1 5\n\x10"
                         "E\x80\xc0N1\n") +
                 std::string(20, '\0'),
             ErrorCode::Corrupt},
            {"zero-scale.pfm", "Pf\n1 1\n0\n" + std::string(4, '\0'), ErrorCode::Corrupt},
            {"short.pfm", "PF\n2 2\n-1\n" + std::string(40, '\0'), ErrorCode::Truncated},
        };
        for (const Cases& c : cases) {
            write_bytes(tmp(c.name), {c.bytes.begin(), c.bytes.end()});
            QString msg;
            const ErrorCode code = read_error(tmp(c.name), &msg);
            if (!c.code) {
                QCOMPARE(code, ErrorCode::DeviceError);  // the sentinel: it was read
            } else {
                QCOMPARE(code, *c.code);
                QVERIFY2(!msg.contains('\n'), qPrintable(msg));
                // Bytes of the file are not quoted into the message.
                for (const QChar ch : msg) QVERIFY2(ch.isPrint(), qPrintable(msg));
            }
        }
        const io::LoadedNative feed = io::read_native(tmp("feed.pfm"));
        QCOMPARE(feed.pages[0].height(), 5);
        qputenv("OPENCV_TEMP_PATH", saved);
        if (saved.isEmpty()) qunsetenv("OPENCV_TEMP_PATH");
        QString left;
        for (const fs::directory_entry& e : fs::directory_iterator(temp_dir))
            left += QString::fromStdString(e.path().filename().string()) + " ";
        QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left));
    }

    void deep_colour_with_alpha_keeps_its_depth_where_only_the_alpha_cannot_go() {
        // 16-bit RGBA to PPM and float RGBA to PFM: both formats hold the colour at that depth
        // but have no alpha. The alpha alone is dropped (with the notice 8-bit images get when
        // it is not opaque); the colour used to be narrowed to 8 bits with it.
        NativeImage u16(5, 3, {SampleType::U16, 4});
        NativeImage f32(5, 3, {SampleType::F32, 4});
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x)
                for (int c = 0; c < 3; ++c) {
                    u16.set_sample(x, y, c, 10007 * c + 1301 * x + 97 * y);
                    f32.set_sample(x, y, c, -2.5 + 0.125 * (c + 3 * x + 15 * y));
                }
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) {
                u16.set_sample(x, y, 3, x == 2 ? 30000 : 65535);  // one column half transparent
                f32.set_sample(x, y, 3, 1.0);                     // opaque
            }
        const std::vector<std::string> u16_notices = io::write_native(tmp("deep.ppm"), u16);
        const std::vector<std::string> f32_notices = io::write_native(tmp("deep.pfm"), f32);
        const NativeImage ppm = io::read_native(tmp("deep.ppm")).pages[0];
        const NativeImage pfm = io::read_native(tmp("deep.pfm")).pages[0];
        QVERIFY(ppm.format() == (PixelFormat{SampleType::U16, 3}));
        QVERIFY(pfm.format() == (PixelFormat{SampleType::F32, 3}));
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x)
                for (int c = 0; c < 3; ++c) {
                    QCOMPARE(ppm.sample(x, y, c), u16.sample(x, y, c));
                    QCOMPARE(pfm.sample(x, y, c), f32.sample(x, y, c));
                }
        const auto says = [](const std::vector<std::string>& notices, const std::string& what) {
            return std::any_of(notices.begin(), notices.end(),
                               [&](const std::string& n) { return n.find(what) != n.npos; });
        };
        QVERIFY(says(u16_notices, "transparency dropped: PPM has no alpha channel"));
        QVERIFY(!says(f32_notices, "transparency dropped"));
        QVERIFY(!says(u16_notices, "8 bits") && !says(f32_notices, "8 bits"));
    }

    void malformed_pnm_headers_are_refused_before_decoding() {
        // Regressions (fuzz/fuzz_mask_load.cpp, fuzz/fuzz_image_decode.cpp): a PFM header whose
        // numbers the probe could not read went to OpenCV, which read it its own way and
        // allocated 2.9 GB; "P55" followed by a DICOM marker at 128 was passed by OpenCV to GDCM,
        // which aborts the process on a malformed file.
        const std::string pfm = std::string("Pf\n611111\x10") + "8400276 0\n1209\n";
        write_bytes(tmp("malformed.pfm"), {pfm.begin(), pfm.end()});
        QString msg;
        QCOMPARE(read_error(tmp("malformed.pfm"), &msg), ErrorCode::Corrupt);
        QVERIFY2(msg.contains("no width and height"), qPrintable(msg));

        std::vector<std::uint8_t> p55(200, 0);
        std::memcpy(p55.data(), "P55", 3);
        std::memcpy(p55.data() + 128, "DICM\x02\x00\x77\x00\x00\x00UL", 12);
        write_bytes(tmp("p55.pgm"), p55);
        const ErrorCode code = read_error(tmp("p55.pgm"));
        QVERIFY(code == ErrorCode::Corrupt || code == ErrorCode::Truncated);
        // Well-formed headers still open, comments included.
        const std::string pgm = "P5 # comment\n2 1\n255\n\x10\x20";
        write_bytes(tmp("ok.pgm"), {pgm.begin(), pgm.end()});
        QCOMPARE(io::read_image(tmp("ok.pgm")).image.width(), 2);
    }

    void webp_without_a_vp8_chunk_is_refused_before_decoding() {
        // Regression (fuzz/fuzz_mask_load.cpp): "RIFF…WEBP" whose first chunk is not VP8, VP8L
        // or VP8X, with a DICOM marker at 128. OpenCV's WebP reader does not take it, and OpenCV
        // gave it to GDCM, which took seconds. The fuzzer's input itself, as a file:
        const QByteArray found = [] {
            QFile f(QStringLiteral(
                LACUNA_SOURCE_DIR "/fuzz/corpus/fuzz_mask_load/regression-webp-dicm-gdcm-timeout"));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(found.size() > 132);
        // The harness reads a 4-byte mask size first; the file starts after it.
        write_bytes(tmp("found.webp"), {found.begin() + 4, found.end()});
        QElapsedTimer timer;
        timer.start();
        QString msg;
        QCOMPARE(read_error(tmp("found.webp"), &msg), ErrorCode::Corrupt);
        // The DICM marker at 128 decides before any signature at 0 (PS3.10 lets a DICOM
        // preamble hold another format's header): Lacuna's own DICOM walker refuses
        // the file before GDCM sees it.
        QVERIFY2(msg.contains("DICOM file is corrupt"), qPrintable(msg));
        QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed())));
        // A real WebP (VP8L, lossless) still opens.
        ImageRgba8 small(5, 3, Rgba8{10, 200, 30, 255});
        io::write_image(tmp("ok.webp"), small.view());
        QCOMPARE(io::read_image(tmp("ok.webp")).image.width(), 5);
    }

    void jpeg_size_after_stray_bytes_is_refused_before_decoding() {
        // Regression (fuzz/fuzz_mask_load.cpp): stray bytes between JPEG segments, then a frame
        // header declaring 15628x60681 pixels. libjpeg skips the stray bytes and reads the size;
        // the probe stopped at them, so OpenCV allocated 2.8 GB before the size was checked.
        const QByteArray found = [] {
            QFile f(QStringLiteral(
                LACUNA_SOURCE_DIR
                "/fuzz/corpus/fuzz_mask_load/regression-jpeg-garbage-before-sof-oom"));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(found.size() > 400);
        // The second: fill bytes, then a stuffed zero ("FF 00", no marker) before the stray bytes.
        // The third: a frame header libjpeg finds where no marker walk does; its size now comes
        // from libjpeg itself.
        for (const char* name :
             {"regression-jpeg-garbage-before-sof-oom",
              "regression-jpeg-stuffed-zero-before-sof-oom", "regression-jpeg-tem-marker-oom"}) {
            QFile f(QStringLiteral(LACUNA_SOURCE_DIR "/fuzz/corpus/fuzz_mask_load/") + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray input = f.readAll();
            QVERIFY(input.size() > 400);
            write_bytes(tmp("stray.jpg"), {input.begin() + 4, input.end()});
            QString msg;
            QCOMPARE(read_error(tmp("stray.jpg"), &msg), ErrorCode::TooLarge);
            QVERIFY2(msg.contains("15628x60681"), qPrintable(msg));
            const auto probe = io::detail::probe_header({input.begin() + 4, input.end()});
            QCOMPARE(probe.width.value_or(0), 15628);
            QCOMPARE(probe.height.value_or(0), 60681);
        }
        // The same stray bytes in a small JPEG: it still opens, at its size.
        auto bytes = io::encode_image(test_pattern(6, 5, false).view(), io::ImageFormat::Jpeg);
        const std::size_t after_app0 = 4 + ((bytes[4] << 8) | bytes[5]);  // SOI, APP0
        bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(after_app0), {1, 2, 3, 4, 0, 7});
        write_bytes(tmp("stray-small.jpg"), bytes);
        QCOMPARE(io::detail::probe_header(bytes).width.value_or(0), 6);
        QCOMPARE(io::read_image(tmp("stray-small.jpg")).image.width(), 6);
    }

    void zero_size_image() {
        const std::string ppm = "P6\n0 0\n255\n";
        write_bytes(tmp("zero.ppm"), {ppm.begin(), ppm.end()});
        QString msg;
        QCOMPARE(read_error(tmp("zero.ppm"), &msg), ErrorCode::EmptyImage);
        QVERIFY(msg.contains("zero size"));
    }

    void oversized_dimensions_rejected_before_decoding() {
        // A valid PNG header that claims 40000 x 40000 pixels: refused from the header alone.
        auto bytes = io::encode_image(test_pattern(4, 4, false).view(), io::ImageFormat::Png);
        const std::uint32_t side = 40000;
        for (int i = 0; i < 4; ++i) {
            bytes[16 + i] = std::uint8_t(side >> (24 - 8 * i));
            bytes[20 + i] = std::uint8_t(side >> (24 - 8 * i));
        }
        write_bytes(tmp("huge.png"), bytes);
        QString msg;
        QCOMPARE(read_error(tmp("huge.png"), &msg), ErrorCode::TooLarge);
        QVERIFY(msg.contains("40000x40000"));
        const std::string ppm = "P5 33000 2 255\n";
        write_bytes(tmp("wide.pgm"), {ppm.begin(), ppm.end()});
        QCOMPARE(read_error(tmp("wide.pgm")), ErrorCode::TooLarge);
    }

    void gif_with_a_huge_logical_screen_is_refused_before_decoding() {
        // Found by fuzzing OpenImageIO (docs/notes/real-files.md), whose GIF reader throws
        // std::length_error out of ImageInput::open on it: a 51320 x 20600 logical screen. The
        // probe refuses it and the GIF decoder checks the screen again (red only without both).
        QString msg;
        QCOMPARE(read_error(LACUNA_SOURCE_DIR
                            "/fuzz/corpus/fuzz_image_decode/regression-gif-huge-screen-oiio-fuzz",
                            &msg),
                 ErrorCode::TooLarge);
        QVERIFY2(msg.contains("51320x20600"), qPrintable(msg));
    }

    void unsupported_formats() {
        const std::string psd = std::string("8BPS\x00\x01", 6) + std::string(20, '\0');
        write_bytes(tmp("layers.psd"), {psd.begin(), psd.end()});
        QString msg;
        QCOMPARE(read_error(tmp("layers.psd"), &msg), ErrorCode::UnsupportedFormat);
        QVERIFY(msg.contains("Photoshop PSD"));
        // GIF is read (giflib); one with a screen but no image is corrupt, and says so.
        const std::string gif("GIF89a\x01\x00\x01\x00\x00\x00\x00;", 14);
        write_bytes(tmp("empty.gif"), {gif.begin(), gif.end()});
        QCOMPARE(read_error(tmp("empty.gif"), &msg), ErrorCode::Corrupt);
        QVERIFY2(msg.contains("the GIF holds no image"), qPrintable(msg));
        const std::string text = "hello, this is not an image\n";
        write_bytes(tmp("notes.png"), {text.begin(), text.end()});
        QCOMPARE(read_error(tmp("notes.png")), ErrorCode::UnsupportedFormat);
        try {
            io::write_image(tmp("out.gif"), test_pattern(4, 4, false).view());
            QFAIL("writing .gif must fail");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::UnsupportedFormat);
        }
        QVERIFY(!fs::exists(tmp("out.gif")));
    }

    void write_is_atomic_and_failed_writes_keep_the_old_file() {
        const fs::path out = tmp("keep.png");
        io::write_image(out, test_pattern(5, 5, false).view());
        const auto before = file_bytes(out);
        // Encoding an empty image fails before anything touches the existing file.
        QVERIFY_THROWS_EXCEPTION(Error, io::write_image(out, ImageView<const Rgba8>{}));
        QCOMPARE(file_bytes(out), before);
        // A successful write replaces it, leaving no temporary files behind.
        io::write_image(out, test_pattern(6, 6, false).view());
        QCOMPARE(io::read_image(out).image.width(), 6);
        int entries = 0;
        for (const auto& e : fs::directory_iterator(dir_.path().toStdString())) {
            QVERIFY2(e.path().filename().string().find(".lacuna-") == std::string::npos,
                     qPrintable(QString::fromStdString(e.path().string())));
            ++entries;
        }
        QVERIFY(entries > 0);
    }

    void write_into_missing_directory_fails_clearly() {
        try {
            io::write_image(tmp("no/such/dir/x.png"), test_pattern(4, 4, false).view());
            QFAIL("must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::WriteFailed);
            QVERIFY(QString(e.what()).contains("does not exist"));
        }
    }

    void same_file_detects_links() {
        io::write_image(tmp("orig.png"), test_pattern(4, 4, false).view());
        fs::create_symlink(tmp("orig.png"), tmp("link.png"));
        QVERIFY(io::same_file(tmp("orig.png"), tmp("link.png")));
        QVERIFY(!io::same_file(tmp("orig.png"), tmp("other.png")));
    }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
