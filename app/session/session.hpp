// The editing core without Qt: the document, the undo history, the tools and what is presented.
// The editor's widgets bind to it; the headless tests and `lacuna-bench-editor` drive it through
// an EGL context. When CUDA is usable the document lives on the device and every interaction
// stays there; a device error moves the session to the host path with the document intact and a
// notice saying why.
#pragma once

#include "clip_importance.hpp"
#include "document.hpp"
#include "history.hpp"
#include "tool.hpp"
#include "video_clip.hpp"
#include "video_removal.hpp"

#include <lacuna/core/display.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/metadata.hpp>
#include <lacuna/render/display_colour.hpp>

#include <cstdint>
#include <array>
#include <filesystem>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace lacuna::render {
class ImageRenderer;
}

namespace lacuna::session {

class RemoveObjectTool;
class RetargetTool;
class LineTool;
class FilterTool;
class RegionsTool;

class Session {
  public:
    /// `use_device`: keep the document on the CUDA device (when one is usable).
    explicit Session(bool use_device);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// A new document (undo history cleared). Throws for an empty image. If the device cannot
    /// take it the session continues on the host and says why in a notice. `metadata`: the
    /// opened file's (ICC profile, EXIF, XMP, IPTC), kept for save().
    void open(ImageRgba8 pixels, io::Metadata metadata = {});
    /// A measurement document: `pages` (one, or a TIFF stack's; same size and type) in their
    /// stored type with their calibration. The display starts at the file's window if it has
    /// one, else at auto-contrast, with the grey LUT. Undo history cleared.
    void open_measurement(std::vector<NativeImage> pages, Calibration calibration,
                          std::optional<DisplayWindow> window = std::nullopt,
                          io::Metadata metadata = {});
    /// The opened file's metadata (empty for a video, a sample or a new image).
    [[nodiscard]] const io::Metadata& metadata() const { return metadata_; }
    /// Writes the document to `path` atomically (io::write_image / io::write_native): a photo's
    /// pixels, or a measurement document's stored samples at the depth the format holds, with
    /// the opened file's metadata where the format holds it (EXIF orientation 1 once applied on
    /// opening, pixel dimensions of the document as it is now). Returns the notices; throws
    /// lacuna::Error.
    std::vector<std::string> save(const std::filesystem::path& path,
                                  io::WriteOptions options = {}) const;
    /// Pages of a measurement stack (1 for a single image, 0 without a document).
    [[nodiscard]] int page_count() const {
        return pages_.empty() ? (document_.empty() ? 0 : 1) : static_cast<int>(pages_.size());
    }
    [[nodiscard]] int page() const { return page_; }
    /// A measurement stack's pages (empty for a single image); the shown page is also
    /// document().samples(), which holds its edits first.
    [[nodiscard]] const std::vector<NativeImage>& pages() const { return pages_; }

    // ---- video ----
    /// Opens a video (or an image sequence) and shows its first frame as a photo document.
    /// Throws lacuna::Error for a clip that cannot be read; the current document stays then.
    void open_video(const std::filesystem::path& path);
    /// The open clip, or null (a photo or measurement document).
    [[nodiscard]] VideoClip* video() { return video_.get(); }
    [[nodiscard]] const VideoClip* video() const { return video_.get(); }
    /// Shows frame `index` (clamped): the pixels change, the masks stay (a protect mask is a
    /// still for every frame), the retarget target stays; the undo history is cleared (edits
    /// belong to a frame).
    void show_video_frame(int index);
    /// The open clip's object removal (the Video dock's mode): key masks, tracked masks and
    /// its jobs; null without a clip. Made anew with each clip.
    [[nodiscard]] VideoRemoval* video_removal() { return video_removal_.get(); }
    [[nodiscard]] const VideoRemoval* video_removal() const { return video_removal_.get(); }
    /// The Remove Object tool's fill mask on the shown frame (coverage ≥ ½, 0/255), the mask the
    /// object-removal mode takes as the frame's key.
    [[nodiscard]] Mask shown_removal_mask() const;
    /// The shown frame's fill mask differs from what the removal model has for the frame (the
    /// user painted or corrected it): it should become a key frame.
    [[nodiscard]] bool removal_mask_edited() const;
    /// Makes the shown fill mask the shown frame's key mask (an empty one removes the key).
    void take_removal_key();
    /// Puts the removal model's mask of the shown frame (key, tracked or still; none: empty)
    /// into the fill mask, without an undo step (it is the model's, not an edit).
    void show_removal_mask();
    /// The Video dock's fill preview: while on, the shown frame's filled picture
    /// (VideoRemoval::preview_at) is shown instead of the document, without the mask's tint,
    /// where the last preview has it — until the shown mask is painted on (then the document
    /// and its tint, to see the stroke).
    void set_video_fill_shown(bool on);
    [[nodiscard]] bool video_fill_shown() const { return video_fill_on_; }
    /// Before/after of the fill preview: while on, the original frame is shown in its place.
    void set_video_fill_compare(bool on);
    /// The filled picture (or, comparing, the original frame) shown now instead of the
    /// document; nullptr when the document is shown.
    [[nodiscard]] const ImageRgba8* video_fill_frame() const;
    /// The whole clip through the retarget pipeline at the retarget tool's target size and
    /// energy, with the protect mask if painted, on the GPU when the session carves there.
    /// `approximate`: 1 exact seams, 2 / 4 / 8 seams of a downscaled copy (real time); `term`:
    /// which temporal term (video_retarget.hpp). Importance: the Retarget panel's saliency,
    /// lines and skin switches and weights; faces (tracked over each shot) only with `faces`,
    /// at the panel's face weight — off by default: the face pass runs the detector on every
    /// other frame before carving (retarget_video.hpp).
    video::RetargetVideoResult export_video(const std::filesystem::path& output, double temporal,
                                            const video::VideoProgressFn& progress,
                                            int approximate = 1,
                                            ops::TemporalTerm term = ops::TemporalTerm::PerSeam,
                                            bool faces = false);
    /// The same export's inputs, taken now, to run on another thread (the editor's Export Video
    /// runs while the user goes on): the options own what they point to.
    struct VideoExport {
        video::RetargetVideoOptions options;
        std::shared_ptr<const Mask> protect;
    };
    [[nodiscard]] VideoExport prepare_video_export(
        const std::filesystem::path& output, double temporal, int approximate = 1,
        ops::TemporalTerm term = ops::TemporalTerm::PerSeam, bool faces = false) const;
    /// The Video dock's export settings (its widgets set them when they change; the dock's
    /// defaults). The Retarget panel's preview of a video frame follows them, so it shows what
    /// the export writes.
    struct VideoExportSettings {
        double temporal = 1.0;  ///< the temporal weight (0: frames carved alone)
        int approximate = 1;    ///< "Seams": 1 exact, 2 / 4 seams of a downscaled copy
        ops::TemporalTerm term = ops::TemporalTerm::PerSeam;
        bool faces = false;  ///< faces tracked over the clip
        [[nodiscard]] bool operator==(const VideoExportSettings&) const = default;
    };
    /// Changing them makes the retarget tool match the shown frame's preview to the export
    /// again (faces: the frame's map is computed again).
    void set_video_export_settings(const VideoExportSettings& settings);
    [[nodiscard]] const VideoExportSettings& video_export_settings() const { return video_export_; }
    /// The export's inputs with the settings above (what the dock's Export Video runs).
    [[nodiscard]] VideoExport prepare_video_export(const std::filesystem::path& output) const;
    /// Whether Export Video tracks faces (the Video dock's switch: the settings' `faces`).
    void set_video_faces(bool on);
    [[nodiscard]] bool video_faces() const { return video_export_.faces; }
    /// The importance the export gives the shown frame (faces tracked over the clip, saliency,
    /// lines and skin smoothed over the shot: ClipImportance, shared and cached per clip and
    /// terms, with video_faces()) — or null when the document is not an unedited frame of the
    /// open clip (a photo, or a frame painted on: then the frame's own detections apply).
    [[nodiscard]] std::shared_ptr<ClipImportance> shown_clip_importance();
    /// Shows page `index` of a stack (0-based, clamped); the line histogram follows.
    void show_page(int index);
    /// The time between a stack's pages as its file states it (LoadedNative::frame_interval;
    /// the kymograph's time axis); forgotten when another document opens.
    void set_frame_interval(std::optional<io::FrameInterval> interval) {
        frame_interval_ = std::move(interval);
    }
    [[nodiscard]] const std::optional<io::FrameInterval>& frame_interval() const {
        return frame_interval_;
    }

    // ---- display of measurement documents (a view: the samples never change) ----
    struct Display {
        DisplayWindow window;
        Lut lut = Lut::Grey;
        bool mark_clipped = false;  ///< values outside the window in kBelowColour/kAboveColour
    };
    [[nodiscard]] const Display& display() const { return display_; }

    // ---- colour management of the view (photos; the stored values never change) ----
    /// The display's ICC profile (empty: sRGB, the default). The canvas then shows a photo that
    /// carries a profile converted from it to this one. Throws lacuna::Error for a profile
    /// Little CMS cannot use; the previous one stays.
    void set_display_profile(std::vector<std::uint8_t> profile);
    [[nodiscard]] const std::vector<std::uint8_t>& display_profile() const {
        return display_profile_;
    }
    /// What the view converts, "Test wide RGB → sRGB", or "" when colours are shown as stored
    /// (no profile, the display's own, or a measurement document).
    [[nodiscard]] std::string colour_conversion();
    void set_window(DisplayWindow window);
    void set_lut(Lut lut);
    void set_mark_clipped(bool on);
    /// ImageJ's auto-contrast on the current page: `saturated` of the values beyond each end.
    void auto_contrast(double saturated = 0.0035);
    /// A typed calibration (replaces the file's); the window keeps showing the same samples.
    void set_calibration(Calibration calibration);
    /// Set Scale: the document's pixel size, as an undoable edit ("Set Scale"); Save writes it
    /// (TIFF, FITS) and the recovery file keeps it.
    void set_spacing(PixelSpacing spacing);

    /// What is under image pixel (x, y): the stored samples, the measured value (calibrated;
    /// luminance for colour) and its unit. nullopt outside the image.
    struct Readout {
        int x = 0, y = 0;
        int channels = 0;
        std::array<double, 4> raw{};
        double value = 0;
        std::string unit;
    };
    [[nodiscard]] std::optional<Readout> readout(double x, double y) const;

    [[nodiscard]] const Document& document() const { return document_; }
    [[nodiscard]] Document& document() { return document_; }
    [[nodiscard]] bool on_device() const { return document_.on_device(); }

    // ---- tools ----
    /// Every tool, in the order their previews take precedence (the first tool that offers a
    /// preview frame is shown): Filter, Retarget, Remove Object (its before/after), Line.
    /// Events go to all of them the same way.
    [[nodiscard]] const std::vector<std::unique_ptr<Tool>>& tools() const { return tools_; }
    /// The tool of `kind` (never Pan).
    [[nodiscard]] Tool& tool(ToolKind kind) const;
    [[nodiscard]] RemoveObjectTool& remove_object();
    [[nodiscard]] RetargetTool& retarget();
    [[nodiscard]] LineTool& line();
    /// The list of named regions and their profiles (Regions ▸, the Regions dock).
    [[nodiscard]] RegionsTool& regions();
    /// Filters ▸ Bilateral / Scale / Temporal: their preview is shown instead of the document
    /// while open, whatever tool is active.
    [[nodiscard]] FilterTool& filter();
    [[nodiscard]] const FilterTool& filter() const;
    /// The tool that gets pointer input; Pan has none (the canvas pans). Filter is never the
    /// active tool (it has no pointer input): selecting it changes nothing.
    void select(ToolKind kind);
    [[nodiscard]] ToolKind active_kind() const { return active_; }
    [[nodiscard]] Tool* active_tool() const;
    /// A tool writes the document now (a running fill): undo, redo and autosave wait.
    [[nodiscard]] bool document_held() const;

    // ---- undo ----
    [[nodiscard]] const History& history() const { return history_; }
    [[nodiscard]] History& history() { return history_; }
    void push(Edit edit);
    bool undo();
    bool redo();

    /// Every tool's background work (seam maps) and running fills advance; call often (a GUI
    /// timer, a test's loop). Returns true while anything is still running.
    bool poll();

    // ---- presentation ----
    /// Brings `renderer` up to date with what should be shown — the document, or the first
    /// preview frame a tool offers — and the active tool's mask tint. Device path: CUDA–GL interop,
    /// no host copy. The current GL context must be the renderer's.
    void present(render::ImageRenderer& renderer);
    /// A tool's preview frame is shown instead of the document (a filter preview; the retarget
    /// preview while retargeting or panning — painting a mask or drawing a line shows the
    /// document; the picture before a fill while comparing).
    [[nodiscard]] bool showing_preview() const { return shown_preview().has_value(); }
    /// Whether the next interaction will likely present new device pixels (a brush stamp, a
    /// slider frame, a fill step): then the renderer should map its interop textures ahead,
    /// after the current frame. The line tool changes only overlays and the plot, and mapping
    /// ahead for it would only add GL/CUDA switches.
    [[nodiscard]] bool wants_map_ahead() const;
    /// Size of what present() shows.
    [[nodiscard]] int shown_width() const;
    [[nodiscard]] int shown_height() const;
    /// The host copy of what is shown (tests and screenshots; downloads on the device path).
    [[nodiscard]] ImageRgba8 shown_image() const;
    /// Counts changes of what is shown, so a widget knows when to repaint.
    [[nodiscard]] std::uint64_t frame_revision() const { return frame_revision_; }
    void frame_changed() { ++frame_revision_; }

    // ---- device failures ----
    /// Runs `work` on the device path; a device failure (lacuna::falls_back_to_cpu, the policy
    /// the CLI uses too: out of memory, a lost context) moves the session to the host path —
    /// document intact — and returns false. Other errors propagate.
    bool guarded(const std::function<void()>& work);
    /// Leaves the device for good, with the reason shown to the user. `gpu_still_usable`: the
    /// device works but cannot present (no interop), so the GPU may still carve seam maps.
    void leave_device(const std::string& reason, bool gpu_still_usable = false);
    /// Testing: the guarded device operation after the next `passing` ones fails as a lost
    /// device would (0: the next one), so a test can reach any step of a longer operation.
    void inject_device_failure(const int passing = 0) { inject_after_ = passing; }

    /// Messages for the status bar (taken once each).
    [[nodiscard]] std::vector<std::string> take_notices();
    void notice(std::string text);
    /// Called after every edit, undo and redo (the editor updates its title and undo actions).
    std::function<void()> on_document_changed;
    /// Another tool became the active one (what Undo and Redo act on may change with it: the
    /// Regions tool has its own list).
    std::function<void()> on_tool_selected;

  private:
    /// open() for a photo (`clip` null) or a clip's first frame.
    void open_document(ImageRgba8 pixels, io::Metadata metadata, std::unique_ptr<VideoClip> clip);
    void after_open();
    /// The first preview frame a tool offers for the active tool (tools() order), its serial
    /// tagged with the tool's place.
    [[nodiscard]] std::optional<PreviewFrame> shown_preview() const;
    /// Every tool hears of a change in place; then the frame and the listener.
    void changed(DocumentChange change);
    /// A measurement is shown through its proxy: a preview, or a tool painting the proxy.
    [[nodiscard]] bool proxy_shown(bool previewing) const;
    /// After an edit, undo or redo: the stack follows the document (see sync_pages in .cpp).
    void sync_pages();
    Document document_;
    io::Metadata metadata_;
    std::vector<std::uint8_t> display_profile_;
    /// The view's colour table for this document and display, made on first need.
    std::optional<render::DisplayLut> display_lut_;
    bool display_lut_stale_ = true;
    std::uint64_t display_lut_serial_ = 1;
    void refresh_display_lut();
    std::vector<NativeImage> pages_;  // a measurement stack's pages (empty for a single image)
    int page_ = 0;
    std::optional<io::FrameInterval> frame_interval_;
    std::unique_ptr<VideoClip> video_;             // the open clip (video documents only)
    std::unique_ptr<VideoRemoval> video_removal_;  // its object removal
    bool video_fill_on_ = false, video_fill_compare_ = false;
    VideoExportSettings video_export_;
    /// The document's pixels revision when the clip's frame was put there (edits change it).
    std::uint64_t video_frame_revision_ = ~0ull;
    std::shared_ptr<ClipImportance> clip_importance_;
    std::uint64_t video_fill_mask_revision_ = 0;  // the fill mask as the model put it
    Display display_;
    bool samples_from_host_noted_ = false;
    History history_;
    bool use_device_;
    int inject_after_ = -1;  ///< guarded operations left before the injected failure (-1: none)
    std::vector<std::unique_ptr<Tool>> tools_;
    ToolKind active_ = ToolKind::Pan;
    std::vector<std::string> notices_;
    std::uint64_t frame_revision_ = 1;
    // What the renderer holds (present() uploads only what changed).
    struct Presented;
    std::unique_ptr<Presented> presented_;
};

}  // namespace lacuna::session
