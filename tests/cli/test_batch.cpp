// `lacuna batch` as a user runs it: folders and list files in, mirrored outputs, one JSON line per
// item, resume, bad items reported without stopping the rest, and Ctrl-C finishing the items in
// flight with no half-written output. Images are generated in the test.
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <thread>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

struct Result {
    int status = -1;
    QList<QJsonObject> items;  ///< the item lines, in the order they came
    QJsonObject summary;
    QString err;
};

Result parse(const int status, const QByteArray& out, const QByteArray& err) {
    Result r;
    r.status = status;
    r.err = QString::fromUtf8(err);
    for (const QByteArray& line : out.split('\n')) {
        if (line.isEmpty()) continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.isEmpty()) {
            r.items.append(QJsonObject{{"unparsed", QString::fromUtf8(line)}});
        } else if (o.contains("summary")) {
            r.summary = o["summary"].toObject();
        } else {
            r.items.append(o);
        }
    }
    return r;
}

Result batch(const QStringList& args) {
    QProcess p;
    p.start(LACUNA_CLI_PATH, QStringList{"batch"} + args);
    if (!p.waitForFinished(300000)) return {};
    return parse(p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
                 p.readAllStandardOutput(), p.readAllStandardError());
}

/// A small photo-like image: gradients, stripes and a blob.
ImageRgba8 scene(const int w, const int h, const int k) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int dx = x - w / 2, dy = y - h / 2;
            const bool blob = dx * dx + dy * dy < (h / 5) * (h / 5);
            image.at(x, y) =
                Rgba8{std::uint8_t((x * 255) / w), std::uint8_t((y * 3 + k * 40) % 256),
                      std::uint8_t(blob ? 250 : ((x / 6 + k) % 2) * 120), 255};
        }
    return image;
}

Mask box_mask(const int w, const int h) {
    Mask m(w, h, 0);
    for (int y = h / 3; y < h / 2; ++y)
        for (int x = w / 3; x < w / 2; ++x) m.at(x, y) = 255;
    return m;
}

void write_png(const fs::path& path, const ImageRgba8& image) {
    fs::create_directories(path.parent_path());
    io::write_image(path, image.view());
}

void write_mask(const fs::path& path, const Mask& mask) {
    ImageRgba8 image(mask.width(), mask.height());
    for (int y = 0; y < mask.height(); ++y)
        for (int x = 0; x < mask.width(); ++x) {
            const std::uint8_t v = mask.at(x, y);
            image.at(x, y) = Rgba8{v, v, v, 255};
        }
    write_png(path, image);
}

/// Files under `dir` whose name marks an unfinished write.
int temporary_files(const fs::path& dir) {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".lacuna-") != std::string::npos) ++n;
    return n;
}

QString status_of(const Result& r, const QString& input_suffix) {
    for (const QJsonObject& o : r.items)
        if (o["input"].toString().endsWith(input_suffix)) return o["status"].toString();
    return "missing";
}

QJsonObject item_of(const Result& r, const QString& input_suffix) {
    for (const QJsonObject& o : r.items)
        if (o["input"].toString().endsWith(input_suffix)) return o;
    return {};
}

}  // namespace

class TestBatch : public QObject {
    Q_OBJECT

  private slots:
    void retarget_mirrors_the_folder_and_resumes() {
        QTemporaryDir dir;
        const fs::path in = dir.filePath("photos").toStdString();
        const fs::path out = dir.filePath("out").toStdString();
        write_png(in / "a.png", scene(80, 50, 1));
        write_png(in / "b.png", scene(96, 60, 2));
        write_png(in / "trip" / "c.png", scene(121, 40, 3));
        write_png(in / "trip" / "day 2" / "d.png", scene(64, 64, 4));
        const QStringList args{"retarget",
                               "--input",
                               QString::fromStdString(in.string()),
                               "--output",
                               QString::fromStdString(out.string()),
                               "--width",
                               "75%",
                               "--backend",
                               "cpu"};
        const Result first = batch(args);
        QVERIFY2(first.status == 0, qPrintable(first.err));
        QCOMPARE(first.items.size(), 4);
        for (const QJsonObject& o : first.items) {
            QCOMPARE(o["status"].toString(), QString("ok"));
            QCOMPARE(o["device"].toString(), QString("cpu"));
            QVERIFY(o["ms"].toDouble() > 0);
            const QJsonObject result = o["result"].toObject();
            QCOMPARE(result["target_width"].toInt(),
                     int(std::lround(result["width"].toInt() * 0.75)));
        }
        // Mirrored, with the carved sizes.
        const std::pair<const char*, int> expected[] = {
            {"a.png", 60}, {"b.png", 72}, {"trip/c.png", 91}, {"trip/day 2/d.png", 48}};
        for (const auto& [name, width] : expected) {
            const io::LoadedImage loaded = io::read_image(out / name);
            QCOMPARE(loaded.image.width(), width);
        }
        QCOMPARE(first.summary["items"].toInt(), 4);
        QCOMPARE(first.summary["ok"].toInt(), 4);
        // The mix options reach every item's retarget (--amount, a weight, a switch).
        const fs::path mixed = dir.filePath("mixed").toStdString();
        QStringList mix_args = args;
        mix_args[4] = QString::fromStdString(mixed.string());
        const Result mix =
            batch(mix_args + QStringList{"--amount", "40", "--skin", "--skin-weight", "10"});
        QVERIFY2(mix.status == 0, qPrintable(mix.err));
        for (const QJsonObject& o : mix.items) {
            const QJsonObject result = o["result"].toObject();
            QCOMPARE(result["mode"].toString(), QString("amount"));
            const int change = result["width"].toInt() - result["target_width"].toInt();
            QCOMPARE(result["width_mix"].toObject()["seams"].toInt(),
                     int(std::lround(change * 0.4)));
        }
        QCOMPARE(io::read_image(mixed / "a.png").image.width(), 60);
        QCOMPARE(first.summary["interrupted"].toBool(), false);
        QVERIFY(first.err.contains("lacuna: batch: 4/4 items"));
        // Again: everything is up to date.
        const Result again = batch(args);
        QCOMPARE(again.status, 0);
        QCOMPARE(again.summary["skipped"].toInt(), 4);
        QCOMPARE(again.summary["ok"].toInt(), 0);
        // An input changed after its output: only it is redone.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        write_png(in / "b.png", scene(100, 60, 5));
        const Result changed = batch(args);
        QCOMPARE(changed.summary["ok"].toInt(), 1);
        QCOMPARE(changed.summary["skipped"].toInt(), 3);
        QCOMPARE(status_of(changed, "b.png"), QString("ok"));
        QCOMPARE(io::read_image(out / "b.png").image.width(), 75);
        // --force redoes all; so do two worker processes sharing the items out, each item once.
        const Result forced = batch(args + QStringList{"--force"});
        QCOMPARE(forced.summary["ok"].toInt(), 4);
        const Result shared =
            batch(args + QStringList{"--force", "--devices", "cpu", "--workers", "2"});
        QVERIFY2(shared.status == 0, qPrintable(shared.err));
        QCOMPARE(shared.items.size(), 4);
        QSet<QString> inputs;
        for (const QJsonObject& o : shared.items) inputs.insert(o["input"].toString());
        QCOMPARE(inputs.size(), 4);
        QCOMPARE(shared.summary["ok"].toInt(), 4);
        QCOMPARE(shared.summary["devices"].toArray().size(), 2);
        // Three workers (this process and two worker processes) claim the items one at a time
        // from one counter in shared memory: still each item exactly once.
        const Result three =
            batch(args + QStringList{"--force", "--devices", "cpu", "--workers", "3"});
        QVERIFY2(three.status == 0, qPrintable(three.err));
        QCOMPARE(three.items.size(), 4);
        inputs.clear();
        for (const QJsonObject& o : three.items) inputs.insert(o["input"].toString());
        QCOMPARE(inputs.size(), 4);
        QCOMPARE(three.summary["ok"].toInt(), 4);
        QCOMPARE(three.summary["devices"].toArray().size(), 3);
        QCOMPARE(io::read_image(out / "trip" / "c.png").image.width(), 91);
        QCOMPARE(temporary_files(out), 0);
        // An output folder inside the input folder: its files are never taken as inputs.
        const fs::path inner = in / "narrow";
        const QStringList nested{"retarget",
                                 "--input",
                                 QString::fromStdString(in.string()),
                                 "--output",
                                 QString::fromStdString(inner.string()),
                                 "--width",
                                 "75%",
                                 "--backend",
                                 "cpu"};
        QCOMPARE(batch(nested).summary["ok"].toInt(), 4);
        const Result rerun = batch(nested);
        QCOMPARE(rerun.items.size(), 4);
        QCOMPARE(rerun.summary["skipped"].toInt(), 4);
        QVERIFY(!fs::exists(inner / "narrow"));
    }

    void videos_are_retargeted_too() {
        // A folder with a photo and a clip: the clip goes through `lacuna retarget`'s video path
        // and comes out as MP4 at the same relative place.
        QTemporaryDir dir;
        const fs::path in = dir.filePath("in").toStdString();
        const fs::path out = dir.filePath("out").toStdString();
        write_png(in / "still.png", scene(80, 60, 1));
        fs::create_directories(in / "clips");
        fs::copy_file(LACUNA_SOURCE_DIR "/tests/data/video/tree.avi", in / "clips" / "tree.avi");
        const Result r = batch({"retarget", "--input", QString::fromStdString(in.string()),
                                "--output", QString::fromStdString(out.string()), "--width", "90%",
                                "--keep-truncated", "--backend", "cpu"});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QCOMPARE(r.items.size(), 2);
        const QJsonObject clip = item_of(r, "tree.avi");
        QCOMPARE(clip["status"].toString(), QString("ok"));
        QVERIFY(clip["output"].toString().endsWith("clips/tree.mp4"));
        QCOMPARE(clip["result"].toObject()["frames"].toInt(), 68);
        QCOMPARE(clip["result"].toObject()["target_width"].toInt(), 288);
        QVERIFY(fs::file_size(out / "clips" / "tree.mp4") > 1000);
        // Other jobs leave videos out of the manifest.
        const Result hist =
            batch({"histogram", "--input", QString::fromStdString(in.string()), "--output",
                   dir.filePath("hist"), "--from", "1,1", "--to", "30,20", "--backend", "cpu"});
        QCOMPARE(hist.status, 0);
        QCOMPARE(hist.items.size(), 1);
    }

    void inpaint_and_histogram_from_a_list() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        write_png(root / "img" / "one.png", scene(70, 50, 1));
        write_png(root / "img" / "two.png", scene(70, 50, 2));
        // A list's items keep their paths as listed: the masks sit at the same paths.
        write_mask(root / "masks" / "img" / "one.png", box_mask(70, 50));
        write_mask(root / "masks" / "img" / "two.png", box_mask(70, 50));
        {
            QFile list(QString::fromStdString((root / "list.txt").string()));
            QVERIFY(list.open(QIODevice::WriteOnly));
            list.write("# the two photos\nimg/two.png\n\nimg/one.png\n");
        }
        const Result filled =
            batch({"inpaint", "--input", QString::fromStdString((root / "list.txt").string()),
                   "--output", QString::fromStdString((root / "filled").string()), "--masks",
                   QString::fromStdString((root / "masks").string()), "--backend", "cpu"});
        QVERIFY2(filled.status == 0, qPrintable(filled.err));
        QCOMPARE(filled.items.size(), 2);
        // The list's paths are relative to it, and mirrored as given.
        for (const char* name : {"one.png", "two.png"}) {
            const ImageRgba8 out = io::read_image(root / "filled" / "img" / name).image;
            const ImageRgba8 original = io::read_image(root / "img" / name).image;
            QCOMPARE(out.width(), 70);
            // Outside the hole nothing changed; inside it did.
            QVERIFY(out.at(2, 2) == original.at(2, 2));
            QVERIFY(
                item_of(filled, name)["mask"].toString().endsWith(QString("masks/img/") + name));
        }
        const Result hist =
            batch({"histogram", "--input", QString::fromStdString((root / "img").string()),
                   "--output", QString::fromStdString((root / "hist").string()), "--from", "3,4",
                   "--to", "60,40", "--band", "5", "--bins", "32", "--backend", "cpu"});
        QVERIFY2(hist.status == 0, qPrintable(hist.err));
        QCOMPARE(hist.items.size(), 2);
        for (const char* name : {"one.csv", "two.csv"}) {
            QFile csv(QString::fromStdString((root / "hist" / name).string()));
            QVERIFY2(csv.open(QIODevice::ReadOnly), name);
            QVERIFY(csv.readAll().count('\n') > 32);
        }
        QCOMPARE(item_of(hist, "one.png")["result"].toObject()["bins"].toInt(), 32);
    }

    void bad_items_are_reported_and_the_rest_done() {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path in = root / "in";
        for (const char* name :
             {"good1.png", "good2.png", "no-mask.png", "small-mask.png", "blocked.png"})
            write_png(in / name, scene(60, 40, int(std::strlen(name))));
        for (const char* name : {"good1.png", "good2.png", "blocked.png"})
            write_mask(root / "masks" / name, box_mask(60, 40));
        write_mask(root / "masks" / "small-mask.png", box_mask(30, 20));
        // An unreadable image: a PNG cut short.
        {
            QFile cut(QString::fromStdString((in / "cut.png").string()));
            QVERIFY(cut.open(QIODevice::WriteOnly));
            cut.write("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
        }
        // An output that cannot be written (a folder in its place, as a full disk would refuse
        // the file).
        fs::create_directories(root / "out" / "blocked.png");
        const Result r = batch({"inpaint", "--input", QString::fromStdString(in.string()),
                                "--output", QString::fromStdString((root / "out").string()),
                                "--masks", QString::fromStdString((root / "masks").string()),
                                "--backend", "cpu", "--jobs", "3"});
        QCOMPARE(r.status, 1);
        QCOMPARE(r.items.size(), 6);
        QCOMPARE(status_of(r, "good1.png"), QString("ok"));
        QCOMPARE(status_of(r, "good2.png"), QString("ok"));
        const auto error_of = [&](const char* name) {
            return item_of(r, name)["error"].toString();
        };
        QVERIFY2(error_of("cut.png").contains("truncated"), qPrintable(error_of("cut.png")));
        QVERIFY2(error_of("no-mask.png").contains("no-mask.png") &&
                     error_of("no-mask.png").contains("no such file"),
                 qPrintable(error_of("no-mask.png")));
        QVERIFY2(error_of("small-mask.png").contains("30x20") ||
                     error_of("small-mask.png").contains("30×20"),
                 qPrintable(error_of("small-mask.png")));
        QVERIFY2(!error_of("blocked.png").isEmpty(), qPrintable(error_of("blocked.png")));
        for (const char* name : {"cut.png", "no-mask.png", "small-mask.png", "blocked.png"})
            QCOMPARE(status_of(r, name), QString("failed"));
        QCOMPARE(r.summary["failed"].toInt(), 4);
        QCOMPARE(r.summary["ok"].toInt(), 2);
        // The good outputs are whole images; nothing half-written anywhere.
        QCOMPARE(io::read_image(root / "out" / "good1.png").image.width(), 60);
        QVERIFY(fs::is_directory(root / "out" / "blocked.png"));
        QVERIFY(!fs::exists(root / "out" / "cut.png"));
        QCOMPARE(temporary_files(root / "out"), 0);
    }

    void ctrl_c_finishes_the_items_in_flight_data() {
        QTest::addColumn<int>("workers");
        QTest::newRow("this process") << 1;
        // The signal goes to the batch alone (not its process group): it passes it on.
        QTest::newRow("two worker processes") << 2;
    }
    void ctrl_c_finishes_the_items_in_flight() {
        QFETCH(int, workers);
        QTemporaryDir dir;
        const fs::path in = dir.filePath("in").toStdString();
        const fs::path out = dir.filePath("out").toStdString();
        constexpr int kItems = 40;
        for (int i = 0; i < kItems; ++i)
            write_png(in / (QString("%1.png").arg(i, 3, 10, QChar('0')).toStdString()),
                      scene(400, 300, i));
        QProcess p;
        p.start(LACUNA_CLI_PATH,
                {"batch", "retarget", "--input", QString::fromStdString(in.string()), "--output",
                 QString::fromStdString(out.string()), "--width", "60%", "--devices", "cpu",
                 "--jobs", "2", "--workers", QString::number(workers)});
        QVERIFY(p.waitForStarted());
        // After the first item's line, Ctrl-C.
        QByteArray out_text;
        while (!out_text.contains('\n') && p.state() == QProcess::Running) {
            p.waitForReadyRead(10000);
            out_text += p.readAllStandardOutput();
        }
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(120000));
        out_text += p.readAllStandardOutput();
        const Result r = parse(p.exitCode(), out_text, p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(r.status, 1);
        QVERIFY2(r.summary["interrupted"].toBool(), qPrintable(r.err));
        QVERIFY2(r.summary["not_started"].toInt() > 0, qPrintable(r.err));
        QVERIFY(r.err.contains("stopped"));
        // Every item that started was finished, and every output under a final name is whole.
        QCOMPARE(r.summary["ok"].toInt(), int(r.items.size()));
        int outputs = 0;
        for (const auto& e : fs::directory_iterator(out)) {
            ++outputs;
            QCOMPARE(io::read_image(e.path()).image.width(), 240);
        }
        QCOMPARE(outputs, int(r.items.size()));
        QCOMPARE(temporary_files(out), 0);
        // Resuming does the rest.
        const Result rest =
            batch({"retarget", "--input", QString::fromStdString(in.string()), "--output",
                   QString::fromStdString(out.string()), "--width", "60%", "--backend", "cpu"});
        QCOMPARE(rest.status, 0);
        QCOMPARE(rest.summary["skipped"].toInt(), int(r.items.size()));
        QCOMPARE(rest.summary["ok"].toInt(), kItems - int(r.items.size()));
    }

    void usage_mistakes_are_refused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        const auto refused = [&](const QStringList& args, const QString& must_contain) {
            const Result r = batch(args);
            QVERIFY2(r.status == 2 || r.status == 1, qPrintable(r.err));
            QVERIFY2(r.err.contains(must_contain), qPrintable(r.err));
            QVERIFY(r.items.isEmpty());
        };
        refused({"resize", "--input", dir.path(), "--output", out, "--width", "50%"},
                "retarget, inpaint or histogram");
        refused({"retarget", "--input", dir.path(), "--width", "50%"}, "--output");
        refused({"retarget", "--input", dir.path(), "--output", out}, "--width");
        refused({"inpaint", "--input", dir.path(), "--output", out}, "--masks");
        refused({"histogram", "--input", dir.path(), "--output", out}, "--from");
        refused({"retarget", "--input", dir.filePath("nowhere"), "--output", out, "--width", "50%"},
                "nowhere");
        refused({"retarget", "--input", dir.path(), "--output", out, "--width", "50%", "--devices",
                 "7"},
                "no CUDA device 7");
    }
};

QTEST_GUILESS_MAIN(TestBatch)
#include "test_batch.moc"
