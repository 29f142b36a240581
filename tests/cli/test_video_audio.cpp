// The sound stays: `lacuna inpaint` and `lacuna retarget` on clips with audio carry it into their
// output (stream copy: the same packets, byte for byte), a --frames range takes the audio of the
// same span, a stream the container cannot hold is transcoded to AAC with one note, one FFmpeg
// cannot decode either is left out with one note, a PNG sequence has no sound, and a remux that
// fails leaves no file. The clips are made here: frames written by
// io::VideoWriter, a tone encoded by FFmpeg's AAC or PCM encoder and muxed in (av_clip.hpp).
#include "av_clip.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

constexpr int kW = 96, kH = 64, kFrames = 20;
constexpr double kFps = 25.0;
constexpr double kFrame = 1.0 / kFps;

/// A textured background drifting 2 px a frame with a still red card (the object) in the middle.
ImageRgba8 frame(const int f) {
    ImageRgba8 img(kW, kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const int u = x + 2 * f;
            const auto v =
                static_cast<std::uint8_t>(110 + 60 * std::sin(u * 0.31) * std::cos(y * 0.23));
            img.at(x, y) = Rgba8{v, static_cast<std::uint8_t>(v / 2 + 50),
                                 static_cast<std::uint8_t>(255 - v), 255};
        }
    for (int y = 24; y < 40; ++y)
        for (int x = 40; x < 56; ++x) img.at(x, y) = Rgba8{230, 30, 30, 255};
    return img;
}

void write_video(const fs::path& path, const int frames = kFrames) {
    io::VideoWriter w(path, kW, kH, kFps);
    for (int f = 0; f < frames; ++f) w.write(frame(f));
    w.finish();
}

struct Result {
    int status = -1;
    QString err, out;
    [[nodiscard]] QJsonObject json() const {
        return QJsonDocument::fromJson(out.toUtf8()).object();
    }
};

Result run_cli(const QStringList& args) {
    QProcess p;
    p.start(LACUNA_CLI_PATH, args);
    if (!p.waitForFinished(300000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

QString q(const fs::path& p) {
    return QString::fromStdString(p.string());
}

int frame_count(const fs::path& video) {
    io::VideoReader r(video);
    int n = 0;
    while (r.next()) ++n;
    return n;
}

/// The packets of `src` that start in [start, end) seconds (the span a range of frames keeps).
std::vector<test_av::Packet> packets_in(const test_av::AudioStream& src, const double start,
                                        const double end) {
    std::vector<test_av::Packet> kept;
    for (const test_av::Packet& p : src.packets) {
        const double t = static_cast<double>(p.pts) * av_q2d(p.base);
        if (t >= start - 1e-6 && t < end - 1e-6) kept.push_back(p);
    }
    return kept;
}

/// Same number of packets, each with the same bytes.
bool same_payloads(const std::vector<test_av::Packet>& a, const std::vector<test_av::Packet>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].data != b[i].data) return false;
    return true;
}

int count_lines_with(const QString& text, const QString& what) {
    int n = 0;
    for (const QString& line : text.split('\n'))
        if (line.contains(what)) ++n;
    return n;
}

}  // namespace

class TestVideoAudio : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path root_, mask_, aac_clip_, pcm_clip_, silent_clip_;

    fs::path at(const char* name) const { return root_ / name; }

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        root_ = dir_.path().toStdString();
        write_video(at("frames.mp4"));
        write_video(at("frames.mkv"));
        // 0.8 s of video; the tone runs as long (AAC: whole 1024-sample packets, a little less).
        aac_clip_ = at("clip.mp4");
        pcm_clip_ = at("clip-pcm.mkv");
        test_av::add_tone(at("frames.mp4"), aac_clip_, "aac", kFrames * kFrame);
        test_av::add_tone(at("frames.mkv"), pcm_clip_, "pcm_s16le", kFrames * kFrame);
        silent_clip_ = at("frames.mp4");
        ImageRgba8 mask(kW, kH);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const bool hole = x >= 38 && x < 58 && y >= 22 && y < 42;
                mask.at(x, y) = hole ? Rgba8{255, 255, 255, 255} : Rgba8{0, 0, 0, 255};
            }
        mask_ = at("mask.png");
        io::write_image(mask_, mask.view());
        const auto src = test_av::audio_streams(aac_clip_);
        QCOMPARE(static_cast<int>(src.size()), 1);
        QCOMPARE(src[0].codec, std::string("aac"));
        QVERIFY(src[0].packets.size() > 20);
        qInfo("source: %zu AAC packets, %.3f s from %.3f s", src[0].packets.size(),
              src[0].seconds(), src[0].start());
    }

    // The whole clip: the output's audio stream is the source's, packet for packet.
    void inpaint_copies_the_audio() {
        const fs::path out = at("filled.mp4");
        const Result r = run_cli({"inpaint", q(aac_clip_), q(mask_), q(out), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(frame_count(out), kFrames);
        const auto src = test_av::audio_streams(aac_clip_);
        int videos = 0;
        const auto got = test_av::audio_streams(out, &videos);
        QCOMPARE(videos, 1);
        QCOMPARE(static_cast<int>(got.size()), 1);
        QCOMPARE(got[0].codec, std::string("aac"));
        QCOMPARE(got[0].sample_rate, src[0].sample_rate);
        QCOMPARE(got[0].channels, src[0].channels);
        QVERIFY(same_payloads(got[0].packets, src[0].packets));
        QVERIFY(std::abs(got[0].seconds() - src[0].seconds()) < 1e-6);
        QVERIFY(std::abs(got[0].start() - src[0].start()) < 1e-6);
        const QJsonArray audio = r.json()["audio"].toArray();
        QCOMPARE(audio.size(), 1);
        QCOMPARE(audio[0].toObject()["codec"].toString(), QString("aac"));
        QCOMPARE(audio[0].toObject()["packets"].toInt(), static_cast<int>(src[0].packets.size()));
        QVERIFY(audio[0].toObject()["copied"].toBool());
        QVERIFY(std::abs(audio[0].toObject()["seconds"].toDouble() - src[0].seconds()) < 1e-3);
        QCOMPARE(r.json()["audio_left_out"].toArray().size(), 0);
        QVERIFY2(r.err.contains("lacuna: audio: 1 stream copied (aac, 44100 Hz, 2 ch"),
                 qPrintable(r.err));
        // Nothing but the output beside the inputs: no temporary left.
        for (const auto& e : fs::directory_iterator(root_))
            QVERIFY2(e.path().filename().string().find("lacuna-partial") == std::string::npos,
                     e.path().c_str());
    }

    // --frames 5:15 keeps the audio packets that start in [0.2 s, 0.6 s), moved to start at 0:
    // the same span as the frames (to within a packet, 23 ms, under a frame, 40 ms).
    void a_range_keeps_the_audio_of_its_span() {
        const fs::path out = at("range.mp4");
        const Result r =
            run_cli({"inpaint", q(aac_clip_), q(mask_), q(out), "--frames", "5:15", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(frame_count(out), 10);
        const auto src = test_av::audio_streams(aac_clip_);
        const auto got = test_av::audio_streams(out);
        QCOMPARE(static_cast<int>(got.size()), 1);
        const std::vector<test_av::Packet> expected = packets_in(src[0], 5 * kFrame, 15 * kFrame);
        QVERIFY(same_payloads(got[0].packets, expected));
        qInfo("range 5:15: %zu packets, %.4f s from %.4f s (frames: 0.4 s)", got[0].packets.size(),
              got[0].seconds(), got[0].start());
        QVERIFY(std::abs(got[0].seconds() - 10 * kFrame) <= kFrame);
        // In sync: the first packet sits where it sat relative to frame 5.
        const double first_in_source =
            static_cast<double>(expected.front().pts) * av_q2d(expected.front().base);
        QVERIFY(std::abs(got[0].start() - (first_in_source - 5 * kFrame)) < 1e-3);
        QVERIFY(got[0].start() >= 0 && got[0].start() < kFrame);
        QCOMPARE(r.json()["audio"].toArray()[0].toObject()["packets"].toInt(),
                 static_cast<int>(expected.size()));
    }

    // Retargeting carries the sound the same way.
    void retarget_copies_the_audio() {
        const fs::path out = at("narrow.mp4");
        const Result r = run_cli(
            {"retarget", q(aac_clip_), q(out), "--width", "80", "--backend", "cpu", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(io::VideoReader(out).info().width, 80);
        QCOMPARE(frame_count(out), kFrames);
        const auto src = test_av::audio_streams(aac_clip_);
        const auto got = test_av::audio_streams(out);
        QCOMPARE(static_cast<int>(got.size()), 1);
        QVERIFY(same_payloads(got[0].packets, src[0].packets));
        QVERIFY(std::abs(got[0].seconds() - src[0].seconds()) < 1e-6);
        QCOMPARE(r.json()["audio"].toArray().size(), 1);
    }

    // PCM in Matroska: copied into .mkv; MP4 cannot hold PCM, so it is transcoded to AAC, with one
    // note, and the same span.
    void a_codec_the_container_cannot_hold_is_transcoded() {
        const fs::path mkv = at("pcm.mkv");
        Result r = run_cli({"inpaint", q(pcm_clip_), q(mask_), q(mkv), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const auto src = test_av::audio_streams(pcm_clip_);
        auto got = test_av::audio_streams(mkv);
        QCOMPARE(static_cast<int>(got.size()), 1);
        QCOMPARE(got[0].codec, std::string("pcm_s16le"));
        QVERIFY(same_payloads(got[0].packets, src[0].packets));
        QVERIFY(std::abs(got[0].seconds() - kFrames * kFrame) <= kFrame);

        const fs::path mp4 = at("pcm.mp4");
        r = run_cli(
            {"retarget", q(pcm_clip_), q(mp4), "--width", "80", "--backend", "cpu", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(count_lines_with(r.err, "transcoded to AAC"), 1);
        QCOMPARE(count_lines_with(r.err,
                                  "lacuna: note: audio stream 1 (pcm_s16le) transcoded to "
                                  "AAC: MP4 cannot hold it"),
                 1);
        QVERIFY2(r.err.contains("lacuna: audio: 1 stream carried (pcm_s16le transcoded to aac"),
                 qPrintable(r.err));
        int videos = 0;
        got = test_av::audio_streams(mp4, &videos);
        QCOMPARE(videos, 1);
        QCOMPARE(static_cast<int>(got.size()), 1);
        QCOMPARE(got[0].codec, std::string("aac"));
        QCOMPARE(got[0].sample_rate, 44100);
        QCOMPARE(got[0].channels, 2);
        // The encoder's priming packet starts before 0; the last packet ends within a frame of the
        // source's end.
        qInfo("transcoded: %zu packets, %.4f s to %.4f s (source: %.4f s to %.4f s)",
              got[0].packets.size(), got[0].start(), got[0].end(), src[0].start(), src[0].end());
        QVERIFY(got[0].start() <= 0 && got[0].start() > -0.03);
        QVERIFY(std::abs(got[0].end() - src[0].end()) <= kFrame);
        QCOMPARE(frame_count(mp4), kFrames);
        const QJsonObject a = r.json()["audio"].toArray()[0].toObject();
        QCOMPARE(a["codec"].toString(), QString("aac"));
        QCOMPARE(a["source_codec"].toString(), QString("pcm_s16le"));
        QVERIFY(!a["copied"].toBool());
        QCOMPARE(r.json()["audio_left_out"].toArray().size(), 0);

        // A range: the samples of frames 5..14 alone.
        const fs::path part = at("pcm-part.mp4");
        r = run_cli({"inpaint", q(pcm_clip_), q(mask_), q(part), "--frames", "5:15"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        got = test_av::audio_streams(part);
        QCOMPARE(static_cast<int>(got.size()), 1);
        qInfo("transcoded 5:15: %.4f s to %.4f s", got[0].start(), got[0].end());
        QVERIFY(std::abs(got[0].end() - 10 * kFrame) <= kFrame);
    }

    // An audio codec FFmpeg does not know (a PCM stream whose AVI format tag is made unknown):
    // neither copied nor decodable, it is left out with one note; the video is written.
    void an_unknown_codec_is_left_out() {
        const fs::path avi = at("unknown.avi");
        write_video(at("frames.avi"));
        test_av::add_tone(at("frames.avi"), avi, "pcm_s16le", kFrames * kFrame);
        std::string bytes;
        {
            std::ifstream in(avi, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
        // The second 'strf' chunk is the audio stream's WAVEFORMATEX: its first field is the
        // format tag, 1 (PCM).
        const std::size_t video_strf = bytes.find("strf");
        const std::size_t audio_strf = bytes.find("strf", video_strf + 4);
        QVERIFY(audio_strf != std::string::npos);
        QCOMPARE(static_cast<int>(bytes[audio_strf + 8]), 1);
        bytes[audio_strf + 8] = 0x77;
        bytes[audio_strf + 9] = 0x77;
        std::ofstream(avi, std::ios::binary | std::ios::trunc) << bytes;
        QCOMPARE(test_av::audio_streams(avi)[0].codec, std::string("none"));

        const fs::path out = at("unknown-out.mkv");
        const Result r = run_cli({"inpaint", q(avi), q(mask_), q(out), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(count_lines_with(r.err,
                                  "lacuna: note: audio stream 1 (unknown) left out: "
                                  "Matroska (.mkv) cannot hold it as it is and FFmpeg "
                                  "cannot decode it"),
                 1);
        QVERIFY2(r.err.contains("lacuna: audio: none written"), qPrintable(r.err));
        int videos = 0;
        QCOMPARE(static_cast<int>(test_av::audio_streams(out, &videos).size()), 0);
        QCOMPARE(videos, 1);
        QCOMPARE(frame_count(out), kFrames);
        QCOMPARE(r.json()["audio_left_out"].toArray().size(), 1);
    }

    // A PNG sequence has no sound: said on stderr and in --json. --no-audio writes none.
    // A clip without sound works as before.
    void no_sound_where_there_is_none_to_write() {
        fs::create_directories(at("seq"));
        Result r = run_cli({"inpaint", q(aac_clip_), q(mask_), q(at("seq") / "%03d.png"),
                            "--frames", "0:4", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("lacuna: audio: none (a PNG sequence holds no sound)"),
                 qPrintable(r.err));
        QCOMPARE(r.json()["audio"].toArray().size(), 0);
        const QJsonArray left = r.json()["audio_left_out"].toArray();
        QCOMPARE(left.size(), 1);
        QVERIFY(left[0].toString().contains("PNG sequence holds no sound"));

        const fs::path quiet = at("quiet.mp4");
        r = run_cli({"inpaint", q(aac_clip_), q(mask_), q(quiet), "--no-audio", "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("lacuna: audio: none (--no-audio)"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("audio track not copied"), qPrintable(r.err));
        QCOMPARE(static_cast<int>(test_av::audio_streams(quiet).size()), 0);

        const fs::path silent = at("silent-out.mp4");
        r = run_cli({"inpaint", q(silent_clip_), q(mask_), q(silent), "--json"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("lacuna: audio: none (the input has no sound)"), qPrintable(r.err));
        QVERIFY(!r.err.contains("note: audio"));
        QCOMPARE(frame_count(silent), kFrames);
        QCOMPARE(r.json()["audio"].toArray().size(), 0);

        // --no-audio is for videos.
        r = run_cli({"retarget", q(mask_), q(at("x.png")), "--width", "50", "--no-audio"});
        QVERIFY(r.status != 0);
        QVERIFY2(r.err.contains("--no-audio applies to videos"), qPrintable(r.err));
    }

    // `lacuna batch inpaint` takes videos beside images: a still mask (.png) or a mask video of
    // the same name per clip; each clip is written as MP4 with its sound (the PCM one's as AAC,
    // with the note in its line); a second run skips them all.
    void batch_inpaint_takes_videos() {
        const fs::path in = at("batch-in"), masks = at("batch-masks"), out = at("batch-out");
        fs::create_directories(in / "sub");
        fs::create_directories(masks / "sub");
        fs::copy_file(aac_clip_, in / "a.mp4");
        fs::copy_file(pcm_clip_, in / "sub" / "b.mkv");
        io::write_image(in / "still.png", frame(0).view());
        fs::copy_file(mask_, masks / "a.png");
        fs::copy_file(mask_, masks / "still.png");
        {
            const ImageRgba8 m = io::read_image(mask_).image;
            io::VideoWriter w(masks / "sub" / "b.mkv", kW, kH, kFps);
            for (int f = 0; f < kFrames; ++f) w.write(m);
            w.finish();
        }
        const QStringList args{"batch", "inpaint", "--input", q(in),       "--output",
                               q(out),  "--masks", q(masks),  "--backend", "cpu"};
        Result r = run_cli(args);
        QVERIFY2(r.status == 0, qPrintable(r.err + r.out));
        std::map<std::string, QJsonObject> lines;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            const QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
            if (o.contains("input"))
                lines[fs::path(o["input"].toString().toStdString()).filename().string()] = o;
        }
        QCOMPARE(static_cast<int>(lines.size()), 3);
        for (const auto& [name, o] : lines)
            QVERIFY2(o["status"].toString() == "ok", qPrintable(QJsonDocument(o).toJson()));
        QCOMPARE(lines["b.mkv"]["mask"].toString(), q(masks / "sub" / "b.mkv"));
        QCOMPARE(lines["a.mp4"]["mask"].toString(), q(masks / "a.png"));

        QCOMPARE(frame_count(out / "a.mp4"), kFrames);
        const auto src = test_av::audio_streams(aac_clip_);
        const auto got = test_av::audio_streams(out / "a.mp4");
        QCOMPARE(static_cast<int>(got.size()), 1);
        QVERIFY(same_payloads(got[0].packets, src[0].packets));
        const QJsonObject a = lines["a.mp4"]["result"].toObject();
        QCOMPARE(a["audio"].toArray()[0].toObject()["codec"].toString(), QString("aac"));
        // The card is gone.
        io::VideoReader filled(out / "a.mp4");
        for (int f = 0; f < 10; ++f) (void)filled.next();
        const Rgba8 centre = filled.next()->at(48, 32);
        QVERIFY2(!(centre.r > 180 && centre.g < 80), qPrintable(QString::number(centre.g)));

        QCOMPARE(frame_count(out / "sub" / "b.mp4"), kFrames);
        const auto b = test_av::audio_streams(out / "sub" / "b.mp4");
        QCOMPARE(static_cast<int>(b.size()), 1);
        QCOMPARE(b[0].codec, std::string("aac"));
        QVERIFY2(lines["b.mkv"]["notes"].toString().contains("(pcm_s16le) transcoded to AAC"),
                 qPrintable(lines["b.mkv"]["notes"].toString()));
        QVERIFY(fs::exists(out / "still.png"));

        r = run_cli(args);
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(static_cast<int>(r.out.count("\"status\":\"skipped\"")), 3);
    }

    // The source's audio cannot be read when the writer finishes (the file was replaced while
    // the frames were made): one sentence, and neither the output nor any temporary exists.
    void a_failed_remux_leaves_nothing() {
        const fs::path folder = at("fail");
        fs::create_directories(folder);
        const fs::path source = folder / "source.mp4";
        fs::copy_file(aac_clip_, source);
        const fs::path out = folder / "out.mp4";
        std::string message;
        try {
            io::VideoWriter w(out, kW, kH, kFps);
            w.carry_audio(source);
            QVERIFY(w.audio_left_out().empty());
            for (int f = 0; f < 5; ++f) w.write(frame(f));
            std::ofstream(source, std::ios::trunc) << "not a video any more";
            w.finish();
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::WriteFailed);
            message = e.what();
        }
        qInfo("%s", message.c_str());
        QVERIFY(message.find("could not be carried") != std::string::npos);
        QVERIFY(message.find('\n') == std::string::npos);
        std::vector<std::string> left;
        for (const auto& e : fs::directory_iterator(folder))
            left.push_back(e.path().filename().string());
        QCOMPARE(left, std::vector<std::string>{"source.mp4"});
    }
};

QTEST_GUILESS_MAIN(TestVideoAudio)
#include "test_video_audio.moc"
