#include "line_tool.hpp"

#include "session.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace lacuna::session {

LineTool::LineTool(Session& session) : session_(session) {}
LineTool::~LineTool() = default;

std::span<const ops::ParamSpec> LineTool::params() const {
    return ops::line_histogram_param_specs();
}

void LineTool::reset() {
    has_line_ = false;
    result_.reset();
    message_.clear();
    marker_.reset();
    hovered_.reset();
    drag_ = Drag::None;
    device_planes_.reset();
    host_planes_.reset();
    planes_revision_ = ~0ull;
    host_revision_ = ~0ull;
}

// The planes depend on the pixels and, for measurement documents, on the calibration.
std::uint64_t LineTool::planes_key() const {
    const Document& d = session_.document();
    return d.pixels_revision() * 1000003ull + d.calibration_revision();
}

void LineTool::document_changed() {
    const Document& document = session_.document();
    const bool host_plane = document.measurement() && !document.on_device();
    const std::uint64_t built = host_plane ? host_revision_ : planes_revision_;
    if (has_line_ && built != planes_key()) recompute();
}

void LineTool::set_bins(const int bins) {
    bins_ = std::clamp(bins, 1, 65536);
    recompute();
}

void LineTool::set_range(const RangeMode mode, const std::pair<double, double> typed) {
    range_mode_ = mode;
    typed_range_ = typed;
    recompute();
}

void LineTool::device_lost() {
    device_planes_.reset();
    planes_revision_ = ~0ull;
}

Overlay LineTool::overlay() const {
    Overlay o;
    o.line = has_line_;
    o.line_from_x = from_.x;
    o.line_from_y = from_.y;
    o.line_to_x = to_.x;
    o.line_to_y = to_.y;
    o.line_band = band_;
    o.line_marker = marker_;
    return o;
}

std::optional<double> LineTool::fraction_at(const Pointer& p) const {
    if (!has_line_) return std::nullopt;
    const double px = p.x - 0.5, py = p.y - 0.5;
    const double dx = to_.x - from_.x, dy = to_.y - from_.y;
    const double length2 = dx * dx + dy * dy;
    if (length2 < 1e-12) return std::nullopt;
    const double t = ((px - from_.x) * dx + (py - from_.y) * dy) / length2;
    if (t < 0 || t > 1) return std::nullopt;
    const double distance =
        std::abs((px - from_.x) * dy - (py - from_.y) * dx) / std::sqrt(length2);
    // Within the band, or a few screen pixels of a thin line.
    const double reach = std::max(band_ / 2.0, 6.0 * p.image_per_screen);
    return distance <= reach ? std::optional<double>(t) : std::nullopt;
}

bool LineTool::press(const Pointer& p) {
    if (session_.document().empty()) return false;
    const ops::Point2 centre{p.x - 0.5, p.y - 0.5};
    const auto near = [&](const ops::Point2 end) {
        return std::hypot(end.x - centre.x, end.y - centre.y) <= 8.0 * p.image_per_screen;
    };
    if (has_line_ && near(to_)) {
        drag_ = Drag::To;
    } else if (has_line_ && near(from_)) {
        drag_ = Drag::From;
    } else if (fraction_at(p)) {
        drag_ = Drag::Whole;
        grab_ = centre;
        grab_from_ = from_;
        grab_to_ = to_;
    } else {
        // A new line starts here; dragging moves its far end.
        from_ = to_ = centre;
        has_line_ = true;
        drag_ = Drag::To;
    }
    move(p);
    return true;
}

void LineTool::move(const Pointer& p) {
    if (drag_ == Drag::None) return;
    ops::Point2 centre{p.x - 0.5, p.y - 0.5};
    if (drag_ == Drag::Whole) {
        const double dx = centre.x - grab_.x, dy = centre.y - grab_.y;
        from_ = {grab_from_.x + dx, grab_from_.y + dy};
        to_ = {grab_to_.x + dx, grab_to_.y + dy};
    } else {
        const ops::Point2 anchor = drag_ == Drag::To ? from_ : to_;
        if (p.shift) {
            // Shift: the nearest multiple of 45°, keeping the length.
            const double dx = centre.x - anchor.x, dy = centre.y - anchor.y;
            const double length = std::hypot(dx, dy);
            const double step = std::numbers::pi / 4;
            const double angle = std::round(std::atan2(dy, dx) / step) * step;
            centre = {anchor.x + length * std::cos(angle), anchor.y + length * std::sin(angle)};
            // Axis-aligned ends land on exact pixel centres.
            if (std::abs(std::sin(angle)) < 1e-9) centre.y = anchor.y;
            if (std::abs(std::cos(angle)) < 1e-9) centre.x = anchor.x;
        }
        (drag_ == Drag::To ? to_ : from_) = centre;
    }
    recompute();
}

void LineTool::release(const Pointer&) {
    drag_ = Drag::None;
}

void LineTool::hover(const Pointer& p) {
    hovered_ = fraction_at(p);
}

void LineTool::set_line(const ops::Point2 from, const ops::Point2 to) {
    from_ = from;
    to_ = to;
    has_line_ = true;
    recompute();
}

void LineTool::set_band(const int samples) {
    band_ = std::clamp(samples, 1, ops::kMaxBandWidth);
    recompute();
}

void LineTool::set_channels(std::vector<ops::HistogramChannel> channels) {
    if (channels.empty()) channels.push_back(ops::HistogramChannel::Luminance);
    channels_ = std::move(channels);
    recompute();
}

ops::LineHistogram LineTool::compute(const ops::LineHistogramParams& params,
                                     ops::LineHistogram recycled) {
    Document& document = session_.document();
    if (document.measurement()) {
        // One plane of calibrated values. On the device it is computed there from the stored
        // samples (and rebuilt only when they or the calibration change); the host builds its
        // own only on the CPU path.
        if (document.on_device()) {
            const bool ok = session_.guarded([&] {
                if (planes_revision_ != planes_key() || !device_planes_) {
                    const auto& rows = document.device_samples();
                    if (device_planes_)
                        device_planes_->rebuild(rows, document.format(), document.width(),
                                                document.calibration());
                    else
                        device_planes_ = std::make_unique<ops::CudaLineHistogrammer>(
                            rows, document.format(), document.width(), document.calibration());
                    planes_revision_ = planes_key();
                }
                device_planes_->line(params, recycled);
            });
            if (ok) return recycled;
        }
        if (host_revision_ != planes_key() || !host_planes_) {
            host_planes_ = std::make_unique<ops::HistogramSource>(
                measurement_plane(document.samples(), document.calibration()).view());
            host_revision_ = planes_key();
        }
        return ops::line_histogram_fast(*host_planes_, params);
    }
    if (document.on_device()) {
        const bool ok = session_.guarded([&] {
            if (planes_revision_ != planes_key() || !device_planes_) {
                // The planes are built from the device document by a kernel, after the work
                // already enqueued on its stream (a fill step) has finished.
                document.device_pixels().synchronize();
                if (device_planes_)
                    device_planes_->rebuild(document.device_pixels());
                else
                    device_planes_ =
                        std::make_unique<ops::CudaLineHistogrammer>(document.device_pixels());
                planes_revision_ = planes_key();
            }
            device_planes_->line(params, recycled);
        });
        if (ok) return recycled;
    }
    if (planes_revision_ != planes_key() || !host_planes_) {
        host_planes_ = std::make_unique<ops::HistogramSource>(document.pixels().view());
        planes_revision_ = planes_key();
    }
    return ops::line_histogram_fast(*host_planes_, params);
}

ops::LineHistogram LineTool::compute_all(ops::LineHistogramParams params,
                                         ops::LineHistogram recycled) {
    std::optional<ops::LineHistogram> combined;
    for (const ops::HistogramChannel channel : channels_) {
        params.channel = channel;
        // The first channel refills the previous result's memory.
        ops::LineHistogram one =
            compute(params, combined ? ops::LineHistogram{} : std::move(recycled));
        if (!combined) {
            combined = std::move(one);
        } else {
            for (ops::ChannelHistogram& c : one.channels)
                combined->channels.push_back(std::move(c));
        }
    }
    return std::move(*combined);
}

void LineTool::recompute() {
    if (!has_line_ || session_.document().empty()) return;
    ops::LineHistogramParams params;
    params.from = from_;
    params.to = to_;
    params.band_width = band_;
    params.bins = bins_;
    try {
        if (range_mode_ == RangeMode::Typed)
            params.range =
                std::pair<float, float>(float(typed_range_.first), float(typed_range_.second));
        // The previous result's memory is refilled: no fresh 2-MB matrix per mouse move.
        ops::LineHistogram recycled = result_ ? std::move(*result_) : ops::LineHistogram{};
        result_.reset();
        result_ = compute_all(params, std::move(recycled));
        if (range_mode_ == RangeMode::Line) {
            // The line's own finite min–max (NaN ignored), then the bins over exactly that.
            double lo = std::numeric_limits<double>::infinity(), hi = -lo;
            for (const ops::ChannelHistogram& c : result_->channels)
                for (std::size_t p = 0; p < c.samples.size(); ++p)
                    if (c.samples[p] > 0) {
                        lo = std::min(lo, double(c.min[p]));
                        hi = std::max(hi, double(c.max[p]));
                    }
            if (lo <= hi) {
                if (hi == lo) hi = lo + std::max(1e-6, std::abs(lo) * 1e-6);
                params.range = std::pair<float, float>(float(lo), float(hi));
                ops::LineHistogram first = std::move(*result_);
                result_.reset();
                result_ = compute_all(params, std::move(first));
            }
        }
        message_.clear();
    } catch (const Error& e) {
        // A zero-length line (a click without a drag) or one wholly outside: say so, go on.
        result_.reset();
        message_ = e.what();
    }
    session_.frame_changed();
}

}  // namespace lacuna::session
