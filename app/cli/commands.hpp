// The `lacuna` command-line tool: one table of subcommands (commands()); each command lives in its
// own cmd_<name>.cpp and is listed there.
#pragma once

#include "args.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/ops/importance.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace lacuna::cli {

/// Exit statuses: 0 success, 1 the operation failed (bad file, device), 2 bad usage.
enum ExitStatus : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2 };

struct Context {
    ParsedArgs args;
    bool json = false;
    BackendRequest backend = BackendRequest::Auto;
    std::ostream& out;
    std::ostream& err;

    /// Prints "lacuna: note: ..." on stderr (never on stdout, which may carry JSON).
    void note(const std::string& text) const;
    /// Resolves --backend, printing a note when auto falls back to the CPU.
    [[nodiscard]] BackendInfo select_backend() const;
    /// The same for a job whose CPU time is about `estimated_cpu_ms` on this machine: under
    /// --backend auto, a job the CPU finishes before the device could start stays on the CPU
    /// (prefer_cpu_for), without creating a CUDA context; the reason says so (and --json).
    [[nodiscard]] BackendInfo select_backend(double estimated_cpu_ms) const;

    /// Runs work(backend) on the backend chosen. When the work fails on the device and the
    /// fallback policy (lacuna::falls_back_to_cpu: a device failure under --backend auto) says
    /// so, the failure is noted and the work is done again on the CPU, from the same inputs: a
    /// batch of hundreds still gets every result. With --backend cuda the failure is the answer.
    template <class Work>
    auto with_cpu_fallback(const Backend chosen, Work&& work) const {
        if (chosen != Backend::Cuda) return work(chosen);
        try {
            return work(Backend::Cuda);
        } catch (const Error& e) {
            if (!falls_back_to_cpu(backend, e)) throw;
            note(std::string("the GPU failed (") + e.what() + "); running on the CPU instead");
        }
        return work(Backend::Cpu);
    }
};

struct Command {
    CommandSpec spec;
    std::function<int(Context&)> run;
};

const std::vector<Command>& commands();

// Subcommands defined in their own files.
Command histogram_command();
Command kymograph_command();
Command retarget_command();
int run_retarget(Context& ctx);
/// run_retarget for videos (IN is a video file or an image-sequence pattern).
int run_retarget_video(Context& ctx);
/// retarget's importance switches and weights (--faces, --saliency, …); faces default on for
/// images, off for videos.
ops::ImportanceParams importance_options(const ParsedArgs& args, bool faces_by_default);
int run_inpaint(Context& ctx);
/// run_inpaint for videos (IN is a video file or an image-sequence pattern).
int run_inpaint_video(Context& ctx);
int bench_video_inpaint(Context& ctx);
int bench_inpaint(Context& ctx);
int bench_video(Context& ctx);
int bench_batch(Context& ctx);
int bench_bilateral(Context& ctx);
Command bench_command();
Command inpaint_command();
Command batch_command();
Command filter_command();
Command scale_command();
int bench_scale(Context& ctx);
int bench_conv3d(Context& ctx);
int bench_kymograph(Context& ctx);
/// lacuna bench startup: whole processes of the CLI (`--version`, `backend`, a small inpaint
/// under each backend), interleaved, as issue 37's start-up rows measure them.
int bench_startup(Context& ctx);
int bench_retarget_quality(Context& ctx);

/// Reads a mask image (non-black or non-transparent pixels are selected) and checks its size.
Mask load_mask(const std::string& path, const char* what, int width, int height);

/// Runs the tool on argv[1..]; never throws.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lacuna::cli
