// Internal: the image's dominant patch offsets (He & Sun, "Statistics of Patch Offsets for Image
// Completion", ECCV 2012), handed to every PatchMatch backend as extra candidates.
#pragma once

#include <lacuna/ops/inpaint.hpp>

#include <cstdint>
#include <vector>

namespace lacuna::ops::detail {

/// An offset between a patch and its most similar patch, in level-0 pixels.
struct PatchOffset {
    int dx = 0;
    int dy = 0;
    friend bool operator==(const PatchOffset&, const PatchOffset&) = default;
};

/// The `count` dominant offsets of the problem's known region, most frequent first: every
/// complete known patch of a reduced copy is matched to its most similar known patch at least
/// a few pixels away (a deterministic PatchMatch), the offsets are histogrammed, smoothed and
/// the local maxima kept. Deterministic, so every backend gets the same list; empty for
/// count <= 0 or where too little is known.
std::vector<PatchOffset> dominant_offsets(const InpaintProblem& problem, int count);

/// The offsets at pyramid level `level` (each halved `level` times, rounded half away from 0),
/// flattened as dx, dy pairs; zero offsets and repeats dropped, the order kept.
std::vector<std::int32_t> offsets_at_level(const std::vector<PatchOffset>& offsets, int level);

/// The number of offsets the fill uses (temporary: LACUNA_PM_OFFSETS, default 0 = off).
int patch_offset_count();

}  // namespace lacuna::ops::detail
