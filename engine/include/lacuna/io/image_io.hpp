// Reading and writing image files. The only part of Lacuna that knows file formats (through
// OpenCV's imgcodecs). Formats: PNG, JPEG, TIFF, WebP, BMP, PPM/PGM. Alpha is preserved where the
// format has it; read_image converts 16-bit and floating-point input to 8 bits with a notice,
// while convert_image and read_measurement keep the stored samples. JPEG, PNG, TIFF and WebP
// keep their metadata (ICC profile, EXIF, XMP, IPTC, comment; see metadata.hpp) from open to
// save: it is read with the pixels and written back when WriteOptions::metadata names it.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/metadata.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::io {

/// Gif is read only (first frame, or every frame as a stack), like Dicom and Fits.
enum class ImageFormat { Png, Jpeg, Tiff, Webp, Bmp, Ppm, Pgm, Pfm, Dicom, Fits, Gif };

std::string_view to_string(ImageFormat format);
/// "PNG, JPEG, TIFF, WebP, BMP, PPM, PGM" for messages and --help.
std::string supported_formats_text();

struct FileInfo {
    ImageFormat format = ImageFormat::Png;
    int width = 0;
    int height = 0;
    int channels = 0;   ///< as stored in the file: 1 grey, 3 colour, 4 colour + alpha
    int bit_depth = 8;  ///< per channel: 8, 16 or 32 (float)
    SampleType sample = SampleType::U8;
    int pages = 1;  ///< a multi-page TIFF's page count (GIF: frames)
    bool has_alpha = false;
    std::uintmax_t file_bytes = 0;
};

struct LoadedImage {
    ImageRgba8 image;
    FileInfo info;
    Metadata metadata;                 ///< JPEG, PNG, TIFF, WebP; empty for other formats
    std::vector<std::string> notices;  ///< conversions the user should know about
};

struct LoadedMeasurement {
    ImageF32 values;  ///< one calibrated value per pixel: grey as stored (8/16-bit integers or
                      ///< float) through the file's calibration, colour as Rec. 709 luminance
    Calibration calibration;  ///< what was applied (identity for plain image files)
    FileInfo info;
    std::vector<std::string> notices;
};

struct WriteOptions {
    int jpeg_quality = 95;  ///< 1..100
    bool webp_lossless = true;
    /// Written into JPEG, PNG, TIFF and WebP files (not owned; null writes none): EXIF
    /// Orientation 1 if the orientation was applied on opening, EXIF (and XMP, where present)
    /// pixel dimensions set to the written size, the EXIF thumbnail left out. A notice says what
    /// the format cannot hold (IPTC and comments in WebP, comments in TIFF, everything in BMP,
    /// PPM, PGM, PFM).
    const Metadata* metadata = nullptr;
    /// Written into TIFF files' ImageJ description as Lacuna's keys (lacuna.pixel_width, …;
    /// exact), read back into LoadedNative::spacing (not owned; null writes none).
    const PixelSpacing* spacing = nullptr;
    /// Written into FITS files as BSCALE/BZERO/BUNIT and into TIFF files as ImageJ writes it
    /// (ImageDescription "ImageJ=…", cf=0, c0, c1, vunit), which read_native reads back (not
    /// owned; null writes the identity). Other formats hold the samples only.
    const Calibration* calibration = nullptr;
};

/// The time between a stack's pages as the file states it.
struct FrameInterval {
    double seconds = 0;  ///< > 0
    /// What stated it, for notes and CSV headers: "ImageJ finterval=0.5 sec", "DICOM Frame Time
    /// 40 ms", "FITS CDELT3 = 2 s".
    std::string source;
};

/// A file as stored: its pages in the file's sample type, its calibration and display window.
struct LoadedNative {
    std::vector<NativeImage> pages;  ///< one for most files; a multi-page TIFF's pages or a
                                     ///< multi-frame DICOM's frames, in order
    Calibration calibration;         ///< from the file (DICOM rescale, FITS BSCALE/BZERO/BUNIT)
    /// The file's own display window in calibrated units (DICOM window centre/width), if any.
    std::optional<std::pair<double, double>> window;
    /// The pixel size the file states (DICOM PixelSpacing or ImagerPixelSpacing in mm; FITS
    /// CDELT/CUNIT or an unrotated CD matrix, celestial degrees as arcsec; TIFF resolution, or
    /// ImageJ's unit with it); unknown (PixelSpacing::known() false) when it states none.
    PixelSpacing spacing;
    /// The time between pages, where the file states one: ImageJ's finterval= (in its tunit,
    /// seconds by default), else 1/fps=, in a TIFF's description; DICOM Frame Time (0018,1063),
    /// else the Frame Time Vector (0018,1065); FITS CDELT3 with a time CUNIT3 (s, ms, us, min,
    /// h, d) or a TIME axis (CTYPE3) in seconds. Nothing for single images or other files.
    std::optional<FrameInterval> frame_interval;
    FileInfo info;
    Metadata metadata;  ///< JPEG, PNG, TIFF, WebP; empty for other formats
    std::vector<std::string> notices;
};

/// Reads any supported file keeping its sample type: 8/16-bit PNG, PGM/PPM, 8/16-bit and float
/// TIFF (every page of a multi-page TIFF), PFM, DICOM (every frame a page), FITS (a cube: every
/// plane a page), and the 8-bit formats. Colour is R, G, B(, A). The same errors as read_image.
LoadedNative read_native(const std::filesystem::path& path);
LoadedNative decode_native(const std::vector<std::uint8_t>& bytes, std::string_view name);

/// Writes `image` keeping its depth where the format holds it (16-bit PNG, TIFF, PGM, PPM; float
/// TIFF and PFM; every sample type in FITS, with options.calibration); otherwise converts to 8 bits
/// (window lo..hi mapped to 0..255 for float, ÷257 for 16-bit) and a notice says so. Atomic like
/// write_image.
std::vector<std::string> write_native(const std::filesystem::path& path, const NativeImage& image,
                                      const WriteOptions& options = {});

/// Reads an image as RGBA8, upright: the EXIF orientation of a JPEG, PNG, TIFF or WebP is applied
/// (and LoadedImage::metadata.orientation_applied says so). Metadata exiv2 cannot parse is
/// dropped with a notice; the image still opens. Throws lacuna::Error with one clear
/// sentence naming the file: NotFound, Unreadable, Corrupt, Truncated, UnsupportedFormat,
/// EmptyImage or TooLarge (checked from the header before decoding).
LoadedImage read_image(const std::filesystem::path& path);

/// Where read_photo_rows puts a photo's rows as they are decoded.
struct PhotoRows {
    /// Once, before any row: the size as stored, and the EXIF orientation (1..8) that turns it
    /// upright as read_image does (1 where the file has none or exiv2 cannot parse it).
    std::function<void(int stored_width, int stored_height, int orientation)> begin;
    /// Where stored row y goes (stored_width pixels, R, G, B, A = 255). The rows come in order,
    /// each once.
    std::function<Rgba8*(int y)> row;
    /// Row y is complete (may be empty): a caller that streams can reuse one row's memory.
    std::function<void(int y)> done;
};

/// What read_photo_rows read besides the pixels: read_image's info (the upright size), its
/// metadata (orientation_applied as read_image sets it) and notices.
struct StreamedPhoto {
    FileInfo info;
    Metadata metadata;
    std::vector<std::string> notices;
};

/// A JPEG's pixels as read_image gives them, row by row, without the whole picture in memory:
/// for a caller that keeps less than the RGBA image (one float plane of a line histogram). The
/// same errors as read_image. Any other format (and a gzip) is not decoded: std::nullopt, read
/// it with read_image or read_native.
std::optional<StreamedPhoto> read_photo_rows(const std::filesystem::path& path,
                                             const PhotoRows& rows);

/// Reads a mask file as read_image does: every pixel that is not black (any non-zero R, G or B,
/// mask_from_image) is selected. The caller checks the size against its image.
Mask read_mask(const std::filesystem::path& path);

/// Reads a single-channel measurement image (temperature map, CT slice) keeping its values.
LoadedMeasurement read_measurement(const std::filesystem::path& path);

/// Decodes from memory; `name` is used in messages.
LoadedImage decode_image(const std::vector<std::uint8_t>& bytes, std::string_view name);

/// The format an output path asks for, from its extension; throws UnsupportedFormat.
ImageFormat format_for_path(const std::filesystem::path& path);

/// True if write_native keeps samples of this type and channel count as they are in `format`;
/// false where it narrows them to 8 bits (JPEG, WebP, BMP; signed 16-bit anywhere; float PNG).
bool format_holds(ImageFormat format, SampleType sample, int channels);
/// True if write_native stores WriteOptions::calibration in `format` (FITS: BSCALE, BZERO,
/// BUNIT; TIFF: ImageJ's description); the other formats leave it out.
bool format_keeps_calibration(ImageFormat format);

/// Encodes and writes atomically: to a temporary file in the same directory, then renamed over
/// `path`, so a failure never leaves a half-written or destroyed file. Returns notices (e.g.
/// "alpha dropped: JPEG has no alpha channel"). Throws WriteFailed / UnsupportedFormat /
/// EmptyImage.
std::vector<std::string> write_image(const std::filesystem::path& path,
                                     ImageView<const Rgba8> image,
                                     const WriteOptions& options = {});

/// Encodes to memory in `format`.
std::vector<std::uint8_t> encode_image(ImageView<const Rgba8> image, ImageFormat format,
                                       const WriteOptions& options = {});

/// What convert_image did.
struct ConvertResult {
    int width = 0;
    int height = 0;
    int bit_depth = 8;  ///< per channel, as written
    std::vector<std::string> notices;
};

/// Reads `in` and writes it to `out` in the format `out` names, keeping the samples' depth where
/// that format holds it: 16-bit PNG, TIFF, PGM and PPM, 32-bit float TIFF. Otherwise (JPEG, WebP,
/// BMP, or a float image to PNG) the samples are converted to 8 bits as read_image does, and a
/// notice says so. The metadata goes along where `out`'s format holds it (options.metadata is
/// ignored). The same errors as read_image and write_image; written atomically.
ConvertResult convert_image(const std::filesystem::path& in, const std::filesystem::path& out,
                            const WriteOptions& options = {});

/// Writes any bytes (CSV, reports) with the same temporary-file-and-rename protection as images.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

/// True if `a` and `b` name the same existing file (hard links and symlinks included).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace lacuna::io
