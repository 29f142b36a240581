// Which device runs the operations: the user asks for auto, cpu or cuda; the selector reports what
// is used and, when CUDA is not, why (built without it, no device, driver too old, out of memory).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace lacuna {

class Error;

enum class BackendRequest { Auto, Cpu, Cuda };
enum class Backend { Cpu, Cuda };

/// Why CUDA is not in use.
enum class CudaUnavailableReason {
    None,          ///< CUDA is available
    NotRequested,  ///< the user asked for the CPU
    NotBuilt,      ///< this build has no CUDA backend
    NoDevice,      ///< no CUDA-capable device is visible
    DriverTooOld,  ///< the driver is older than the CUDA runtime this build links
    OutOfMemory,   ///< a device exists but cannot give us working memory
    Other,         ///< any other CUDA runtime failure (detail in the message)
    SmallJob,      ///< auto: the CPU finishes the job before the device could start
};

/// What a process pays before its first device work: the driver and the CUDA context (about
/// 0.25 s on an H100 machine, measured with a bare runtime program), plus the probe. A job the
/// CPU finishes sooner stays there under `--backend auto` (prefer_cpu_for).
constexpr double kDeviceStartMs = 300;

/// Whether `--backend auto` keeps a job on the CPU: its estimated time on this machine's CPU
/// threads (estimated_cpu_ms) is less than starting the device would take. Decided before any
/// CUDA call, so a small job never pays for the context.
[[nodiscard]] bool prefer_cpu_for(double estimated_cpu_ms) noexcept;

struct BackendInfo {
    Backend backend = Backend::Cpu;
    CudaUnavailableReason cuda_reason = CudaUnavailableReason::NotRequested;
    std::string reason;  ///< one sentence; empty when CUDA is used
    // Filled when CUDA is used.
    int device_index = -1;
    std::string device_name;
    int compute_major = 0;
    int compute_minor = 0;
    std::size_t device_memory_bytes = 0;

    /// "CUDA: NVIDIA H100 80GB HBM3 (sm_90)" or "CPU (no CUDA device found)".
    [[nodiscard]] std::string describe() const;
};

/// Parses "auto", "cpu" or "cuda"; std::nullopt otherwise.
std::optional<BackendRequest> parse_backend_request(std::string_view text);
std::string_view to_string(Backend backend);
std::string_view to_string(BackendRequest request);

/// True if this binary was built with the CUDA backend.
bool cuda_built() noexcept;
/// The CUDA devices this process can see (0 without a CUDA build, driver or device).
int cuda_device_count() noexcept;
/// Makes this process's host threads sleep, not spin, while they wait for the device. A batch
/// runs many carves at once, each waiting on its own stream; spinning, each would hold a CPU core
/// the decoders and encoders need. Call before the first CUDA work; false if it did not apply
/// (no CUDA build, or the device was already in use).
bool cuda_prefer_blocking_sync() noexcept;
/// Asks for 32 hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, unless the user set it): video
/// carving runs up to 32 frames' single-block kernels on as many streams, and with the default 8
/// queues streams sharing one wait for each other's work. Read when the CUDA context is created,
/// which it makes slower (H100: `lacuna backend` 1.04 s with 32 queues, 0.48 s with 8): so only
/// the jobs that carve video ask for it, before their first CUDA call (the CLI's video
/// retargeting and its benchmark, a batch with videos; the editor's main).
void cuda_prefer_many_queues() noexcept;

/// Probes CUDA (once per process; later calls reuse the result) and decides. Auto falls back to the
/// CPU with a reason; Cuda throws Error(CudaUnavailable) with the reason when CUDA cannot be used.
BackendInfo select_backend(BackendRequest request);

/// The one CPU-fallback policy, used by the CLI (Context::with_cpu_fallback) and the editor's
/// session (Session::guarded, opening a document, a filter's preview):
/// - a device failure is an Error coded DeviceError, OutOfMemory or CudaUnavailable — the GPU
///   failed, not the input, so the same work on the CPU can succeed;
/// - work that failed that way is done again on the CPU only when the user let Lacuna choose
///   (`request` Auto); a user who asked for CUDA gets the failure. The editor always chooses.
/// Any other error (a bad file, a refused parameter, a cancel) is the answer on every backend.
[[nodiscard]] bool is_device_failure(const Error& e) noexcept;
[[nodiscard]] bool falls_back_to_cpu(BackendRequest request, const Error& e) noexcept;

/// The sentence used for a reason, e.g. for NoDevice "no CUDA device found". `detail` is appended
/// for Other and OutOfMemory.
std::string describe_reason(CudaUnavailableReason reason, std::string_view detail = {});

}  // namespace lacuna
