// The fast CPU carver. Same seams as the reference, found with far less work:
// - energies are kept and recomputed only next to the removed seam;
// - the cumulative-cost map is kept and updated incrementally: row by row, only the columns whose
//   inputs changed are recomputed, and the changed interval is carried down;
// - that row update is a branch-free min of three (the tie-break only matters when walking back,
//   which re-derives it), compiled for AVX2 where the CPU has it; costs are 32-bit without masks;
// - removing a seam shifts the shorter side of each row (rows keep their own start offsets), in
//   parallel over rows.
#include "carve_state.hpp"

#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

namespace lacuna::ops {
namespace {

// One row of the cumulative-cost update for columns [x0, x1), away from the borders (x0 >= 1,
// x1 <= w - 1). 32-bit costs, no masks: the hot loop of unmasked carving. `forward` selects
// forward-energy transition costs (then `energy` is all zero).
__attribute__((target_clones("avx2", "default"))) void cost_span(
    const std::int32_t* above, const std::int16_t* intensity, const std::int16_t* intensity_above,
    const std::int16_t* energy, std::int32_t* out, const int x0, const int x1, const bool forward) {
    if (forward) {
        for (int x = x0; x < x1; ++x) {
            const int left = intensity[x - 1], right = intensity[x + 1],
                      up_value = intensity_above[x];
            const int up = right > left ? right - left : left - right;
            const int dl = up_value > left ? up_value - left : left - up_value;
            const int dr = up_value > right ? up_value - right : right - up_value;
            const std::int32_t a = above[x - 1] + up + dl;
            const std::int32_t b = above[x] + up;
            const std::int32_t c = above[x + 1] + up + dr;
            const std::int32_t m = a < b ? a : b;
            out[x] = (m < c ? m : c) + energy[x];
        }
    } else {
        for (int x = x0; x < x1; ++x) {
            const std::int32_t a = above[x - 1], b = above[x], c = above[x + 1];
            const std::int32_t m = a < b ? a : b;
            out[x] = (m < c ? m : c) + energy[x];
        }
    }
}

// Pixel: Rgba8 (16-bit intensities and energies, at most 765 and 6120) or Rgba16 (32-bit ones,
// at most 196605 and 1572840; always 64-bit costs, so the generic cell path).
template <class Pixel, class Cost>
class FastVerticalCarver {
    static constexpr bool kDeep = std::is_same_v<Pixel, Rgba16>;
    static constexpr bool kMasks = std::is_same_v<Cost, std::int64_t>;
    static_assert(!kDeep || kMasks, "16-bit decision images need 64-bit costs");
    using Level = std::conditional_t<kDeep, std::int32_t, std::int16_t>;

  public:
    explicit FastVerticalCarver(const BasicCarveInput<Pixel>& in)
        : W_(in.image.width),
          h_(in.image.height),
          w_(W_),
          energy_kind_(in.energy),
          forward_(in.energy == SeamEnergy::Forward) {
        // Forward energy needs only intensities (its per-pixel energy is zero); the gradient
        // energies need the colours. Each array that is not needed is never shifted.
        const std::size_t n = static_cast<std::size_t>(W_) * h_;
        if (!forward_) img_.resize(n);
        if (forward_) intensity_.resize(n);
        if (!forward_) energy_.resize(n);
        zeros_.assign(static_cast<std::size_t>(W_), 0);
        temporal_unit_ = in.temporal || in.temporal_seams ? in.temporal_unit : 0;
        if (temporal_unit_ > 0) temporal_seams_ = in.temporal_seams;
        // 32-bit costs with a level map (levels_fold_into_energy): level × unit per pixel, added
        // to the energy (gradient energies) or passed as the energy (forward energy's is 0).
        if constexpr (!kMasks) folded_levels_ = in.temporal != nullptr && temporal_unit_ > 0;
        if (folded_levels_) level_term_.resize(n);
        column_.resize(n);
        cost_.resize(n);
        scratch_.resize(static_cast<std::size_t>(W_));
        begin_.assign(h_, 0);
        if constexpr (kMasks) {
            protect_.assign(n, 0);
            remove_.assign(n, 0);
            temporal_.assign(n, 0);
            // Importance beside a temporal term (video with faces): a second level array.
            if (in.importance && in.importance_unit > 0) {
                importance_unit_ = in.importance_unit;
                importance_.assign(n, 0);
            }
        }
        for (int y = 0; y < h_; ++y) {
            const std::size_t base = static_cast<std::size_t>(y) * W_;
            const Pixel* src = in.image.row(y);
            if (!forward_)
                std::memcpy(&img_[base], src, static_cast<std::size_t>(W_) * sizeof(Pixel));
            for (int x = 0; x < W_; ++x) {
                if (forward_)
                    intensity_[base + x] =
                        static_cast<Level>(int{src[x].r} + int{src[x].g} + int{src[x].b});
                column_[base + x] = static_cast<std::uint16_t>(x);
                if (folded_levels_)
                    level_term_[base + x] =
                        static_cast<Level>(temporal_term(in.temporal->at(x, y), temporal_unit_));
                if constexpr (kMasks) {
                    if (in.protect) protect_[base + x] = in.protect->at(x, y);
                    if (in.remove) remove_[base + x] = in.remove->at(x, y);
                    if (in.temporal) temporal_[base + x] = in.temporal->at(x, y);
                    if (importance_unit_ > 0) importance_[base + x] = in.importance->at(x, y);
                    if (temporal_seams_)
                        temporal_[base + x] = seam_temporal_level(x, temporal_seams_->at(0, y));
                }
            }
        }
        parallel_chunks(h_, [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y) recompute_energy(y, 0, w_ - 1);
        });
        for (int y = 0; y < h_; ++y) update_row(y, 0, w_ - 1, /*track=*/false);
    }

    /// A video wave (seam_orders_fast_chained): `wait(k)` returns once the previous frame's seam
    /// k is published in the paths this carver follows; `publish(k, crossings)` hands this
    /// frame's seam k (original columns per row) to the next frame.
    void chain(std::function<void(int)> wait, std::function<void(int, std::vector<int>&)> publish) {
        wait_for_previous_ = std::move(wait);
        publish_ = std::move(publish);
    }

    SeamOrder run(const int seams, const CarveProgress& progress) {
        SeamOrder result;
        result.direction = SeamDirection::Vertical;
        result.width = W_;
        result.height = h_;
        result.seams = seams;
        result.order = Image<std::int32_t>(W_, h_, kNeverRemoved);
        std::vector<int> seam(h_);
        for (int s = 0; s < seams; ++s) {
            if (progress && s % 16 == 0 && !progress(s, seams)) {
                throw Error(ErrorCode::Cancelled, "seam carving cancelled");
            }
            result.costs.push_back(backtrack(seam));
            std::int32_t crossed_protect = 0, crossed_remove = 0;
            for (int y = 0; y < h_; ++y) {
                const std::size_t k = at(seam[y], y);
                result.order.at(column_[k], y) = s;
                if constexpr (kMasks) {
                    crossed_protect += protect_[k] != 0;
                    crossed_remove += remove_[k] != 0;
                }
            }
            result.protected_crossed.push_back(crossed_protect);
            result.remove_crossed.push_back(crossed_remove);
            if (publish_) {
                crossings_.resize(static_cast<std::size_t>(h_));
                for (int y = 0; y < h_; ++y) crossings_[y] = column_[at(seam[y], y)];
                publish_(s, crossings_);
            }
            remove_seam(seam);
            if (s + 1 < seams) {
                if (temporal_seams_ && wait_for_previous_) wait_for_previous_(s + 1);
                update_after_removal(seam, s + 1);
            }
        }
        if (progress) progress(seams, seams);
        return result;
    }

  private:
    [[nodiscard]] std::size_t at(const int x, const int y) const {
        return static_cast<std::size_t>(y) * W_ + static_cast<std::size_t>(begin_[y] + x);
    }
    [[nodiscard]] const Pixel* row(const int y) const { return &img_[at(0, y)]; }

    void recompute_energy(const int y, const int lo, const int hi) {
        if (forward_) return;  // no per-pixel energy
        const auto row_fn = [this](const int yy) { return row(yy); };
        const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
        for (int x = lo; x <= hi; ++x)
            energy_[at(x, y)] = static_cast<Level>(pixel_energy(pixels, energy_kind_, x, y) +
                                                   (folded_levels_ ? level_term_[at(x, y)] : 0));
    }

    // The reference's recurrence, one cell, in full generality (borders, masks, row 0).
    [[nodiscard]] Cost cell_cost(const int x, const int y) const {
        const std::size_t k = at(x, y);
        std::int64_t own = forward_ ? (folded_levels_ ? level_term_[k] : 0) : energy_[k];
        if constexpr (kMasks)
            own += mask_term(protect_[k], remove_[k]) +
                   temporal_term(temporal_[k], temporal_unit_) +
                   (importance_unit_ > 0 ? temporal_term(importance_[k], importance_unit_) : 0);
        const int last = w_ - 1;
        int up = 0, from_left = 0, from_right = 0;
        if (forward_) {
            const Level* in = &intensity_[at(0, y)];
            const int left = in[x > 0 ? x - 1 : 0];
            const int right = in[x < last ? x + 1 : last];
            up = iabs(right - left);
            if (y > 0) {
                const int above = intensity_[at(x, y - 1)];
                from_left = up + iabs(above - left);
                from_right = up + iabs(above - right);
            }
        }
        if (y == 0) return static_cast<Cost>(own + up);
        const Cost* ca = &cost_[at(0, y - 1)];
        std::int64_t best = std::int64_t{ca[x]} + up;
        if (x > 0) best = std::min(best, std::int64_t{ca[x - 1]} + from_left);
        if (x < last) best = std::min(best, std::int64_t{ca[x + 1]} + from_right);
        return static_cast<Cost>(best + own);
    }

    // Recomputes costs of columns lo..hi in row y. With `track`, returns the interval of columns
    // whose cost changed (empty: first > second).
    std::pair<int, int> update_row(const int y, const int lo, const int hi, const bool track) {
        Cost* c = &cost_[at(0, y)];
        Cost* out = scratch_.data();
        int inner_lo = lo, inner_hi = hi + 1;  // [inner_lo, inner_hi): the vectorisable middle
        if constexpr (!kMasks) {
            if (y > 0) {
                inner_lo = std::max(lo, 1);
                inner_hi = std::min(hi + 1, w_ - 1);
                if (inner_lo < inner_hi) {
                    const Level* none = zeros_.data();
                    const Level* own = forward_ ? (folded_levels_ ? &level_term_[at(0, y)] : none)
                                                : &energy_[at(0, y)];
                    cost_span(&cost_[at(0, y - 1)], forward_ ? &intensity_[at(0, y)] : none,
                              forward_ ? &intensity_[at(0, y - 1)] : none, own, out, inner_lo,
                              inner_hi, forward_);
                }
            } else {
                inner_lo = inner_hi = lo;
            }
        } else {
            inner_lo = inner_hi = lo;
        }
        for (int x = lo; x <= hi; ++x) {
            if (x < inner_lo || x >= inner_hi) out[x] = cell_cost(x, y);
        }
        // The changed interval: scan in from both ends (changes usually reach them), then copy
        // the whole span (unchanged values are rewritten as they are).
        int changed_lo = 1, changed_hi = 0;
        if (track) {
            int first = lo;
            while (first <= hi && out[first] == c[first]) ++first;
            if (first <= hi) {
                int last = hi;
                while (out[last] == c[last]) --last;
                changed_lo = first;
                changed_hi = last;
            }
        }
        std::memcpy(c + lo, out + lo, static_cast<std::size_t>(hi - lo + 1) * sizeof(Cost));
        return {changed_lo, changed_hi};
    }

    std::int64_t backtrack(std::vector<int>& seam) const {
        int x = 0;
        const Cost* last = &cost_[at(0, h_ - 1)];
        for (int c = 1; c < w_; ++c) {
            if (last[c] < last[x]) x = c;
        }
        const std::int64_t total = last[x];
        for (int y = h_ - 1; y >= 0; --y) {
            seam[y] = x;
            if (y == 0) break;
            // Re-derive the parent with the reference's rule: left first, strict improvement.
            const int lastx = w_ - 1;
            int up = 0, from_left = 0, from_right = 0;
            if (forward_) {
                const Level* in = &intensity_[at(0, y)];
                const int left = in[x > 0 ? x - 1 : 0];
                const int right = in[x < lastx ? x + 1 : lastx];
                const int above = intensity_[at(x, y - 1)];
                up = iabs(right - left);
                from_left = up + iabs(above - left);
                from_right = up + iabs(above - right);
            }
            const Cost* ca = &cost_[at(0, y - 1)];
            std::int64_t best = 0;
            int best_d = 2;
            for (int d = -1; d <= 1; ++d) {
                if (x + d < 0 || x + d > lastx) continue;
                const std::int64_t c = std::int64_t{ca[x + d]} + (d < 0   ? from_left
                                                                  : d > 0 ? from_right
                                                                          : up);
                if (best_d == 2 || c < best) {
                    best = c;
                    best_d = d;
                }
            }
            x += best_d;
        }
        return total;
    }

    template <class T>
    void shift_row(std::vector<T>& v, const std::size_t row_start, const int b, const int x,
                   const bool left_side) {
        T* data = v.data() + row_start + b;
        if (left_side) {
            std::memmove(data + 1, data, static_cast<std::size_t>(x) * sizeof(T));
        } else {
            std::memmove(data + x, data + x + 1, static_cast<std::size_t>(w_ - 1 - x) * sizeof(T));
        }
    }

    void remove_seam(const std::vector<int>& seam) {
        const auto shift_rows = [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y) {
                const std::size_t start = static_cast<std::size_t>(y) * W_;
                const int x = seam[y];
                const bool left_side = x < w_ / 2;  // move whichever side is shorter
                if (!forward_) {
                    shift_row(img_, start, begin_[y], x, left_side);
                    shift_row(energy_, start, begin_[y], x, left_side);
                } else {
                    shift_row(intensity_, start, begin_[y], x, left_side);
                }
                shift_row(column_, start, begin_[y], x, left_side);
                shift_row(cost_, start, begin_[y], x, left_side);
                if (folded_levels_) shift_row(level_term_, start, begin_[y], x, left_side);
                if constexpr (kMasks) {
                    shift_row(protect_, start, begin_[y], x, left_side);
                    shift_row(remove_, start, begin_[y], x, left_side);
                    shift_row(temporal_, start, begin_[y], x, left_side);
                    if (importance_unit_ > 0)
                        shift_row(importance_, start, begin_[y], x, left_side);
                }
                if (left_side) ++begin_[y];
            }
        };
        if (static_cast<std::int64_t>(w_) * h_ >= 200000)
            parallel_chunks(h_, shift_rows);
        else
            shift_rows(0, h_, 0);
        --w_;
    }

    /// The per-seam term moves from seam `next` − 1's crossing to seam `next`'s: the levels that
    /// can change lie within the cap of either (beyond both they are the cap). Sets them and
    /// widens row y's dirty columns over them.
    void update_seam_levels(const int y, const int next) {
        if constexpr (kMasks) {
            const int a = temporal_seams_->at(next - 1, y), b = temporal_seams_->at(next, y);
            const std::uint16_t* first = &column_[at(0, y)];
            const std::uint16_t* end = first + w_;
            // Original columns increase along a row: the columns whose original position lies
            // in the window are one run.
            const int lo =
                static_cast<int>(std::lower_bound(first, end, std::min(a, b) - kSeamTemporalCap,
                                                  [](const int c, const int v) { return c < v; }) -
                                 first);
            const int hi =
                static_cast<int>(std::upper_bound(first, end, std::max(a, b) + kSeamTemporalCap,
                                                  [](const int v, const int c) { return v < c; }) -
                                 first);
            for (int x = lo; x < hi; ++x) temporal_[at(x, y)] = seam_temporal_level(first[x], b);
            if (lo < hi) {
                dirty_[y].first = std::min(dirty_[y].first, lo);
                dirty_[y].second = std::max(dirty_[y].second, hi - 1);
            }
        }
    }

    void update_after_removal(const std::vector<int>& seam, const int next) {
        // Energies: pixels whose 3x3 neighbourhood changed lie within two columns of the seam in
        // this row or the rows next to it.
        dirty_.resize(h_);
        for (int y = 0; y < h_; ++y) {
            const int a = seam[std::max(y - 1, 0)], b = seam[y], c = seam[std::min(y + 1, h_ - 1)];
            const int lo = std::max(0, std::min({a, b, c}) - 2);
            const int hi = std::min(w_ - 1, std::max({a, b, c}) + 2);
            dirty_[y] = {lo, hi};
            recompute_energy(y, lo, hi);
            if (temporal_seams_) update_seam_levels(y, next);
        }
        // Costs: the dirty columns plus the neighbours of last row's changes.
        int changed_lo = 1, changed_hi = 0;
        for (int y = 0; y < h_; ++y) {
            int lo = dirty_[y].first, hi = dirty_[y].second;
            if (changed_lo <= changed_hi) {
                lo = std::min(lo, std::max(0, changed_lo - 1));
                hi = std::max(hi, std::min(w_ - 1, changed_hi + 1));
            }
            std::tie(changed_lo, changed_hi) = update_row(y, lo, hi, /*track=*/true);
        }
    }

    int W_, h_, w_;
    SeamEnergy energy_kind_;
    bool forward_;
    std::vector<Pixel> img_;
    std::vector<Level> intensity_;  ///< R + G + B, for forward energy
    /// Original column of each remaining pixel: a vertical seam moves pixels only within their
    /// row, so the row is known and 16 bits hold any column (kMaxImageSide is 32768). Half the
    /// memory of a linear index, which at 8K was 133 MB of the carver's peak.
    std::vector<std::uint16_t> column_;
    static_assert(kMaxImageSide <= 65536, "a column must fit 16 bits");
    std::vector<Level> energy_;  ///< per-pixel energy
    std::vector<Cost> cost_;     ///< cumulative cost
    std::vector<Cost> scratch_;
    std::vector<Level> zeros_;       ///< stands in for the unused input of cost_span
    bool folded_levels_ = false;     ///< a level map folded into the energies (32-bit costs)
    std::vector<Level> level_term_;  ///< per pixel: level × unit, shifted with the pixels
    std::vector<std::uint8_t> protect_, remove_, temporal_;
    int temporal_unit_ = 0;
    std::vector<std::uint8_t> importance_;  ///< importance beside a temporal term (64-bit costs)
    int importance_unit_ = 0;
    const SeamPaths* temporal_seams_ = nullptr;  ///< the per-seam term's paths (with a unit)
    std::function<void(int)> wait_for_previous_;
    std::function<void(int, std::vector<int>&)> publish_;
    std::vector<int> crossings_;  ///< the seam just found, in original columns (publish_)
    std::vector<std::pair<int, int>> dirty_;  ///< per row: columns whose energy was recomputed
    std::vector<int> begin_;                  ///< per row: offset of column 0 within its storage
};

}  // namespace

SeamOrder seam_order_fast(const CarveInput& input, const SeamDirection direction, const int seams,
                          const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    const CarveInput levels = detail::importance_as_levels(input);
    return detail::in_direction(levels, direction, seams, [&](const CarveInput& in, const int n) {
        // Without masks every cost fits 32 bits (32768 rows × 7650 at most): half the memory
        // traffic. A small level map alone (importance) folds into the energies and keeps it.
        if (detail::has_pixel_terms(in) && !detail::levels_fold_into_energy(in))
            return FastVerticalCarver<Rgba8, std::int64_t>(in).run(n, progress);
        return FastVerticalCarver<Rgba8, std::int32_t>(in).run(n, progress);
    });
}

namespace {

/// One frame's seams as they are found, for the next frame of a CPU wave: paths filled seam by
/// seam, a count of the seams published, and a failure flag so that no frame waits forever on a
/// frame that threw.
class PublishedPaths {
  public:
    PublishedPaths(const int lines, const int count) {
        paths_.lines = lines;
        paths_.count = count;
        paths_.positions.assign(static_cast<std::size_t>(lines) * count, 0);
    }
    [[nodiscard]] const SeamPaths& paths() const { return paths_; }
    void publish(const int seam, const std::vector<int>& crossings) {
        {
            const std::lock_guard lock(mutex_);
            std::copy(crossings.begin(), crossings.end(),
                      paths_.positions.begin() + static_cast<std::ptrdiff_t>(seam) * paths_.lines);
            ready_ = seam + 1;
        }
        changed_.notify_all();
    }
    void fail() {
        {
            const std::lock_guard lock(mutex_);
            failed_ = true;
        }
        changed_.notify_all();
    }
    void wait_for(const int seam) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return ready_ > seam || failed_; });
        if (ready_ <= seam)
            throw Error(ErrorCode::DeviceError, "the previous frame of the wave failed");
    }

  private:
    SeamPaths paths_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int ready_ = 0;
    bool failed_ = false;
};

}  // namespace

std::vector<SeamOrder> seam_orders_fast_chained(const std::vector<CarveInput>& frames,
                                                const SeamDirection direction, const int seams,
                                                const SeamPaths* first_previous,
                                                const std::vector<bool>& follows,
                                                const int temporal_unit) {
    detail::check_chained_input(frames, direction, seams, first_previous, follows, temporal_unit);
    const std::size_t n = frames.size();
    if (n == 0) return {};
    const auto linked = [&](const std::size_t f) { return follows[f] && temporal_unit > 0; };
    std::vector<CarveInput> inputs(frames);
    for (CarveInput& in : inputs) {
        in.temporal = nullptr;
        in.temporal_seams = nullptr;
        in.temporal_unit = 0;
    }
    const int lines =
        direction == SeamDirection::Vertical ? frames[0].image.height : frames[0].image.width;
    std::vector<std::unique_ptr<PublishedPaths>> published;
    for (std::size_t f = 0; f < n; ++f)
        published.push_back(std::make_unique<PublishedPaths>(lines, std::max(seams, 1)));
    for (std::size_t f = 0; f < n; ++f) {
        if (!linked(f)) continue;
        inputs[f].temporal_seams = f == 0 ? first_previous : &published[f - 1]->paths();
        inputs[f].temporal_unit = temporal_unit;
    }
    std::vector<SeamOrder> orders(n);
    std::vector<std::exception_ptr> errors(n);
    // A thread per frame (not the shared pool: a frame blocks on the one before it, and a pool
    // that ran a later frame first on the thread an earlier one needs would wait forever).
    std::vector<std::thread> threads;
    for (std::size_t f = 0; f < n; ++f) {
        threads.emplace_back([&, f] {
            try {
                const bool waits = linked(f) && f > 0;
                PublishedPaths* previous = waits ? published[f - 1].get() : nullptr;
                PublishedPaths& mine = *published[f];
                if (previous) previous->wait_for(0);  // seam 0's levels
                orders[f] = detail::in_direction(
                    inputs[f], direction, seams, [&](const CarveInput& in, const int count) {
                        const auto carve = [&](auto&& carver) {
                            carver.chain(
                                [previous](const int k) {
                                    if (previous) previous->wait_for(k);
                                },
                                [&mine](const int k, std::vector<int>& crossings) {
                                    mine.publish(k, crossings);
                                });
                            return carver.run(count, {});
                        };
                        if (detail::has_pixel_terms(in))
                            return carve(FastVerticalCarver<Rgba8, std::int64_t>(in));
                        return carve(FastVerticalCarver<Rgba8, std::int32_t>(in));
                    });
            } catch (...) {
                errors[f] = std::current_exception();
                published[f]->fail();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return orders;
}

SeamOrder seam_order_fast(const DeepCarveInput& input, const SeamDirection direction,
                          const int seams, const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(detail::importance_as_levels(input), direction, seams,
                                [&](const DeepCarveInput& in, const int n) {
                                    return FastVerticalCarver<Rgba16, std::int64_t>(in).run(
                                        n, progress);
                                });
}

}  // namespace lacuna::ops
