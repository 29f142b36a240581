// The editor's main window: menus, status bar, the canvas; opening and saving documents.
#pragma once

#include <lacuna/core/backend.hpp>
#include <lacuna/core/image.hpp>

#include <QMainWindow>
#include <QString>

class QLabel;
class QMenu;

namespace lacuna::editor {

class Canvas;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a file; on failure shows an error dialog and keeps the current document.
    bool open_file(const QString& path);
    /// Opens the sample photo bundled in the binary.
    bool open_sample();
    /// Saves to `path` (atomically); refuses to replace the file the document came from unless
    /// `allow_replace_source`.
    bool save_to(const QString& path, bool allow_replace_source = false);

    [[nodiscard]] Canvas* canvas() const { return canvas_; }
    [[nodiscard]] const QString& document_path() const { return document_path_; }
    [[nodiscard]] const BackendInfo& backend() const { return backend_; }

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void build_menus();
    void build_status_bar();
    void show_document(ImageRgba8 image, const QString& path, const QStringList& notices);
    void show_error(const QString& title, const QString& message);
    void update_recent_menu();
    void remember_recent(const QString& path);
    void update_title();
    void choose_and_open();
    void choose_and_save();

    Canvas* canvas_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QLabel* size_label_ = nullptr;
    QLabel* zoom_label_ = nullptr;
    QLabel* backend_label_ = nullptr;
    QLabel* time_label_ = nullptr;
    QString document_path_;
    BackendInfo backend_;
};

}  // namespace lacuna::editor
