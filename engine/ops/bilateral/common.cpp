// Parameters, validation, weight tables and the host-in/host-out entry point of the bilateral
// filter.
#include "tables.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/ops/bilateral.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace lacuna::ops {
namespace {

void check_sigma(const double sigma, const char* what) {
    if (std::isfinite(sigma) && sigma > 0 && sigma <= kMaxBilateralSigma) return;
    std::ostringstream text;
    text << what << " must be greater than 0 and at most " << kMaxBilateralSigma << ", not "
         << sigma;
    throw Error(ErrorCode::InvalidArgument, text.str());
}

}  // namespace

int bilateral_radius(const BilateralParams& params) {
    if (params.radius > 0) return params.radius;
    const long rounded = std::lround(1.5 * params.sigma_space);
    return static_cast<int>(std::clamp<long>(rounded, 1, kMaxBilateralRadius));
}

void check_bilateral(const BilateralParams& params, const int width, const int height,
                     const int guide_width, const int guide_height) {
    check_sigma(params.sigma_space, "the spatial sigma");
    check_sigma(params.sigma_range, "the range sigma");
    if (params.radius < 0 || params.radius > kMaxBilateralRadius)
        throw Error(ErrorCode::InvalidArgument,
                    "the radius must be from 0 (from the spatial sigma) to " +
                        std::to_string(kMaxBilateralRadius) + " pixels, not " +
                        std::to_string(params.radius));
    check_image_size(width, height);
    if (guide_width < 0 && guide_height < 0) return;
    if (guide_width != width || guide_height != height)
        throw Error(ErrorCode::InvalidArgument,
                    "the guide image is " + std::to_string(guide_width) + "x" +
                        std::to_string(guide_height) + " but the image is " +
                        std::to_string(width) + "x" + std::to_string(height) +
                        ": they must be the same size");
}

namespace detail {

BilateralTables make_bilateral_tables(const BilateralParams& params) {
    BilateralTables t;
    t.radius = bilateral_radius(params);
    const double space_coeff = -0.5 / (params.sigma_space * params.sigma_space);
    const double range_coeff = -0.5 / (params.sigma_range * params.sigma_range);
    t.space.resize(static_cast<std::size_t>(t.radius) * t.radius + 1);
    for (std::size_t d2 = 0; d2 < t.space.size(); ++d2)
        t.space[d2] = static_cast<float>(std::exp(static_cast<double>(d2) * space_coeff));
    t.range.resize(bilateral_math::kRangeTableSize);
    for (std::size_t d = 0; d < t.range.size(); ++d)
        t.range[d] = static_cast<float>(std::exp(static_cast<double>(d * d) * range_coeff));
    return t;
}

}  // namespace detail

ImageRgba8 bilateral(const ImageView<const Rgba8> src, const ImageView<const Rgba8> guide,
                     const BilateralParams& params, const BilateralImplementation implementation) {
    switch (implementation) {
        case BilateralImplementation::Reference:
            return bilateral_reference(src, guide, params);
        case BilateralImplementation::Fast:
            return bilateral_fast(src, guide, params);
        case BilateralImplementation::Cuda:
            break;
    }
    const bool guided = guide.data != nullptr;
    check_bilateral(params, src.width, src.height, guided ? guide.width : -1,
                    guided ? guide.height : -1);
    OwnedStream stream;
    CudaBilateral filter(stream.get());
    const DeviceImage<Rgba8> device_src(src, stream.get());
    DeviceImage<Rgba8> device_guide;
    if (guided) device_guide = DeviceImage<Rgba8>(guide, stream.get());
    DeviceImage<Rgba8> device_dst(src.width, src.height, stream.get());
    filter.run(device_src, guided ? &device_guide : nullptr, device_dst, params);
    return device_dst.download();
}

}  // namespace lacuna::ops
