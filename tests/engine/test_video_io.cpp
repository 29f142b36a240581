// Video files and image sequences: round trips through MP4 and PNG sequences, the writer's
// promise never to leave a partial file under the user's name, and every kind of bad input
// (each must give one clear error naming the file, or, for a truncated stream, a warning).
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include "image_test_util.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <vector>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

std::uint8_t clamp_byte(const double v) {
    return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
}

// Frame `f` of a synthetic clip: smooth gradients that move with time, and a yellow square
// moving diagonally, so that a frame mixed up with its neighbour would be noticed.
ImageRgba8 clip_frame(const int w, const int h, const int f) {
    constexpr double kTwoPi = 2 * std::numbers::pi;
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = Rgba8{clamp_byte(128 + 100 * std::sin(kTwoPi * (x + 2 * f) / w)),
                                   clamp_byte(128 + 100 * std::cos(kTwoPi * (y + f) / h)), 96, 255};
    const int side = std::max(1, std::min({10, w / 3, h / 3}));
    const int sx = (4 + 2 * f) % (w - side + 1), sy = (4 + f) % (h - side + 1);
    for (int y = sy; y < sy + side; ++y)
        for (int x = sx; x < sx + side; ++x) image.at(x, y) = Rgba8{250, 240, 20, 255};
    return image;
}

// Noise frames: large after compression, so a file cut to 30 % still holds whole frames.
ImageRgba8 noise_frame(const int w, const int h, const int f) {
    std::mt19937 random(static_cast<unsigned>(f) + 1);
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) =
                Rgba8{std::uint8_t(random()), std::uint8_t(random()), std::uint8_t(random()), 255};
    return image;
}

using test::mean_abs_diff;

bool same_pixels(const ImageRgba8& a, const ImageRgba8& b) {
    return equal_pixels(a.view(), b.view());
}

template <class F>
ErrorCode error_of(F&& f, QString* message = nullptr) {
    try {
        f();
    } catch (const Error& e) {
        if (message) *message = e.what();
        return e.code();
    }
    return ErrorCode::DeviceError;  // sentinel: no error was thrown
}

// Every entry of `dir` by name, hidden ones included, sorted.
QStringList entries(const fs::path& dir) {
    QStringList names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        names << QString::fromStdString(e.path().filename().string());
    names.sort();
    return names;
}

void write_clip(const fs::path& out, const int w, const int h, const int frames, const double fps,
                ImageRgba8 (*frame)(int, int, int) = clip_frame) {
    io::VideoWriter writer(out, w, h, fps);
    for (int f = 0; f < frames; ++f) writer.write(frame(w, h, f));
    writer.finish();
}

std::vector<ImageRgba8> read_all(io::VideoReader& reader) {
    std::vector<ImageRgba8> frames;
    while (std::optional<ImageRgba8> f = reader.next()) frames.push_back(std::move(*f));
    return frames;
}

void write_bytes(const fs::path& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// A copy of `from` cut to `fraction` of its bytes.
void truncated_copy(const fs::path& from, const fs::path& to, const double fraction) {
    fs::copy_file(from, to);
    fs::resize_file(to, static_cast<std::uintmax_t>(fs::file_size(from) * fraction));
}

}  // namespace

class TestVideoIo : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    int dirs_ = 0;
    // A new empty folder per test, so that "nothing else was left" can be checked exactly.
    fs::path fresh_dir() {
        // Built piecewise: GCC 12 warns falsely (-Wrestrict) on "t" + std::to_string(...).
        std::string name(1, 't');
        name += std::to_string(++dirs_);
        const fs::path d = fs::path(dir_.path().toStdString()) / name;
        fs::create_directory(d);
        return d;
    }

  private slots:
    void recognises_video_paths() {
        for (const char* p : {"a.mp4", "b.MP4", "c.m4v", "d.mov", "e.avi", "f.mkv", "g.webm",
                              "h.mpg", "i.MPEG", "frames/%05d.png", "x/shot_%d.jpg"})
            QVERIFY2(io::is_video_path(p), p);
        for (const char* p : {"a.png", "b.jpg", "clip", "%05d/frame.png", "a_%s.png",
                              "a_%05d_%05d.png", "100%.png", "mp4"})
            QVERIFY2(!io::is_video_path(p), p);
        QCOMPARE(QString::fromStdString(io::sequence_frame_path("f/%05d.png", 42).string()),
                 QString("f/00042.png"));
        QCOMPARE(QString::fromStdString(io::sequence_frame_path("s_%d.png", 7).string()),
                 QString("s_7.png"));
        QCOMPARE(error_of([] { (void)io::sequence_frame_path("plain.png", 1); }),
                 ErrorCode::InvalidArgument);
    }

    void output_containers() {
        QCOMPARE(io::video_container_for_path("a.mp4"), io::VideoContainer::Mp4);
        QCOMPARE(io::video_container_for_path("a.MKV"), io::VideoContainer::Mp4);
        QCOMPARE(io::video_container_for_path("f/%04d.png"), io::VideoContainer::PngSequence);
        QString message;
        QCOMPARE(error_of([] { (void)io::video_container_for_path("a.webm"); }, &message),
                 ErrorCode::UnsupportedFormat);
        QVERIFY2(message.contains("does not write") && message.contains(".mp4"),
                 qPrintable(message));
        QCOMPARE(error_of([] { (void)io::video_container_for_path("f/%04d.jpg"); }, &message),
                 ErrorCode::UnsupportedFormat);
        QVERIFY2(message.contains("PNG"), qPrintable(message));
        QCOMPARE(error_of([] { (void)io::video_container_for_path("a.gif"); }),
                 ErrorCode::UnsupportedFormat);
    }

    void mp4_round_trip() {
        const fs::path dir = fresh_dir();
        const fs::path out = dir / "clip.mp4";
        constexpr int w = 64, h = 48, frames = 24;
        std::vector<std::string> notices;
        std::string codec;
        {
            io::VideoWriter writer(out, w, h, 25.0);
            QCOMPARE(writer.container(), io::VideoContainer::Mp4);
            for (int f = 0; f < frames; ++f) writer.write(clip_frame(w, h, f));
            // Nothing under the user's name until finish().
            QVERIFY(!fs::exists(out));
            writer.finish();
            QCOMPARE(writer.frames_written(), frames);
            codec = writer.codec();
            notices = writer.notices();
        }
        qInfo("MP4 writer codec: %s", codec.c_str());
        QVERIFY2(codec == "H.264" || codec == "MPEG-4 Part 2", codec.c_str());
        QCOMPARE(std::count(notices.begin(), notices.end(),
                            "audio track not copied: OpenCV videoio carries video only"),
                 std::ptrdiff_t{1});
        QVERIFY(std::any_of(notices.begin(), notices.end(), [&](const std::string& n) {
            return n.find(codec) != std::string::npos;
        }));
        // The finished file, and no temporary beside it.
        QCOMPARE(entries(dir), QStringList{"clip.mp4"});

        io::VideoReader reader(out);
        const io::VideoInfo& info = reader.info();
        QCOMPARE(info.width, w);
        QCOMPARE(info.height, h);
        QCOMPARE(info.frame_count, frames);
        QVERIFY2(std::abs(info.fps - 25.0) <= 0.01, qPrintable(QString::number(info.fps)));
        QVERIFY2(info.codec == "avc1" || info.codec == "mp4v", info.codec.c_str());
        const std::vector<ImageRgba8> read = read_all(reader);
        QCOMPARE(int(read.size()), frames);
        QCOMPARE(reader.frames_read(), frames);
        QVERIFY(!reader.ended_early());
        QVERIFY(reader.warning().empty());
        // Lossy: on average within 8 levels of 255 (4.3 measured with Debian 12's x264 at
        // OpenCV's default settings; tiny frames compress worst). Frame 10 must also be nearer
        // its own source than the neighbouring frames' sources: the order is right.
        const double mae = mean_abs_diff(read[10], clip_frame(w, h, 10));
        const double mae_9 = mean_abs_diff(read[10], clip_frame(w, h, 9));
        const double mae_11 = mean_abs_diff(read[10], clip_frame(w, h, 11));
        qInfo("frame 10 mean absolute error: %.3f (against frames 9 and 11: %.3f, %.3f)", mae,
              mae_9, mae_11);
        QVERIFY2(mae < 8.0, qPrintable(QString::number(mae)));
        QVERIFY(mae_9 > mae + 2.0);
        QVERIFY(mae_11 > mae + 2.0);
        for (const ImageRgba8& f : read) QCOMPARE(int(f.at(5, 5).a), 255);
        // After the end, next() stays at the end.
        QVERIFY(!reader.next().has_value());
    }

    void mp4_keeps_frame_rate() {
        const fs::path dir = fresh_dir();
        write_clip(dir / "slow.mkv", 32, 16, 6, 12.0);
        const io::VideoReader reader(dir / "slow.mkv");
        QVERIFY2(std::abs(reader.info().fps - 12.0) <= 0.01,
                 qPrintable(QString::number(reader.info().fps)));
    }

    // H.264 and MPEG-4 Part 2 keep 4:2:0 chroma: OpenCV would silently crop 67x45 to 66x44.
    // The writer refuses instead, saying what to do, and leaves nothing behind.
    void mp4_refuses_odd_sizes() {
        const fs::path dir = fresh_dir();
        QString message;
        QCOMPARE(error_of([&] { io::VideoWriter writer(dir / "odd.mp4", 67, 45, 25.0); }, &message),
                 ErrorCode::InvalidArgument);
        QVERIFY2(message.contains("odd.mp4") && message.contains("67x45") &&
                     message.contains("even") && message.contains("66x44") &&
                     message.contains("68x46") && message.contains("PNG sequence"),
                 qPrintable(message));
        QCOMPARE(error_of([&] { io::VideoWriter writer(dir / "odd.mp4", 64, 45, 25.0); }),
                 ErrorCode::InvalidArgument);
        QVERIFY(entries(dir).isEmpty());
        // A PNG sequence takes the odd size.
        write_clip(dir / "%03d.png", 67, 45, 2, 25.0);
        QCOMPARE(io::VideoReader(dir / "%03d.png").info().width, 67);
    }

    void png_sequence_round_trip() {
        const fs::path dir = fresh_dir();
        const fs::path pattern = dir / "shot_%04d.png";
        constexpr int w = 37, h = 23, frames = 5;
        {
            io::VideoWriter writer(pattern, w, h, 30.0);
            QCOMPARE(writer.container(), io::VideoContainer::PngSequence);
            QCOMPARE(QString::fromStdString(writer.codec()), QString("PNG"));
            for (int f = 0; f < frames; ++f) writer.write(clip_frame(w, h, f));
            QVERIFY(!fs::exists(dir / "shot_0000.png"));  // not before finish()
            writer.finish();
            QVERIFY(writer.notices().empty());
        }
        QCOMPARE(entries(dir), (QStringList{"shot_0000.png", "shot_0001.png", "shot_0002.png",
                                            "shot_0003.png", "shot_0004.png"}));
        io::VideoReader reader(pattern);
        QCOMPARE(reader.info().width, w);
        QCOMPARE(reader.info().height, h);
        QCOMPARE(reader.info().frame_count, frames);
        QCOMPARE(reader.info().fps, io::VideoReader::kSequenceFps);
        QCOMPARE(QString::fromStdString(reader.info().codec), QString("png sequence"));
        const std::vector<ImageRgba8> read = read_all(reader);
        QCOMPARE(int(read.size()), frames);
        for (int f = 0; f < frames; ++f)
            QVERIFY2(same_pixels(read[f], clip_frame(w, h, f)),
                     qPrintable(QString("frame %1").arg(f)));
        QVERIFY(!reader.ended_early());
        // A caller-chosen rate for a sequence.
        QCOMPARE(io::VideoReader(pattern, 12.5).info().fps, 12.5);
    }

    void png_sequence_starting_at_one_is_read() {
        const fs::path dir = fresh_dir();
        for (int i = 1; i <= 3; ++i)
            (void)io::write_image(io::sequence_frame_path(dir / "f%d.png", i),
                                  clip_frame(20, 10, i).view());
        io::VideoReader reader(dir / "f%d.png");
        const std::vector<ImageRgba8> read = read_all(reader);
        QCOMPARE(int(read.size()), 3);
        QVERIFY(same_pixels(read[0], clip_frame(20, 10, 1)));
    }

    void writer_drops_transparency_with_a_notice() {
        const fs::path dir = fresh_dir();
        io::VideoWriter writer(dir / "%02d.png", 8, 8, 25.0);
        ImageRgba8 frame(8, 8, Rgba8{10, 20, 30, 100});
        writer.write(frame);
        writer.write(frame);
        writer.finish();
        QCOMPARE(int(writer.notices().size()), 1);
        QVERIFY(writer.notices()[0].find("transparency dropped") != std::string::npos);
        io::VideoReader reader(dir / "%02d.png");
        QCOMPARE(reader.next()->at(3, 3), (Rgba8{10, 20, 30, 255}));
    }

    void unfinished_writer_leaves_nothing_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("mp4") << "clip.mp4";
        QTest::newRow("mkv") << "clip.mkv";
        QTest::newRow("png sequence") << "%05d.png";
    }
    void unfinished_writer_leaves_nothing() {
        QFETCH(QString, name);
        const fs::path dir = fresh_dir();
        const fs::path out = dir / name.toStdString();
        {
            io::VideoWriter writer(out, 32, 32, 25.0);
            for (int f = 0; f < 3; ++f) writer.write(clip_frame(32, 32, f));
            QCOMPARE(entries(dir).size(), 1);  // the hidden temporary, while it is being written
            QVERIFY(entries(dir)[0].startsWith("."));
        }  // destroyed without finish(): a cancel, an exception
        QVERIFY2(entries(dir).isEmpty(), qPrintable(entries(dir).join(", ")));
        // An exception thrown while writing unwinds the same way.
        try {
            io::VideoWriter writer(out, 32, 32, 25.0);
            writer.write(clip_frame(32, 32, 0));
            writer.write(clip_frame(16, 16, 0));  // throws
            QFAIL("a frame of the wrong size was accepted");
        } catch (const Error&) {
        }
        QVERIFY2(entries(dir).isEmpty(), qPrintable(entries(dir).join(", ")));
    }

    void unfinished_writer_keeps_the_old_file() {
        const fs::path dir = fresh_dir();
        const fs::path out = dir / "clip.mp4";
        write_clip(out, 32, 32, 4, 25.0);
        const std::uintmax_t old_size = fs::file_size(out);
        {
            io::VideoWriter writer(out, 64, 64, 25.0);
            for (int f = 0; f < 10; ++f) writer.write(noise_frame(64, 64, f));
        }
        QCOMPARE(entries(dir), QStringList{"clip.mp4"});
        QCOMPARE(fs::file_size(out), old_size);
        QCOMPARE(io::VideoReader(out).info().width, 32);
        // And finish() replaces it.
        write_clip(out, 64, 64, 2, 25.0);
        QCOMPARE(io::VideoReader(out).info().width, 64);
        QCOMPARE(entries(dir), QStringList{"clip.mp4"});
    }

    void writer_refuses_wrong_frame_sizes() {
        const fs::path dir = fresh_dir();
        io::VideoWriter writer(dir / "clip.mp4", 32, 16, 25.0);
        writer.write(clip_frame(32, 16, 0));
        QString message;
        QCOMPARE(error_of([&] { writer.write(clip_frame(16, 32, 1)); }, &message),
                 ErrorCode::InvalidArgument);
        QVERIFY2(message.contains("clip.mp4") && message.contains("frame 2") &&
                     message.contains("16x32") && message.contains("32x16"),
                 qPrintable(message));
        // The refused frame is not counted, and the video goes on.
        writer.write(clip_frame(32, 16, 1));
        writer.finish();
        QCOMPARE(writer.frames_written(), 2);
        QCOMPARE(error_of([&] { writer.write(clip_frame(32, 16, 2)); }),
                 ErrorCode::InvalidArgument);
        QCOMPARE(io::VideoReader(dir / "clip.mp4").info().frame_count, 2);
    }

    void writer_refuses_bad_arguments() {
        const fs::path dir = fresh_dir();
        QCOMPARE(error_of([&] { io::VideoWriter w(dir / "a.mp4", 32, 32, 0.0); }),
                 ErrorCode::InvalidArgument);
        QCOMPARE(error_of([&] { io::VideoWriter w(dir / "a.mp4", 32, 32, std::nan("")); }),
                 ErrorCode::InvalidArgument);
        QCOMPARE(error_of([&] { io::VideoWriter w(dir / "a.mp4", 0, 32, 25.0); }),
                 ErrorCode::EmptyImage);
        QString message;
        QCOMPARE(
            error_of([&] { io::VideoWriter w(dir / "no/such/a.mp4", 32, 32, 25.0); }, &message),
            ErrorCode::WriteFailed);
        QVERIFY2(message.contains("does not exist"), qPrintable(message));
        QVERIFY(entries(dir).isEmpty());
    }

    // An empty video is never written: finish() with no frames fails and leaves nothing.
    void finishing_without_frames_is_refused_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("mp4") << "empty.mp4";
        QTest::newRow("png sequence") << "%05d.png";
    }
    void finishing_without_frames_is_refused() {
        QFETCH(QString, name);
        const fs::path dir = fresh_dir();
        io::VideoWriter writer(dir / name.toStdString(), 32, 32, 25.0);
        QString message;
        QCOMPARE(error_of([&] { writer.finish(); }, &message), ErrorCode::EmptyImage);
        QVERIFY2(message.contains("no frames"), qPrintable(message));
        QVERIFY2(entries(dir).isEmpty(), qPrintable(entries(dir).join(", ")));
    }

    void missing_file() {
        const fs::path missing = fresh_dir() / "absent.mp4";
        QString message;
        QCOMPARE(error_of([&] { io::VideoReader r(missing); }, &message), ErrorCode::NotFound);
        QVERIFY2(message.contains("absent.mp4") && message.contains("no such file"),
                 qPrintable(message));
    }

    void directory_is_unreadable() {
        const fs::path dir = fresh_dir();
        fs::create_directory(dir / "folder.mp4");
        QCOMPARE(error_of([&] { io::VideoReader r(dir / "folder.mp4"); }), ErrorCode::Unreadable);
    }

    void random_bytes_are_refused() {
        const fs::path file = fresh_dir() / "noise.mp4";
        std::mt19937 random(7);
        std::vector<char> bytes(5000);
        for (char& b : bytes) b = static_cast<char>(random());
        write_bytes(file, bytes);
        QString message;
        QCOMPARE(error_of([&] { io::VideoReader r(file); }, &message), ErrorCode::Corrupt);
        QVERIFY2(message.contains("noise.mp4") && message.contains("not a video OpenCV can decode"),
                 qPrintable(message));
        write_bytes(file, {});
        QCOMPARE(error_of([&] { io::VideoReader r(file); }), ErrorCode::Corrupt);
    }

    // An MP4 keeps its index (moov) at the end, so a cut file usually cannot be opened at all;
    // if a demuxer did open it, the reader must end early and say so. Either is accepted.
    void truncated_mp4() {
        const fs::path dir = fresh_dir();
        write_clip(dir / "whole.mp4", 64, 64, 24, 25.0, noise_frame);
        truncated_copy(dir / "whole.mp4", dir / "cut.mp4", 0.3);
        QString message;
        bool opened = false;
        bool ended_early = false;
        const ErrorCode code = error_of(
            [&] {
                io::VideoReader reader(dir / "cut.mp4");
                opened = true;
                (void)read_all(reader);
                ended_early = reader.ended_early();
            },
            &message);
        if (!opened) {
            QCOMPARE(code, ErrorCode::Corrupt);
            QVERIFY2(message.contains("cut.mp4") && message.contains("truncated"),
                     qPrintable(message));
        } else {
            QVERIFY(ended_early);
        }
    }

    // Matroska and AVI carry their headers first: a cut file opens, announces all its frames
    // and stops early. The reader reports it instead of passing a short video off as whole.
    void truncated_stream_ends_early_data() {
        QTest::addColumn<QString>("ext");
        QTest::newRow("mkv") << ".mkv";
        QTest::newRow("avi") << ".avi";
    }
    void truncated_stream_ends_early() {
        QFETCH(QString, ext);
        const fs::path dir = fresh_dir();
        const fs::path whole = dir / ("whole" + ext.toStdString());
        const fs::path cut = dir / ("cut" + ext.toStdString());
        write_clip(whole, 64, 64, 24, 25.0, noise_frame);
        truncated_copy(whole, cut, 0.3);
        io::VideoReader reader(cut);
        QCOMPARE(reader.info().frame_count, 24);
        const std::vector<ImageRgba8> read = read_all(reader);
        QVERIFY2(read.size() >= 1 && read.size() < 24, qPrintable(QString::number(read.size())));
        QCOMPARE(reader.frames_read(), int(read.size()));
        QVERIFY(reader.ended_early());
        const QString warning = QString::fromStdString(reader.warning());
        QVERIFY2(warning.contains(QString("ended after %1 of the 24 frames").arg(read.size())) &&
                     warning.contains("truncated"),
                 qPrintable(warning));
        // The whole file reads to its end without a warning.
        io::VideoReader full(whole);
        QCOMPARE(int(read_all(full).size()), 24);
        QVERIFY(!full.ended_early());
    }

    // A frame file that is not an image ends a sequence early, like a truncated stream.
    void damaged_sequence_frame_ends_early() {
        const fs::path dir = fresh_dir();
        write_clip(dir / "%03d.png", 16, 16, 5, 25.0);
        write_bytes(dir / "002.png", {'n', 'o', 't', ' ', 'p', 'n', 'g'});
        io::VideoReader reader(dir / "%03d.png");
        QCOMPARE(reader.info().frame_count, 5);
        QCOMPARE(int(read_all(reader).size()), 2);
        QVERIFY(reader.ended_early());
    }

    // Regression (fuzz_video_open): a sequence frame that is no image Lacuna reads went to
    // OpenCV's image-sequence reader, whose imread tried GDCM, which aborted the process. Such a
    // file is now refused by the header probe first: as the first frame at open, later as the
    // end of the sequence.
    void sequence_frames_the_probe_refuses_never_reach_opencv() {
        QFile found(QStringLiteral(
            LACUNA_SOURCE_DIR "/fuzz/corpus/fuzz_video_open/regression-sequence-frame-gdcm-abort"));
        QVERIFY(found.open(QIODevice::ReadOnly));
        const QByteArray bytes = found.readAll().mid(1);  // the harness's first byte picks the kind
        const fs::path first = fresh_dir();
        write_bytes(first / "0.png", {bytes.begin(), bytes.end()});
        QString message;
        QCOMPARE(error_of([&] { io::VideoReader r(first / "%d.png"); }, &message),
                 ErrorCode::Corrupt);
        QVERIFY2(message.contains("is not a readable image"), qPrintable(message));
        const fs::path later = fresh_dir();
        write_clip(later / "%03d.png", 16, 16, 4, 25.0);
        write_bytes(later / "002.png", {bytes.begin(), bytes.end()});
        io::VideoReader reader(later / "%03d.png");
        QCOMPARE(int(read_all(reader).size()), 2);
        QVERIFY(reader.ended_early());
    }

    void sequence_without_frames() {
        const fs::path dir = fresh_dir();
        QString message;
        QCOMPARE(error_of([&] { io::VideoReader r(dir / "%05d.png"); }, &message),
                 ErrorCode::NotFound);
        QVERIFY2(message.contains("has no frames") && message.contains("00000.png") &&
                     message.contains("00001.png"),
                 qPrintable(message));
        // A first file that is not an image.
        write_bytes(dir / "00000.png", {'x'});
        QCOMPARE(error_of([&] { io::VideoReader r(dir / "%05d.png"); }, &message),
                 ErrorCode::Corrupt);
        QVERIFY2(message.contains("00000.png"), qPrintable(message));
    }

    void variable_frame_sizes_are_refused() {
        const fs::path dir = fresh_dir();
        write_clip(dir / "%05d.png", 24, 16, 5, 25.0);
        (void)io::write_image(dir / "00003.png", clip_frame(30, 16, 3).view());
        io::VideoReader reader(dir / "%05d.png");
        for (int f = 0; f < 3; ++f) QVERIFY(reader.next().has_value());
        QString message;
        QCOMPARE(error_of([&] { (void)reader.next(); }, &message), ErrorCode::InvalidArgument);
        QVERIFY2(message.contains("frame 4") && message.contains("00003.png") &&
                     message.contains("30x16") && message.contains("24x16") &&
                     message.contains("different sizes"),
                 qPrintable(message));
    }

    void reader_is_movable() {
        const fs::path dir = fresh_dir();
        write_clip(dir / "%02d.png", 8, 8, 3, 25.0);
        io::VideoReader a(dir / "%02d.png");
        (void)a.next();
        io::VideoReader b = std::move(a);
        QCOMPARE(int(read_all(b).size()), 2);
        QCOMPARE(b.frames_read(), 3);
    }
};

QTEST_GUILESS_MAIN(TestVideoIo)
#include "test_video_io.moc"
