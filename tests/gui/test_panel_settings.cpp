// The object-removal panel keeps its brush and fill settings between sessions as versioned
// name=value text (remove_object/settings); the one-key-per-widget form that earlier versions
// wrote is read once and converted.
#include <object_removal_panel.hpp>

#include <remove_object_tool.hpp>
#include <session.hpp>

#include <QCheckBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace lacuna;
using lacuna::editor::ObjectRemovalPanel;

class TestPanelSettings : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    /// The tool the panel binds to (a host session: no device, no GL).
    session::Session session_{false};

  private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.path());
    }
    void init() { QSettings().clear(); }

    void first_start_has_the_declared_defaults() {
        const ObjectRemovalPanel panel(session_.remove_object());
        const ops::BrushSettings defaults;
        QCOMPARE(panel.brush().radius, defaults.radius);
        QCOMPARE(panel.brush().hardness, defaults.hardness);
        QCOMPARE(panel.fill_params().patch, ops::InpaintParams{}.patch);
        QCOMPARE(panel.fill_params().method, ops::InpaintParams{}.method);
        const QString text = QSettings().value("remove_object/settings").toString();
        QVERIFY2(text.startsWith("version=1\n") && text.contains("\nfill.patch=9\n"),
                 qPrintable(text));
    }

    // The fill's switches are the declared parameters (keep-colours, the last stage of a
    // PatchMatch fill: on by default): the box starts as declared, what the user sets is what the
    // fill gets, and it is kept for the next start.
    void keep_colours_box_reaches_the_fill_and_is_kept() {
        {
            ObjectRemovalPanel panel(session_.remove_object());
            QVERIFY(ops::InpaintParams{}.keep_colours);
            QCOMPARE(panel.fill_params().keep_colours, true);
            auto* box = panel.findChild<QCheckBox*>("fill_keep_colours");
            QVERIFY(box != nullptr);
            box->setChecked(false);
            QCOMPARE(panel.fill_params().keep_colours, false);
        }
        const QString text = QSettings().value("remove_object/settings").toString();
        QVERIFY2(text.contains("\nfill.keep-colours=off\n") ||
                     text.contains("\nfill.keep-colours=0\n") ||
                     text.contains("\nfill.keep-colours=false\n"),
                 qPrintable(text));
        const ObjectRemovalPanel again(session_.remove_object());
        QCOMPARE(again.fill_params().keep_colours, false);
    }

    void old_keys_are_converted() {
        {
            QSettings old;
            old.setValue("remove_object/brush_size", 60);  // the slider's diameter
            old.setValue("remove_object/hardness", 35);    // percent
            old.setValue("remove_object/patch", 13);
            old.setValue("remove_object/search", 2);  // the third row: the whole image
            old.setValue("remove_object/method", 0);  // the first row: Criminisi
        }
        {
            const ObjectRemovalPanel panel(session_.remove_object());
            QCOMPARE(panel.brush().radius, 30.0);
            QCOMPARE(panel.brush().hardness, 0.35);
            QCOMPARE(panel.fill_params().patch, 13);
            QCOMPARE(panel.fill_params().search, ops::InpaintSearch::Full);
            QCOMPARE(panel.fill_params().method, ops::InpaintMethod::Criminisi);
        }
        QSettings now;
        QVERIFY(!now.contains("remove_object/brush_size") && !now.contains("remove_object/method"));
        const QString text = now.value("remove_object/settings").toString();
        QVERIFY2(text.contains("\nbrush.radius=30\n") &&
                     text.contains("\nfill.method=criminisi\n") &&
                     text.contains("\nfill.search=full\n"),
                 qPrintable(text));
        // And the next start reads the text.
        const ObjectRemovalPanel again(session_.remove_object());
        QCOMPARE(again.brush().radius, 30.0);
        QCOMPARE(again.fill_params().search, ops::InpaintSearch::Full);
        QCOMPARE(again.fill_params().method, ops::InpaintMethod::Criminisi);
    }

    void unknown_names_and_bad_values_keep_the_defaults() {
        QSettings().setValue("remove_object/settings",
                             "version=1\nbrush.radius=12\nbrush.glitter=on\nfill.patch=8\n"
                             "fill.window=1.5\nfill.search=window\n");
        const ObjectRemovalPanel panel(session_.remove_object());
        QCOMPARE(panel.brush().radius, 12.0);
        QCOMPARE(panel.fill_params().patch, ops::InpaintParams{}.patch);  // 8 is even: refused
        QCOMPARE(panel.fill_params().search, ops::InpaintSearch::Window);
        QCOMPARE(panel.fill_params().window_factor, 1.5);  // the "wider" row
    }
};

QTEST_MAIN(TestPanelSettings)
#include "test_panel_settings.moc"
