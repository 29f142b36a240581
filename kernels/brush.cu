// The brush on a device mask: one thread per pixel of the segment's rectangle, each looking only
// at the dabs whose centres lie within a radius of it along the segment.
#include <lacuna/kernels/brush_kernels.h>
#include <lacuna/kernels/brush_math.h>

namespace lacuna::kernels {
namespace {

__global__ void brush_segment_kernel(const BrushSegmentArgs a) {
    const int x = a.rect_x0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = a.rect_y0 + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= a.rect_x0 + a.rect_width || y >= a.rect_y0 + a.rect_height) return;

    // A dab reaches this pixel only if its centre is within the radius along the segment too, so
    // a long stroke of a small brush costs each pixel a few dabs, not all of them. The bounds get
    // two dabs of slack each way, so rounding can never drop a dab that paints; short segments
    // (whose direction may be too tiny to project on) just try every dab.
    double lo = 1.0;
    double hi = static_cast<double>(a.steps);
    if (a.steps > 8) {
        const double dx = a.x1 - a.x0;
        const double dy = a.y1 - a.y0;
        const double length = sqrt(dx * dx + dy * dy);
        const double px = (static_cast<double>(x) + 0.5) - a.x0;
        const double py = (static_cast<double>(y) + 0.5) - a.y0;
        const double along = (px * dx + py * dy) / length;
        const double step = length / static_cast<double>(a.steps);
        lo = fmax(lo, floor((along - a.radius) / step) - 2.0);
        hi = fmin(hi, ceil((along + a.radius) / step) + 2.0);
        // Within int before converting, also for pixels beyond either end.
        lo = fmin(lo, static_cast<double>(a.steps) + 1.0);
        hi = fmax(hi, 0.0);
    }
    int strongest = 0;
    for (int i = static_cast<int>(lo); i <= static_cast<int>(hi) && strongest < 255; ++i) {
        const double cx = brush_math::dab_centre(a.x0, a.x1, i, a.steps);
        const double cy = brush_math::dab_centre(a.y0, a.y1, i, a.steps);
        const int c =
            brush_math::coverage(brush_math::pixel_distance(x, y, cx, cy), a.radius, a.hardness);
        strongest = c > strongest ? c : strongest;
    }
    if (strongest == 0) return;
    std::uint8_t& m = a.mask.at(x, y);
    const int now = m;
    m = static_cast<std::uint8_t>(a.erase ? min(now, 255 - strongest) : max(now, strongest));
}

}  // namespace

cudaError_t launch_brush_segment(const BrushSegmentArgs& args, const cudaStream_t stream) {
    if (args.rect_width <= 0 || args.rect_height <= 0) return cudaSuccess;
    const dim3 block(16, 16);
    const dim3 grid((args.rect_width + block.x - 1) / block.x,
                    (args.rect_height + block.y - 1) / block.y);
    brush_segment_kernel<<<grid, block, 0, stream>>>(args);
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
