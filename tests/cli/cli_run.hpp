// Running the `lacuna` binary from a CLI test (LACUNA_CLI_PATH is set per test target), and the
// one-line error contract every command keeps.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTest>

namespace lacuna::test {

struct CliResult {
    int status = -1;  ///< the exit code; -1: it did not finish, -2: it crashed
    QString out;
    QString err;
};

inline CliResult run_cli(const QStringList& args, const QProcessEnvironment& env =
                                                      QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(LACUNA_CLI_PATH, args);
    // A guard against hangs only: the benchmark commands under the sanitizers on a loaded
    // 2-core machine take minutes.
    if (!p.waitForFinished(600000)) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

/// One clear line on stderr, starting with "lacuna: error:" (or usage error), and nothing else.
inline void verify_one_error_line(const CliResult& r, const QString& must_contain) {
    const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() == 1, qPrintable(r.err));
    QVERIFY2(lines[0].startsWith("lacuna: error: ") || lines[0].startsWith("lacuna: usage error: "),
             qPrintable(lines[0]));
    QVERIFY2(lines[0].contains(must_contain), qPrintable(lines[0]));
}

}  // namespace lacuna::test
