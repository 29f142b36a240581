// The CUDA–GL interop path of the renderer: the display pixel-unpack buffer is registered with
// CUDA once per allocation; each frame maps it, runs the present kernel from the engine's
// DeviceImage, unmaps, and lets GL copy buffer → texture on the device.
#include "renderer_impl.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/kernels/image_kernels.h>

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

}  // namespace

bool ImageRenderer::set_image(const DeviceImage<Rgba8>& image, std::string& error) {
    Impl& impl = *impl_;
    if (!impl.ready || image.empty()) {
        error = "nothing to present";
        return false;
    }
    if (!impl.registration && !gl_context_on_cuda_device(error)) return false;
    const std::size_t bytes =
        static_cast<std::size_t>(image.width()) * image.height() * sizeof(Rgba8);
    if (bytes > impl.pixel_buffer_bytes || !impl.registration) {
        impl.registration.reset();
        if (impl.pixel_buffer == 0) glGenBuffers(1, &impl.pixel_buffer);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, impl.pixel_buffer);
        const std::size_t capacity = std::max(bytes, impl.pixel_buffer_bytes);
        glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(capacity), nullptr,
                     GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        impl.pixel_buffer_bytes = capacity;
        auto registration = std::make_unique<InteropRegistration>();
        const cudaError_t status = cudaGraphicsGLRegisterBuffer(
            &registration->resource, impl.pixel_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
        if (status != cudaSuccess) {
            registration->resource = nullptr;
            error = cuda_message("cannot register the display buffer with CUDA", status);
            return false;
        }
        impl.registration = std::move(registration);
    }
    cudaGraphicsResource* resource = impl.registration->resource;
    const cudaStream_t stream = image.stream();
    cudaError_t status = cudaGraphicsMapResources(1, &resource, stream);
    if (status != cudaSuccess) {
        error = cuda_message("cannot map the display buffer", status);
        return false;
    }
    void* mapped = nullptr;
    std::size_t mapped_bytes = 0;
    status = cudaGraphicsResourceGetMappedPointer(&mapped, &mapped_bytes, resource);
    if (status == cudaSuccess)
        status =
            kernels::launch_present_rgba(image.device_view(), static_cast<Rgba8*>(mapped), stream);
    const cudaError_t unmap = cudaGraphicsUnmapResources(1, &resource, stream);
    if (status != cudaSuccess || unmap != cudaSuccess) {
        error = cuda_message("the present kernel failed", status != cudaSuccess ? status : unmap);
        return false;
    }
    // Unmapping orders the kernel before GL's use of the buffer; the copy below stays on the GPU.
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

}  // namespace lacuna::render
