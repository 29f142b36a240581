#include <lacuna/core/error.hpp>
#include <lacuna/io/video_io.hpp>
#include <lacuna/kernels/border.h>
#include <lacuna/video/smooth_video.hpp>

#include <chrono>
#include <deque>

namespace lacuna::video {

SmoothVideoResult smooth_video(const SmoothVideoOptions& o, const VideoProgressFn& progress) {
    const ops::Kernel3D kernel = ops::gaussian_kernel(o.size, o.sigma_space, o.sigma_time);
    const auto start = std::chrono::steady_clock::now();
    io::VideoReader reader(o.input);
    const io::VideoInfo info = reader.info();
    io::VideoWriter writer(o.output, info.width, info.height, info.fps);
    ops::TemporalFilter filter(kernel, o.use_cuda);
    SmoothVideoResult result;
    const auto write = [&](const std::vector<ImageRgba8>& frames) {
        for (const ImageRgba8& f : frames) {
            writer.write(f);
            VideoProgress p;
            p.frame = writer.frames_written();
            p.total = info.frame_count;
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            p.fps = seconds > 0 ? p.frame / seconds : 0;
            if (p.total > 0 && p.fps > 0) p.seconds_left = (p.total - p.frame) / p.fps;
            // The writer is destroyed unfinished on the way out: its temporary file goes too.
            if (progress && !progress(p))
                throw Error(ErrorCode::Cancelled, "the export was cancelled; nothing was written");
        }
    };
    while (const std::optional<ImageRgba8> frame = reader.next()) write(filter.push(*frame));
    if (reader.ended_early()) {
        if (!o.allow_truncated)
            throw Error(ErrorCode::Truncated, reader.warning() + "; nothing was written");
        result.notices.push_back(reader.warning());
    }
    write(filter.finish());
    writer.finish();
    for (const std::string& n : writer.notices()) result.notices.push_back(n);
    result.frames = writer.frames_written();
    result.fps = info.fps;
    result.output_codec = writer.codec();
    result.backend = o.use_cuda ? "cuda" : "cpu";
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

ImageRgba8 smoothed_frame(const std::filesystem::path& input, const int index,
                          const SmoothVideoOptions& o) {
    const ops::Kernel3D kernel = ops::gaussian_kernel(o.size, o.sigma_space, o.sigma_time);
    const int r = o.size / 2;
    // Decode up to index + r, keeping the last k frames; a clip shorter than that ends early.
    io::VideoReader reader(input);
    std::deque<ImageRgba8> kept;
    int decoded = 0;
    while (decoded <= index + r) {
        std::optional<ImageRgba8> frame = reader.next();
        if (!frame) break;
        kept.push_back(std::move(*frame));
        ++decoded;
        if (static_cast<int>(kept.size()) > 2 * r + 1 + r) kept.pop_front();
    }
    if (index < 0 || index >= decoded)
        throw Error(ErrorCode::InvalidArgument, "frame " + std::to_string(index) +
                                                    " is not in the clip (" +
                                                    std::to_string(decoded) + " frames decode)");
    // The same frames the export gives at `index`: the clip ends where decoding stopped only
    // if it stopped before index + r (its real end), else it goes on.
    const bool at_end = decoded <= index + r;
    const int first = decoded - static_cast<int>(kept.size());
    ops::TemporalFilter filter(kernel, o.use_cuda);
    std::vector<ImageRgba8> outputs;
    // The window index − r … index + r, mirrored at the clip's start (and end when it is near).
    for (int t = index - r; t <= index + r; ++t) {
        const int s = at_end ? border::reflect101(t, decoded) : (t < 0 ? -t : t);
        for (ImageRgba8& f : filter.push(kept[static_cast<std::size_t>(s - first)]))
            outputs.push_back(std::move(f));
    }
    for (ImageRgba8& f : filter.finish()) outputs.push_back(std::move(f));
    // In a window of exactly k frames the middle output reads no mirrored frame of its own.
    return std::move(outputs[static_cast<std::size_t>(r)]);
}

}  // namespace lacuna::video
