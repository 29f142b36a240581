// Launchers for the exemplar-based inpainting kernels (kernels/inpaint.cu). The whole iteration —
// highest priority, SSD search, coherence candidates, copy, confidence and priority updates — runs
// on the device; the host only enqueues iterations and, between steps, reads the counters.
#pragma once

#include <lacuna/core/pixel.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

/// Counters and the current decision, in device memory. All 64-bit so that the candidate key can
/// be reduced with atomicMin and the block is a plain array of unsigned long long.
struct InpaintCounters {
    unsigned long long best_key;  ///< (SSD << 32 | source index) of the best candidate so far
    long long target;             ///< this iteration's target centre, -1 when the hole is full
    long long filled;             ///< hole pixels filled so far
    long long iterations;         ///< iterations done (= history entries)
};
static_assert(sizeof(InpaintCounters) == 4 * sizeof(unsigned long long), "packed counters");

struct InpaintDeviceState {
    int width = 0;
    int height = 0;
    int radius = 0;
    Rgba8* pixels = nullptr;  ///< dense width × height
    std::uint8_t* known = nullptr;
    std::uint8_t* luma = nullptr;
    std::int32_t* confidence = nullptr;
    std::int32_t* source = nullptr;  ///< original pixel copied here, -1 if never filled
    const std::uint8_t* valid_source = nullptr;
    double* priority = nullptr;  ///< over the hole's box
    int box_x0 = 0, box_y0 = 0, box_width = 0, box_height = 0;
    int window_x0 = 0, window_y0 = 0, window_x1 = -1, window_y1 = -1;
    bool coherence = true;
    long long hole_pixels = 0;
    InpaintCounters* counters = nullptr;
    std::int32_t* history_target = nullptr;  ///< capacity hole_pixels (each iteration fills ≥ 1)
    std::int32_t* history_source = nullptr;
    std::uint32_t* history_ssd = nullptr;
};

/// A pixel of a device coverage mask at or above this is in the hole (the editor paints 0..255).
inline constexpr std::uint8_t kHoleCoverage = 128;

/// Where a device filler starts from: the document's pixels and coverage (pitched, the state's
/// size), a scratch array of width × height bytes, and two counters the launch zeroes and fills.
struct InpaintDeviceInput {
    ImageView<const Rgba8> pixels;
    ImageView<const std::uint8_t> coverage;
    std::uint8_t* valid_source = nullptr;  ///< written: the memory state.valid_source reads
    std::uint8_t* scratch = nullptr;
    unsigned long long* counts = nullptr;  ///< [0] hole pixels, [1] valid source centres
};

/// Builds the per-pixel state from `input` on the device: the dense pixels, known, luma,
/// confidence and source (-1) as the host upload would, and valid sources for the hole alone (a
/// complete patch inside the image with no hole pixel; never-sample areas are the caller's).
cudaError_t launch_inpaint_device_init(const InpaintDeviceState& state,
                                       const InpaintDeviceInput& input, cudaStream_t stream);

/// Priorities of every pixel of the hole's box.
cudaError_t launch_inpaint_initial_priorities(const InpaintDeviceState& state, cudaStream_t stream);
/// Enqueues `iterations` iterations; those after the hole is full do nothing.
cudaError_t launch_inpaint_iterations(const InpaintDeviceState& state, int iterations,
                                      cudaStream_t stream);

}  // namespace lacuna::kernels
