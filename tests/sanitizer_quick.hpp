#pragma once
// CI's sanitizer stage (.ci/run) sets LACUNA_SANITIZER_QUICK=1: the few quality cases that take
// minutes under AddressSanitizer (the automatic retargeting mix on whole photos, a benchmark run)
// are skipped there, because the README's test command runs them in the Release build of the same
// CI, and a shorter case of the same code (automatic_keeps_a_face_at_the_edge,
// automatic_crops_a_margin_crossed_by_a_line) still runs under the sanitizers.

#include <QtTest>

#include <cstdlib>
#include <string_view>

namespace lacuna::test {

constexpr bool built_with_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

inline bool sanitizer_quick_run() {
    const char* quick = std::getenv("LACUNA_SANITIZER_QUICK");
    return built_with_address_sanitizer() && quick != nullptr && std::string_view(quick) == "1";
}

}  // namespace lacuna::test

// QSKIP returns from the test function, so this is a macro.
#define LACUNA_SKIP_LONG_CASE_UNDER_SANITIZERS()                                           \
    do {                                                                                   \
        if (lacuna::test::sanitizer_quick_run())                                           \
            QSKIP("a long quality case: CI runs it in the Release build, not under ASan"); \
    } while (false)
