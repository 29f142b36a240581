// Internal: the gold references' border rule (BORDER_REFLECT_101), written as a plain reflection
// loop rather than taken from kernels/border.h, so a reference never shares a mistake with the
// fast paths it checks.
#pragma once

namespace lacuna::ops::detail {

/// …c b | a b c d | c b…, reflected as often as needed; a single sample maps everything to 0.
inline int reference_reflect101(int i, const int n) {
    if (n == 1) return 0;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

}  // namespace lacuna::ops::detail
