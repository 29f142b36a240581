// `lacuna` with a real CUDA failure in the middle of a job: the environment
// variable LACUNA_CUDA_FAULT=alloc:N|launch:N makes the N-th device allocation or kernel launch
// fail. Under --backend auto, retarget, inpaint, histogram and batch say so on stderr, finish on
// the CPU and write exactly what the CPU writes; under --backend cuda they fail with one error
// line and write nothing. Needs a CUDA device (label gpu); skipped elsewhere.
#include "cli_run.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/io/image_io.hpp>

#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace lacuna;
namespace fs = std::filesystem;

namespace {

using Result = test::CliResult;

/// The CLI with the N-th device allocation or launch failing (`fault`), or none.
Result run_cli(const QStringList& args, const QString& fault = {}) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (fault.isEmpty())
        env.remove("LACUNA_CUDA_FAULT");
    else
        env.insert("LACUNA_CUDA_FAULT", fault);
    return test::run_cli(args, env);
}

/// Stripes, gradients and a disc: structure for seams and patches.
ImageRgba8 test_photo(const int w, const int h) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double s = 0.5 + 0.5 * std::sin(x * 0.13 + std::sin(y * 0.07) * 2.5);
            image.at(x, y) = Rgba8{std::uint8_t(30 + 180 * s), std::uint8_t((x * 255) / w),
                                   std::uint8_t((y * 255) / h), 255};
            if (std::hypot(x - w * 0.55, y - h * 0.5) < h * 0.12)
                image.at(x, y) = Rgba8{230, 20, 40, 255};
        }
    return image;
}

bool same_pixels(const QString& a, const QString& b) {
    const ImageRgba8 x = io::read_image(a.toStdString()).image;
    const ImageRgba8 y = io::read_image(b.toStdString()).image;
    return equal_pixels<Rgba8>(x.view(), y.view());
}

std::string file_text(const QString& path) {
    std::ifstream in(path.toStdString());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

class TestCliFaults : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString tmp(const QString& name) const { return dir_.filePath(name); }

    /// The job with a fault armed by the environment: noted, finished on the CPU, the CPU's
    /// output. Then with --backend cuda: one error line, no output.
    void check_job(const QStringList& before_output, const QString& output,
                   const QStringList& after_output, const QString& fault,
                   const std::function<bool(const QString&, const QString&)>& same) {
        const QString cpu = output + ".cpu";
        const QString cpu_file = tmp(cpu + (output.endsWith(".csv") ? ".csv" : ".png"));
        const QString gpu_file = tmp(output);
        const auto args = [&](const QString& out, const QStringList& extra) {
            QStringList a = before_output;
            if (!out.isEmpty()) a << out;
            return a + after_output + extra;
        };
        const bool csv = output.endsWith(".csv");
        const QStringList cpu_args =
            csv ? before_output + after_output + QStringList{"--csv", cpu_file, "--backend", "cpu"}
                : args(cpu_file, {"--backend", "cpu"});
        QCOMPARE(run_cli(cpu_args).status, 0);

        const QStringList gpu_args =
            csv ? before_output + after_output + QStringList{"--csv", gpu_file, "--json"}
                : args(gpu_file, {"--json"});
        const Result r = run_cli(gpu_args, fault);
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("the GPU failed ("), qPrintable(r.err));
        QVERIFY2(r.err.contains("running on the CPU instead"), qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QString backend =
            o.contains("backend") ? o["backend"].toString() : o["implementation"].toString();
        QCOMPARE(backend, QString("cpu"));
        QVERIFY2(same(gpu_file, cpu_file), qPrintable(output));

        // Asked for CUDA: the failure is the answer, and nothing is written.
        const QString refused = tmp("refused-" + output);
        const QStringList cuda_args =
            csv ? before_output + after_output + QStringList{"--csv", refused, "--backend", "cuda"}
                : args(refused, {"--backend", "cuda"});
        const Result c = run_cli(cuda_args, fault);
        QCOMPARE(c.status, 1);
        QVERIFY2(c.err.contains("lacuna: error: ") &&
                     (c.err.contains("CUDA error") || c.err.contains("out of device memory")),
                 qPrintable(c.err));
        QVERIFY2(!fs::exists(refused.toStdString()), qPrintable(refused));
    }

  private slots:
    void initTestCase() {
        const BackendInfo backend = select_backend(BackendRequest::Auto);
        if (backend.backend != Backend::Cuda)
            QSKIP(qPrintable("no usable CUDA device: " + QString::fromStdString(backend.reason)));
        QVERIFY(dir_.isValid());
        io::write_image(tmp("photo.png").toStdString(), test_photo(331, 217).view());
        ImageRgba8 mask(331, 217, Rgba8{0, 0, 0, 255});
        for (int y = 0; y < 217; ++y)
            for (int x = 0; x < 331; ++x)
                if (std::hypot(x - 331 * 0.55, y - 217 * 0.5) < 217 * 0.14)
                    mask.at(x, y) = Rgba8{255, 255, 255, 255};
        io::write_image(tmp("mask.png").toStdString(), mask.view());
    }

    void retarget_falls_back_after_a_failed_launch() {
        check_job({"retarget", tmp("photo.png")}, "retarget-launch.png",
                  {"--width", "70%", "--height", "90%"}, "launch:7", same_pixels);
    }

    void retarget_falls_back_after_a_failed_allocation() {
        check_job({"retarget", tmp("photo.png")}, "retarget-alloc.png", {"--width", "80%"},
                  "alloc:2", same_pixels);
    }

    void inpaint_falls_back_after_a_failed_launch() {
        check_job({"inpaint", tmp("photo.png"), tmp("mask.png")}, "inpaint-launch.png", {},
                  "launch:4", same_pixels);
    }

    void inpaint_falls_back_after_a_failed_allocation() {
        check_job({"inpaint", tmp("photo.png"), tmp("mask.png")}, "inpaint-alloc.png", {},
                  "alloc:1", same_pixels);
    }

    void histogram_falls_back_after_a_failed_launch() {
        check_job({"histogram", tmp("photo.png"), "--from", "10,20", "--to", "300,190"}, "line.csv",
                  {"--width", "9"}, "launch:1",
                  [](const QString& a, const QString& b) { return file_text(a) == file_text(b); });
    }

    void a_batch_finishes_every_item_after_a_failure() {
        const fs::path in = tmp("batch-in").toStdString();
        fs::create_directories(in);
        for (int i = 0; i < 4; ++i)
            io::write_image(in / QString("p%1.png").arg(i).toStdString(),
                            test_photo(200 + 17 * i, 150).view());
        const QString gpu = tmp("batch-gpu"), cpu = tmp("batch-cpu");
        QCOMPARE(run_cli({"batch", "retarget", "--input", QString::fromStdString(in.string()),
                          "--output", cpu, "--width", "75%", "--devices", "cpu"})
                     .status,
                 0);
        const Result r =
            run_cli({"batch", "retarget", "--input", QString::fromStdString(in.string()),
                     "--output", gpu, "--width", "75%", "--devices", "0", "--jobs", "1"},
                    "launch:30");
        QVERIFY2(r.status == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("\"ok\":4"), qPrintable(r.out));
        QVERIFY2(r.out.contains("the GPU failed"), qPrintable(r.out));
        for (int i = 0; i < 4; ++i) {
            const QString name = QString("p%1.png").arg(i);
            QVERIFY2(same_pixels(gpu + "/" + name, cpu + "/" + name), qPrintable(name));
        }
    }

    void a_malformed_switch_is_ignored_with_a_warning() {
        const Result r = run_cli({"retarget", tmp("photo.png"), tmp("plain.png"), "--width", "90%"},
                                 "launch:zero");
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.contains("LACUNA_CUDA_FAULT ignored"), qPrintable(r.err));
        QVERIFY(!r.err.contains("the GPU failed"));
    }
};

QTEST_GUILESS_MAIN(TestCliFaults)
#include "test_cli_faults.moc"
