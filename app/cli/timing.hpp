// Wall-clock timing for the CLI's --json reports and benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace lacuna::cli {

using Clock = std::chrono::steady_clock;

inline double ms_since(const Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline double time_ms(const std::function<void()>& f) {
    const auto start = Clock::now();
    f();
    return ms_since(start);
}

/// Paces progress lines on stderr: the first is due at once, then at most one a second, and the
/// last whenever it comes.
class ProgressPace {
  public:
    [[nodiscard]] bool due(const bool last) {
        if (Clock::now() - last_ < std::chrono::seconds(1) && !last) return false;
        last_ = Clock::now();
        return true;
    }

  private:
    Clock::time_point last_ = Clock::now() - std::chrono::seconds(2);
};

/// Median of `repeats` timed runs (at least one).
inline double median_ms(const int repeats, const std::function<void()>& f) {
    std::vector<double> times;
    for (int r = 0; r < std::max(1, repeats); ++r) times.push_back(time_ms(f));
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    return times[times.size() / 2];
}

}  // namespace lacuna::cli
