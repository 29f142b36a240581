#include "history.hpp"

namespace lacuna::session {

void History::push(Edit edit) {
    edits_.resize(index_);
    if (clean_ > static_cast<std::ptrdiff_t>(index_)) clean_ = -1;  // that future is gone
    edits_.push_back(std::move(edit));
    ++index_;
    if (edits_.size() > limit_) {
        edits_.erase(edits_.begin());
        --index_;
        clean_ = clean_ > 0 ? clean_ - 1 : -1;
    }
}

void History::apply(Document& document, const Edit& edit, const bool forward) {
    if (edit.spacing) {
        document.set_spacing((*edit.spacing)[forward ? 1 : 0]);
        return;
    }
    if (edit.whole_image && !edit.samples_after.empty()) {
        if (forward) {
            std::array<Mask, kMaskLayers> cleared;
            for (Mask& m : cleared)
                m = Mask(edit.samples_after.width(), edit.samples_after.height(), 0);
            document.replace_measurement(edit.samples_after, cleared);
        } else {
            document.replace_measurement(edit.samples_before, edit.masks_before);
        }
        return;
    }
    if (edit.whole_image) {
        if (forward) {
            std::array<Mask, kMaskLayers> cleared;
            for (Mask& m : cleared)
                m = Mask(edit.image_after.width(), edit.image_after.height(), 0);
            document.replace(edit.image_after, cleared);
        } else {
            document.replace(edit.image_before, edit.masks_before);
        }
        return;
    }
    const RegionSnapshot& state = forward ? edit.after : edit.before;
    if (state.pixels) document.write_pixels(edit.rect, *state.pixels);
    if (state.samples) document.write_samples(edit.rect, *state.samples);
    if (state.mask) document.write_mask(edit.layer, edit.rect, *state.mask);
}

bool History::undo(Document& document) {
    if (!can_undo()) return false;
    // The index moves only once the edit is applied: a device failure part-way leaves the host
    // side written and this edit still the next to undo, so the session undoes it again on the
    // host (each part is a stored rectangle written whole: twice leaves what once does).
    apply(document, edits_[index_ - 1], false);
    --index_;
    return true;
}

bool History::redo(Document& document) {
    if (!can_redo()) return false;
    apply(document, edits_[index_], true);
    ++index_;
    return true;
}

std::string History::undo_label() const {
    return can_undo() ? edits_[index_ - 1].label : std::string();
}

std::string History::redo_label() const {
    return can_redo() ? edits_[index_].label : std::string();
}

void History::clear() {
    edits_.clear();
    index_ = 0;
    clean_ = 0;
}

}  // namespace lacuna::session
