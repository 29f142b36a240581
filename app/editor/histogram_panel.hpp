// The "Line Histogram" dock: the bins × positions heat map of the values along the drawn line
// (log or linear counts) with the profile curves over it, per-channel toggles, band width, a
// hover crosshair linked with the line on the canvas, and export (CSV, PNG, clipboard).
#pragma once

#include <lacuna/core/backend.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <QImage>
#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

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
    [[nodiscard]] std::optional<int> marker() const { return marker_; }
    [[nodiscard]] QSize sizeHint() const override { return {360, 240}; }

  signals:
    void hovered(std::optional<int> position);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    [[nodiscard]] QRect plot_rect() const;
    const ops::LineHistogram* histogram_ = nullptr;
    QImage heat_;
    Curves curves_;
    std::optional<int> marker_;
};

class HistogramPanel : public QWidget {
    Q_OBJECT
  public:
    explicit HistogramPanel(QWidget* parent = nullptr);
    ~HistogramPanel() override;

    void set_backend(Backend backend) { backend_ = backend; }
    /// A new document: the sampling planes are built once and reused while the line moves.
    void set_image(const ImageRgba8& image);
    /// Recomputes for this line (pixel-centre coordinates).
    void set_line(ops::Point2 from, ops::Point2 to);
    [[nodiscard]] const ops::LineHistogram* result() const { return result_ ? &*result_ : nullptr; }
    [[nodiscard]] int band_width() const;
    [[nodiscard]] HistogramPlot* plot() const { return plot_; }
    /// Links the plot's crosshair to a position along the line (fraction 0..1).
    void show_fraction(std::optional<double> t);

    bool export_csv(const QString& path) const;
    bool export_png(const QString& path) const;
    void copy_to_clipboard() const;

  signals:
    void band_changed(int samples);
    /// The pointer is over the plot at this fraction of the line.
    void hovered_fraction(std::optional<double> t);
    void failed(const QString& message);
    void export_csv_requested();
    void export_png_requested();

  private:
    void recompute();
    void redraw();
    [[nodiscard]] std::vector<ops::HistogramChannel> shown_channels() const;

    Backend backend_ = Backend::Cpu;
    std::unique_ptr<ops::HistogramSource> source_;
    std::optional<ops::Point2> from_, to_;
    std::optional<ops::LineHistogram> result_;
    HistogramPlot* plot_ = nullptr;
    QSpinBox* band_ = nullptr;
    QComboBox* scale_ = nullptr;
    QCheckBox* channels_[4] = {};
    QCheckBox* mean_ = nullptr;
    QCheckBox* median_ = nullptr;
    QCheckBox* max_ = nullptr;
    QLabel* info_ = nullptr;
};

}  // namespace lacuna::editor
