// The CUDA–GL interop path of the renderer: the display pixel-unpack buffers (image and mask) are
// registered with CUDA once per allocation; each frame maps one, copies the device image into it
// on the image's stream (device to device), unmaps, and lets GL copy buffer → texture on the GPU.
#include "renderer_impl.hpp"

#include <lacuna/core/error.hpp>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <string>

namespace lacuna::render {

InteropRegistration::~InteropRegistration() {
    if (resource != nullptr) cudaGraphicsUnregisterResource(resource);
}

namespace {

std::string cuda_message(const char* what, const cudaError_t status) {
    (void)cudaGetLastError();  // clear non-sticky errors so the host path can take over
    std::string message = what;
    message += ": ";
    message += cudaGetErrorString(status);
    return message;
}

/// Is the current GL context on a CUDA device? (cudaGLGetDevices lists the devices that drive it.)
bool gl_context_on_cuda_device(std::string& error) {
    unsigned count = 0;
    int devices[4] = {};
    const cudaError_t status = cudaGLGetDevices(&count, devices, 4, cudaGLDeviceListAll);
    if (status != cudaSuccess || count == 0) {
        error = status != cudaSuccess
                    ? cuda_message("the OpenGL context is not on a CUDA device", status)
                    : "the OpenGL context is not on a CUDA device";
        return false;
    }
    return true;
}

/// A pixel-unpack buffer registered with CUDA, grow-only.
struct StagingBuffer {
    GLuint& buffer;
    std::size_t& bytes;
    std::unique_ptr<InteropRegistration>& registration;
};

/// Copies rows of a pitched device image into the staging buffer, tightly packed. Leaves the
/// buffer unbound; GL sees the copy once unmapped (unmapping orders it before GL's use).
bool stage(StagingBuffer staging, const void* device_data, const std::size_t pitch,
           const std::size_t row_bytes, const int height, cudaStream_t stream,
           std::string& error) {
    if (!staging.registration && !gl_context_on_cuda_device(error)) return false;
    const std::size_t bytes = row_bytes * static_cast<std::size_t>(height);
    if (bytes > staging.bytes || !staging.registration) {
        staging.registration.reset();
        if (staging.buffer == 0) glGenBuffers(1, &staging.buffer);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, staging.buffer);
        const std::size_t capacity = std::max(bytes, staging.bytes);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(capacity), nullptr,
                     GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        staging.bytes = capacity;
        auto registration = std::make_unique<InteropRegistration>();
        const cudaError_t status = cudaGraphicsGLRegisterBuffer(
            &registration->resource, staging.buffer, cudaGraphicsRegisterFlagsWriteDiscard);
        if (status != cudaSuccess) {
            registration->resource = nullptr;
            error = cuda_message("cannot register the display buffer with CUDA", status);
            return false;
        }
        staging.registration = std::move(registration);
    }
    cudaGraphicsResource* resource = staging.registration->resource;
    cudaError_t status = cudaGraphicsMapResources(1, &resource, stream);
    if (status != cudaSuccess) {
        error = cuda_message("cannot map the display buffer", status);
        return false;
    }
    void* mapped = nullptr;
    std::size_t mapped_bytes = 0;
    status = cudaGraphicsResourceGetMappedPointer(&mapped, &mapped_bytes, resource);
    if (status == cudaSuccess)
        status = cudaMemcpy2DAsync(mapped, row_bytes, device_data, pitch, row_bytes,
                                   static_cast<std::size_t>(height), cudaMemcpyDeviceToDevice,
                                   stream);
    const cudaError_t unmap = cudaGraphicsUnmapResources(1, &resource, stream);
    if (status != cudaSuccess || unmap != cudaSuccess) {
        error = cuda_message("the copy into the display buffer failed",
                             status != cudaSuccess ? status : unmap);
        return false;
    }
    return true;
}

}  // namespace

bool ImageRenderer::set_image(const DeviceImage<Rgba8>& image, std::string& error) {
    Impl& impl = *impl_;
    if (!impl.ready || image.empty()) {
        error = "nothing to present";
        return false;
    }
    const ImageView<const Rgba8> view = image.device_view();
    if (!stage({impl.pixel_buffer, impl.pixel_buffer_bytes, impl.registration}, view.data,
               view.pitch, view.row_bytes(), view.height, image.stream(), error))
        return false;
    impl.reserve_texture(image.width(), image.height());
    glBindTexture(GL_TEXTURE_2D, impl.texture);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, impl.pixel_buffer);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width(), image.height(), GL_RGBA,
                    GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    impl.image_w = image.width();
    impl.image_h = image.height();
    impl.last_was_interop = true;
    return true;
}

bool ImageRenderer::set_mask(const DeviceImage<std::uint8_t>& mask, std::string& error) {
    Impl& impl = *impl_;
    if (!impl.ready) {
        error = "the renderer is not initialised";
        return false;
    }
    impl.mask_visible = !mask.empty();
    if (mask.empty()) return true;
    const ImageView<const std::uint8_t> view = mask.device_view();
    if (!stage({impl.mask_pixel_buffer, impl.mask_pixel_buffer_bytes, impl.mask_registration},
               view.data, view.pitch, view.row_bytes(), view.height, mask.stream(), error))
        return false;
    impl.reserve_mask_texture(mask.width(), mask.height());
    glBindTexture(GL_TEXTURE_2D, impl.mask_texture);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, impl.mask_pixel_buffer);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, mask.width(), mask.height(), GL_RED, GL_UNSIGNED_BYTE,
                    nullptr);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    return true;
}

}  // namespace lacuna::render
