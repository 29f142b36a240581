// Host <-> device traffic, counted where it happens (DeviceImage and DeviceBuffer copies), so
// tests and benchmarks can assert what an interaction moved instead of guessing. Counts are kept
// per thread: a background job (a seam carve) never shows up in the GUI thread's numbers.
#pragma once

#include <cstdint>

namespace lacuna {

struct TransferStats {
    std::uint64_t uploads = 0;  ///< host -> device copies (calls)
    std::uint64_t upload_bytes = 0;
    std::uint64_t downloads = 0;  ///< device -> host copies (calls)
    std::uint64_t download_bytes = 0;

    friend TransferStats operator-(const TransferStats& a, const TransferStats& b) {
        return {a.uploads - b.uploads, a.upload_bytes - b.upload_bytes, a.downloads - b.downloads,
                a.download_bytes - b.download_bytes};
    }
    friend TransferStats operator+(const TransferStats& a, const TransferStats& b) {
        return {a.uploads + b.uploads, a.upload_bytes + b.upload_bytes, a.downloads + b.downloads,
                a.download_bytes + b.download_bytes};
    }
    friend bool operator==(const TransferStats&, const TransferStats&) = default;
};

/// What the calling thread has copied between host and device since it started.
TransferStats transfer_stats() noexcept;

namespace detail {
void count_upload(std::uint64_t bytes) noexcept;
void count_download(std::uint64_t bytes) noexcept;
}  // namespace detail

}  // namespace lacuna
