// One undoable edit of the document: the pixels and/or mask values inside a rectangle, before and
// after. Only the rectangle is kept, so memory stays bounded by what was edited (and the stack's
// undo limit), not by the image size.
#pragma once

#include "brush.hpp"
#include "canvas.hpp"

#include <QUndoCommand>

#include <optional>

class QUndoCommand;

namespace lacuna::editor {

struct RegionState {
    std::optional<ImageRgba8> pixels;
    std::optional<Mask> mask;
    MaskLayer layer = MaskLayer::Fill;
};

class RegionCommand : public QUndoCommand {
  public:
    /// The edit has already been applied to the canvas when the command is pushed, so the first
    /// redo() (which QUndoStack::push calls) does nothing.
    RegionCommand(Canvas* canvas, const QString& text, const PixelRect& rect, RegionState before,
                  RegionState after)
        : QUndoCommand(text),
          canvas_(canvas),
          rect_(rect),
          before_(std::move(before)),
          after_(std::move(after)) {}

    void undo() override { apply(before_); }
    void redo() override {
        if (first_redo_) {
            first_redo_ = false;
            return;
        }
        apply(after_);
    }

  private:
    void apply(const RegionState& state) {
        canvas_->restore_region(rect_, state.pixels ? &*state.pixels : nullptr,
                                state.mask ? &*state.mask : nullptr, state.layer);
    }

    Canvas* canvas_;
    PixelRect rect_;
    RegionState before_;
    RegionState after_;
    bool first_redo_ = true;
};

}  // namespace lacuna::editor

namespace lacuna::editor {

/// A whole-image change (a resize): both images are kept, and the masks reset to the new size.
class ReplaceImageCommand : public QUndoCommand {
  public:
    ReplaceImageCommand(Canvas* canvas, const QString& text, ImageRgba8 before, ImageRgba8 after,
                        std::array<Mask, kMaskLayers> masks_before)
        : QUndoCommand(text),
          canvas_(canvas),
          before_(std::move(before)),
          after_(std::move(after)),
          masks_before_(std::move(masks_before)) {}

    void undo() override {
        canvas_->set_image(before_.view());
        for (int layer = 0; layer < kMaskLayers; ++layer)
            canvas_->set_mask(static_cast<MaskLayer>(layer),
                              masks_before_[static_cast<std::size_t>(layer)]);
    }
    void redo() override {
        if (first_redo_) {
            first_redo_ = false;
            return;
        }
        canvas_->set_image(after_.view());
    }

  private:
    Canvas* canvas_;
    ImageRgba8 before_;
    ImageRgba8 after_;
    std::array<Mask, kMaskLayers> masks_before_;
    bool first_redo_ = true;
};

}  // namespace lacuna::editor
