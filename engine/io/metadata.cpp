// Metadata through exiv2 (0.27): read from the encoded source bytes, embedded into the encoded
// output bytes. Everything happens in memory (exiv2's MemIo), so the atomic write in image_io.cpp
// writes the finished file once.
#include "metadata_io.hpp"

#include <exiv2/exiv2.hpp>

#include <array>
#include <mutex>
#include <string_view>

namespace lacuna::io {
namespace {

// exiv2 reports what it could not parse as log messages, not exceptions (it reads what it can).
// While this thread reads a file they are collected here and become one notice; otherwise they
// are dropped, never printed.
thread_local std::vector<std::string>* t_exiv2_messages = nullptr;

class CollectExiv2Messages {
  public:
    explicit CollectExiv2Messages(std::vector<std::string>& sink) { t_exiv2_messages = &sink; }
    ~CollectExiv2Messages() { t_exiv2_messages = nullptr; }
    CollectExiv2Messages(const CollectExiv2Messages&) = delete;
    CollectExiv2Messages& operator=(const CollectExiv2Messages&) = delete;
};

// exiv2's XMP toolkit is not thread-safe (a batch reads and writes several files at once): it
// is initialised once, with a lock it takes around every XMP parse and serialisation.
void exiv2_ready() {
    static std::once_flag once;
    std::call_once(once, [] {
        static std::recursive_mutex xmp_mutex;
        Exiv2::LogMsg::setLevel(Exiv2::LogMsg::warn);
        Exiv2::LogMsg::setHandler([](const int /*level*/, const char* message) {
            if (t_exiv2_messages != nullptr && message != nullptr) {
                std::string text(message);
                while (!text.empty() && (text.back() == '\n' || text.back() == '.'))
                    text.pop_back();
                t_exiv2_messages->push_back(std::move(text));
            }
        });
        Exiv2::XmpParser::initialize(
            [](void* data, const bool lock) {
                auto* m = static_cast<std::recursive_mutex*>(data);
                if (lock)
                    m->lock();
                else
                    m->unlock();
            },
            &xmp_mutex);
    });
}

// Tags that describe how the source file stored its pixels (strips, compression, sample
// layout) or that carry another kind of metadata (ICC, XMP, IPTC, Photoshop resources, kept
// separately). None of them describes the picture, and all of them would be wrong in the
// written file.
constexpr std::array<std::string_view, 26> kFileStructureTags = {
    "Exif.Image.NewSubfileType",
    "Exif.Image.SubfileType",
    "Exif.Image.BitsPerSample",
    "Exif.Image.Compression",
    "Exif.Image.PhotometricInterpretation",
    "Exif.Image.FillOrder",
    "Exif.Image.StripOffsets",
    "Exif.Image.SamplesPerPixel",
    "Exif.Image.RowsPerStrip",
    "Exif.Image.StripByteCounts",
    "Exif.Image.PlanarConfiguration",
    "Exif.Image.Predictor",
    "Exif.Image.ColorMap",
    "Exif.Image.TileWidth",
    "Exif.Image.TileLength",
    "Exif.Image.TileOffsets",
    "Exif.Image.TileByteCounts",
    "Exif.Image.SubIFDs",
    "Exif.Image.ExtraSamples",
    "Exif.Image.SampleFormat",
    "Exif.Image.JPEGInterchangeFormat",
    "Exif.Image.JPEGInterchangeFormatLength",
    "Exif.Image.XMLPacket",
    "Exif.Image.IPTCNAA",
    "Exif.Image.ImageResources",
    "Exif.Image.InterColorProfile",
};

void erase_key(Exiv2::ExifData& exif, const std::string_view key) {
    const auto it = exif.findKey(Exiv2::ExifKey(std::string(key)));
    if (it != exif.end()) exif.erase(it);
}

void erase_file_structure(Exiv2::ExifData& exif) {
    for (const std::string_view key : kFileStructureTags) erase_key(exif, key);
}

bool has_key(const Exiv2::ExifData& exif, const char* key) {
    return exif.findKey(Exiv2::ExifKey(key)) != exif.end();
}

int orientation_of(const Exiv2::ExifData& exif) {
    const auto it = exif.findKey(Exiv2::ExifKey("Exif.Image.Orientation"));
    if (it == exif.end() || it->count() == 0) return 1;
    const long value = it->toLong();
    return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
}

std::vector<std::uint8_t> to_bytes(const Exiv2::byte* data, const long size) {
    if (data == nullptr || size <= 0) return {};
    return {data, data + size};
}

Exiv2::Image::AutoPtr open_memory(const std::span<const std::uint8_t> bytes) {
    return Exiv2::ImageFactory::open(bytes.data(), static_cast<long>(bytes.size()));
}

Metadata collect(Exiv2::Image& image) {
    Metadata m;
    if (image.iccProfileDefined())
        m.icc = to_bytes(image.iccProfile()->pData_, image.iccProfile()->size_);
    Exiv2::ExifData exif = image.exifData();
    erase_file_structure(exif);
    if (!exif.empty()) {
        const Exiv2::ByteOrder order =
            image.byteOrder() == Exiv2::invalidByteOrder ? Exiv2::littleEndian : image.byteOrder();
        Exiv2::Blob blob;
        Exiv2::ExifParser::encode(blob, order, exif);
        m.exif.assign(blob.begin(), blob.end());
    }
    m.xmp = image.xmpPacket();
    if (!image.iptcData().empty()) {
        const Exiv2::DataBuf iptc = Exiv2::IptcParser::encode(image.iptcData());
        m.iptc = to_bytes(iptc.pData_, iptc.size_);
    }
    m.comment = image.comment();
    return m;
}

// ---- writing ----

Exiv2::ExifData decode_exif(const std::vector<std::uint8_t>& blob) {
    Exiv2::ExifData exif;
    Exiv2::ExifParser::decode(exif, blob.data(), static_cast<std::uint32_t>(blob.size()));
    return exif;
}

// The record's EXIF as it must be written next to pixels of width x height: the file structure
// of the source left out, the thumbnail (a picture of the image before the edit) left out, the
// orientation 1 once applied, and every size tag the new size.
Exiv2::ExifData exif_for(const Metadata& m, const int width, const int height) {
    Exiv2::ExifData exif = decode_exif(m.exif);
    erase_file_structure(exif);
    Exiv2::ExifThumb(exif).erase();
    if (m.orientation_applied && has_key(exif, "Exif.Image.Orientation"))
        exif["Exif.Image.Orientation"] = std::uint16_t{1};
    const auto w = static_cast<std::uint32_t>(width);
    const auto h = static_cast<std::uint32_t>(height);
    if (has_key(exif, "Exif.Image.ImageWidth")) exif["Exif.Image.ImageWidth"] = w;
    if (has_key(exif, "Exif.Image.ImageLength")) exif["Exif.Image.ImageLength"] = h;
    exif["Exif.Photo.PixelXDimension"] = w;
    exif["Exif.Photo.PixelYDimension"] = h;
    return exif;
}

// XMP mirrors of the same tags, changed only where the packet has them.
void update_xmp(Exiv2::XmpData& xmp, const Metadata& m, const int width, const int height) {
    const auto set_if_present = [&xmp](const char* key, const std::string& value) {
        const auto it = xmp.findKey(Exiv2::XmpKey(key));
        if (it != xmp.end()) it->setValue(value);
    };
    if (m.orientation_applied) set_if_present("Xmp.tiff.Orientation", "1");
    set_if_present("Xmp.tiff.ImageWidth", std::to_string(width));
    set_if_present("Xmp.tiff.ImageLength", std::to_string(height));
    set_if_present("Xmp.exif.PixelXDimension", std::to_string(width));
    set_if_present("Xmp.exif.PixelYDimension", std::to_string(height));
}

bool can_write(const Exiv2::Image& image, const Exiv2::MetadataId id) {
    const Exiv2::AccessMode mode = Exiv2::ImageFactory::checkMode(image.imageType(), id);
    return mode == Exiv2::amWrite || mode == Exiv2::amReadWrite;
}

// PNG and WebP get their ICC profile from metadata_chunks.cpp (see there why).
bool exiv2_writes_icc(const ImageFormat format) {
    return format == ImageFormat::Jpeg || format == ImageFormat::Tiff;
}

std::string format_name(const ImageFormat format) {
    return std::string(to_string(format));
}

std::vector<std::uint8_t> embed_with_exiv2(const std::vector<std::uint8_t>& encoded,
                                           const ImageFormat format, const Metadata& m,
                                           const int width, const int height,
                                           std::vector<std::string>& notices) {
    const Exiv2::Image::AutoPtr image = open_memory(encoded);
    image->readMetadata();
    const auto refuse = [&](const std::string& what) {
        notices.push_back(format_name(format) + " files cannot hold " + what + ": not written");
    };
    if (!m.exif.empty()) {
        if (can_write(*image, Exiv2::mdExif))
            image->setExifData(exif_for(m, width, height));
        else
            refuse("EXIF");
    }
    if (!m.xmp.empty()) {
        if (!can_write(*image, Exiv2::mdXmp)) {
            refuse("XMP");
        } else if (Exiv2::XmpData xmp; Exiv2::XmpParser::decode(xmp, m.xmp) == 0) {
            update_xmp(xmp, m, width, height);
            image->setXmpData(xmp);
        } else {
            // A packet exiv2 cannot parse is still the user's: written back as it came.
            image->setXmpPacket(m.xmp);
            image->writeXmpFromPacket(true);
        }
    }
    if (!m.iptc.empty()) {
        Exiv2::IptcData iptc;
        if (!can_write(*image, Exiv2::mdIptc))
            refuse("IPTC");
        else if (Exiv2::IptcParser::decode(iptc, m.iptc.data(),
                                           static_cast<std::uint32_t>(m.iptc.size())) == 0)
            image->setIptcData(iptc);
        else
            notices.emplace_back("the IPTC record could not be parsed: not written");
    }
    if (!m.comment.empty()) {
        if (can_write(*image, Exiv2::mdComment))
            image->setComment(m.comment);
        else
            refuse("a comment");
    }
    if (!m.icc.empty() && exiv2_writes_icc(format)) {
        Exiv2::DataBuf icc(m.icc.data(), static_cast<long>(m.icc.size()));
        image->setIccProfile(icc, false);  // written as it was read, even if its header is odd
    }
    image->writeMetadata();
    Exiv2::BasicIo& io = image->io();
    io.open();
    io.seek(0, Exiv2::BasicIo::beg);
    const Exiv2::DataBuf written = io.read(static_cast<long>(io.size()));
    io.close();
    return to_bytes(written.pData_, written.size_);
}

std::size_t count_xmp(const std::string& packet) {
    Exiv2::XmpData xmp;
    return Exiv2::XmpParser::decode(xmp, packet) == 0 ? xmp.count() : 0;
}

}  // namespace

namespace detail {

bool holds_metadata(const ImageFormat format) {
    return format == ImageFormat::Jpeg || format == ImageFormat::Png ||
           format == ImageFormat::Tiff || format == ImageFormat::Webp;
}

MetadataRead read_metadata(const std::span<const std::uint8_t> bytes, const ImageFormat format) {
    MetadataRead read;
    if (!holds_metadata(format)) return read;
    exiv2_ready();
    try {
        std::vector<std::string> messages;
        {
            const CollectExiv2Messages collect_messages(messages);
            const Exiv2::Image::AutoPtr image = open_memory(bytes);
            image->readMetadata();
            read.orientation = orientation_of(image->exifData());
            read.metadata = collect(*image);
        }
        read.parsed = true;
        if (!messages.empty())
            read.notices.push_back(
                "part of the file's metadata could not be read and is left out (" +
                messages.front() + ")");
    } catch (const std::exception& e) {
        // Exiv2::AnyError is a std::exception; so are the bad_alloc and length errors a
        // malformed size field can cause. The image is still opened.
        read = {};
        read.notices.push_back(
            std::string("the file's metadata could not be read and is dropped (") + e.what() + ")");
    }
    return read;
}

std::vector<std::uint8_t> embed_metadata(std::vector<std::uint8_t> encoded,
                                         const ImageFormat format, const Metadata& metadata,
                                         const int width, const int height,
                                         std::vector<std::string>& notices) {
    if (metadata.empty()) return encoded;
    if (!holds_metadata(format)) {
        notices.push_back(format_name(format) +
                          " files hold no ICC profile or metadata: the source's are not written");
        return encoded;
    }
    exiv2_ready();
    const bool exiv2_part = !metadata.exif.empty() || !metadata.xmp.empty() ||
                            !metadata.iptc.empty() || !metadata.comment.empty() ||
                            (!metadata.icc.empty() && exiv2_writes_icc(format));
    if (exiv2_part) {
        try {
            encoded = embed_with_exiv2(encoded, format, metadata, width, height, notices);
        } catch (const std::exception& e) {
            // The picture matters more than its metadata: it is written without.
            // exiv2 sometimes throws without a message: no empty "()" then.
            const std::string why = e.what();
            notices.push_back("the metadata could not be written" +
                              (why.empty() ? std::string() : " (" + why + ")") +
                              ": the image is saved without it");
            return encoded;
        }
    }
    if (!metadata.icc.empty() && !exiv2_writes_icc(format)) {
        try {
            encoded = format == ImageFormat::Png
                          ? png_with_icc(encoded, metadata.icc)
                          : webp_with_icc(encoded, metadata.icc, width, height);
        } catch (const std::exception& e) {
            notices.push_back(std::string(e.what()) + ": the image is saved without it");
        }
    }
    return encoded;
}

}  // namespace detail

MetadataSummary summarize(const Metadata& metadata) {
    MetadataSummary s;
    s.icc_bytes = metadata.icc.size();
    s.icc_description = icc_description(metadata.icc).value_or("");
    s.comment = metadata.comment;
    exiv2_ready();
    try {
        if (!metadata.exif.empty()) {
            const Exiv2::ExifData exif = decode_exif(metadata.exif);
            s.exif_entries = exif.count();
            for (const char* key : {"Exif.Image.Make", "Exif.Image.Model",
                                    "Exif.Photo.DateTimeOriginal", "Exif.Image.Orientation",
                                    "Exif.Photo.PixelXDimension", "Exif.Photo.PixelYDimension"}) {
                const auto it = exif.findKey(Exiv2::ExifKey(key));
                if (it != exif.end()) s.exif_tags.emplace_back(it->tagName(), it->toString());
            }
        }
    } catch (const std::exception&) {
        // Shown as present with what was counted.
    }
    try {
        if (!metadata.xmp.empty()) s.xmp_entries = count_xmp(metadata.xmp);
        if (!metadata.iptc.empty()) {
            Exiv2::IptcData iptc;
            if (Exiv2::IptcParser::decode(iptc, metadata.iptc.data(),
                                          static_cast<std::uint32_t>(metadata.iptc.size())) == 0)
                s.iptc_entries = iptc.count();
        }
    } catch (const std::exception&) {
    }
    return s;
}

}  // namespace lacuna::io
