#include "document_actions.hpp"

#include <retarget_tool.hpp>
#include <session.hpp>

#include <lacuna/core/display.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QWidget>

#include <algorithm>
#include <optional>

namespace lacuna::editor {

const char* const kImageFilter =
    "Images (*.png *.jpg *.jpeg *.tif *.tiff *.webp *.bmp *.ppm *.pgm *.pfm *.dcm *.fits *.fit "
    "*.fts);;Videos (*.mp4 *.m4v *.mov *.avi *.mkv *.webm *.mpg *.mpeg);;All files (*)";
const char* const kVideoFilter = "Videos (*.mp4 *.mkv *.avi *.mov);;All files (*)";

namespace {
constexpr int kMaxRecentFiles = 8;
}  // namespace

QString ask(QWidget* parent, const char* dialog, const QMessageBox::Icon icon, const QString& title,
            const QString& text, const QString& informative, const std::vector<Answer>& answers) {
    QMessageBox box(icon, title, text, QMessageBox::NoButton, parent);
    box.setObjectName(dialog);
    box.setInformativeText(informative);
    std::vector<QPushButton*> buttons;
    for (const Answer& a : answers) {
        buttons.push_back(box.addButton(a.text, a.role));
        buttons.back()->setObjectName(a.name);
    }
    box.setDefaultButton(buttons.front());
    box.setEscapeButton(buttons.back());
    box.exec();
    return box.clickedButton() != nullptr ? box.clickedButton()->objectName()
                                          : QString(answers.back().name);
}

DocumentActions::DocumentActions(QWidget& window, session::Session& session, Host& host)
    : window_(window), session_(session), host_(host) {}

void DocumentActions::set_path(const QString& path) {
    path_ = path;
    save_losses_accepted_ = false;
    update_title();
}

void DocumentActions::update_title() {
    window_.setWindowTitle(path_.isEmpty() ? tr("Lacuna[*]")
                                           : tr("%1[*] — Lacuna").arg(QFileInfo(path_).fileName()));
}

void DocumentActions::set_recent_menu(QMenu* menu) {
    recent_menu_ = menu;
    update_recent_menu();
}

bool DocumentActions::open_file(const QString& path) {
    if (!resolve_unsaved(tr("opening %1").arg(QFileInfo(path).fileName()))) return false;
    return load_file(path);
}

bool DocumentActions::load_file(const QString& path) {
    if (io::is_video_path(path.toStdString())) return load_video(path);
    QElapsedTimer timer;
    timer.start();
    try {
        show_loaded(io::read_native(path.toStdString()), path);
        remember_recent(path);
        host_.show_timing(tr("opened in %1 ms").arg(timer.elapsed()));
        return true;
    } catch (const Error& e) {
        host_.show_error(tr("Cannot open image"), QString::fromStdString(e.what()));
        return false;
    }
}

void DocumentActions::show_loaded(io::LoadedNative loaded, const QString& path) {
    QStringList notices;
    for (const std::string& n : loaded.notices) notices << QString::fromStdString(n);
    const NativeImage& first = loaded.pages.front();
    // 8-bit colour (and grey) files without a calibration are photos; everything else is a
    // measurement, kept as stored.
    const bool photo = first.sample_type() == SampleType::U8 && loaded.pages.size() == 1 &&
                       loaded.calibration.identity() && loaded.calibration.unit.empty() &&
                       loaded.info.format != io::ImageFormat::Dicom &&
                       loaded.info.format != io::ImageFormat::Fits;
    if (photo) {
        show_document(to_rgba8(convert(first, {SampleType::U8, 4})), path, notices,
                      std::move(loaded.metadata));
        return;
    }
    host_.prepare_open(false);
    std::optional<DisplayWindow> window;
    if (loaded.window) window = DisplayWindow{loaded.window->first, loaded.window->second};
    const PixelSpacing spacing = loaded.spacing;
    session_.open_measurement(std::move(loaded.pages), loaded.calibration, window,
                              std::move(loaded.metadata));
    session_.document().set_spacing(spacing);
    session_.set_frame_interval(loaded.frame_interval);
    opened(Host::Opened::Measurement, path, notices.join("; "));
}

bool DocumentActions::open_video(const QString& path) {
    if (!resolve_unsaved(tr("opening %1").arg(QFileInfo(path).fileName()))) return false;
    return load_video(path);
}

bool DocumentActions::load_video(const QString& path) {
    QElapsedTimer timer;
    timer.start();
    if (!host_.prepare_open(true)) return false;
    try {
        session_.open_video(path.toStdString());
    } catch (const Error& e) {
        host_.show_error(tr("Cannot open video"), QString::fromStdString(e.what()));
        return false;
    }
    remember_recent(path);
    const session::VideoClip& clip = *session_.video();
    opened(Host::Opened::Video, path,
           tr("%1 × %2, %3 frames at %4 fps (%5): retarget a frame to preview; "
              "Export Video writes them all")
               .arg(clip.info().width)
               .arg(clip.info().height)
               .arg(clip.frame_count())
               .arg(clip.info().fps, 0, 'f', 2)
               .arg(QString::fromStdString(clip.info().codec)));
    host_.show_timing(tr("opened in %1 ms").arg(timer.elapsed()));
    return true;
}

void DocumentActions::show_document(ImageRgba8 image, const QString& path,
                                    const QStringList& notices, io::Metadata metadata) {
    host_.prepare_open(false);
    session_.open(std::move(image), std::move(metadata));
    opened(Host::Opened::Photo, path, notices.join("; "));
}

void DocumentActions::opened(const Host::Opened kind, const QString& path, const QString& message) {
    path_ = path;
    save_losses_accepted_ = false;  // a new document: its own losses, asked anew
    host_.document_opened(kind, message);
    update_title();
}

bool DocumentActions::open_sample_measurement() {
    if (!resolve_unsaved(tr("opening the sample measurement"))) return false;
    QFile file(":/lacuna/sample/temperature.fits");
    if (!file.open(QIODevice::ReadOnly)) {
        host_.show_error(tr("Cannot open sample"),
                         tr("The bundled measurement sample is missing."));
        return false;
    }
    const QByteArray data = file.readAll();
    try {
        show_loaded(io::decode_native(std::vector<std::uint8_t>(data.begin(), data.end()),
                                      "temperature.fits"),
                    QString());
        session_.set_lut(Lut::Inferno);
        host_.display_changed();
        window_.setWindowTitle(tr("Sample measurement (temperature.fits, kelvin)[*] — Lacuna"));
        return true;
    } catch (const Error& e) {
        host_.show_error(tr("Cannot open sample"), QString::fromStdString(e.what()));
        return false;
    }
}

bool DocumentActions::open_sample() {
    if (!resolve_unsaved(tr("opening the sample image"))) return false;
    QFile file(":/lacuna/sample/fruits.jpg");
    if (!file.open(QIODevice::ReadOnly)) {
        host_.show_error(tr("Cannot open sample"), tr("The bundled sample image is missing."));
        return false;
    }
    const QByteArray data = file.readAll();
    try {
        io::LoadedImage loaded =
            io::decode_image(std::vector<std::uint8_t>(data.begin(), data.end()), "sample image");
        show_document(std::move(loaded.image), QString(), {});
        window_.setWindowTitle(tr("Sample image (fruits.jpg)[*] — Lacuna"));
        return true;
    } catch (const Error& e) {
        host_.show_error(tr("Cannot open sample"), QString::fromStdString(e.what()));
        return false;
    }
}

void DocumentActions::choose_and_open() {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        &window_, tr("Open Image"), settings.value("paths/last_dir").toString(), tr(kImageFilter));
    if (path.isEmpty()) return;
    settings.setValue("paths/last_dir", QFileInfo(path).absolutePath());
    open_file(path);
}

bool DocumentActions::save_to(const QString& path, const bool allow_replace_source) {
    if (session_.document().empty()) return false;
    if (!allow_replace_source && !path_.isEmpty() &&
        io::same_file(path_.toStdString(), path.toStdString())) {
        const auto answer = QMessageBox::question(
            &window_, tr("Replace the original?"),
            tr("%1 is the file this image was opened from. Replace it?").arg(path));
        if (answer != QMessageBox::Yes) return false;
    }
    session::RetargetTool& retarget = session_.retarget();
    if (retarget.previewing()) {
        // A preview is not an edit: the user decides whether the file gets it.
        const QString answer =
            ask(&window_, "lacuna_preview_dialog", QMessageBox::Question,
                tr("Retarget preview not applied"),
                tr("The retarget preview (%1 × %2 px) is not part of the image yet.")
                    .arg(retarget.target_width())
                    .arg(retarget.target_height()),
                tr("Apply it and save the result, or save the image as it is (%1 × %2 px)?")
                    .arg(session_.document().width())
                    .arg(session_.document().height()),
                {{tr("Apply and Save"), QMessageBox::AcceptRole, "preview_apply"},
                 {tr("Save Without It"), QMessageBox::DestructiveRole, "preview_without"},
                 {tr("Cancel"), QMessageBox::RejectRole, "preview_cancel"}});
        if (answer == "preview_apply") {
            if (!host_.apply_retarget()) {
                host_.show_error(
                    tr("Cannot apply the retarget preview"),
                    tr("%1\n\nNothing was saved.").arg(QString::fromStdString(retarget.status())));
                return false;
            }
        } else if (answer != "preview_without") {
            return false;
        }
    }
    try {
        // A measurement document saves its stored samples (same depth where the format holds
        // it; otherwise the notice says what was converted); both keep the opened file's
        // metadata.
        const auto notices = session_.save(path.toStdString());
        QStringList text;
        for (const std::string& n : notices) text << QString::fromStdString(n);
        host_.show_message(
            tr("Saved %1%2").arg(path, text.isEmpty() ? "" : " (" + text.join("; ") + ")"), 8000);
        if (!io::same_file(path_.toStdString(), path.toStdString()))
            save_losses_accepted_ = false;  // a new file of its own: its own losses, asked anew
        path_ = path;
        session_.history().set_clean();
        host_.document_saved();  // the file on disk holds every edit now
        remember_recent(path);
        update_title();
        return true;
    } catch (const Error& e) {
        host_.show_error(tr("Cannot save image"), QString::fromStdString(e.what()));
        return false;
    }
}

bool DocumentActions::choose_and_save() {
    if (session_.document().empty()) return false;
    QSettings settings;
    QString suggested = path_;
    if (suggested.isEmpty()) {
        suggested = settings.value("paths/last_dir").toString() + "/untitled.png";
    } else if (const session::VideoClip* clip = session_.video()) {
        // A frame of a video: the clip's name with the frame number, as a PNG beside it.
        const QFileInfo info(path_);
        suggested = info.absolutePath() + "/" + info.completeBaseName() +
                    QString("-frame%1.png").arg(clip->current() + 1, 4, 10, QChar('0'));
    } else if (!check_save(path_).writable) {
        const QFileInfo info(path_);
        suggested = info.absolutePath() + "/" + info.completeBaseName() +
                    (session_.document().measurement() ? ".tif" : ".png");
    }
    const QString path =
        QFileDialog::getSaveFileName(&window_, tr("Save Image As"), suggested, tr(kImageFilter));
    if (path.isEmpty()) return false;
    settings.setValue("paths/last_dir", QFileInfo(path).absolutePath());
    return save_to(path, /*allow_replace_source=*/false);
}

DocumentActions::SaveCheck DocumentActions::check_save(const QString& path) const {
    SaveCheck check;
    io::ImageFormat format = io::ImageFormat::Png;
    try {
        format = io::format_for_path(path.toStdString());
    } catch (const Error&) {
        check.writable = false;
        check.losses << tr("Lacuna cannot write %1 files; Save As keeps the image in another "
                           "format.")
                            .arg(QFileInfo(path).suffix().toUpper());
        return check;
    }
    const io::WriteOptions defaults;
    if (format == io::ImageFormat::Jpeg)
        check.losses << tr("JPEG stores the image lossily: saving encodes it again (quality %1), "
                           "and some detail is lost each time.")
                            .arg(defaults.jpeg_quality);
    if (format == io::ImageFormat::Webp && !defaults.webp_lossless)
        check.losses << tr("WebP is written lossily here: some detail is lost.");
    if (const int pages = session_.page_count(); pages > 1)
        check.losses << tr("The file has %1 pages; only the page shown (%2) would be written, "
                           "and the other %3 lost.")
                            .arg(pages)
                            .arg(session_.page() + 1)
                            .arg(pages - 1);
    const session::Document& document = session_.document();
    if (document.measurement()) {
        const NativeImage& samples = document.samples();
        if (!io::format_holds(format, samples.sample_type(), samples.channels()))
            check.losses << tr("%1 cannot hold these %2 samples: they would be narrowed to 8 bits.")
                                .arg(QString::fromUtf8(io::to_string(format).data()))
                                .arg(QString::fromUtf8(to_string(samples.sample_type()).data()));
        if ((!document.calibration().identity() || !document.calibration().unit.empty()) &&
            !io::format_keeps_calibration(format))
            check.losses << tr("The calibration (%1) is not stored in %2 files.")
                                .arg(QString::fromStdString(document.calibration().unit))
                                .arg(QString::fromUtf8(io::to_string(format).data()));
    }
    return check;
}

bool DocumentActions::save() {
    if (session_.document().empty()) return false;
    // No file of its own to write: a sample, a converted measurement, or a frame of a video.
    if (path_.isEmpty() || session_.video() != nullptr) return choose_and_save();
    const SaveCheck check = check_save(path_);
    if (!check.losses.isEmpty() && (!save_losses_accepted_ || !check.writable)) {
        const QString file = QFileInfo(path_).fileName();
        // Save As first: the choice that loses nothing.
        std::vector<Answer> answers{{tr("Save As…"), QMessageBox::ActionRole, "loss_save_as"}};
        if (check.writable) answers.push_back({tr("Save"), QMessageBox::AcceptRole, "loss_save"});
        answers.push_back({tr("Cancel"), QMessageBox::RejectRole, "loss_cancel"});
        const QString answer =
            ask(&window_, "lacuna_save_loss_dialog", QMessageBox::Warning, tr("Save"),
                check.writable ? tr("Saving over %1 loses something:").arg(file)
                               : tr("%1 cannot be saved in its own format.").arg(file),
                "• " + check.losses.join("\n• "), answers);
        if (answer == "loss_save_as") return choose_and_save();
        if (answer != "loss_save") return false;
        save_losses_accepted_ = true;  // said once for this document
    }
    return save_to(path_, /*allow_replace_source=*/true);
}

bool DocumentActions::resolve_unsaved(const QString& next_action) {
    if (session_.history().is_clean()) return true;
    const QString name = path_.isEmpty() ? tr("The image") : QFileInfo(path_).fileName();
    const QString answer =
        ask(&window_, "lacuna_unsaved_dialog", QMessageBox::Warning, tr("Unsaved changes"),
            tr("%1 has changes that are not saved.").arg(name),
            tr("Save them before %1? If you don't, the changes are lost.").arg(next_action),
            {{tr("Save"), QMessageBox::AcceptRole, "unsaved_save"},
             {tr("Discard"), QMessageBox::DestructiveRole, "unsaved_discard"},
             {tr("Cancel"), QMessageBox::RejectRole, "unsaved_cancel"}});
    if (answer == "unsaved_discard") return true;
    return answer == "unsaved_save" && save();
}

void DocumentActions::remember_recent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recent_files").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecentFiles) recent.removeLast();
    settings.setValue("recent_files", recent);
    update_recent_menu();
}

QStringList DocumentActions::recent_labels(const QStringList& paths) {
    // Each label grows by one parent folder at a time while another path ends the same way.
    const auto parts_of = [](const QString& path) {
        return QDir::fromNativeSeparators(path).split('/', Qt::SkipEmptyParts);
    };
    const auto tail = [](const QStringList& parts, const qsizetype n) {
        return parts.mid(std::max<qsizetype>(0, parts.size() - n)).join('/');
    };
    QStringList labels;
    for (const QString& path : paths) {
        const QStringList parts = parts_of(path);
        qsizetype n = 1;
        const auto clashes = [&] {
            for (const QString& other : paths)
                if (other != path && tail(parts_of(other), n) == tail(parts, n)) return true;
            return false;
        };
        while (n < parts.size() && clashes()) ++n;
        const QString name = parts.isEmpty() ? path : parts.back();
        labels << (n == 1 ? name
                          : tr("%1 — %2").arg(name, tail(parts, n).chopped(name.size() + 1)));
    }
    return labels;
}

void DocumentActions::update_recent_menu() {
    if (recent_menu_ == nullptr) return;
    recent_menu_->clear();
    const QStringList recent = QSettings().value("recent_files").toStringList();
    const QStringList labels = recent_labels(recent);
    for (qsizetype i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        recent_menu_->addAction(labels[i], this, [this, path] { open_file(path); })
            ->setToolTip(path);
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

}  // namespace lacuna::editor
