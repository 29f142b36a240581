// Splits an index range over the machine's hardware threads. Work is divided into contiguous
// chunks (one per thread) so results written per index need no synchronisation.
//
// The chunks run on one process-wide pool of threads started once: the carvers split every seam's
// row shifts this way, hundreds of times a frame, and starting a thread per chunk per call cost
// more than the work on a 16-core host.
#pragma once

#include <algorithm>
#include <thread>
#include <utility>

namespace lacuna {

inline unsigned worker_count() {
    return std::max(1u, std::thread::hardware_concurrency());
}

namespace detail {
/// Runs task(context, w) for every w in [0, workers): w = 0 on the calling thread, the rest on
/// the pool (the caller runs any the pool has not started yet). Returns when all have returned;
/// rethrows the first exception a task threw. Safe to call from several threads at once and from
/// inside a task (the caller helps with its own chunks, so nothing waits on a busy pool).
void run_chunks(int workers, void (*task)(void* context, int w), void* context);
}  // namespace detail

/// Calls body(begin, end, worker) for disjoint [begin, end) chunks covering [0, n).
template <class Body>
void parallel_chunks(const int n, Body&& body) {
    const int workers =
        static_cast<int>(std::min<unsigned>(worker_count(), static_cast<unsigned>(std::max(n, 1))));
    if (workers <= 1) {
        body(0, n, 0);
        return;
    }
    struct Context {
        Body& body;
        int n, workers;
    } context{body, n, workers};
    detail::run_chunks(
        workers,
        [](void* raw, const int w) {
            Context& c = *static_cast<Context*>(raw);
            const auto chunk = [&](const int k) {
                return static_cast<int>(static_cast<long long>(c.n) * k / c.workers);
            };
            c.body(chunk(w), chunk(w + 1), w);
        },
        &context);
}

}  // namespace lacuna
