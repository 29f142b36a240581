#include "export_chain.hpp"

#include "frame_cache.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/video_io.hpp>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <string>

namespace lacuna::session {
namespace {

bool same_params(const ops::VideoRetargetParams& a, const ops::VideoRetargetParams& b) {
    return a.width == b.width && a.height == b.height && a.energy == b.energy &&
           a.temporal == b.temporal && a.term == b.term && a.cut_threshold == b.cut_threshold &&
           a.approximate == b.approximate && a.importance_unit == b.importance_unit;
}

bool same_mask(const Mask& kept, const Mask* now) {
    if (now == nullptr || now->empty()) return kept.empty();
    if (kept.width() != now->width() || kept.height() != now->height()) return false;
    for (int y = 0; y < kept.height(); ++y)
        if (!std::equal(kept.row(y), kept.row(y) + kept.width(), now->row(y))) return false;
    return true;
}

[[noreturn]] void cancelled() {
    throw Error(ErrorCode::Cancelled, "matching the export was cancelled");
}

}  // namespace

bool ExportChain::Key::same(const video::RetargetVideoOptions& options,
                            const ClipImportance* other_maps) const {
    return maps == other_maps && same_params(params, options.params) &&
           same_mask(protect, options.params.protect);
}

ExportChain::ExportChain(std::filesystem::path input, const std::size_t cache_bytes)
    : input_(std::move(input)), cache_bytes_(cache_bytes) {}

ExportChain::~ExportChain() = default;

bool ExportChain::differs_from_single_frame(const video::RetargetVideoOptions& options,
                                            const int index) const {
    if (options.params.approximate > 1) return true;
    // The clip's first frame starts a shot, whatever the cut threshold.
    if (ops::temporal_unit(options.params.temporal) == 0 || index == 0) return false;
    const std::lock_guard lock(cuts_mutex_);
    // A shot's first frame has no temporal term: its seams are its map's alone.
    const bool known_start =
        threshold_ == options.params.cut_threshold && index < scanned_ && cuts_.count(index) > 0;
    return !known_start;
}

void ExportChain::reopen() {
    reader_ = std::make_unique<io::VideoReader>(input_);
    next_ = 0;
}

const ImageRgba8& ExportChain::read() {
    if (!reader_) reopen();
    std::optional<ImageRgba8> frame = reader_->next();
    if (!frame) {
        reader_.reset();  // the next call starts over
        throw Error(ErrorCode::InvalidArgument,
                    "the clip has no frame " + std::to_string(next_ + 1));
    }
    ++frames_read_;
    // The export's cut test (VideoRetargeter: the mean luma change of 16 × 16 blocks).
    if (next_ >= scanned_) {
        const bool cut =
            next_ > 0 && ops::mean_luma_difference(previous_.view(), frame->view()) > threshold_;
        const std::lock_guard lock(cuts_mutex_);
        if (cut) cuts_.insert(next_);
        scanned_ = next_ + 1;
    }
    previous_ = std::move(*frame);
    ++next_;
    return previous_;
}

int ExportChain::known_shot_start(const int index) const {
    const std::lock_guard lock(cuts_mutex_);
    return *std::prev(cuts_.upper_bound(index));
}

void ExportChain::store(const int index, ImageRgba8 frame) {
    store_near(frames_, cached_bytes_, cache_bytes_, index, std::move(frame),
               [](const ImageRgba8& f) {
                   return static_cast<std::size_t>(f.width()) * f.height() * sizeof(Rgba8);
               });
}

std::optional<ImageRgba8> ExportChain::frame(const video::RetargetVideoOptions& options,
                                             ClipImportance* maps, const int index,
                                             const Progress& progress) {
    if (index < 0) throw Error(ErrorCode::InvalidArgument, "a frame index is 0 or more");
    const std::lock_guard lock(mutex_);
    // Cancelled while it waited for the call before it (the user moved on): the chain's state
    // stays that of the last target, which the user may come back to.
    if (progress && !progress(0, 0)) cancelled();
    if (!key_ || !key_->same(options, maps)) {
        // Another target or setting: other seams for every frame.
        Key key;
        key.params = options.params;
        key.params.protect = nullptr;
        if (options.params.protect) key.protect = clone(options.params.protect->view());
        key.maps = maps;
        key_ = std::move(key);
        carver_.reset();
        carved_ = -1;
        frames_.clear();
        cached_bytes_ = 0;
    }
    if (threshold_ != options.params.cut_threshold) {
        const std::lock_guard cuts_lock(cuts_mutex_);
        threshold_ = options.params.cut_threshold;
        cuts_ = {0};
        scanned_ = 1;
        reader_.reset();
    }
    if (const auto hit = frames_.find(index); hit != frames_.end())
        return clone(hit->second.view());

    // On from the carver when it stands just before this frame's run (a cut in between it finds
    // itself, as the export's does) — else from the frame's shot start, the cuts found first by
    // reading the clip up to the frame (decoding only) where they are not known yet.
    const bool goes_on =
        carver_ && carved_ < index && next_ == carved_ + 1 && known_shot_start(index) <= carved_;
    int first = carved_ + 1;
    if (!goes_on) {
        carver_.reset();
        carved_ = -1;
        if (index >= scanned_) {
            if (!reader_ || next_ > scanned_) reopen();
            while (next_ <= index) {
                if (progress && !progress(0, 0)) cancelled();
                read();
            }
        }
        first = known_shot_start(index);
        if (first == index && options.params.approximate == 1) return std::nullopt;
        if (!reader_ || next_ > first) reopen();
        while (next_ < first) {
            if (progress && !progress(0, 0)) cancelled();
            read();
        }
    }
    const int total = index - first + 1;
    std::optional<ImageRgba8> result;
    while (next_ <= index) {
        const int f = next_;
        if (progress && !progress(f - first, total)) cancelled();
        // The map before the frame is read: a cancelled map leaves the reader where the carver
        // stands, so the next call goes on from there.
        std::shared_ptr<const ops::ImportanceMap> map;
        if (maps)
            map = maps->map(f, [&](ClipImportance::Phase, int, int) {
                return !progress || progress(f - first, total);
            });
        const ImageRgba8& image = read();
        try {
            if (!carver_) {
                carver_ = std::make_unique<ops::VideoRetargeter>(
                    image.width(), image.height(), options.params, ops::CarveImplementation::Fast);
                ++chains_started_;
            }
            ImageRgba8 out = carver_->process(image.view(), map ? &map->levels : nullptr);
            carved_ = f;
            ++frames_carved_;
            if (f == index) result = clone(out.view());
            store(f, std::move(out));
        } catch (...) {
            // A carver that failed mid-frame is in no known state.
            carver_.reset();
            carved_ = -1;
            throw;
        }
    }
    if (progress) progress(total, total);
    return result;
}

}  // namespace lacuna::session
