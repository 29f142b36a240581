// Spatio-temporal 3-D convolution over (x, y, t): a k × k × k kernel over
// a stack of frames, for video denoising and temporal smoothing. Single-channel float volumes;
// colour video runs it per channel. The operation is a correlation (the kernel is not flipped,
// as OpenCV's filter2D), "valid" in time — N input frames give N − k + 1 output frames, Lin et
// al.'s k + 3 → 4 — and mirrored at the spatial borders without repeating the edge pixel
// (BORDER_REFLECT_101). Every implementation sums in the same order (t, then y, then x of the
// kernel), so the fast CPU path and all three CUDA algorithms give identical floats.
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace lacuna::ops {

inline constexpr int kMaxConv3dSize = 31;

/// Frames of width × height floats, frame after frame, row after row.
struct Volume {
    int width = 0, height = 0, frames = 0;
    std::vector<float> data;
    Volume() = default;
    Volume(int w, int h, int n) : width(w), height(h), frames(n), data(std::size_t(w) * h * n) {}
    [[nodiscard]] float& at(int x, int y, int t) {
        return data[(std::size_t(t) * height + y) * width + x];
    }
    [[nodiscard]] float at(int x, int y, int t) const {
        return data[(std::size_t(t) * height + y) * width + x];
    }
};

/// k × k × k weights, [dt][dy][dx].
struct Kernel3D {
    int size = 1;
    std::vector<float> weights{1.0f};
};

/// Every weight 1/k³.
Kernel3D box_kernel(int k);
/// A separable Gaussian, normalised to sum 1: σ in x and y, and σ in t.
Kernel3D gaussian_kernel(int k, double sigma_space, double sigma_time);

/// Temporal smoothing's settings: the Gaussian kernel gaussian_kernel(size, sigma_space,
/// sigma_time) builds (declared in the parameter tables, lacuna/ops/params.hpp).
struct TemporalSmoothParams {
    int size = 5;            ///< k of the k × k × k Gaussian (odd)
    double sigma_space = 1;  ///< pixels
    double sigma_time = 1;   ///< frames
};
/// Any weights the user gives (k³ finite values, [dt][dy][dx]).
Kernel3D kernel_from_values(int k, std::vector<float> weights);

/// Throws Error(InvalidArgument) unless k is odd, 1..kMaxConv3dSize, the weights are k³ finite
/// values, the frames are at least 1 × 1 and there are at least k of them.
void check_conv3d(int width, int height, int frames, const Kernel3D& kernel);

/// The gold: every output from its definition, sums in double.
Volume conv3d_reference(const Volume& in, const Kernel3D& kernel);
/// The fast CPU path: mirrored copies of the frames, rows split over the cores, float sums of
/// whole rows at a time (vectorised). Identical to the CUDA algorithms.
Volume conv3d_fast(const Volume& in, const Kernel3D& kernel);

enum class Conv3dAlgorithm {
    Baseline,   ///< one thread per output value, every input read from global memory (k³ loads)
    Shared,     ///< a block stages each input frame's tile (with its halo) in shared memory
    Streaming,  ///< a block walks the frames once; each loaded tile is given to every output
                ///< frame that uses it (k running sums per thread)
    HybridFft,  ///< 2-D FFT of every frame and kernel slice, a 1-D temporal sum of spectra,
                ///< inverse FFT (own radix-2 FFT; equal to the others within float rounding)
};
std::string_view to_string(Conv3dAlgorithm algorithm);

/// The CUDA convolution as a device-in/device-out object on one stream. Its weights and the
/// volumes live in grow-only device buffers; the volumes' rows are pitched (padded to 128
/// bytes), as the kernels expect any row pitch.
class CudaConv3d {
  public:
    explicit CudaConv3d(DeviceStream stream);
    ~CudaConv3d();
    CudaConv3d(const CudaConv3d&) = delete;
    CudaConv3d& operator=(const CudaConv3d&) = delete;

    /// Uploads the input volume (synchronously) and the kernel.
    void upload(const Volume& in, const Kernel3D& kernel);
    /// Convolves what upload() gave into the device output (enqueued; nothing waits).
    void run(Conv3dAlgorithm algorithm);
    /// Waits and copies the output volume back.
    [[nodiscard]] Volume download() const;
    /// Milliseconds of device time for `repeats` runs (median, CUDA events).
    [[nodiscard]] double time_ms(Conv3dAlgorithm algorithm, int repeats);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Host in, host out on the device (upload, run, download).
Volume conv3d_cuda(const Volume& in, const Kernel3D& kernel, Conv3dAlgorithm algorithm);

/// Temporal smoothing of a clip (Filters ▸ Temporal Smoothing, `lacuna filter temporal`): each
/// colour channel of every frame convolved with `kernel` over (x, y, t), the clip mirrored at its
/// first and last frame (… f2 f1 | f0 f1 … fn−1 | fn−2 …) so it keeps its frame count. Frames go
/// in one at a time; each returns the output frames it completed (the first after k/2 + 1 input
/// frames), finish() the rest. Alpha is the input frame's. Only the last k frames are kept.
class TemporalFilter {
  public:
    /// `use_cuda`: the streaming CUDA algorithm (throws CudaUnavailable without CUDA), else the
    /// fast CPU path; both give the same frames.
    TemporalFilter(Kernel3D kernel, bool use_cuda);
    ~TemporalFilter();
    TemporalFilter(const TemporalFilter&) = delete;
    TemporalFilter& operator=(const TemporalFilter&) = delete;

    /// Frames must all have the first one's size (InvalidArgument otherwise).
    std::vector<ImageRgba8> push(const ImageRgba8& frame);
    std::vector<ImageRgba8> finish();
    [[nodiscard]] int frames_in() const { return received_; }

  private:
    ImageRgba8 output(int index, int total) const;
    Kernel3D kernel_;
    std::unique_ptr<CudaConv3d> cuda_;
    std::unique_ptr<OwnedStream> stream_;
    std::vector<ImageRgba8> window_;  ///< the last k frames received (oldest first)
    int received_ = 0;
    int emitted_ = 0;
};

}  // namespace lacuna::ops
