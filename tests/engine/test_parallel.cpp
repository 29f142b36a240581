// parallel_chunks on the shared pool: every index exactly once in contiguous chunks, calls from
// inside a chunk and from several threads at once, exceptions carried to the caller, and the pool
// reused (no thread per call).
#include <lacuna/core/parallel.hpp>

#include <QtTest>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace lacuna;

class TestParallel : public QObject {
    Q_OBJECT
  private slots:
    void every_index_once_in_contiguous_chunks() {
        for (const int n : {0, 1, 2, 3, 7, 64, 1000, 100003}) {
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
            std::mutex m;
            std::set<int> workers_seen;
            parallel_chunks(n, [&](const int begin, const int end, const int w) {
                QVERIFY(begin <= end);
                for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
                const std::lock_guard lock(m);
                QVERIFY2(workers_seen.insert(w).second, "a worker index was given twice");
            });
            for (int i = 0; i < n; ++i) QCOMPARE(hits[static_cast<std::size_t>(i)].load(), 1);
            QVERIFY(static_cast<int>(workers_seen.size()) <= std::max<int>(n, 1));
        }
    }

    void nested_calls_finish() {
        std::atomic<long long> sum{0};
        parallel_chunks(16, [&](const int b0, const int b1, int) {
            for (int outer = b0; outer < b1; ++outer)
                parallel_chunks(1000, [&](const int i0, const int i1, int) {
                    long long s = 0;
                    for (int i = i0; i < i1; ++i) s += i;
                    sum += s;
                });
        });
        QCOMPARE(sum.load(), 16LL * (999LL * 1000 / 2));
    }

    void calls_from_several_threads_at_once() {
        constexpr int kThreads = 6, kCalls = 300;
        std::atomic<long long> total{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&] {
                for (int c = 0; c < kCalls; ++c)
                    parallel_chunks(97, [&](const int i0, const int i1, int) { total += i1 - i0; });
            });
        for (std::thread& t : threads) t.join();
        QCOMPARE(total.load(), static_cast<long long>(kThreads) * kCalls * 97);
    }

    void an_exception_reaches_the_caller_after_every_chunk() {
        std::atomic<int> finished{0};
        bool caught = false;
        try {
            parallel_chunks(64, [&](const int i0, int, int) {
                if (i0 == 0) throw std::runtime_error("chunk zero failed");
                ++finished;
            });
        } catch (const std::runtime_error& e) {
            caught = QString(e.what()) == "chunk zero failed";
        }
        QVERIFY(caught);
        const int chunks = static_cast<int>(std::min<unsigned>(worker_count(), 64));
        QCOMPARE(finished.load(), chunks - 1);
        // The pool still works afterwards.
        std::atomic<int> after{0};
        parallel_chunks(64, [&](const int i0, const int i1, int) { after += i1 - i0; });
        QCOMPARE(after.load(), 64);
    }

    void the_pool_is_reused() {
        if (worker_count() < 2) QSKIP("one hardware thread: chunks run on the caller");
        // A thread's first chunk in this test counts it (thread-local state is fresh in every new
        // thread, even where the system reuses a finished thread's id).
        static std::atomic<int> threads_seen{0};
        for (int c = 0; c < 200; ++c)
            parallel_chunks(static_cast<int>(worker_count()), [&](int, int, int) {
                thread_local bool counted = false;
                if (!counted) {
                    counted = true;
                    ++threads_seen;
                }
            });
        // A thread per call would count about 200 × (workers − 1) threads.
        QVERIFY2(threads_seen.load() <= static_cast<int>(worker_count()),
                 qPrintable(QString::number(threads_seen.load())));
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "test_parallel.moc"
