// The "Retarget" dock: target width and height (sliders and spin boxes, in pixels or percent),
// the energy, the mix (Amount, Automatic) and the importance terms (switches and weights, made
// from their parameter table), the detections overlay and "Protect detections", protect and
// remove brushes, the seams overlay, progress of the seam computation running in the background,
// Apply and Reset. The panel binds to the session's RetargetTool and wires its own controls to
// it; the window hears what it must show through the signals below.
#pragma once

#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <vector>

#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QButtonGroup;

namespace lacuna::session {
enum class MaskLayer;
class Session;
}  // namespace lacuna::session

namespace lacuna::editor {

enum class CanvasTool;
using session::MaskLayer;

class RetargetPanel : public QWidget {
    Q_OBJECT
  public:
    /// Binds to `session`'s retarget tool (which it also selects when its preview is asked
    /// for); the session outlives the panel's use of it.
    explicit RetargetPanel(session::Session& session, QWidget* parent = nullptr);

    /// A new source image: the targets reset to its size.
    void set_source_size(int width, int height);
    [[nodiscard]] int target_width() const;
    [[nodiscard]] int target_height() const;
    void set_target_width(int width);
    void set_target_height(int height);
    [[nodiscard]] SeamEnergy energy() const;
    [[nodiscard]] bool seams_overlay() const;
    /// Amount, automatic and the importance terms as the controls set them.
    [[nodiscard]] const ops::RetargetMix& mix() const { return mix_; }
    /// The control of the mix parameter `name` (the table's name, e.g. "amount", "faces").
    [[nodiscard]] QWidget* mix_control(std::string_view name) const;
    /// Shows `mix` in the controls (a restored session's) and gives it to the tool.
    void show_mix(const ops::RetargetMix& mix);
    /// Shows the energy and the seams overlay (a restored session's) and gives them to the tool.
    void show_energy_and_seams(SeamEnergy energy, bool seams);

    /// Shows the tool's progress and status (the window's poll timer calls this).
    void poll();
    /// Commits the tool's preview as an undoable edit; false (with the reason in the status
    /// line) when none is ready.
    bool apply();
    /// The dock holding the panel became visible or hidden: choosing the Retarget tab shows
    /// its preview.
    void dock_visibility_changed(bool visible);

    /// Progress of the background seam computation (done == total: ready), counted in `unit`
    /// (empty: seams; a video frame's importance counts frames).
    void show_progress(const QString& what, int done, int total, const QString& unit = {});
    void show_status(const QString& text);

    /// Checks the panel's Pan button (the retarget tool without a mask brush).
    void set_pan_tool();
    /// The message shown when a typed size was clamped ("" when none).
    [[nodiscard]] QString limit_message() const;

    [[nodiscard]] QSlider* width_slider() const { return width_slider_; }
    [[nodiscard]] QSpinBox* width_spin() const { return width_spin_; }
    [[nodiscard]] QSlider* height_slider() const { return height_slider_; }
    [[nodiscard]] QPushButton* apply_button() const { return apply_; }

  signals:
    /// What the canvas shows changed (a preview, an overlay, a mask brush).
    void view_changed();
    /// The retarget tool became the active tool without a mask brush (its preview is asked
    /// for): the window shows the pan tool.
    void activated();
    /// An undoable edit was made (Apply, Protect detections): the window autosaves.
    void edited();
    /// A line for the status bar, shown for `milliseconds`.
    void message(const QString& text, int milliseconds);
    /// A seam-order map is in use for the preview: approximate first, then exact.
    void map_published(bool vertical, bool exact);

    // The controls' own changes (the panel acts on them itself).
    void target_changed(int width, int height);
    void energy_changed();
    void seams_overlay_toggled(bool on);
    /// Amount, automatic or an importance term changed (mix() has the new settings).
    void mix_changed();
    void detections_toggled(bool on);
    /// Add the detected faces and lines to the protect mask.
    void protect_detections_requested();
    /// A brush for one of the carving masks (or the pan tool): the panel selects the retarget
    /// tool with that brush; the window sets the canvas's tool.
    void tool_changed(lacuna::editor::CanvasTool tool, lacuna::session::MaskLayer layer);
    void apply_requested();
    void reset_requested();
    /// A typed size was outside 10 % … 150 % of the source and was clamped: the message says
    /// to what and why.
    void limit_reached(const QString& message);

  private:
    void build_mix(QFormLayout* form);
    /// Wires the controls to the tool.
    void bind();
    /// The retarget tool becomes the active tool with the Pan button (no mask brush).
    void activate_tool();
    void show_tool_status();
    void sync_from_sliders();
    void sync_from_spins();
    /// Clamps a typed value to the panel's limits; true (and a message) when it had to.
    bool clamp_typed(QSpinBox* spin, int source, const QString& what);

    session::Session& session_;
    int source_width_ = 1;
    int source_height_ = 1;
    bool syncing_ = false;
    QSlider* width_slider_ = nullptr;
    QSlider* height_slider_ = nullptr;
    QSpinBox* width_spin_ = nullptr;
    QSpinBox* height_spin_ = nullptr;
    QLabel* width_percent_ = nullptr;
    QLabel* height_percent_ = nullptr;
    QComboBox* energy_ = nullptr;
    QCheckBox* seams_ = nullptr;
    QButtonGroup* tools_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* limit_ = nullptr;
    QPushButton* apply_ = nullptr;
    ops::RetargetMix mix_;
    struct MixControl {
        std::string_view name;
        QWidget* widget = nullptr;
        QWidget* follows = nullptr;  ///< a weight: enabled while this switch is on
    };
    std::vector<MixControl> mix_controls_;
    /// show_mix is setting the controls: they do not announce each value.
    bool showing_mix_ = false;
};

}  // namespace lacuna::editor
