// A measurement's fill from start to end (the command line's path; the editor's Remove Object
// panel runs the same steps batch by batch): with lines, bands decided on the proxy and their
// copies' samples moved first; then decided on every bit, stored samples moved, then blended in
// their own values; on a small hole, each region then keeps Criminisi's sources where
// the 8-bit path would keep Criminisi's pixels, and the blobs of foreign colours the 8-bit path
// fills again take the refill's sources; last, the blend's corrections are kept to the ring's
// proxy colours (keep_ring_colours) in the samples the choice and the refill left blended.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/inpaint_choice.hpp>
#include <lacuna/ops/inpaint_refill.hpp>
#include <lacuna/ops/inpaint_structure.hpp>
#include <lacuna/ops/patchmatch.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <optional>

namespace lacuna::ops {

NativeInpaintResult inpaint(const NativeImage& samples, const Mask& mask,
                            const InpaintParams& params, const InpaintImplementation implementation,
                            const InpaintProgressCallback& progress) {
    if (params.method != InpaintMethod::PatchMatch)
        throw Error(ErrorCode::InvalidArgument,
                    "this image holds " + describe(samples.format()) +
                        " samples: they are filled by PatchMatch, which decides on every bit of "
                        "them and moves them from its sources; Criminisi alone would choose its "
                        "patches on the 8-bit view (use --method patchmatch, which still takes "
                        "Criminisi's fill per region where it wins, or convert to an 8-bit photo "
                        "first)");
    // The hole, the valid sources and the coarse levels come from the 8-bit proxy; every
    // distance and vote from the 16-bit decision image of the same range.
    const CarvingProxy proxy = carving_proxy(samples);
    InpaintProblem problem = prepare_inpaint(proxy.image.view(), mask, params);
    const Mask hole = clone(problem.hole.view());
    const int radius = problem.radius;
    // The line stage decides its bands on the proxy, as a picture's fill decides them (same
    // traces, pairs and copies); the same copies then move the stored samples, so the deep
    // decision image and every stage after see the bands' samples. PatchMatch fills the rest.
    const FillSources none = empty_sources(samples.width(), samples.height());
    const FillSources bands =
        params.lines ? continue_lines(problem, params.never_sample, line_options(params)) : none;
    const bool banded = !bands.empty();
    const NativeImage start = banded ? fill_from_sources(samples, bands) : NativeImage();
    const NativeImage& before = banded ? start : samples;
    std::vector<std::string> notes = problem.notes;
    const auto filler = make_deep_patchmatch_inpainter(
        std::move(problem), deep_carving_proxy(before, proxy.raw_lo, proxy.raw_hi).image,
        implementation);
    constexpr int kIterationsPerStep = 64;  // as inpaint(): often enough for a progress bar
    InpaintProgress state = filler->progress();
    while (!state.done()) {
        state = filler->advance(kIterationsPerStep);
        if (progress && !progress(state))
            throw Error(ErrorCode::Cancelled, "inpainting was cancelled");
    }
    NativeInpaintResult result;
    result.progress = state;
    result.notes = std::move(notes);
    const std::optional<PatchMatchField> field = patchmatch_field(*filler);
    // An empty hole leaves nothing to move (and no field). The moved samples are blended in
    // their own values, as the editor's fill does (blend_samples), over the hole PatchMatch
    // filled (the bands stay copies, as a picture's do); bands that took the whole hole leave
    // PatchMatch nothing to move.
    if (!field && !banded) {
        result.samples = samples;
        return result;
    }
    const InpaintProblem& filled = filler->problem();
    const FillSources sources =
        field && filled.hole_pixels > 0 ? patchmatch_sources(*field, filled.hole, radius) : none;
    result.samples = blend_samples(fill_from_sources(before, sources), filled.hole, sources,
                                   {proxy.raw_lo, proxy.raw_hi});
    // The per-region choice, decided on the proxy as a picture's fill decides it (the same
    // sources give the same PatchMatch pixels there); the regions that take Criminisi move the
    // samples from its sources, unblended, as a picture keeps Criminisi's pixels unblended.
    const FillChoice choice =
        choose_sources(proxy.image.view(), mask, params, implementation, sources, &bands);
    const PixelRect all{0, 0, samples.width() - 1, samples.height() - 1};
    // The blended samples, for keep_ring_colours at the end (the choice and the refill decide
    // on the blend as it is, as a picture's do).
    std::optional<NativeImage> blended;
    if (params.keep_colours) blended = result.samples;
    if (choice.criminisi_regions() > 0) {
        apply_choice(result.samples, all, samples, choice);
        result.notes.push_back(choice_note(choice));
    }
    // Then the foreign-blob refill, decided on the proxy as a picture's fill decides it (the
    // same sources and choice give the same pixels there); the blobs that keep their refill
    // move the samples from the refill's sources, which lie outside the hole.
    const RefillChoice refill =
        refill_sources(proxy.image.view(), mask, params, implementation, sources, choice, &bands);
    apply_refill(result.samples, all, samples, refill);
    if (const std::string note = refill_note(refill.report); !note.empty())
        result.notes.push_back(note);
    if (blended)
        keep_ring_colours(result.samples, all, *blended, samples, sources, proxy.image, hole,
                          {proxy.raw_lo, proxy.raw_hi});
    return result;
}

}  // namespace lacuna::ops
