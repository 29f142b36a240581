// Crash recovery: what the editor autosaves so that a crash loses no edit. A snapshot holds the
// document as it is now (a photo's pixels, or a measurement document's stored samples with their
// format, calibration and display), every mask layer, the opened file's path and metadata, a
// video's path and frame, and the tool state a user would miss. The undo history is not kept: a
// restored document starts a new history, marked unsaved.
//
// The file is written like every file Lacuna writes — to a temporary file in the same directory,
// fsynced, then renamed — so a crash during the autosave leaves the previous recovery file, never
// half of one. Each section carries its length and a CRC-32, so a truncated or damaged file is
// rejected with an Error, never half-restored. Qt-free: the editor only schedules and asks.
#pragma once

#include "background_job.hpp"
#include "document.hpp"
#include "line_tool.hpp"
#include "session.hpp"
#include "tool.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/io/metadata.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lacuna::session {

/// The tool settings that shape the next edit or the current view of the data.
struct ToolState {
    ToolKind active = ToolKind::Pan;
    ops::BrushSettings brush;  ///< the remove-object brush (the retarget brush shares the panel)
    MaskLayer removal_layer = MaskLayer::Fill;
    ops::InpaintParams fill;  ///< never_sample is not kept (it points into the document)
    int retarget_width = 0, retarget_height = 0;
    SeamEnergy energy = SeamEnergy::Forward;
    /// Amount, automatic and the importance terms (retarget_mix_param_fields); a file written
    /// before they were saved gives the defaults.
    ops::RetargetMix retarget_mix;
    bool show_seams = false;
    bool has_line = false;
    ops::Point2 line_from, line_to;
    int line_band = 1;
    int line_bins = ops::kDefaultHistogramBins;
    LineTool::RangeMode range_mode = LineTool::RangeMode::Image;
    std::pair<double, double> typed_range{0, 0};
    std::vector<ops::HistogramChannel> channels{ops::HistogramChannel::Luminance};
    /// The document's pixel size (the file's, or Set Scale's); unknown in files without it.
    PixelSpacing spacing;
};

/// Everything a restore needs, copied out of the session (so it can be written on another
/// thread while the user goes on editing).
struct RecoverySnapshot {
    /// A photo (or a video's frame): its pixels. Empty for a measurement document.
    ImageRgba8 pixels;
    /// A measurement document: its stored samples, one page or a stack's pages (the shown page
    /// as edited). Empty for a photo.
    std::vector<NativeImage> pages;
    int page = 0;
    Calibration calibration;
    Session::Display display;
    /// The document's masks; an unpainted layer is left empty (not copied, zeros in the file).
    std::array<Mask, kMaskLayers> masks;
    io::Metadata metadata;
    std::string document_path;  ///< the file the document came from; empty for a sample
    std::string video_path;     ///< the open clip, or empty
    int video_frame = 0;
    ToolState tools;
    /// The process that wrote the file (a restore says which session it came from).
    std::int64_t writer_pid = 0;

    [[nodiscard]] bool measurement() const { return !pages.empty(); }
    [[nodiscard]] int width() const;
    [[nodiscard]] int height() const;
    /// Pixel, sample and mask bytes as held in memory, uncompressed.
    [[nodiscard]] std::size_t raw_bytes() const;
};

/// Copies the session's document, masks and tool state. Call on the thread that owns the
/// session, with no stroke or fill under way (the host mirror is complete then). Throws
/// Error(InvalidArgument) for an empty document.
RecoverySnapshot take_snapshot(const Session& session, std::string document_path);

/// The session's tool state now.
ToolState tool_state(const Session& session);
/// Sets the tools from `state` and selects its active tool.
void apply_tool_state(Session& session, const ToolState& state);

/// Makes `snapshot` the session's document: pixels or samples, masks, metadata, display, the
/// video at its frame, the tool state. The history starts empty and the document counts as
/// unsaved. Returns notices (a video that cannot be reopened is restored as its frame).
std::vector<std::string> restore_snapshot(Session& session, const RecoverySnapshot& snapshot);

/// How large a recovery file may be. Masks are always compressed (they are mostly empty);
/// pixels and samples are stored raw — fastest to write and read — unless the document holds
/// more than `compress_above` bytes, when they are deflated too. A file that would still be
/// larger than `max_file_bytes` is not written (Error TooLarge, shown as a notice).
struct RecoveryLimits {
    std::size_t compress_above = std::size_t{512} << 20;
    std::size_t max_file_bytes = std::size_t{1} << 30;
};

struct RecoveryWriteReport {
    std::size_t bytes = 0;    ///< the file's size
    bool compressed = false;  ///< pixels or samples were deflated
};

/// Writes `snapshot` to `path` atomically (temporary file in the same directory, fsync, rename,
/// directory fsync), readable by the user only. Throws Error(WriteFailed / TooLarge).
RecoveryWriteReport write_recovery(const std::filesystem::path& path,
                                   const RecoverySnapshot& snapshot,
                                   const RecoveryLimits& limits = {});

/// Reads a recovery file. Throws Error(NotFound / Unreadable / Truncated / Corrupt /
/// UnsupportedFormat) with one sentence saying what is wrong; never returns part of a file.
RecoverySnapshot read_recovery(const std::filesystem::path& path);

/// $XDG_STATE_HOME/lacuna/recovery, or ~/.local/state/lacuna/recovery (XDG's default).
std::filesystem::path recovery_directory();

/// This editor's place in the recovery directory: one recovery file, named after the process
/// and its start time, and a lock file held (flock) while the editor runs. The kernel releases
/// the lock when the process dies however it dies, so a recovery file whose lock is free
/// belongs to an editor that crashed. The destructor releases the lock and keeps the file.
class RecoverySlot {
  public:
    /// Creates the directory (mode 0700) and takes this instance's lock. Throws
    /// Error(WriteFailed) when the directory cannot be made or the lock cannot be taken.
    explicit RecoverySlot(std::filesystem::path directory);
    ~RecoverySlot();
    RecoverySlot(const RecoverySlot&) = delete;
    RecoverySlot& operator=(const RecoverySlot&) = delete;

    [[nodiscard]] const std::filesystem::path& file() const { return file_; }
    [[nodiscard]] const std::filesystem::path& directory() const { return directory_; }
    /// Removes this instance's recovery file (saved, discarded, or closed cleanly).
    void remove_file() const;

    /// Recovery files whose editor is no longer running, newest first. Stale lock files with
    /// no recovery file are removed on the way.
    [[nodiscard]] std::vector<std::filesystem::path> orphans() const;
    /// Takes an orphan over: it becomes this instance's recovery file, so the next autosave
    /// replaces it and a clean exit removes it. False when another editor took it first.
    bool adopt(const std::filesystem::path& orphan) const;
    /// Deletes an orphan (the user discarded it). False when another editor took it first.
    bool discard(const std::filesystem::path& orphan) const;
    /// Renames an orphan that cannot be read to "<name>.damaged" (kept for a person to look
    /// at, never offered again); returns the new path.
    std::filesystem::path set_aside(const std::filesystem::path& orphan) const;

  private:
    std::filesystem::path directory_;
    std::filesystem::path file_;
    std::filesystem::path lock_;
    int lock_fd_ = -1;
};

/// Autosaves a session into a RecoverySlot: decides whether a write is due, takes the snapshot
/// on the caller's thread and writes it on a worker thread, one write at a time.
class Autosaver {
  public:
    explicit Autosaver(std::filesystem::path directory, RecoveryLimits limits = {});
    /// Waits for a running write; keeps the file (the caller removes it on a clean exit).
    ~Autosaver();
    Autosaver(const Autosaver&) = delete;
    Autosaver& operator=(const Autosaver&) = delete;

    [[nodiscard]] RecoverySlot& slot() { return slot_; }
    [[nodiscard]] const std::filesystem::path& file() const { return slot_.file(); }

    /// What request() did.
    enum class Request {
        Started,    ///< a write runs on the worker thread
        Unchanged,  ///< the last write already holds this state
        Removed,    ///< no unsaved changes: the recovery file is gone
        Busy,       ///< a write, a stroke or a fill is under way: ask again later
        Empty,      ///< no document
    };
    /// Starts a write when the document has unsaved changes that the last write does not hold;
    /// removes the recovery file when there are no unsaved changes.
    Request request(const Session& session, const std::string& document_path);
    /// The same, waiting for the write (a signal's last autosave, tests).
    Request request_and_wait(const Session& session, const std::string& document_path);

    struct Outcome {
        bool ok = false;
        std::string message;  ///< the error's sentence when !ok
        RecoveryWriteReport report;
        double milliseconds = 0;  ///< the write (the snapshot is not counted)
    };
    /// A finished write's outcome, once; nullopt while it runs or when none ran.
    std::optional<Outcome> poll();
    /// Blocks until no write runs; returns the last write's outcome if it was not polled.
    std::optional<Outcome> wait();
    [[nodiscard]] bool writing() const { return running_.started(); }
    /// Removes the recovery file and forgets what was written (saved, discarded, clean exit).
    void remove();
    /// Milliseconds the snapshot (the copy on the caller's thread) took last time.
    [[nodiscard]] double snapshot_milliseconds() const { return snapshot_ms_; }

  private:
    struct Key {
        std::uint64_t pixels = 0, calibration = 0;
        std::array<std::uint64_t, kMaskLayers> masks{};
        int page = 0;
        int video_frame = -1;
        std::string document_path;
        std::vector<std::uint8_t> tools;  ///< the tool state, serialised
    };
    static Key key_of(const Session& session, const std::string& document_path);
    static bool same(const Key& a, const Key& b);

    RecoverySlot slot_;
    RecoveryLimits limits_;
    std::optional<Key> written_;  ///< what the file holds (or the running write will)
    /// Keeps a finished write's outcome for poll() (a failed one makes the next request write).
    void take(std::optional<JobOutcome<Outcome>> finished);

    BackgroundJob<Outcome> running_;
    std::optional<Outcome> unpolled_;
    double snapshot_ms_ = 0;
};

}  // namespace lacuna::session
