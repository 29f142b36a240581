// Undo and redo: each edit keeps only what it changed — a rectangle of pixels and/or one mask's
// values before and after, or, for a whole-image change (a retarget), both images and the masks
// it cleared. Memory stays bounded by what was edited and the limit, not by the image size.
#pragma once

#include "document.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::session {

struct RegionSnapshot {
    std::optional<ImageRgba8> pixels;
    std::optional<Mask> mask;
    std::optional<NativeImage> samples;  ///< a measurement document's stored samples
};

struct Edit {
    std::string label;  ///< "Paint Mask", "Fill", "Retarget to 900 × 600" …
    // A rectangle edit:
    PixelRect rect;
    MaskLayer layer = MaskLayer::Fill;
    RegionSnapshot before, after;
    // A whole-image edit (replaces the document):
    bool whole_image = false;
    ImageRgba8 image_before, image_after;
    std::array<Mask, kMaskLayers> masks_before;
    // A whole-image edit of a measurement document: its stored samples (the images above are
    // its carving proxies and are rebuilt from these).
    NativeImage samples_before, samples_after;
    // A pixel size set by Set Scale: before, after (nothing else changes).
    std::optional<std::array<PixelSpacing, 2>> spacing;
};

class History {
  public:
    explicit History(std::size_t limit = 64) : limit_(limit) {}

    /// Records an edit already applied to the document (redo-able edits after it are dropped).
    void push(Edit edit);
    /// Put the document back / forward by one edit; false when there is none.
    bool undo(Document& document);
    bool redo(Document& document);

    [[nodiscard]] bool can_undo() const { return index_ > 0; }
    [[nodiscard]] bool can_redo() const { return index_ < edits_.size(); }
    [[nodiscard]] std::string undo_label() const;
    [[nodiscard]] std::string redo_label() const;
    /// Edits kept (the undo limit drops the oldest).
    [[nodiscard]] int count() const { return static_cast<int>(edits_.size()); }
    [[nodiscard]] int index() const { return static_cast<int>(index_); }
    void clear();
    /// Saved: the document equals what is on disk at this index.
    void set_clean() { clean_ = static_cast<std::ptrdiff_t>(index_); }
    /// No index matches the file on disk (a document restored from a recovery file, or
    /// converted): unsaved until the next save.
    void mark_unsaved() { clean_ = -1; }
    [[nodiscard]] bool is_clean() const { return clean_ == static_cast<std::ptrdiff_t>(index_); }

  private:
    static void apply(Document& document, const Edit& edit, bool forward);
    std::vector<Edit> edits_;
    std::size_t index_ = 0;     ///< edits_[0, index_) are applied
    std::ptrdiff_t clean_ = 0;  ///< -1: the saved state was dropped by the limit
    std::size_t limit_;
};

}  // namespace lacuna::session
