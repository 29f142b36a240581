#include "recovery_ui.hpp"

#include "document_actions.hpp"

#include <session.hpp>

#include <lacuna/core/error.hpp>

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <QWidget>

#include <cstdlib>

namespace lacuna::editor {
namespace {

/// The autosave interval: LACUNA_AUTOSAVE_MS (tests), else the setting recovery/autosave_minutes
/// (default 2). Zero or less turns the timed autosave off (writes after long operations stay).
int autosave_interval_ms() {
    if (const char* ms = std::getenv("LACUNA_AUTOSAVE_MS"); ms != nullptr && *ms != '\0')
        return std::atoi(ms);
    return static_cast<int>(QSettings().value("recovery/autosave_minutes", 2.0).toDouble() * 60000);
}

}  // namespace

RecoveryUi::RecoveryUi(QWidget& window, session::Session& session, DocumentActions& documents,
                       Host& host)
    : window_(window), session_(session), documents_(documents), host_(host) {
    try {
        autosaver_ = std::make_unique<session::Autosaver>(session::recovery_directory());
    } catch (const Error& e) {
        // The editor works without it; the user is told once.
        host_.show_message(tr("Autosave is off: %1").arg(e.what()), 15000);
    }
    timer_ = new QTimer(this);
    connect(timer_, &QTimer::timeout, this, &RecoveryUi::autosave);
    if (const int interval = autosave_interval_ms(); autosaver_ && interval > 0)
        timer_->start(interval);
}

RecoveryUi::~RecoveryUi() {
    if (autosaver_) autosaver_->wait();
}

void RecoveryUi::autosave() {
    pending_ = false;
    if (!autosaver_) return;
    try {
        if (autosaver_->request(session_, documents_.path().toStdString()) ==
            session::Autosaver::Request::Busy)
            pending_ = true;  // a stroke, a fill or the last write: the next poll tries
    } catch (const Error& e) {
        host_.show_message(tr("Autosave failed: %1").arg(e.what()), 12000);
    }
}

void RecoveryUi::poll() {
    if (!autosaver_) return;
    if (const std::optional<session::Autosaver::Outcome> outcome = autosaver_->poll();
        outcome && !outcome->ok)
        host_.show_message(tr("Autosave failed: %1").arg(QString::fromStdString(outcome->message)),
                           12000);
    if (pending_ && !autosaver_->writing()) autosave();
}

void RecoveryUi::remove() {
    if (autosaver_) autosaver_->remove();
}

void RecoveryUi::write_last() {
    if (!autosaver_) return;
    try {
        autosaver_->request_and_wait(session_, documents_.path().toStdString());
    } catch (const Error&) {
        // The file of the last successful autosave stays; nothing more can be done here.
    }
}

QString RecoveryUi::file() const {
    return autosaver_ ? QString::fromStdString(autosaver_->file().string()) : QString();
}

bool RecoveryUi::offer() {
    if (!autosaver_) return false;
    const session::RecoverySlot& slot = autosaver_->slot();
    const std::vector<std::filesystem::path> orphans = slot.orphans();
    if (orphans.empty()) return false;
    // The newest first; older ones are offered at later starts, never deleted unasked.
    const std::filesystem::path& file = orphans.front();
    const QString name = QString::fromStdString(file.string());
    session::RecoverySnapshot snapshot;
    try {
        snapshot = session::read_recovery(file);
    } catch (const Error& e) {
        const std::filesystem::path aside = slot.set_aside(file);
        host_.show_error(tr("Cannot restore unsaved edits"),
                         tr("%1\n\nThe file is kept as %2 and not offered again.")
                             .arg(e.what(), QString::fromStdString(aside.string())));
        return false;
    }
    const QString what = snapshot.document_path.empty()
                             ? tr("an image")
                             : QFileInfo(QString::fromStdString(snapshot.document_path)).fileName();
    const QDateTime when = QFileInfo(name).lastModified();
    QString answer = qEnvironmentVariable("LACUNA_RECOVERY_ANSWER").toLower();
    if (answer.isEmpty()) {
        QMessageBox box(QMessageBox::Question, tr("Restore unsaved edits?"),
                        tr("Lacuna did not close properly. Edits of %1 (%2 × %3 px) that were "
                           "not saved were kept at %4.\n\nRestore them?")
                            .arg(what)
                            .arg(snapshot.width())
                            .arg(snapshot.height())
                            .arg(QLocale().toString(when, QLocale::ShortFormat)),
                        QMessageBox::NoButton, &window_);
        box.setObjectName("lacuna_recovery_dialog");
        QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Decide Later"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        answer = box.clickedButton() == restore   ? "restore"
                 : box.clickedButton() == discard ? "discard"
                                                  : "later";
    }
    if (answer == "discard") {
        slot.discard(file);
        host_.show_message(tr("Discarded the unsaved edits of %1.").arg(what), 8000);
        return false;
    }
    if (answer != "restore") return false;  // kept for the next start
    try {
        host_.prepare_open(false);
        const std::vector<std::string> notices = session::restore_snapshot(session_, snapshot);
        // Ours now: the next autosave replaces it, a clean exit removes it.
        slot.adopt(file);
        documents_.set_path(QString::fromStdString(snapshot.document_path));
        QStringList text{tr("Restored the unsaved edits of %1; save them to keep them.").arg(what)};
        for (const std::string& n : notices) text << QString::fromStdString(n);
        host_.document_restored(snapshot.tools, text.join("; "));
        request();
        return true;
    } catch (const Error& e) {
        const std::filesystem::path aside = slot.set_aside(file);
        host_.show_error(tr("Cannot restore unsaved edits"),
                         tr("%1\n\nThe file is kept as %2.")
                             .arg(e.what(), QString::fromStdString(aside.string())));
        return false;
    }
}

}  // namespace lacuna::editor
