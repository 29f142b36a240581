// PatchMatch completion on the CPU: thin loops over kernels/patchmatch_terms.h, split over rows
// between threads. Every pass is Jacobi-style (reads one field buffer, writes the other; the vote
// reads only source pixels, which are never hole pixels, and writes only hole pixels), so the
// split and the thread count cannot change a byte, and the CUDA kernels run the same schedule.
#include "factories.hpp"
#include "patchmatch_driver.hpp"

#include <lacuna/core/parallel.hpp>

#include <atomic>
#include <cstring>
#include <limits>

namespace lacuna::ops {
namespace detail {
namespace {

using patchmatch_terms::BasicPmLevel;
using patchmatch_terms::PmDepth16;
using patchmatch_terms::PmDepth8;
using patchmatch_terms::PmLevel;
using patchmatch_terms::PmPass;

/// Calls fn(x, y) for every pixel of the inclusive rectangle, rows split between threads.
template <class Fn>
void for_rect(const int x0, const int y0, const int x1, const int y1, Fn&& fn) {
    if (x1 < x0 || y1 < y0) return;
    parallel_chunks(y1 - y0 + 1, [&](const int begin, const int end, int) {
        for (int y = y0 + begin; y < y0 + end; ++y)
            for (int x = x0; x <= x1; ++x) fn(x, y);
    });
}

template <class D, class Fn>
void for_level(const BasicPmLevel<D>& l, Fn&& fn) {
    for_rect(0, 0, l.width - 1, l.height - 1, std::forward<Fn>(fn));
}

template <class D, class Fn>
void for_box(const BasicPmLevel<D>& l, Fn&& fn) {
    for_rect(l.box_x0, l.box_y0, l.box_x1, l.box_y1, std::forward<Fn>(fn));
}

/// One level's memory, left uninitialised (make_unique_for_overwrite): every array is written
/// before it is read, the fields only inside the target box, and untouched pages cost nothing.
template <class D>
struct LevelStore {
    std::size_t size = 0;
    std::unique_ptr<typename D::Color[]> color;
    std::unique_ptr<typename D::Tex[]> texture;
    std::unique_ptr<std::uint8_t[]> hole, forbid, valid;
    std::unique_ptr<std::int32_t[]> nnf[2];
    std::unique_ptr<typename D::Dist[]> dist[2];
    std::unique_ptr<typename D::Grad[]> grad_x, grad_y;

    BasicPmLevel<D> allocate(const int w, const int h, const std::uint32_t grad_weight) {
        size = static_cast<std::size_t>(w) * h;
        color = std::make_unique_for_overwrite<typename D::Color[]>(size);
        texture = std::make_unique_for_overwrite<typename D::Tex[]>(size);
        hole = std::make_unique_for_overwrite<std::uint8_t[]>(size);
        forbid = std::make_unique_for_overwrite<std::uint8_t[]>(size);
        valid = std::make_unique_for_overwrite<std::uint8_t[]>(size);
        for (int b = 0; b < 2; ++b) {
            nnf[b] = std::make_unique_for_overwrite<std::int32_t[]>(size);
            dist[b] = std::make_unique_for_overwrite<typename D::Dist[]>(size);
        }
        BasicPmLevel<D> l;
        l.width = w;
        l.height = h;
        l.color = color.get();
        l.texture = texture.get();
        l.hole = hole.get();
        l.forbid = forbid.get();
        l.valid = valid.get();
        for (int b = 0; b < 2; ++b) {
            l.nnf[b] = nnf[b].get();
            l.dist[b] = dist[b].get();
        }
        if (grad_weight != 0) {
            grad_x = std::make_unique_for_overwrite<typename D::Grad[]>(size);
            grad_y = std::make_unique_for_overwrite<typename D::Grad[]>(size);
            l.grad_x = grad_x.get();
            l.grad_y = grad_y.get();
            l.grad_weight = grad_weight;
        }
        return l;
    }
};

/// A level's field buffer `b` over its target box.
template <class D>
PatchMatchField field_of(const BasicPmLevel<D>& l, const int level, const int b) {
    PatchMatchField f{level, l.width, l.height,       {l.box_x0, l.box_y0, l.box_x1, l.box_y1},
                      {},    {},      depth_bits<D>()};
    f.gradient_weight = l.grad_weight;
    if (l.box_x1 < l.box_x0 || l.box_y1 < l.box_y0) return f;
    const int bw = f.box_width();
    f.nnf.resize(static_cast<std::size_t>(bw) * (l.box_y1 - l.box_y0 + 1));
    f.dist.resize(f.nnf.size());
    for (int y = l.box_y0; y <= l.box_y1; ++y)
        for (int x = l.box_x0; x <= l.box_x1; ++x) {
            const auto i = static_cast<std::size_t>(y) * l.width + x;
            const auto o = static_cast<std::size_t>(y - l.box_y0) * bw + (x - l.box_x0);
            f.nnf[o] = l.nnf[b][i];
            f.dist[o] = l.dist[b][i];
        }
    return f;
}

/// Scratch for the setup passes, uninitialised and reused: 3 bytes a pixel of level 0 at 8 bits
/// (the gradient shares the bytes), 8 at 16 bits.
template <class D>
struct SetupScratch {
    using Tex = typename D::Tex;
    std::unique_ptr<std::uint8_t[]> bytes;
    std::unique_ptr<Tex[]> wide;  ///< the gradient, where it does not fit the bytes
    std::unique_ptr<typename D::RowSum[]> rows;
    explicit SetupScratch(const std::size_t n)
        : bytes(std::make_unique_for_overwrite<std::uint8_t[]>(n)),
          rows(std::make_unique_for_overwrite<typename D::RowSum[]>(n)) {
        if constexpr (!std::is_same_v<Tex, std::uint8_t>)
            wide = std::make_unique_for_overwrite<Tex[]>(n);
    }
    [[nodiscard]] Tex* gradient() {
        if constexpr (std::is_same_v<Tex, std::uint8_t>)
            return bytes.get();
        else
            return wide.get();
    }
};

/// The texture channel: the gradient, then the window mean in two separable passes (the same
/// values as pm_texture).
template <class D>
void compute_texture(const BasicPmLevel<D>& l, SetupScratch<D>& scratch) {
    using Tex = typename D::Tex;
    Tex* gradient = scratch.gradient();
    typename D::RowSum* rows = scratch.rows.get();
    const int w = l.width;
    parallel_chunks(l.height, [&](const int begin, const int end, int) {
        for (int y = begin; y < end; ++y) {
            Tex* g = gradient + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) g[x] = patchmatch_terms::pm_gradient(l, x, y);
        }
    });
    parallel_chunks(l.height, [&](const int begin, const int end, int) {
        for (int y = begin; y < end; ++y) {
            typename D::RowSum* out = rows + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x)
                out[x] = patchmatch_terms::pm_texture_row<D>(gradient, w, x, y);
        }
    });
    parallel_chunks(l.height, [&](const int begin, const int end, int) {
        for (int y = begin; y < end; ++y) {
            Tex* out = l.texture + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x)
                out[x] = patchmatch_terms::pm_texture_col<D>(rows, w, l.height, x, y);
        }
    });
}

/// PatchMatch at depth D. At 8 bits it decides on the problem's image; at 16 bits on a decision
/// image of the problem's size (a measurement's deep_carving_proxy), and image() shows the
/// estimate in the hole at 8 bits (each channel / 257, rounded) over the problem's image.
template <class D>
class CpuPatchMatch final : public PatchMatchDriver<Inpainter> {
  public:
    using Color = typename D::Color;
    using Level = BasicPmLevel<D>;

    CpuPatchMatch(InpaintProblem problem, Image<Color> decision)
        : PatchMatchDriver(std::move(problem)) {
        if (problem_.hole_pixels == 0) {
            set_levels(0);
            return;
        }
        if constexpr (std::is_same_v<D, PmDepth8>) {
            build(decision.empty() ? problem_.image.view() : decision.view());
        } else {
            check_decision_size(decision.width(), decision.height(), problem_);
            build(decision.view());
        }
    }

    [[nodiscard]] ImageRgba8 image() const override {
        ImageRgba8 out = clone(problem_.image.view());
        if (problem_.hole_pixels == 0) return out;
        // Only hole pixels change, and they all lie in the hole's box.
        const SearchRect& box = problem_.hole_box;
        const int w = problem_.image.width();
        const ImageView<Rgba8> dst = out.view();
        const Level& l0 = levels_[0];
        for (int y = box.y0; y <= box.y1; ++y) {
            const std::size_t o = static_cast<std::size_t>(y) * w;
            if constexpr (std::is_same_v<D, PmDepth8>) {
                std::memcpy(dst.row(y) + box.x0, l0.color + o + box.x0,
                            static_cast<std::size_t>(box.x1 - box.x0 + 1) * sizeof(Rgba8));
            } else {
                for (int x = box.x0; x <= box.x1; ++x)
                    if (l0.hole[o + x])
                        dst.row(y)[x] = patchmatch_terms::pm_to_rgba8(l0.color[o + x]);
            }
        }
        return out;
    }

    [[nodiscard]] std::optional<PatchMatchField> field() const override {
        if (!started()) return std::nullopt;
        const int level = current_level();
        const Level& l = levels_[static_cast<std::size_t>(level)];
        const int b = buffer_[static_cast<std::size_t>(level)];
        return field_of(l, level, b);
    }

  private:
    void build(const ImageView<const Color> image) {
        const int r = problem_.radius;
        const int w = problem_.image.width();
        const int h = problem_.image.height();
        const std::vector<PmShape> shapes = pyramid_shapes(problem_);
        store_.resize(shapes.size());
        levels_.resize(shapes.size());
        buffer_.assign(shapes.size(), 0);
        // The gradient channels from kGradientMinLevel up, where the hole lies in fine texture.
        const std::uint32_t grad_weight = gradient_weight_for(problem_);
        for (std::size_t i = 0; i < shapes.size(); ++i)
            levels_[i] = store_[i].allocate(
                shapes[i].width, shapes[i].height,
                static_cast<int>(i) >= patchmatch_terms::kGradientMinLevel ? grad_weight : 0U);

        Level& l0 = levels_[0];
        // Level 0 from the decision image and the problem's masks, row by row straight into the
        // level's arrays (masks as 0/1).
        const MaskView hole = problem_.hole.view();
        const MaskView valid = problem_.valid_source.view();
        parallel_chunks(h, [&](const int begin, const int end, int) {
            for (int y = begin; y < end; ++y) {
                const std::size_t o = static_cast<std::size_t>(y) * w;
                std::memcpy(l0.color + o, image.row(y),
                            static_cast<std::size_t>(w) * sizeof(Color));
                const std::uint8_t* hr = hole.row(y);
                const std::uint8_t* vr = valid.row(y);
                for (int x = 0; x < w; ++x) {
                    l0.hole[o + x] = hr[x] != 0 ? 1 : 0;
                    l0.valid[o + x] = vr[x] != 0 ? 1 : 0;
                }
            }
        });
        SetupScratch<D> scratch(static_cast<std::size_t>(w) * h);
        compute_texture(l0, scratch);
        std::uint8_t* row_any = scratch.bytes.get();
        for_level(l0, [&](const int x, const int y) {
            row_any[static_cast<std::size_t>(y) * w + x] =
                patchmatch_terms::pm_row_any(l0.valid, w, x, y, r);
        });
        for_level(l0, [&](const int x, const int y) {
            patchmatch_terms::pm_forbid0_pixel(l0, row_any, r, x, y);
        });
        for (std::size_t i = 1; i < levels_.size(); ++i) {
            const Level& fine = levels_[i - 1];
            const Level& l = levels_[i];
            for_level(l, [&](const int x, const int y) {
                patchmatch_terms::pm_downsample_pixel(fine, l, x, y);
            });
            for_level(l, [&](const int x, const int y) {
                row_any[static_cast<std::size_t>(y) * l.width + x] =
                    patchmatch_terms::pm_row_any(l.forbid, l.width, x, y, r);
            });
            for_level(l, [&](const int x, const int y) {
                patchmatch_terms::pm_valid_pixel(l, row_any, r, x, y);
            });
        }
        // Usable levels: down to the first without any valid source centre.
        int usable = 0;
        for (std::size_t i = 0; i < levels_.size(); ++i) {
            Level& l = levels_[i];
            const std::uint8_t* valid = store_[i].valid.get();
            const std::uint8_t* end = valid + store_[i].size;
            const std::uint8_t* first = std::find(valid, end, std::uint8_t{1});
            if (first == end) break;
            l.fallback = static_cast<std::int32_t>(first - valid);
            set_target_box(l, hole_box_at(problem_, static_cast<int>(i)), r);
            ++usable;
        }
        set_levels(usable);
    }

    void start_level(const int level) override {
        const int r = problem_.radius;
        const Level& l = levels_[static_cast<std::size_t>(level)];
        buffer_[static_cast<std::size_t>(level)] = 0;
        if (level == levels() - 1) {
            diffuse_texture(level);
            onion(level);
            for_box(l, [&](const int x, const int y) {
                patchmatch_terms::pm_init_pixel(l, r, problem_.seed, level, x, y);
            });
            refresh_gradients(l, 0, 0, l.width - 1, l.height - 1);
            return;
        }
        const Level& coarse = levels_[static_cast<std::size_t>(level) + 1];
        const int coarse_buf = buffer_[static_cast<std::size_t>(level) + 1];
        for_box(l, [&](const int x, const int y) {
            patchmatch_terms::pm_upsample_pixel(l, coarse, coarse_buf, r, problem_.seed, level,
                                                !patchmatch_terms::pm_votes_texture(level), x, y);
        });
        refresh_gradients(l, 0, 0, l.width - 1, l.height - 1);
        vote(level, winner_take_all(level, 0));
    }

    void iterate(const int level, const int iteration, const bool wta) override {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        int& cur = buffer_[static_cast<std::size_t>(level)];
        for (const int step : patchmatch_terms::kJumpSteps) {
            PmPass pass;
            pass.src = cur;
            pass.dst = 1 - cur;
            pass.radius = problem_.radius;
            pass.step = step;
            pass.recompute = step == patchmatch_terms::kJumpSteps[0];
            pass.random = step == 1;
            // Global random search at the coarsest level, local refinement below it.
            pass.span = level == levels() - 1
                            ? std::max(l.width, l.height)
                            : std::min(std::max(l.width, l.height), patchmatch_terms::kRefineSpan);
            pass.seed = problem_.seed;
            pass.level = level;
            pass.iteration = iteration;
            for_box(l, [&](const int x, const int y) {
                patchmatch_terms::pm_pass_pixel(l, pass, x, y);
            });
            cur = 1 - cur;
        }
        vote(level, wta);
    }

    void show(const int level) override {
        const SearchRect box = hole_box_at(problem_, 0);
        const Level& fine = levels_[0];
        const Level& coarse = levels_[static_cast<std::size_t>(level)];
        for_rect(box.x0, box.y0, box.x1, box.y1, [&](const int x, const int y) {
            patchmatch_terms::pm_compose_pixel(fine, coarse, level, x, y);
        });
    }

    void vote(const int level, const bool wta) {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        const int buf = buffer_[static_cast<std::size_t>(level)];
        const SearchRect box = hole_box_at(problem_, level);
        for_rect(box.x0, box.y0, box.x1, box.y1, [&](const int x, const int y) {
            patchmatch_terms::pm_vote_pixel(l, buf, problem_.radius, wta,
                                            patchmatch_terms::pm_votes_texture(level), x, y);
        });
        // The vote changed the hole only: its gradients, and those of its 4-neighbours.
        refresh_gradients(l, box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1);
    }

    /// The gradient channels over a rectangle (clipped to the level), where they are used.
    static void refresh_gradients(const Level& l, const int x0, const int y0, const int x1,
                                  const int y1) {
        if (l.grad_weight == 0) return;
        for_rect(
            std::max(x0, 0), std::max(y0, 0), std::min(x1, l.width - 1), std::min(y1, l.height - 1),
            [&](const int x, const int y) { patchmatch_terms::pm_gradient_xy_pixel(l, x, y); });
    }

    /// 1 where the level's pixel is known (not hole): the start of the onion peel and diffusion.
    static std::vector<std::uint8_t> known_pixels(const Level& l) {
        std::vector<std::uint8_t> known(static_cast<std::size_t>(l.width) * l.height);
        for (std::size_t i = 0; i < known.size(); ++i) known[i] = l.hole[i] ? 0 : 1;
        return known;
    }

    /// The coarsest hole's colour and field by the onion peel: layers of Jacobi steps over
    /// double-buffered known masks, until a layer fills nothing.
    void onion(const int level) {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        std::vector<std::uint8_t> known[2] = {known_pixels(l), known_pixels(l)};
        const SearchRect box = hole_box_at(problem_, level);
        const int layers =
            patchmatch_terms::pm_onion_layers(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1);
        int cur = 0;
        for (int layer = 0; layer < layers; ++layer) {
            std::atomic<bool> filled{false};
            for_rect(box.x0, box.y0, box.x1, box.y1, [&](const int x, const int y) {
                if (patchmatch_terms::pm_onion_pixel(l, known[cur].data(), known[1 - cur].data(),
                                                     problem_.radius, problem_.seed, level, layer,
                                                     x, y))
                    filled.store(true, std::memory_order_relaxed);
            });
            cur = 1 - cur;
            if (!filled.load()) break;
        }
    }

    /// The coarsest hole's texture channel, diffused in from its border (double-buffered Jacobi
    /// steps); the diffused colour is dropped.
    void diffuse_texture(const int level) {
        const Level& l = levels_[static_cast<std::size_t>(level)];
        const auto n = static_cast<std::size_t>(l.width) * l.height;
        std::vector<Color> color[2] = {{l.color, l.color + n}, {l.color, l.color + n}};
        std::vector<typename D::Tex> tex[2] = {{l.texture, l.texture + n},
                                               {l.texture, l.texture + n}};
        std::vector<std::uint8_t> known[2] = {known_pixels(l), known_pixels(l)};
        const SearchRect box = hole_box_at(problem_, level);
        const int steps =
            patchmatch_terms::pm_diffusion_steps(box.x1 - box.x0 + 1, box.y1 - box.y0 + 1);
        int cur = 0;
        for (int s = 0; s < steps; ++s) {
            for_rect(box.x0, box.y0, box.x1, box.y1, [&](const int x, const int y) {
                patchmatch_terms::pm_diffuse_pixel(
                    l, color[cur].data(), tex[cur].data(), known[cur].data(), color[1 - cur].data(),
                    tex[1 - cur].data(), known[1 - cur].data(), x, y);
            });
            cur = 1 - cur;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (l.hole[i]) l.texture[i] = tex[cur][i];
    }

    std::vector<LevelStore<D>> store_;
    std::vector<Level> levels_;
    std::vector<int> buffer_;  ///< per level: the field buffer holding the current field
};

}  // namespace

std::unique_ptr<Inpainter> make_patchmatch_inpainter(InpaintProblem problem) {
    return std::make_unique<CpuPatchMatch<PmDepth8>>(std::move(problem), ImageRgba8());
}

std::unique_ptr<Inpainter> make_deep_patchmatch_cpu_inpainter(InpaintProblem problem,
                                                              Image<Rgba16> decision) {
    return std::make_unique<CpuPatchMatch<PmDepth16>>(std::move(problem), std::move(decision));
}

}  // namespace detail

std::optional<PatchMatchField> patchmatch_field(const Inpainter& inpainter) {
    const auto* source = dynamic_cast<const detail::PatchMatchFieldSource*>(&inpainter);
    if (source == nullptr) return std::nullopt;
    return source->field();
}

std::optional<PatchMatchStage> patchmatch_stage(const Inpainter& inpainter) {
    const auto* source = dynamic_cast<const detail::PatchMatchFieldSource*>(&inpainter);
    if (source == nullptr) return std::nullopt;
    return source->stage();
}

FillSources empty_sources(const int width, const int height) {
    return {width, height, {width, height, -1, -1}, {}};
}

FillSources patchmatch_sources(const PatchMatchField& field, const Mask& hole, const int radius) {
    if (field.level != 0)
        throw Error(ErrorCode::InvalidArgument, "the fill has not reached full size yet");
    if (field.width != hole.width() || field.height != hole.height())
        throw Error(ErrorCode::InvalidArgument, "the field and the hole differ in size");
    if (field.depth != 8 && field.depth != 16)
        throw Error(ErrorCode::InvalidArgument, "the field's depth must be 8 or 16 bits");
    // The vote's weight at the field's depth (the distances are that depth's).
    const auto weight = [&](const std::uint64_t d) {
        return field.depth == 8
                   ? patchmatch_terms::pm_weight<patchmatch_terms::PmDepth8>(
                         static_cast<std::uint32_t>(d), radius)
                   : patchmatch_terms::pm_weight<patchmatch_terms::PmDepth16>(d, radius);
    };
    const int w = field.width;
    FillSources out{field.width, field.height, {w, field.height, -1, -1}, {}};
    // Hole pixels lie inside the target box (the hole's box grown by the radius).
    const SearchRect& fb = field.box;
    for (int y = std::max(fb.y0, 0); y <= fb.y1; ++y)
        for (int x = std::max(fb.x0, 0); x <= fb.x1; ++x)
            if (hole.at(x, y) != 0)
                out.box = {std::min(out.box.x0, x), std::min(out.box.y0, y),
                           std::max(out.box.x1, x), std::max(out.box.y1, y)};
    if (out.empty()) return out;
    const int bw = out.box.x1 - out.box.x0 + 1;
    out.index.assign(static_cast<std::size_t>(bw) * (out.box.y1 - out.box.y0 + 1), -1);
    // pm_vote_pixel's winner-take-all rule: the proposal of greatest weight, first in the scan
    // order of the offsets on ties.
    for (int y = out.box.y0; y <= out.box.y1; ++y)
        for (int x = out.box.x0; x <= out.box.x1; ++x) {
            if (hole.at(x, y) == 0) continue;
            std::uint32_t best_w = 0;
            std::uint64_t best_d = 0;
            long long best_at = -1;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx) {
                    const int cx = x - dx, cy = y - dy;
                    const std::int32_t q = field.source_at(cx, cy);
                    if (q < 0) continue;
                    const std::uint64_t d =
                        field.dist[static_cast<std::size_t>(cy - fb.y0) * field.box_width() +
                                   (cx - fb.x0)];
                    if (best_at >= 0 && d >= best_d) continue;
                    const std::uint32_t wt = weight(d);
                    if (wt > best_w) {
                        best_w = wt;
                        best_d = d;
                        best_at = static_cast<long long>(q / w + dy) * w + (q % w + dx);
                    }
                }
            out.index[static_cast<std::size_t>(y - out.box.y0) * bw + (x - out.box.x0)] =
                static_cast<std::int32_t>(best_at);
        }
    return out;
}

NativeImage fill_region_from_sources(const NativeImage& samples, const FillSources& sources,
                                     const PixelRect& rect) {
    if (sources.width != samples.width() || sources.height != samples.height())
        throw Error(ErrorCode::InvalidArgument, "the sources do not match the image");
    const SearchRect& b = sources.box;
    const int bw = b.x1 - b.x0 + 1;
    if (b.x1 >= b.x0 &&
        (b.x0 < 0 || b.y0 < 0 || b.x1 >= samples.width() || b.y1 >= samples.height() ||
         sources.index.size() != static_cast<std::size_t>(bw) * (b.y1 - b.y0 + 1)))
        throw Error(ErrorCode::InvalidArgument, "the sources do not match the image");
    NativeImage out = copy_region(samples, rect);
    const std::size_t bpp = samples.format().bytes_per_pixel();
    const int w = samples.width();
    const std::size_t n = static_cast<std::size_t>(w) * samples.height();
    for (int y = std::max(b.y0, rect.y0); y <= std::min(b.y1, rect.y1); ++y)
        for (int x = std::max(b.x0, rect.x0); x <= std::min(b.x1, rect.x1); ++x) {
            const std::int32_t s =
                sources.index[static_cast<std::size_t>(y - b.y0) * bw + (x - b.x0)];
            if (s < 0) continue;
            if (static_cast<std::size_t>(s) >= n)
                throw Error(ErrorCode::InvalidArgument, "a source lies outside the image");
            std::memcpy(out.row(y - rect.y0) + bpp * (x - rect.x0),
                        samples.row(s / w) + bpp * (s % w), bpp);
        }
    return out;
}

NativeImage fill_from_sources(const NativeImage& samples, const FillSources& sources) {
    return fill_region_from_sources(samples, sources,
                                    {0, 0, samples.width() - 1, samples.height() - 1});
}

Mask patchmatch_texture(const ImageRgba8& image, const Mask& hole) {
    check_mask_size(hole.view(), image.width(), image.height(), "the hole");
    std::vector<Rgba8> color = to_dense(image.view());
    std::vector<std::uint8_t> holes = to_dense(hole.view());
    std::vector<std::uint8_t> texture(holes.size());
    for (auto& v : holes) v = v != 0 ? 1 : 0;
    patchmatch_terms::PmLevel l;
    l.width = image.width();
    l.height = image.height();
    l.color = color.data();
    l.hole = holes.data();
    l.texture = texture.data();
    detail::SetupScratch<patchmatch_terms::PmDepth8> scratch(holes.size());
    detail::compute_texture(l, scratch);
    return from_dense(texture, image.width(), image.height());
}

PatchMatchIteration patchmatch_reference_iteration(const ImageRgba8& estimate, const Mask& texture,
                                                   const Mask& hole, const Mask& valid,
                                                   const int radius, const bool winner_take_all) {
    const int w = estimate.width();
    const int h = estimate.height();
    check_mask_size(texture.view(), w, h, "the texture");
    check_mask_size(hole.view(), w, h, "the hole");
    check_mask_size(valid.view(), w, h, "the valid sources");
    std::vector<Rgba8> color = to_dense(estimate.view());
    std::vector<std::uint8_t> tex = to_dense(texture.view());
    std::vector<std::uint8_t> holes = to_dense(hole.view());
    std::vector<std::uint8_t> valids = to_dense(valid.view());
    for (auto& v : holes) v = v != 0 ? 1 : 0;
    for (auto& v : valids) v = v != 0 ? 1 : 0;
    std::vector<std::int32_t> nnf(color.size(), -1);
    std::vector<std::uint32_t> dist(color.size(), 0);
    patchmatch_terms::PmLevel l;
    l.width = w;
    l.height = h;
    l.color = color.data();
    l.texture = tex.data();
    l.hole = holes.data();
    l.valid = valids.data();
    l.nnf[0] = nnf.data();
    l.dist[0] = dist.data();
    SearchRect box{w, h, -1, -1};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (hole.at(x, y))
                box = {std::min(box.x0, x), std::min(box.y0, y), std::max(box.x1, x),
                       std::max(box.y1, y)};
    if (box.x1 >= 0) detail::set_target_box(l, box, radius);
    // Exhaustive search, one target at a time, candidates in scan order.
    for (int y = l.box_y0; y <= l.box_y1; ++y)
        for (int x = l.box_x0; x <= l.box_x1; ++x) {
            const std::size_t p = static_cast<std::size_t>(y) * w + x;
            if (!patchmatch_terms::pm_is_target(l, x, y, radius)) continue;
            std::int32_t best = -1;
            std::uint32_t best_d = std::numeric_limits<std::uint32_t>::max();
            for (int sy = 0; sy < h; ++sy)
                for (int sx = 0; sx < w; ++sx) {
                    if (!patchmatch_terms::pm_candidate_ok(l, sx, sy, radius)) continue;
                    const std::uint32_t d =
                        patchmatch_terms::pm_distance(l, x, y, sx, sy, radius, best_d);
                    if (d < best_d || best < 0) best = sy * w + sx, best_d = d;
                }
            nnf[p] = best;
            dist[p] = best < 0 ? 0 : best_d;
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            patchmatch_terms::pm_vote_pixel(l, 0, radius, winner_take_all, true, x, y);
    PatchMatchIteration out;
    out.nnf = std::move(nnf);
    out.dist = std::move(dist);
    out.image = from_dense(color, w, h);
    out.texture = from_dense(tex, w, h);
    return out;
}

}  // namespace lacuna::ops
