// The scaler on the device: unpack to float, the B-spline prefilter (a recursion per line, so one
// thread per row and channel, then per column and channel: the column pass reads consecutive
// addresses across a warp), and one thread per output pixel for the weighted sum. All arithmetic
// is scale_math's, in the fast CPU scaler's order.
#include <lacuna/kernels/scale_kernels.h>
#include <lacuna/kernels/scale_math.h>

namespace lacuna::kernels {
namespace {

__global__ void unpack_kernel(const ImageView<const Rgba8> src, float* values) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= src.width || y >= src.height) return;
    const Rgba8 p = src.row(y)[x];
    float4* v = reinterpret_cast<float4*>(values) + static_cast<long long>(y) * src.width + x;
    *v = make_float4(p.r, p.g, p.b, p.a);
}

/// One prefilter pass: a thread per (line, channel, chunk). Rows: line = row × 4 + channel, the
/// four channels of a chunk side by side; columns: the same for columns, so a warp reads
/// consecutive floats of a row at every step.
template <bool kColumns, bool kAnticausal>
__global__ void prefilter_kernel(float* values, float* causal, const int sw, const int sh) {
    const int lines = (kColumns ? sw : sh) * 4;
    const int n = kColumns ? sh : sw;
    const int chunks = scale_math::chunks_of(n);
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= static_cast<long long>(lines) * chunks) return;
    // Rows: the line index runs fastest within a chunk row; columns: likewise, so neighbouring
    // threads touch neighbouring addresses.
    const int l = static_cast<int>(i % lines);
    const int a = static_cast<int>(i / lines) * scale_math::kChunk;
    const long long offset = kColumns ? static_cast<long long>(l / 4) * 4 + l % 4
                                      : static_cast<long long>(l / 4) * sw * 4 + l % 4;
    const int stride = kColumns ? sw * 4 : 4;
    const scale_math::Strided v{values + offset, stride}, c{causal + offset, stride};
    const int b = a + scale_math::kChunk < n ? a + scale_math::kChunk : n;
    if (kAnticausal)
        scale_math::anticausal_chunk(c, v, n, a, b);
    else
        scale_math::causal_chunk(v, c, n, a, b);
}

__global__ void resample_kernel(const float* values, const int sw, const int sh,
                                const ImageView<Rgba8> dst, const int method) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dst.width || y >= dst.height) return;
    const scale_math::Taps tx = scale_math::axis_taps(x, sw, dst.width, method);
    const scale_math::Taps ty = scale_math::axis_taps(y, sh, dst.height, method);
    dst.row(y)[x] = scale_math::resample(values, sw, sh, tx, ty, method);
}

dim3 grid_for(const int w, const int h, const dim3 block) {
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

}  // namespace

cudaError_t launch_scale_unpack(const ImageView<const Rgba8> src, float* values,
                                const cudaStream_t stream) {
    const dim3 block(32, 8);
    unpack_kernel<<<grid_for(src.width, src.height, block), block, 0, stream>>>(src, values);
    return cudaGetLastError();
}

cudaError_t launch_scale_prefilter(float* values, float* causal, const int sw, const int sh,
                                   const cudaStream_t stream) {
    constexpr int kThreads = 128;
    const auto blocks = [](const int lines, const int n) {
        const long long threads = static_cast<long long>(lines) * scale_math::chunks_of(n);
        return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
    };
    if (sw > 1) {
        prefilter_kernel<false, false>
            <<<blocks(sh * 4, sw), kThreads, 0, stream>>>(values, causal, sw, sh);
        prefilter_kernel<false, true>
            <<<blocks(sh * 4, sw), kThreads, 0, stream>>>(values, causal, sw, sh);
    }
    if (sh > 1) {
        prefilter_kernel<true, false>
            <<<blocks(sw * 4, sh), kThreads, 0, stream>>>(values, causal, sw, sh);
        prefilter_kernel<true, true>
            <<<blocks(sw * 4, sh), kThreads, 0, stream>>>(values, causal, sw, sh);
    }
    return cudaGetLastError();
}

cudaError_t launch_scale_resample(const float* values, const int sw, const int sh,
                                  const ImageView<Rgba8> dst, const int method,
                                  const cudaStream_t stream) {
    const dim3 block(32, 8);
    resample_kernel<<<grid_for(dst.width, dst.height, block), block, 0, stream>>>(values, sw, sh,
                                                                                  dst, method);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
