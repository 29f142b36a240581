// The "Kymograph" dock: the Line tool's line through every page of the open stack or frame of
// the open video (session::Kymographer does the work in the background), shown with the
// document's LUT and window, distance across and time downwards with labelled axes, the value
// under the pointer, and Export (float TIFF + CSV, as `lacuna kymograph` writes them).
#pragma once

#include <kymograph.hpp>

#include <QImage>
#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

/// The image with its axes; hovering reports kymograph pixel coordinates.
class KymographView : public QWidget {
    Q_OBJECT
  public:
    explicit KymographView(QWidget* parent = nullptr);
    /// The picture and its axes (nullptr: nothing to show).
    void set_data(const QImage& image, const session::KymographResult* result);
    [[nodiscard]] QSize sizeHint() const override { return {560, 320}; }
    [[nodiscard]] QSize minimumSizeHint() const override { return {240, 200}; }
    /// Where the image is drawn inside the widget.
    [[nodiscard]] QRect image_rect() const;

  signals:
    /// Kymograph pixel coordinates under the pointer (nullopt: left the image).
    void hovered(std::optional<QPointF> at);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    QImage image_;
    const session::KymographResult* result_ = nullptr;
};

class KymographPanel : public QWidget {
    Q_OBJECT
  public:
    KymographPanel(session::Session& session, QWidget* parent = nullptr);
    ~KymographPanel() override;

    /// Starts a kymograph of the selected region or the current line (what the Kymograph action
    /// does); a refusal is shown in the panel and returned (empty when it started).
    QString compute();
    /// Redraws through the document's current LUT and window.
    void refresh();
    /// Says which path Compute follows now (the selected region or the Line tool's line).
    void update_path();
    [[nodiscard]] QString path_text() const;
    /// Writes `tif` (float) and the CSV beside it (same name, .csv). Returns the error or "".
    QString export_to(const QString& tif);
    [[nodiscard]] session::Kymographer& kymographer() { return kymographer_; }
    [[nodiscard]] QString readout() const;
    [[nodiscard]] QString status() const;
    [[nodiscard]] KymographView* view() const { return view_; }

  signals:
    void message(const QString& text, int ms);

  private:
    void poll();
    void update_controls();

    session::Session& session_;
    session::Kymographer kymographer_;
    KymographView* view_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* readout_ = nullptr;
    QLabel* path_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QPushButton* compute_ = nullptr;
    QPushButton* cancel_ = nullptr;
    QPushButton* export_ = nullptr;
    QTimer* timer_ = nullptr;
};

}  // namespace lacuna::editor
