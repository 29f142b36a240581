// CPU-only build: no interop; the caller presents through the host upload path.
#include "renderer_impl.hpp"

namespace lacuna::render {

InteropRegistration::~InteropRegistration() = default;

void ImageRenderer::Impl::unmap_textures() {}

void ImageRenderer::Impl::release_interop() {
    registration.reset();
    mask_registration.reset();
    samples_registration.reset();
}

void ImageRenderer::map_ahead() {}

bool ImageRenderer::set_image(const DeviceImage<Rgba8>&, std::string& error) {
    error = "this build has no CUDA backend";
    return false;
}

}  // namespace lacuna::render

namespace lacuna::render {

bool ImageRenderer::set_mask(const DeviceImage<std::uint8_t>&, std::string& error) {
    error = "this build has no CUDA backend";
    return false;
}

}  // namespace lacuna::render

namespace lacuna::render {

bool ImageRenderer::set_samples(const DeviceImage<std::uint8_t>&, PixelFormat, int,
                                std::string& error) {
    error = "this build has no CUDA backend";
    return false;
}

}  // namespace lacuna::render
