// Splits an index range over the machine's hardware threads. Work is divided into contiguous
// chunks (one per thread) so results written per index need no synchronisation.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace lacuna {

inline unsigned worker_count() {
    return std::max(1u, std::thread::hardware_concurrency());
}

/// Calls body(begin, end, worker) for disjoint [begin, end) chunks covering [0, n).
template <class Body>
void parallel_chunks(const int n, Body&& body) {
    const int workers =
        static_cast<int>(std::min<unsigned>(worker_count(), static_cast<unsigned>(std::max(n, 1))));
    if (workers <= 1) {
        body(0, n, 0);
        return;
    }
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(workers - 1));
    const auto chunk = [&](const int w) {
        return static_cast<int>(static_cast<long long>(n) * w / workers);
    };
    for (int w = 1; w < workers; ++w) {
        threads.emplace_back([&, w] { body(chunk(w), chunk(w + 1), w); });
    }
    body(0, chunk(1), 0);
}

}  // namespace lacuna
