// The counters behind LACUNA_CUDA_FAULT / testing::arm_cuda_faults.
#include <lacuna/core/error.hpp>
#include <lacuna/core/fault_injection.hpp>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace lacuna {
namespace {

struct Armed {
    long long alloc = 0, launch = 0;  ///< the 1-based call to fail; 0 = none
};

std::atomic<long long> g_alloc_target{0}, g_launch_target{0};
std::atomic<long long> g_allocs{0}, g_launches{0};
std::atomic<int> g_injected{0};
std::once_flag g_environment_read;

/// Parses a spec; throws InvalidArgument naming what is wrong.
Armed parse(const std::string_view whole) {
    Armed armed;
    const auto bad = [&](const std::string& why) {
        std::string text = "bad CUDA fault spec '";
        text.append(whole).append("': ").append(why).append(" (expected alloc:N and/or launch:N)");
        throw Error(ErrorCode::InvalidArgument, text);
    };
    if (whole.empty()) return armed;
    std::string_view spec = whole;
    for (bool more = true; more;) {
        const std::size_t comma = spec.find(',');
        const std::string_view item = spec.substr(0, comma);
        more = comma != std::string_view::npos;
        if (more) spec = spec.substr(comma + 1);
        const std::size_t colon = item.find(':');
        if (colon == std::string_view::npos) {
            std::string why = "no ':' in '";
            why.append(item).append("'");
            bad(why);
        }
        const std::string_view site = item.substr(0, colon), number = item.substr(colon + 1);
        long long n = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
        if (ec != std::errc() || end != number.data() + number.size() || n < 1) {
            std::string why = "'";
            why.append(number).append("' is not a count of 1 or more");
            bad(why);
        }
        if (site == "alloc")
            armed.alloc = n;
        else if (site == "launch")
            armed.launch = n;
        else {
            std::string why = "unknown site '";
            why.append(site).append("'");
            bad(why);
        }
    }
    return armed;
}

void arm(const Armed& armed) {
    g_allocs = 0;
    g_launches = 0;
    g_injected = 0;
    g_alloc_target = armed.alloc;
    g_launch_target = armed.launch;
}

void read_environment() {
    std::call_once(g_environment_read, [] {
        const char* spec = std::getenv("LACUNA_CUDA_FAULT");
        if (spec == nullptr || *spec == '\0') return;
        try {
            arm(parse(spec));
        } catch (const Error& e) {
            // A test switch, not a user option: say so and run without faults.
            std::fprintf(stderr, "lacuna: LACUNA_CUDA_FAULT ignored: %s\n", e.what());
        }
    });
}

}  // namespace

namespace testing {
void arm_cuda_faults(const std::string_view spec) {
    const Armed armed = parse(spec);
    read_environment();  // an environment read later must not override this arm
    arm(armed);
}
int cuda_faults_injected() noexcept {
    return g_injected.load();
}
bool cuda_faults_armed() noexcept {
    read_environment();
    return g_alloc_target.load() > 0 || g_launch_target.load() > 0;
}
}  // namespace testing

namespace detail {
bool cuda_fault_due(const FaultSite site) noexcept {
    read_environment();
    std::atomic<long long>& target =
        site == FaultSite::Allocation ? g_alloc_target : g_launch_target;
    std::atomic<long long>& count = site == FaultSite::Allocation ? g_allocs : g_launches;
    const long long n = count.fetch_add(1, std::memory_order_relaxed) + 1;
    if (n != target.load(std::memory_order_relaxed)) return false;
    ++g_injected;
    return true;
}
}  // namespace detail

}  // namespace lacuna
