// Crash recovery in the editor: the timed autosave (written as a background job by
// session::Autosaver), its outcome in the status bar, the question at start when an editor
// that is no longer running left unsaved edits (Restore / Discard / Decide Later), and the last
// autosave when a signal ends the editor. The window owns one; what it shows after a restore it
// does through Host.
#pragma once

#include <recovery.hpp>

#include <QObject>
#include <QString>

#include <memory>

class QTimer;
class QWidget;

namespace lacuna::session {
class Session;
}

namespace lacuna::editor {

class DocumentActions;

class RecoveryUi : public QObject {
    Q_OBJECT
  public:
    class Host {
      public:
        virtual ~Host() = default;
        /// Before a restored document replaces the current one (a running fill is cancelled).
        virtual bool prepare_open(bool video) = 0;
        /// The restored document is in the session: panels show its tool state, the view
        /// fits, `message` goes to the status bar.
        virtual void document_restored(const session::ToolState& tools, const QString& message) = 0;
        virtual void show_message(const QString& text, int milliseconds) = 0;
        virtual void show_error(const QString& title, const QString& message) = 0;
    };

    /// Autosave is off (and said so once) when the recovery folder cannot be used.
    RecoveryUi(QWidget& window, session::Session& session, DocumentActions& documents, Host& host);
    /// A running write finishes; the file stays when there are unsaved edits (a window closed
    /// by the user removed it first).
    ~RecoveryUi() override;

    /// If an editor that is no longer running left unsaved edits, asks whether to restore them
    /// (LACUNA_RECOVERY_ANSWER=restore|discard|later answers without asking). True when a
    /// document was restored.
    bool offer();
    /// Writes the recovery file now when there are unsaved changes it does not hold yet
    /// (otherwise removes it); the write runs in the background.
    void autosave();
    /// After open, a finished fill or an applied retarget: autosave on the next poll.
    void request() { pending_ = true; }
    /// From the window's poll timer: a finished write's failure is shown; a requested write
    /// starts once none runs.
    void poll();
    /// The document was saved or its edits discarded: no recovery file outlives it.
    void remove();
    /// The last autosave, waited for (a signal ends the editor; the next start offers it).
    void write_last();
    /// This editor's recovery file (empty when autosave is off).
    [[nodiscard]] QString file() const;

  private:
    QWidget& window_;
    session::Session& session_;
    DocumentActions& documents_;
    Host& host_;
    std::unique_ptr<session::Autosaver> autosaver_;
    QTimer* timer_ = nullptr;
    bool pending_ = false;
};

}  // namespace lacuna::editor
