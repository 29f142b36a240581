// Lin et al.'s three direct 3-D convolutions. Every output value sums its k³ taps in (t, y, x)
// order with separate multiplies and adds (--fmad=false), as the fast CPU path does, so all give
// identical floats; they differ only in where the inputs come from.
#include <lacuna/kernels/conv3d_kernels.h>
#include <lacuna/kernels/border.h>

namespace lacuna::kernels {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;
constexpr int kMaxK = 31;

__device__ __forceinline__ float load(const Conv3dArgs& a, const int x, const int y, const int t) {
    const int sx = border::reflect101(x, a.width), sy = border::reflect101(y, a.height);
    return __ldg(a.in + (static_cast<long long>(t) * a.height + sy) * a.pitch + sx);
}

/// BASELINE: one thread per output value, k³ global loads (through the read-only cache).
__global__ void baseline_kernel(const Conv3dArgs a) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int t = static_cast<int>(blockIdx.z);
    if (x >= a.width || y >= a.height) return;
    const int k = a.k, r = k / 2;
    float acc = 0.0f;
    for (int dt = 0; dt < k; ++dt)
        for (int dy = 0; dy < k; ++dy)
            for (int dx = 0; dx < k; ++dx) {
                const float w = __ldg(a.weights + (dt * k + dy) * k + dx);
                acc = acc + w * load(a, x + dx - r, y + dy - r, t + dt);
            }
    a.out[(static_cast<long long>(t) * a.height + y) * a.pitch + x] = acc;
}

/// Stages frame t's tile of the block (with a halo of r mirrored pixels) in shared memory.
__device__ void stage_tile(const Conv3dArgs& a, float* tile, const int t) {
    const int r = a.k / 2, tw = kBlockX + 2 * r, th = kBlockY + 2 * r;
    const int x0 = static_cast<int>(blockIdx.x) * kBlockX - r;
    const int y0 = static_cast<int>(blockIdx.y) * kBlockY - r;
    for (int i = static_cast<int>(threadIdx.y * kBlockX + threadIdx.x); i < tw * th;
         i += kBlockX * kBlockY)
        tile[i] = load(a, x0 + i % tw, y0 + i / tw, t);
}

/// The k × k taps of one frame's tile for the thread's pixel, added to acc in (y, x) order.
__device__ __forceinline__ float add_frame(const Conv3dArgs& a, const float* tile,
                                           const float* weights, float acc) {
    const int k = a.k, tw = kBlockX + 2 * (k / 2);
    for (int dy = 0; dy < k; ++dy) {
        const float* row = tile + (static_cast<int>(threadIdx.y) + dy) * tw + threadIdx.x;
        for (int dx = 0; dx < k; ++dx) acc = acc + __ldg(weights + dy * k + dx) * row[dx];
    }
    return acc;
}

/// SHARED MEMORY: per output frame, each of its k input frames' tiles in turn.
__global__ void shared_kernel(const Conv3dArgs a) {
    extern __shared__ float tile[];
    const int x = static_cast<int>(blockIdx.x) * kBlockX + static_cast<int>(threadIdx.x);
    const int y = static_cast<int>(blockIdx.y) * kBlockY + static_cast<int>(threadIdx.y);
    const int t = static_cast<int>(blockIdx.z);
    const int k = a.k;
    float acc = 0.0f;
    for (int dt = 0; dt < k; ++dt) {
        __syncthreads();
        stage_tile(a, tile, t + dt);
        __syncthreads();
        acc = add_frame(a, tile, a.weights + dt * k * k, acc);
    }
    if (x < a.width && y < a.height)
        a.out[(static_cast<long long>(t) * a.height + y) * a.pitch + x] = acc;
}

/// STREAMING: the block walks the input frames once; each staged tile is added to every output
/// frame that uses it (k running sums per thread, each completed after its k-th frame).
__global__ void streaming_kernel(const Conv3dArgs a) {
    extern __shared__ float tile[];
    const int x = static_cast<int>(blockIdx.x) * kBlockX + static_cast<int>(threadIdx.x);
    const int y = static_cast<int>(blockIdx.y) * kBlockY + static_cast<int>(threadIdx.y);
    const int k = a.k, outputs = a.in_frames - k + 1;
    float acc[kMaxK];
    for (int i = 0; i < k; ++i) acc[i] = 0.0f;
    for (int s = 0; s < a.in_frames; ++s) {
        __syncthreads();
        stage_tile(a, tile, s);
        __syncthreads();
        // Outputs o = s − dt for dt = k−1 … 0: the oldest first, so each output still sums its
        // frames in order (dt ascending).
        const int first = s - k + 1 > 0 ? s - k + 1 : 0;
        const int last = s < outputs - 1 ? s : outputs - 1;
        for (int o = first; o <= last; ++o) {
            const int dt = s - o;
            float& sum = acc[o % k];
            sum = add_frame(a, tile, a.weights + dt * k * k, sum);
            if (dt == k - 1) {
                if (x < a.width && y < a.height)
                    a.out[(static_cast<long long>(o) * a.height + y) * a.pitch + x] = sum;
                sum = 0.0f;
            }
        }
    }
}

}  // namespace

cudaError_t launch_conv3d(const Conv3dArgs& a, const int algorithm, const cudaStream_t stream) {
    if (a.k < 1 || a.k > kMaxK) return cudaErrorInvalidValue;
    const int outputs = a.in_frames - a.k + 1;
    const int r = a.k / 2;
    const std::size_t tile_bytes =
        sizeof(float) * static_cast<std::size_t>(kBlockX + 2 * r) * (kBlockY + 2 * r);
    const dim3 block(kBlockX, kBlockY);
    const unsigned gx = (a.width + kBlockX - 1) / kBlockX, gy = (a.height + kBlockY - 1) / kBlockY;
    switch (algorithm) {
        case 0:
            baseline_kernel<<<dim3(gx, gy, outputs), block, 0, stream>>>(a);
            break;
        case 1:
            shared_kernel<<<dim3(gx, gy, outputs), block, tile_bytes, stream>>>(a);
            break;
        default:
            streaming_kernel<<<dim3(gx, gy, 1), block, tile_bytes, stream>>>(a);
            break;
    }
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
