// GIF through giflib (codecs.hpp): frames composed on the logical screen as viewers show an
// animation (frame rectangle, transparent index, disposal), read record by record so that no
// frame is held larger than a row, whatever size its descriptor claims.
#include "codecs.hpp"
#include "io_messages.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace lacuna::io::detail {
namespace {

struct Source {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    std::size_t at = 0;
};

int read_gif(GifFileType* gif, GifByteType* out, const int n) {
    auto& s = *static_cast<Source*>(gif->UserData);
    const std::size_t count =
        std::min<std::size_t>(static_cast<std::size_t>(std::max(n, 0)), s.size - s.at);
    std::memcpy(out, s.data + s.at, count);
    s.at += count;
    return static_cast<int>(count);
}

struct GifCloser {
    void operator()(GifFileType* gif) const {
        int ignored = 0;
        DGifCloseFile(gif, &ignored);
    }
};

[[noreturn]] void gif_failed(const std::string_view name, const int code, const Source& s) {
    const char* said = GifErrorString(code);
    if (code == D_GIF_ERR_READ_FAILED || (s.at >= s.size && code == D_GIF_ERR_DATA_TOO_BIG))
        fail_read(ErrorCode::Truncated, name,
                  "the GIF file is truncated (it ends before its image data does)");
    fail_read(ErrorCode::Corrupt, name,
              std::string("the file is corrupt or not decodable (giflib says \"") +
                  (said != nullptr ? said : "unknown error") + "\")");
}

// The rows of an interlaced frame arrive in four passes: every 8th from 0, every 8th from 4,
// every 4th from 2, every 2nd from 1. Row `line` of the stream lands on this row of the frame.
int interlaced_row(const int line, const int height) {
    const int starts[] = {0, 4, 2, 1};
    const int steps[] = {8, 8, 4, 2};
    int seen = 0;
    for (int pass = 0; pass < 4; ++pass) {
        const int rows =
            starts[pass] < height ? (height - starts[pass] + steps[pass] - 1) / steps[pass] : 0;
        if (line < seen + rows) return starts[pass] + (line - seen) * steps[pass];
        seen += rows;
    }
    return line;
}

}  // namespace

std::vector<cv::Mat> decode_gif(const std::vector<std::uint8_t>& bytes, const std::string_view name,
                                const bool all_pages, std::vector<std::string>& notices) {
    Source source{bytes.data(), bytes.size(), 0};
    int code = 0;
    const std::unique_ptr<GifFileType, GifCloser> gif(DGifOpen(&source, read_gif, &code));
    if (!gif) gif_failed(name, code, source);
    const int width = gif->SWidth, height = gif->SHeight;
    if (width <= 0 || height <= 0)
        fail_read(ErrorCode::EmptyImage, name,
                  "the image has zero size (" + std::to_string(width) + "x" +
                      std::to_string(height) + ")");
    check_image_size(width, height);
    cv::Mat canvas(height, width, CV_8UC4, cv::Scalar::all(0));  // B, G, R, A: nothing painted
    std::vector<cv::Mat> frames;
    GraphicsControlBlock control{DISPOSE_DO_NOT, false, 0, NO_TRANSPARENT_COLOR};
    std::vector<GifByteType> line;
    std::int64_t total_pixels = 0;
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    // A file damaged or cut after a complete frame still shows the frames before (as viewers
    // do), with a notice; damage in the first frame refuses the file.
    const auto damaged_after_a_frame = [&] {
        if (frames.empty()) return false;
        notices.push_back("the GIF is damaged or cut in frame " +
                          std::to_string(frames.size() + 1) + ": the " +
                          std::to_string(frames.size()) + " frame(s) before it are shown");
        return true;
    };
    bool stop = false;
    do {
        if (DGifGetRecordType(gif.get(), &record) == GIF_ERROR) {
            if (damaged_after_a_frame()) break;
            gif_failed(name, gif->Error, source);
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int ext_code = 0;
            GifByteType* ext = nullptr;
            if (DGifGetExtension(gif.get(), &ext_code, &ext) == GIF_ERROR) {
                if (damaged_after_a_frame()) break;
                gif_failed(name, gif->Error, source);
            }
            if (ext_code == GRAPHICS_EXT_FUNC_CODE && ext != nullptr && ext[0] >= 4)
                DGifExtensionToGCB(ext[0], ext + 1, &control);
            while (ext != nullptr && !stop)
                if (DGifGetExtensionNext(gif.get(), &ext) == GIF_ERROR) {
                    if (!damaged_after_a_frame()) gif_failed(name, gif->Error, source);
                    stop = true;
                }
            if (stop) break;
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif.get()) == GIF_ERROR) {
            if (damaged_after_a_frame()) break;
            gif_failed(name, gif->Error, source);
        }
        const GifImageDesc& desc = gif->Image;
        if (desc.Width <= 0 || desc.Height <= 0 ||
            std::int64_t{desc.Width} * desc.Height > kMaxImagePixels)
            fail_read(ErrorCode::Corrupt, name,
                      "frame " + std::to_string(frames.size() + 1) + " has an invalid size (" +
                          std::to_string(desc.Width) + "x" + std::to_string(desc.Height) + ")");
        total_pixels += std::int64_t{width} * height;
        if (!frames.empty() && total_pixels > kMaxImagePixels) {
            notices.push_back("frames " + std::to_string(frames.size() + 1) +
                              " and later left out: the stack would exceed " +
                              std::to_string(kMaxImagePixels) + " pixels");
            break;
        }
        const ColorMapObject* map = desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
        if (map == nullptr || map->Colors == nullptr)
            fail_read(ErrorCode::Corrupt, name,
                      "frame " + std::to_string(frames.size() + 1) + " has no colour table");
        const cv::Mat before =
            control.DisposalMode == DISPOSE_PREVIOUS ? canvas.clone() : cv::Mat();
        line.assign(static_cast<std::size_t>(desc.Width), 0);
        for (int l = 0; l < desc.Height && !stop; ++l) {
            if (DGifGetLine(gif.get(), line.data(), desc.Width) == GIF_ERROR) {
                if (!damaged_after_a_frame()) gif_failed(name, gif->Error, source);
                stop = true;
                break;
            }
            const int y = desc.Top + (desc.Interlace ? interlaced_row(l, desc.Height) : l);
            if (y < 0 || y >= height) continue;
            auto* row = canvas.ptr<cv::Vec4b>(y);
            for (int i = 0; i < desc.Width; ++i) {
                const int x = desc.Left + i;
                const int index = line[static_cast<std::size_t>(i)];
                if (x >= width || index == control.TransparentColor) continue;
                if (index >= map->ColorCount)
                    fail_read(ErrorCode::Corrupt, name,
                              "frame " + std::to_string(frames.size() + 1) + " uses colour index " +
                                  std::to_string(index) + " beyond the " +
                                  std::to_string(map->ColorCount) + " colours of its colour table");
                const GifColorType c = map->Colors[index];
                row[x] = {c.Blue, c.Green, c.Red, 255};
            }
        }
        if (stop) break;
        frames.push_back(canvas.clone());
        if (!all_pages) break;
        // What the next frame is drawn on (GIF89a, 23.c.iv).
        const cv::Rect area =
            cv::Rect(desc.Left, desc.Top, desc.Width, desc.Height) & cv::Rect(0, 0, width, height);
        if (control.DisposalMode == DISPOSE_BACKGROUND && area.area() > 0)
            canvas(area).setTo(cv::Scalar::all(0));
        if (control.DisposalMode == DISPOSE_PREVIOUS) canvas = before;
        control = {DISPOSE_DO_NOT, false, 0, NO_TRANSPARENT_COLOR};
    } while (record != TERMINATE_RECORD_TYPE);
    if (frames.empty()) fail_read(ErrorCode::Corrupt, name, "the GIF holds no image");
    // Opaque frames are plain colour; any transparency keeps alpha on every frame.
    bool opaque = true;
    for (const cv::Mat& f : frames) {
        std::vector<cv::Mat> planes;
        cv::split(f, planes);
        double lowest = 0;
        cv::minMaxLoc(planes[3], &lowest);
        opaque = opaque && lowest == 255;
    }
    if (opaque)
        for (cv::Mat& f : frames) {
            cv::Mat bgr;
            const int pairs[] = {0, 0, 1, 1, 2, 2};
            bgr.create(f.size(), CV_8UC3);
            cv::mixChannels(&f, 1, &bgr, 1, pairs, 3);
            f = bgr;
        }
    return frames;
}

}  // namespace lacuna::io::detail
