// Answers the editor's modal questions in GUI tests the way a user would: it waits for a visible
// QMessageBox with a given object name and clicks the button with a given object name. The count
// of answered questions lets a test assert that the question was asked at all.
#pragma once

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QObject>
#include <QString>
#include <QTimer>

namespace lacuna::test {

class DialogAnswer : public QObject {
  public:
    /// Clicks `button` in every visible QMessageBox named `dialog` while this object lives.
    DialogAnswer(QString dialog, QString button)
        : dialog_(std::move(dialog)), button_(std::move(button)) {
        timer_.setInterval(5);
        connect(&timer_, &QTimer::timeout, this, &DialogAnswer::poll);
        timer_.start();
    }
    /// Questions answered so far.
    [[nodiscard]] int answered() const { return answered_; }
    /// The last answered question's text and informative text.
    [[nodiscard]] const QString& text() const { return text_; }

  private:
    void poll() {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            auto* box = qobject_cast<QMessageBox*>(widget);
            if (box == nullptr || !box->isVisible() || box->objectName() != dialog_) continue;
            auto* button = box->findChild<QAbstractButton*>(button_);
            if (button == nullptr) continue;
            text_ = box->text() + "\n" + box->informativeText();
            ++answered_;
            button->click();
        }
    }
    QString dialog_, button_;
    QTimer timer_;
    int answered_ = 0;
    QString text_;
};

}  // namespace lacuna::test
