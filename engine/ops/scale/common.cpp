// Method names, size checks and the host-in/host-out entry point of the scaler.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/scale.hpp>

namespace lacuna::ops {

std::string_view to_string(const ScaleMethod method) {
    switch (method) {
        case ScaleMethod::Nearest:
            return "nearest";
        case ScaleMethod::Bilinear:
            return "bilinear";
        case ScaleMethod::Bicubic:
            return "bicubic";
        case ScaleMethod::BSpline:
            return "bspline";
    }
    return "?";
}

std::optional<ScaleMethod> parse_scale_method(const std::string_view name) {
    for (const ScaleMethod m :
         {ScaleMethod::Nearest, ScaleMethod::Bilinear, ScaleMethod::Bicubic, ScaleMethod::BSpline})
        if (name == to_string(m)) return m;
    return std::nullopt;
}

void check_scale(const int in_width, const int in_height, const int out_width,
                 const int out_height) {
    check_image_size(in_width, in_height);
    try {
        check_image_size(out_width, out_height);
    } catch (const Error& e) {
        throw Error(e.code(), "the target size " + std::to_string(out_width) + "x" +
                                  std::to_string(out_height) + " is not allowed: " + e.what());
    }
}

ImageRgba8 scale(const ImageView<const Rgba8> src, const int width, const int height,
                 const ScaleMethod method, const ScaleImplementation implementation) {
    switch (implementation) {
        case ScaleImplementation::Reference:
            return scale_reference(src, width, height, method);
        case ScaleImplementation::Fast:
            return scale_fast(src, width, height, method);
        case ScaleImplementation::Cuda:
            break;
    }
    check_scale(src.width, src.height, width, height);
    OwnedStream stream;
    CudaScaler scaler(stream.get());
    const DeviceImage<Rgba8> device_src(src, stream.get());
    DeviceImage<Rgba8> device_dst(width, height, stream.get());
    scaler.run(device_src, device_dst, width, height, method);
    return device_dst.download();
}

}  // namespace lacuna::ops
