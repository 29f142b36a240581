// Writes the harnesses' seed corpus (fuzz/corpus/<harness>/): small images in every format the
// readers take (made here with Lacuna's own encoders; DICOM and FITS written byte by byte), short
// videos, command lines, and parameter records in each harness's input layout. Run by
// fuzz/make_corpus.sh; the output is committed, so this only runs when the seeds should change.
#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace io = lacuna::io;
using Bytes = std::vector<std::uint8_t>;

fs::path g_out;

void put(const std::string& harness, const std::string& name, const Bytes& bytes) {
    const fs::path dir = g_out / harness;
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

Bytes read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
void append(Bytes& b, const T value) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    b.insert(b.end(), p, p + sizeof(T));
}

lacuna::ImageRgba8 picture(const int w, const int h, const bool alpha) {
    lacuna::ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            image.row(y)[x] = {std::uint8_t(x * 255 / w), std::uint8_t(y * 255 / h),
                               std::uint8_t((x ^ y) * 16),
                               std::uint8_t(alpha ? (x + y) * 20 : 255)};
        }
    return image;
}

// A tiny ICC-like blob and an EXIF block, so the metadata readers have something to parse.
io::Metadata metadata() {
    io::Metadata m;
    m.icc.assign(132, 0);
    m.icc[3] = 132;
    std::memcpy(m.icc.data() + 36, "acsp", 4);
    // EXIF: little-endian TIFF header, one IFD with Orientation = 6.
    m.exif = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3,
              0,   1,   0,  0, 0, 6, 0, 0, 0, 0, 0,    0,    0};
    m.comment = "fuzz seed";
    return m;
}

Bytes fits(const int bitpix) {
    std::string header;
    const auto card = [&](const std::string& text) {
        std::string c = text;
        c.resize(80, ' ');
        header += c;
    };
    card("SIMPLE  =                    T");
    card("BITPIX  = " + std::string(20 - std::to_string(bitpix).size(), ' ') +
         std::to_string(bitpix));
    card("NAXIS   =                    2");
    card("NAXIS1  =                    6");
    card("NAXIS2  =                    4");
    card("BSCALE  =                  0.5");
    card("BZERO   =                 10.0");
    card("BUNIT   = 'K       '");
    card("END");
    header.resize(2880, ' ');
    Bytes b(header.begin(), header.end());
    const int bytes_per = std::abs(bitpix) / 8;
    Bytes data(std::size_t(6 * 4 * bytes_per), 0);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::uint8_t(i * 7);
    if (bitpix == -32) {
        for (int i = 0; i < 24; ++i) {  // big-endian floats
            const float f = float(i) * 0.25f;
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            for (int k = 0; k < 4; ++k)
                data[std::size_t(i * 4 + k)] = std::uint8_t(u >> (24 - 8 * k));
        }
    }
    b.insert(b.end(), data.begin(), data.end());
    b.resize(2880 * 2, 0);
    return b;
}

// DICOM Part 10, explicit VR little endian, a 6x4 signed 16-bit CT slice with rescale and window.
Bytes dicom() {
    Bytes b(128, 0);
    b.insert(b.end(), {'D', 'I', 'C', 'M'});
    const auto element = [&](Bytes& out, std::uint16_t group, std::uint16_t tag, const char* vr,
                             const Bytes& value) {
        append(out, group);
        append(out, tag);
        out.insert(out.end(), vr, vr + 2);
        const bool long_form = std::strcmp(vr, "OB") == 0 || std::strcmp(vr, "OW") == 0;
        if (long_form) {
            append(out, std::uint16_t{0});
            append(out, std::uint32_t(value.size()));
        } else {
            append(out, std::uint16_t(value.size()));
        }
        out.insert(out.end(), value.begin(), value.end());
    };
    const auto text = [](std::string s, const char pad) {
        if (s.size() % 2) s.push_back(pad);
        return Bytes(s.begin(), s.end());
    };
    const auto u16 = [](std::uint16_t v) { return Bytes{std::uint8_t(v), std::uint8_t(v >> 8)}; };
    Bytes meta;
    element(meta, 0x0002, 0x0001, "OB", {0, 1});
    element(meta, 0x0002, 0x0002, "UI", text("1.2.840.10008.5.1.4.1.1.7", '\0'));
    element(meta, 0x0002, 0x0003, "UI", text("1.2.3.4", '\0'));
    element(meta, 0x0002, 0x0010, "UI", text("1.2.840.10008.1.2.1", '\0'));
    Bytes group_length;
    append(group_length, std::uint32_t(meta.size()));
    element(b, 0x0002, 0x0000, "UL", group_length);
    b.insert(b.end(), meta.begin(), meta.end());
    element(b, 0x0008, 0x0016, "UI", text("1.2.840.10008.5.1.4.1.1.7", '\0'));
    element(b, 0x0008, 0x0060, "CS", text("CT", ' '));
    element(b, 0x0028, 0x0002, "US", u16(1));
    element(b, 0x0028, 0x0004, "CS", text("MONOCHROME2", ' '));
    element(b, 0x0028, 0x0010, "US", u16(4));
    element(b, 0x0028, 0x0011, "US", u16(6));
    element(b, 0x0028, 0x0100, "US", u16(16));
    element(b, 0x0028, 0x0101, "US", u16(16));
    element(b, 0x0028, 0x0102, "US", u16(15));
    element(b, 0x0028, 0x0103, "US", u16(1));
    element(b, 0x0028, 0x1050, "DS", text("40", ' '));
    element(b, 0x0028, 0x1051, "DS", text("400", ' '));
    element(b, 0x0028, 0x1052, "DS", text("-1024", ' '));
    element(b, 0x0028, 0x1053, "DS", text("1", ' '));
    Bytes pixels;
    for (int i = 0; i < 24; ++i) append(pixels, std::int16_t(i * 301 - 1000));
    element(b, 0x7FE0, 0x0010, "OW", pixels);
    return b;
}

std::vector<std::pair<std::string, Bytes>> images() {
    std::vector<std::pair<std::string, Bytes>> out;
    const io::Metadata meta = metadata();
    io::WriteOptions with_meta;
    with_meta.metadata = &meta;
    const auto rgb = picture(12, 9, false);
    const auto rgba = picture(10, 7, true);
    const struct {
        const char* name;
        io::ImageFormat format;
        const lacuna::ImageRgba8* image;
        bool meta;
    } plain[] = {{"rgb.png", io::ImageFormat::Png, &rgb, true},
                 {"rgba.png", io::ImageFormat::Png, &rgba, false},
                 {"rgb.jpg", io::ImageFormat::Jpeg, &rgb, true},
                 {"rgb.tiff", io::ImageFormat::Tiff, &rgb, true},
                 {"rgba.webp", io::ImageFormat::Webp, &rgba, true},
                 {"rgb.bmp", io::ImageFormat::Bmp, &rgb, false},
                 {"rgb.ppm", io::ImageFormat::Ppm, &rgb, false},
                 {"grey.pgm", io::ImageFormat::Pgm, &rgb, false}};
    for (const auto& p : plain) {
        out.emplace_back(p.name, io::encode_image(p.image->view(), p.format,
                                                  p.meta ? with_meta : io::WriteOptions{}));
    }
    // Deep samples go through write_native (files only): 16-bit PNG, TIFF, PGM; float TIFF; PFM.
    const fs::path tmp = fs::temp_directory_path() / "lacuna-make-corpus";
    fs::create_directories(tmp);
    const auto native = [&](const char* name, lacuna::SampleType type, int channels) {
        lacuna::NativeImage image(7, 5, {type, channels});
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x)
                for (int c = 0; c < channels; ++c) image.set_sample(x, y, c, x * 1000 + y * 77 + c);
        io::write_native(tmp / name, image);
        out.emplace_back(name, read_all(tmp / name));
    };
    native("grey16.png", lacuna::SampleType::U16, 1);
    native("rgb16.tiff", lacuna::SampleType::U16, 3);
    native("grey16.pgm", lacuna::SampleType::U16, 1);
    native("float.tiff", lacuna::SampleType::F32, 1);
    native("float.pfm", lacuna::SampleType::F32, 1);
    native("rgbfloat.pfm", lacuna::SampleType::F32, 3);
    out.emplace_back("i16.fits", fits(16));
    out.emplace_back("f32.fits", fits(-32));
    out.emplace_back("ct.dcm", dicom());
    fs::remove_all(tmp);
    return out;
}

void image_seeds() {
    for (const auto& [name, bytes] : images()) {
        put("fuzz_image_decode", name, bytes);
        // Mask seeds: the size to match (the image's, or one pixel off), then the file.
        const auto loaded = io::decode_image(bytes, name);
        for (const int off : {0, 1}) {
            Bytes seed;
            append(seed, std::uint16_t(loaded.image.width() + off));
            append(seed, std::uint16_t(loaded.image.height()));
            seed.insert(seed.end(), bytes.begin(), bytes.end());
            put("fuzz_mask_load", (off ? "off-by-one-" : "") + name, seed);
        }
    }
}

// The constructed files of tests/data/formats (grey+tRNS, CMYK, tiled, planar,
// BigTIFF, signed 16-bit TIFF, animated GIF, and the refused ones), as they are.
void format_file_seeds() {
    const fs::path dir = fs::path(LACUNA_SOURCE_DIR) / "tests/data/formats";
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".py") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        const Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::string name = "format-" + entry.path().filename().string();
        put("fuzz_image_decode", name, bytes);
        try {
            const auto loaded = io::decode_image(bytes, name);
            Bytes seed;
            append(seed, std::uint16_t(loaded.image.width()));
            append(seed, std::uint16_t(loaded.image.height()));
            seed.insert(seed.end(), bytes.begin(), bytes.end());
            put("fuzz_mask_load", name, seed);
        } catch (const lacuna::Error&) {
            // refused on purpose (palette index, cut JPEG): a seed for the decoder only
        }
    }
}

void video_seeds() {
    const fs::path tmp = fs::temp_directory_path() / "lacuna-make-corpus-video";
    fs::create_directories(tmp);
    // Kinds as in fuzz_video_open.cpp: 0 .mp4, 1 .avi, 2 .mkv, ..., 7 %d.png.
    const struct {
        const char* file;
        std::uint8_t kind;
    } videos[] = {{"clip.mp4", 0}, {"clip.avi", 1}, {"clip.mkv", 2}, {"clip.mov", 3}};
    for (const auto& v : videos) {
        try {
            io::VideoWriter writer(tmp / v.file, 16, 12, 10.0);
            for (int i = 0; i < 3; ++i) writer.write(picture(16, 12, false));
            writer.finish();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "make_corpus: no %s seed (%s)\n", v.file, e.what());
            continue;
        }
        Bytes seed{v.kind};
        const Bytes file = read_all(tmp / v.file);
        seed.insert(seed.end(), file.begin(), file.end());
        put("fuzz_video_open", v.file, seed);
    }
    Bytes png{7};
    const Bytes frame = io::encode_image(picture(8, 6, false).view(), io::ImageFormat::Png);
    png.insert(png.end(), frame.begin(), frame.end());
    put("fuzz_video_open", "sequence-frame.png", png);
    fs::remove_all(tmp);
}

void cli_seeds() {
    // Command index (cli::commands() order: info, convert, backend, retarget, inpaint, batch,
    // histogram, bench), a reference size for percentages, NUL-separated args.
    const struct {
        const char* name;
        std::uint8_t command;
        std::vector<std::string> args;
    } lines[] = {
        {"info", 0, {"a.png", "b.tiff", "--json"}},
        {"convert", 1, {"in.tiff", "out.png", "--quality", "90", "--page", "2"}},
        {"retarget-percent", 3, {"in.jpg", "out.jpg", "--width", "50%", "--height", "480"}},
        {"retarget-masks",
         3,
         {"in.png", "out.png", "--protect=p.png", "--remove", "r.png", "--energy", "sobel"}},
        {"retarget-video", 3, {"frames/%05d.png", "out.mp4", "--width", "75%", "--backend", "cpu"}},
        {"histogram",
         6,
         {"in.png", "--from", "1,2.5", "--to", "30,40", "--band", "9", "--bins", "64", "--range",
          "0,255", "--channel", "rgb"}},
        {"inpaint",
         4,
         {"in.png", "mask.png", "out.png", "--patch", "9", "--window", "0.5", "--seed", "42"}},
        {"bench", 7, {"retarget", "--size", "640x480", "--target", "320x240"}},
        {"backend-help", 2, {"--help"}},
        {"batch", 5, {"list.txt", "--json"}},
        {"dashdash", 3, {"--", "-in.png", "--out.png"}},
    };
    for (const auto& line : lines) {
        Bytes seed{line.command};
        append(seed, std::uint16_t(640 - 1));
        for (std::size_t i = 0; i < line.args.size(); ++i) {
            if (i > 0) seed.push_back(0);
            seed.insert(seed.end(), line.args[i].begin(), line.args[i].end());
        }
        put("fuzz_cli_args", line.name, seed);
    }
}

void histogram_seeds() {
    // Layout: mode (bit 0 measurement, bit 1 direction), width-1, height-1, pixels, parameters.
    const auto line_seed = [](std::uint8_t mode, double x0, double y0, double x1, double y1,
                              int band, int bins, bool range, float lo, float hi) {
        Bytes b{mode, 15, 11};
        if (mode & 1) {
            for (int i = 0; i < 16 * 12; ++i) append(b, float(i % 17) * 1.5f - 3.0f);
        } else {
            b.push_back(40);
        }
        if (mode & 2) {
            append(b, x0);
        } else {
            append(b, x0), append(b, y0), append(b, x1), append(b, y1);
            b.push_back(1), append(b, std::int32_t(band));
        }
        b.push_back(1), append(b, std::int32_t(bins));
        b.push_back(range ? 1 : 0), append(b, lo), append(b, hi);
        b.push_back(mode & 1 ? 5 : 4);  // channel: value for measurements, rgb for photos
        b.push_back(1);                 // bilinear
        if (mode & 2) append(b, 0.0), append(b, 0.0), append(b, 10.0), append(b, 7.0);
        return b;
    };
    put("fuzz_line_histogram", "photo-line", line_seed(0, 0, 0, 15, 11, 3, 32, false, 0, 0));
    put("fuzz_line_histogram", "photo-clipped", line_seed(0, -5, 3, 40, 9, 1, 256, true, 10, 200));
    put("fuzz_line_histogram", "measurement-line", line_seed(1, 2, 2, 9, 1.5, 5, 16, false, 0, 0));
    put("fuzz_line_histogram", "photo-direction", line_seed(2, 30, 0, 0, 0, 0, 64, false, 0, 0));
    put("fuzz_line_histogram", "measurement-direction",
        line_seed(3, 90, 0, 0, 0, 0, 8, true, -1, 20));
}

void retarget_seeds() {
    // Layout: width-1, height-1, RGB pixels, target w, h (int16), energy, protect, remove (a
    // selector byte, see mask_from in fuzz_retarget.cpp: 0 none, 5 and 10 the image's size, 1 a
    // pixel narrower, 4 everything; then one byte per row), overlay, seams (int16), factor (int8),
    // implementation.
    const auto seed = [](int w, int h, int tw, int th, std::uint8_t energy, std::uint8_t protect,
                         std::uint8_t remove, int seams, int factor) {
        Bytes b{std::uint8_t(w - 1), std::uint8_t(h - 1)};
        for (int i = 0; i < w * h; ++i)
            b.push_back(std::uint8_t(i * 37)), b.push_back(std::uint8_t(i * 11)),
                b.push_back(std::uint8_t(i));
        append(b, std::int16_t(tw));
        append(b, std::int16_t(th));
        b.push_back(energy);
        for (const std::uint8_t m : {protect, remove}) {
            b.push_back(m);
            if (m % 3 != 0)
                for (int y = 0; y < h; ++y) b.push_back(std::uint8_t(0x18 << (y % 3)));
        }
        b.push_back(1);
        append(b, std::int16_t(seams));
        append(b, std::int8_t(factor));
        b.push_back(0);
        return b;
    };
    put("fuzz_retarget", "shrink-width", seed(10, 8, 6, 8, 3, 0, 0, 4, 2));
    put("fuzz_retarget", "shrink-both-masks", seed(12, 12, 8, 9, 2, 5, 10, 3, 4));
    put("fuzz_retarget", "enlarge", seed(6, 5, 11, 9, 0, 0, 0, 5, 2));
    put("fuzz_retarget", "mask-off-by-one", seed(8, 6, 5, 6, 3, 1, 0, 2, 2));
    put("fuzz_retarget", "protect-everything", seed(7, 7, 5, 7, 3, 4, 0, 1, 2));
    put("fuzz_retarget", "remove-object", seed(9, 7, 9, 7, 1, 0, 5, 2, 3));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    g_out = argv[1];
    image_seeds();
    format_file_seeds();
    video_seeds();
    cli_seeds();
    histogram_seeds();
    retarget_seeds();
    return 0;
}
