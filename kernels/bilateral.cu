// The bilateral filter on the device: a block of 32 × 8 output pixels stages its tile of the image
// (and of the guide, when there is one) with a halo of `radius` mirrored pixels, plus both weight
// tables, in shared memory; each thread then sums its circle of neighbours in the fast CPU
// filter's order with bilateral_math's arithmetic, so the pixels are identical to the CPU's.
#include <lacuna/kernels/bilateral_kernels.h>
#include <lacuna/kernels/bilateral_math.h>
#include <lacuna/kernels/border.h>

#include <cstdint>

namespace lacuna::kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

__device__ __forceinline__ Rgba8 unpack(const std::uint32_t v) {
    Rgba8 p;
    p.r = static_cast<std::uint8_t>(v & 0xffu);
    p.g = static_cast<std::uint8_t>((v >> 8) & 0xffu);
    p.b = static_cast<std::uint8_t>((v >> 16) & 0xffu);
    p.a = static_cast<std::uint8_t>(v >> 24);
    return p;
}

__device__ __forceinline__ std::uint32_t pack(const Rgba8 p) {
    return static_cast<std::uint32_t>(p.r) | (static_cast<std::uint32_t>(p.g) << 8) |
           (static_cast<std::uint32_t>(p.b) << 16) | (static_cast<std::uint32_t>(p.a) << 24);
}

struct SharedLayout {
    int tile_w, tile_h, space_count;
    __host__ __device__ explicit SharedLayout(const int radius)
        : tile_w(kBlockX + 2 * radius),
          tile_h(kBlockY + 2 * radius),
          space_count(radius * radius + 1) {}
    __host__ __device__ int tile_pixels() const { return tile_w * tile_h; }
    __host__ __device__ std::size_t bytes(const bool guided) const {
        return sizeof(std::uint32_t) * static_cast<std::size_t>(tile_pixels()) * (guided ? 2 : 1) +
               sizeof(float) *
                   static_cast<std::size_t>(space_count + bilateral_math::kRangeTableSize);
    }
};

__global__ void bilateral_kernel(const BilateralArgs a) {
    extern __shared__ std::uint32_t shared[];
    const int r = a.radius;
    const SharedLayout layout(r);
    std::uint32_t* tile_src = shared;
    std::uint32_t* tile_guide = a.guided ? shared + layout.tile_pixels() : tile_src;
    float* space = reinterpret_cast<float*>(shared + layout.tile_pixels() * (a.guided ? 2 : 1));
    float* range = space + layout.space_count;

    const int threads = kBlockX * kBlockY;
    const int t = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x);
    const int bx0 = static_cast<int>(blockIdx.x) * kBlockX - r;
    const int by0 = static_cast<int>(blockIdx.y) * kBlockY - r;
    const int width = a.src.width, height = a.src.height;
    for (int i = t; i < layout.tile_pixels(); i += threads) {
        const int gx = border::reflect101(bx0 + i % layout.tile_w, width);
        const int gy = border::reflect101(by0 + i / layout.tile_w, height);
        tile_src[i] = pack(a.src.row(gy)[gx]);
        if (a.guided) tile_guide[i] = pack(a.guide.row(gy)[gx]);
    }
    for (int i = t; i < layout.space_count + bilateral_math::kRangeTableSize; i += threads)
        space[i] = a.tables[i];
    __syncthreads();

    const int x = static_cast<int>(blockIdx.x) * kBlockX + static_cast<int>(threadIdx.x);
    const int y = static_cast<int>(blockIdx.y) * kBlockY + static_cast<int>(threadIdx.y);
    if (x >= width || y >= height) return;
    const int centre =
        (static_cast<int>(threadIdx.y) + r) * layout.tile_w + static_cast<int>(threadIdx.x) + r;
    const Rgba8 gc = unpack(tile_guide[centre]);
    bilateral_math::Sums sums;
    for (int dy = -r; dy <= r; ++dy) {
        int half = 0;  // the circle's half-width in this row: the largest dx with dx² + dy² ≤ r²
        while ((half + 1) * (half + 1) + dy * dy <= r * r) ++half;
        const int row = centre + dy * layout.tile_w;
        for (int dx = -half; dx <= half; ++dx) {
            const int q = row + dx;
            const int d = bilateral_math::colour_distance(unpack(tile_guide[q]), gc);
            bilateral_math::accumulate(sums, space[dx * dx + dy * dy], range[d],
                                       unpack(tile_src[q]));
        }
    }
    a.dst.row(y)[x] = bilateral_math::finish(sums, unpack(tile_src[centre]).a);
}

}  // namespace

cudaError_t launch_bilateral(const BilateralArgs& args, const cudaStream_t stream) {
    if (args.src.width <= 0 || args.src.height <= 0) return cudaSuccess;
    const std::size_t bytes = SharedLayout(args.radius).bytes(args.guided);
    // Beyond 48 KB (radius > ~24 with a guide) the kernel must opt in to more shared memory.
    if (bytes > 48 * 1024) {
        const cudaError_t status = cudaFuncSetAttribute(
            bilateral_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
        if (status != cudaSuccess) return status;
    }
    const dim3 block(kBlockX, kBlockY);
    const dim3 grid((args.src.width + kBlockX - 1) / kBlockX,
                    (args.src.height + kBlockY - 1) / kBlockY);
    bilateral_kernel<<<grid, block, bytes, stream>>>(args);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
