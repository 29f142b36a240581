// The one background-job helper every long job of the editor uses (seam maps, video exports,
// autosave writes): its value, its error, cancel (through the engine's progress-callback shape
// and through a polling loop), progress reported to the owner, and that destroying a running
// job cancels and waits for it.
#include <background_job.hpp>

#include <lacuna/core/error.hpp>

#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace lacuna;
using namespace std::chrono_literals;

namespace {

/// Polls as an owner does (a GUI timer, Session::poll) until the job has finished.
template <class Result>
std::optional<session::JobOutcome<Result>> poll_until_done(session::BackgroundJob<Result>& job) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto outcome = job.take()) return outcome;
        std::this_thread::sleep_for(1ms);
    }
    return std::nullopt;
}

}  // namespace

class TestBackgroundJob : public QObject {
    Q_OBJECT
  private slots:
    void returns_the_value_of_its_work() {
        session::BackgroundJob<int> job([](session::JobControl&) { return 6 * 7; });
        QVERIFY(job.started());
        const auto outcome = poll_until_done(job);
        QVERIFY(outcome.has_value());
        QVERIFY(outcome->ok());
        QCOMPARE(*outcome->value, 42);
        QVERIFY(outcome->error.empty());
        QVERIFY(!outcome->cancelled);
        // Taken once: the job is forgotten.
        QVERIFY(!job.started());
        QVERIFY(!job.take().has_value());
    }

    void reports_an_error_as_its_sentence() {
        session::BackgroundJob<int> job([](session::JobControl&) -> int {
            throw Error(ErrorCode::WriteFailed, "cannot write /nowhere/x.mp4: no such directory");
        });
        const auto outcome = poll_until_done(job);
        QVERIFY(outcome.has_value());
        QVERIFY(!outcome->ok());
        QVERIFY(!outcome->cancelled);
        QCOMPARE(QString::fromStdString(outcome->error),
                 QString("cannot write /nowhere/x.mp4: no such directory"));
        // Any exception, not only lacuna::Error.
        session::BackgroundJob<int> other(
            [](session::JobControl&) -> int { throw std::runtime_error("out of range"); });
        const auto second = poll_until_done(other);
        QVERIFY(second.has_value());
        QCOMPARE(QString::fromStdString(second->error), QString("out of range"));
    }

    void cancel_stops_work_that_reports_progress() {
        // The engine's shape: a progress callback returning false makes the operation throw
        // Error(Cancelled).
        std::atomic<int> steps{0};
        session::BackgroundJob<int> job([&](session::JobControl& control) -> int {
            for (int i = 0;; ++i) {
                if (!control.report(i, 1000000)) throw Error(ErrorCode::Cancelled, "cancelled");
                steps.store(i);
                std::this_thread::sleep_for(100us);
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(steps.load() > 10, 20000);
        QVERIFY(job.running());
        job.cancel();
        QVERIFY(job.cancel_requested());
        const auto outcome = poll_until_done(job);
        QVERIFY(outcome.has_value());
        QVERIFY(outcome->cancelled);
        QVERIFY(!outcome->ok());
        QVERIFY(outcome->error.empty());
    }

    void progress_reaches_the_owner() {
        std::atomic<bool> go{false};
        session::BackgroundJob<int> job([&](session::JobControl& control) {
            control.report(3, 10);
            while (!go.load()) std::this_thread::sleep_for(100us);
            control.report(7);  // the total stays
            return 1;
        });
        QTRY_COMPARE_WITH_TIMEOUT(job.done(), 3, 20000);
        QCOMPARE(job.total(), 10);
        QVERIFY(!job.finished());
        QVERIFY(!job.take().has_value());  // still running: nothing to take
        go = true;
        QTRY_VERIFY_WITH_TIMEOUT(job.finished(), 20000);
        QCOMPARE(job.done(), 7);
        QCOMPARE(job.total(), 10);
        QCOMPARE(*job.take()->value, 1);
    }

    void a_value_returned_after_a_late_cancel_is_kept() {
        // The work wrote its file before the cancel arrived: the outcome says what it did.
        session::BackgroundJob<std::string> job([](session::JobControl& control) {
            while (!control.cancelled()) std::this_thread::sleep_for(100us);
            return std::string("written");
        });
        job.cancel();
        const auto outcome = job.wait();
        QVERIFY(outcome.has_value());
        QVERIFY(!outcome->cancelled);
        QCOMPARE(QString::fromStdString(*outcome->value), QString("written"));
    }

    void destroying_a_running_job_cancels_and_waits() {
        auto alive = std::make_shared<std::atomic<bool>>(false);
        {
            session::BackgroundJob<int> job([alive](session::JobControl& control) {
                alive->store(true);
                while (control.report(0)) std::this_thread::sleep_for(100us);
                alive->store(false);
                return 0;
            });
            QTRY_VERIFY_WITH_TIMEOUT(alive->load(), 20000);
        }
        // The destructor returned only after the work saw the cancel and ended.
        QVERIFY(!alive->load());
    }

    void starting_again_replaces_the_running_job() {
        session::BackgroundJob<int> job([](session::JobControl& control) -> int {
            while (control.report(0)) std::this_thread::sleep_for(100us);
            throw Error(ErrorCode::Cancelled, "cancelled");
        });
        job.start([](session::JobControl&) { return 2; });
        const auto outcome = poll_until_done(job);
        QVERIFY(outcome.has_value());
        QCOMPARE(*outcome->value, 2);
    }

    void moving_keeps_the_running_job() {
        session::BackgroundJob<int> job([](session::JobControl&) {
            std::this_thread::sleep_for(5ms);
            return 5;
        });
        session::BackgroundJob<int> moved = std::move(job);
        QVERIFY(moved.started());
        const auto outcome = moved.wait();
        QVERIFY(outcome.has_value());
        QCOMPARE(*outcome->value, 5);
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "test_background_job.moc"
