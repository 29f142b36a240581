// Straight lines continued across the hole before PatchMatch (see inpaint_structure.hpp). Plain
// loops over the hole's box and a ring of a few dozen pixels around it; only the seeds' traces
// run on several threads.
#include <lacuna/core/parallel.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_structure.hpp>

#include "chessboard_near.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>

namespace lacuna::ops {
namespace {

/// An edge pixel: the luma step across it (Sobel / 8, levels per pixel) at least this.
constexpr double kEdgeLevels = 10.0;
/// Along a trace, an edge pixel's normal within 20° of the line's.
const double kNormalCos = std::cos(20.0 * std::numbers::pi / 180.0);
/// The longest trace outward from the hole, in pixels.
constexpr int kReach = 48;
/// Seeds: edge pixels at most this far (chessboard) from the hole.
constexpr int kSeedDistance = 3;
/// Two sides are the same edge when their luma profiles across it differ by at most this much
/// on average (levels): a dark | bright edge does not continue a bright | dark one.
constexpr double kProfileLevels = 20.0;
/// A band is copied only where its copy's error is below 1/kBandErrorPerStep of the edge's step.
constexpr double kBandErrorPerStep = 3.0;

struct Point {
    double x = 0, y = 0;
};
Point operator+(const Point a, const Point b) {
    return {a.x + b.x, a.y + b.y};
}
Point operator-(const Point a, const Point b) {
    return {a.x - b.x, a.y - b.y};
}
Point operator*(const double s, const Point a) {
    return {s * a.x, s * a.y};
}
double dot(const Point a, const Point b) {
    return a.x * b.x + a.y * b.y;
}
double cross(const Point a, const Point b) {
    return a.x * b.y - a.y * b.x;
}
Point perp(const Point a) {
    return {-a.y, a.x};
}
int round_int(const double v) {
    return static_cast<int>(std::lround(v));
}

/// Luma and its Sobel gradient where the whole 3 × 3 stencil is known, over a region of the
/// image (x0, y0, width × height, in image coordinates): the hole's box grown by what a trace
/// can read (gradient_region). Outside it nothing is read; a 1080p picture's whole gradient was
/// most of the stage's time.
struct Gradients {
    int x0 = 0, y0 = 0, width = 0, height = 0;
    std::vector<float> luma, gx, gy;
    std::vector<std::uint8_t> valid;  ///< 1: gradient defined (stencil known and inside)

    [[nodiscard]] std::size_t at(const int x, const int y) const {
        return static_cast<std::size_t>(y - y0) * width + (x - x0);
    }
    [[nodiscard]] bool inside(const int x, const int y) const {
        return x >= x0 && y >= y0 && x < x0 + width && y < y0 + height;
    }
    [[nodiscard]] double magnitude(const std::size_t i) const {
        return std::hypot(static_cast<double>(gx[i]), static_cast<double>(gy[i]));
    }
};

/// The hole's box grown by the farthest a trace reads from the hole (a seed within
/// kSeedDistance, the line up to kReach beyond it, shifted across by a pixel, the profile
/// `band` across it, and rounding), clipped to the image; empty when the hole is.
SearchRect gradient_region(const Mask& hole, const int band) {
    const SearchRect box = detail::hole_box(hole);
    if (box.x1 < box.x0) return box;
    const int margin = kSeedDistance + kReach + std::max(band, 1) + 4;
    return {std::max(0, box.x0 - margin), std::max(0, box.y0 - margin),
            std::min(hole.width() - 1, box.x1 + margin),
            std::min(hole.height() - 1, box.y1 + margin)};
}

Gradients gradients(const ImageView<const Rgba8> image, const Mask& hole, const int band) {
    Gradients g;
    const SearchRect region = gradient_region(hole, band);
    if (region.x1 < region.x0) return g;
    g.x0 = region.x0;
    g.y0 = region.y0;
    g.width = region.x1 - region.x0 + 1;
    g.height = region.y1 - region.y0 + 1;
    const std::size_t n = static_cast<std::size_t>(g.width) * g.height;
    g.luma.assign(n, 0.0f);
    g.gx.assign(n, 0.0f);
    g.gy.assign(n, 0.0f);
    g.valid.assign(n, 0);
    for (int y = region.y0; y <= region.y1; ++y) {
        const Rgba8* row = image.row(y);
        for (int x = region.x0; x <= region.x1; ++x)
            g.luma[g.at(x, y)] =
                static_cast<float>(54 * row[x].r + 183 * row[x].g + 19 * row[x].b) / 256.0f;
    }
    for (int y = region.y0 + 1; y < region.y1; ++y)
        for (int x = region.x0 + 1; x < region.x1; ++x) {
            bool known = true;
            for (int dy = -1; dy <= 1 && known; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (hole.row(y + dy)[x + dx] != 0) known = false;
            if (!known) continue;
            const auto l = [&](const int dx, const int dy) { return g.luma[g.at(x + dx, y + dy)]; };
            const std::size_t i = g.at(x, y);
            g.gx[i] = (l(1, -1) + 2 * l(1, 0) + l(1, 1) - l(-1, -1) - 2 * l(-1, 0) - l(-1, 1)) / 8;
            g.gy[i] = (l(-1, 1) + 2 * l(0, 1) + l(1, 1) - l(-1, -1) - 2 * l(0, -1) - l(1, -1)) / 8;
            g.valid[i] = 1;
        }
    return g;
}

/// The hole over the gradients' region (the same indices as Gradients::at).
Mask hole_in_region(const Mask& hole, const Gradients& g) {
    Mask local(g.width, g.height, 0);
    for (int y = 0; y < g.height; ++y)
        std::copy_n(hole.row(g.y0 + y) + g.x0, g.width, local.row(y));
    return local;
}

bool in_hole(const Mask& hole, const int x, const int y) {
    return x >= 0 && y >= 0 && x < hole.width() && y < hole.height() && hole.row(y)[x] != 0;
}

/// How many edge pixels a straight line from `start` along `u` meets (normal within 20°),
/// stopping after three misses in a row; `last` is the farthest hit.
int count_hits(const Gradients& g, const Point start, const Point u, int& last) {
    const Point m = perp(u);
    int hits = 0, misses = 0;
    last = 0;
    for (int t = 1; t <= kReach && misses < 3; ++t) {
        const Point p = start + static_cast<double>(t) * u;
        const int x = round_int(p.x), y = round_int(p.y);
        bool hit = false;
        if (g.inside(x, y) && g.valid[g.at(x, y)] != 0) {
            const std::size_t i = g.at(x, y);
            const double mag = g.magnitude(i);
            hit = mag >= kEdgeLevels && std::abs(g.gx[i] * m.x + g.gy[i] * m.y) >= kNormalCos * mag;
        }
        if (hit) {
            ++hits;
            misses = 0;
            last = t;
        } else {
            ++misses;
        }
    }
    return hits;
}

/// The mean luma across the line at offsets -band..band (along perp(d)) over its first
/// `length` pixels outward from (x, y).
std::vector<double> profile(const Gradients& g, const EdgeTrace& e, const int band) {
    std::vector<double> sum(static_cast<std::size_t>(2 * band + 1), 0.0);
    std::vector<int> count(sum.size(), 0);
    const Point d{e.dx, e.dy};
    const Point m = perp(d);
    for (int t = 0; t < e.length; ++t)
        for (int k = -band; k <= band; ++k) {
            const Point p =
                Point{e.x, e.y} - static_cast<double>(t) * d + static_cast<double>(k) * m;
            const int x = round_int(p.x), y = round_int(p.y);
            if (!g.inside(x, y) || g.valid[g.at(x, y)] == 0) continue;
            sum[static_cast<std::size_t>(k + band)] += g.luma[g.at(x, y)];
            ++count[static_cast<std::size_t>(k + band)];
        }
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = count[i] > 0 ? sum[i] / count[i] : -1.0;
    return sum;
}

struct Trace {
    EdgeTrace edge;
    int hits = 0;
    std::vector<double> profile;  ///< across the line, along perp(direction into the hole)
};

/// Traces the edge through seed (x, y) outward from the hole; nullopt-like hits 0 when it is
/// no straight edge of min_length reaching the hole.
Trace trace_from(const Gradients& g, const Mask& hole, const int x, const int y,
                 const LineContinuationOptions& options) {
    Trace none;
    const std::size_t i = g.at(x, y);
    const double mag = g.magnitude(i);
    const Point e{-g.gy[i] / mag, g.gx[i] / mag};  // along the edge
    // Which way along the edge the hole lies; an edge that runs along the hole's border, or
    // has hole on both sides, does not enter it.
    bool plus = false, minus = false;
    for (int t = 1; t <= kSeedDistance + 1; ++t) {
        plus = plus || in_hole(hole, round_int(x + t * e.x), round_int(y + t * e.y));
        minus = minus || in_hole(hole, round_int(x - t * e.x), round_int(y - t * e.y));
    }
    if (plus == minus) return none;
    const Point out = plus ? -1.0 * e : e;
    // The best straight line through the seed's neighbourhood: angle within ±12° of the seed's
    // edge direction (1° steps), the start shifted across by up to a pixel.
    int best_hits = -1, best_last = 0;
    Point best_u = out, best_start{static_cast<double>(x), static_cast<double>(y)};
    for (int step = 0; step <= 24; ++step) {
        const int delta = (step % 2 == 0 ? 1 : -1) * ((step + 1) / 2);  // 0, -1, 1, -2, 2...
        const double a = delta * std::numbers::pi / 180.0;
        const Point u{out.x * std::cos(a) - out.y * std::sin(a),
                      out.x * std::sin(a) + out.y * std::cos(a)};
        for (const double o : {0.0, -0.5, 0.5, -1.0, 1.0}) {
            const Point start = Point{static_cast<double>(x), static_cast<double>(y)} + o * perp(u);
            int last = 0;
            const int hits = count_hits(g, start, u, last);
            if (hits > best_hits) {
                best_hits = hits;
                best_last = last;
                best_u = u;
                best_start = start;
            }
        }
    }
    if (best_last < options.min_length || best_hits * 4 < best_last * 3) return none;
    // Refine by a least-squares line through the hits' pixel centres, weighted by the step.
    const Point m = perp(best_u);
    double sw = 0, sx = 0, sy = 0;
    std::vector<std::array<double, 3>> points;
    for (int t = 0; t <= best_last; ++t) {
        const Point p = best_start + static_cast<double>(t) * best_u;
        // The strongest edge pixel across the line within a pixel.
        double w_best = 0;
        Point q_best{};
        for (int k = -1; k <= 1; ++k) {
            const Point q = p + static_cast<double>(k) * m;
            const int qx = round_int(q.x), qy = round_int(q.y);
            if (!g.inside(qx, qy) || g.valid[g.at(qx, qy)] == 0) continue;
            const double w = g.magnitude(g.at(qx, qy));
            if (w > w_best) {
                w_best = w;
                q_best = {static_cast<double>(qx), static_cast<double>(qy)};
            }
        }
        if (w_best < kEdgeLevels) continue;
        points.push_back({q_best.x, q_best.y, w_best});
        sw += w_best;
        sx += w_best * q_best.x;
        sy += w_best * q_best.y;
    }
    const Point c{sx / sw, sy / sw};
    double cxx = 0, cxy = 0, cyy = 0;
    for (const auto& p : points) {
        cxx += p[2] * (p[0] - c.x) * (p[0] - c.x);
        cxy += p[2] * (p[0] - c.x) * (p[1] - c.y);
        cyy += p[2] * (p[1] - c.y) * (p[1] - c.y);
    }
    const double angle = 0.5 * std::atan2(2 * cxy, cxx - cyy);
    Point d{std::cos(angle), std::sin(angle)};
    if (dot(d, out) > 0) d = -1.0 * d;  // into the hole
    // The hole-side end: the seed projected on the fitted line.
    const Point seed{static_cast<double>(x), static_cast<double>(y)};
    const Point end = c + dot(seed - c, d) * d;
    Trace trace;
    trace.edge = {end.x, end.y, d.x, d.y, best_last};
    trace.hits = best_hits;
    trace.profile = profile(g, trace.edge, options.band);
    return trace;
}

/// `first_only`: stop at the first trace found (whether any edge reaches the hole).
std::vector<Trace> traces_into_hole(const Gradients& g, const Mask& hole,
                                    const LineContinuationOptions& options,
                                    const bool first_only = false) {
    // A seed lies within kSeedDistance (chessboard) of the hole: one pass for every pixel
    // instead of a window searched at each strong gradient (most of the time on textured rings).
    if (g.width == 0) return {};  // no hole: no region
    const std::vector<std::uint8_t> near_hole =
        detail::chessboard_near(hole_in_region(hole, g), kSeedDistance, 1);
    std::vector<std::array<int, 2>> seeds;
    for (int y = g.y0; y < g.y0 + g.height; ++y)
        for (int x = g.x0; x < g.x0 + g.width; ++x) {
            const std::size_t i = g.at(x, y);
            if (g.valid[i] == 0 || near_hole[i] == 0) continue;
            const double mag = g.magnitude(i);
            if (mag < kEdgeLevels) continue;
            // Only the ridge of the step across the edge seeds a trace.
            const int sx = round_int(g.gx[i] / mag), sy = round_int(g.gy[i] / mag);
            const auto weaker = [&](const int xx, const int yy) {
                return !g.inside(xx, yy) || g.valid[g.at(xx, yy)] == 0 ||
                       g.magnitude(g.at(xx, yy)) <= mag;
            };
            if (!weaker(x + sx, y + sy) || !weaker(x - sx, y - sy)) continue;
            if (first_only) {
                Trace t = trace_from(g, hole, x, y, options);
                if (t.hits > 0) return {std::move(t)};
                continue;
            }
            seeds.push_back({x, y});
        }
    // Each seed's trace tries 125 lines (most of the stage's time on a textured ring): traced in
    // parallel, each into its own slot, and kept in the seeds' scan order as before.
    std::vector<Trace> traced(seeds.size());
    parallel_chunks(static_cast<int>(seeds.size()), [&](const int begin, const int end, int) {
        for (int k = begin; k < end; ++k)
            traced[static_cast<std::size_t>(k)] =
                trace_from(g, hole, seeds[static_cast<std::size_t>(k)][0],
                           seeds[static_cast<std::size_t>(k)][1], options);
    });
    std::vector<Trace> found;
    for (Trace& t : traced)
        if (t.hits > 0) found.push_back(std::move(t));
    // One trace per edge: the strongest first, then those that are the same line again (a
    // neighbouring seed on the same edge) dropped.
    std::stable_sort(found.begin(), found.end(),
                     [](const Trace& a, const Trace& b) { return a.hits > b.hits; });
    std::vector<Trace> kept;
    const double same_cos = std::cos(3.0 * std::numbers::pi / 180.0);
    for (Trace& t : found) {
        const Point d{t.edge.dx, t.edge.dy};
        const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const Trace& k) {
            const Point kd{k.edge.dx, k.edge.dy};
            const Point gap = Point{t.edge.x, t.edge.y} - Point{k.edge.x, k.edge.y};
            return dot(d, kd) >= same_cos && std::abs(cross(kd, gap)) <= 1.5 &&
                   std::abs(dot(kd, gap)) <= 2.0 * kSeedDistance + 2;
        });
        if (!duplicate) kept.push_back(std::move(t));
    }
    return kept;
}

/// Mean absolute difference of two profiles, the second read backwards (its normal points the
/// other way); -1 entries (nothing known there) are skipped.
double profile_difference(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0;
    int n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double va = a[i], vb = b[b.size() - 1 - i];
        if (va < 0 || vb < 0) continue;
        sum += std::abs(va - vb);
        ++n;
    }
    return n > 0 ? sum / n : 1e9;
}

/// Whether the straight path from a to b crosses one run of hole only (known pixels only
/// within a few pixels of either end, where the traces start).
bool one_hole_run(const Mask& hole, const Point a, const Point b) {
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    const int steps = static_cast<int>(std::ceil(length));
    int inside = 0;
    for (int s = 0; s <= steps; ++s) {
        const double t = steps > 0 ? static_cast<double>(s) / steps : 0.0;
        const Point p = a + t * (b - a);
        const bool h = in_hole(hole, round_int(p.x), round_int(p.y));
        inside += h ? 1 : 0;
        const double from_a = t * length, from_b = (1 - t) * length;
        if (!h && from_a > kSeedDistance + 1.5 && from_b > kSeedDistance + 1.5) return false;
    }
    return inside > 0;
}

/// The hole pixels along the ray from `a` along `d` until it leaves the image; -1 when a known
/// pixel comes first (past the trace's start).
int run_to_border(const Mask& hole, const Point a, const Point d) {
    int run = 0;
    for (int t = 0;; ++t) {
        const Point p = a + static_cast<double>(t) * d;
        const int x = round_int(p.x), y = round_int(p.y);
        if (x < 0 || y < 0 || x >= hole.width() || y >= hole.height()) return run > 0 ? t : -1;
        if (hole.row(y)[x] != 0)
            ++run;
        else if (t > kSeedDistance + 1)
            return -1;
    }
}

/// A side of a joined line: its trace and the shift along it the band copies by.
struct Side {
    Point end, d;  ///< hole-side end, direction into the hole
    int shift = 0;
};

/// A side's shift and how far its copy is from the band it copies (RMS per channel, levels).
struct Shift {
    int shift = 0;
    double error = 0;
};

/// The shift s (band + 2 .. 1.5 × the trace's length) whose copy of the band just outside the
/// hole (over half the trace, at least 2 · band + 2 px) best matches what is there: periodic
/// content (bricks, railings, a façade's panels) keeps its phase. The repeat may be longer than
/// the traced edge (a trace stops at kReach while the ledge goes on; a shift past its straight
/// part only matches where the band does), and a window of a few pixels matches nearly any short
/// shift where the band changes slowly along the line (a ledge's shadow widening over each panel),
/// whose copy then draws that change as a strip and steps where the two sides' copies meet.
Shift best_shift(const ImageView<const Rgba8> image, const Mask& hole, const Trace& trace,
                 const int band) {
    const Point end{trace.edge.x, trace.edge.y};
    const Point d{trace.edge.dx, trace.edge.dy};
    const Point m = perp(d);
    const auto known = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < hole.width() && y < hole.height() && hole.row(y)[x] == 0;
    };
    const int window = std::max(2 * band + 1, trace.edge.length / 2);
    // The band beside the hole: visit(x, y) for its known pixels.
    const auto each_window_pixel = [&](const auto& visit) {
        for (int t = 0; t <= window; ++t)
            for (int k = -band; k <= band; ++k) {
                const Point q = end - static_cast<double>(t) * d + static_cast<double>(k) * m;
                const int x = round_int(q.x), y = round_int(q.y);
                if (known(x, y)) visit(x, y);
            }
    };
    // A shift whose copy the image's border (or the hole) cuts to a few pixels of the window is
    // not compared: its cost over a handful of pixels would beat a full window's by luck (a
    // lattice's bar near the top of the picture matched on one pixel).
    int window_pixels = 0;
    each_window_pixel([&](int, int) { ++window_pixels; });
    double best_cost = 1e300;
    Shift best{std::min(trace.edge.length, band + 2), 1e9};
    const int longest = trace.edge.length * 3 / 2;
    for (int s = band + 2; s <= longest; ++s) {
        const int ox = round_int(s * d.x), oy = round_int(s * d.y);
        double cost = 0;
        int n = 0;
        each_window_pixel([&](const int x, const int y) {
            if (!known(x - ox, y - oy)) return;
            const Rgba8 a = image.row(y)[x], b = image.row(y - oy)[x - ox];
            const int dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
            cost += dr * dr + dg * dg + db * db;
            ++n;
        });
        if (n == 0 || 2 * n < window_pixels) continue;
        cost /= n;
        if (cost <= best_cost) {  // ties: the longer shift (fewer repeats)
            best_cost = cost;
            best = {s, std::sqrt(cost / 3.0)};
        }
    }
    return best;
}

/// The step across a trace's edge: the mean luma of the profile's two halves apart.
double edge_step(const Trace& trace) {
    const std::size_t centre = trace.profile.size() / 2;
    double sum[2] = {0, 0};
    int count[2] = {0, 0};
    for (std::size_t i = 0; i < trace.profile.size(); ++i) {
        if (i == centre || trace.profile[i] < 0) continue;
        const int side = i < centre ? 0 : 1;
        sum[side] += trace.profile[i];
        ++count[side];
    }
    if (count[0] == 0 || count[1] == 0) return 0;
    return std::abs(sum[0] / count[0] - sum[1] / count[1]);
}

/// Whether a side's band repeats along its line well enough to be copied into the hole: its
/// best copy must differ from what it copies by less than a third of the edge's step. Beside a
/// lattice's bar the band runs over crossing bars and gaps at no repeat the trace can reach
/// (errors of 0.4-0.6 of the step), and the copy then draws a gap where the truth has wood and
/// wood where it has the gap; a façade's ledge, a wall's ledge and a cable copy at 0.02-0.2.
bool band_repeats(const Shift& shift, const Trace& trace) {
    return shift.error * kBandErrorPerStep <= edge_step(trace);
}

/// A band pixel and the pixel it copies.
struct BandCopy {
    int x = 0, y = 0;
    std::int32_t source = 0;  ///< y · width + x of a known pixel
};

/// The copies as a source map over their box (an empty box when there are none).
FillSources band_sources(const int width, const int height, const std::vector<BandCopy>& copies) {
    FillSources out = empty_sources(width, height);
    for (const BandCopy& c : copies)
        out.box = {std::min(out.box.x0, c.x), std::min(out.box.y0, c.y), std::max(out.box.x1, c.x),
                   std::max(out.box.y1, c.y)};
    if (copies.empty()) return out;
    const int bw = out.box.x1 - out.box.x0 + 1;
    out.index.assign(static_cast<std::size_t>(bw) * (out.box.y1 - out.box.y0 + 1), -1);
    for (const BandCopy& c : copies)
        out.index[static_cast<std::size_t>(c.y - out.box.y0) * bw + (c.x - out.box.x0)] = c.source;
    return out;
}

struct Joined {
    Point a, b;  ///< the band's axis
    Side first, second;
    bool paired = true;
    double strength = 0;
};

}  // namespace

std::vector<EdgeTrace> edges_into_hole(const ImageView<const Rgba8> image, const Mask& hole,
                                       const LineContinuationOptions& options) {
    std::vector<EdgeTrace> out;
    for (const Trace& t : traces_into_hole(gradients(image, hole, options.band), hole, options))
        out.push_back(t.edge);
    return out;
}

bool edge_reaches_hole(const ImageView<const Rgba8> image, const Mask& hole,
                       const LineContinuationOptions& options) {
    return !traces_into_hole(gradients(image, hole, options.band), hole, options, true).empty();
}

namespace {

/// continue_lines; without `with_image` the result's image is left empty when no band was
/// filled (a prepared problem keeps its own image then: a copy of a 1080p picture saved).
LineCompletion complete_lines(const ImageView<const Rgba8> image, const Mask& hole,
                              const Mask* never_sample, const LineContinuationOptions& options,
                              const bool with_image) {
    LineCompletion result;
    // Everything before the bands reads only whether a pixel is in the hole (non-zero), so the
    // caller's mask is read as it is; the 0/1 copy the result holds (and the bands mark) is made
    // only where it is returned or a band is drawn: most strokes continue no line, and a
    // full-size copy of a 1080p mask per fill is not free.
    const Gradients g = gradients(image, hole, options.band);
    const std::vector<Trace> traces = traces_into_hole(g, hole, options);
    const double angle_cos = std::cos(options.angle_degrees * std::numbers::pi / 180.0);

    // Pairs: the strongest trace first takes the best partner facing it across the hole.
    std::vector<Joined> joined;
    std::vector<bool> used(traces.size(), false);
    for (std::size_t i = 0; i < traces.size(); ++i) {
        if (used[i]) continue;
        const Trace& a = traces[i];
        const Point pa{a.edge.x, a.edge.y}, da{a.edge.dx, a.edge.dy};
        double best_cost = 1e300;
        std::size_t best = traces.size();
        for (std::size_t j = 0; j < traces.size(); ++j) {
            if (j == i || used[j]) continue;
            const Trace& b = traces[j];
            const Point pb{b.edge.x, b.edge.y}, db{b.edge.dx, b.edge.dy};
            if (-dot(da, db) < angle_cos || dot(pb - pa, da) <= 0) continue;
            const double off_a = std::abs(cross(da, pb - pa));
            const double off_b = std::abs(cross(db, pa - pb));
            if (off_a > options.offset_pixels || off_b > options.offset_pixels) continue;
            const double profile = profile_difference(a.profile, b.profile);
            if (profile > kProfileLevels || !one_hole_run(hole, pa, pb)) continue;
            const double cost = std::acos(std::min(1.0, -dot(da, db))) /
                                    (options.angle_degrees * std::numbers::pi / 180.0 + 1e-9) +
                                (off_a + off_b) / (2 * options.offset_pixels + 1e-9) +
                                profile / kProfileLevels;
            if (cost < best_cost) {
                best_cost = cost;
                best = j;
            }
        }
        if (best < traces.size()) {
            const Trace& b = traces[best];
            const Shift shift_a = best_shift(image, hole, a, options.band);
            const Shift shift_b = best_shift(image, hole, b, options.band);
            // A band that does not repeat is left to the fill (the pair is not joined, nor
            // either trace continued alone).
            used[i] = used[best] = true;
            if (!band_repeats(shift_a, a) || !band_repeats(shift_b, b)) continue;
            Joined line;
            line.a = pa;
            line.b = {b.edge.x, b.edge.y};
            line.first = {pa, da, shift_a.shift};
            line.second = {line.b, {b.edge.dx, b.edge.dy}, shift_b.shift};
            line.strength = a.hits + b.hits;
            joined.push_back(line);
            continue;
        }
        // No partner: continued only to the image's border, when the hole reaches it along the
        // line and the edge outside is at least half as long as the way through the hole.
        const int run = run_to_border(hole, pa, da);
        if (run > 0 && run <= 2 * a.edge.length) {
            used[i] = true;
            const Shift shift = best_shift(image, hole, a, options.band);
            if (!band_repeats(shift, a)) continue;
            Joined line;
            line.a = pa;
            line.b = pa + static_cast<double>(run) * da;
            line.first = {pa, da, shift.shift};
            line.second = line.first;
            line.paired = false;
            line.strength = a.hits;
            joined.push_back(line);
        }
    }
    std::stable_sort(joined.begin(), joined.end(),
                     [](const Joined& x, const Joined& y) { return x.strength > y.strength; });
    if (joined.empty() && !with_image) {
        result.sources = empty_sources(image.width, image.height);
        return result;
    }
    result.hole = Mask(hole.width(), hole.height(), 0);
    for (int y = 0; y < hole.height(); ++y) {
        const std::uint8_t* in = hole.row(y);
        std::uint8_t* out = result.hole.row(y);
        for (int x = 0; x < hole.width(); ++x) out[x] = in[x] != 0 ? 1 : 0;
    }

    // The bands: each hole pixel within `band` of a joined line's axis copies the pixel k shifts
    // back along its side's own direction (the first k that lands on a known pixel), so the
    // edge outside continues straight in. A pixel in two bands takes the stronger line's.
    const auto source_ok = [&](const int x, const int y) {
        return x >= 0 && y >= 0 && x < hole.width() && y < hole.height() && hole.row(y)[x] == 0 &&
               (never_sample == nullptr || never_sample->row(y)[x] == 0);
    };
    const int band = options.band;
    std::vector<BandCopy> copies;
    for (const Joined& line : joined) {
        const Point axis = line.b - line.a;
        const double length = std::hypot(axis.x, axis.y);
        if (length < 1) continue;
        const Point u = (1.0 / length) * axis;
        const int x0 =
            std::max(0, static_cast<int>(std::floor(std::min(line.a.x, line.b.x))) - band - 1);
        const int x1 = std::min(
            hole.width() - 1, static_cast<int>(std::ceil(std::max(line.a.x, line.b.x))) + band + 1);
        const int y0 =
            std::max(0, static_cast<int>(std::floor(std::min(line.a.y, line.b.y))) - band - 1);
        const int y1 =
            std::min(hole.height() - 1,
                     static_cast<int>(std::ceil(std::max(line.a.y, line.b.y))) + band + 1);
        ContinuedLine continued{line.a.x, line.a.y, line.b.x, line.b.y, !line.paired, 0};
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                if (result.hole.row(y)[x] == 0) continue;
                const Point p{static_cast<double>(x), static_cast<double>(y)};
                const double t = dot(p - line.a, u);
                if (t < -band || t > length + band || std::abs(cross(u, p - line.a)) > band + 0.5)
                    continue;
                const Side& side = (!line.paired || t <= length / 2) ? line.first : line.second;
                for (int k = 1; k <= 64; ++k) {
                    const int sx = x - round_int(k * side.shift * side.d.x);
                    const int sy = y - round_int(k * side.shift * side.d.y);
                    if (!source_ok(sx, sy)) continue;
                    copies.push_back({x, y, sy * image.width + sx});
                    result.hole.row(y)[x] = 0;
                    ++continued.pixels;
                    break;
                }
            }
        result.filled += continued.pixels;
        if (continued.pixels > 0) result.lines.push_back(continued);
    }
    // Each band pixel is copied once (the hole forgets it when its copy is recorded), so the map
    // holds every decision; the picture and a measurement's samples are both moved by it.
    result.sources = band_sources(image.width, image.height, copies);
    if (with_image || result.filled > 0) result.image = fill_from_sources(image, result.sources);
    return result;
}

}  // namespace

LineCompletion continue_lines(const ImageView<const Rgba8> image, const Mask& hole,
                              const Mask* never_sample, const LineContinuationOptions& options) {
    return complete_lines(image, hole, never_sample, options, true);
}

FillSources continue_lines(InpaintProblem& problem, const Mask* never_sample,
                           const LineContinuationOptions& options) {
    const int w = problem.image.width(), h = problem.image.height();
    if (problem.hole_pixels == 0) return empty_sources(w, h);
    LineCompletion done =
        complete_lines(problem.image.view(), problem.hole, never_sample, options, false);
    if (done.filled == 0) return empty_sources(w, h);
    problem.image = std::move(done.image);
    problem.hole = std::move(done.hole);
    problem.hole_pixels -= done.filled;
    SearchRect box{problem.image.width(), problem.image.height(), -1, -1};
    for (int y = problem.hole_box.y0; y <= problem.hole_box.y1; ++y)
        for (int x = problem.hole_box.x0; x <= problem.hole_box.x1; ++x)
            if (problem.hole.row(y)[x] != 0)
                box = {std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x),
                       std::max(box.y1, y)};
    problem.hole_box = box;
    std::string note = "continued " + std::to_string(done.lines.size()) + " straight line";
    if (done.lines.size() != 1) note += "s";
    note += " across the hole (" + std::to_string(done.filled) + " pixels filled along them first)";
    problem.notes.push_back(std::move(note));
    return std::move(done.sources);
}

}  // namespace lacuna::ops
