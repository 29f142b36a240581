// Kymograph rows: one thread per (position, frame). Each thread walks its band in order, sampling
// with the reference's own code (line_sampling.h) and summing in double left to right, so the
// value is the reference's bit for bit: this file is built with --fmad=false (no contraction of
// the bilinear weights or the sample points), and double addition and division are correctly
// rounded on the device as on the host. A band is short (1..2048) and positions × frames are
// many, so a thread per output beats splitting a band across a warp (whose tree sum would round
// differently).
#include <lacuna/kernels/kymograph_kernels.h>

namespace lacuna::kernels {
namespace {

constexpr int kThreads = 128;

constexpr int kMaxGridY = 65535;  // frames per launch (the grid's y limit)

__global__ void kymograph_kernel(const KymographArgs a, const int first_frame) {
    const int p = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
    const int f = first_frame + static_cast<int>(blockIdx.y);
    if (p >= a.positions || f >= a.frames) return;
    const ImageView<const float> frame(a.stack.row(f * a.height), a.width, a.height, a.stack.pitch);
    const LineGeometry g = a.segments[a.segment_of[p]];
    const int i = a.index_of[p];
    double sum = 0;
    int n = 0;
    for (int j = 0; j < a.band; ++j) {
        double x = 0, y = 0;
        line_sample_point(g, i, j, x, y);
        float v = 0;
        if (!sample_plane(frame, a.sampling, x, y, v) || isnan(v)) continue;
        sum = __dadd_rn(sum, static_cast<double>(v));
        ++n;
    }
    a.out.row(f)[p] = n == 0 ? NAN : static_cast<float>(__ddiv_rn(sum, static_cast<double>(n)));
}

}  // namespace

cudaError_t launch_kymograph(const KymographArgs& args, const cudaStream_t stream) {
    if (args.positions <= 0 || args.frames <= 0) return cudaSuccess;
    for (int first = 0; first < args.frames; first += kMaxGridY) {
        const int count = args.frames - first < kMaxGridY ? args.frames - first : kMaxGridY;
        const dim3 grid((args.positions + kThreads - 1) / kThreads, count);
        kymograph_kernel<<<grid, kThreads, 0, stream>>>(args, first);
        const cudaError_t status = cudaGetLastError();
        if (status != cudaSuccess) return status;
    }
    return cudaSuccess;
}

}  // namespace lacuna::kernels
