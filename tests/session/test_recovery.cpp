// Crash recovery without Qt widgets: the recovery file round-trips a photo and a measurement
// document exactly with their masks, metadata and tool state; a truncated or damaged file is
// refused with an Error; writes are atomic and bounded; slots find the files of editors that
// are gone; the autosaver writes only what changed.
#include <recovery.hpp>
#include <remove_object_tool.hpp>
#include <retarget_tool.hpp>

#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace lacuna;
using namespace lacuna::session;
namespace fs = std::filesystem;

namespace {

ImageRgba8 gradient(const int w, const int h) {
    ImageRgba8 image(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image.at(x, y) =
                Rgba8{std::uint8_t(x * 7 + y), std::uint8_t(y * 3), std::uint8_t(x ^ y), 255};
    return image;
}

Mask disc_mask(const int w, const int h, const double cx, const double cy, const double r) {
    Mask m(w, h, 0);
    ops::BrushSettings brush;
    brush.radius = r;
    brush.hardness = 0.5;
    ops::paint_dab(m, cx, cy, brush);
    return m;
}

/// Paints a mask layer as the host-path brush does (the document's host mask and its revision).
void paint(Session& s, const MaskLayer layer, const Mask& mask) {
    copy_pixels(mask.view(), s.document().host_mask(layer).view());
    s.document().host_mask_changed(layer);
}

bool same_bytes(const NativeImage& a, const NativeImage& b) {
    if (a.width() != b.width() || a.height() != b.height() || a.format() != b.format())
        return false;
    for (int y = 0; y < a.height(); ++y)
        if (std::memcmp(a.row(y), b.row(y), a.row_bytes()) != 0) return false;
    return true;
}

std::vector<char> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void write_all(const fs::path& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

/// Files in `dir`, by name.
QStringList listing(const fs::path& dir) {
    QStringList names;
    for (const auto& e : fs::directory_iterator(dir))
        names << QString::fromStdString(e.path().filename().string());
    names.sort();
    return names;
}

/// The tool state the round trip carries: every field away from its default.
void set_tools(Session& s) {
    ops::BrushSettings brush;
    brush.radius = 7.5;
    brush.hardness = 0.25;
    brush.erase = true;
    s.remove_object().set_brush(brush);
    s.remove_object().set_layer(MaskLayer::NeverSample);
    ops::InpaintParams fill;
    fill.patch = 11;
    fill.search = ops::InpaintSearch::Full;
    fill.window_factor = 0.75;
    fill.coherence = false;
    fill.seed = 42;
    s.remove_object().set_fill_params(fill);
    s.retarget().set_energy(SeamEnergy::Sobel);
    s.retarget().set_target(s.document().width() - 20, s.document().height() - 10);
    s.line().set_bins(64);
    s.line().set_band(5);
    s.line().set_channels({ops::HistogramChannel::Red, ops::HistogramChannel::Blue});
    s.line().set_range(LineTool::RangeMode::Typed, {10, 200});
    s.line().set_line({3, 4}, {60.5, 40.25});
    s.select(ToolKind::LineHistogram);
}

void check_tools(const ToolState& t, const int w, const int h) {
    QCOMPARE(t.active, ToolKind::LineHistogram);
    QCOMPARE(t.brush.radius, 7.5);
    QCOMPARE(t.brush.hardness, 0.25);
    QVERIFY(t.brush.erase);
    QCOMPARE(t.removal_layer, MaskLayer::NeverSample);
    QCOMPARE(t.fill.patch, 11);
    QCOMPARE(t.fill.search, ops::InpaintSearch::Full);
    QCOMPARE(t.fill.window_factor, 0.75);
    QVERIFY(!t.fill.coherence);
    QCOMPARE(t.fill.seed, 42u);
    QCOMPARE(t.energy, SeamEnergy::Sobel);
    QCOMPARE(t.retarget_width, w - 20);
    QCOMPARE(t.retarget_height, h - 10);
    QVERIFY(t.has_line);
    QCOMPARE(t.line_from.x, 3.0);
    QCOMPARE(t.line_from.y, 4.0);
    QCOMPARE(t.line_to.x, 60.5);
    QCOMPARE(t.line_to.y, 40.25);
    QCOMPARE(t.line_band, 5);
    QCOMPARE(t.line_bins, 64);
    QCOMPARE(t.range_mode, LineTool::RangeMode::Typed);
    QCOMPARE(t.typed_range, (std::pair<double, double>{10, 200}));
    QCOMPARE(t.channels.size(), std::size_t(2));
    QCOMPARE(t.channels[1], ops::HistogramChannel::Blue);
}

/// The retarget mix a round trip carries: every declared field away from its default (a weight
/// changed also where its switch is off).
ops::RetargetMix changed_mix() {
    ops::RetargetMix mix;
    mix.amount = 65;
    mix.automatic = true;
    mix.importance.faces = false;
    mix.importance.face_weight = 41;
    mix.importance.saliency_weight = 12;
    mix.importance.line_weight = 7;
    mix.importance.skin = true;
    mix.importance.skin_weight = 17;
    return mix;
}

void check_mix(const ops::RetargetMix& m, const ops::RetargetMix& expected) {
    QCOMPARE(m.amount, expected.amount);
    QCOMPARE(m.automatic, expected.automatic);
    QCOMPARE(m.importance.faces, expected.importance.faces);
    QCOMPARE(m.importance.face_weight, expected.importance.face_weight);
    QCOMPARE(m.importance.saliency, expected.importance.saliency);
    QCOMPARE(m.importance.saliency_weight, expected.importance.saliency_weight);
    QCOMPARE(m.importance.lines, expected.importance.lines);
    QCOMPARE(m.importance.line_weight, expected.importance.line_weight);
    QCOMPARE(m.importance.skin, expected.importance.skin);
    QCOMPARE(m.importance.skin_weight, expected.importance.skin_weight);
}

/// A photo session with pixels edited, three masks painted, metadata and tool state.
void make_photo_session(Session& s) {
    io::Metadata meta;
    meta.icc = {1, 2, 3, 4, 5};
    meta.exif = {'I', 'I', '*', 0, 8, 0, 0, 0};
    meta.xmp = "<x:xmpmeta/>";
    meta.iptc = {0x1c, 2, 120};
    meta.comment = "edited with care";
    meta.orientation_applied = true;
    s.open(gradient(173, 91), meta);
    // An edit of the pixels, as a fill would leave them.
    ImageRgba8& px = s.document().host_pixels();
    for (int y = 20; y < 40; ++y)
        for (int x = 30; x < 70; ++x) px.at(x, y) = Rgba8{9, 8, 7, 255};
    s.document().host_pixels_changed();
    paint(s, MaskLayer::Fill, disc_mask(173, 91, 50, 50, 12));
    paint(s, MaskLayer::Protect, disc_mask(173, 91, 120, 30, 9));
    paint(s, MaskLayer::NeverSample, disc_mask(173, 91, 10, 80, 6));
    set_tools(s);
    s.history().mark_unsaved();
}

void check_same_document(const RecoverySnapshot& a, const RecoverySnapshot& b) {
    QCOMPARE(a.measurement(), b.measurement());
    QVERIFY(equal_pixels(a.pixels.view(), b.pixels.view()));
    QCOMPARE(a.pages.size(), b.pages.size());
    for (std::size_t i = 0; i < a.pages.size(); ++i) QVERIFY(same_bytes(a.pages[i], b.pages[i]));
    for (int i = 0; i < kMaskLayers; ++i)
        QVERIFY2(equal_pixels(a.masks[std::size_t(i)].view(), b.masks[std::size_t(i)].view()),
                 qPrintable(QString("mask layer %1 differs").arg(i)));
}

}  // namespace

class TestRecovery : public QObject {
    Q_OBJECT
    QTemporaryDir temp_;
    fs::path dir() const { return fs::path(temp_.path().toStdString()); }
    fs::path fresh(const char* name) const {
        const fs::path d = dir() / name;
        fs::create_directories(d);
        return d;
    }

  private slots:
    // A file written by the first format version (tool state as a fixed byte layout) still
    // loads, every setting intact. The file was written once by that version's writer from this
    // document: an 80 x 50 gradient, a fill disc and a never-sample disc, set_tools().
    void version_1_file_still_loads() {
        const fs::path file = LACUNA_SOURCE_DIR "/tests/data/recovery/v1-photo.recovery";
        std::ifstream in(file, std::ios::binary);
        char header[12] = {};
        in.read(header, sizeof header);
        QCOMPARE(header[8], char(1));  // the committed file really is version 1
        const RecoverySnapshot s = read_recovery(file);
        const ImageRgba8 pixels = gradient(80, 50);
        const Mask fill = disc_mask(80, 50, 30, 20, 6), never = disc_mask(80, 50, 10, 40, 4);
        QVERIFY(equal_pixels(s.pixels.view(), pixels.view()));
        QVERIFY(equal_pixels(s.masks[0].view(), fill.view()));
        QVERIFY(s.masks[1].empty() && s.masks[2].empty());
        QVERIFY(equal_pixels(s.masks[3].view(), never.view()));
        QCOMPARE(s.document_path, std::string("/pictures/old.png"));
        check_tools(s.tools, 80, 50);
        // Version 1 kept no retarget mix: a restore has the defaults.
        check_mix(s.tools.retarget_mix, ops::RetargetMix{});
        QVERIFY(!s.tools.spacing.known());  // written before pixel sizes were kept

        // Written again, it is today's version, and reads back the same.
        const fs::path again = fresh("v1") / "again.recovery";
        write_recovery(again, s);
        const std::vector<char> bytes = read_all(again);
        QCOMPARE(bytes[8], char(2));
        const std::string text(bytes.begin(), bytes.end());
        QVERIFY(text.find("fill.patch=11\n") != std::string::npos);
        QVERIFY(text.find("retarget.energy=sobel\n") != std::string::npos);
        check_tools(read_recovery(again).tools, 80, 50);
        check_mix(read_recovery(again).tools.retarget_mix, ops::RetargetMix{});
    }

    void photo_round_trip_is_exact() {
        Session s(false);
        make_photo_session(s);
        s.retarget().set_mix(changed_mix());
        const RecoverySnapshot before = take_snapshot(s, "/pictures/ball.jpg");
        QVERIFY(count_selected(before.masks[0].view()) > 0);
        QVERIFY(count_selected(before.masks[1].view()) > 0);
        QVERIFY(count_selected(before.masks[3].view()) > 0);
        const fs::path file = fresh("photo") / "a.recovery";
        const RecoveryWriteReport report = write_recovery(file, before);
        QVERIFY(!report.compressed);
        QCOMPARE(std::uintmax_t(report.bytes), fs::file_size(file));

        const RecoverySnapshot after = read_recovery(file);
        check_same_document(before, after);
        QCOMPARE(after.document_path, std::string("/pictures/ball.jpg"));
        // The unpainted layer is not copied and reads back empty.
        QVERIFY(before.masks[2].empty());
        QVERIFY(after.masks[2].empty());
        QCOMPARE(after.metadata.icc, before.metadata.icc);
        QCOMPARE(after.metadata.exif, before.metadata.exif);
        QCOMPARE(after.metadata.xmp, before.metadata.xmp);
        QCOMPARE(after.metadata.iptc, before.metadata.iptc);
        QCOMPARE(after.metadata.comment, before.metadata.comment);
        QVERIFY(after.metadata.orientation_applied);
        QCOMPARE(after.writer_pid, std::int64_t(::getpid()));
        check_tools(after.tools, 173, 91);
        check_mix(after.tools.retarget_mix, changed_mix());
        const std::vector<char> bytes = read_all(file);
        const std::string text(bytes.begin(), bytes.end());
        QVERIFY(text.find("retarget.amount=65\n") != std::string::npos);
        QVERIFY(text.find("retarget.face-weight=41\n") != std::string::npos);

        // Restoring makes the same document in a new session, unsaved, tools as they were.
        Session restored(false);
        restore_snapshot(restored, after);
        QVERIFY(equal_pixels(restored.document().pixels().view(), s.document().pixels().view()));
        for (int i = 0; i < kMaskLayers; ++i) {
            const auto layer = static_cast<MaskLayer>(i);
            QVERIFY(equal_pixels(restored.document().mask(layer).view(),
                                 s.document().mask(layer).view()));
        }
        QVERIFY(!restored.history().is_clean());
        QVERIFY(!restored.history().can_undo());
        check_tools(tool_state(restored), 173, 91);
        check_mix(restored.retarget().mix(), changed_mix());
        QCOMPARE(restored.metadata().comment, std::string("edited with care"));
    }

    void measurement_round_trip_is_exact() {
        for (const SampleType type : {SampleType::U16, SampleType::I16, SampleType::F32}) {
            // A two-page stack showing page 1, with NaN and negative zero where floats allow.
            std::vector<NativeImage> pages;
            for (int p = 0; p < 2; ++p) {
                NativeImage page(67, 45, PixelFormat{type, 1});
                for (int y = 0; y < 45; ++y)
                    for (int x = 0; x < 67; ++x)
                        page.set_sample(x, y, 0,
                                        type == SampleType::F32
                                            ? (x * 1000.123 + y * 0.001 + p)
                                            : double((x * 977 + y * 131 + p) % 30000));
                if (type == SampleType::F32) {
                    page.samples<float>(3)[4] = std::numeric_limits<float>::quiet_NaN();
                    page.samples<float>(5)[6] = -0.0f;
                }
                pages.push_back(std::move(page));
            }
            Session s(false);
            s.open_measurement(pages, Calibration{0.5, -10, "K"}, DisplayWindow{2, 900});
            s.show_page(1);
            s.set_lut(Lut::Viridis);
            paint(s, MaskLayer::Fill, disc_mask(67, 45, 20, 20, 5));
            const RecoverySnapshot before = take_snapshot(s, "/data/field.tif");
            QCOMPARE(before.pages.size(), std::size_t(2));
            const fs::path file = fresh("measurement") / "m.recovery";
            write_recovery(file, before);
            const RecoverySnapshot after = read_recovery(file);
            check_same_document(before, after);
            QCOMPARE(after.page, 1);
            QCOMPARE(after.calibration, (Calibration{0.5, -10, "K"}));
            QCOMPARE(after.display.window, (DisplayWindow{2, 900}));
            QCOMPARE(after.display.lut, Lut::Viridis);

            Session restored(false);
            restore_snapshot(restored, after);
            QVERIFY(restored.document().measurement());
            QCOMPARE(restored.page(), 1);
            QCOMPARE(restored.page_count(), 2);
            QVERIFY(same_bytes(restored.document().samples(), pages[1]));
            QCOMPARE(restored.document().calibration(), (Calibration{0.5, -10, "K"}));
            QCOMPARE(restored.display().lut, Lut::Viridis);
            QVERIFY(equal_pixels(restored.document().mask(MaskLayer::Fill).view(),
                                 s.document().mask(MaskLayer::Fill).view()));
        }
    }

    // Set Scale is an undoable edit of the document's pixel size, and the recovery file keeps
    // it (name=value lines in the tool section); a file without them restores none.
    void set_scale_is_undone_and_recovered() {
        NativeImage field(40, 30, PixelFormat{SampleType::U16, 1});
        Session s(false);
        s.open_measurement({field}, Calibration{}, DisplayWindow{0, 100});
        const PixelSpacing from_file{0.661468, 0.661468, "mm"};
        s.document().set_spacing(from_file);  // as the opener does
        // Anisotropic, as Set Scale with a pixel aspect ratio of 2 gives.
        const PixelSpacing typed{0.5, 1.0, "\u00b5m"};
        s.set_spacing(typed);
        QCOMPARE(s.document().spacing(), typed);
        QCOMPARE(s.history().undo_label(), std::string("Set Scale"));
        QVERIFY(!s.history().is_clean());
        QVERIFY(s.undo());
        QCOMPARE(s.document().spacing(), from_file);
        QVERIFY(s.redo());
        QCOMPARE(s.document().spacing(), typed);

        const fs::path file = fresh("scale") / "s.recovery";
        write_recovery(file, take_snapshot(s, "/data/cells.tif"));
        const std::vector<char> bytes = read_all(file);
        const std::string text(bytes.begin(), bytes.end());
        QVERIFY(text.find("scale.pixel-width=0.5\n") != std::string::npos);
        QVERIFY(text.find("scale.pixel-height=1\n") != std::string::npos);
        QVERIFY(text.find("scale.unit=\u00b5m\n") != std::string::npos);
        const RecoverySnapshot after = read_recovery(file);
        QCOMPARE(after.tools.spacing, typed);
        Session restored(false);
        restore_snapshot(restored, after);
        QCOMPARE(restored.document().spacing(), typed);

        // A document without a pixel size writes none and restores none.
        Session plain(false);
        plain.open_measurement({field}, Calibration{}, DisplayWindow{0, 100});
        write_recovery(file, take_snapshot(plain, ""));
        const std::vector<char> plain_bytes = read_all(file);
        QVERIFY(std::string(plain_bytes.begin(), plain_bytes.end()).find("scale.") ==
                std::string::npos);
        QVERIFY(!read_recovery(file).tools.spacing.known());
    }

    void truncated_file_is_refused() {
        Session s(false);
        make_photo_session(s);
        const fs::path d = fresh("truncated");
        const fs::path file = d / "t.recovery";
        write_recovery(file, take_snapshot(s, ""));
        const std::vector<char> whole = read_all(file);
        // Every length short of the whole file: at each section boundary and inside each.
        int refused = 0;
        for (std::size_t n = 0; n < whole.size(); n += (n < 64 ? 1 : 97)) {
            write_all(file, std::vector<char>(whole.begin(), whole.begin() + std::ptrdiff_t(n)));
            try {
                read_recovery(file);
                QFAIL(qPrintable(
                    QString("a file cut at %1 of %2 bytes was accepted").arg(n).arg(whole.size())));
            } catch (const Error& e) {
                QVERIFY2(e.code() == ErrorCode::Truncated,
                         qPrintable(QString("cut at %1: %2").arg(n).arg(e.what())));
                QVERIFY(QString(e.what()).contains("truncated"));
                ++refused;
            }
        }
        QVERIFY(refused > 100);
        // The last byte matters too: it belongs to the end section's header.
        write_all(file, std::vector<char>(whole.begin(), whole.end() - 1));
        QVERIFY_THROWS_EXCEPTION(Error, read_recovery(file));
    }

    void damaged_file_is_refused() {
        Session s(false);
        make_photo_session(s);
        const fs::path d = fresh("damaged");
        const fs::path file = d / "d.recovery";
        write_recovery(file, take_snapshot(s, ""));
        const std::vector<char> whole = read_all(file);
        const auto expect = [&](std::vector<char> bytes, const ErrorCode code, const char* text) {
            write_all(file, bytes);
            try {
                read_recovery(file);
                QFAIL("a damaged file was accepted");
            } catch (const Error& e) {
                QVERIFY2(e.code() == code && QString(e.what()).contains(text), e.what());
            }
        };
        std::vector<char> bad = whole;
        bad[0] = 'X';  // the magic
        expect(bad, ErrorCode::Corrupt, "is not a Lacuna recovery file");
        bad = whole;
        bad[8] = 99;  // the version
        expect(bad, ErrorCode::UnsupportedFormat, "format version 99");
        // One flipped bit anywhere in a section payload fails its checksum.
        for (const std::size_t at :
             {std::size_t(40), whole.size() / 3, whole.size() / 2, whole.size() - 300}) {
            bad = whole;
            bad[at] = char(bad[at] ^ 0x10);
            write_all(file, bad);
            QVERIFY_THROWS_EXCEPTION(Error, read_recovery(file));
        }
        expect(std::vector<char>(4096, 'z'), ErrorCode::Corrupt, "not a Lacuna recovery file");
        QVERIFY_THROWS_EXCEPTION(Error, read_recovery(d / "missing.recovery"));
    }

    void write_is_atomic() {
        Session s(false);
        make_photo_session(s);
        const fs::path d = fresh("atomic");
        const fs::path file = d / "x.recovery";
        const RecoverySnapshot snapshot = take_snapshot(s, "");
        write_recovery(file, snapshot);
        write_recovery(file, snapshot);  // replaces, leaves no temporary file
        QCOMPARE(listing(d), QStringList{"x.recovery"});
        const auto old_size = fs::file_size(file);
        // A write that fails half-way (the size limit hits after the header) leaves the previous
        // file as it was and no temporary file.
        RecoveryLimits tiny;
        tiny.max_file_bytes = 4096;
        QVERIFY_THROWS_EXCEPTION(Error, write_recovery(file, snapshot, tiny));
        QCOMPARE(listing(d), QStringList{"x.recovery"});
        QCOMPARE(fs::file_size(file), old_size);
        read_recovery(file);
        // Readable by the user only.
        struct stat st {};
        QCOMPARE(::stat(file.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        // An unwritable directory: a WriteFailed error, nothing written.
        if (::geteuid() != 0) {
            const fs::path ro = fresh("readonly");
            fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
            try {
                write_recovery(ro / "y.recovery", snapshot);
                QFAIL("wrote into a read-only directory");
            } catch (const Error& e) {
                QCOMPARE(e.code(), ErrorCode::WriteFailed);
            }
            fs::permissions(ro, fs::perms::owner_all);
            QVERIFY(listing(ro).isEmpty());
        }
    }

    void size_is_bounded() {
        Session s(false);
        make_photo_session(s);
        const RecoverySnapshot snapshot = take_snapshot(s, "");
        const fs::path d = fresh("bounded");
        // Above compress_above the pixels are deflated: smaller, still exact.
        RecoveryLimits limits;
        limits.compress_above = 1000;
        const RecoveryWriteReport packed = write_recovery(d / "p.recovery", snapshot, limits);
        QVERIFY(packed.compressed);
        const RecoveryWriteReport raw = write_recovery(d / "r.recovery", snapshot);
        QVERIFY(!raw.compressed);
        QVERIFY2(packed.bytes < raw.bytes,
                 qPrintable(QString("%1 vs %2").arg(packed.bytes).arg(raw.bytes)));
        check_same_document(snapshot, read_recovery(d / "p.recovery"));
        // Masks are always deflated: four mostly empty masks cost far less than the pixels.
        QVERIFY(raw.bytes < snapshot.pixels.pitch() * 91 + 4 * 173 * 91 / 4);
        // Beyond max_file_bytes nothing is written: TooLarge.
        limits.max_file_bytes = packed.bytes - 1;
        try {
            write_recovery(d / "big.recovery", snapshot, limits);
            QFAIL("wrote past the limit");
        } catch (const Error& e) {
            QCOMPARE(e.code(), ErrorCode::TooLarge);
            QVERIFY(QString(e.what()).contains("not autosaved"));
        }
        QVERIFY(!fs::exists(d / "big.recovery"));
        QCOMPARE(listing(d), (QStringList{"p.recovery", "r.recovery"}));
    }

    void slots_find_files_of_editors_that_are_gone() {
        const fs::path d = fresh("slots");
        Session s(false);
        make_photo_session(s);
        const RecoverySnapshot snapshot = take_snapshot(s, "");
        fs::path first_file;
        auto first = std::make_unique<RecoverySlot>(d);
        first_file = first->file();
        write_recovery(first_file, snapshot);
        {
            const RecoverySlot second(d);
            // The first editor runs: its file is not an orphan.
            QVERIFY(second.orphans().empty());
            QVERIFY(!second.adopt(first_file));
            QVERIFY(!second.discard(first_file));
            QVERIFY(fs::exists(first_file));
        }
        // The first editor is gone (a crash releases the lock as this does).
        first.reset();
        QVERIFY(fs::exists(first_file));
        const RecoverySlot third(d);
        const std::vector<fs::path> orphans = third.orphans();
        QCOMPARE(orphans.size(), std::size_t(1));
        QCOMPARE(orphans.front(), first_file);
        QVERIFY(third.adopt(first_file));
        QVERIFY(!fs::exists(first_file));
        QVERIFY(fs::exists(third.file()));
        check_same_document(snapshot, read_recovery(third.file()));
        QVERIFY(!third.adopt(first_file));  // taken already
        // A stale lock without a recovery file is tidied away; a damaged file is set aside.
        { std::ofstream(d / "editor-1-2.lock"); }
        write_all(d / "editor-3-4.recovery", std::vector<char>(100, 'q'));
        const std::vector<fs::path> left = third.orphans();
        QCOMPARE(left.size(), std::size_t(1));
        QVERIFY(!fs::exists(d / "editor-1-2.lock"));
        const fs::path aside = third.set_aside(left.front());
        QVERIFY(fs::exists(aside));
        QVERIFY(third.orphans().empty());
        third.remove_file();
        QVERIFY(!fs::exists(third.file()));
    }

    void autosaver_writes_only_unsaved_changes() {
        const fs::path d = fresh("autosave");
        Session s(false);
        s.open(gradient(64, 48));
        Autosaver saver(d);
        // A document with nothing unsaved needs no recovery file.
        QCOMPARE(saver.request(s, "/a.png"), Autosaver::Request::Removed);
        QVERIFY(!fs::exists(saver.file()));
        paint(s, MaskLayer::Fill, disc_mask(64, 48, 30, 20, 8));
        s.history().mark_unsaved();
        QCOMPARE(saver.request(s, "/a.png"), Autosaver::Request::Started);
        std::optional<Autosaver::Outcome> outcome = saver.wait();
        QVERIFY(outcome && outcome->ok);
        QVERIFY(fs::exists(saver.file()));
        QCOMPARE(saver.request(s, "/a.png"), Autosaver::Request::Unchanged);
        // A tool change is worth a write; so is a mask change.
        s.line().set_line({1, 1}, {40, 30});
        QCOMPARE(saver.request(s, "/a.png"), Autosaver::Request::Started);
        QVERIFY(saver.wait()->ok);
        paint(s, MaskLayer::Protect, disc_mask(64, 48, 10, 10, 4));
        QCOMPARE(saver.request_and_wait(s, "/a.png"), Autosaver::Request::Started);
        const RecoverySnapshot written = read_recovery(saver.file());
        QVERIFY(
            equal_pixels(written.masks[1].view(), s.document().mask(MaskLayer::Protect).view()));
        QVERIFY(written.tools.has_line);
        // Saved: the recovery file goes.
        s.history().set_clean();
        QCOMPARE(saver.request(s, "/a.png"), Autosaver::Request::Removed);
        QVERIFY(!fs::exists(saver.file()));
        QCOMPARE(listing(d).size(), 1);  // only the lock
    }

    /// Times a 4096 × 4096 photo (64 MiB of pixels): the snapshot on the caller's thread, the
    /// raw write and the deflated one, and the read. Printed for the notes.
    void large_document_timing() {
        Session s(false);
        ImageRgba8 big(4096, 4096);
        for (int y = 0; y < 4096; ++y)
            for (int x = 0; x < 4096; ++x)
                big.at(x, y) = Rgba8{std::uint8_t(x * 31 + y * 17), std::uint8_t((x * y) >> 5),
                                     std::uint8_t(x ^ (y * 3)), 255};
        s.open(std::move(big));
        paint(s, MaskLayer::Fill, disc_mask(4096, 4096, 2000, 2000, 150));
        const fs::path d = fresh("timing");
        using clock = std::chrono::steady_clock;
        const auto ms = [](clock::time_point a) {
            return std::chrono::duration<double, std::milli>(clock::now() - a).count();
        };
        // Wall time depends on the machine's load; the thread's CPU time says what the work costs.
        const auto cpu_ms = [] {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
        };
        auto t = clock::now();
        double c = cpu_ms();
        const RecoverySnapshot snapshot = take_snapshot(s, "");
        const double snap_ms = ms(t), snap_cpu = cpu_ms() - c;
        c = cpu_ms();
        t = clock::now();
        const RecoveryWriteReport raw = write_recovery(d / "raw.recovery", snapshot);
        const double raw_ms = ms(t), raw_cpu = cpu_ms() - c;
        t = clock::now();
        const RecoverySnapshot back = read_recovery(d / "raw.recovery");
        const double read_ms = ms(t);
        RecoveryLimits limits;
        limits.compress_above = 0;
        t = clock::now();
        const RecoveryWriteReport packed = write_recovery(d / "packed.recovery", snapshot, limits);
        const double packed_ms = ms(t);
        check_same_document(snapshot, back);
        qInfo(
            "4096x4096 photo: snapshot %.0f ms (CPU %.0f ms); raw write %.0f ms (CPU %.0f ms, "
            "%.1f MB); read %.0f ms; deflated write %.0f ms (%.1f MB)",
            snap_ms, snap_cpu, raw_ms, raw_cpu, raw.bytes / 1e6, read_ms, packed_ms,
            packed.bytes / 1e6);
    }
};

QTEST_GUILESS_MAIN(TestRecovery)
#include "test_recovery.moc"
