// Test-only fault injection for the CUDA backend: makes the N-th device allocation or kernel
// launch fail, so tests can show that every GPU path falls back to the CPU with the document and
// the undo history intact. Set by the environment variable LACUNA_CUDA_FAULT (read once, at the
// first allocation or launch) or by arm_cuda_faults in a test. Costs one relaxed atomic
// increment per allocation and per launch when nothing is armed.
#pragma once

#include <string_view>

namespace lacuna {

namespace testing {
/// `spec`: "alloc:N" and/or "launch:N", joined by ','. Counting starts now: the N-th device
/// allocation (device images, buffers, pinned staging) or kernel launch from here on fails,
/// once. "" disarms. Throws Error(InvalidArgument) for a malformed spec, naming it.
void arm_cuda_faults(std::string_view spec);
/// Faults injected since the last arm_cuda_faults (or since the process started).
[[nodiscard]] int cuda_faults_injected() noexcept;
/// Whether a fault is armed (by arm_cuda_faults or LACUNA_CUDA_FAULT): such a run is there to
/// exercise the device path, so `--backend auto` does not keep small jobs off the device.
[[nodiscard]] bool cuda_faults_armed() noexcept;
}  // namespace testing

namespace detail {
enum class FaultSite { Allocation, Launch };
/// True when this allocation or launch is the one armed to fail (counts it either way).
[[nodiscard]] bool cuda_fault_due(FaultSite site) noexcept;
}  // namespace detail

}  // namespace lacuna
