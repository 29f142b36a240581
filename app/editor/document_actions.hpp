// What happens to the document as a file: File ▸ Open, Open Recent, the bundled samples, videos,
// Save and Save As, and the questions that keep work from being lost (unsaved changes, replacing
// the original, a retarget preview not applied, what a format would lose). The window owns one
// and calls it from its menus; what the window shows after an open or a save it does through
// Host, so this class knows no dock, panel or status label.
#pragma once

#include <lacuna/core/image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/metadata.hpp>

#include <QMessageBox>
#include <QObject>
#include <QString>
#include <QStringList>

#include <vector>

class QMenu;
class QWidget;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

/// One button of a question: its words, its role, and the object name tests find it by.
struct Answer {
    QString text;
    QMessageBox::ButtonRole role;
    const char* name;
};

/// Asks a modal question whose dialog and buttons carry object names (the GUI tests answer it by
/// them); the first answer is the default, the last the one Escape gives. Returns the name of
/// the answer chosen.
QString ask(QWidget* parent, const char* dialog, QMessageBox::Icon icon, const QString& title,
            const QString& text, const QString& informative, const std::vector<Answer>& answers);

/// The file filters of the editor's dialogs.
extern const char* const kImageFilter;
extern const char* const kVideoFilter;

class DocumentActions : public QObject {
    Q_OBJECT
  public:
    /// What the window does around a document's life; the window implements it.
    class Host {
      public:
        virtual ~Host() = default;
        /// Before a new document replaces the current one (a running fill is cancelled). False:
        /// it cannot now (a video export is running), and the host said why.
        virtual bool prepare_open(bool video) = 0;
        enum class Opened { Photo, Measurement, Video };
        /// A new document is shown: panels forget the old one, the view fits, the matching
        /// dock comes forward; `message` goes to the status bar when not empty.
        virtual void document_opened(Opened kind, const QString& message) = 0;
        /// The document was written to its file: no recovery file is needed any more.
        virtual void document_saved() = 0;
        /// The display of a measurement changed (the sample measurement's LUT).
        virtual void display_changed() = 0;
        /// Commits the retarget preview (Save's "Apply and Save"); false with a status.
        virtual bool apply_retarget() = 0;
        virtual void show_message(const QString& text, int milliseconds) = 0;
        /// A non-modal error dialog (named lacuna_error_dialog).
        virtual void show_error(const QString& title, const QString& message) = 0;
        /// How long the last open took, for the status bar.
        virtual void show_timing(const QString& text) = 0;
    };

    DocumentActions(QWidget& window, session::Session& session, Host& host);

    /// Opens a file (an image, or a video through open_video). With unsaved edits it first asks
    /// Save / Discard / Cancel; on failure it shows an error dialog and keeps the current
    /// document, its edits and their autosave.
    bool open_file(const QString& path);
    /// A video or an image sequence: its first frame as the document.
    bool open_video(const QString& path);
    /// The sample photo bundled in the binary (asking first, as open_file does).
    bool open_sample();
    /// The bundled temperature field (FITS in kelvin), a measurement with the inferno LUT.
    bool open_sample_measurement();
    /// File ▸ Open: a file dialog, then open_file.
    void choose_and_open();
    /// Opens loaded samples: a photo when they are 8-bit without calibration, else a
    /// measurement document.
    void show_loaded(io::LoadedNative loaded, const QString& path);
    /// Shows `image` as a new photo document from `path` ("" for none: a sample, a conversion).
    void show_document(ImageRgba8 image, const QString& path, const QStringList& notices,
                       io::Metadata metadata = {});

    /// Saves to `path` (atomically, with the opened file's metadata); asks before replacing the
    /// file the document came from unless `allow_replace_source`, and before saving with a
    /// retarget preview on screen (apply it, save without it, or cancel).
    bool save_to(const QString& path, bool allow_replace_source = false);
    /// File ▸ Save: writes the document to its own file without asking, unless that would lose
    /// something (check_save): then it says what, once per document, and offers Save As. A
    /// document without a file of its own (a sample, a converted measurement, a video frame)
    /// goes to Save As. True when the document was saved.
    bool save();
    /// File ▸ Save As: a file dialog, then save_to. True when the document was saved.
    bool choose_and_save();
    /// What writing the document to `path` would lose: lossy re-encoding, the other pages of a
    /// stack, a format Lacuna cannot write, samples the format cannot hold. Empty: nothing.
    struct SaveCheck {
        QStringList losses;
        bool writable = true;  ///< false: only Save As can keep the document
    };
    [[nodiscard]] SaveCheck check_save(const QString& path) const;
    /// With unsaved edits, asks "Save / Discard / Cancel" before `next_action` ("opening
    /// x.png", "quitting"); Save saves (or Save As). True when the caller may go on: nothing
    /// unsaved, saved, or discarded. Cancel (or a failed save) returns false and changes nothing.
    bool resolve_unsaved(const QString& next_action);

    /// The file the document came from or was saved to ("" for none).
    [[nodiscard]] const QString& path() const { return path_; }
    /// A restored document's file (crash recovery): Save writes there again.
    void set_path(const QString& path);
    /// The window title for the document ("name[*] — Lacuna"), set on the window.
    void update_title();

    /// Open Recent lists the files in `menu` (kept up to date from now on).
    void set_recent_menu(QMenu* menu);
    /// The labels Open Recent shows for `paths`: the file name, with as many parent folders as
    /// it takes to tell files of the same name apart.
    static QStringList recent_labels(const QStringList& paths);

  private:
    bool load_file(const QString& path);
    bool load_video(const QString& path);
    /// After a new document is in the session: its file, the host, the title.
    void opened(Host::Opened kind, const QString& path, const QString& message);
    void remember_recent(const QString& path);
    void update_recent_menu();

    QWidget& window_;
    session::Session& session_;
    Host& host_;
    QString path_;
    QMenu* recent_menu_ = nullptr;
    /// The user has been told what a Save over this document's own file loses, and agreed.
    bool save_losses_accepted_ = false;
};

}  // namespace lacuna::editor
