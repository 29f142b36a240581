// Regions: a list of named lines, polylines and rectangles over the image, each with a colour and
// its profile (the same engine and file as `lacuna histogram IMG --regions FILE`), as ImageJ's
// ROI Manager keeps them: add (draw, or the Line tool's line), select, drag vertices, corners or
// the whole region, rename, recolour, delete, undo and redo, save and open the list as JSON
// beside the image, one CSV with every profile.
//
// Drawing (the tool's pointer input): press on empty image and drag a line or a rectangle; a
// polyline gets a vertex per click and ends with a double click. Pressing on a region's vertex
// or corner drags it; on its path, band or inside it (a rectangle) moves the whole region.
// Region edits have their own undo history: they never change the image, so they do not mark
// the document unsaved (the list is saved to its own file).
//
// Profiles: on a device session the plane is built on the device from the document's device copy
// and a drag re-profiles the moved region there with the CUDA kymograph (ops::CudaRegionProfiler,
// on the tool's own stream), only the profile coming back; on the host path KymographSampler
// samples a host plane. Both give the same bits.
#pragma once

#include "tool.hpp"

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/ops/regions.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

class Session;

class RegionsTool final : public Tool {
  public:
    explicit RegionsTool(Session& session);
    ~RegionsTool() override;

    [[nodiscard]] ToolKind kind() const override { return ToolKind::Regions; }
    bool press(const Pointer& p) override;
    void move(const Pointer& p) override;
    void release(const Pointer& p) override;
    void hover(const Pointer& p) override;
    bool double_click(const Pointer& p) override;
    void deactivate() override;
    [[nodiscard]] Overlay overlay() const override;
    /// A new document starts with an empty list and no history.
    void document_opened() override;
    /// The profiles are taken again when next asked for (a fill's steps do not each rebuild
    /// the plane).
    void document_changed(DocumentChange) override { ++revision_; }
    /// The device profiler goes; profiles are taken on the host from now on.
    void device_lost(bool) override;

    // ---- the list ----
    [[nodiscard]] const std::vector<ops::ProfileRegion>& regions() const { return regions_; }
    [[nodiscard]] int count() const { return static_cast<int>(regions_.size()); }
    /// The selected region's index, or -1.
    [[nodiscard]] int selected() const { return selected_; }
    void select(int index);
    /// The shape a drag on empty image draws.
    void set_draw_shape(ops::RegionShape shape);
    [[nodiscard]] ops::RegionShape draw_shape() const { return draw_shape_; }
    /// The band new lines and polylines get (samples across).
    void set_draw_band(int band);
    [[nodiscard]] int draw_band() const { return draw_band_; }
    /// A polyline is being drawn (clicks add vertices; a double click or finish_drawing() ends).
    [[nodiscard]] bool drawing() const { return drawing_; }
    /// Ends a polyline being drawn (kept when it has two vertices or more).
    void finish_drawing();

    /// Adds a region (undoable) and selects it; an empty or taken name becomes "line 3" (its
    /// shape and the next free number), an empty colour the next of the palette. Throws
    /// Error(InvalidArgument) for a region the file could not hold. Returns its index.
    int add(ops::ProfileRegion region);
    /// ImageJ's Add [t]: the Line tool's current line and band as a new line region. -1 when
    /// there is no line.
    int add_current_line();
    /// Replaces region `index` (undoable; `label` names the edit). Throws
    /// Error(InvalidArgument) for an invalid region or a name another region has.
    void replace(int index, ops::ProfileRegion region, const std::string& label = "Edit Region");
    void rename(int index, const std::string& name);
    void set_color(int index, const std::string& color);
    /// A line's or polyline's band, a rectangle's height.
    void set_band(int index, int band);
    void remove(int index);
    /// Deletes every region (undoable).
    void clear();

    // ---- undo (the list's own) ----
    [[nodiscard]] bool can_undo() const { return undo_index_ > 0; }
    [[nodiscard]] bool can_redo() const { return undo_index_ < steps_.size(); }
    [[nodiscard]] std::string undo_label() const;
    [[nodiscard]] std::string redo_label() const;
    bool undo();
    bool redo();
    /// The list changed since it was loaded or saved.
    [[nodiscard]] bool modified() const { return saved_ != regions_; }

    // ---- files ----
    /// Where the list of `image` is kept: beside it, "<stem>.regions.json".
    [[nodiscard]] static std::filesystem::path sidecar(const std::filesystem::path& image);
    /// Writes the list as JSON (atomically: a temporary file, then renamed). Throws
    /// lacuna::Error.
    void save(const std::filesystem::path& path);
    /// Replaces the list by a file's (undoable). Throws lacuna::Error (a missing file, bad
    /// JSON, a bad region) and keeps the list then. Returns the number of regions read.
    int load(const std::filesystem::path& path);

    // ---- profiles ----
    /// Region `index`'s profile on the document's measured plane (luminance for photos, the
    /// calibrated value for measurements: what `lacuna histogram --regions` reads by default),
    /// or null when its path cannot be profiled (profile_error() says why).
    [[nodiscard]] const ops::RegionProfile* profile(int index) const;
    [[nodiscard]] std::string profile_error(int index) const;
    /// "lum" or "value" (the plane profiled), and the value's unit ("" for photos).
    [[nodiscard]] std::string channel_name() const;
    [[nodiscard]] std::string unit() const;
    /// The document's pixel size (from the file or Set Scale): distances are in its unit where
    /// it is known, measured in physical space (an anisotropic pixel counts its real size).
    [[nodiscard]] const PixelSpacing& spacing() const;
    /// The spacing's unit, or "px" when it is unknown.
    [[nodiscard]] std::string distance_unit() const;
    /// Region `index`'s distance along its path at each position, in distance_unit()
    /// (ops::kymograph_distances); empty when it has no profile.
    [[nodiscard]] std::vector<double> distances(int index) const;
    /// The profiles at `distance` (in distance_unit()) along each region long enough, for the
    /// plot's hover: "d = 3.5 mm: axon 120 (7 px), box 88.5 (1.75 px)" (the position nearest
    /// that distance; the pixels along each region in brackets where a unit is known); "" where
    /// no region reaches it.
    [[nodiscard]] std::string readout_text(double distance) const;
    /// Every profile as one CSV (the CLI's columns); `source` names the image in the header.
    /// With a known pixel size a distance_<unit> column follows distance (pixels).
    /// Regions that cannot be profiled are left out and named in the header.
    [[nodiscard]] std::string profiles_csv(const std::string& source) const;
    /// Counts changes of the list or its profiles (panels redraw when it moves).
    [[nodiscard]] std::uint64_t revision() const { return revision_; }
    /// Profiles taken on the device so far (tests and the benchmark check the path taken).
    [[nodiscard]] std::uint64_t device_profiles() const { return device_profiles_; }

  private:
    enum class Drag { None, Vertex, Corner, Whole, NewLine, NewRectangle };
    struct Step {
        std::string label;
        std::vector<ops::ProfileRegion> before, after;
        int selected_before = -1, selected_after = -1;
    };
    struct Cached {
        ops::ProfileRegion region;  // what was profiled
        std::optional<ops::RegionProfile> profile;
        std::string error;
    };
    void record(std::string label, std::vector<ops::ProfileRegion> before, int selected_before);
    void changed();
    /// Recomputes the profiles whose region or plane changed (none without regions).
    void refresh() const;
    /// Profiles `region` into `c` (its memory reused): on the device when the document is
    /// there, else (or after a device failure, which moves the session to the host with a
    /// notice) on the host plane.
    void take_profile(const ops::ProfileRegion& region, Cached& c) const;
    /// The device path: false when the device failed (the session has left it).
    bool profile_on_device(const ops::ProfileRegion& region, ops::RegionProfile& into) const;
    void build_plane() const;
    [[nodiscard]] std::uint64_t plane_key() const;
    [[nodiscard]] std::string free_name(ops::RegionShape shape);
    [[nodiscard]] std::string next_color();
    void check_name(int index, const std::string& name) const;
    /// Hit tests in pixel-centre coordinates; tolerance in image pixels.
    struct Hit {
        int region = -1;
        Drag drag = Drag::None;
        int handle = -1;  // a vertex, or a rectangle corner (0 top-left, clockwise)
    };
    [[nodiscard]] Hit hit(ops::Point2 c, double tolerance) const;
    void drag_to(ops::Point2 c, bool shift);

    Session& session_;
    std::vector<ops::ProfileRegion> regions_;
    std::vector<ops::ProfileRegion> saved_;
    int selected_ = -1;
    ops::RegionShape draw_shape_ = ops::RegionShape::Line;
    int draw_band_ = 1;
    int names_used_ = 0;
    int colors_used_ = 0;
    // The gesture under way.
    Drag drag_ = Drag::None;
    int drag_handle_ = -1;
    ops::Point2 grab_;
    ops::ProfileRegion grabbed_;
    std::vector<ops::ProfileRegion> gesture_before_;
    int gesture_selected_ = -1;
    bool drawing_ = false;  // a polyline: its last vertex follows the pointer
    // Undo.
    std::vector<Step> steps_;
    std::size_t undo_index_ = 0;
    // Profiles, on one plane per pixels/calibration revision.
    // A cache, filled when profiles are asked for (hence mutable).
    mutable std::uint64_t profiles_key_ = ~0ull;  // the plane the cached profiles were taken on
    // The host path's plane: a measurement's values or a photo's luminance.
    mutable ImageF32 values_;
    mutable ops::FloatPlane luminance_;
    mutable std::uint64_t plane_key_ = ~0ull;
    // The device path's plane and profiler, on a stream of the tool's own (a drag never waits
    // behind the document's stream or a fill's); the stream is declared first, destroyed last.
    mutable std::unique_ptr<OwnedStream> device_stream_;
    mutable std::unique_ptr<ops::CudaRegionProfiler> device_;
    mutable std::uint64_t device_plane_key_ = ~0ull;
    mutable std::uint64_t device_profiles_ = 0;
    mutable std::vector<Cached> cache_;
    std::uint64_t revision_ = 1;
};

}  // namespace lacuna::session
