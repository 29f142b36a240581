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

__global__ void prefilter_rows_kernel(float* values, const int sw, const int sh) {
    const int line = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);  // row × 4 + channel
    if (line >= sh * 4) return;
    scale_math::prefilter_line({values + static_cast<long long>(line / 4) * sw * 4 + line % 4, 4},
                               sw);
}

__global__ void prefilter_columns_kernel(float* values, const int sw, const int sh) {
    const int line = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);  // column × 4 + c
    if (line >= sw * 4) return;
    scale_math::prefilter_line({values + static_cast<long long>(line / 4) * 4 + line % 4, sw * 4},
                               sh);
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

cudaError_t launch_scale_prefilter(float* values, const int sw, const int sh,
                                   const cudaStream_t stream) {
    constexpr int kThreads = 128;
    prefilter_rows_kernel<<<(sh * 4 + kThreads - 1) / kThreads, kThreads, 0, stream>>>(values, sw,
                                                                                       sh);
    const cudaError_t rows = cudaGetLastError();
    if (rows != cudaSuccess) return rows;
    prefilter_columns_kernel<<<(sw * 4 + kThreads - 1) / kThreads, kThreads, 0, stream>>>(values,
                                                                                          sw, sh);
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
