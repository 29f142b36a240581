#include <lacuna/core/pixel.hpp>
#include <lacuna/kernels/image_kernels.h>

namespace lacuna::kernels {
namespace {

__global__ void luminance709_kernel(const ImageView<const Rgba8> src, const ImageView<float> dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < src.width && y < src.height) {
        dst.row(y)[x] = luminance709(src.row(y)[x]);
    }
}

}  // namespace

cudaError_t launch_luminance709(const ImageView<const Rgba8>& src, const ImageView<float>& dst,
                                const cudaStream_t stream) {
    const dim3 block(32, 8);
    const dim3 grid((src.width + block.x - 1) / block.x, (src.height + block.y - 1) / block.y);
    luminance709_kernel<<<grid, block, 0, stream>>>(src, dst);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
