// Shared by the harnesses: reads typed values from the fuzzer's bytes (zeros once they run out,
// so every input is usable), and a private scratch folder for the APIs that read files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <unistd.h>
#include <vector>

namespace lacuna::fuzz {

class Input {
  public:
    Input(const std::uint8_t* data, const std::size_t size) : bytes_(data, size) {}

    [[nodiscard]] std::size_t left() const { return bytes_.size() - at_; }

    template <class T>
    T take() {
        T value{};
        const std::size_t n = std::min(sizeof(T), left());
        if (n > 0) std::memcpy(&value, bytes_.data() + at_, n);
        at_ += n;
        return value;
    }
    std::uint8_t byte() { return take<std::uint8_t>(); }
    /// A value in lo..hi (inclusive), from one or two bytes.
    int in_range(const int lo, const int hi) {
        const auto span = static_cast<unsigned>(hi - lo) + 1u;
        const unsigned raw = span <= 256 ? byte() : take<std::uint16_t>();
        return lo + static_cast<int>(raw % span);
    }
    /// The rest of the input.
    std::span<const std::uint8_t> rest() {
        const auto r = bytes_.subspan(at_);
        at_ = bytes_.size();
        return r;
    }

  private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

/// A folder of this process's own in /dev/shm (or the temp folder), made once and removed at exit.
inline const std::filesystem::path& scratch_dir() {
    static const std::filesystem::path dir = [] {
        std::filesystem::path base = "/dev/shm";
        if (!std::filesystem::is_directory(base)) base = std::filesystem::temp_directory_path();
        std::string pattern = (base / "lacuna-fuzz-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) {
            std::perror("lacuna fuzz: mkdtemp");
            std::abort();
        }
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(scratch_dir(), ignored);
        });
        return std::filesystem::path(pattern);
    }();
    return dir;
}

/// Writes `bytes` to `name` in the scratch folder and returns the path.
inline std::filesystem::path write_scratch(const std::string& name,
                                           std::span<const std::uint8_t> bytes) {
    const std::filesystem::path path = scratch_dir() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::perror("lacuna fuzz: writing the scratch file");
        std::abort();
    }
    return path;
}

/// Stops the run with a message: an invariant the harness checks does not hold.
[[noreturn]] inline void violated(const char* what) {
    std::fprintf(stderr, "lacuna fuzz: invariant violated: %s\n", what);
    std::abort();
}

}  // namespace lacuna::fuzz
