// Internal: keeps what codec libraries print to stderr (OpenCV's BMP and Netpbm readers; GDCM's
// libjpeg, OpenJPEG and CharLS) off the user's terminal. libpng, libjpeg-turbo, libtiff, libwebp
// and giflib, which Lacuna calls directly, report through their own callbacks (codecs.hpp). Lacuna reports problems in its
// own one line; the codec's first complaint can be quoted in it.
//
// While a CodecOutput lives, file descriptor 2 points at a temporary file; first_line() reads
// back what arrived. Process-wide, so one capture at a time (the mutex); another thread's stderr
// output during a decode lands in the capture too, and is dropped with it.
#pragma once

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unistd.h>

namespace lacuna::io::detail {

#if defined(__SANITIZE_ADDRESS__)
#define LACUNA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LACUNA_SANITIZED 1
#endif
#endif
#ifndef LACUNA_SANITIZED
#define LACUNA_SANITIZED 0
#endif

// Under ASan (the sanitizer tests, the fuzzers) stderr is left alone: a sanitizer report from
// inside GDCM must reach the log, not a temporary file that dies with the process.
class CodecOutput {
  public:
    CodecOutput() : lock_(mutex()) {
        if (LACUNA_SANITIZED) return;
        std::fflush(stderr);
        file_ = std::tmpfile();
        saved_ = ::dup(2);
        if (file_ == nullptr || saved_ < 0 || ::dup2(::fileno(file_), 2) < 0) restore();
    }
    ~CodecOutput() {
        restore();
        if (file_ != nullptr) std::fclose(file_);
    }
    CodecOutput(const CodecOutput&) = delete;
    CodecOutput& operator=(const CodecOutput&) = delete;

    /// The first line the codecs printed, empty if none.
    std::string first_line() {
        restore();
        if (captured_.empty() && file_ != nullptr) {
            std::rewind(file_);
            char line[512] = {};
            if (std::fgets(line, sizeof line, file_) != nullptr) captured_ = line;
            while (!captured_.empty() && (captured_.back() == '\n' || captured_.back() == '\r'))
                captured_.pop_back();
        }
        return captured_;
    }

  private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    void restore() {
        if (saved_ >= 0) {
            std::fflush(stderr);
            ::dup2(saved_, 2);
            ::close(saved_);
            saved_ = -1;
        }
    }

    std::lock_guard<std::mutex> lock_;
    std::FILE* file_ = nullptr;
    int saved_ = -1;
    std::string captured_;
};

}  // namespace lacuna::io::detail
