// Test files with known metadata, made and inspected with exiv2 directly (not through lacuna_io),
// so a round trip through Lacuna is checked by an independent reader.
#pragma once

#include "metadata_io.hpp"  // (engine/io) the PNG and WebP profile chunks

#include <lacuna/io/image_io.hpp>

#include <exiv2/exiv2.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace lacuna::test {

inline void put_be32(std::vector<std::uint8_t>& b, const std::size_t at, const std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

/// A small but well-formed ICC v2 display profile: header ('mntr', 'RGB ', 'XYZ ', 'acsp'), a
/// tag table with 'desc' (textDescriptionType holding `description`) and 'wtpt' (D50), and
/// `filler` bytes of a private tag so that profiles of different sizes can be made.
inline std::vector<std::uint8_t> make_icc_profile(const std::string& description,
                                                  const std::size_t filler = 64) {
    const std::size_t tags = 3;
    const std::size_t table_end = 128 + 4 + tags * 12;
    const std::size_t desc_size = 12 + description.size() + 1 + 4 + 4 + 67 + 3;  // v2 layout
    const std::size_t desc_at = table_end;
    const std::size_t wtpt_at = (desc_at + desc_size + 3) / 4 * 4;
    const std::size_t priv_at = wtpt_at + 20;
    const std::size_t size = (priv_at + 8 + filler + 3) / 4 * 4;
    std::vector<std::uint8_t> p(size, 0);
    put_be32(p, 0, static_cast<std::uint32_t>(size));
    std::memcpy(&p[4], "lcna", 4);
    put_be32(p, 8, 0x02100000);  // version 2.1
    std::memcpy(&p[12], "mntr", 4);
    std::memcpy(&p[16], "RGB ", 4);
    std::memcpy(&p[20], "XYZ ", 4);
    std::memcpy(&p[36], "acsp", 4);
    put_be32(p, 68, 0x0000F6D6);  // D50 illuminant
    put_be32(p, 72, 0x00010000);
    put_be32(p, 76, 0x0000D32D);
    put_be32(p, 128, static_cast<std::uint32_t>(tags));
    const auto entry = [&](const int i, const char* sig, const std::size_t at,
                           const std::size_t n) {
        std::memcpy(&p[132 + 12 * i], sig, 4);
        put_be32(p, 132 + 12 * i + 4, static_cast<std::uint32_t>(at));
        put_be32(p, 132 + 12 * i + 8, static_cast<std::uint32_t>(n));
    };
    entry(0, "desc", desc_at, desc_size);
    entry(1, "wtpt", wtpt_at, 20);
    entry(2, "lcnf", priv_at, 8 + filler);
    std::memcpy(&p[desc_at], "desc", 4);
    put_be32(p, desc_at + 8, static_cast<std::uint32_t>(description.size() + 1));
    std::memcpy(&p[desc_at + 12], description.data(), description.size());
    std::memcpy(&p[wtpt_at], "XYZ ", 4);
    put_be32(p, wtpt_at + 8, 0x0000F6D6);
    put_be32(p, wtpt_at + 12, 0x00010000);
    put_be32(p, wtpt_at + 16, 0x0000D32D);
    std::memcpy(&p[priv_at], "lcnf", 4);
    for (std::size_t i = 0; i < filler; ++i)
        p[priv_at + 8 + i] = static_cast<std::uint8_t>(i * 37 + 11);
    return p;
}

/// The metadata every round-trip test attaches.
struct KnownMetadata {
    std::string make = "Lacuna Camera Works";
    std::string model = "LC-1 Mark II";
    std::string date = "2024:05:17 10:42:07";
    int orientation = 6;
    std::string title = "Harbour at dawn";
    std::string caption = "Boats leaving the harbour";
    std::string comment = "edited with care";
};

/// Writes EXIF (Make, Model, DateTimeOriginal, Orientation, PixelX/YDimension of the stored
/// size), XMP (dc:title), IPTC (Caption) and a comment into the file at `path` with exiv2, where
/// exiv2 writes that kind for the format. The ICC profile is attached by the caller (exiv2 0.27
/// writes no usable one into PNG or WebP).
inline void attach_metadata(const std::filesystem::path& path, const KnownMetadata& m,
                            const int stored_width, const int stored_height,
                            const std::vector<std::uint8_t>* icc = nullptr) {
    auto image = Exiv2::ImageFactory::open(path.string());
    image->readMetadata();
    const auto writes = [&](const Exiv2::MetadataId id) {
        const Exiv2::AccessMode mode = Exiv2::ImageFactory::checkMode(image->imageType(), id);
        return mode == Exiv2::amWrite || mode == Exiv2::amReadWrite;
    };
    Exiv2::ExifData exif = image->exifData();
    exif["Exif.Image.Make"] = m.make;
    exif["Exif.Image.Model"] = m.model;
    exif["Exif.Image.Orientation"] = static_cast<std::uint16_t>(m.orientation);
    exif["Exif.Photo.DateTimeOriginal"] = m.date;
    exif["Exif.Photo.PixelXDimension"] = static_cast<std::uint32_t>(stored_width);
    exif["Exif.Photo.PixelYDimension"] = static_cast<std::uint32_t>(stored_height);
    image->setExifData(exif);
    Exiv2::XmpData xmp;
    xmp["Xmp.dc.title"] = "lang=x-default " + m.title;
    image->setXmpData(xmp);
    if (writes(Exiv2::mdIptc)) {
        Exiv2::IptcData iptc;
        iptc["Iptc.Application2.Caption"] = m.caption;
        image->setIptcData(iptc);
    }
    if (writes(Exiv2::mdComment)) image->setComment(m.comment);
    if (icc) {
        Exiv2::DataBuf buf(icc->data(), static_cast<long>(icc->size()));
        image->setIccProfile(buf, true);
    }
    image->writeMetadata();
}

/// A file's metadata as exiv2 reads it.
struct FileMetadata {
    std::vector<std::uint8_t> icc;
    std::map<std::string, std::string> exif;  ///< every tag, by key
    std::map<std::string, std::string> xmp;
    std::map<std::string, std::string> iptc;
    std::string comment;
    bool has_thumbnail = false;

    std::string exif_value(const std::string& key) const {
        const auto it = exif.find(key);
        return it == exif.end() ? std::string("<absent>") : it->second;
    }
};

inline FileMetadata read_file_metadata(const std::filesystem::path& path) {
    auto image = Exiv2::ImageFactory::open(path.string());
    image->readMetadata();
    FileMetadata f;
    if (image->iccProfileDefined())
        f.icc.assign(image->iccProfile()->pData_,
                     image->iccProfile()->pData_ + image->iccProfile()->size_);
    for (const Exiv2::Exifdatum& d : image->exifData()) f.exif[d.key()] = d.toString();
    for (const Exiv2::Xmpdatum& d : image->xmpData()) f.xmp[d.key()] = d.toString();
    for (const Exiv2::Iptcdatum& d : image->iptcData()) f.iptc[d.key()] = d.toString();
    f.comment = image->comment();
    Exiv2::ExifData exif = image->exifData();
    f.has_thumbnail = Exiv2::ExifThumbC(exif).copy().size_ > 0;
    return f;
}

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

inline constexpr int kStoredW = 48;  // as stored; Orientation 6 shows it 32 wide and 48 high
inline constexpr int kStoredH = 32;

// Stored pixels: a grey ramp with a red 6x6 block at the stored top-left corner, so where it
// ends up shows how the picture was turned.
inline cv::Mat stored_pixels(const int channels = 3, const int depth = CV_8U) {
    cv::Mat m(kStoredH, kStoredW, CV_MAKETYPE(depth, channels));
    const double scale = depth == CV_16U ? 257.0 : 1.0;
    for (int y = 0; y < kStoredH; ++y)
        for (int x = 0; x < kStoredW; ++x) {
            const bool marker = x < 6 && y < 6;
            const double grey = 60 + x * 2 + y;
            const cv::Scalar bgr = marker ? cv::Scalar(0, 0, 255) : cv::Scalar(grey, grey, grey);
            if (depth == CV_16U) {
                auto* p = m.ptr<std::uint16_t>(y) + x * channels;
                for (int c = 0; c < channels; ++c)
                    p[c] = cv::saturate_cast<std::uint16_t>(bgr[c] * scale);
            } else {
                auto* p = m.ptr<std::uint8_t>(y) + x * channels;
                for (int c = 0; c < channels; ++c)
                    p[c] = c == 3 ? 255 : cv::saturate_cast<std::uint8_t>(bgr[c]);
            }
        }
    return m;
}

// A file as a camera or another editor would leave it: pixels, then EXIF, XMP, IPTC, comment
// and the ICC profile. exiv2 attaches the profile to JPEG and TIFF; PNG and WebP get theirs
// from the chunk writers (exiv2 0.27 writes none that libpng or libwebp accept).
inline void make_test_photo(const std::filesystem::path& path, const std::vector<std::uint8_t>& icc,
                            const KnownMetadata& known = {}) {
    std::vector<std::uint8_t> bytes;
    if (!cv::imencode(path.extension().string(), stored_pixels(), bytes,
                      {cv::IMWRITE_JPEG_QUALITY, 98}))
        throw std::runtime_error("cannot encode " + path.string());
    write_bytes(path, bytes);
    const io::ImageFormat format = io::format_for_path(path);
    const bool exiv2_icc = format == io::ImageFormat::Jpeg || format == io::ImageFormat::Tiff;
    attach_metadata(path, known, kStoredW, kStoredH, exiv2_icc ? &icc : nullptr);
    if (!exiv2_icc) {
        const std::vector<std::uint8_t> plain = read_bytes(path);
        write_bytes(path, format == io::ImageFormat::Png
                              ? io::detail::png_with_icc(plain, icc)
                              : io::detail::webp_with_icc(plain, icc, kStoredW, kStoredH));
    }
}

}  // namespace lacuna::test
