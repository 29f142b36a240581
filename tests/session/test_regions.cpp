// The Regions tool (app/session/regions_tool.hpp): drawing, editing, deleting, undo and redo
// through pointer input, the JSON file round trip, and profiles equal to `lacuna histogram
// --regions` on the same image and file.
#include <line_tool.hpp>
#include <regions_tool.hpp>
#include <session.hpp>

#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/regions.hpp>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

using namespace lacuna;
using session::Pointer;
using session::RegionsTool;

namespace {

Pointer at(const double x, const double y) {
    return {x, y, false, 1.0};
}

// A drag with the left button, in continuous image coordinates.
void drag(RegionsTool& tool, const double x0, const double y0, const double x1, const double y1) {
    tool.press(at(x0, y0));
    tool.move(at((x0 + x1) / 2, (y0 + y1) / 2));
    tool.move(at(x1, y1));
    tool.release(at(x1, y1));
}

void click(RegionsTool& tool, const double x, const double y) {
    tool.press(at(x, y));
    tool.release(at(x, y));
}

ImageRgba8 photo(const int w, const int h) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) = Rgba8{std::uint8_t((x * 7 + y * 3) % 256), std::uint8_t((x * y) % 251),
                                   std::uint8_t((200 - x + y) % 256), 255};
    return image;
}

/// Three regions drawn through the pointer: a line, a polyline of three vertices, a rectangle.
void draw_three(RegionsTool& tool) {
    tool.set_draw_shape(ops::RegionShape::Line);
    tool.set_draw_band(3);
    drag(tool, 5.5, 6.5, 60.5, 30.5);
    tool.set_draw_shape(ops::RegionShape::Polyline);
    tool.set_draw_band(1);
    click(tool, 10.5, 40.5);
    tool.hover(at(30, 45));
    click(tool, 35.5, 44.5);
    click(tool, 70.25, 8.75);  // the first click of the double click
    tool.double_click(at(70.25, 8.75));
    tool.set_draw_shape(ops::RegionShape::Rectangle);
    drag(tool, 62.3, 40.7, 88.6, 48.1);
}

}  // namespace

class TestRegions : public QObject {
    Q_OBJECT
  private slots:
    void draws_edits_deletes_with_undo_and_redo() {
        session::Session s(false);
        s.open(photo(96, 64));
        s.select(session::ToolKind::Regions);
        RegionsTool& tool = s.regions();
        draw_three(tool);
        QCOMPARE(tool.count(), 3);
        const auto& r = tool.regions();
        QCOMPARE(r[0].shape, ops::RegionShape::Line);
        QCOMPARE(r[0].name, std::string("line 1"));
        QCOMPARE(r[0].width, 3);
        QCOMPARE(r[0].points[0].x, 5.0);  // pixel centres: the pointer minus half a pixel
        QCOMPARE(r[0].points[1].y, 30.0);
        QCOMPARE(r[1].shape, ops::RegionShape::Polyline);
        QCOMPARE(r[1].points.size(), std::size_t(3));  // the double click added no vertex
        QCOMPARE(r[1].points[2].x, 69.75);
        QCOMPARE(r[2].shape, ops::RegionShape::Rectangle);
        // Whole pixels from the pressed pixel to the one the pointer's corner is nearest.
        QCOMPARE(r[2].x, 62.0);
        QCOMPARE(r[2].y, 40.0);
        QCOMPARE(r[2].width, 27);
        QCOMPARE(r[2].height, 8);
        QCOMPARE(tool.selected(), 2);
        for (int i = 0; i < 3; ++i) {
            QVERIFY(!tool.regions()[std::size_t(i)].color.empty());
            QVERIFY(tool.profile(i) != nullptr);
        }
        QVERIFY(r[0].color != r[1].color);
        QCOMPARE(tool.undo_label(), std::string("Add Region 'rect 3'"));
        // The overlay shows them all, the rectangle closed.
        const session::Overlay o = tool.overlay();
        QCOMPARE(o.regions.size(), std::size_t(3));
        QVERIFY(o.regions[2].closed && o.regions[2].selected);
        QCOMPARE(o.regions[0].path[0].x, 5.5);

        // A click on empty image draws nothing and deselects.
        tool.set_draw_shape(ops::RegionShape::Line);
        click(tool, 90.5, 60.5);
        QCOMPARE(tool.count(), 3);
        QCOMPARE(tool.selected(), -1);

        // Drag the line's far end; then move the whole polyline; then a rectangle corner.
        drag(tool, 60.5, 30.5, 80.5, 50.5);
        QCOMPARE(tool.regions()[0].points[1].x, 80.0);
        QCOMPARE(tool.regions()[0].points[0].x, 5.0);
        QCOMPARE(tool.selected(), 0);
        const std::vector<ops::Point2> poly = tool.regions()[1].points;
        drag(tool, 23.0, 42.5, 26.0, 40.5);  // on its first segment
        QCOMPARE(tool.regions()[1].points[0].x, poly[0].x + 3.0);
        QCOMPARE(tool.regions()[1].points[2].y, poly[2].y - 2.0);
        QCOMPARE(tool.undo_label(), std::string("Move Region"));
        drag(tool, 89.0, 48.0, 93.2, 52.4);  // the bottom-right corner
        QCOMPARE(tool.regions()[2].x, 62.0);
        QCOMPARE(tool.regions()[2].width, 31);
        QCOMPARE(tool.regions()[2].height, 12);
        // The profile followed the drag: the same as the engine on the new rectangle.
        const ops::RegionProfile* p = tool.profile(2);
        QVERIFY(p != nullptr);
        QCOMPARE(p->plan.positions(), 31);

        tool.rename(1, "axon");
        QCOMPARE(tool.regions()[1].name, std::string("axon"));
        QVERIFY_THROWS_EXCEPTION(Error, tool.rename(1, "line 1"));
        tool.remove(0);
        QCOMPARE(tool.count(), 2);
        QCOMPARE(tool.regions()[0].name, std::string("axon"));

        // Undo walks back each edit; redo forward again.
        QVERIFY(tool.undo());  // delete
        QCOMPARE(tool.count(), 3);
        QVERIFY(tool.undo());  // rename
        QCOMPARE(tool.regions()[1].name, std::string("polyline 2"));
        QVERIFY(tool.undo());  // corner
        QCOMPARE(tool.regions()[2].width, 27);
        QCOMPARE(tool.profile(2)->plan.positions(), 27);
        QVERIFY(tool.undo());  // move
        QVERIFY(tool.regions()[1].points == poly);
        QVERIFY(tool.redo());
        QCOMPARE(tool.regions()[1].points[0].x, poly[0].x + 3.0);
        QVERIFY(tool.redo());
        QVERIFY(tool.redo());
        QVERIFY(tool.redo());
        QCOMPARE(tool.count(), 2);
        QVERIFY(!tool.redo());
        // The image is untouched: region edits are not document edits.
        QVERIFY(!s.history().can_undo());
        tool.clear();
        QCOMPARE(tool.count(), 0);
        QVERIFY(tool.undo());
        QCOMPARE(tool.count(), 2);
    }

    void add_takes_the_line_tools_line() {
        session::Session s(false);
        s.open(photo(40, 30));
        RegionsTool& tool = s.regions();
        QCOMPARE(tool.add_current_line(), -1);
        s.line().set_band(5);
        s.line().set_line({2, 3}, {30.5, 20});
        QCOMPARE(tool.add_current_line(), 0);
        const ops::ProfileRegion& r = tool.regions()[0];
        QCOMPARE(r.shape, ops::RegionShape::Line);
        QCOMPARE(r.width, 5);
        QCOMPARE(r.points[1].x, 30.5);
        // Its profile is the line histogram's mean profile.
        const ops::LineHistogram* h = s.line().result();
        QVERIFY(h != nullptr);
        const ops::RegionProfile* p = tool.profile(0);
        QCOMPARE(p->plan.positions(), h->positions);
        for (int i = 0; i < h->positions; ++i)
            QCOMPARE(double(p->values[std::size_t(i)]),
                     double(h->channels[0].mean[std::size_t(i)]));
        // A new document starts with an empty list.
        s.open(photo(40, 30));
        QCOMPARE(tool.count(), 0);
        QVERIFY(!tool.can_undo());
    }

    void profiles_follow_the_document() {
        // A new calibration (and any edit) re-profiles every region on the new values.
        NativeImage samples(64, 40, {SampleType::U16, 1});
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 64; ++x) samples.set_sample(x, y, 0, (x * 37 + y * 101) % 4096);
        session::Session s(false);
        s.open_measurement({samples}, {1.0, 0.0, "counts"});
        RegionsTool& tool = s.regions();
        ops::ProfileRegion r;
        r.shape = ops::RegionShape::Rectangle;
        r.x = 3;
        r.y = 5;
        r.width = 40;
        r.height = 9;
        tool.add(r);
        QCOMPARE(tool.unit(), std::string("counts"));
        QCOMPARE(tool.channel_name(), std::string("value"));
        const Calibration kelvin{0.01, 250.0, "K"};
        s.set_calibration(kelvin);
        QCOMPARE(tool.unit(), std::string("K"));
        const ops::RegionProfile expected =
            ops::profile_region(tool.regions()[0], measurement_plane(samples, kelvin).view());
        QVERIFY(tool.profile(0) != nullptr);
        QVERIFY(tool.profile(0)->values == expected.values);
        QVERIFY(tool.profile(0)->values[0] > 250.0f);
    }

    void json_round_trip_and_bad_files() {
        QTemporaryDir dir;
        session::Session s(false);
        s.open(photo(96, 64));
        RegionsTool& tool = s.regions();
        draw_three(tool);
        tool.rename(0, "a \"quoted\", name");
        tool.set_color(1, "#123abc");
        tool.set_band(2, 5);
        const std::filesystem::path file =
            RegionsTool::sidecar(dir.filePath("cells.tif").toStdString());
        QCOMPARE(QString::fromStdString(file.filename().string()), QString("cells.regions.json"));
        QVERIFY(tool.modified());
        tool.save(file);
        QVERIFY(!tool.modified());
        QVERIFY(!std::filesystem::exists(file.string() + ".tmp"));

        session::Session other(false);
        other.open(photo(96, 64));
        QCOMPARE(other.regions().load(file), 3);
        QVERIFY(other.regions().regions() == tool.regions());  // names, shapes, numbers, colours
        QVERIFY(!other.regions().modified());
        QVERIFY(other.regions().undo());  // opening is undoable
        QCOMPARE(other.regions().count(), 0);

        // A bad file is refused with the file and region named; the list stays.
        const std::filesystem::path bad = dir.filePath("bad.json").toStdString();
        std::ofstream(bad) << R"([{"name": "x", "type": "rectangle", "x": 1, "y": 2, "width": 1,
                                    "height": 3}])";
        try {
            (void)tool.load(bad);
            QFAIL("a one-pixel-wide rectangle was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::strstr(e.what(), "bad.json") && std::strstr(e.what(), "region 1 ('x')"),
                     e.what());
        }
        QCOMPARE(tool.count(), 3);
        QVERIFY_THROWS_EXCEPTION(Error, tool.load(dir.filePath("none.json").toStdString()));
        // Saving into a folder that does not exist fails cleanly.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 tool.save(dir.filePath("no/such/dir/r.json").toStdString()));
        // An emptied list saves as [] and reads back empty.
        tool.clear();
        tool.save(file);
        QCOMPARE(other.regions().load(file), 0);
    }

    void distances_in_the_data_units() {
        // 0.5 × 2 mm pixels (Set Scale or the file's): distances measured in physical space.
        session::Session s(false);
        NativeImage field(40, 50, {SampleType::F32, 1});
        for (int y = 0; y < 50; ++y)
            for (int x = 0; x < 40; ++x) field.set_sample(x, y, 0, x + 100.0 * y);
        s.open_measurement({field}, {});
        RegionsTool& tool = s.regions();
        ops::ProfileRegion diagonal;
        diagonal.name = "diagonal";
        diagonal.points = {{0, 0}, {30, 40}};
        tool.add(diagonal);
        ops::ProfileRegion bend;
        bend.name = "bend";
        bend.shape = ops::RegionShape::Polyline;
        bend.points = {{0, 0}, {10, 0}, {10, 10}};
        tool.add(bend);
        // Without a pixel size: pixels, and the CSV as it always was.
        QCOMPARE(tool.distance_unit(), std::string("px"));
        QCOMPARE(tool.distances(0), tool.profile(0)->plan.distance);
        const std::string plain = tool.profiles_csv("field");
        QVERIFY(plain.find("region,type,position,x,y,distance,value\n") != std::string::npos);
        QVERIFY(plain.find("pixel spacing") == std::string::npos);
        QCOMPARE(QString::fromStdString(tool.readout_text(25)),
                 QString("d = 25 px: diagonal 2015"));

        s.document().set_spacing({0.5, 2.0, "mm"});
        QCOMPARE(tool.distance_unit(), std::string("mm"));
        const std::vector<double> d = tool.distances(0);
        QCOMPARE(int(d.size()), 51);
        const double mm = std::sqrt(15.0 * 15.0 + 80.0 * 80.0);  // not 50 px × anything
        QCOMPARE(d.back(), mm);
        for (std::size_t k = 0; k < d.size(); ++k)
            QVERIFY(std::abs(d[k] - mm * double(k) / 50) < 1e-12);
        const std::vector<double> b = tool.distances(1);
        QCOMPARE(b[10], 5.0);      // 10 px across at 0.5 mm
        QCOMPARE(b.back(), 25.0);  // then 10 px down at 2 mm
        // The hover: the position nearest 5 mm along each region, its pixels in brackets.
        const QString readout = QString::fromStdString(tool.readout_text(5.0));
        QVERIFY2(readout.startsWith("d = 5 mm: diagonal 241.8 (3 px)"), qPrintable(readout));
        QVERIFY2(readout.contains("bend 10 (10 px)"), qPrintable(readout));
        QCOMPARE(tool.readout_text(90.0), std::string());  // beyond every region
        // The CSV: pixels and millimetres side by side, the spacing said once.
        const std::string csv = tool.profiles_csv("field");
        QVERIFY(csv.find("# pixel spacing: 0.5 × 2 mm") != std::string::npos);
        QVERIFY(csv.find("region,type,position,x,y,distance,distance_mm,value\n") !=
                std::string::npos);
        QVERIFY(csv.find("\nbend,polyline,20,10,10,20,25,1010\n") != std::string::npos);
    }

    void profiles_equal_lacuna_histogram_regions() {
        // A float TIFF with a calibration-free value field (and a NaN), and a photo: the editor's
        // profiles and the CLI's CSV on the same file and regions, value for value.
        QTemporaryDir dir;
        NativeImage field(83, 47, {SampleType::F32, 1});
        for (int y = 0; y < 47; ++y)
            for (int x = 0; x < 83; ++x)
                field.set_sample(x, y, 0, 250.0 + 0.75 * x + 0.33 * y + ((x * y) % 11) * 0.1);
        field.set_sample(30, 12, 0, std::numeric_limits<double>::quiet_NaN());
        const QString tiff = dir.filePath("field.tif");
        io::write_native(tiff.toStdString(), field);
        const QString png = dir.filePath("photo.png");
        const ImageRgba8 pixels = photo(83, 47);
        io::write_image(png.toStdString(), pixels.view());
        for (const QString& image : {tiff, png}) {
            session::Session s(false);
            if (image == tiff) {
                io::LoadedNative loaded = io::read_native(image.toStdString());
                s.open_measurement(std::move(loaded.pages), loaded.calibration);
            } else {
                s.open(io::read_image(image.toStdString()).image);
            }
            RegionsTool& tool = s.regions();
            draw_three(tool);
            // Off the image on one side, too (NaN there).
            ops::ProfileRegion out;
            out.shape = ops::RegionShape::Line;
            out.points = {{-10.5, 3.25}, {40.75, 44.5}};
            out.width = 4;
            tool.add(out);
            const std::filesystem::path json = RegionsTool::sidecar(image.toStdString());
            tool.save(json);
            const QString csv = dir.filePath("profiles.csv");
            QProcess cli;
            cli.start(LACUNA_CLI_PATH, {"histogram", image, "--regions",
                                        QString::fromStdString(json.string()), "--csv", csv});
            QVERIFY(cli.waitForFinished(60000));
            QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
            QFile file(csv);
            QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
            std::map<std::string, std::vector<QString>> values;
            while (!file.atEnd()) {
                const QString line = QString::fromUtf8(file.readLine()).trimmed();
                if (line.startsWith('#') || line.startsWith("region,")) continue;
                const QStringList cells = line.split(',');
                values[cells[0].toStdString()].push_back(cells[6]);
            }
            QCOMPARE(int(values.size()), 4);
            int nan = 0;
            for (int i = 0; i < tool.count(); ++i) {
                const ops::RegionProfile* p = tool.profile(i);
                QVERIFY(p != nullptr);
                const std::vector<QString>& cli_values =
                    values[tool.regions()[std::size_t(i)].name];
                QCOMPARE(int(cli_values.size()), p->plan.positions());
                for (std::size_t k = 0; k < cli_values.size(); ++k) {
                    const float mine = p->values[k];
                    if (std::isnan(mine)) {
                        QCOMPARE(cli_values[k].toLower(), QString("nan"));
                        ++nan;
                    } else {
                        QCOMPARE(double(cli_values[k].toFloat()), double(mine));  // 9 digits: exact
                    }
                }
            }
            QVERIFY(nan > 0);
            // The editor's CSV is the same table (its own header).
            const std::string mine = tool.profiles_csv(image.toStdString());
            QVERIFY(mine.find("region,type,position,x,y,distance,value\n") != std::string::npos);
            file.seek(0);
            const QString theirs = QString::fromUtf8(file.readAll());
            const QString table = theirs.mid(theirs.indexOf("region,type"));
            QCOMPARE(QString::fromStdString(mine.substr(mine.find("region,type"))), table);
        }
    }
};

QTEST_GUILESS_MAIN(TestRegions)
#include "test_regions.moc"
