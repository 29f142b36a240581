#include <lacuna/core/transfer_stats.hpp>

namespace lacuna {
namespace {
thread_local TransferStats this_thread;
}  // namespace

TransferStats transfer_stats() noexcept {
    return this_thread;
}

namespace detail {
void count_upload(const std::uint64_t bytes) noexcept {
    ++this_thread.uploads;
    this_thread.upload_bytes += bytes;
}
void count_download(const std::uint64_t bytes) noexcept {
    ++this_thread.downloads;
    this_thread.download_bytes += bytes;
}
}  // namespace detail

}  // namespace lacuna
