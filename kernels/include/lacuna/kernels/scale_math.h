// Resampling arithmetic shared by the fast CPU scaler and the CUDA kernels (both compiled without
// FMA contraction), so their pixels are identical: source positions, tap weights, the B-spline
// prefilter's recursion and the final rounding.
#pragma once

#include <lacuna/core/pixel.hpp>
#include <lacuna/kernels/border.h>

namespace lacuna::scale_math {

enum Method : int { kNearest = 0, kBilinear = 1, kBicubic = 2, kBSpline = 3 };

/// The B-spline prefilter's pole √3 − 2 (float) and the number of terms of its causal initial
/// sum on long lines: |z|^k < 2^-24 from k = 13 on; 16 for margin.
inline constexpr float kPole = -0.26794919243112270f;
inline constexpr int kHorizon = 16;

/// Where output index i lands on an input of n samples scaled to m: (i + 0.5) · n / m − 0.5.
LACUNA_HD float source_position(const int i, const int n, const int m) {
    const float scale = static_cast<float>(n) / static_cast<float>(m);
    return (static_cast<float>(i) + 0.5f) * scale - 0.5f;
}

LACUNA_HD int clamp_index(const int i, const int n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/// Up to four taps: first index (before clamping or mirroring) and weights. Nearest and
/// bilinear use fewer (the rest weigh 0).
struct Taps {
    int first = 0;
    int count = 1;
    float w[4] = {1, 0, 0, 0};
};

LACUNA_HD float floor_f(const float v) {
    const int t = static_cast<int>(v);
    return static_cast<float>(v < static_cast<float>(t) ? t - 1 : t);
}

/// The taps of output index i on an axis of n input samples scaled to m.
LACUNA_HD Taps axis_taps(const int i, const int n, const int m, const int method) {
    Taps t;
    if (method == kNearest) {
        // floor(u + 0.5) in integers, so a tie (exactly half-way) always goes the same way: to
        // the later sample.
        t.first = static_cast<int>((static_cast<long long>(2 * i + 1) * n) / (2LL * m));
        return t;
    }
    const float u = source_position(i, n, m);
    const float base = floor_f(u);
    const float f = u - base;
    const int b = static_cast<int>(base);
    if (method == kBilinear) {
        t.first = b;
        t.count = 2;
        t.w[0] = 1.0f - f;
        t.w[1] = f;
        return t;
    }
    t.first = b - 1;
    t.count = 4;
    const float f2 = f * f;
    const float f3 = f2 * f;
    if (method == kBicubic) {  // Keys, a = -0.5
        t.w[0] = -0.5f * f3 + f2 - 0.5f * f;
        t.w[1] = 1.5f * f3 - 2.5f * f2 + 1.0f;
        t.w[2] = -1.5f * f3 + 2.0f * f2 + 0.5f * f;
        t.w[3] = 0.5f * f3 - 0.5f * f2;
    } else {  // cubic B-spline
        const float g = 1.0f - f;
        t.w[0] = g * g * g / 6.0f;
        t.w[1] = (3.0f * f3 - 6.0f * f2 + 4.0f) / 6.0f;
        t.w[2] = (-3.0f * f3 + 3.0f * f2 + 3.0f * f + 1.0f) / 6.0f;
        t.w[3] = f3 / 6.0f;
    }
    return t;
}

/// The index a tap reads: clamped for nearest, bilinear and bicubic, mirrored for the spline's
/// coefficients (the same boundary as its prefilter).
LACUNA_HD int tap_index(const int i, const int n, const int method) {
    return method == kBSpline ? border::reflect101(i, n) : clamp_index(i, n);
}

LACUNA_HD std::uint8_t to_level(const float v) {
    const float clamped = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
    return static_cast<std::uint8_t>(static_cast<int>(clamped + 0.5f));
}

/// One output pixel from interleaved RGBA float values (samples, or spline coefficients) of a
/// sw × sh image: rows of taps weighted by ty, each row's taps by tx, in this order.
LACUNA_HD Rgba8 resample(const float* values, const int sw, const int sh, const Taps& tx,
                         const Taps& ty, const int method) {
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < ty.count; ++j) {
        const int sy = tap_index(ty.first + j, sh, method);
        const float* row = values + static_cast<long long>(sy) * sw * 4;
        float line[4] = {0, 0, 0, 0};
        for (int i = 0; i < tx.count; ++i) {
            const float* v = row + tap_index(tx.first + i, sw, method) * 4;
            for (int c = 0; c < 4; ++c) line[c] = line[c] + tx.w[i] * v[c];
        }
        for (int c = 0; c < 4; ++c) acc[c] = acc[c] + ty.w[j] * line[c];
    }
    Rgba8 out;
    out.r = to_level(acc[0]);
    out.g = to_level(acc[1]);
    out.b = to_level(acc[2]);
    out.a = to_level(acc[3]);
    return out;
}

/// A line of values in place: element k at p[k · stride].
struct Strided {
    float* p;
    int stride;
    LACUNA_HD float& operator()(const int k) const { return p[k * stride]; }
};

/// The B-spline prefilter (gain 6, causal then anticausal recursion, mirror boundaries) runs in
/// chunks of kChunk samples so thousands of threads can share a line: a chunk starts its
/// recursion kHorizon samples early from 0, and what that start misses has decayed by
/// |z|^16 < 1e-9 by the chunk's first sample. Chunks that reach the line's ends start from the
/// exact initial values instead. The CPU and the CUDA kernels both run these functions, chunk by
/// chunk, so their coefficients are identical.
inline constexpr int kChunk = 64;

/// The causal pass's exact initial value c+(0) for mirror boundaries, gain 6 included: the whole
/// mirrored period for short lines, else the terms until z^k is below float's resolution.
LACUNA_HD float causal_start(const Strided in, const int n) {
    const float z = kPole;
    float sum = 6.0f * in(0);
    float zk = z;
    if (n <= kHorizon) {
        for (int k = 1; k <= 2 * n - 3; ++k) {
            sum = sum + zk * (6.0f * in(border::reflect101(k, n)));
            zk = zk * z;
        }
        return sum / (1.0f - zk);  // zk is z^(2n-2) here: the period's geometric sum
    }
    for (int k = 1; k < kHorizon; ++k) {
        sum = sum + zk * (6.0f * in(k));
        zk = zk * z;
    }
    return sum;
}

/// c+(k) = 6 in(k) + z c+(k−1) for k in [a, b) of a line of n > 1 samples, into `out`.
LACUNA_HD void causal_chunk(const Strided in, const Strided out, const int n, const int a,
                            const int b) {
    const float z = kPole;
    int k = a - kHorizon;
    float c = 0.0f;
    if (k <= 0) {
        c = causal_start(in, n);
        if (a == 0) out(0) = c;
        k = 1;
    }
    for (; k < b; ++k) {
        c = 6.0f * in(k) + z * c;
        if (k >= a) out(k) = c;
    }
}

/// c(k) = z (c(k+1) − c+(k)) for k in [a, b), from the causal values, into `out`.
LACUNA_HD void anticausal_chunk(const Strided causal, const Strided out, const int n, const int a,
                                const int b) {
    const float z = kPole;
    int k = b + kHorizon - 1;
    float c = 0.0f;
    if (k >= n - 1) {
        c = (z / (z * z - 1.0f)) * (causal(n - 1) + z * causal(n - 2));
        if (b == n) out(n - 1) = c;
        k = n - 2;
    }
    for (; k >= a; --k) {
        c = z * (c - causal(k));
        if (k < b) out(k) = c;
    }
}

LACUNA_HD int chunks_of(const int n) {
    return (n + kChunk - 1) / kChunk;
}

}  // namespace lacuna::scale_math
