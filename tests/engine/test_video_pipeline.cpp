// The video pipeline (reader thread → carver → writer thread): the same frames as carving them
// one by one, frame rate and count kept, cancel and errors leave no output, truncated input.
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/video/retarget_video.hpp>

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

ImageRgba8 frame_at(const int w, const int h, const int f) {
    ImageRgba8 img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int u = x + f;
            const auto v = static_cast<std::uint8_t>(
                110 + 70 * std::sin(u * 0.4) * std::cos(y * 0.3) + (u % 11 < 2 ? 60 : 0));
            img.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(255 - v), 90, 255};
        }
    return img;
}

void write_sequence(const fs::path& pattern, const int w, const int h, const int frames) {
    io::VideoWriter writer(pattern, w, h, 25.0);
    for (int f = 0; f < frames; ++f) writer.write(frame_at(w, h, f));
    writer.finish();
}

bool has_partial(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().find("partial") != std::string::npos) return true;
    return false;
}

}  // namespace

class TestVideoPipeline : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    [[nodiscard]] fs::path tmp(const std::string& name) const {
        return fs::path(dir_.path().toStdString()) / name;
    }

  private slots:
    void pipeline_equals_frame_by_frame() {
        fs::create_directories(tmp("in"));
        write_sequence(tmp("in/%03d.png"), 50, 36, 14);
        video::RetargetVideoOptions o;
        o.input = tmp("in/%03d.png");
        o.output = tmp("out/%03d.png");
        fs::create_directories(tmp("out"));
        o.params.width = 38;
        o.params.height = 30;
        o.params.temporal = 1.5;
        o.queue_frames = 2;  // the queues fill up: the stages must wait on each other
        o.measure_flicker = true;
        int calls = 0;
        const video::RetargetVideoResult r = video::retarget_video(o, [&](const auto& p) {
            ++calls;
            return p.frame == calls;
        });
        QCOMPARE(r.frames, 14);
        QCOMPARE(calls, 14);
        QCOMPARE(r.out_width, 38);
        QCOMPARE(r.out_height, 30);
        QCOMPARE(r.fps, io::VideoReader::kSequenceFps);
        QVERIFY(r.decode_seconds <= r.seconds && r.carve_seconds <= r.seconds &&
                r.encode_seconds <= r.seconds);
        // The same frames as the carver run by hand (PNG: lossless).
        ops::VideoRetargeter carver(50, 36, o.params, ops::CarveImplementation::Fast);
        io::VideoReader in(tmp("in/%03d.png"));
        io::VideoReader out(tmp("out/%03d.png"));
        for (int f = 0; f < 14; ++f) {
            const ImageRgba8 expected = carver.process(in.next()->view());
            const std::optional<ImageRgba8> got = out.next();
            QVERIFY(got.has_value());
            QVERIFY2(equal_pixels(expected.view(), got->view()), qPrintable(QString::number(f)));
        }
        QVERIFY(!out.next());
    }

    void cancel_and_errors_leave_no_output() {
        fs::create_directories(tmp("c"));
        write_sequence(tmp("c/%02d.png"), 40, 30, 12);
        video::RetargetVideoOptions o;
        o.input = tmp("c/%02d.png");
        o.output = tmp("c/out.mp4");
        o.params.width = 30;
        o.params.height = 30;
        try {
            (void)video::retarget_video(o, [](const auto& p) { return p.frame < 5; });
            QFAIL("a cancel must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::Cancelled);
        }
        QVERIFY(!fs::exists(tmp("c/out.mp4")));
        QVERIFY(!has_partial(tmp("c")));
        // A carver error (odd width for MP4 is the writer's; a bad target is the carver's).
        o.params.width = 0;
        try {
            (void)video::retarget_video(o);
            QFAIL("a bad target must throw");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::InvalidArgument);
        }
        QVERIFY(!fs::exists(tmp("c/out.mp4")));
        QVERIFY(!has_partial(tmp("c")));
    }

    void truncated_input_is_an_error_unless_allowed() {
        // An MKV cut short opens (its index is at the front) and ends before its frame count.
        {
            io::VideoWriter w(tmp("full.mkv"), 96, 64, 30.0);
            for (int f = 0; f < 30; ++f) w.write(frame_at(96, 64, f));
            w.finish();
        }
        const auto size = fs::file_size(tmp("full.mkv"));
        {
            std::ifstream in(tmp("full.mkv"), std::ios::binary);
            std::string bytes(size, '\0');
            in.read(bytes.data(), static_cast<std::streamsize>(size));
            std::ofstream out(tmp("cut.mkv"), std::ios::binary);
            out.write(bytes.data(), static_cast<std::streamsize>(size * 3 / 5));
        }
        video::RetargetVideoOptions o;
        o.input = tmp("cut.mkv");
        o.output = tmp("cut-out.mp4");
        o.params.width = 80;
        o.params.height = 64;
        try {
            (void)video::retarget_video(o);
            QFAIL("a truncated file must be refused");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("truncated") != std::string::npos, e.what());
        }
        QVERIFY(!fs::exists(tmp("cut-out.mp4")));
        o.allow_truncated = true;
        const video::RetargetVideoResult r = video::retarget_video(o);
        QVERIFY(r.frames > 0 && r.frames < 30);
        QVERIFY(fs::exists(tmp("cut-out.mp4")));
        bool noted = false;
        for (const std::string& n : r.notices) noted |= n.find("truncated") != std::string::npos;
        QVERIFY(noted);
    }
};

QTEST_GUILESS_MAIN(TestVideoPipeline)
#include "test_video_pipeline.moc"
