// Metadata from open to save: the ICC profile, EXIF, XMP, IPTC and comment of
// a JPEG, PNG, TIFF or WebP survive a read and a write of an edited (narrower) image, with the
// EXIF orientation applied on opening and reset to 1 on saving, and the pixel dimensions of what
// was written. Files are made and checked with exiv2 directly (metadata_test_util.hpp).
#include "metadata_test_util.hpp"

#include "metadata_io.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/metadata.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest>

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

using test::kStoredH;
using test::kStoredW;
using test::stored_pixels;

bool holds_iptc(const QString& ext) {
    return ext != "webp";  // exiv2 0.27 has no IPTC for WebP
}

bool holds_comment(const QString& ext) {
    return ext == "jpg" || ext == "png";  // exiv2 0.27 writes no comment into TIFF or WebP
}

void make_photo(const fs::path& path, const std::vector<std::uint8_t>& icc,
                const test::KnownMetadata& known = {}) {
    test::make_test_photo(path, icc, known);
}

bool reddish(const Rgba8 p) {
    return p.r > 180 && p.g < 90 && p.b < 90;
}

std::vector<std::string> files_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// The iCCP chunk of a PNG, read as libpng would: a keyword of 1..79 Latin-1 characters, NUL,
// compression method 0, then a zlib stream holding the profile.
struct IccpChunk {
    std::string keyword;
    std::vector<std::uint8_t> profile;
};

std::optional<IccpChunk> png_iccp(const std::vector<std::uint8_t>& png) {
    for (std::size_t at = 8; at + 12 <= png.size();) {
        const std::size_t length = (std::size_t{png[at]} << 24) | (std::size_t{png[at + 1]} << 16) |
                                   (std::size_t{png[at + 2]} << 8) | png[at + 3];
        if (std::memcmp(&png[at + 4], "iCCP", 4) == 0) {
            const auto* data = &png[at + 8];
            IccpChunk chunk;
            chunk.keyword = reinterpret_cast<const char*>(data);
            const std::size_t header = chunk.keyword.size() + 2;
            if (data[header - 1] != 0) return std::nullopt;  // compression method
            chunk.profile.resize(1 << 20);
            uLongf size = static_cast<uLongf>(chunk.profile.size());
            if (uncompress(chunk.profile.data(), &size, data + header,
                           static_cast<uLong>(length - header)) != Z_OK)
                return std::nullopt;
            chunk.profile.resize(size);
            return chunk;
        }
        at += 12 + length;
    }
    return std::nullopt;
}

}  // namespace

class TestMetadata : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tmp(const std::string& name) const {
        return fs::path(dir_.path().toStdString()) / name;
    }
    // A fresh folder of its own (a failed row leaves its files behind).
    fs::path fresh_dir(const std::string& name) const {
        const fs::path d = tmp(name);
        fs::remove_all(d);
        fs::create_directory(d);
        return d;
    }
    const std::vector<std::uint8_t> icc_ = test::make_icc_profile("Lacuna Test RGB", 200);

  private slots:
    void round_trip_keeps_profile_and_tags_data() {
        QTest::addColumn<QString>("ext");
        for (const char* ext : {"jpg", "png", "tiff", "webp"}) QTest::newRow(ext) << ext;
    }

    // Open (orientation applied), narrow to 75 % as a retarget would, save with the metadata:
    // the profile is byte for byte the source's, the tags are kept, Orientation is 1 and the
    // pixel dimensions are the written image's.
    void round_trip_keeps_profile_and_tags() {
        QFETCH(QString, ext);
        const test::KnownMetadata known;
        const fs::path dir = fresh_dir("round-trip-" + ext.toStdString());
        const fs::path in = dir / ("in." + ext.toStdString());
        make_photo(in, icc_, known);

        const io::LoadedImage loaded = io::read_image(in);
        QVERIFY2(loaded.notices.empty(), loaded.notices.empty() ? "" : loaded.notices[0].c_str());
        QCOMPARE(loaded.image.width(), kStoredH);  // turned upright
        QCOMPARE(loaded.image.height(), kStoredW);
        QVERIFY(reddish(loaded.image.at(kStoredH - 2, 1)));  // stored top-left → top-right
        QVERIFY(!reddish(loaded.image.at(1, 1)));
        QVERIFY(loaded.metadata.orientation_applied);
        QVERIFY(loaded.metadata.icc == icc_);
        QVERIFY(!loaded.metadata.exif.empty());
        QVERIFY(!loaded.metadata.xmp.empty());
        QCOMPARE(!loaded.metadata.iptc.empty(), holds_iptc(ext));
        QCOMPARE(loaded.metadata.comment, holds_comment(ext) ? known.comment : std::string());

        const int width = loaded.image.width() * 3 / 4;  // 24
        ImageRgba8 narrower(width, loaded.image.height());
        for (int y = 0; y < narrower.height(); ++y)
            for (int x = 0; x < width; ++x)
                narrower.at(x, y) = loaded.image.at(x + loaded.image.width() - width, y);
        const fs::path out = dir / ("out." + ext.toStdString());
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        const std::vector<std::string> notices = io::write_image(out, narrower.view(), options);
        // Nothing to report: the source held nothing this format cannot (a comment is refused
        // below, for TIFF and WebP).
        for (const std::string& n : notices) qWarning("notice: %s", n.c_str());
        QVERIFY(notices.empty());

        const test::FileMetadata f = test::read_file_metadata(out);
        QCOMPARE(f.icc.size(), icc_.size());
        QVERIFY(f.icc == icc_);
        QCOMPARE(f.exif_value("Exif.Image.Make"), known.make);
        QCOMPARE(f.exif_value("Exif.Image.Model"), known.model);
        QCOMPARE(f.exif_value("Exif.Photo.DateTimeOriginal"), known.date);
        QCOMPARE(f.exif_value("Exif.Image.Orientation"), std::string("1"));
        QCOMPARE(f.exif_value("Exif.Photo.PixelXDimension"), std::to_string(width));
        QCOMPARE(f.exif_value("Exif.Photo.PixelYDimension"), std::to_string(kStoredW));
        QCOMPARE(f.xmp.at("Xmp.dc.title"), "lang=\"x-default\" " + known.title);
        if (holds_iptc(ext)) QCOMPARE(f.iptc.at("Iptc.Application2.Caption"), known.caption);
        QCOMPARE(f.comment, holds_comment(ext) ? known.comment : std::string());

        // Opened again, nothing is turned a second time.
        const io::LoadedImage again = io::read_image(out);
        QCOMPARE(again.image.width(), width);
        QCOMPARE(again.image.height(), kStoredW);
        QVERIFY(reddish(again.image.at(width - 2, 1)));
        QVERIFY(!again.metadata.orientation_applied);
        QVERIFY(again.notices.empty());
        // Written in place of nothing: no temporary file is left beside the output.
        QCOMPARE(files_in(dir),
                 (std::vector<std::string>{"in." + ext.toStdString(), "out." + ext.toStdString()}));
    }

    void png_profile_is_one_libpng_accepts() {
        const fs::path in = tmp("profile.png");
        make_photo(in, icc_);
        const io::LoadedImage loaded = io::read_image(in);
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        const fs::path out = tmp("profile-out.png");
        QVERIFY(io::write_image(out, loaded.image.view(), options).empty());
        const std::optional<IccpChunk> chunk = png_iccp(test::read_bytes(out));
        QVERIFY(chunk.has_value());
        QCOMPARE(chunk->keyword, std::string("ICC Profile"));
        QVERIFY(chunk->profile == icc_);
        // Still one PNG OpenCV (libpng) decodes to the same pixels.
        const cv::Mat decoded = cv::imread(out.string(), cv::IMREAD_UNCHANGED);
        QCOMPARE(decoded.cols, loaded.image.width());
        QCOMPARE(decoded.rows, loaded.image.height());
    }

    // Wide-gamut and printer profiles outgrow one JPEG APP2 segment (64 KB): split and joined.
    void large_profile_survives_data() {
        QTest::addColumn<QString>("ext");
        for (const char* ext : {"jpg", "png", "tiff", "webp"}) QTest::newRow(ext) << ext;
    }

    void large_profile_survives() {
        QFETCH(QString, ext);
        const std::vector<std::uint8_t> big = test::make_icc_profile("Big", 150000);
        io::Metadata metadata;
        metadata.icc = big;
        io::WriteOptions options;
        options.metadata = &metadata;
        const fs::path out = tmp("big." + ext.toStdString());
        ImageRgba8 image(16, 8);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 16; ++x) image.at(x, y) = Rgba8{std::uint8_t(x * 16), 80, 120, 255};
        QVERIFY(io::write_image(out, image.view(), options).empty());
        QVERIFY(test::read_file_metadata(out).icc == big);
        QVERIFY(io::read_image(out).metadata.icc == big);
    }

    void webp_profile_keeps_alpha_and_pixels() {
        // Transparent pixels make OpenCV write a lossless WebP with alpha and no VP8X header:
        // the header the profile needs must say "alpha" too, or decoders drop it.
        ImageRgba8 image(20, 10);
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 20; ++x)
                image.at(x, y) = Rgba8{std::uint8_t(x * 12), std::uint8_t(y * 25), 90,
                                       std::uint8_t(x < 10 ? 255 : 40)};
        io::Metadata metadata;
        metadata.icc = icc_;
        io::WriteOptions options;
        options.metadata = &metadata;
        const fs::path out = tmp("alpha.webp");
        QVERIFY(io::write_image(out, image.view(), options).empty());
        QVERIFY(test::read_file_metadata(out).icc == icc_);
        const io::LoadedImage back = io::read_image(out);
        QVERIFY(back.info.has_alpha);
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 20; ++x) QCOMPARE(back.image.at(x, y), image.at(x, y));
    }

    void every_orientation_is_applied_data() {
        QTest::addColumn<QString>("ext");
        QTest::addColumn<int>("orientation");
        for (const char* ext : {"jpg", "png", "tiff", "webp"})
            for (const int o : {2, 3, 4, 5, 7, 8})
                QTest::newRow(qPrintable(QString("%1 %2").arg(ext).arg(o))) << ext << o;
    }

    // Where the stored top-left block is seen after each orientation (Exif 2.32, 4.6.4 A).
    void every_orientation_is_applied() {
        QFETCH(QString, ext);
        QFETCH(int, orientation);
        test::KnownMetadata known;
        known.orientation = orientation;
        const fs::path in = tmp("o." + ext.toStdString());
        make_photo(in, icc_, known);
        const io::LoadedImage loaded = io::read_image(in);
        const bool turned = orientation >= 5;
        const int w = turned ? kStoredH : kStoredW;
        const int h = turned ? kStoredW : kStoredH;
        QCOMPARE(loaded.image.width(), w);
        QCOMPARE(loaded.image.height(), h);
        const bool right =
            orientation == 2 || orientation == 3 || orientation == 6 || orientation == 7;
        const bool bottom =
            orientation == 3 || orientation == 4 || orientation == 7 || orientation == 8;
        QVERIFY(reddish(loaded.image.at(right ? w - 2 : 1, bottom ? h - 2 : 1)));
        QVERIFY(loaded.metadata.orientation_applied);
        fs::remove(in);
    }

    void sixteen_bit_writes_keep_the_metadata_data() {
        QTest::addColumn<QString>("ext");
        QTest::newRow("png") << "png";
        QTest::newRow("tiff") << "tiff";
    }

    // The native path (16-bit PNG and TIFF, as the editor saves measurement documents).
    void sixteen_bit_writes_keep_the_metadata() {
        QFETCH(QString, ext);
        const fs::path in = tmp("deep." + ext.toStdString());
        std::vector<std::uint8_t> bytes;
        QVERIFY(cv::imencode(in.extension().string(), stored_pixels(3, CV_16U), bytes));
        test::write_bytes(in, bytes);
        test::attach_metadata(in, {}, kStoredW, kStoredH, ext == "tiff" ? &icc_ : nullptr);
        if (ext == "png")
            test::write_bytes(in, io::detail::png_with_icc(test::read_bytes(in), icc_));

        const io::LoadedNative loaded = io::read_native(in);
        QCOMPARE(loaded.pages.front().sample_type(), SampleType::U16);
        QCOMPARE(loaded.pages.front().width(), kStoredH);
        QVERIFY(loaded.metadata.icc == icc_);
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        const fs::path out = tmp("deep-out." + ext.toStdString());
        io::write_native(out, loaded.pages.front(), options);
        const test::FileMetadata f = test::read_file_metadata(out);
        QVERIFY(f.icc == icc_);
        QCOMPARE(f.exif_value("Exif.Image.Make"), test::KnownMetadata{}.make);
        QCOMPARE(f.exif_value("Exif.Image.Orientation"), std::string("1"));
        QCOMPARE(f.exif_value("Exif.Photo.PixelXDimension"), std::to_string(kStoredH));
        QCOMPARE(f.exif_value("Exif.Photo.PixelYDimension"), std::to_string(kStoredW));
        const io::LoadedNative back = io::read_native(out);
        QCOMPARE(back.pages.front().sample_type(), SampleType::U16);
        QCOMPARE(back.pages.front().width(), kStoredH);
    }

    // A JPEG source's camera data in a TIFF: none of the JPEG's structure tags, and none of a
    // TIFF source's strip layout in a JPEG.
    void tiff_structure_never_crosses_formats() {
        const fs::path in = tmp("struct.tiff");
        make_photo(in, icc_);
        const io::LoadedImage loaded = io::read_image(in);
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        const fs::path out = tmp("struct.jpg");
        io::write_image(out, loaded.image.view(), options);
        const test::FileMetadata f = test::read_file_metadata(out);
        for (const char* key :
             {"Exif.Image.StripOffsets", "Exif.Image.StripByteCounts", "Exif.Image.BitsPerSample",
              "Exif.Image.Compression", "Exif.Image.InterColorProfile", "Exif.Image.XMLPacket"})
            QVERIFY2(!f.exif.count(key), key);
        QCOMPARE(f.exif_value("Exif.Image.Make"), test::KnownMetadata{}.make);
        QVERIFY(f.icc == icc_);
    }

    // The thumbnail shows the picture before the edit: it is left out.
    void exif_thumbnail_is_dropped() {
        const fs::path in = tmp("thumb.jpg");
        make_photo(in, icc_);
        {
            auto image = Exiv2::ImageFactory::open(in.string());
            image->readMetadata();
            std::vector<std::uint8_t> thumb;
            cv::imencode(".jpg", cv::Mat(8, 12, CV_8UC3, cv::Scalar(10, 200, 30)), thumb);
            Exiv2::ExifData exif = image->exifData();
            Exiv2::ExifThumb(exif).setJpegThumbnail(thumb.data(), static_cast<long>(thumb.size()));
            image->setExifData(exif);
            image->writeMetadata();
        }
        QVERIFY(test::read_file_metadata(in).has_thumbnail);
        const io::LoadedImage loaded = io::read_image(in);
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        const fs::path out = tmp("thumb-out.jpg");
        io::write_image(out, loaded.image.view(), options);
        const test::FileMetadata f = test::read_file_metadata(out);
        QVERIFY(!f.has_thumbnail);
        QCOMPARE(f.exif_value("Exif.Image.Model"), test::KnownMetadata{}.model);
    }

    // convert keeps the metadata too (it reads and writes in one call).
    void convert_keeps_the_metadata() {
        const fs::path in = tmp("conv.jpg");
        make_photo(in, icc_);
        const fs::path out = tmp("conv.png");
        io::convert_image(in, out);
        const test::FileMetadata f = test::read_file_metadata(out);
        QVERIFY(f.icc == icc_);
        QCOMPARE(f.exif_value("Exif.Image.Orientation"), std::string("1"));
        QCOMPARE(f.exif_value("Exif.Photo.PixelXDimension"), std::to_string(kStoredH));
        QCOMPARE(f.iptc.at("Iptc.Application2.Caption"), test::KnownMetadata{}.caption);
    }

    // A JPEG's IPTC caption and comment into formats exiv2 0.27 cannot put them in: the rest
    // is written and the notices name what was not.
    void what_a_format_cannot_hold_is_reported() {
        const fs::path in = tmp("all.jpg");
        make_photo(in, icc_);
        const io::LoadedImage loaded = io::read_image(in);
        io::WriteOptions options;
        options.metadata = &loaded.metadata;
        QCOMPARE(io::write_image(tmp("all.webp"), loaded.image.view(), options),
                 (std::vector<std::string>{"WebP files cannot hold IPTC: not written",
                                           "WebP files cannot hold a comment: not written"}));
        QCOMPARE(io::write_image(tmp("all.tiff"), loaded.image.view(), options),
                 (std::vector<std::string>{"TIFF files cannot hold a comment: not written"}));
        for (const char* name : {"all.webp", "all.tiff"}) {
            const test::FileMetadata f = test::read_file_metadata(tmp(name));
            QVERIFY(f.icc == icc_);
            QCOMPARE(f.exif_value("Exif.Image.Model"), test::KnownMetadata{}.model);
            QCOMPARE(f.xmp.size(), std::size_t{1});
        }
    }

    void formats_without_metadata_say_so() {
        io::Metadata metadata;
        metadata.icc = icc_;
        io::WriteOptions options;
        options.metadata = &metadata;
        ImageRgba8 image(4, 3);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x) image.at(x, y) = Rgba8{10, 20, 30, 255};
        for (const char* name : {"plain.ppm", "plain.bmp"}) {
            const std::vector<std::string> notices =
                io::write_image(tmp(name), image.view(), options);
            QCOMPARE(notices.size(), std::size_t{1});
            QVERIFY2(notices[0].find("hold no ICC profile or metadata") != std::string::npos,
                     notices[0].c_str());
        }
        // And nothing is said when there is nothing to keep.
        QVERIFY(io::write_image(tmp("plain.pgm"), image.view()).empty());
    }

    // EXIF that exiv2 cannot parse: the picture opens, the notice says what was left out.
    void corrupt_exif_still_opens() {
        std::vector<std::uint8_t> jpeg;
        QVERIFY(cv::imencode(".jpg", stored_pixels(), jpeg, {cv::IMWRITE_JPEG_QUALITY, 98}));
        // An APP1 Exif segment whose TIFF header points its first IFD far outside the segment.
        const std::vector<std::uint8_t> payload = {'E', 'x',  'i',  'f',  0,    0, 'I', 'I', 42,
                                                   0,   0xF0, 0xFF, 0xFF, 0x7F, 1, 2,   3,   4};
        const std::size_t length = payload.size() + 2;
        std::vector<std::uint8_t> segment = {0xFF, 0xE1, std::uint8_t(length >> 8),
                                             std::uint8_t(length & 0xFF)};
        segment.insert(segment.end(), payload.begin(), payload.end());
        jpeg.insert(jpeg.begin() + 2, segment.begin(), segment.end());
        const fs::path path = tmp("corrupt.jpg");
        test::write_bytes(path, jpeg);

        const io::LoadedImage loaded = io::read_image(path);
        QCOMPARE(loaded.image.width(), kStoredW);  // no orientation could be read
        QCOMPARE(loaded.image.height(), kStoredH);
        QVERIFY(reddish(loaded.image.at(1, 1)));
        QVERIFY(loaded.metadata.exif.empty());
        QCOMPARE(loaded.notices.size(), std::size_t{1});
        QVERIFY2(loaded.notices[0].find("metadata could not be read") != std::string::npos,
                 loaded.notices[0].c_str());
    }

    // One damaged EXIF entry (its value lies outside the segment): exiv2 reads the rest, the
    // notice says a part was left out.
    void damaged_exif_entry_is_left_out() {
        std::vector<std::uint8_t> jpeg;
        QVERIFY(cv::imencode(".jpg", stored_pixels(), jpeg, {cv::IMWRITE_JPEG_QUALITY, 98}));
        // TIFF header, IFD0 with Make (ASCII, 20 bytes at an offset far outside) and Model
        // (ASCII, 4 bytes inline), no next IFD.
        const std::vector<std::uint8_t> payload = {
            'E',  'x',  'i', 'f', 0,  0, 'I', 'I', 42,   0,    8,    0,
            0,    0,                                                        // header, IFD0 at 8
            2,    0,                                                        // two entries
            0x0F, 0x01, 2,   0,   20, 0, 0,   0,   0x00, 0x00, 0xFF, 0x7F,  // Make → 0x7FFF0000
            0x10, 0x01, 2,   0,   4,  0, 0,   0,   'L',  'C',  '1',  0,     // Model "LC1"
            0,    0,    0,   0};
        const std::size_t length = payload.size() + 2;
        std::vector<std::uint8_t> segment = {0xFF, 0xE1, std::uint8_t(length >> 8),
                                             std::uint8_t(length & 0xFF)};
        segment.insert(segment.end(), payload.begin(), payload.end());
        jpeg.insert(jpeg.begin() + 2, segment.begin(), segment.end());
        const fs::path path = tmp("damaged.jpg");
        test::write_bytes(path, jpeg);

        const io::LoadedImage loaded = io::read_image(path);
        QCOMPARE(loaded.image.width(), kStoredW);
        QCOMPARE(loaded.notices.size(), std::size_t{1});
        QVERIFY2(loaded.notices[0].find("part of the file's metadata could not be read") !=
                     std::string::npos,
                 loaded.notices[0].c_str());
        const io::MetadataSummary s = io::summarize(loaded.metadata);
        // exiv2 keeps the damaged entry, emptied; the good one is intact.
        const std::vector<std::pair<std::string, std::string>> expected = {{"Make", ""},
                                                                           {"Model", "LC1"}};
        QCOMPARE(s.exif_tags, expected);
    }

    // Metadata exiv2 throws on (a PNG text chunk claiming an EXIF profile of absurd size): the
    // picture opens without it.
    void unreadable_metadata_still_opens() {
        std::vector<std::uint8_t> png;
        QVERIFY(cv::imencode(".png", stored_pixels(), png));
        std::string text = "Raw profile type exif";
        text.push_back('\0');  // the keyword's end
        text += "\nexif\n  99999999\n4578696600";
        const std::vector<std::uint8_t> data(text.begin(), text.end());
        std::vector<std::uint8_t> chunk = {0, 0, 0, std::uint8_t(data.size())};
        chunk.insert(chunk.end(), {'t', 'E', 'X', 't'});
        chunk.insert(chunk.end(), data.begin(), data.end());
        const uLong crc = crc32(0, chunk.data() + 4, static_cast<uInt>(chunk.size() - 4));
        for (const int shift : {24, 16, 8, 0}) chunk.push_back(std::uint8_t(crc >> shift));
        png.insert(png.begin() + 33, chunk.begin(), chunk.end());
        const fs::path path = tmp("odd-text.png");
        test::write_bytes(path, png);

        const io::LoadedImage loaded = io::read_image(path);
        QCOMPARE(loaded.image.width(), kStoredW);
        QVERIFY(reddish(loaded.image.at(1, 1)));
        QVERIFY(loaded.metadata.exif.empty());
        QCOMPARE(loaded.notices.size(), std::size_t{1});
        QVERIFY2(loaded.notices[0].find("metadata could not be read") != std::string::npos,
                 loaded.notices[0].c_str());
    }

    void icc_description_v2_and_v4() {
        QCOMPARE(io::icc_description(icc_).value_or("<none>"), std::string("Lacuna Test RGB"));
        // A v4 'mluc' description: one record, en-US, UTF-16BE "Wide ü".
        std::vector<std::uint8_t> v4 = test::make_icc_profile("x", 0);
        const std::u16string text = u"Wide \u00fc";
        std::vector<std::uint8_t> mluc = {'m', 'l', 'u', 'c', 0, 0,  0,   0,   0,   0,
                                          0,   1,   0,   0,   0, 12, 'e', 'n', 'U', 'S'};
        const std::size_t bytes = text.size() * 2;
        for (const std::uint32_t v : {std::uint32_t(bytes), std::uint32_t(28)})
            for (const int shift : {24, 16, 8, 0}) mluc.push_back(std::uint8_t(v >> shift));
        for (const char16_t c : text) {
            mluc.push_back(std::uint8_t(c >> 8));
            mluc.push_back(std::uint8_t(c & 0xFF));
        }
        const std::size_t at = v4.size();
        v4.insert(v4.end(), mluc.begin(), mluc.end());
        test::put_be32(v4, 0, static_cast<std::uint32_t>(v4.size()));
        test::put_be32(v4, 132 + 4, static_cast<std::uint32_t>(at));  // the 'desc' entry
        test::put_be32(v4, 132 + 8, static_cast<std::uint32_t>(mluc.size()));
        QCOMPARE(io::icc_description(v4).value_or("<none>"), std::string("Wide \xC3\xBC"));
        // Malformed: a tag table running past the end.
        std::vector<std::uint8_t> bad = icc_;
        test::put_be32(bad, 128, 100000);
        QVERIFY(!io::icc_description(bad).has_value());
        QVERIFY(!io::icc_description(std::vector<std::uint8_t>(40, 0)).has_value());
    }

    void summary_lists_key_tags() {
        const fs::path in = tmp("summary.jpg");
        make_photo(in, icc_);
        const io::LoadedImage loaded = io::read_image(in);
        const io::MetadataSummary s = io::summarize(loaded.metadata);
        QCOMPARE(s.icc_bytes, icc_.size());
        QCOMPARE(s.icc_description, std::string("Lacuna Test RGB"));
        const test::KnownMetadata k;
        const std::vector<std::pair<std::string, std::string>> expected = {
            {"Make", k.make},     {"Model", k.model},        {"DateTimeOriginal", k.date},
            {"Orientation", "6"}, {"PixelXDimension", "48"}, {"PixelYDimension", "32"}};
        QCOMPARE(s.exif_tags, expected);
        QCOMPARE(s.xmp_entries, std::size_t{1});
        QCOMPARE(s.iptc_entries, std::size_t{1});
        QCOMPARE(s.comment, k.comment);
    }
};

QTEST_GUILESS_MAIN(TestMetadata)
#include "test_metadata.moc"
