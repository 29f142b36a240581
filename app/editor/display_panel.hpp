// The view of a measurement document: window (in calibrated units) with auto-contrast, the
// lookup table, the page of a stack, and the calibration. Widgets only: the state lives in
// session::Session (display(), set_window, set_lut, auto_contrast, show_page, set_calibration).
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

class DisplayPanel : public QWidget {
    Q_OBJECT
  public:
    explicit DisplayPanel(session::Session& session, QWidget* parent = nullptr);
    /// Shows the session's current document and display settings.
    void refresh();

  signals:
    /// The view changed (the canvas repaints) or the calibration did (the histogram follows).
    void changed();
    void calibration_changed();

  private:
    void apply_window();
    void apply_calibration();

    session::Session& session_;
    QLabel* type_ = nullptr;
    QComboBox* lut_ = nullptr;
    QCheckBox* mark_clipped_ = nullptr;
    QDoubleSpinBox* lo_ = nullptr;
    QDoubleSpinBox* hi_ = nullptr;
    QDoubleSpinBox* saturated_ = nullptr;
    QPushButton* auto_ = nullptr;
    QSlider* page_ = nullptr;
    QLabel* page_label_ = nullptr;
    QLabel* page_title_ = nullptr;
    QDoubleSpinBox* slope_ = nullptr;
    QDoubleSpinBox* intercept_ = nullptr;
    QLineEdit* unit_ = nullptr;
    QPushButton* apply_calibration_ = nullptr;
};

}  // namespace lacuna::editor
