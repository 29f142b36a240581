// The CUDA–GL interop path of the renderer: the display textures (image and mask) are registered
// with CUDA once per allocation; each present maps one, copies the device image into its array on
// the image's stream (device to device), and unmaps. GL then samples the texture: the pixels never
// pass through the host, and GL makes no copy of its own.
#include "renderer_impl.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/fault_injection.hpp>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <utility>

namespace lacuna::render {

InteropRegistration::~InteropRegistration() {
    if (resource == nullptr) return;
    if (mapped) cudaGraphicsUnmapResources(1, &resource, stream);
    cudaGraphicsUnregisterResource(resource);
}

namespace {
void unmap(InteropRegistration* registration) {
    if (registration == nullptr || !registration->mapped) return;
    cudaGraphicsUnmapResources(1, &registration->resource, registration->stream);
    registration->mapped = false;
}

void map(InteropRegistration* registration) {
    if (registration == nullptr || registration->mapped) return;
    registration->mapped =
        cudaGraphicsMapResources(1, &registration->resource, registration->stream) == cudaSuccess;
    if (!registration->mapped) (void)cudaGetLastError();
}
}  // namespace

void ImageRenderer::Impl::unmap_textures() {
    unmap(registration.get());
    unmap(mask_registration.get());
}

void ImageRenderer::map_ahead() {
    map(impl_->registration.get());
    map(impl_->mask_registration.get());
}

void ImageRenderer::Impl::release_interop() {
    registration.reset();
    mask_registration.reset();
    samples_registration.reset();
    if (source_ready != nullptr) cudaEventDestroy(std::exchange(source_ready, nullptr));
    if (copy_done != nullptr) cudaEventDestroy(std::exchange(copy_done, nullptr));
    interop_stream.reset();
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

/// Times the stages of a present when profiling (each stage waited for first).
class StageClock {
  public:
    StageClock(const bool on, cudaStream_t stream) : on_(on), stream_(stream) {
        if (on_) start_ = std::chrono::steady_clock::now();
    }
    void lap(double& sum) {
        if (!on_) return;
        cudaStreamSynchronize(stream_);
        const auto now = std::chrono::steady_clock::now();
        sum += std::chrono::duration<double, std::milli>(now - start_).count();
        start_ = now;
    }

  private:
    bool on_;
    cudaStream_t stream_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace

/// The renderer's interop stream and its two events, made on first use.
bool ImageRenderer::Impl::ensure_interop_stream(std::string& error) {
    if (interop_stream) return true;
    try {
        interop_stream = std::make_unique<OwnedStream>();
    } catch (const Error& e) {
        error = e.what();
        return false;
    }
    for (CUevent_st** event : {&source_ready, &copy_done}) {
        cudaEvent_t created = nullptr;
        const cudaError_t status = cudaEventCreateWithFlags(&created, cudaEventDisableTiming);
        if (status != cudaSuccess) {
            error = cuda_message("cannot create an interop event", status);
            return false;
        }
        *event = created;
    }
    return true;
}

/// Copies a pitched device image into the top-left corner of a registered texture, on the
/// renderer's interop stream: it starts after the work already enqueued on the image's stream,
/// and later work on the image's stream waits for it (no frame ever shows a half-written image,
/// and the next edit never races the copy).
bool ImageRenderer::Impl::copy_into_texture(std::unique_ptr<InteropRegistration>& registration,
                                            const unsigned texture, const void* device_data,
                                            const std::size_t pitch, const std::size_t row_bytes,
                                            const int height, DeviceStream image_stream,
                                            std::string& error) {
    if (!ensure_interop_stream(error)) return false;
    InteropProfile* const profile_sum = profiling ? &profile : nullptr;
    cudaStream_t stream = interop_stream->get();
    if (!registration) {
        if (!gl_context_on_cuda_device(error)) return false;
        auto fresh = std::make_unique<InteropRegistration>();
        // Not write-discard: a texture mapped ahead and unmapped unwritten (a repaint with no
        // new pixels) must keep what it shows.
        const cudaError_t status = cudaGraphicsGLRegisterImage(
            &fresh->resource, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsNone);
        if (status != cudaSuccess) {
            fresh->resource = nullptr;
            error = cuda_message("cannot register the display texture with CUDA", status);
            return false;
        }
        fresh->stream = stream;
        registration = std::move(fresh);
        ++texture_registrations;
    }
    cudaGraphicsResource* resource = registration->resource;
    StageClock clock(profile_sum != nullptr, stream);
    cudaEventRecord(source_ready, image_stream);
    cudaStreamWaitEvent(stream, source_ready, 0);
    // Mapped ahead (map_ahead): the wait for GL already happened.
    if (!registration->mapped) {
        const cudaError_t status = cudaGraphicsMapResources(1, &resource, stream);
        if (status != cudaSuccess) {
            error = cuda_message("cannot map the display texture", status);
            return false;
        }
    }
    registration->mapped = false;  // unmapped below, whatever happens
    if (profile_sum != nullptr) clock.lap(profile_sum->map_ms);
    cudaError_t status = cudaSuccess;
    cudaArray_t array = nullptr;
    status = cudaGraphicsSubResourceGetMappedArray(&array, resource, 0, 0);
    // The copy counts as a launch for the fault-injection switch (LACUNA_CUDA_FAULT): it is the
    // one device operation of presenting.
    if (status == cudaSuccess)
        status = lacuna::detail::cuda_fault_due(lacuna::detail::FaultSite::Launch)
                     ? cudaErrorLaunchOutOfResources
                     : cudaMemcpy2DToArrayAsync(array, 0, 0, device_data, pitch, row_bytes,
                                                static_cast<std::size_t>(height),
                                                cudaMemcpyDeviceToDevice, stream);
    if (profile_sum != nullptr) clock.lap(profile_sum->copy_ms);
    // Unmapping orders the copy before GL's next use of the texture.
    const cudaError_t unmap = cudaGraphicsUnmapResources(1, &resource, stream);
    cudaEventRecord(copy_done, stream);
    cudaStreamWaitEvent(image_stream, copy_done, 0);
    if (profile_sum != nullptr) {
        clock.lap(profile_sum->unmap_ms);
        ++profile_sum->presents;
    }
    if (status != cudaSuccess || unmap != cudaSuccess) {
        error = cuda_message("the copy into the display texture failed",
                             status != cudaSuccess ? status : unmap);
        return false;
    }
    return true;
}

bool ImageRenderer::set_image(const DeviceImage<Rgba8>& image, std::string& error) {
    Impl& impl = *impl_;
    if (!impl.ready || image.empty()) {
        error = "nothing to present";
        return false;
    }
    impl.reserve_texture(image.width(), image.height());
    const ImageView<const Rgba8> view = image.device_view();
    if (!impl.copy_into_texture(impl.registration, impl.texture, view.data, view.pitch,
                                view.row_bytes(), view.height, image.stream(), error))
        return false;
    impl.image_w = image.width();
    impl.image_h = image.height();
    impl.showing_samples = false;
    impl.image_sample_channels = 0;
    impl.last_was_interop = true;
    return true;
}

bool ImageRenderer::set_samples(const DeviceImage<std::uint8_t>& rows, const PixelFormat format,
                                const int width, std::string& error) {
    Impl& impl = *impl_;
    if (!impl.ready || rows.empty()) {
        error = "nothing to present";
        return false;
    }
    if (format.channels == 3 || format.sample == SampleType::I16) {
        // Measured on an H100: registering GL_R16_SNORM fails with "invalid argument", and
        // 3-channel textures cannot be registered at all. Those upload from the host copy, only
        // when the samples change.
        error = format.channels == 3 ? "CUDA cannot register 3-channel textures"
                                     : "CUDA cannot register signed-normalised textures";
        return false;
    }
    impl.reserve_samples_texture(width, rows.height(), format);
    const ImageView<const std::uint8_t> view = rows.device_view();
    if (!impl.copy_into_texture(impl.samples_registration, impl.samples_texture, view.data,
                                view.pitch, view.row_bytes(), view.height, rows.stream(), error))
        return false;
    impl.image_w = width;
    impl.image_h = rows.height();
    impl.showing_samples = true;
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
    impl.reserve_mask_texture(mask.width(), mask.height());
    const ImageView<const std::uint8_t> view = mask.device_view();
    return impl.copy_into_texture(impl.mask_registration, impl.mask_texture, view.data, view.pitch,
                                  view.row_bytes(), view.height, mask.stream(), error);
}

}  // namespace lacuna::render
