// Launchers for the seam-carving kernels (kernels/seam_carve.cu). Buffers are linear with a fixed
// row stride (the original width): carving narrows the rows in place of reallocating.
#pragma once

#include <lacuna/kernels/seam_energy.h>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lacuna::kernels {

/// The carving state on the device. "in" buffers are read by the removal kernel and "out"
/// written; the caller swaps them after each seam.
struct SeamState {
    int stride = 0;  ///< elements per row
    int width = 0;   ///< current width
    int height = 0;
    SeamEnergy energy = SeamEnergy::Forward;
    const Rgba8* image = nullptr;
    Rgba8* image_out = nullptr;
    const std::int32_t* index = nullptr;  ///< original linear index of each pixel
    std::int32_t* index_out = nullptr;
    const std::uint8_t* protect = nullptr;  ///< null without masks
    std::uint8_t* protect_out = nullptr;
    const std::uint8_t* remove = nullptr;
    std::uint8_t* remove_out = nullptr;
    void* terms = nullptr;          ///< scratch, 8 bytes × stride × height (per-cell DP terms)
    void* cost = nullptr;           ///< int32 without masks, int64 with
    std::int8_t* parent = nullptr;  ///< scratch, stride × height
    std::int32_t* seam = nullptr;   ///< height
    std::int32_t* order = nullptr;  ///< original stride × height: seam index per pixel
    std::int64_t* seam_costs = nullptr;  ///< per seam
    std::int32_t* protected_crossed = nullptr;
    std::int32_t* remove_crossed = nullptr;
};

/// Finds seam `s` of the current state and removes it into the "out" buffers: a per-cell terms
/// kernel, one single-block kernel for the whole cumulative-cost map, the argmin and the walk back,
/// and a removal kernel. Nothing returns to the host.
cudaError_t launch_carve_one_seam(const SeamState& state, int s, cudaStream_t stream);

/// The slider's compaction: keeps the pixels whose order is >= count, row by row (one block per
/// row). `dst` has row stride `dst_stride`.
cudaError_t launch_compact_rows(const Rgba8* src, const std::int32_t* order, int width, int height,
                                int count, Rgba8* dst, int dst_stride, cudaStream_t stream);

}  // namespace lacuna::kernels
