// The fast CPU carver. Same seams as the reference, found with less work:
// - energies are kept and recomputed only next to the removed seam;
// - the cumulative-cost map is kept and updated incrementally: row by row, only the columns whose
//   inputs changed are recomputed, and the changed interval is carried down (it stays narrow);
// - removing a seam shifts the shorter side of each row (rows have their own start offsets), and
//   the rows are shifted in parallel.
#include "carve_state.hpp"

#include <lacuna/core/parallel.hpp>

#include <algorithm>
#include <cstring>

namespace lacuna::ops {
namespace {

class FastVerticalCarver {
public:
    FastVerticalCarver(const CarveInput& in) : W_(in.image.width), h_(in.image.height), w_(W_), energy_kind_(in.energy) {
        const std::size_t n = static_cast<std::size_t>(W_) * h_;
        img_.resize(n);
        index_.resize(n);
        energy_.resize(n);
        cost_.resize(n);
        begin_.assign(h_, 0);
        has_masks_ = in.protect || in.remove;
        if (has_masks_) {
            protect_.assign(n, 0);
            remove_.assign(n, 0);
        }
        for (int y = 0; y < h_; ++y) {
            const std::size_t base = static_cast<std::size_t>(y) * W_;
            std::memcpy(&img_[base], in.image.row(y), static_cast<std::size_t>(W_) * sizeof(Rgba8));
            for (int x = 0; x < W_; ++x) {
                index_[base + x] = static_cast<std::int32_t>(base + x);
                if (in.protect) protect_[base + x] = in.protect->at(x, y);
                if (in.remove) remove_[base + x] = in.remove->at(x, y);
            }
        }
        parallel_chunks(h_, [&](const int y0, const int y1, int) {
            for (int y = y0; y < y1; ++y) recompute_energy(y, 0, w_ - 1);
        });
        for (int y = 0; y < h_; ++y) {
            for (int x = 0; x < w_; ++x) cost_at(x, y) = compute_cost(x, y);
        }
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
            if (progress && s % 16 == 0 && !progress(s, seams)) throw Error(ErrorCode::Cancelled, "seam carving cancelled");
            result.costs.push_back(backtrack(seam));
            std::int32_t crossed_protect = 0, crossed_remove = 0;
            for (int y = 0; y < h_; ++y) {
                const std::size_t k = at(seam[y], y);
                const std::int32_t original = index_[k];
                result.order.at(original % W_, original / W_) = s;
                if (has_masks_) {
                    crossed_protect += protect_[k] != 0;
                    crossed_remove += remove_[k] != 0;
                }
            }
            result.protected_crossed.push_back(crossed_protect);
            result.remove_crossed.push_back(crossed_remove);
            remove_seam(seam);
            if (s + 1 < seams) update_after_removal(seam);
        }
        if (progress) progress(seams, seams);
        return result;
    }

private:
    [[nodiscard]] std::size_t at(const int x, const int y) const {
        return static_cast<std::size_t>(y) * W_ + static_cast<std::size_t>(begin_[y] + x);
    }
    std::int64_t& cost_at(const int x, const int y) { return cost_[at(x, y)]; }
    [[nodiscard]] const Rgba8* row(const int y) const { return &img_[at(0, y)]; }

    void recompute_energy(const int y, const int lo, const int hi) {
        const auto row_fn = [this](const int yy) { return row(yy); };
        const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
        for (int x = lo; x <= hi; ++x) energy_[at(x, y)] = pixel_energy(pixels, energy_kind_, x, y);
    }

    [[nodiscard]] std::int64_t own(const int x, const int y) const {
        const std::size_t k = at(x, y);
        return energy_[k] + (has_masks_ ? mask_term(protect_[k], remove_[k]) : 0);
    }

    // The reference's recurrence for one cell, with the parent choice made left first.
    std::int64_t compute_cost(const int x, const int y) const {
        const auto row_fn = [this](const int yy) { return row(yy); };
        const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
        const bool forward = energy_kind_ == SeamEnergy::Forward;
        if (y == 0) return own(x, 0) + (forward ? forward_cost(pixels, x, 0, 0) : 0);
        std::int64_t best = 0;
        bool found = false;
        for (int d = -1; d <= 1; ++d) {
            if (x + d < 0 || x + d >= w_) continue;
            const std::int64_t c = cost_[at(x + d, y - 1)] + (forward ? forward_cost(pixels, x, y, d) : 0);
            if (!found || c < best) {
                best = c;
                found = true;
            }
        }
        return best + own(x, y);
    }

    std::int64_t backtrack(std::vector<int>& seam) const {
        const auto row_fn = [this](const int yy) { return row(yy); };
        const ClampedRgb<decltype(row_fn)> pixels{row_fn, w_, h_};
        const bool forward = energy_kind_ == SeamEnergy::Forward;
        int x = 0;
        const std::int64_t* last = &cost_[at(0, h_ - 1)];
        for (int c = 1; c < w_; ++c) {
            if (last[c] < last[x]) x = c;
        }
        const std::int64_t total = last[x];
        for (int y = h_ - 1; y >= 0; --y) {
            seam[y] = x;
            if (y == 0) break;
            std::int64_t best = 0;
            int best_d = 2;
            for (int d = -1; d <= 1; ++d) {
                if (x + d < 0 || x + d >= w_) continue;
                const std::int64_t c = cost_[at(x + d, y - 1)] + (forward ? forward_cost(pixels, x, y, d) : 0);
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
    void shift_row(std::vector<T>& v, const std::size_t row_start, const int b, const int x, const bool left_side) {
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
                shift_row(img_, start, begin_[y], x, left_side);
                shift_row(index_, start, begin_[y], x, left_side);
                shift_row(energy_, start, begin_[y], x, left_side);
                shift_row(cost_, start, begin_[y], x, left_side);
                if (has_masks_) {
                    shift_row(protect_, start, begin_[y], x, left_side);
                    shift_row(remove_, start, begin_[y], x, left_side);
                }
                if (left_side) ++begin_[y];
            }
        };
        if (static_cast<std::int64_t>(w_) * h_ >= 200000) parallel_chunks(h_, shift_rows);
        else shift_rows(0, h_, 0);
        --w_;
    }

    void update_after_removal(const std::vector<int>& seam) {
        // Energies: pixels whose 3x3 neighbourhood changed lie within two columns of the seam in
        // this row or the rows next to it.
        std::vector<std::pair<int, int>> dirty(h_);
        for (int y = 0; y < h_; ++y) {
            const int a = seam[std::max(y - 1, 0)], b = seam[y], c = seam[std::min(y + 1, h_ - 1)];
            const int lo = std::max(0, std::min({a, b, c}) - 2);
            const int hi = std::min(w_ - 1, std::max({a, b, c}) + 2);
            dirty[y] = {lo, hi};
            if (energy_kind_ != SeamEnergy::Forward) recompute_energy(y, lo, hi);
        }
        // Costs: recompute the dirty columns plus the neighbours of last row's changes; carry
        // down only the interval that actually changed.
        int changed_lo = 1, changed_hi = 0;  // empty
        for (int y = 0; y < h_; ++y) {
            int lo = dirty[y].first, hi = dirty[y].second;
            if (changed_lo <= changed_hi) {
                lo = std::min(lo, std::max(0, changed_lo - 1));
                hi = std::max(hi, std::min(w_ - 1, changed_hi + 1));
            }
            changed_lo = 1;
            changed_hi = 0;
            for (int x = lo; x <= hi; ++x) {
                const std::int64_t value = compute_cost(x, y);
                std::int64_t& stored = cost_at(x, y);
                if (value != stored) {
                    stored = value;
                    if (changed_lo > changed_hi) changed_lo = x;
                    changed_hi = x;
                }
            }
        }
    }

    int W_, h_, w_;
    SeamEnergy energy_kind_;
    bool has_masks_ = false;
    std::vector<Rgba8> img_;
    std::vector<std::int32_t> index_;
    std::vector<std::int32_t> energy_;
    std::vector<std::int64_t> cost_;
    std::vector<std::uint8_t> protect_, remove_;
    std::vector<int> begin_;  ///< per row: offset of column 0 within the row's storage
};

}  // namespace

SeamOrder seam_order_fast(const CarveInput& input, const SeamDirection direction, const int seams,
                          const CarveProgress& progress) {
    detail::check_carve_input(input, direction, seams);
    return detail::in_direction(input, direction, seams, [&](const CarveInput& in, const int n) {
        return FastVerticalCarver(in).run(n, progress);
    });
}

}  // namespace lacuna::ops
