// Multi-scale PatchMatch completion (Wexler, Shechtman & Irani 2007; Barnes et al. 2009; Newson
// et al., IPOL 2017): every per-pixel step, written once for the CPU filler and the CUDA kernels.
//
// Both backends are thin loops over these functions on the same parallel schedule (each pass
// reads one buffer and writes another, so the order in which pixels run does not matter), and
// everything is integer: the hash random numbers, the patch distance, the vote weights and the
// gathered vote with its rounding. So the CPU and the GPU produce the same field and the same
// bytes, with no tolerance.
//
// Shared with CUDA (C++17, no std:: containers).
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cstdint>

namespace lacuna::patchmatch_terms {

/// The coarsest level is the last whose short side is still at least this (so 32..63 px)...
inline constexpr int kMinCoarseSide = 32;
/// ... and whose hole box, on its longer side, still spans at least 1.5 patches (kHoleSpanNum /
/// kHoleSpanDen). Deeper, a small hole shrinks to a few pixels inside one patch: its first match
/// is decided by the blurred surroundings alone, and foliage comes back as a smooth blob of some
/// other colour. A large hole still reaches the 32-px floor, where its layout is decided.
inline constexpr int kHoleSpanNum = 3;
inline constexpr int kHoleSpanDen = 2;
/// Texture: the mean gradient magnitude over a (2 × 2 + 1)² window of known pixels.
inline constexpr int kTextureRadius = 2;
/// The texture channel counts as eight colour channels in the distance. Under the plain L2
/// distance a smooth patch of the mean colour is closer to a foliage patch than another piece of
/// the same foliage is (its error is the texture's variance, not twice that), so without a heavy
/// texture term the fill settles on smooth sources and comes out flat. Measured on the bench's
/// texture cases: 2 leaves foliage and fabric at 0.4 of their texture; 8 keeps every case within
/// 0.76..1.29 over three seeds; 16 starts to put foliage into sky next to a tree.
inline constexpr std::uint32_t kTextureWeight = 8;
// A gradient that cannot be measured (the pixel or a 4-neighbour is in the hole): D::kNoGradient.
/// Random tries for an initial source before the level's fallback (its first valid centre).
inline constexpr int kInitTries = 8;
/// Global random candidates per pixel of the onion peel, before the windows around the best. The
/// coarsest level has a few thousand to a few tens of thousands of centres: 48 tries found the
/// stadium's dark background for a hole in a striped shirt; 512 find the shirt.
inline constexpr int kOnionTries = 512;
/// Random search below the coarsest level: windows from ± this (level pixels) down, around a
/// match the coarser levels already searched globally.
inline constexpr int kRefineSpan = 16;
/// The gradient channels' weight (BasicPmLevel::grad_weight, 4 λ: a luma step counts four times a
/// colour channel's) where a fill takes them, and the finest level that uses them: the coarse
/// levels lay the texture's phase and orientation out, level 0 matches colour and texture as
/// without them (and costs no more). Measured with the gate in patchmatch_driver.hpp
/// (docs/notes/patchmatch.md, 2026-11-27).
inline constexpr std::uint32_t kGradientWeight = 16;
inline constexpr int kGradientMinLevel = 1;
/// Jump-flooding steps of one EM iteration; the last pass also does the random search.
inline constexpr int kJumpSteps[3] = {4, 2, 1};

/// The sample depth a fill decides on. 8 bits: photos and the 8-bit carving proxy. 16 bits: a
/// measurement's decision image (ops::deep_carving_proxy), so that patches are told apart on
/// every bit of the data. Everything else (the schedule, the random numbers, the rules) is the
/// same, so the two fill alike wherever 8 bits are enough.
struct PmDepth8 {
    using Color = Rgba8;
    using Channel = std::uint8_t;
    using Tex = std::uint8_t;      ///< texture channel (a gradient magnitude of the luma)
    using RowSum = std::uint16_t;  ///< packed separable texture sums (see pm_texture_row)
    using Dist = std::uint32_t;    ///< patch distance: fits (static_assert at kPriorCap)
    using Grad = std::int16_t;     ///< a central difference of the luma: ±510
    static constexpr Tex kNoGradient = 255;
    /// Distances of the same content at this depth are kDistScale × those at 8 bits.
    static constexpr unsigned long long kDistScale = 1;
};
struct PmDepth16 {
    using Color = Rgba16;
    using Channel = std::uint16_t;
    using Tex = std::uint16_t;
    using RowSum = std::uint32_t;  ///< 5 · 65534 · 32 + 5, summed over 5 rows, fits
    using Dist = std::uint64_t;    ///< 31² pixels · 11 · 65535² needs more than 32 bits
    using Grad = std::int32_t;     ///< a central difference of the luma: ±131070
    static constexpr Tex kNoGradient = 65535;
    static constexpr unsigned long long kDistScale = 257ULL * 257ULL;
};

/// One pyramid level: dense width × height arrays (host vectors or device memory). Level 0 is the
/// image itself; level L + 1 halves level L (rounding up).
template <class D>
struct BasicPmLevel {
    using Depth = D;
    int width = 0;
    int height = 0;
    typename D::Color* color = nullptr;  ///< known pixels as given; hole pixels hold the estimate
    typename D::Tex* texture = nullptr;  ///< texture channel, voted like the colour in the hole
    std::uint8_t* hole = nullptr;        ///< 1 = to fill (coarse: any child is)
    std::uint8_t* forbid = nullptr;      ///< 1 = no valid source patch may contain this pixel
    std::uint8_t* valid = nullptr;  ///< 1 = a source patch centred here is complete and allowed
    std::int32_t* nnf[2] = {nullptr, nullptr};       ///< source centre index, -1 = not a target
    typename D::Dist* dist[2] = {nullptr, nullptr};  ///< the patch distance of nnf
    /// Target box (inclusive): the hole's box grown by the patch radius, clipped. The field is
    /// defined only inside it.
    int box_x0 = 0, box_y0 = 0, box_x1 = -1, box_y1 = -1;
    std::int32_t fallback = -1;  ///< the lowest valid centre index, for initial fields
    /// Gradient channels (Image Melding, Darabi et al. 2012): the luma's central differences of
    /// the current image, hole estimate included (pm_gradient_xy_pixel), recomputed over the
    /// whole level when it starts and over the hole's box grown by 1 after every vote. Used by
    /// the patch distance only where grad_weight is not 0 (then both are set).
    typename D::Grad* grad_x = nullptr;
    typename D::Grad* grad_y = nullptr;
    /// The gradient channels' weight in the distance, in sixteenths of a colour channel's weight
    /// per squared central difference: 4 λ, λ the weight of the half difference (a level step),
    /// so 4 counts a step in the luma as much as a step in one colour channel. 0: off.
    std::uint32_t grad_weight = 0;
};
using PmLevel = BasicPmLevel<PmDepth8>;
using PmLevel16 = BasicPmLevel<PmDepth16>;

/// A 16-bit colour shown at 8 bits: each channel / 257, rounded (exact for a ×257 image).
LACUNA_HD Rgba8 pm_to_rgba8(const Rgba16 c) {
    const auto down = [](const unsigned v) { return static_cast<std::uint8_t>((v + 128U) / 257U); };
    return Rgba8{down(c.r), down(c.g), down(c.b), down(c.a)};
}

/// A colour of depth D from channel sums and their count, each rounded half up.
template <class D>
LACUNA_HD typename D::Color pm_mean_color(const unsigned long long r, const unsigned long long g,
                                          const unsigned long long b, const unsigned long long a,
                                          const unsigned long long n) {
    using C = typename D::Channel;
    const unsigned long long half = n / 2;
    return typename D::Color{static_cast<C>((r + half) / n), static_cast<C>((g + half) / n),
                             static_cast<C>((b + half) / n), static_cast<C>((a + half) / n)};
}

LACUNA_HD int pm_min(const int a, const int b) {
    return a < b ? a : b;
}
LACUNA_HD int pm_max(const int a, const int b) {
    return a > b ? a : b;
}

template <class D>
LACUNA_HD bool in_box(const BasicPmLevel<D>& l, const int x, const int y) {
    return x >= l.box_x0 && x <= l.box_x1 && y >= l.box_y0 && y <= l.box_y1;
}

/// Centres whose patch lies inside the level.
template <class D>
LACUNA_HD bool interior(const BasicPmLevel<D>& l, const int x, const int y, const int r) {
    return x >= r && y >= r && x + r < l.width && y + r < l.height;
}

// ---- Random numbers: a hash of (seed, level, iteration, x, y, k), no state ----

LACUNA_HD std::uint32_t pm_mix(std::uint32_t h) {
    h ^= h >> 16;
    h *= 0x7feb352dU;
    h ^= h >> 15;
    h *= 0x846ca68bU;
    h ^= h >> 16;
    return h;
}

LACUNA_HD std::uint32_t pm_hash(const std::uint32_t seed, const int level, const int iteration,
                                const int x, const int y, const int k) {
    std::uint32_t h = pm_mix(seed ^ 0x9e3779b9U);
    h = pm_mix(h ^ static_cast<std::uint32_t>(level) * 0x85ebca6bU);
    h = pm_mix(h ^ static_cast<std::uint32_t>(iteration) * 0xc2b2ae35U);
    h = pm_mix(h ^ static_cast<std::uint32_t>(x) * 0x27d4eb2fU);
    h = pm_mix(h ^ static_cast<std::uint32_t>(y) * 0x165667b1U);
    return pm_mix(h ^ static_cast<std::uint32_t>(k) * 0x9e3779b1U);
}

/// Uniform in [lo, hi] (modulo bias is irrelevant here; determinism is what matters).
LACUNA_HD int pm_uniform(const std::uint32_t h, const int lo, const int hi) {
    return lo + static_cast<int>(h % static_cast<std::uint32_t>(hi - lo + 1));
}

// ---- Setup: texture, masks, pyramid ----

template <class C>
LACUNA_HD int pm_luma(const C p) {  // 32 bits hold 16-bit channels
    return static_cast<int>((54u * p.r + 183u * p.g + 19u * p.b + 128u) >> 8);
}

LACUNA_HD int pm_abs(const int v) {
    return v < 0 ? -v : v;
}

/// Central-difference gradient magnitude (L1, halved) of the luma, or kNoGradient where the pixel
/// or a 4-neighbour is unknown: the hole must not leak a fake edge into the texture.
template <class D>
LACUNA_HD typename D::Tex pm_gradient(const BasicPmLevel<D>& l, const int x, const int y) {
    const int w = l.width, h = l.height;
    const int xl = pm_max(x - 1, 0), xr = pm_min(x + 1, w - 1);
    const int yu = pm_max(y - 1, 0), yd = pm_min(y + 1, h - 1);
    const long long row = static_cast<long long>(y) * w;
    if (l.hole[row + x] || l.hole[row + xl] || l.hole[row + xr] ||
        l.hole[static_cast<long long>(yu) * w + x] || l.hole[static_cast<long long>(yd) * w + x])
        return D::kNoGradient;
    const int gx = pm_abs(pm_luma(l.color[row + xr]) - pm_luma(l.color[row + xl]));
    const int gy = pm_abs(pm_luma(l.color[static_cast<long long>(yd) * w + x]) -
                          pm_luma(l.color[static_cast<long long>(yu) * w + x]));
    return static_cast<typename D::Tex>(pm_min((gx + gy) / 2, D::kNoGradient - 1));
}

/// The gradient channels at (x, y): the luma's central differences over the current colour (the
/// hole's estimate included, so a coarse level's edges reach into the hole as it fills), the
/// border replicated. Integer, so every backend computes the same values.
template <class D>
LACUNA_HD void pm_gradient_xy_pixel(const BasicPmLevel<D>& l, const int x, const int y) {
    const int w = l.width, h = l.height;
    const int xl = pm_max(x - 1, 0), xr = pm_min(x + 1, w - 1);
    const int yu = pm_max(y - 1, 0), yd = pm_min(y + 1, h - 1);
    const long long row = static_cast<long long>(y) * w;
    l.grad_x[row + x] =
        static_cast<typename D::Grad>(pm_luma(l.color[row + xr]) - pm_luma(l.color[row + xl]));
    l.grad_y[row + x] =
        static_cast<typename D::Grad>(pm_luma(l.color[static_cast<long long>(yd) * w + x]) -
                                      pm_luma(l.color[static_cast<long long>(yu) * w + x]));
}

/// Texture at (x, y): the rounded mean of the measurable gradients in the window, 0 if none.
template <class D>
LACUNA_HD typename D::Tex pm_texture(const typename D::Tex* gradient, const int w, const int h,
                                     const int x, const int y) {
    unsigned sum = 0, count = 0;
    for (int yy = pm_max(y - kTextureRadius, 0); yy <= pm_min(y + kTextureRadius, h - 1); ++yy)
        for (int xx = pm_max(x - kTextureRadius, 0); xx <= pm_min(x + kTextureRadius, w - 1);
             ++xx) {
            const typename D::Tex g = gradient[static_cast<long long>(yy) * w + xx];
            if (g == D::kNoGradient) continue;
            sum += g;
            ++count;
        }
    return count == 0 ? 0 : static_cast<typename D::Tex>((sum + count / 2) / count);
}

/// pm_texture in two separable passes, with the same result. The row half: the sum and count of
/// the measurable gradients in gradient[x - kTextureRadius .. x + kTextureRadius] on row y
/// (clipped), packed as sum · 32 + count (at most 5 · 254 · 32 + 5 at 8 bits, and 5 rows of
/// counts stay below 32).
template <class D>
LACUNA_HD typename D::RowSum pm_texture_row(const typename D::Tex* gradient, const int w,
                                            const int x, const int y) {
    const typename D::Tex* row = gradient + static_cast<long long>(y) * w;
    unsigned sum = 0, count = 0;
    for (int xx = pm_max(x - kTextureRadius, 0); xx <= pm_min(x + kTextureRadius, w - 1); ++xx) {
        const typename D::Tex g = row[xx];
        if (g == D::kNoGradient) continue;
        sum += g;
        ++count;
    }
    return static_cast<typename D::RowSum>(sum * 32 + count);
}

/// The column half: pm_texture(gradient, w, h, x, y) from the packed row sums.
template <class D>
LACUNA_HD typename D::Tex pm_texture_col(const typename D::RowSum* rows, const int w, const int h,
                                         const int x, const int y) {
    unsigned packed = 0;
    for (int yy = pm_max(y - kTextureRadius, 0); yy <= pm_min(y + kTextureRadius, h - 1); ++yy)
        packed += rows[static_cast<long long>(yy) * w + x];
    const unsigned sum = packed >> 5, count = packed & 31U;
    return count == 0 ? 0 : static_cast<typename D::Tex>((sum + count / 2) / count);
}

/// 1 if any of src[x - r .. x + r] on row y is non-zero (clipped): the row half of a separable
/// box "any" (dilation), used for the sampleable area and for valid centres.
LACUNA_HD std::uint8_t pm_row_any(const std::uint8_t* src, const int w, const int x, const int y,
                                  const int r) {
    const std::uint8_t* row = src + static_cast<long long>(y) * w;
    for (int xx = pm_max(x - r, 0); xx <= pm_min(x + r, w - 1); ++xx)
        if (row[xx]) return 1;
    return 0;
}

LACUNA_HD std::uint8_t pm_col_any(const std::uint8_t* src, const int w, const int h, const int x,
                                  const int y, const int r) {
    for (int yy = pm_max(y - r, 0); yy <= pm_min(y + r, h - 1); ++yy)
        if (src[static_cast<long long>(yy) * w + x]) return 1;
    return 0;
}

/// Level 0's forbidden pixels from its valid centres (`row_any` = pm_row_any of valid): a pixel
/// no valid patch covers can never be copied, whether it is hole, never-sample or a sliver
/// between them. Coarser levels inherit this, so never-sample areas need no mask of their own.
template <class D>
LACUNA_HD void pm_forbid0_pixel(const BasicPmLevel<D>& l, const std::uint8_t* row_any, const int r,
                                const int x, const int y) {
    l.forbid[static_cast<long long>(y) * l.width + x] =
        pm_col_any(row_any, l.width, l.height, x, y, r) ? 0 : 1;
}

/// A coarse level's valid centres (`row_any` = pm_row_any of forbid): inside, nothing forbidden.
template <class D>
LACUNA_HD void pm_valid_pixel(const BasicPmLevel<D>& l, const std::uint8_t* row_any, const int r,
                              const int x, const int y) {
    l.valid[static_cast<long long>(y) * l.width + x] =
        interior(l, x, y, r) && !pm_col_any(row_any, l.width, l.height, x, y, r) ? 1 : 0;
}

/// Coarse pixel (x, y) from its up to 2 × 2 children: the rounded mean colour and texture; hole
/// and forbidden if any child is.
template <class D>
LACUNA_HD void pm_downsample_pixel(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                   const int x, const int y) {
    unsigned r = 0, g = 0, b = 0, a = 0, t = 0, n = 0;
    std::uint8_t hole = 0, forbid = 0;
    for (int fy = 2 * y; fy <= pm_min(2 * y + 1, fine.height - 1); ++fy)
        for (int fx = 2 * x; fx <= pm_min(2 * x + 1, fine.width - 1); ++fx) {
            const long long i = static_cast<long long>(fy) * fine.width + fx;
            const typename D::Color c = fine.color[i];
            r += c.r;
            g += c.g;
            b += c.b;
            a += c.a;
            t += fine.texture[i];
            hole |= fine.hole[i];
            forbid |= fine.forbid[i];
            ++n;
        }
    const long long o = static_cast<long long>(y) * coarse.width + x;
    coarse.color[o] = pm_mean_color<D>(r, g, b, a, n);
    coarse.texture[o] = static_cast<typename D::Tex>((t + n / 2) / n);
    coarse.hole[o] = hole;
    coarse.forbid[o] = forbid;
}

/// A target patch (one the field covers) is centred in the box with a hole pixel in its patch.
template <class D>
LACUNA_HD bool pm_is_target(const BasicPmLevel<D>& l, const int x, const int y, const int r) {
    if (!in_box(l, x, y)) return false;
    for (int yy = pm_max(y - r, 0); yy <= pm_min(y + r, l.height - 1); ++yy) {
        const std::uint8_t* row = l.hole + static_cast<long long>(yy) * l.width;
        for (int xx = pm_max(x - r, 0); xx <= pm_min(x + r, l.width - 1); ++xx)
            if (row[xx]) return true;
    }
    return false;
}

// ---- The coarsest hole's texture: diffusion from its border ----

/// One Jacobi step of the diffusion that sets the coarsest hole's texture channel: a hole pixel
/// becomes the rounded mean of its 4-neighbours known in the previous step (known pixels never
/// change). The fill grows in from the border of the hole and then smooths. The colour is
/// diffused alongside (the drivers keep only the texture; the onion peel fills the colour).
template <class D>
LACUNA_HD void pm_diffuse_pixel(const BasicPmLevel<D>& l, const typename D::Color* color_in,
                                const typename D::Tex* tex_in, const std::uint8_t* known_in,
                                typename D::Color* color_out, typename D::Tex* tex_out,
                                std::uint8_t* known_out, const int x, const int y) {
    const long long p = static_cast<long long>(y) * l.width + x;
    if (!l.hole[p]) return;
    unsigned r = 0, g = 0, b = 0, a = 0, t = 0, n = 0;
    const int dx[4] = {-1, 1, 0, 0};
    const int dy[4] = {0, 0, -1, 1};
    for (int k = 0; k < 4; ++k) {
        const int nx = x + dx[k], ny = y + dy[k];
        if (nx < 0 || ny < 0 || nx >= l.width || ny >= l.height) continue;
        const long long q = static_cast<long long>(ny) * l.width + nx;
        if (!known_in[q]) continue;
        r += color_in[q].r;
        g += color_in[q].g;
        b += color_in[q].b;
        a += color_in[q].a;
        t += tex_in[q];
        ++n;
    }
    if (n == 0) {
        color_out[p] = color_in[p];
        tex_out[p] = tex_in[p];
        known_out[p] = known_in[p];
        return;
    }
    color_out[p] = pm_mean_color<D>(r, g, b, a, n);
    tex_out[p] = static_cast<typename D::Tex>((t + n / 2) / n);
    known_out[p] = 1;
}

/// Diffusion steps for a coarsest hole box of bw × bh: enough to reach and smooth every pixel of
/// any reasonable hole shape.
LACUNA_HD int pm_diffusion_steps(const int bw, const int bh) {
    return pm_max(16, 2 * (bw + bh));
}

// ---- The patch distance ----

/// Pixel i's colour. A 16-bit colour is read on the device as one 8-byte load instead of a
/// 2-byte load per channel: the fillers' level arrays start on 256-byte boundaries (one arena
/// carved by ops/inpaint/arena_carver.hpp) and Rgba16 is 8 bytes, so every pixel is aligned.
template <class D>
LACUNA_HD typename D::Color pm_color(const BasicPmLevel<D>& l, const long long i) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(typename D::Color) == 8) {
        const unsigned long long v = *reinterpret_cast<const unsigned long long*>(l.color + i);
        return {static_cast<std::uint16_t>(v), static_cast<std::uint16_t>(v >> 16),
                static_cast<std::uint16_t>(v >> 32), static_cast<std::uint16_t>(v >> 48)};
    }
#endif
    return l.color[i];
}

/// Squared colour (r, g, b) difference plus the weighted squared texture difference of pixels t
/// and s. At 16 bits the squares need 64 bits (3 · 65535² does not fit 32); at 8 bits the sum
/// is the same number it always was.
template <class D>
LACUNA_HD typename D::Dist pm_pixel_distance(const BasicPmLevel<D>& l, const long long t,
                                             const long long s) {
    using Dist = typename D::Dist;
    const typename D::Color a = pm_color(l, t);
    const typename D::Color b = pm_color(l, s);
    if constexpr (sizeof(Dist) == 4) {
        // 32-bit arithmetic where it suffices: this is the innermost loop of the fill.
        const int dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
        const int dt = l.texture[t] - l.texture[s];
        return static_cast<Dist>(dr * dr + dg * dg + db * db) +
               kTextureWeight * static_cast<Dist>(dt * dt);
    } else {
        // A 16-bit difference's square fits 32 bits unsigned (65535² < 2^32): each term is one
        // 32 × 32 → 64-bit multiply (-add) (mad.wide.u32 on the GPU) instead of a 64 × 64 multiply
        // of sign-extended differences, the same sum.
        const auto mag = [](const int d) { return static_cast<std::uint32_t>(d < 0 ? -d : d); };
        const std::uint32_t ur = mag(int(a.r) - int(b.r)), ug = mag(int(a.g) - int(b.g)),
                            ub = mag(int(a.b) - int(b.b));
        const std::uint32_t ut = mag(int(l.texture[t]) - int(l.texture[s]));
        return static_cast<Dist>(ur) * ur + static_cast<Dist>(ug) * ug +
               static_cast<Dist>(ub) * ub + static_cast<Dist>(ut * ut) * kTextureWeight;
    }
}

/// How much more a known pixel of a target patch counts than a hole pixel. A patch that overlaps
/// the hole's border must continue what is really there: at 1, a patch of a copied region could
/// outvote the few known pixels it covers, and a contour copied from elsewhere ran into the border
/// at another height (a step the full-size image showed; docs/notes/patchmatch.md, "Known pixels
/// count double"). 2 keeps the 8-bit distance of a 31-pixel patch within 32 bits (pm_prior's cap).
inline constexpr std::uint32_t kKnownWeight = 2;

/// pm_pixel_distance of target pixel t, kKnownWeight times over where t is known.
template <class D>
LACUNA_HD typename D::Dist pm_target_pixel_distance(const BasicPmLevel<D>& l, const long long t,
                                                    const long long s) {
    const typename D::Dist d = pm_pixel_distance(l, t, s);
    return l.hole[t] ? d : d * kKnownWeight;
}

/// The gradient channels' term for pixels t and s: grad_weight / 16 × the squared differences of
/// both central differences (rounded down per pixel, so the sum stays exact in any order).
template <class D>
LACUNA_HD typename D::Dist pm_gradient_distance(const BasicPmLevel<D>& l, const long long t,
                                                const long long s) {
    using Dist = typename D::Dist;
    const long long gx = static_cast<long long>(l.grad_x[t]) - l.grad_x[s];
    const long long gy = static_cast<long long>(l.grad_y[t]) - l.grad_y[s];
    return static_cast<Dist>((static_cast<unsigned long long>(gx * gx + gy * gy) * l.grad_weight) >>
                             4);
}

/// The source prior's weight: squared levels per patch pixel for a source one target-box size
/// away from the box. Measured on `lacuna bench inpaint --set objects` (26 pasted objects, seeds
/// 1-3, with the blend): 0 gives 29.13 dB low-pass PSNR on average, 2 gives 29.34, 4 gives
/// 29.38, 8 and 32 fall back (28.89 and 28.87 on seed 1, against 28.98 for 4).
inline constexpr long long kPriorWeight = 4;
/// pm_prior's most. Reached only by a source hundreds of box sizes away; low enough that an
/// 8-bit patch distance of the largest patch fits its 32 bits with every term at its worst: per
/// pixel the colour and texture (11 · 255², known pixels kKnownWeight times) and the gradients
/// (2 · 1020² at kGradientWeight / 16).
inline constexpr unsigned long long kPriorCap = 1ULL << 29;
// 31: ops::kMaxPatch, the largest patch side.
static_assert(
    31ULL * 31ULL * (kKnownWeight * 11ULL * 255 * 255 + 2ULL * 1020 * 1020 * kGradientWeight / 16) +
            kPriorCap <
        (1ULL << 32),
    "an 8-bit patch distance must fit PmDepth8::Dist");

/// The source prior: sources far from the hole cost extra, so the fill continues what
/// surrounds the hole instead of fetching a look-alike object from across the image. The
/// distance from the source centre to the target box, in units of the box's longer side,
/// squared, times kPriorWeight squared levels per patch pixel; 0 for sources next to the hole.
/// Integer and the same at every level (the box scales with the level), capped at 2^29 · the
/// depth's scale so no sum overflows (kPriorCap).
template <class D>
LACUNA_HD typename D::Dist pm_prior(const BasicPmLevel<D>& l, const int sx, const int sy,
                                    const int r) {
    const long long dx = pm_max(pm_max(l.box_x0 - sx, sx - l.box_x1), 0);
    const long long dy = pm_max(pm_max(l.box_y0 - sy, sy - l.box_y1), 0);
    const long long ext = pm_max(l.box_x1 - l.box_x0 + 1, l.box_y1 - l.box_y0 + 1);
    const long long area = (2 * r + 1) * (2 * r + 1);
    const unsigned long long p =
        static_cast<unsigned long long>(area * kPriorWeight * (dx * dx + dy * dy) / (ext * ext));
    const unsigned long long cap = kPriorCap;
    return static_cast<typename D::Dist>((p < cap ? p : cap) * D::kDistScale);
}

/// Sum of squared differences of colour (r, g, b) and texture (weighted; known target pixels
/// kKnownWeight times) between the target patch at (tx, ty), clipped to the level, and the source
/// patch at (sx, sy), which is interior, plus the source prior and the gradient channels. Stops
/// as soon as the sum reaches `bound` (returning a value >= bound): a candidate is accepted only
/// when strictly better, so stopping early never changes a decision.
template <class D>
LACUNA_HD typename D::Dist pm_distance(const BasicPmLevel<D>& l, const int tx, const int ty,
                                       const int sx, const int sy, const int r,
                                       const typename D::Dist bound) {
    const int x0 = pm_max(-r, -tx), x1 = pm_min(r, l.width - 1 - tx);
    const int y0 = pm_max(-r, -ty), y1 = pm_min(r, l.height - 1 - ty);
    typename D::Dist sum = pm_prior(l, sx, sy, r);
    for (int dy = y0; dy <= y1; ++dy) {
        const long long trow = static_cast<long long>(ty + dy) * l.width + tx;
        const long long srow = static_cast<long long>(sy + dy) * l.width + sx;
        for (int dx = x0; dx <= x1; ++dx) {
            sum += pm_target_pixel_distance(l, trow + dx, srow + dx);
        }
        if (l.grad_weight != 0)
            for (int dx = x0; dx <= x1; ++dx) sum += pm_gradient_distance(l, trow + dx, srow + dx);
        if (sum >= bound) return sum;
    }
    return sum;
}

/// Whether centre (x, y) may be a source.
template <class D>
LACUNA_HD bool pm_candidate_ok(const BasicPmLevel<D>& l, const int x, const int y, const int r) {
    return interior(l, x, y, r) && l.valid[static_cast<long long>(y) * l.width + x] != 0;
}

/// A deterministic initial source for target (x, y): a few hashed random centres, then the
/// level's fallback (always valid).
template <class D>
LACUNA_HD std::int32_t pm_random_source(const BasicPmLevel<D>& l, const int r,
                                        const std::uint32_t seed, const int level, const int x,
                                        const int y) {
    for (int k = 0; k < kInitTries; ++k) {
        const int sx = pm_uniform(pm_hash(seed, level, -1, x, y, 2 * k), r, l.width - 1 - r);
        const int sy = pm_uniform(pm_hash(seed, level, -1, x, y, 2 * k + 1), r, l.height - 1 - r);
        if (pm_candidate_ok(l, sx, sy, r)) return sy * l.width + sx;
    }
    return l.fallback;
}

// ---- Initialisation of the coarsest level: onion peel ----

/// pm_distance over the target pixels that are `known` only (the onion peel's partial patches).
template <class D>
LACUNA_HD typename D::Dist pm_distance_known(const BasicPmLevel<D>& l, const std::uint8_t* known,
                                             const int tx, const int ty, const int sx, const int sy,
                                             const int r, const typename D::Dist bound) {
    const int x0 = pm_max(-r, -tx), x1 = pm_min(r, l.width - 1 - tx);
    const int y0 = pm_max(-r, -ty), y1 = pm_min(r, l.height - 1 - ty);
    typename D::Dist sum = pm_prior(l, sx, sy, r);
    for (int dy = y0; dy <= y1; ++dy) {
        const long long trow = static_cast<long long>(ty + dy) * l.width + tx;
        const long long srow = static_cast<long long>(sy + dy) * l.width + sx;
        for (int dx = x0; dx <= x1; ++dx) {
            if (!known[trow + dx]) continue;
            sum += pm_pixel_distance(l, trow + dx, srow + dx);
        }
        if (sum >= bound) return sum;
    }
    return sum;
}

/// Layers of the onion peel for a coarsest hole box of bw × bh: every hole pixel lies within this
/// many 8-neighbour steps of a known pixel, even where the hole touches the level's border. The
/// drivers stop earlier once a layer fills nothing (later layers would change nothing either).
LACUNA_HD int pm_onion_layers(const int bw, const int bh) {
    return pm_max(bw, bh);
}

/// One layer of the onion peel initialises part of the coarsest hole (Newson et al. 2017, where
/// a diffusion would start the EM from a smooth blob that smooth sources then match best). Every
/// hole pixel not yet known but next to a known one (8-neighbours, `known_in`) is matched on the
/// known pixels of its patch. The candidates, in a fixed order: first stage, the sources its
/// filled neighbours found, shifted, then hashed random centres anywhere; second stage, windows
/// halving around the best. It takes the source's centre colour and the source as its initial
/// field. Its texture is not copied: the coarsest hole's texture is set beforehand (diffused from
/// the border) and stays fixed. Jacobi: a pixel written here is unknown in `known_in`, so no
/// other pixel of the layer reads it.
///
/// The pieces below let the CPU walk the candidates in order (pm_onion_pixel) and the GPU split
/// the first stage over a warp: the best is the smallest distance, ties to the earliest
/// candidate, which is what the sequential "strictly better wins" keeps.
inline constexpr int kOnionNeighbours = 8;
inline constexpr int kOnionFirstStage = kOnionNeighbours + kOnionTries;

/// The best onion candidate so far; `order` is its index in the first stage.
template <class D>
struct PmOnionBest {
    std::int32_t best = -1;
    typename D::Dist dist = static_cast<typename D::Dist>(~typename D::Dist{0});
    int order = 0x7fffffff;
    int x = 0, y = 0;
};

/// Whether (x, y) is filled in this layer: unknown in `known_in`, with a known 8-neighbour.
template <class D>
LACUNA_HD bool pm_onion_front(const BasicPmLevel<D>& l, const std::uint8_t* known_in, const int x,
                              const int y) {
    const int w = l.width;
    if (known_in[static_cast<long long>(y) * w + x]) return false;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= w || ny >= l.height) continue;
            if (known_in[static_cast<long long>(ny) * w + nx]) return true;
        }
    return false;
}

/// Iteration numbers below -1 (pm_random_source's) keep the onion's draws apart from the EM's.
LACUNA_HD int pm_onion_tag(const int layer) {
    return -2 - layer;
}

/// First-stage candidate `j` for (x, y): j < 8, the j-th 8-neighbour (row by row, the centre
/// skipped) if it is a filled hole pixel, its source shifted back; then random try j - 8. False
/// where there is none.
template <class D>
LACUNA_HD bool pm_onion_candidate(const BasicPmLevel<D>& l, const std::uint8_t* known_in,
                                  const int r, const std::uint32_t seed, const int level,
                                  const int layer, const int x, const int y, const int j, int& sx,
                                  int& sy) {
    const int w = l.width;
    if (j < kOnionNeighbours) {
        const int o = j < 4 ? j : j + 1;
        const int dx = o % 3 - 1, dy = o / 3 - 1;
        const int nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= w || ny >= l.height) return false;
        const long long q = static_cast<long long>(ny) * w + nx;
        if (!known_in[q] || !l.hole[q]) return false;
        const std::int32_t s = l.nnf[0][q];
        if (s < 0) return false;
        sx = s % w - dx;
        sy = s / w - dy;
        return true;
    }
    const int k = j - kOnionNeighbours;
    const int tag = pm_onion_tag(layer);
    sx = pm_uniform(pm_hash(seed, level, tag, x, y, 2 * k), r, w - 1 - r);
    sy = pm_uniform(pm_hash(seed, level, tag, x, y, 2 * k + 1), r, l.height - 1 - r);
    return true;
}

/// Tries source (sx, sy) for (x, y); strictly better wins.
template <class D>
LACUNA_HD void pm_onion_consider(const BasicPmLevel<D>& l, const std::uint8_t* known_in,
                                 const int r, const int x, const int y, const int sx, const int sy,
                                 const int order, PmOnionBest<D>& b) {
    if (!pm_candidate_ok(l, sx, sy, r)) return;
    const std::int32_t c = sy * l.width + sx;
    if (c == b.best) return;
    const typename D::Dist d = pm_distance_known(l, known_in, x, y, sx, sy, r, b.dist);
    if (d < b.dist) b.best = c, b.dist = d, b.order = order, b.x = sx, b.y = sy;
}

/// The second stage (windows halving from a quarter of the level around the best) and the
/// write: the source's colour and the source itself (the level's fallback if nothing was valid).
template <class D>
LACUNA_HD void pm_onion_finish(const BasicPmLevel<D>& l, const std::uint8_t* known_in, const int r,
                               const std::uint32_t seed, const int level, const int layer,
                               const int x, const int y, PmOnionBest<D> b) {
    const int w = l.width;
    if (b.best >= 0) {
        const int tag = pm_onion_tag(layer);
        int k = kOnionTries;
        for (int span = pm_max(w, l.height) / 4; span >= 1; span /= 2, ++k) {
            const int cx = b.x, cy = b.y;
            pm_onion_consider(
                l, known_in, r, x, y,
                pm_uniform(pm_hash(seed, level, tag, x, y, 2 * k), cx - span, cx + span),
                pm_uniform(pm_hash(seed, level, tag, x, y, 2 * k + 1), cy - span, cy + span),
                kOnionFirstStage + k, b);
        }
    }
    const std::int32_t source = b.best >= 0 ? b.best : l.fallback;
    const long long p = static_cast<long long>(y) * w + x;
    l.color[p] = l.color[source];
    l.nnf[0][p] = source;
}

/// One pixel of one layer, every candidate in order (the CPU's way). Returns whether the pixel
/// was filled in this layer.
template <class D>
LACUNA_HD bool pm_onion_pixel(const BasicPmLevel<D>& l, const std::uint8_t* known_in,
                              std::uint8_t* known_out, const int r, const std::uint32_t seed,
                              const int level, const int layer, const int x, const int y) {
    const long long p = static_cast<long long>(y) * l.width + x;
    const bool front = pm_onion_front(l, known_in, x, y);
    known_out[p] = known_in[p] || front ? 1 : 0;
    if (!front) return false;
    PmOnionBest<D> b;
    for (int j = 0; j < kOnionFirstStage; ++j) {
        int sx = 0, sy = 0;
        if (pm_onion_candidate(l, known_in, r, seed, level, layer, x, y, j, sx, sy))
            pm_onion_consider(l, known_in, r, x, y, sx, sy, j, b);
    }
    pm_onion_finish(l, known_in, r, seed, level, layer, x, y, b);
    return true;
}

/// The coarsest level's initial field (buffer 0), after the onion peel: hole pixels keep the
/// peel's source; other targets get random valid sources; -1 elsewhere in the box. Distances are
/// computed by the first pass.
template <class D>
LACUNA_HD void pm_init_pixel(const BasicPmLevel<D>& l, const int r, const std::uint32_t seed,
                             const int level, const int x, const int y) {
    const long long p = static_cast<long long>(y) * l.width + x;
    l.dist[0][p] = 0;
    if (l.hole[p]) return;
    l.nnf[0][p] = pm_is_target(l, x, y, r) ? pm_random_source(l, r, seed, level, x, y) : -1;
}

/// A finer level's initial field (buffer 0) from the coarse one (buffer `coarse_buf`): the coarse
/// source of the parent, doubled plus this pixel's offset in its parent, if valid here. The
/// parent's distance stands in (for the first vote's weights) until the first pass recomputes it.
/// With `fixed_texture`, a hole pixel also takes its parent's texture, which stays fixed at this
/// level (see pm_vote_pixel).
template <class D>
LACUNA_HD void pm_upsample_pixel(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                 const int coarse_buf, const int r, const std::uint32_t seed,
                                 const int level, const bool fixed_texture, const int x,
                                 const int y) {
    const long long p = static_cast<long long>(y) * fine.width + x;
    if (fixed_texture && fine.hole[p])
        fine.texture[p] = coarse.texture[static_cast<long long>(y / 2) * coarse.width + x / 2];
    if (!pm_is_target(fine, x, y, r)) {
        fine.nnf[0][p] = -1;
        fine.dist[0][p] = 0;
        return;
    }
    const int px = x / 2, py = y / 2;
    std::int32_t source = -1;
    typename D::Dist dist = 0;
    if (in_box(coarse, px, py)) {
        const long long parent = static_cast<long long>(py) * coarse.width + px;
        const std::int32_t q = coarse.nnf[coarse_buf][parent];
        if (q >= 0) {
            dist = coarse.dist[coarse_buf][parent];
            const int sx = 2 * (q % coarse.width) + (x & 1);
            const int sy = 2 * (q / coarse.width) + (y & 1);
            const int cx = pm_min(pm_max(sx, r), fine.width - 1 - r);
            const int cy = pm_min(pm_max(sy, r), fine.height - 1 - r);
            if (pm_candidate_ok(fine, cx, cy, r)) source = cy * fine.width + cx;
        }
    }
    if (source < 0) source = pm_random_source(fine, r, seed, level, x, y);
    fine.nnf[0][p] = source;
    fine.dist[0][p] = dist;
}

// ---- One field pass: propagation (jump flooding) and random search ----

struct PmPass {
    int src = 0;  ///< field buffer read
    int dst = 1;  ///< field buffer written
    int radius = 4;
    int step = 1;            ///< jump: the 4 neighbours at ± step
    bool recompute = false;  ///< the image changed since the distances were measured
    bool random = false;     ///< then the random search around the best
    int span = 1;            ///< the random search's first window is ± span
    std::uint32_t seed = 1;
    int level = 0;
    int iteration = 0;  ///< within the level
};

/// One target pixel of a pass (Jacobi: reads buffer src only, writes dst). The candidates, in a
/// fixed order: the current source; each neighbour's source shifted back by the jump; then random
/// centres in windows halving from the level's size around the best so far. Strictly better wins.
template <class D>
LACUNA_HD void pm_pass_pixel(const BasicPmLevel<D>& l, const PmPass& pass, const int x,
                             const int y) {
    using Dist = typename D::Dist;
    const long long p = static_cast<long long>(y) * l.width + x;
    std::int32_t best = l.nnf[pass.src][p];
    if (best < 0) {
        l.nnf[pass.dst][p] = -1;
        l.dist[pass.dst][p] = 0;
        return;
    }
    const int r = pass.radius;
    const int w = l.width;
    int bx = best % w, by = best / w;
    Dist bd = pass.recompute ? pm_distance(l, x, y, bx, by, r, static_cast<Dist>(~Dist{0}))
                             : l.dist[pass.src][p];
    const int jx[4] = {-pass.step, pass.step, 0, 0};
    const int jy[4] = {0, 0, -pass.step, pass.step};
    for (int k = 0; k < 4; ++k) {
        const int nx = x + jx[k], ny = y + jy[k];
        if (!in_box(l, nx, ny)) continue;
        const std::int32_t q = l.nnf[pass.src][static_cast<long long>(ny) * w + nx];
        if (q < 0) continue;
        const int sx = q % w - jx[k], sy = q / w - jy[k];
        if (!pm_candidate_ok(l, sx, sy, r)) continue;
        const std::int32_t c = sy * w + sx;
        if (c == best) continue;
        const Dist d = pm_distance(l, x, y, sx, sy, r, bd);
        if (d < bd) best = c, bd = d, bx = sx, by = sy;
    }
    if (pass.random) {
        int k = 0;
        for (int span = pass.span; span >= 1; span /= 2, ++k) {
            const int sx = pm_uniform(pm_hash(pass.seed, pass.level, pass.iteration, x, y, 2 * k),
                                      bx - span, bx + span);
            const int sy =
                pm_uniform(pm_hash(pass.seed, pass.level, pass.iteration, x, y, 2 * k + 1),
                           by - span, by + span);
            if (!pm_candidate_ok(l, sx, sy, r)) continue;
            const std::int32_t c = sy * w + sx;
            if (c == best) continue;
            const Dist d = pm_distance(l, x, y, sx, sy, r, bd);
            if (d < bd) best = c, bd = d, bx = sx, by = sy;
        }
    }
    l.nnf[pass.dst][p] = best;
    l.dist[pass.dst][p] = bd;
}

// ---- Voting ----

/// Integer vote weight from a patch distance: 2^16 / (16 + mean squared error per pixel), so
/// 1..4096; a good match outweighs a poor one by orders of magnitude, as exp(-d / σ²) would. At
/// 16 bits the bias and the numerator are scaled by 257², so that the same content weighs about
/// the same at either depth.
template <class D>
LACUNA_HD std::uint32_t pm_weight(const typename D::Dist dist, const int r) {
    const unsigned long long area = static_cast<unsigned long long>((2 * r + 1) * (2 * r + 1));
    const unsigned long long w = (65536ULL * D::kDistScale) / (16ULL * D::kDistScale + dist / area);
    return w == 0 ? 1U : static_cast<std::uint32_t>(w);
}

/// Whether the texture channel of the hole is voted at `level`. Above level 0 it stays fixed: the
/// coarsest hole's texture is diffused in from its border and handed down unchanged, so every
/// level keeps asking for as much texture as the surroundings have. A voted texture follows
/// the colour into the smooth-source trap (smooth sources vote a low texture, which then asks
/// for smooth sources). At level 0 it is voted, so structure decides the last details.
LACUNA_HD bool pm_votes_texture(const int level) {
    return level == 0;
}

/// Hole pixel (x, y) gathers what every target patch covering it proposes (the pixel at the same
/// offset in its source patch): the weighted mean with rounding, or with `winner_take_all` the
/// proposal of greatest weight (first in scan order of the offsets on ties). The texture channel
/// is gathered the same way when `vote_texture`. Sources are never hole pixels, so voting in place
/// reads nothing it writes.
template <class D>
LACUNA_HD void pm_vote_pixel(const BasicPmLevel<D>& l, const int buf, const int r,
                             const bool winner_take_all, const bool vote_texture, const int x,
                             const int y) {
    const int w = l.width;
    const long long p = static_cast<long long>(y) * w + x;
    if (!l.hole[p]) return;
    unsigned long long sr = 0, sg = 0, sb = 0, sa = 0, st = 0, sw = 0;
    std::uint32_t best_w = 0;
    typename D::Dist best_d = 0;
    long long best_at = -1;
    for (int dy = -r; dy <= r; ++dy) {
        const int cy = y - dy;
        if (cy < 0 || cy >= l.height) continue;
        for (int dx = -r; dx <= r; ++dx) {
            const int cx = x - dx;
            if (cx < 0 || cx >= w) continue;
            const long long c = static_cast<long long>(cy) * w + cx;
            const std::int32_t q = l.nnf[buf][c];
            if (q < 0) continue;
            const long long s = static_cast<long long>(q / w + dy) * w + (q % w + dx);
            if (winner_take_all) {
                // The weight never grows with the distance: only a smaller distance can win, and
                // skipping the division for the others changes nothing.
                const typename D::Dist d = l.dist[buf][c];
                if (best_at >= 0 && d >= best_d) continue;
                const std::uint32_t wt = pm_weight<D>(d, r);
                if (wt > best_w) best_w = wt, best_at = s, best_d = d;
                continue;
            }
            const std::uint32_t wt = pm_weight<D>(l.dist[buf][c], r);
            const typename D::Color v = l.color[s];
            sr += static_cast<unsigned long long>(wt) * v.r;
            sg += static_cast<unsigned long long>(wt) * v.g;
            sb += static_cast<unsigned long long>(wt) * v.b;
            sa += static_cast<unsigned long long>(wt) * v.a;
            st += static_cast<unsigned long long>(wt) * l.texture[s];
            sw += wt;
        }
    }
    if (winner_take_all) {
        if (best_at < 0) return;
        l.color[p] = l.color[best_at];
        if (vote_texture) l.texture[p] = l.texture[best_at];
        return;
    }
    if (sw == 0) return;
    l.color[p] = pm_mean_color<D>(sr, sg, sb, sa, sw);
    if (vote_texture) l.texture[p] = static_cast<typename D::Tex>((st + sw / 2) / sw);
}

/// What the editor shows while a coarse level is being filled: level 0's hole pixels take the
/// coarse estimate (nearest, level `shift`). Level 0's hole is rewritten by its own first vote.
template <class D>
LACUNA_HD void pm_compose_pixel(const BasicPmLevel<D>& fine, const BasicPmLevel<D>& coarse,
                                const int shift, const int x, const int y) {
    const long long p = static_cast<long long>(y) * fine.width + x;
    if (!fine.hole[p]) return;
    fine.color[p] = coarse.color[static_cast<long long>(y >> shift) * coarse.width + (x >> shift)];
}

}  // namespace lacuna::patchmatch_terms
