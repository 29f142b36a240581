// The "Line Histogram" dock: the bins × positions heat map of the values along the drawn line
// (log or linear counts) with the profile curves over it, per-channel toggles, band width, a
// hover crosshair linked with the line on the canvas, and export (CSV, PNG, clipboard; the panel
// asks for the file itself).
#pragma once

#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <line_tool.hpp>

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;
class QDoubleSpinBox;
class QPainter;

namespace lacuna::editor {

/// The plot: heat map of one channel, curves of every shown channel, a crosshair.
class HistogramPlot : public QWidget {
    Q_OBJECT
  public:
    explicit HistogramPlot(QWidget* parent = nullptr);
    struct Curves {
        bool mean = true;
        bool median = true;
        bool max = false;
    };
    void set_data(const ops::LineHistogram* histogram, bool log_scale, Curves curves);
    void set_marker(std::optional<int> position);
    /// The values' unit, shown on the axis and in the readout ("" for none).
    void set_unit(const QString& unit);
    /// The pixel size: positions are also given as distances in its unit where known.
    void set_spacing(const PixelSpacing& spacing);
    [[nodiscard]] std::optional<int> marker() const { return marker_; }
    [[nodiscard]] QSize sizeHint() const override { return {360, 300}; }
    /// The readout line over the plot for the hovered position ("" when none).
    [[nodiscard]] QString readout() const;

  signals:
    void hovered(std::optional<int> position);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    [[nodiscard]] QRect plot_rect() const;
    /// The legend: a sample of each shown curve's line with its name.
    void draw_legend(QPainter& painter, const QRect& strip) const;
    const ops::LineHistogram* histogram_ = nullptr;
    QImage heat_;
    Curves curves_;
    std::optional<int> marker_;
    bool marker_from_pointer_ = false;  ///< set by hovering the plot, not by the line
    QString unit_;
    PixelSpacing spacing_;
};

/// Binds the line tool (session::LineTool) to widgets: band width and channels go to the tool,
/// its result comes back to the plot.
class HistogramPanel : public QWidget {
    Q_OBJECT
  public:
    HistogramPanel(session::LineTool& tool, QWidget* parent = nullptr);
    ~HistogramPanel() override;

    /// Shows the tool's current result (after a drag, an edit, a new document).
    void refresh();
    [[nodiscard]] const ops::LineHistogram* result() const { return tool_.result(); }
    [[nodiscard]] int band_width() const;
    [[nodiscard]] HistogramPlot* plot() const { return plot_; }
    /// Links the plot's crosshair to a position along the line (fraction 0..1).
    void show_fraction(std::optional<double> t);

    bool export_csv(const QString& path) const;
    bool export_png(const QString& path) const;
    /// The same, saying the outcome: message() when written, error() when not (no line, or the
    /// file cannot be written). What Export CSV… and Export PNG… do after their file dialogs.
    bool export_csv_reporting(const QString& path);
    bool export_png_reporting(const QString& path);
    void copy_to_clipboard();
    /// A new document: the range follows the image again (a typed range belonged to the old
    /// one).
    void reset_range();
    /// The band and bins a restored document was edited with (the boxes, and so the tool).
    void show_band_and_bins(int band, int bins);
    /// A measurement document has one channel of values in `unit`: the colour channel boxes are
    /// disabled and every number shows the unit.
    void set_measurement(bool measurement, const QString& unit);
    /// The document's pixel size (unknown: distances in pixels only).
    void set_spacing(const PixelSpacing& spacing);
    /// ImageJ's Set Scale: the current line is `known_length` `unit` long and a pixel is
    /// `aspect` times as tall as wide (ImageJ's pixel aspect ratio; spacing_from_line). Emits
    /// scale_set; false (nothing changed) without a line, or for a length or aspect that is not
    /// positive or an empty unit.
    bool set_scale(double known_length, const QString& unit, double aspect = 1.0);

  signals:
    /// The user set the pixel size (Set Scale): the document takes it.
    void scale_set(const PixelSpacing& spacing);
    /// The tool's settings changed (the canvas redraws the band).
    void changed();
    /// The pointer is over the plot at this fraction of the line.
    void hovered_fraction(std::optional<double> t);
    void export_csv_requested();
    void export_png_requested();
    /// Something was copied to the clipboard; `what` says what, for the status bar.
    void copied(const QString& what);
    /// A line for the status bar (an export's outcome), shown for `milliseconds`.
    void message(const QString& text, int milliseconds);
    /// An error dialog's title and text (an export that could not be written).
    void error(const QString& title, const QString& text);

  private:
    void redraw();
    /// Set Scale's dialog: the line's real length and unit.
    void ask_scale();
    [[nodiscard]] std::vector<ops::HistogramChannel> shown_channels() const;

    session::LineTool& tool_;
    HistogramPlot* plot_ = nullptr;
    QSpinBox* band_ = nullptr;
    QComboBox* scale_ = nullptr;
    QCheckBox* channels_[4] = {};
    QCheckBox* mean_ = nullptr;
    QCheckBox* median_ = nullptr;
    QCheckBox* max_ = nullptr;
    QLabel* info_ = nullptr;
    QSpinBox* bins_ = nullptr;
    QComboBox* range_mode_ = nullptr;
    QDoubleSpinBox* range_lo_ = nullptr;
    QDoubleSpinBox* range_hi_ = nullptr;
    QString unit_;
    PixelSpacing spacing_;
    void apply_range();
};

}  // namespace lacuna::editor
