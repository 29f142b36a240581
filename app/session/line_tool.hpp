// The line histogram: draw or move a line, see the bins × positions histogram and the profile
// along it. On the device path the sampling planes are built on the device from the document
// (rebuilt only when its pixels change) and each drag runs the CUDA histogram there; only the
// result comes to the host for the plot.
#pragma once

#include "tool.hpp"

#include <lacuna/ops/line_histogram.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

class LineTool final : public Tool {
  public:
    explicit LineTool(Session& session);
    ~LineTool() override;

    [[nodiscard]] ToolKind kind() const override { return ToolKind::LineHistogram; }
    [[nodiscard]] std::span<const ops::ParamSpec> params() const override;
    bool press(const Pointer& p) override;
    void move(const Pointer& p) override;
    void release(const Pointer& p) override;
    void hover(const Pointer& p) override;
    [[nodiscard]] Overlay overlay() const override;
    /// A new document forgets the line (reset()); every change measures it again.
    void document_opened() override { reset(); }
    void document_changed(DocumentChange) override { document_changed(); }
    void device_lost(bool) override { device_lost(); }

    /// Sets the line (pixel-centre coordinates: (0, 0) is the top-left pixel's centre) and
    /// recomputes.
    void set_line(ops::Point2 from, ops::Point2 to);
    [[nodiscard]] bool has_line() const { return has_line_; }
    [[nodiscard]] ops::Point2 from() const { return from_; }
    [[nodiscard]] ops::Point2 to() const { return to_; }
    void set_band(int samples);
    [[nodiscard]] int band() const { return band_; }
    /// The channels computed (luminance, red, green, blue; at least one).
    void set_channels(std::vector<ops::HistogramChannel> channels);
    [[nodiscard]] const std::vector<ops::HistogramChannel>& channels() const { return channels_; }
    /// The plot's hover position as a fraction of the line (nullopt: none).
    void set_marker(std::optional<double> t) { marker_ = t; }
    /// The pointer's position along the line's band, as a fraction (nullopt: not over it).
    [[nodiscard]] std::optional<double> hovered() const { return hovered_; }

    /// Bins per position (1..65536).
    void set_bins(int bins);
    [[nodiscard]] int bins() const { return bins_; }
    /// Where the bins' value range comes from: the image's finite min–max (0..255 for photos),
    /// the line's own finite min–max, or a typed range (calibrated units).
    enum class RangeMode { Image, Line, Typed };
    void set_range(RangeMode mode, std::pair<double, double> typed = {0, 0});
    [[nodiscard]] RangeMode range_mode() const { return range_mode_; }
    [[nodiscard]] std::pair<double, double> typed_range() const { return typed_range_; }

    /// Recomputes for the current line (the document may have changed).
    void recompute();
    [[nodiscard]] const ops::LineHistogram* result() const { return result_ ? &*result_ : nullptr; }
    /// Why there is no result (a zero-length line, one wholly outside), or empty.
    [[nodiscard]] const std::string& message() const { return message_; }
    /// Forgets the line (a new document).
    void reset();
    void device_lost();
    /// After an edit: recomputes when the pixels under the line changed.
    void document_changed();

  private:
    enum class Drag { None, From, To, Whole };
    [[nodiscard]] std::optional<double> fraction_at(const Pointer& p) const;
    /// `recycled`: a result whose memory the device path refills (see CudaLineHistogrammer::line).
    [[nodiscard]] ops::LineHistogram compute(const ops::LineHistogramParams& params,
                                             ops::LineHistogram recycled);

    [[nodiscard]] ops::LineHistogram compute_all(ops::LineHistogramParams params,
                                                 ops::LineHistogram recycled);
    [[nodiscard]] std::uint64_t planes_key() const;

    Session& session_;
    int bins_ = ops::kDefaultHistogramBins;
    RangeMode range_mode_ = RangeMode::Image;
    std::pair<double, double> typed_range_{0, 0};
    bool has_line_ = false;
    ops::Point2 from_, to_;
    int band_ = 1;
    std::vector<ops::HistogramChannel> channels_{ops::HistogramChannel::Luminance};
    std::optional<double> marker_;
    std::optional<double> hovered_;
    Drag drag_ = Drag::None;
    ops::Point2 grab_, grab_from_, grab_to_;
    std::optional<ops::LineHistogram> result_;
    std::string message_;
    // The sampling planes, built for one pixels revision of the document.
    std::unique_ptr<ops::CudaLineHistogrammer> device_planes_;
    std::unique_ptr<ops::HistogramSource> host_planes_;
    std::uint64_t planes_revision_ = ~0ull;
    std::uint64_t host_revision_ = ~0ull;  // measurement documents' host plane
};

}  // namespace lacuna::session
