// The editor's kymograph through app/session: the Line tool's line through a stack's pages (an
// ImageJ time-lapse TIFF with its frame interval and pixel size) and through a video's frames
// gives the values `lacuna kymograph` writes for the same file and line, bit for bit, and Export
// writes the CLI's very CSV; the axes, readout and view (LUT, window); cancel; refusals.
#include <background_job.hpp>
#include <kymograph.hpp>
#include <line_tool.hpp>
#include <regions_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/regions.hpp>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <tiffio.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

using namespace lacuna;
using namespace std::chrono_literals;

namespace {

constexpr int kW = 48, kH = 11, kFrames = 9;

float dot_value(const int x, const int y, const int t) {
    return (y == 5 && x == 2 + 3 * t) ? 900.0f : 100.0f + 0.5f * x + y;
}

// An ImageJ time-lapse: float pages, finterval 0.5 s, 0.25 mm pixels (ResolutionUnit none and
// unit=mm, as ImageJ writes a length it has no TIFF unit for).
bool write_timelapse(const QString& path, const int frames) {
    TIFF* t = TIFFOpen(path.toStdString().c_str(), "w");
    if (t == nullptr) return false;
    for (int page = 0; page < frames; ++page) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, kW);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, kH);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 32);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, kH);
        TIFFSetField(t, TIFFTAG_XRESOLUTION, 4.0f);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, 4.0f);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
        if (page == 0)
            TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION,
                         "ImageJ=1.53t\nimages=9\nframes=9\nunit=mm\nfinterval=0.5\n");
        std::vector<float> row(kW);
        for (int y = 0; y < kH; ++y) {
            for (int x = 0; x < kW; ++x) row[std::size_t(x)] = dot_value(x, y, page % kFrames);
            TIFFWriteScanline(t, row.data(), std::uint32_t(y), 0);
        }
        TIFFWriteDirectory(t);
    }
    TIFFClose(t);
    return true;
}

bool wait_for(session::Kymographer& k) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (k.poll()) return true;
        std::this_thread::sleep_for(1ms);
    }
    return false;
}

QByteArray file_bytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ImageF32 read_float(const QString& path) {
    const io::LoadedNative file = io::read_native(path.toStdString());
    return measurement_plane(file.pages.at(0));
}

bool same_values(const ImageF32& a, const ImageF32& b) {
    if (a.width() != b.width() || a.height() != b.height()) return false;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const float u = a.at(x, y), v = b.at(x, y);
            if (std::isnan(u) ? !std::isnan(v) : std::memcmp(&u, &v, sizeof u) != 0) return false;
        }
    return true;
}

void run_cli(const QStringList& args) {
    QProcess cli;
    cli.start(LACUNA_CLI_PATH, args);
    QVERIFY(cli.waitForFinished(120000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
}

/// Opens `path` in `s` as the editor does (document_actions.cpp): pages, calibration, window,
/// pixel size and frame interval.
void open_like_the_editor(session::Session& s, const QString& path) {
    io::LoadedNative loaded = io::read_native(path.toStdString());
    const PixelSpacing spacing = loaded.spacing;
    const std::optional<io::FrameInterval> interval = loaded.frame_interval;
    s.open_measurement(std::move(loaded.pages), loaded.calibration);
    s.document().set_spacing(spacing);
    s.set_frame_interval(interval);
}

}  // namespace

class TestKymographView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tmp(const QString& name) const { return dir_.filePath(name); }

  private slots:
    void stack_equals_the_cli() {
        QVERIFY(write_timelapse(tmp("lapse.tif"), kFrames));
        session::Session s(false);
        open_like_the_editor(s, tmp("lapse.tif"));
        QCOMPARE(s.page_count(), kFrames);
        s.show_page(4);  // any page shown: the kymograph runs through all of them
        s.select(session::ToolKind::LineHistogram);
        s.line().set_band(3);
        s.line().set_line({0.5, 5.25}, {46.0, 4.5});
        session::Kymographer k(s);
        QCOMPARE(QString::fromStdString(k.unavailable()), QString());
        k.start();
        QVERIFY(wait_for(k));
        const session::KymographResult* r = k.result();
        QVERIFY2(r != nullptr, k.message().c_str());
        QCOMPARE(r->values.height(), kFrames);
        QCOMPARE(k.done(), 0);  // taken: no job left
        QCOMPARE(r->distance_unit, std::string("mm"));
        QCOMPARE(*r->table.frame_interval, 0.5);

        run_cli({"kymograph", tmp("lapse.tif"), "--line", "0.5,5.25,46,4.5", "--band", "3",
                 tmp("cli.tif"), "--csv", tmp("cli.csv"), "--backend", "cpu"});
        QVERIFY(same_values(read_float(tmp("cli.tif")), r->values));
        k.export_to(tmp("editor.tif").toStdString(), tmp("editor.csv").toStdString());
        QVERIFY(same_values(read_float(tmp("editor.tif")), r->values));
        const QByteArray csv = file_bytes(tmp("editor.csv"));
        QVERIFY(csv.contains("# distance (mm, pixel size 0.25 mm)"));
        QVERIFY(csv.contains("frame,time_s,p0"));
        QCOMPARE(csv, file_bytes(tmp("cli.csv")));

        // The readout: position 8 at 0.25 mm a pixel along a line of slope -0.75/45.5, frame 2
        // one second in.
        const auto at = k.readout(8.2, 1.9);
        QVERIFY(at.has_value());
        QCOMPARE(at->position, 8);
        QCOMPARE(at->frame, 2);
        QCOMPARE(*at->time_s, 1.0);
        QCOMPARE(at->distance, r->distance[8]);
        QCOMPARE(at->value, r->values.at(8, 2));
        const QString text = QString::fromStdString(k.readout_text(8.2, 1.9));
        QVERIFY2(text.startsWith("d = ") && text.contains(" mm, t = 1 s (frame 2): "),
                 qPrintable(text));
        QVERIFY(!k.readout(-0.6, 0).has_value());
        QVERIFY(!k.readout(0, kFrames - 0.4).has_value());

        // The view: the document's window and LUT; the dot's row is bright, the rest dark.
        s.set_window({100.0, 900.0});
        const ImageRgba8 view = k.render();
        QCOMPARE(view.width(), r->values.width());
        QCOMPARE(view.height(), kFrames);
        const float bright = r->values.at(0, 0);
        const Rgba8 expected =
            lut_table(s.display().lut)[std::size_t(window_index(bright, s.display().window))];
        QCOMPARE(view.at(0, 0).r, expected.r);
        QCOMPARE(view.at(0, 0).g, expected.g);
    }

    void selected_region_equals_the_cli() {
        // A polyline region selected in the Regions tool: the kymograph follows it (its path and
        // band), not the Line tool's line, and equals `lacuna kymograph --polyline ... --band`.
        QVERIFY(write_timelapse(tmp("lapse.tif"), kFrames));
        session::Session s(false);
        open_like_the_editor(s, tmp("lapse.tif"));
        s.line().set_line({0.5, 5.25}, {46.0, 4.5});
        session::RegionsTool& regions = s.regions();
        ops::ProfileRegion path;
        path.name = "path";
        path.shape = ops::RegionShape::Polyline;
        path.points = {{1.5, 2.25}, {20, 7.5}, {44.75, 3}};
        path.width = 3;
        regions.add(path);
        QCOMPARE(regions.selected(), 0);
        session::Kymographer k(s);
        QCOMPARE(k.path()->what, std::string("region 'path' (polyline)"));
        k.start();
        QVERIFY(wait_for(k));
        const session::KymographResult* r = k.result();
        QVERIFY2(r != nullptr, k.message().c_str());
        QCOMPARE(r->path, std::string("region 'path' (polyline)"));
        QCOMPARE(r->plan.band(), 3);
        run_cli({"kymograph", tmp("lapse.tif"), "--polyline", "1.5,2.25,20,7.5,44.75,3", "--band",
                 "3", tmp("poly.tif"), "--csv", tmp("poly.csv"), "--backend", "cpu"});
        QVERIFY(same_values(read_float(tmp("poly.tif")), r->values));
        k.export_to(std::nullopt, tmp("poly-editor.csv").toStdString());
        QCOMPARE(file_bytes(tmp("poly-editor.csv")), file_bytes(tmp("poly.csv")));
        QCOMPARE(r->distance, ops::kymograph_distances(r->plan, {0.25, 0.25, "mm"}));

        // A rectangle: its centre line, its height as the band (as `histogram --regions`).
        ops::ProfileRegion box;
        box.name = "box";
        box.shape = ops::RegionShape::Rectangle;
        box.x = 4;
        box.y = 2;
        box.width = 30;
        box.height = 5;
        regions.add(box);
        QCOMPARE(regions.selected(), 1);
        const std::optional<session::KymographPath> p = k.path();
        QVERIFY(p.has_value());
        QCOMPARE(p->params.band_width, 5);
        QCOMPARE(p->params.path.size(), std::size_t(2));
        QCOMPARE(p->params.path[0].x, 4.0);
        QCOMPARE(p->params.path[0].y, 4.0);
        QCOMPARE(p->params.path[1].x, 33.0);
        QVERIFY(p->params.sampling == Sampling::Nearest);
        QCOMPARE(p->what, std::string("region 'box' (rectangle)"));

        // Nothing selected: the Line tool's line, as before.
        regions.select(-1);
        QCOMPARE(k.path()->what, std::string("the Line tool's line"));
        k.start();
        QVERIFY(wait_for(k));
        QCOMPARE(k.result()->path, std::string("the Line tool's line"));
        QCOMPARE(k.result()->plan.band(), s.line().band());
    }

    void video_equals_the_cli() {
        const QString video = QString(LACUNA_SOURCE_DIR) + "/tests/data/video/tree.avi";
        session::Session s(false);
        s.open_video(video.toStdString());
        s.line().set_line({0, 60}, {160, 60});
        session::Kymographer k(s);
        k.start();
        QVERIFY(wait_for(k));
        const session::KymographResult* r = k.result();
        QVERIFY2(r != nullptr, k.message().c_str());
        run_cli({"kymograph", video, "--line", "0,60,160,60", tmp("video.tif"), "--csv",
                 tmp("video.csv"), "--backend", "cpu"});
        QVERIFY(same_values(read_float(tmp("video.tif")), r->values));
        k.export_to(std::nullopt, tmp("video-editor.csv").toStdString());
        QCOMPARE(file_bytes(tmp("video-editor.csv")), file_bytes(tmp("video.csv")));
        QCOMPARE(r->distance_unit, std::string("px"));
        QVERIFY(r->table.frame_interval.has_value());  // the container's frame rate
    }

    void cancel_leaves_the_last_result() {
        QVERIFY(write_timelapse(tmp("long.tif"), 400));
        session::Session s(false);
        open_like_the_editor(s, tmp("long.tif"));
        s.line().set_band(512);
        s.line().set_line({0, 0}, {47, 10});
        session::Kymographer k(s);
        k.start();
        k.cancel();
        QVERIFY(wait_for(k));
        QVERIFY(k.result() == nullptr);
        QCOMPARE(QString::fromStdString(k.message()), QString("Kymograph cancelled."));
    }

    void refusals_say_why() {
        session::Session s(false);
        session::Kymographer k(s);
        QVERIFY(QString::fromStdString(k.unavailable()).contains("Open a stack"));
        s.open_measurement({NativeImage(8, 8, {SampleType::F32, 1})}, {});
        QVERIFY(QString::fromStdString(k.unavailable()).contains("needs a stack"));
        QVERIFY(write_timelapse(tmp("short.tif"), 3));
        open_like_the_editor(s, tmp("short.tif"));
        QVERIFY(QString::fromStdString(k.unavailable()).contains("Draw a line"));
        QVERIFY(QString::fromStdString(k.unavailable()).contains("select a region"));
        QVERIFY(!k.path().has_value());
        bool refused = false;
        try {
            k.start();
        } catch (const Error& e) {
            refused = e.code() == ErrorCode::InvalidArgument;
        }
        QVERIFY(refused);
        QVERIFY_THROWS_EXCEPTION(Error, k.export_to(std::nullopt, tmp("none.csv").toStdString()));
        QVERIFY(!QFile::exists(tmp("none.csv")));
    }
};

QTEST_GUILESS_MAIN(TestKymographView)
#include "test_kymograph_view.moc"
