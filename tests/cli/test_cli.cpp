// The lacuna tool as users run it: exit statuses, one-line errors on stderr, --help everywhere,
// --json, and outputs that never replace the input.
#include <lacuna/io/image_io.hpp>

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace lacuna;

namespace {

struct Result {
    int status = -1;
    QString out;
    QString err;
};

Result run_cli(const QStringList& args,
               const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(LACUNA_CLI_PATH, args);
    if (!p.waitForFinished(120000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

const QString kSample = QStringLiteral(LACUNA_SOURCE_DIR "/resources/sample/fruits.jpg");

// One clear line on stderr, starting with "lacuna: error:" (or usage error), and nothing else.
void verify_one_error_line(const Result& r, const QString& must_contain) {
    const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1, qPrintable(r.err));
    QVERIFY2(lines[0].startsWith("lacuna: error: ") || lines[0].startsWith("lacuna: usage error: "),
             qPrintable(lines[0]));
    QVERIFY2(lines[0].contains(must_contain), qPrintable(lines[0]));
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tmp(const QString& name) const { return dir_.filePath(name); }

  private slots:
    void version() {
        const Result r = run_cli({"--version"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.startsWith("lacuna 0.1.0 ("));
    }

    void main_help_lists_commands() {
        const Result r = run_cli({"--help"});
        QCOMPARE(r.status, 0);
        for (const char* c :
             {"info", "convert", "backend", "retarget", "inpaint", "histogram", "bench"})
            QVERIFY2(r.out.contains(QString("  ") + c), c);
        QCOMPARE(run_cli({}).status, 2);  // no command: usage, status 2
    }

    void every_command_has_help() {
        for (const QString c :
             {"info", "convert", "backend", "retarget", "inpaint", "histogram", "bench"}) {
            const Result r = run_cli({c, "--help"});
            QCOMPARE(r.status, 0);
            QVERIFY(r.out.startsWith("Usage: lacuna " + c));
            QVERIFY(r.out.contains("--backend auto|cpu|cuda"));
            QVERIFY(r.out.contains("--json"));
            QCOMPARE(run_cli({"help", c}).out, r.out);
        }
    }

    void info_text_and_json() {
        Result r = run_cli({"info", kSample});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("JPEG 512x480, 3 channels, 8-bit, no alpha"), qPrintable(r.out));
        r = run_cli({"info", "--json", kSample});
        QCOMPARE(r.status, 0);
        const QJsonArray arr = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(arr.size(), 1);
        QCOMPARE(arr[0].toObject()["width"].toInt(), 512);
        QCOMPARE(arr[0].toObject()["height"].toInt(), 480);
        QCOMPARE(arr[0].toObject()["format"].toString(), QString("JPEG"));
    }

    void errors_are_one_line_with_status() {
        Result r = run_cli({"info", tmp("missing.png")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "no such file");
        r = run_cli({"frobnicate"});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "unknown command 'frobnicate'");
        r = run_cli({"info", "--bogus", kSample});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "unknown option '--bogus'");
        r = run_cli({"convert", kSample});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "needs 2 argument(s)");
        r = run_cli({"backend", "--backend", "gpu"});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "--backend must be auto, cpu or cuda");
        r = run_cli({"convert", kSample, tmp("x.png"), "--quality", "500"});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "--quality must be from 1 to 100");
    }

    void corrupt_truncated_and_unsupported_inputs() {
        QFile bad(tmp("bad.jpg"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        QFile sample(kSample);
        QVERIFY(sample.open(QIODevice::ReadOnly));
        bad.write(sample.read(20000));  // a photo cut short
        bad.close();
        Result r = run_cli({"info", tmp("bad.jpg")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "truncated");
        QFile text(tmp("readme.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("just words\n");
        text.close();
        r = run_cli({"info", tmp("readme.txt")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "not an image in a supported format");
        r = run_cli({"convert", kSample, tmp("out.xyz")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "unsupported file extension");
        QVERIFY(!QFile::exists(tmp("out.xyz")));
    }

    void convert_keeps_sixteen_bits() {
        // A 16-bit PGM (what a CT or thermal export may be): 4x3 samples, big-endian.
        QFile pgm(tmp("scan.pgm"));
        QVERIFY(pgm.open(QIODevice::WriteOnly));
        pgm.write("P5\n4 3\n65535\n");
        for (int i = 0; i < 12; ++i) {
            const int v = 1000 + 5000 * i;
            pgm.putChar(char(v >> 8));
            pgm.putChar(char(v & 0xff));
        }
        pgm.close();
        Result r = run_cli({"convert", tmp("scan.pgm"), tmp("scan.tiff"), "--json"});
        QCOMPARE(r.status, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["bit_depth"].toInt(), 16);
        const io::LoadedMeasurement m = io::read_measurement(tmp("scan.tiff").toStdString());
        QCOMPARE(m.info.bit_depth, 16);
        QCOMPARE(m.values.at(3, 2), 1000.0f + 5000.0f * 11);
        // info reports the stored values' range.
        r = run_cli({"info", tmp("scan.tiff")});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("16-bit") && r.out.contains("values 1000 to 56000"),
                 qPrintable(r.out));
        // JPEG cannot: a note says so.
        r = run_cli({"convert", tmp("scan.pgm"), tmp("scan.jpg")});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.contains("JPEG cannot hold 16-bit"), qPrintable(r.err));
    }

    void convert_writes_and_never_replaces_the_input() {
        QVERIFY(QFile::copy(kSample, tmp("in.jpg")));
        const QByteArray before = [&] {
            QFile f(tmp("in.jpg"));
            f.open(QIODevice::ReadOnly);
            return f.readAll();
        }();
        Result r = run_cli({"convert", tmp("in.jpg"), tmp("in.jpg")});
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "refusing to overwrite the input");
        QFile after(tmp("in.jpg"));
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);
        r = run_cli({"convert", tmp("in.jpg"), tmp("out.png"), "--json"});
        QCOMPARE(r.status, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["width"].toInt(), 512);
        const io::LoadedImage png = io::read_image(tmp("out.png").toStdString());
        const io::LoadedImage jpg = io::read_image(tmp("in.jpg").toStdString());
        QVERIFY(equal_pixels<Rgba8>(png.image.view(), jpg.image.view()));
        r = run_cli({"convert", tmp("out.png"), tmp("out.png"), "--overwrite"});
        QCOMPARE(r.status, 0);
    }

    void histogram_csv_counts_a_gradient() {
        // Grey level 4x in column x: a nearest-sampled row gives one count in bin 4x at position x.
        ImageRgba8 gradient(64, 32);
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 64; ++x)
                gradient.at(x, y) =
                    Rgba8{std::uint8_t(4 * x), std::uint8_t(4 * x), std::uint8_t(4 * x), 255};
        io::write_image(tmp("gradient.png").toStdString(), gradient.view());
        const Result r =
            run_cli({"histogram", tmp("gradient.png"), "--from", "0,5", "--to", "63,5",
                     "--sampling", "nearest", "--csv", tmp("h.csv"), "--profile-csv", tmp("p.csv"),
                     "--png", tmp("h.png"), "--json", "--backend", "cpu"});
        QCOMPARE(r.status, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["positions"].toInt(), 64);
        QCOMPARE(o["bins"].toInt(), 256);
        QFile csv(tmp("h.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 257);
        QCOMPARE(lines[0].split(',').size(), 4 + 64);
        for (int x = 0; x < 64; ++x) {
            const QStringList row = lines[1 + 4 * x].split(',');
            QCOMPARE(row[0], QString("lum"));
            QCOMPARE(row[1].toInt(), 4 * x);
            QCOMPARE(row[4 + x], QString("1"));
            QCOMPARE(lines[2 + 4 * x].split(',')[4 + x], QString("0"));
        }
        QFile profile(tmp("p.csv"));
        QVERIFY(profile.open(QIODevice::ReadOnly));
        const QStringList prow =
            QString::fromUtf8(profile.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(prow.size(), 65);
        QCOMPARE(prow[11].split(',')[5].toDouble(), 40.0);  // mean at position 10
        const io::LoadedImage png = io::read_image(tmp("h.png").toStdString());
        QVERIFY(png.image.width() >= 512);
    }

    void histogram_bad_input() {
        const QStringList base = {"histogram", kSample, "--csv", tmp("bad.csv")};
        const auto expect = [&](const QStringList& extra, const int status, const QString& text) {
            const Result r = run_cli(base + extra);
            QCOMPARE(r.status, status);
            verify_one_error_line(r, text);
            QVERIFY(!QFile::exists(tmp("bad.csv")));
        };
        expect({"--from", "10,10", "--to", "10,10"}, 1, "zero length");
        expect({"--from", "-50,-50", "--to", "-10,-20"}, 1, "wholly outside");
        expect({"--from", "1,1", "--to", "100,100", "--bins", "0"}, 1,
               "bins must be from 1 to 65536");
        expect({"--from", "1,1", "--to", "100,100", "--bins", "70000"}, 1,
               "bins must be from 1 to 65536");
        expect({"--from", "1,1", "--to", "100,100", "--width", "0"}, 1, "band width");
        expect({"--from", "1,1", "--to", "100,100", "--range", "5,5"}, 1, "range");
        expect({"--from", "1,1"}, 2, "--from x0,y0 --to x1,y1");
        expect({"--from", "one,two", "--to", "3,4"}, 2, "--from needs a number");
        expect({"--from", "1,1", "--to", "9,9", "--channel", "hue"}, 2, "--channel must be");
        const Result r = run_cli({"histogram", kSample, "--from", "1,1", "--to", "9,9"});
        QCOMPARE(r.status, 2);
        verify_one_error_line(r, "say where the result goes");
    }

    void histogram_direction_mode() {
        const Result r = run_cli({"histogram", kSample, "--direction", "90", "--from", "100,0",
                                  "--to", "100,479", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["positions"].toInt(), 702);  // ceil(hypot(512, 480)) = ceil(701.8)
        QCOMPARE(o["mode"].toString(), QString("direction"));
        QVERIFY(o.contains("line_column"));
    }

    void retarget_shrinks_enlarges_and_draws_seams() {
        Result r = run_cli({"retarget", kSample, tmp("half.png"), "--width", "50%",
                            "--seams-overlay", tmp("seams.png"), "--json", "--backend", "cpu"});
        QCOMPARE(r.status, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["target_width"].toInt(), 256);
        QCOMPARE(o["seams_removed_vertical"].toInt(), 256);
        QVERIFY(o.contains("carve_ms") && o.contains("ms_per_seam"));
        QCOMPARE(io::read_image(tmp("half.png").toStdString()).image.width(), 256);
        const io::LoadedImage overlay = io::read_image(tmp("seams.png").toStdString());
        QCOMPARE(overlay.image.width(), 512);
        r = run_cli({"retarget", kSample, tmp("wide.png"), "--width", "600", "--height", "400",
                     "--energy", "sobel", "--backend", "cpu"});
        QCOMPARE(r.status, 0);
        const io::LoadedImage wide = io::read_image(tmp("wide.png").toStdString());
        QCOMPARE(wide.image.width(), 600);
        QCOMPARE(wide.image.height(), 400);
    }

    void retarget_bad_input() {
        const auto expect = [&](const QStringList& args, const int status, const QString& text) {
            const Result r =
                run_cli(QStringList{"retarget"} + args + QStringList{"--backend", "cpu"});
            QCOMPARE(r.status, status);
            verify_one_error_line(r, text);
        };
        expect({kSample, tmp("r.png"), "--width", "0"}, 1, "at least 1 pixel");
        expect({kSample, tmp("r.png"), "--width", "1025"}, 1, "more than twice");
        expect({kSample, tmp("r.png"), "--height", "201%"}, 1, "more than twice");
        expect({kSample, tmp("r.png")}, 2, "give a target size");
        expect({kSample, tmp("r.png"), "--width", "10", "--energy", "magic"}, 2,
               "--energy must be");
        expect({kSample, kSample, "--width", "100"}, 1, "refusing to overwrite the input");
        // Masks: wrong size, and one that protects everything.
        io::write_image(tmp("small-mask.png").toStdString(),
                        ImageRgba8(100, 100, Rgba8{255, 255, 255, 255}).view());
        expect({kSample, tmp("r.png"), "--width", "400", "--protect", tmp("small-mask.png")}, 1,
               "the protect mask is 100x100 but the image is 512x480");
        expect({kSample, tmp("r.png"), "--width", "400", "--remove", tmp("small-mask.png")}, 1,
               "the remove mask is 100x100");
        io::write_image(tmp("all.png").toStdString(),
                        ImageRgba8(512, 480, Rgba8{255, 255, 255, 255}).view());
        expect({kSample, tmp("r.png"), "--width", "400", "--protect", tmp("all.png")}, 1,
               "nothing can be carved");
        io::write_image(tmp("dot.png").toStdString(), ImageRgba8(1, 1, Rgba8{9, 9, 9, 255}).view());
        expect({tmp("dot.png"), tmp("r.png"), "--width", "2"}, 1, "1x1");
        QVERIFY(!QFile::exists(tmp("r.png")));
        // An empty remove mask is not an error: the note says so and the width stays.
        io::write_image(tmp("none.png").toStdString(),
                        ImageRgba8(512, 480, Rgba8{0, 0, 0, 255}).view());
        const Result r = run_cli({"retarget", kSample, tmp("r.png"), "--remove", tmp("none.png"),
                                  "--json", "--backend", "cpu"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.err.contains("the remove mask is empty"));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["target_width"].toInt(), 512);
    }

    void inpaint_fills_only_the_mask() {
        // PNG in and out, so the comparison outside the mask is exact.
        QCOMPARE(run_cli({"convert", kSample, tmp("fruits.png")}).status, 0);
        const ImageRgba8 input = io::read_image(tmp("fruits.png").toStdString()).image;
        ImageRgba8 mask_image(512, 480, Rgba8{0, 0, 0, 255});
        for (int y = 220; y < 300; ++y)
            for (int x = 230; x < 290; ++x) mask_image.at(x, y) = Rgba8{255, 255, 255, 255};
        io::write_image(tmp("mask.png").toStdString(), mask_image.view());
        const Result r = run_cli({"inpaint", tmp("fruits.png"), tmp("mask.png"), tmp("filled.png"),
                                  "--patch", "7", "--search", "window:0.3", "--json", "--backend",
                                  "cpu", "--method", "criminisi"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.contains("progress: 4800/4800 pixels filled (100 %)"), qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["method"].toString(), QString("criminisi"));
        QCOMPARE(o["hole_pixels"].toInt(), 4800);
        QCOMPARE(o["patch"].toInt(), 7);
        QCOMPARE(o["search"].toString(), QString("window:0.3"));
        QVERIFY(o["patches"].toInt() > 4800 / 49);
        const ImageRgba8 output = io::read_image(tmp("filled.png").toStdString()).image;
        int changed_inside = 0;
        for (int y = 0; y < 480; ++y)
            for (int x = 0; x < 512; ++x) {
                const bool inside = mask_image.at(x, y).r != 0;
                if (!inside) QCOMPARE(output.at(x, y), input.at(x, y));
                if (inside && output.at(x, y) != input.at(x, y)) ++changed_inside;
            }
        QVERIFY(changed_inside > 4000);
        // The reference gives the same picture.
        QCOMPARE(run_cli({"inpaint", tmp("fruits.png"), tmp("mask.png"), tmp("ref.png"), "--patch",
                          "7", "--search", "window:0.3", "--reference", "--method", "criminisi"})
                     .status,
                 0);
        const ImageRgba8 reference = io::read_image(tmp("ref.png").toStdString()).image;
        QVERIFY(equal_pixels(ImageView<const Rgba8>(reference.view()),
                             ImageView<const Rgba8>(output.view())));
    }

    void inpaint_defaults_to_patchmatch() {
        // The bench's measurements made PatchMatch the default (see docs/notes/patchmatch.md).
        const Result r = run_cli({"inpaint", tmp("fruits.png"), tmp("mask.png"),
                                  tmp("filled-pm.png"), "--json", "--backend", "cpu"});
        QCOMPARE(r.status, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["method"].toString(), QString("patchmatch"));
        QCOMPARE(o["seed"].toInt(), 1);
        QVERIFY(o["passes"].toInt() > 0);
        QVERIFY(!o.contains("patches"));
        const ImageRgba8 input = io::read_image(tmp("fruits.png").toStdString()).image;
        const ImageRgba8 output = io::read_image(tmp("filled-pm.png").toStdString()).image;
        const ImageRgba8 mask = io::read_image(tmp("mask.png").toStdString()).image;
        for (int y = 0; y < 480; ++y)
            for (int x = 0; x < 512; ++x)
                if (mask.at(x, y).r == 0) QCOMPARE(output.at(x, y), input.at(x, y));
    }

    void inpaint_bad_input() {
        const auto expect = [&](const QStringList& args, const int status, const QString& text) {
            const Result r =
                run_cli(QStringList{"inpaint"} + args + QStringList{"--backend", "cpu"});
            QCOMPARE(r.status, status);
            verify_one_error_line(r, text);
        };
        io::write_image(tmp("m-small.png").toStdString(),
                        ImageRgba8(100, 100, Rgba8{255, 255, 255, 255}).view());
        expect({kSample, tmp("m-small.png"), tmp("o.png")}, 1,
               "the mask is 100x100 but the image is 512x480");
        ImageRgba8 dot_mask(512, 480, Rgba8{0, 0, 0, 255});
        dot_mask.at(10, 10) = Rgba8{255, 255, 255, 255};
        io::write_image(tmp("m-dot.png").toStdString(), dot_mask.view());
        expect({kSample, tmp("m-dot.png"), tmp("o.png"), "--patch", "8"}, 2, "--patch must be odd");
        expect({kSample, tmp("m-dot.png"), tmp("o.png"), "--search", "nearby"}, 2,
               "--search must be");
        expect({kSample, tmp("m-dot.png"), kSample}, 1, "refusing to overwrite the input");
        expect({kSample, tmp("m-dot.png"), tmp("m-dot.png")}, 1, "refusing to overwrite the input");
        // Everything masked but a border too thin for a 9×9 patch.
        ImageRgba8 most(512, 480, Rgba8{255, 255, 255, 255});
        for (int y = 0; y < 480; ++y)
            for (int x = 0; x < 512; ++x)
                if (x < 4 || y < 4 || x >= 508 || y >= 476) most.at(x, y) = Rgba8{0, 0, 0, 255};
        io::write_image(tmp("m-most.png").toStdString(), most.view());
        expect({kSample, tmp("m-most.png"), tmp("o.png")}, 1, "no complete 9×9 source patch");
        io::write_image(tmp("tiny.png").toStdString(),
                        ImageRgba8(20, 20, Rgba8{9, 9, 9, 255}).view());
        ImageRgba8 tiny_mask(20, 20, Rgba8{0, 0, 0, 255});
        tiny_mask.at(3, 3) = Rgba8{255, 255, 255, 255};
        io::write_image(tmp("tiny-mask.png").toStdString(), tiny_mask.view());
        expect({tmp("tiny.png"), tmp("tiny-mask.png"), tmp("o.png"), "--patch", "31"}, 1,
               "patch does not fit in a 20×20 image");
        expect({tmp("missing.png"), tmp("m-dot.png"), tmp("o.png")}, 1, "missing.png");
        QVERIFY(!QFile::exists(tmp("o.png")));
        // An empty mask: a note, and the picture is written unchanged.
        io::write_image(tmp("m-none.png").toStdString(),
                        ImageRgba8(20, 20, Rgba8{0, 0, 0, 255}).view());
        const Result r = run_cli({"inpaint", tmp("tiny.png"), tmp("m-none.png"), tmp("o.png")});
        QCOMPARE(r.status, 0);
        QVERIFY(r.err.contains("the mask is empty: nothing to fill"));
        const ImageRgba8 written = io::read_image(tmp("o.png").toStdString()).image;
        const ImageRgba8 tiny = io::read_image(tmp("tiny.png").toStdString()).image;
        QVERIFY(equal_pixels(ImageView<const Rgba8>(written.view()),
                             ImageView<const Rgba8>(tiny.view())));
    }

    void bench_inpaint_compares_with_telea() {
        const Result r = run_cli({"bench", "inpaint", "--case", "fabric", "--reference"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("fabric"), qPrintable(r.out));
        QVERIFY(r.out.contains("Telea"));
        // The fast filler made the same decisions as the reference.
        QVERIFY2(r.out.contains("identical"), qPrintable(r.out));
        QVERIFY(!r.out.contains("DIFFERS"));
        // Both methods ran: the Criminisi rows are not the default (PatchMatch) in disguise.
        QVERIFY2(r.out.contains("PM CPU"), qPrintable(r.out));
        QVERIFY2(!r.out.contains("SAME PIXELS"), qPrintable(r.out));
    }

    void backend_selection_reports_reason() {
        Result r = run_cli({"backend", "--backend", "cpu", "--json"});
        QCOMPARE(r.status, 0);
        QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["backend"].toString(), QString("cpu"));
        QCOMPARE(o["reason"].toString(), QString("CPU backend requested"));
        // Hiding every GPU forces the fallback, on machines with and without one.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("CUDA_VISIBLE_DEVICES", "");
        r = run_cli({"backend", "--json"}, env);
        QCOMPARE(r.status, 0);
        o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["backend"].toString(), QString("cpu"));
        QVERIFY(!o["reason"].toString().isEmpty());
        r = run_cli({"backend", "--backend", "cuda"}, env);
        QCOMPARE(r.status, 1);
        verify_one_error_line(r, "CUDA backend requested but");
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
