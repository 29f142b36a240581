// DICOM (GDCM) and FITS (CFITSIO) reading. The tests write their own files with the same
// libraries, so no data files are committed: exact samples, calibration, display window, row
// order, and every kind of bad input (each must give one Error naming the file, never a crash).
// A format whose library this build lacks is skipped.
#include "calibration_tags.hpp"
#include "scientific_test_files.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>

#include <QtTest>

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <algorithm>
#include <array>
#include <vector>

using namespace lacuna;
namespace fs = std::filesystem;
using namespace lacuna::test;

namespace {

struct Failure {
    ErrorCode code = ErrorCode::DeviceError;  // sentinel: nothing was thrown
    QString message;
};

template <class Read>
Failure failure_of(Read&& read) {
    try {
        (void)read();
    } catch (const Error& e) {
        return {e.code(), QString::fromUtf8(e.what())};
    }
    return {};
}

// `bytes` in a gzip wrapper, as gzip(1) writes .fits.gz.
[[maybe_unused]] Bytes gzipped(const Bytes& bytes) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) qFatal("zlib");
    Bytes out(deflateBound(&z, bytes.size()) + 64);
    z.next_in = const_cast<Bytef*>(bytes.data());
    z.avail_in = uInt(bytes.size());
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) qFatal("zlib deflate");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

Bytes prefix(const Bytes& bytes, const std::size_t n) {
    return {bytes.begin(), bytes.begin() + n};
}

[[maybe_unused]] bool has_notice(const io::LoadedNative& loaded, const char* text) {
    for (const std::string& notice : loaded.notices) {
        if (notice.find(text) != std::string::npos) return true;
    }
    return false;
}

#if LACUNA_TEST_CFITSIO
Bytes file_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A stored value that tells where it came from: FITS column x, FITS row r (0 = bottom).
int fits_value(const int x, const int fits_row) {
    return x * 10 + fits_row * 1000 - 2000;
}

template <class T>
std::vector<T> fits_pattern(const int width, const int height, const int bias = 0) {
    std::vector<T> values;
    for (int r = 0; r < height; ++r)
        for (int x = 0; x < width; ++x) values.push_back(T(fits_value(x, r) + bias));
    return values;
}
#endif

}  // namespace

class TestScientificIo : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    fs::path tmp(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }

#if LACUNA_TEST_CFITSIO
    template <class T>
    Bytes fits_file(const char* name, const int bitpix, const std::vector<long>& axes,
                    const FitsKeys& keys, const int datatype, const std::vector<T>& values) {
        const fs::path path = tmp(name);
        {
            FitsWriter writer(path);
            writer.image(bitpix, axes, keys);
            writer.pixels(datatype, values);
            writer.check();
        }
        return file_bytes(path);
    }
#endif

  private slots:
    void magic_numbers_are_recognised() {
        Bytes dicom(200, 0);
        std::memcpy(dicom.data() + 128, "DICM", 4);
        QVERIFY(io::detail::looks_like_dicom(dicom));
        QVERIFY(!io::detail::looks_like_dicom(prefix(dicom, 131)));
        dicom[129] = 'X';
        QVERIFY(!io::detail::looks_like_dicom(dicom));
        const std::string card = "SIMPLE  =                    T";
        QVERIFY(io::detail::looks_like_fits(Bytes(card.begin(), card.end())));
        QVERIFY(!io::detail::looks_like_fits(Bytes(card.begin(), card.begin() + 8)));
        const std::string other = "XTENSION= 'IMAGE   '";
        QVERIFY(!io::detail::looks_like_fits(Bytes(other.begin(), other.end())));
    }

    // A build without GDCM or CFITSIO still recognises the files and says what is missing.
    void missing_library_is_refused_clearly() {
        if (io::detail::dicom_supported() && io::detail::fits_supported()) {
            QSKIP("this build has DICOM and FITS support");
        }
        if (!io::detail::dicom_supported()) {
            const Failure f = failure_of([] { return io::detail::read_dicom({}, "a.dcm"); });
            QCOMPARE(f.code, ErrorCode::UnsupportedFormat);
            QVERIFY2(f.message.contains("a.dcm") && f.message.contains("libgdcm-dev"),
                     qPrintable(f.message));
        }
        if (!io::detail::fits_supported()) {
            const Failure f = failure_of([] { return io::detail::read_fits({}, "a.fits"); });
            QCOMPARE(f.code, ErrorCode::UnsupportedFormat);
            QVERIFY2(f.message.contains("a.fits") && f.message.contains("libcfitsio-dev"),
                     qPrintable(f.message));
        }
    }

    // ---- DICOM ----

    void dicom_ct_slice_keeps_stored_values_and_rescale() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        const io::LoadedNative loaded = io::detail::read_dicom(bytes, "ct.dcm");
        QCOMPARE(loaded.pages.size(), std::size_t{1});
        const NativeImage& image = loaded.pages[0];
        QCOMPARE(image.format(), (PixelFormat{SampleType::I16, 1}));
        QCOMPARE(image.width(), 13);
        QCOMPARE(image.height(), 7);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                QCOMPARE(image.samples<std::int16_t>(y)[x], ct_value(x, y));
        QCOMPARE(loaded.calibration, (Calibration{1.0, -1024.0, "HU"}));
        QVERIFY(loaded.window.has_value());
        QCOMPARE(loaded.window->first, -160.0);
        QCOMPARE(loaded.window->second, 240.0);
        QCOMPARE(loaded.info.format, io::ImageFormat::Dicom);
        QCOMPARE(loaded.info.width, 13);
        QCOMPARE(loaded.info.height, 7);
        QCOMPARE(loaded.info.channels, 1);
        QCOMPARE(loaded.info.bit_depth, 16);
        QCOMPARE(loaded.info.sample, SampleType::I16);
        QCOMPARE(loaded.info.has_alpha, false);
        QCOMPARE(loaded.info.file_bytes, std::uintmax_t(bytes.size()));
        QVERIFY(loaded.notices.empty());
#endif
    }

    // PS3.10 lets the preamble hold a TIFF header (pydicom's CT_small.dcm does): the DICM marker
    // at 128 decides, the file opens as DICOM through the same probe every reader uses.
    void dicom_with_tiff_preamble_opens_as_dicom() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        Bytes bytes = write_dicom(ct_spec());
        const std::uint8_t tiff[8] = {'I', 'I', 42, 0, 8, 0, 0, 0};
        std::memcpy(bytes.data(), tiff, sizeof tiff);
        const io::LoadedNative loaded = io::decode_native(bytes, "tiff-preamble.dcm");
        QCOMPARE(loaded.info.format, io::ImageFormat::Dicom);
        QCOMPARE(loaded.pages.at(0).samples<std::int16_t>(3)[5], ct_value(5, 3));
        QCOMPARE(loaded.calibration, (Calibration{1.0, -1024.0, "HU"}));
#endif
    }

    // Without the 128-byte preamble and DICM marker: with the file meta information (group
    // 0002 first), or without it too (the data set alone, its encoding guessed from the first
    // element, with a notice). Both read like the full file.
    void dicom_without_preamble_opens() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        QFETCH(bool, keep_meta);
        const Bytes full = write_dicom(ct_spec());
        // (0002,0000) File Meta Information Group Length, UL, right after "DICM".
        QCOMPARE(int(full.at(132)), 0x02);
        QCOMPARE(int(full.at(134)), 0x00);
        const std::uint32_t meta_length =
            full[140] | (full[141] << 8) | (full[142] << 16) | (std::uint32_t(full[143]) << 24);
        const std::size_t start = keep_meta ? 132 : 144 + meta_length;
        const Bytes headless(full.begin() + std::ptrdiff_t(start), full.end());
        const io::LoadedNative loaded = io::decode_native(headless, "headless.dcm");
        QCOMPARE(loaded.info.format, io::ImageFormat::Dicom);
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                QCOMPARE(loaded.pages.at(0).samples<std::int16_t>(y)[x], ct_value(x, y));
        QCOMPARE(loaded.calibration, (Calibration{1.0, -1024.0, "HU"}));
        QCOMPARE(has_notice(loaded, "no preamble or file meta information"), !keep_meta);
#endif
    }
    void dicom_without_preamble_opens_data() {
        QTest::addColumn<bool>("keep_meta");
        QTest::newRow("meta, no preamble") << true;
        QTest::newRow("data set only") << false;
    }

    // Deflated explicit VR little endian (pydicom's image_dfl.dcm was refused): the data set
    // after the file meta information is one raw deflate stream, inflated on reading.
    void dicom_deflated_opens() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes full = write_dicom(ct_spec());
        const std::uint32_t meta_length =
            full[140] | (full[141] << 8) | (full[142] << 16) | (std::uint32_t(full[143]) << 24);
        const std::size_t data_at = 144 + meta_length;
        const std::string ts_tag("\x02\x00\x10\x00UI", 6);
        const auto ts = std::search(full.begin(), full.begin() + std::ptrdiff_t(data_at),
                                    ts_tag.begin(), ts_tag.end());
        QVERIFY(ts != full.begin() + std::ptrdiff_t(data_at));
        const std::size_t ts_at = std::size_t(ts - full.begin()) + 8;
        const std::size_t ts_length = full[ts_at - 2] | (full[ts_at - 1] << 8);
        const std::string deflated_ts = "1.2.840.10008.1.2.1.99";  // 22 characters: even
        Bytes file(full.begin(), full.begin() + std::ptrdiff_t(ts_at));
        file.insert(file.end(), deflated_ts.begin(), deflated_ts.end());
        file.insert(file.end(), full.begin() + std::ptrdiff_t(ts_at + ts_length),
                    full.begin() + std::ptrdiff_t(data_at));
        file[ts_at - 2] = std::uint8_t(deflated_ts.size());
        const std::uint32_t new_meta = meta_length + std::uint32_t(deflated_ts.size() - ts_length);
        for (int k = 0; k < 4; ++k) file[140 + std::size_t(k)] = std::uint8_t(new_meta >> (8 * k));
        z_stream z{};
        QCOMPARE(deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
        Bytes packed(full.size() + 1024);
        z.next_in = const_cast<Bytef*>(full.data() + data_at);
        z.avail_in = uInt(full.size() - data_at);
        z.next_out = packed.data();
        z.avail_out = uInt(packed.size());
        QCOMPARE(deflate(&z, Z_FINISH), Z_STREAM_END);
        packed.resize(packed.size() - z.avail_out);
        deflateEnd(&z);
        file.insert(file.end(), packed.begin(), packed.end());

        const io::LoadedNative loaded = io::decode_native(file, "deflated.dcm");
        for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 13; ++x)
                QCOMPARE(loaded.pages.at(0).samples<std::int16_t>(y)[x], ct_value(x, y));
        QCOMPARE(loaded.calibration, (Calibration{1.0, -1024.0, "HU"}));
        // Cut inside the deflate stream: refused as truncated, by name.
        const Bytes cut(file.begin(), file.end() - 20);
        try {
            (void)io::decode_native(cut, "cut.dcm");
            QFAIL("a cut deflated DICOM opened");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("deflated DICOM data set is truncated") !=
                         std::string::npos,
                     e.what());
        }
#endif
    }

    void dicom_unsigned_16_bit() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec;
        spec.width = 9;
        spec.height = 3;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT16);
        spec.modality = "MR";
        std::vector<std::uint16_t> values;
        for (int i = 0; i < 27; ++i) values.push_back(std::uint16_t(i == 26 ? 65535 : i * 2417));
        spec.pixels = as_bytes(values);
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "mr.dcm");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::U16, 1}));
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 9; ++x)
                QCOMPARE(image.samples<std::uint16_t>(y)[x], values[y * 9 + x]);
        QCOMPARE(loaded.calibration, Calibration{});  // no rescale, not CT: no unit
        QVERIFY(!loaded.window.has_value());
        QCOMPARE(loaded.info.sample, SampleType::U16);
        QCOMPARE(loaded.info.bit_depth, 16);
#endif
    }

    // 12 bits stored in 16-bit cells whose top bits hold garbage (overlays, old scanners): the
    // values are the low 12 bits, sign-extended for signed data.
    void dicom_12_bits_stored_are_masked_and_sign_extended() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec;
        spec.width = 5;
        spec.height = 2;
        spec.format = gdcm::PixelFormat(1, 16, 12, 11, 1);
        const std::vector<int> expected = {-2048, -1, 0, 1, 2047, -1000, 1000, -7, 7, 123};
        std::vector<std::uint16_t> cells;
        for (const int v : expected) cells.push_back(std::uint16_t(0xA000 | (v & 0x0FFF)));
        spec.pixels = as_bytes(cells);
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "12bit.dcm");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.sample_type(), SampleType::I16);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(int(image.samples<std::int16_t>(i / 5)[i % 5]), expected[i]);
#endif
    }

    void dicom_rgb_8_bit() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        QFETCH(unsigned, planar);
        DicomSpec spec;
        spec.width = 3;
        spec.height = 2;
        spec.format = gdcm::PixelFormat(3, 8, 8, 7, 0);
        spec.photometric = gdcm::PhotometricInterpretation::RGB;
        spec.planar = planar;
        spec.modality = "XC";
        const auto channel = [](const int x, const int y, const int c) {
            return std::uint8_t(x * 40 + y * 100 + c * 7 + 1);
        };
        std::vector<std::uint8_t> stored;
        if (planar == 0) {
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x)
                    for (int c = 0; c < 3; ++c) stored.push_back(channel(x, y, c));
        } else {
            for (int c = 0; c < 3; ++c)
                for (int y = 0; y < 2; ++y)
                    for (int x = 0; x < 3; ++x) stored.push_back(channel(x, y, c));
        }
        spec.pixels = as_bytes(stored);
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "rgb.dcm");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::U8, 3}));
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 3; ++x)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(image.samples<std::uint8_t>(y)[x * 3 + c], channel(x, y, c));
        QCOMPARE(loaded.info.channels, 3);
        QCOMPARE(loaded.info.bit_depth, 8);
        QCOMPARE(loaded.info.has_alpha, false);
#endif
    }
    void dicom_rgb_8_bit_data() {
        QTest::addColumn<unsigned>("planar");
        QTest::newRow("interleaved") << 0u;
        QTest::newRow("planar") << 1u;
    }

    void dicom_monochrome1_keeps_values_with_a_notice() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec = ct_spec();
        spec.photometric = gdcm::PhotometricInterpretation::MONOCHROME1;
        spec.modality = "CR";
        spec.window_center = "100\\200";  // several windows: the first one counts
        spec.window_width = "50\\80";
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "cr.dcm");
        QCOMPARE(loaded.pages.at(0).samples<std::int16_t>(6)[12], ct_value(12, 6));
        QVERIFY(has_notice(loaded, "MONOCHROME1"));
        QCOMPARE(loaded.calibration.unit, std::string());  // not CT, no Rescale Type
        QCOMPARE(loaded.window->first, 75.0);
        QCOMPARE(loaded.window->second, 125.0);
#endif
    }

    // Every frame of a multi-frame DICOM is a page, in order, like a multi-page TIFF's.
    void dicom_multiframe_opens_as_pages() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec;
        spec.width = 4;
        spec.height = 2;
        spec.frames = 3;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        for (int f = 0; f < 3; ++f)
            for (int i = 0; i < 8; ++i) spec.pixels.push_back(char(f * 50 + i));
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "cine.dcm");
        QCOMPARE(loaded.pages.size(), std::size_t{3});
        QCOMPARE(loaded.info.pages, 3);
        for (int f = 0; f < 3; ++f)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 4; ++x)
                    QCOMPARE(loaded.pages[f].sample(x, y, 0), double(f * 50 + y * 4 + x));
#endif
    }

    // The time between frames: Frame Time, else an even Frame Time Vector, else the vector's
    // mean with a notice; nothing for a single frame or a vector that does not fit.
    void dicom_frame_time_gives_the_interval() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const auto read = [](const int frames, std::vector<DicomSpec::Text> extra) {
            DicomSpec spec;
            spec.width = 4;
            spec.height = 2;
            spec.frames = frames;
            spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
            spec.pixels.assign(static_cast<std::size_t>(8 * frames), char(7));
            spec.extra = std::move(extra);
            return io::detail::read_dicom(write_dicom(spec), "cine.dcm");
        };
        const gdcm::Tag frame_time(0x0018, 0x1063), vector(0x0018, 0x1065);
        io::LoadedNative l = read(3, {{ frame_time, gdcm::VR::DS, "40" }});
        QVERIFY(l.frame_interval.has_value());
        QCOMPARE(l.frame_interval->seconds, 0.04);
        QCOMPARE(l.frame_interval->source, std::string("DICOM Frame Time 40 ms"));
        l = read(3, {{ vector, gdcm::VR::DS, "0\\33.5\\33.5" }});
        QCOMPARE(l.frame_interval->seconds, 0.0335);
        QVERIFY(l.notices.empty());
        l = read(4, {{ vector, gdcm::VR::DS, "0\\30\\50\\40" }});
        QCOMPARE(l.frame_interval->seconds, 0.04);
        QVERIFY(std::any_of(l.notices.begin(), l.notices.end(), [](const std::string& n) {
            return n.find("vary from 30 ms to 50 ms") != std::string::npos;
        }));
        l = read(4, {{ vector, gdcm::VR::DS, "0\\30\\50" }});  // three times for four frames
        QVERIFY(!l.frame_interval);
        QVERIFY(!l.notices.empty());
        l = read(3, {{ frame_time, gdcm::VR::DS, "-5" }});
        QVERIFY(!l.frame_interval);
        QVERIFY(!read(1, {{ frame_time, gdcm::VR::DS, "40" }}).frame_interval);
        QVERIFY(!read(3, {}).frame_interval);
#endif
    }

    // 32-bit integer samples (RT dose grids) are read as float, exact below 2^24, with a notice.
    void dicom_32_bit_reads_as_float() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec;
        spec.width = 3;
        spec.height = 2;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT32);
        spec.modality = "RTDOSE";
        const std::vector<std::uint32_t> values = {0, 1, 1249000, 16777216, 7, 65536};
        spec.pixels = as_bytes(values);
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "dose.dcm");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.sample_type(), SampleType::F32);
        for (int i = 0; i < 6; ++i) QCOMPARE(image.sample(i % 3, i / 3, 0), double(values[i]));
        QVERIFY(has_notice(loaded, "32-bit unsigned integer DICOM samples read as 32-bit float"));
#endif
    }

    // A Number of Frames that is not a number ("1A", pydicom's badVR.dcm) makes the file corrupt;
    // it is not read as its leading digits.
    void dicom_number_of_frames_must_be_a_number() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        DicomSpec spec;
        spec.width = 2;
        spec.height = 2;
        spec.frames = 2;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        spec.pixels.assign(8, 3);
        Bytes bytes = write_dicom(spec);
        const std::array<std::uint8_t, 8> frames = {0x28, 0x00, 0x08, 0x00, 'I', 'S', 2, 0};
        const auto at = std::search(bytes.begin(), bytes.end(), frames.begin(), frames.end());
        QVERIFY(at != bytes.end());
        QCOMPARE(char(at[8]), '2');
        at[9] = 'A';  // "2 " → "2A"
        const Failure f = failure_of([&] { return io::detail::read_dicom(bytes, "bad.dcm"); });
        QCOMPARE(f.code, ErrorCode::Corrupt);
        QVERIFY2(f.message.contains("Number of Frames '2A'"), qPrintable(f.message));
#endif
    }

    // YBR_FULL colour becomes RGB as PS3.3 C.7.6.3.1.2 and pydicom compute it (rounded, clipped);
    // YBR_FULL_422 (Y1 Y2 Cb Cr per pair of pixels) is expanded first.
    void dicom_ybr_full_becomes_rgb() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        QFETCH(bool, subsampled);
        DicomSpec spec;
        spec.width = 2;
        spec.height = 1;
        spec.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        spec.format.SetSamplesPerPixel(3);
        spec.modality = "OT";
        // Pixel 0: Y 100 without chroma is grey 100; pixel 1: Y 76, Cb 85, Cr 255 → R 254.05,
        // G 0.10, B -0.20 → (254, 0, 0). Subsampled, both share Cb 85, Cr 255.
        if (subsampled) {
            spec.photometric = gdcm::PhotometricInterpretation::YBR_FULL_422;
            spec.pixels = {char(100), char(76), char(85), char(255)};
        } else {
            spec.photometric = gdcm::PhotometricInterpretation::YBR_FULL;
            spec.pixels = {char(100), char(128), char(128), char(76), char(85), char(255)};
        }
        const io::LoadedNative loaded = io::detail::read_dicom(write_dicom(spec), "ybr.dcm");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::U8, 3}));
        // Y 100, Cb 85, Cr 255: R 100+1.402·127 = 278 → 255; G 100+14.80−90.70 = 24.1 → 24;
        // B 100−76.2 = 23.8 → 24.
        const std::array<int, 6> expected = subsampled
                                                ? std::array<int, 6>{255, 24, 24, 254, 0, 0}
                                                : std::array<int, 6>{100, 100, 100, 254, 0, 0};
        for (int i = 0; i < 6; ++i) QCOMPARE(int(image.sample(i / 3, 0, i % 3)), expected[i]);
        QVERIFY(has_notice(loaded, "converted to RGB"));
#endif
    }
    void dicom_ybr_full_becomes_rgb_data() {
        QTest::addColumn<bool>("subsampled");
        QTest::newRow("YBR_FULL") << false;
        QTest::newRow("YBR_FULL_422") << true;
    }

    void dicom_intercept_without_slope_is_corrupt_not_an_abort() {
        // GDCM 3.0 asserts (and so ends the process) on a rescale intercept whose slope is
        // missing or empty (found by fuzz_image_decode: a bit flip moved the slope to group
        // 0x2800, input kept as a regression seed). The reader refuses such a file before GDCM
        // sees it.
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        const std::array<std::uint8_t, 4> slope_tag = {0x28, 0x00, 0x53, 0x10};
        const auto at = std::search(bytes.begin(), bytes.end(), slope_tag.begin(), slope_tag.end());
        QVERIFY(at != bytes.end());
        for (const bool empty_value : {false, true}) {
            Bytes damaged = bytes;
            const auto offset = at - bytes.begin();
            const std::size_t length = damaged[offset + 6] | (damaged[offset + 7] << 8);
            // Without the value (an empty slope), or without the whole element (no slope).
            const auto from = damaged.begin() + (empty_value ? offset + 8 : offset);
            damaged.erase(from, damaged.begin() + offset + 8 + static_cast<std::ptrdiff_t>(length));
            if (empty_value) {
                damaged[offset + 6] = 0;
                damaged[offset + 7] = 0;
            }
            const Failure f =
                failure_of([&] { return io::detail::read_dicom(damaged, "slope.dcm"); });
            QCOMPARE(f.code, ErrorCode::Corrupt);
            QVERIFY2(f.message.contains("slope.dcm") &&
                         f.message.contains("rescale intercept but no rescale slope"),
                     qPrintable(f.message));
        }
        // The undamaged file still opens with its rescale.
        QCOMPARE(io::detail::read_dicom(bytes, "ct.dcm").pages.at(0).width(), ct_spec().width);
#endif
    }

    void dicom_truncated_to_half_is_truncated() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        const Failure f = failure_of(
            [&] { return io::detail::read_dicom(prefix(bytes, bytes.size() / 2), "half.dcm"); });
        QCOMPARE(f.code, ErrorCode::Truncated);
        QVERIFY2(f.message.contains("half.dcm") && f.message.contains("truncated"),
                 qPrintable(f.message));
#endif
    }

    void dicom_cut_inside_pixel_data_is_truncated() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        const Failure f = failure_of(
            [&] { return io::detail::read_dicom(prefix(bytes, bytes.size() - 11), "cut.dcm"); });
        QCOMPARE(f.code, ErrorCode::Truncated);
        QVERIFY2(f.message.contains("cut.dcm") && f.message.contains("pixel data"),
                 qPrintable(f.message));
#endif
    }

    // Every prefix of a valid file: an Error naming the file, never a crash (GDCM asserts on
    // some of these when handed them directly).
    void dicom_every_prefix_fails_cleanly() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            const Failure f =
                failure_of([&] { return io::detail::read_dicom(prefix(bytes, n), "p.dcm"); });
            const bool expected = f.code == ErrorCode::Truncated || f.code == ErrorCode::Corrupt ||
                                  f.code == ErrorCode::UnsupportedFormat;
            QVERIFY2(expected && f.message.contains("p.dcm"),
                     qPrintable(QString("prefix %1: %2").arg(n).arg(f.message)));
            if (n < 132) QCOMPARE(f.code, ErrorCode::Corrupt);  // no DICM marker
        }
#endif
    }

    void dicom_garbage_after_preamble_is_corrupt() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        Bytes bytes(132, 0);
        std::memcpy(bytes.data() + 128, "DICM", 4);
        for (int i = 0; i < 600; ++i) bytes.push_back(std::uint8_t((i * 7919 + 13) % 251));
        const Failure f = failure_of([&] { return io::detail::read_dicom(bytes, "junk.dcm"); });
        QCOMPARE(f.code, ErrorCode::Corrupt);
        QVERIFY2(f.message.contains("junk.dcm"), qPrintable(f.message));
#endif
    }

    // Each single byte of the header replaced by garbage: an Error or an image, never a crash.
    void dicom_damaged_header_bytes_fail_cleanly() {
        SKIP_WITHOUT_DICOM();
#if LACUNA_TEST_GDCM
        const Bytes bytes = write_dicom(ct_spec());
        const std::size_t header_end = bytes.size() - 13 * 7 * 2;
        for (std::size_t at = 128; at < header_end; ++at) {
            for (const std::uint8_t value :
                 {std::uint8_t(0x00), std::uint8_t(0xFF), std::uint8_t(0x41)}) {
                Bytes damaged = bytes;
                damaged[at] = value;
                const Failure f =
                    failure_of([&] { return io::detail::read_dicom(damaged, "d.dcm"); });
                if (f.code != ErrorCode::DeviceError) {
                    QVERIFY2(f.message.contains("d.dcm"), qPrintable(f.message));
                }
            }
        }
#endif
    }

    // ---- FITS ----

    void fits_float_image_flipped_with_nan_and_unit() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        std::vector<float> values = fits_pattern<float>(11, 5);
        for (float& v : values) v *= 0.25f;
        values[2 * 11 + 4] = std::numeric_limits<float>::quiet_NaN();  // FITS row 2, column 4
        const Bytes bytes = fits_file("f.fits", FLOAT_IMG, {11, 5},
                                      {1.0, std::nullopt, std::nullopt, "K"}, TFLOAT, values);
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "f.fits");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::F32, 1}));
        QCOMPARE(image.width(), 11);
        QCOMPARE(image.height(), 5);
        for (int y = 0; y < 5; ++y) {
            const int fits_row = 4 - y;  // row 0 is the top: FITS's last row
            for (int x = 0; x < 11; ++x) {
                const float v = image.samples<float>(y)[x];
                if (fits_row == 2 && x == 4) {
                    QVERIFY(std::isnan(v));
                } else {
                    QCOMPARE(v, float(fits_value(x, fits_row)) * 0.25f);
                }
            }
        }
        QCOMPARE(loaded.calibration, (Calibration{1.0, 0.0, "K"}));
        QVERIFY(!loaded.window.has_value());
        QCOMPARE(loaded.info.format, io::ImageFormat::Fits);
        QCOMPARE(loaded.info.width, 11);
        QCOMPARE(loaded.info.height, 5);
        QCOMPARE(loaded.info.channels, 1);
        QCOMPARE(loaded.info.bit_depth, 32);
        QCOMPARE(loaded.info.sample, SampleType::F32);
        QCOMPARE(loaded.info.file_bytes, std::uintmax_t(bytes.size()));
        QVERIFY(loaded.notices.empty());
#endif
    }

    void fits_bzero_32768_is_unsigned_16_bit() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        // Stored = value − 32768, as CFITSIO's USHORT_IMG writes it.
        std::vector<std::int16_t> stored;
        std::vector<std::uint16_t> expected;
        for (int i = 0; i < 6 * 4; ++i) {
            const std::uint16_t v = i == 0 ? 0 : i == 1 ? 65535 : std::uint16_t(i * 2731);
            expected.push_back(v);
            stored.push_back(std::int16_t(int(v) - 32768));
        }
        const Bytes bytes = fits_file("u16.fits", SHORT_IMG, {6, 4},
                                      {1.0, 32768.0, std::nullopt, ""}, TSHORT, stored);
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "u16.fits");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::U16, 1}));
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 6; ++x)
                QCOMPARE(image.samples<std::uint16_t>(y)[x], expected[(3 - y) * 6 + x]);
        QCOMPARE(loaded.calibration, Calibration{});
        QCOMPARE(loaded.info.sample, SampleType::U16);
        QCOMPARE(loaded.info.bit_depth, 16);
#endif
    }

    void fits_scaled_16_bit_keeps_stored_values() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const std::vector<std::int16_t> stored = fits_pattern<std::int16_t>(7, 3);
        const Bytes bytes = fits_file("s16.fits", SHORT_IMG, {7, 3},
                                      {0.5, 100.0, std::nullopt, "mK"}, TSHORT, stored);
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "s16.fits");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.format(), (PixelFormat{SampleType::I16, 1}));
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 7; ++x)
                QCOMPARE(int(image.samples<std::int16_t>(y)[x]), fits_value(x, 2 - y));
        QCOMPARE(loaded.calibration, (Calibration{0.5, 100.0, "mK"}));
#endif
    }

    void fits_other_bitpix() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        QFETCH(int, bitpix);
        QFETCH(int, datatype);
        QFETCH(int, sample);
        QFETCH(QString, notice);
        // Values every type holds exactly (0..255 for BITPIX 8).
        std::vector<double> values;
        for (int r = 0; r < 2; ++r)
            for (int x = 0; x < 3; ++x)
                values.push_back(bitpix == BYTE_IMG ? x * 10 + r * 50 + 1 : fits_value(x, r) + 0.0);
        const Bytes bytes = fits_file("o.fits", bitpix, {3, 2}, {}, datatype, values);
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "o.fits");
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(int(image.sample_type()), sample);
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 3; ++x) QCOMPARE(image.sample(x, y, 0), values[(1 - y) * 3 + x]);
        if (notice.isEmpty()) {
            QVERIFY(loaded.notices.empty());
        } else {
            QVERIFY(has_notice(loaded, notice.toUtf8().constData()));
        }
#endif
    }
    void fits_other_bitpix_data() {
#if LACUNA_TEST_CFITSIO
        QTest::addColumn<int>("bitpix");
        QTest::addColumn<int>("datatype");
        QTest::addColumn<int>("sample");
        QTest::addColumn<QString>("notice");
        QTest::newRow("8-bit") << BYTE_IMG << TDOUBLE << int(SampleType::U8) << QString();
        QTest::newRow("32-bit integer")
            << LONG_IMG << TDOUBLE << int(SampleType::F32) << "32-bit integer FITS read as float";
        QTest::newRow("64-bit float") << DOUBLE_IMG << TDOUBLE << int(SampleType::F32)
                                      << "64-bit float FITS read as 32-bit float";
#else
        QTest::addColumn<int>("bitpix");
        QTest::newRow("no CFITSIO") << 0;
#endif
    }

    void fits_blank_is_nan() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        std::vector<std::int16_t> stored = fits_pattern<std::int16_t>(4, 4);
        stored[5] = stored[9] = -32768;
        const Bytes bytes = fits_file("b.fits", SHORT_IMG, {4, 4},
                                      {std::nullopt, std::nullopt, -32768, ""}, TSHORT, stored);
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "b.fits");
        QVERIFY(has_notice(loaded, "BLANK value -32768 marks 2 undefined pixels"));
        // Undefined pixels are NaN, as astropy gives them; the rest keep their stored values.
        const NativeImage& image = loaded.pages.at(0);
        QCOMPARE(image.sample_type(), SampleType::F32);
        QCOMPARE(loaded.info.sample, SampleType::F32);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) {
                const int i = (3 - y) * 4 + x;
                if (i == 5 || i == 9)
                    QVERIFY(std::isnan(image.sample(x, y, 0)));
                else
                    QCOMPARE(image.sample(x, y, 0), double(stored[i]));
            }
#endif
    }

    void fits_plane_with_unit_third_axis_opens() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("p.fits", FLOAT_IMG, {4, 3, 1}, {}, TFLOAT, fits_pattern<float>(4, 3));
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "p.fits");
        QCOMPARE(loaded.pages.at(0).width(), 4);
        QCOMPARE(loaded.pages.at(0).samples<float>(0)[3], float(fits_value(3, 2)));
#endif
    }

    // A cube's planes are pages, in order (like a multi-page TIFF); a line is one row.
    void fits_cube_opens_as_pages() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("c.fits", FLOAT_IMG, {4, 3, 4}, {}, TFLOAT, fits_pattern<float>(4, 12));
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "cube.fits");
        QCOMPARE(loaded.pages.size(), std::size_t{4});
        QCOMPARE(loaded.info.pages, 4);
        // Page p holds FITS rows 3p .. 3p+2 of the pattern, bottom row first.
        for (int p = 0; p < 4; ++p)
            for (int y = 0; y < 3; ++y)
                for (int x = 0; x < 4; ++x)
                    QCOMPARE(loaded.pages[p].sample(x, y, 0),
                             double(fits_value(x, p * 3 + (2 - y))));
#endif
    }

    // CDELT3 in a time CUNIT3, or seconds on a TIME axis; a spectral third axis has no time.
    void fits_time_axis_gives_the_interval() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const auto read = [&](const std::vector<long>& axes,
                              std::vector<std::pair<std::string, double>> numbers,
                              std::vector<std::pair<std::string, std::string>> strings) {
            FitsKeys keys;
            keys.numbers = std::move(numbers);
            keys.strings = std::move(strings);
            long n = 1;
            for (const long a : axes) n *= a;
            const Bytes bytes = fits_file("t.fits", FLOAT_IMG, axes, keys, TFLOAT,
                                          std::vector<float>(static_cast<std::size_t>(n), 1.0f));
            return io::detail::read_fits(bytes, "t.fits");
        };
        io::LoadedNative l = read({4, 3, 5}, {{ "CDELT3", 2.0 }}, {{ "CUNIT3", "s" }});
        QCOMPARE(l.frame_interval->seconds, 2.0);
        QCOMPARE(l.frame_interval->source, std::string("FITS CDELT3 = 2 s"));
        l = read({4, 3, 5}, {{ "CDELT3", 50.0 }}, {{ "CUNIT3", "ms" }});
        QCOMPARE(l.frame_interval->seconds, 0.05);
        l = read({4, 3, 5}, {{ "CDELT3", 1.5 }}, {{ "CTYPE3", "TIME" }});
        QCOMPARE(l.frame_interval->seconds, 1.5);
        QVERIFY(!read({4, 3, 5}, {{ "CDELT3", 0.5 }}, {{ "CUNIT3", "Angstrom" }}).frame_interval);
        QVERIFY(!read({4, 3, 5}, {{ "CDELT3", 0.5 }}, {}).frame_interval);  // no unit, no TIME
        QVERIFY(!read({4, 3, 5}, {}, {{ "CUNIT3", "s" }}).frame_interval);
        l = read({4, 3, 5}, {{ "CDELT3", -2.0 }}, {{ "CUNIT3", "s" }});
        QVERIFY(!l.frame_interval);
        QVERIFY(!l.notices.empty());
        QVERIFY(!read({4, 3, 1}, {{ "CDELT3", 2.0 }}, {{ "CUNIT3", "s" }}).frame_interval);
#endif
    }

    // ImageJ's description: finterval in tunit (sec by default), else 1/fps.
    void imagej_frame_interval() {
        using io::detail::frame_interval_from_imagej;
        auto f = frame_interval_from_imagej("ImageJ=1.53t\nimages=8\nfinterval=0.25\n");
        QCOMPARE(f->seconds, 0.25);
        QCOMPARE(f->source, std::string("ImageJ finterval=0.25 sec"));
        f = frame_interval_from_imagej("ImageJ=1.53t\nfinterval=40\ntunit=ms\nfps=7\n");
        QCOMPARE(f->seconds, 0.04);
        f = frame_interval_from_imagej("ImageJ=1.53t\nfinterval=2\ntunit=min\n");
        QCOMPARE(f->seconds, 120.0);
        f = frame_interval_from_imagej("ImageJ=1.53t\nfps=20\n");
        QCOMPARE(f->seconds, 0.05);
        QCOMPARE(f->source, std::string("ImageJ fps=20"));
        QVERIFY(!frame_interval_from_imagej("ImageJ=1.53t\nfinterval=2\ntunit=furlong\n"));
        QVERIFY(!frame_interval_from_imagej("ImageJ=1.53t\nfinterval=0\n"));
        QVERIFY(!frame_interval_from_imagej("ImageJ=1.53t\nfinterval=abc\n"));
        QVERIFY(!frame_interval_from_imagej("a photo\nfinterval=1\n"));
        QVERIFY(!frame_interval_from_imagej("ImageJ=1.53t\nimages=8\n"));
    }

    void fits_line_opens_as_one_row() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("l.fits", SHORT_IMG, {5}, {}, TSHORT, fits_pattern<std::int16_t>(5, 1));
        const io::LoadedNative loaded = io::detail::read_fits(bytes, "line.fits");
        QCOMPARE(loaded.pages.at(0).width(), 5);
        QCOMPARE(loaded.pages.at(0).height(), 1);
        for (int x = 0; x < 5; ++x)
            QCOMPARE(loaded.pages[0].sample(x, 0, 0), double(fits_value(x, 0)));
#endif
    }

    void fits_four_dimensions_are_refused_by_name() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("h.fits", FLOAT_IMG, {2, 2, 2, 2}, {}, TFLOAT, fits_pattern<float>(2, 8));
        const Failure f = failure_of([&] { return io::detail::read_fits(bytes, "4d.fits"); });
        QCOMPARE(f.code, ErrorCode::UnsupportedFormat);
        QVERIFY2(f.message.contains("4d.fits") && f.message.contains("2x2x2x2") &&
                     f.message.contains("1, 2 or 3 dimensions"),
                 qPrintable(f.message));
#endif
    }

    // astropy's zerowidth.fits: NAXIS1 = 777777701, NAXIS2 = 0. Said as it is, not as a clamped
    // "32769x0".
    void fits_array_without_pixels_is_named_as_it_is() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("z.fits", BYTE_IMG, {777777701, 0}, {}, TBYTE, std::vector<std::uint8_t>{});
        const Failure f = failure_of([&] { return io::detail::read_fits(bytes, "zero.fits"); });
        QCOMPARE(f.code, ErrorCode::UnsupportedFormat);
        QVERIFY2(f.message.contains("holds no image (its 777777701x0 array has no pixels)"),
                 qPrintable(f.message));
#endif
    }

    // .fits.gz (gzip around a FITS file) opens as the FITS inside; a gzip of anything else, or
    // a cut one, is refused in one sentence.
    void fits_gz_opens_as_the_fits_inside() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes plain =
            fits_file("g.fits", FLOAT_IMG, {4, 3}, {}, TFLOAT, fits_pattern<float>(4, 3));
        const Bytes gz = gzipped(plain);
        const io::LoadedNative loaded = io::decode_native(gz, "g.fits.gz");
        QCOMPARE(loaded.info.format, io::ImageFormat::Fits);
        QCOMPARE(loaded.info.file_bytes, std::uintmax_t(gz.size()));
        QCOMPARE(loaded.pages.at(0).sample(1, 0, 0), double(fits_value(1, 2)));
        Failure f =
            failure_of([&] { return io::decode_native(prefix(gz, gz.size() / 2), "cut.gz"); });
        QCOMPARE(f.code, ErrorCode::Truncated);
        QVERIFY2(f.message.contains("cut.gz") && f.message.contains("gzip"), qPrintable(f.message));
        const std::string text = "P2 1 1 255 7 not FITS";
        f = failure_of(
            [&] { return io::decode_native(gzipped(Bytes(text.begin(), text.end())), "p.gz"); });
        QCOMPARE(f.code, ErrorCode::UnsupportedFormat);
        QVERIFY2(f.message.contains("only when they hold FITS"), qPrintable(f.message));
#endif
    }

    // write_native to .fits keeps every sample type and the calibration: reading the file back
    // gives the same samples, calibration and unit, rows in the same order.
    void fits_writer_round_trips_every_sample_type() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        QFETCH(int, sample);
        QFETCH(double, slope);
        QFETCH(double, intercept);
        QFETCH(QString, bitpix_card);
        const SampleType type = SampleType(sample);
        NativeImage image(5, 3, PixelFormat{type, 1});
        const auto [lo, hi] = type == SampleType::F32 ? std::pair{-1e6, 1e6} : type_range(type);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) {
                // The range's ends, and values that say where they came from.
                const double v = y == 0 && x == 0 ? lo
                                 : y == 2 && x == 4
                                     ? hi
                                     : std::clamp(x * 10.0 + y * 1000.0 - 500.0 * (lo < 0), lo, hi);
                image.set_sample(x, y, 0, type == SampleType::F32 ? v + 0.25 : v);
            }
        const Calibration calibration{slope, intercept, slope == 1.0 ? "" : "HU"};
        io::WriteOptions options;
        options.calibration = &calibration;
        const fs::path path = tmp("written.fits");
        QVERIFY(io::write_native(path, image, options).empty());
        const Bytes bytes = file_bytes(path);
        QCOMPARE(bytes.size() % 2880, std::size_t(0));
        const std::string header(bytes.begin(), bytes.begin() + 2880);
        QVERIFY2(header.find(bitpix_card.toStdString()) != std::string::npos, header.c_str());
        const io::LoadedNative loaded = io::read_native(path);
        QCOMPARE(loaded.info.format, io::ImageFormat::Fits);
        const NativeImage& back = loaded.pages.at(0);
        QCOMPARE(back.width(), 5);
        QCOMPARE(back.height(), 3);
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 5; ++x) QCOMPARE(back.sample(x, y, 0), image.sample(x, y, 0));
        QCOMPARE(loaded.calibration, calibration);
#endif
    }
    void fits_writer_round_trips_every_sample_type_data() {
        QTest::addColumn<int>("sample");
        QTest::addColumn<double>("slope");
        QTest::addColumn<double>("intercept");
        QTest::addColumn<QString>("bitpix_card");
        QTest::newRow("u8") << int(SampleType::U8) << 1.0 << 0.0
                            << "BITPIX  =                    8";
        QTest::newRow("u16") << int(SampleType::U16) << 1.0 << 0.0
                             << "BITPIX  =                   16";
        QTest::newRow("u16 calibrated")
            << int(SampleType::U16) << 0.5 << -1024.0 << "BITPIX  =                   32";
        QTest::newRow("i16 calibrated")
            << int(SampleType::I16) << 2.0 << -1024.0 << "BITPIX  =                   16";
        QTest::newRow("f32") << int(SampleType::F32) << 1.0 << 0.0
                             << "BITPIX  =                  -32";
    }

    // Colour goes into NAXIS3 planes (R, G, B), the way FITS colour images are stored.
    void fits_writer_puts_colour_in_planes() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        NativeImage image(2, 2, PixelFormat{SampleType::U8, 3});
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x)
                for (int c = 0; c < 3; ++c) image.set_sample(x, y, c, 100 * c + 10 * y + x);
        const fs::path path = tmp("rgb.fits");
        QVERIFY(io::write_native(path, image).empty());
        const Bytes bytes = file_bytes(path);
        const std::string header(bytes.begin(), bytes.begin() + 2880);
        QVERIFY(header.find("NAXIS3  =                    3") != std::string::npos);
        // Data: plane R then G then B, each bottom row first.
        const std::size_t data = 2880;
        const std::vector<int> expected = {10, 11, 0, 1, 110, 111, 100, 101, 210, 211, 200, 201};
        for (std::size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(int(bytes.at(data + i)), expected[i]);
#endif
    }

    void fits_truncated_to_half_is_truncated() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("t.fits", FLOAT_IMG, {11, 5}, {}, TFLOAT, fits_pattern<float>(11, 5));
        const Failure f = failure_of(
            [&] { return io::detail::read_fits(prefix(bytes, bytes.size() / 2), "half.fits"); });
        QCOMPARE(f.code, ErrorCode::Truncated);
        QVERIFY2(f.message.contains("half.fits") && f.message.contains("truncated"),
                 qPrintable(f.message));
#endif
    }

    // Cut inside the header, inside the data, or only the padding missing.
    void fits_every_cut_is_classified() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        const Bytes bytes =
            fits_file("t.fits", FLOAT_IMG, {11, 5}, {}, TFLOAT, fits_pattern<float>(11, 5));
        const std::size_t data_end = 2880 + 11 * 5 * 4;
        for (std::size_t n = 9; n < bytes.size(); n += 7) {
            const Failure f =
                failure_of([&] { return io::detail::read_fits(prefix(bytes, n), "cut.fits"); });
            if (n >= data_end) {
                QCOMPARE(f.code, ErrorCode::DeviceError);  // only padding missing: the image reads
            } else {
                QVERIFY2(f.code == ErrorCode::Truncated && f.message.contains("cut.fits"),
                         qPrintable(QString("cut at %1: %2").arg(n).arg(f.message)));
            }
        }
#endif
    }

    void fits_corrupt_header_is_corrupt() {
        SKIP_WITHOUT_FITS();
#if LACUNA_TEST_CFITSIO
        Bytes bytes =
            fits_file("h.fits", FLOAT_IMG, {11, 5}, {}, TFLOAT, fits_pattern<float>(11, 5));
        for (std::size_t i = 80; i < 2880; ++i) bytes[i] = std::uint8_t((i * 7919 + 13) % 251);
        const Failure f = failure_of([&] { return io::detail::read_fits(bytes, "bad.fits"); });
        QCOMPARE(f.code, ErrorCode::Corrupt);
        QVERIFY2(f.message.contains("bad.fits") && f.message.contains("CFITSIO"),
                 qPrintable(f.message));
#endif
    }
};

QTEST_GUILESS_MAIN(TestScientificIo)
#include "test_scientific_io.moc"
