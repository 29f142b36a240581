// The "Regions" dock, Lacuna's ROI Manager: the list of named regions (colour, name, shape),
// the shape a drag draws, Add [t] (the Line tool's line), rename, colour, band, delete, undo,
// open and save as JSON, one CSV of every profile, and the profiles overlaid in one plot with a
// legend. The list and its logic are the session's RegionsTool; this panel only binds to it.
#pragma once

#include <regions_tool.hpp>

#include <QString>
#include <QWidget>

class QButtonGroup;
class QCheckBox;
class QLabel;
class QListWidget;
class QPainter;
class QPushButton;
class QSpinBox;

namespace lacuna::editor {

/// Every region's profile over distance along it, in its colour, with a legend.
class RegionsPlot : public QWidget {
    Q_OBJECT
  public:
    explicit RegionsPlot(const session::RegionsTool& tool, QWidget* parent = nullptr);
    [[nodiscard]] QSize sizeHint() const override { return {360, 260}; }
    /// The value axis's words ("luminance", "value (K)").
    void set_value_label(const QString& label) { value_label_ = label; }

    /// A legend entry: the name and the length ("axon  (12.5 mm, 25 px)", "axon  (25 px)").
    [[nodiscard]] QString legend_text(int index) const;

  signals:
    /// The profiles under the pointer (RegionsTool::readout_text), or "" off the plot.
    void hovered(const QString& text);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    void draw_legend(QPainter& painter, const QRect& plot) const;
    const session::RegionsTool& tool_;
    QString value_label_;
    QRect plot_;        // where the last paint put the axes
    double x_max_ = 0;  // and the distance at their right end
};

class RegionsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RegionsPanel(session::RegionsTool& tool, QWidget* parent = nullptr);
    /// Shows the list, the selection and the plot as the tool has them now.
    void refresh();
    /// Writes the list / every profile to `path`; the outcome in the status line (and as
    /// message/error signals). The panel's buttons ask for the file first.
    bool save_to(const QString& path);
    bool open_from(const QString& path);
    bool export_csv(const QString& path, const QString& source);
    /// Draw every region while another tool is active (ImageJ's Show All).
    [[nodiscard]] bool show_all() const;
    [[nodiscard]] QListWidget* list() const { return list_; }
    [[nodiscard]] RegionsPlot* plot() const { return plot_; }
    [[nodiscard]] QString status() const;
    /// The folder and image file name the dialogs start from (the document's).
    void set_document_path(const QString& path) { document_path_ = path; }

  signals:
    /// The list or the selection changed (the canvas redraws).
    void changed();
    void message(const QString& text, int milliseconds);
    void error(const QString& title, const QString& text);
    /// Add [t]: the window adds the Line tool's line.
    void add_line_requested();

  private:
    void choose_and_save();
    void choose_and_open();
    void choose_and_export();
    void rename_selected();
    void recolour_selected();
    void show_status(const QString& text);

    session::RegionsTool& tool_;
    QString document_path_;
    QButtonGroup* shapes_ = nullptr;
    QSpinBox* band_ = nullptr;
    QListWidget* list_ = nullptr;
    QPushButton* undo_ = nullptr;
    QPushButton* redo_ = nullptr;
    QCheckBox* show_all_ = nullptr;
    QLabel* status_ = nullptr;
    RegionsPlot* plot_ = nullptr;
    QLabel* readout_ = nullptr;
    bool refreshing_ = false;
    std::uint64_t shown_revision_ = 0;
};

}  // namespace lacuna::editor
