// Test files for the scientific formats, written with the libraries themselves (no data files
// committed): DICOM through GDCM, FITS through CFITSIO. Shared by the engine's reader tests and
// the CLI tests; each part exists only where the build has the library (LACUNA_TEST_GDCM,
// LACUNA_TEST_CFITSIO), and dicom_ready / fits_ready say whether the reader was built.
#pragma once

#include "scientific_io.hpp"

#if LACUNA_TEST_GDCM
#include <gdcmDataElement.h>
#include <gdcmImage.h>
#include <gdcmImageWriter.h>
#endif
#if LACUNA_TEST_CFITSIO
#include <fitsio.h>
#endif

#include <QtTest>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace lacuna::test {

using Bytes = std::vector<std::uint8_t>;

// ---- DICOM files written with GDCM --------------------------------------------------------

#if LACUNA_TEST_GDCM
struct DicomSpec {
    int width = 13;
    int height = 7;
    int frames = 1;
    gdcm::PixelFormat format{gdcm::PixelFormat::INT16};
    gdcm::PhotometricInterpretation::PIType photometric =
        gdcm::PhotometricInterpretation::MONOCHROME2;
    unsigned planar = 0;
    std::optional<double> slope, intercept;
    std::string modality = "CT";
    std::string window_center, window_width;  ///< DS text, empty: absent
    std::vector<char> pixels;                 ///< as stored, little endian
    struct Text {
        gdcm::Tag tag;
        gdcm::VR::VRType vr;
        std::string value;
    };
    std::vector<Text> extra;  ///< more text elements (Frame Time, ...)
};

inline void insert_text(gdcm::DataSet& ds, const gdcm::Tag tag, const gdcm::VR vr,
                        std::string text) {
    // DICOM values have even lengths: UIDs are padded with NUL, text with a space.
    if (text.size() % 2 != 0) text.push_back(vr == gdcm::VR::UI ? '\0' : ' ');
    gdcm::DataElement element(tag);
    element.SetVR(vr);
    element.SetByteValue(text.data(), static_cast<std::uint32_t>(text.size()));
    ds.Replace(element);
}

inline Bytes write_dicom(const DicomSpec& spec) {
    gdcm::ImageWriter writer;
    gdcm::Image& image = writer.GetImage();
    const unsigned dims[3] = {unsigned(spec.width), unsigned(spec.height), unsigned(spec.frames)};
    image.SetNumberOfDimensions(spec.frames > 1 ? 3 : 2);
    image.SetDimensions(dims);
    image.SetPixelFormat(spec.format);
    image.SetPhotometricInterpretation(spec.photometric);
    image.SetPlanarConfiguration(spec.planar);
    image.SetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    if (spec.slope) image.SetSlope(*spec.slope);
    if (spec.intercept) image.SetIntercept(*spec.intercept);
    gdcm::DataElement pixels(gdcm::Tag(0x7FE0, 0x0010));
    pixels.SetByteValue(spec.pixels.data(), static_cast<std::uint32_t>(spec.pixels.size()));
    image.SetDataElement(pixels);

    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    // Secondary capture: an SOP class that takes any pixel module.
    insert_text(ds, gdcm::Tag(0x0008, 0x0016), gdcm::VR::UI, "1.2.840.10008.5.1.4.1.1.7");
    insert_text(ds, gdcm::Tag(0x0008, 0x0060), gdcm::VR::CS, spec.modality);
    // The writer takes it from the image, but looks for it in the data set first (and warns).
    insert_text(ds, gdcm::Tag(0x0028, 0x0004), gdcm::VR::CS,
                gdcm::PhotometricInterpretation::GetPIString(spec.photometric));
    if (!spec.window_center.empty()) {
        insert_text(ds, gdcm::Tag(0x0028, 0x1050), gdcm::VR::DS, spec.window_center);
        insert_text(ds, gdcm::Tag(0x0028, 0x1051), gdcm::VR::DS, spec.window_width);
    }
    for (const DicomSpec::Text& t : spec.extra) insert_text(ds, t.tag, t.vr, t.value);
    std::ostringstream out;
    writer.SetStream(out);
    if (!writer.Write()) qFatal("GDCM could not write the test file");
    const std::string text = out.str();
    return {text.begin(), text.end()};
}

template <class T>
inline std::vector<char> as_bytes(const std::vector<T>& values) {
    std::vector<char> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// A small CT slice: signed 16-bit 13×7, negatives included, rescale to HU.
inline std::int16_t ct_value(const int x, const int y) {
    return std::int16_t(x * 301 - y * 977 - 1000);
}

inline DicomSpec ct_spec() {
    DicomSpec spec;
    std::vector<std::int16_t> values;
    for (int y = 0; y < spec.height; ++y)
        for (int x = 0; x < spec.width; ++x) values.push_back(ct_value(x, y));
    spec.pixels = as_bytes(values);
    spec.slope = 1.0;
    spec.intercept = -1024.0;
    spec.window_center = "40";
    spec.window_width = "400";
    return spec;
}
#endif

// ---- FITS files written with CFITSIO ------------------------------------------------------

#if LACUNA_TEST_CFITSIO
struct FitsKeys {
    std::optional<double> bscale, bzero;
    std::optional<long long> blank;
    std::string bunit;
    std::vector<std::pair<std::string, double>> numbers;       ///< more keys (CDELT3, ...)
    std::vector<std::pair<std::string, std::string>> strings;  ///< (CUNIT3, CTYPE3, ...)
};

class FitsWriter {
  public:
    explicit FitsWriter(const std::filesystem::path& path) {
        std::filesystem::remove(path);
        fits_create_file(&file_, path.c_str(), &status_);
    }
    ~FitsWriter() {
        if (file_) fits_close_file(file_, &status_);
    }
    FitsWriter(const FitsWriter&) = delete;
    FitsWriter& operator=(const FitsWriter&) = delete;

    void image(const int bitpix, std::vector<long> axes, const FitsKeys& keys) {
        fits_create_img(file_, bitpix, int(axes.size()), axes.data(), &status_);
        if (keys.bscale)
            fits_write_key(file_, TDOUBLE, "BSCALE", (void*)&*keys.bscale, "", &status_);
        if (keys.bzero) fits_write_key(file_, TDOUBLE, "BZERO", (void*)&*keys.bzero, "", &status_);
        if (keys.blank)
            fits_write_key(file_, TLONGLONG, "BLANK", (void*)&*keys.blank, "", &status_);
        if (!keys.bunit.empty()) {
            fits_write_key(file_, TSTRING, "BUNIT", (void*)keys.bunit.c_str(), "", &status_);
        }
        for (const auto& [key, value] : keys.numbers)
            fits_write_key(file_, TDOUBLE, key.c_str(), (void*)&value, "", &status_);
        for (const auto& [key, value] : keys.strings)
            fits_write_key(file_, TSTRING, key.c_str(), (void*)value.c_str(), "", &status_);
        // The values written are the stored ones: no scaling on the way in.
        fits_set_bscale(file_, 1.0, 0.0, &status_);
    }
    /// Writes all pixels, in FITS order (first row = bottom row).
    template <class T>
    void pixels(const int datatype, std::vector<T> values) {
        fits_write_img(file_, datatype, 1, LONGLONG(values.size()), values.data(), &status_);
    }
    void check() const {
        if (status_ != 0) qFatal("CFITSIO could not write the test file (status %d)", status_);
    }

  private:
    fitsfile* file_ = nullptr;
    int status_ = 0;
};

#endif

inline bool dicom_ready() {
#if LACUNA_TEST_GDCM
    return io::detail::dicom_supported();
#else
    return false;
#endif
}
inline bool fits_ready() {
#if LACUNA_TEST_CFITSIO
    return io::detail::fits_supported();
#else
    return false;
#endif
}

}  // namespace lacuna::test

// QSKIP returns from the function it is written in, so these are macros.
#define SKIP_WITHOUT_DICOM() \
    if (!lacuna::test::dicom_ready()) QSKIP("this build has no DICOM support (GDCM)")
#define SKIP_WITHOUT_FITS() \
    if (!lacuna::test::fits_ready()) QSKIP("this build has no FITS support (CFITSIO)")
