// The parameter tables (lacuna/ops/params.hpp): defaults agree with the params structs, checks
// accept the bounds and refuse just outside, choices round-trip, and the engine's own validation
// agrees with the tables.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/bilateral.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/conv3d.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/video/inpaint_video.hpp>
#include <lacuna/video/track_masks.hpp>
#include <lacuna/ops/scale.hpp>
#include <lacuna/ops/seam_carve.hpp>
#include <lacuna/ops/video_retarget.hpp>

#include <QtTest>

#include <cmath>
#include <limits>

using namespace lacuna;
using ops::ParamKind;
using ops::ParamSpec;

namespace {

bool accepts(const ParamSpec& spec, const double value) {
    try {
        ops::check_value(spec, value);
        return true;
    } catch (const Error& e) {
        if (e.code() != ErrorCode::InvalidArgument) throw;
        return false;
    }
}

QString refusal(const ParamSpec& spec, const double value) {
    try {
        ops::check_value(spec, value);
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

const ParamSpec& inpaint(const char* name) {
    return ops::param(ops::inpaint_param_specs(), name);
}
const ParamSpec& histogram(const char* name) {
    return ops::param(ops::line_histogram_param_specs(), name);
}
const ParamSpec& brush(const char* name) {
    return ops::param(ops::brush_param_specs(), name);
}
const ParamSpec& energy() {
    return ops::param(ops::seam_param_specs(), "energy");
}

// Every field of a bound table reads and writes its own member; the declared default is the
// struct's.
template <class P>
void check_table(const std::span<const ops::ParamField<P>> fields,
                 const std::span<const ParamSpec> specs) {
    QCOMPARE(fields.size(), specs.size());
    const P defaults{};
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const ops::ParamField<P>& f = fields[i];
        QCOMPARE(f.spec.name, specs[i].name);
        QVERIFY2(accepts(f.spec, f.spec.default_value), f.spec.name.data());
        // The declared default is the struct's.
        QCOMPARE(f.get(defaults), f.spec.default_value);
        // Setting a field changes that field only, and get reads it back.
        double other = f.spec.default_value != f.spec.min ? f.spec.min : f.spec.min + f.spec.step;
        if (f.spec.kind == ParamKind::Bool || f.spec.kind == ParamKind::Choice)
            other = f.spec.default_value == 0 ? 1 : 0;
        P changed = defaults;
        f.set(changed, other);
        QCOMPARE(f.get(changed), other);
        for (const ops::ParamField<P>& g : fields)
            if (&g != &f) QCOMPARE(g.get(changed), g.get(defaults));
    }
}

}  // namespace

class TestParams : public QObject {
    Q_OBJECT
  private slots:
    void defaults_agree_with_the_params_structs() {
        const ops::InpaintParams inpaint_defaults;
        QCOMPARE(inpaint("patch").default_value, double(inpaint_defaults.patch));
        QCOMPARE(inpaint("patch").min, double(ops::kMinPatch));
        QCOMPARE(inpaint("patch").max, double(ops::kMaxPatch));
        QCOMPARE(inpaint("window").default_value, inpaint_defaults.window_factor);
        QCOMPARE(inpaint("coherence").default_value, inpaint_defaults.coherence ? 1.0 : 0.0);
        QCOMPARE(inpaint("grow").default_value, 0.0);
        QCOMPARE(inpaint("grow").min, double(-ops::kMaxMaskGrow));
        QCOMPARE(inpaint("grow").max, double(ops::kMaxMaskGrow));

        const ops::LineHistogramParams line_defaults;
        QCOMPARE(histogram("band").default_value, double(line_defaults.band_width));
        QCOMPARE(histogram("band").max, double(ops::kMaxBandWidth));
        QCOMPARE(histogram("bins").default_value, double(line_defaults.bins));
        QCOMPARE(histogram("bins").default_value, double(ops::DirectionHistogramParams{}.bins));
        QCOMPARE(histogram("bins").max, double(ops::kMaxHistogramBins));

        const ParamSpec& e = energy();
        QCOMPARE(e.kind, ParamKind::Choice);
        QCOMPARE(e.choices[static_cast<std::size_t>(e.default_value)],
                 std::string_view(ops::to_string(ops::RetargetParams{}.energy)));

        const ops::BrushSettings brush_defaults;
        QCOMPARE(brush("radius").default_value, brush_defaults.radius);
        QCOMPARE(brush("hardness").default_value, brush_defaults.hardness);

        // Every default passes its own check; names are unique within a table.
        for (const auto specs : {ops::inpaint_param_specs(), ops::line_histogram_param_specs(),
                                 ops::seam_param_specs(), ops::brush_param_specs()}) {
            QVERIFY(!specs.empty());
            for (const ParamSpec& s : specs) {
                QVERIFY2(accepts(s, s.default_value), s.name.data());
                QCOMPARE(&ops::param(specs, s.name), &s);
                QVERIFY(!s.label.empty() && !s.help.empty());
            }
        }
        QVERIFY_THROWS_EXCEPTION(Error, ops::param(ops::inpaint_param_specs(), "patches"));
    }

    void bounds_accepted_just_outside_refused() {
        const ParamSpec& patch = inpaint("patch");
        for (int p = 1; p <= 33; ++p) QCOMPARE(accepts(patch, p), p >= 3 && p <= 31 && p % 2 == 1);
        QVERIFY(!accepts(patch, 9.5));
        QVERIFY(!accepts(patch, std::nan("")));
        QCOMPARE(refusal(patch, 8),
                 QString("patch size must be odd and from 3 to 31 pixels, not 8"));
        QCOMPARE(QString::fromStdString(ops::value_error(patch, 33, "--patch")),
                 QString("--patch must be odd and from 3 to 31 pixels, not 33"));

        const ParamSpec& bins = histogram("bins");
        QVERIFY(accepts(bins, 1) && accepts(bins, 65536));
        QVERIFY(!accepts(bins, 0) && !accepts(bins, 65537) && !accepts(bins, 2.5));
        QCOMPARE(refusal(bins, 0), QString("bins must be from 1 to 65536, not 0"));
        const ParamSpec& band = histogram("band");
        QVERIFY(accepts(band, 1) && accepts(band, 2048));
        QVERIFY(!accepts(band, 0) && !accepts(band, 2049));
        QCOMPARE(refusal(band, 2049),
                 QString("band width must be from 1 to 2048 samples, not 2049"));

        const ParamSpec& window = inpaint("window");
        QVERIFY(accepts(window, 0) && accepts(window, 0.25) && accepts(window, 1e6));
        QVERIFY(!accepts(window, -0.001));
        QVERIFY(!accepts(window, std::numeric_limits<double>::infinity()));
        QCOMPARE(refusal(window, -1), QString("search window must be 0 or more, not -1"));
        const ParamSpec& coherence = inpaint("coherence");
        QVERIFY(accepts(coherence, 0) && accepts(coherence, 1) && !accepts(coherence, 0.5));

        const ParamSpec& radius = brush("radius");
        QVERIFY(accepts(radius, 1) && accepts(radius, 500) && accepts(radius, 2.5));
        QVERIFY(!accepts(radius, 0.999) && !accepts(radius, 500.001));
        const ParamSpec& hardness = brush("hardness");
        QVERIFY(accepts(hardness, 0) && accepts(hardness, 1));
        QVERIFY(!accepts(hardness, -0.01) && !accepts(hardness, 1.01));
        QCOMPARE(refusal(hardness, 1.5), QString("hardness must be from 0 to 1, not 1.5"));

        const ParamSpec& e = energy();
        QVERIFY(accepts(e, 0) && accepts(e, 4) && !accepts(e, 5) && !accepts(e, -1));
    }

    void parse_choice_round_trips_every_energy() {
        const ParamSpec& e = energy();
        QCOMPARE(e.choices.size(), std::size_t{5});
        for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                      SeamEnergy::Forward, SeamEnergy::Transversal}) {
            const std::string name = ops::to_string(kind);
            const int index = ops::parse_choice(e, name);
            QCOMPARE(e.choices[index], std::string_view(name));
            QCOMPARE(ops::parse_seam_energy(std::string(e.choices[index])), std::optional(kind));
            QCOMPARE(ops::format_value(e, index), name);
        }
        // Every listed choice is an energy the engine knows.
        for (const std::string_view name : e.choices)
            QVERIFY(ops::parse_seam_energy(std::string(name)).has_value());
        try {
            (void)ops::parse_choice(e, "magic");
            QFAIL("parse_choice accepted 'magic'");
        } catch (const Error& error) {
            QCOMPARE(error.code(), ErrorCode::InvalidArgument);
            QCOMPARE(
                QString(error.what()),
                QString("energy must be forward, l1, prewitt, sobel or transversal, not 'magic'"));
        }
        QVERIFY_THROWS_EXCEPTION(Error, ops::parse_choice(e, "Forward"));
        QVERIFY_THROWS_EXCEPTION(Error, ops::parse_choice(inpaint("patch"), "9"));
    }

    void describe_range_text() {
        const auto text = [](const ParamSpec& s) {
            return QString::fromStdString(ops::describe_range(s));
        };
        QCOMPARE(text(inpaint("patch")), QString("3..31 pixels, odd (default 9)"));
        QCOMPARE(text(inpaint("window")), QString("0 or more (default 0.5)"));
        QCOMPARE(text(inpaint("coherence")), QString("on or off (default on)"));
        QCOMPARE(text(histogram("band")), QString("1..2048 samples (default 1)"));
        QCOMPARE(text(histogram("bins")), QString("1..65536 (default 256)"));
        QCOMPARE(text(energy()),
                 QString("forward, l1, prewitt, sobel or transversal (default forward)"));
        QCOMPARE(text(brush("radius")), QString("1..500 pixels (default 20)"));
        QCOMPARE(text(brush("hardness")), QString("0..1 (default 0.8)"));
    }

    // The operations' own validation refuses exactly what the tables refuse.
    void engine_validation_agrees_with_the_tables() {
        const ImageRgba8 image(64, 64, Rgba8{90, 120, 150, 255});
        Mask hole(64, 64, 0);
        hole.at(32, 32) = 1;
        for (int p = 1; p <= 33; ++p) {
            ops::InpaintParams params;
            params.patch = p;
            bool engine_accepts = true;
            try {
                (void)ops::prepare_inpaint(image.view(), hole, params);
            } catch (const Error&) {
                engine_accepts = false;
            }
            QCOMPARE(engine_accepts, accepts(inpaint("patch"), p));
        }

        const ops::HistogramSource source(image.view());
        for (const int bins : {0, 1, 65536, 65537}) {
            ops::LineHistogramParams params;
            params.from = {1, 1};
            params.to = {60, 60};
            params.bins = bins;
            bool engine_accepts = true;
            try {
                (void)ops::plan_line(source, params);
            } catch (const Error&) {
                engine_accepts = false;
            }
            QCOMPARE(engine_accepts, accepts(histogram("bins"), bins));
        }
        for (const int band : {0, 1, 2048, 2049}) {
            ops::LineHistogramParams params;
            params.from = {1, 1};
            params.to = {60, 60};
            params.band_width = band;
            bool engine_accepts = true;
            try {
                (void)ops::plan_line(source, params);
            } catch (const Error&) {
                engine_accepts = false;
            }
            QCOMPARE(engine_accepts, accepts(histogram("band"), band));
        }
    }

    // ---- the bound tables (ParamField) and settings texts ----

    void every_table_is_bound_to_its_struct() {
        check_table(ops::inpaint_param_fields(), ops::inpaint_param_specs());
        check_table(ops::line_histogram_param_fields(), ops::line_histogram_param_specs());
        check_table(ops::seam_param_fields(), ops::seam_param_specs());
        check_table(ops::brush_param_fields(), ops::brush_param_specs());
        check_table(ops::bilateral_param_fields(), ops::bilateral_param_specs());
        check_table(ops::bilateral_measurement_param_fields(),
                    ops::bilateral_measurement_param_specs());
        check_table(ops::scale_param_fields(), ops::scale_param_specs());
        check_table(ops::video_retarget_param_fields(), ops::video_retarget_param_specs());
        check_table(ops::temporal_param_fields(), ops::temporal_param_specs());
        check_table(ops::mask_track_param_fields(), ops::mask_track_param_specs());
        check_table(ops::temporal_fill_param_fields(), ops::temporal_fill_param_specs());
    }

    void fields_reach_the_right_members() {
        ops::InpaintParams p;
        ops::set_field(ops::inpaint_param_fields(), p, "patch", 13);
        ops::set_field(ops::inpaint_param_fields(), p, "window", 1.25);
        ops::set_field(ops::inpaint_param_fields(), p, "coherence", 0);
        ops::set_field(ops::inpaint_param_fields(), p, "method", 0);
        ops::set_field(ops::inpaint_param_fields(), p, "seed", 4000000000.0);
        QCOMPARE(p.patch, 13);
        QCOMPARE(p.window_factor, 1.25);
        QCOMPARE(p.coherence, false);
        QCOMPARE(p.method, ops::InpaintMethod::Criminisi);
        QCOMPARE(p.seed, 4000000000u);
        QVERIFY_THROWS_EXCEPTION(Error, ops::set_field(ops::inpaint_param_fields(), p, "patch", 8));
        QVERIFY_THROWS_EXCEPTION(Error, ops::set_field(ops::inpaint_param_fields(), p, "size", 9));
        QCOMPARE(p.patch, 13);

        // The energy's choices are not in SeamEnergy's order: each name reaches its own energy.
        ops::RetargetParams r;
        const auto energy = ops::seam_param_fields();
        for (const SeamEnergy kind : {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel,
                                      SeamEnergy::Forward, SeamEnergy::Transversal}) {
            ops::set_field(energy, r, "energy",
                           ops::parse_choice(energy[0].spec, ops::to_string(kind)));
            QCOMPARE(r.energy, kind);
        }

        ops::TemporalSmoothParams t;
        ops::set_field(ops::temporal_param_fields(), t, "sigma-time", 2.5);
        QCOMPARE(t.sigma_time, 2.5);
        QCOMPARE(t.sigma_space, 1.0);
        ops::VideoRetargetParams v;
        ops::set_field(ops::video_retarget_param_fields(), v, "temporal-term", 1);
        QCOMPARE(v.term, ops::TemporalTerm::RemovedPixels);
        ops::ScaleParams s;
        ops::set_field(ops::scale_param_fields(), s, "method", 0);
        QCOMPARE(s.method, ops::ScaleMethod::Nearest);
        // Choice names are the operations' own names for the enum values they set.
        const ParamSpec& method = ops::param(ops::scale_param_specs(), "method");
        for (std::size_t i = 0; i < method.choices.size(); ++i) {
            ops::set_field(ops::scale_param_fields(), s, "method", double(i));
            QCOMPARE(ops::to_string(s.method), method.choices[i]);
        }
        const ParamSpec& term = ops::param(ops::video_retarget_param_specs(), "temporal-term");
        for (std::size_t i = 0; i < term.choices.size(); ++i) {
            ops::set_field(ops::video_retarget_param_fields(), v, "temporal-term", double(i));
            QCOMPARE(ops::parse_temporal_term(std::string(term.choices[i])), std::optional(v.term));
        }
    }

    void settings_round_trip() {
        ops::InpaintParams p;
        p.patch = 15;
        p.window_factor = 0.75;
        p.coherence = false;
        p.method = ops::InpaintMethod::Criminisi;
        p.seed = 77;
        p.mask_grow = -3;
        p.lines = true;
        p.line_angle = 4.5;
        p.source_colours = true;
        p.choose = false;
        p.refill_foreign = !ops::InpaintParams{}.refill_foreign;
        p.keep_colours = false;
        const std::string text = ops::write_settings(p, ops::inpaint_param_fields());
        QCOMPARE(QString::fromStdString(text),
                 QString("version=1\npatch=15\nwindow=0.75\ncoherence=off\nmethod=criminisi\n"
                         "seed=77\ngrow=-3\nlines=on\nline-angle=4.5\nline-offset=2\n"
                         "source-colours=on\nchoose=off\nrefill-foreign=" +
                         QString(p.refill_foreign ? "on" : "off") + "\nkeep-colours=off\n"));
        ops::InpaintParams back;
        QVERIFY(ops::read_settings(text, ops::inpaint_param_fields(), back).empty());
        QCOMPARE(back.patch, 15);
        QCOMPARE(back.window_factor, 0.75);
        QCOMPARE(back.coherence, false);
        QCOMPARE(back.choose, false);
        QCOMPARE(back.refill_foreign, p.refill_foreign);
        QCOMPARE(back.keep_colours, false);
        QCOMPARE(back.method, ops::InpaintMethod::Criminisi);
        QCOMPARE(back.seed, 77u);
        QCOMPARE(back.mask_grow, -3);
        QCOMPARE(back.lines, true);
        QCOMPARE(back.line_angle, 4.5);
        QCOMPARE(back.source_colours, true);
    }

    // A text from before versions (no version line), with a name since renamed and one since
    // removed, still loads: the rename applies, the removed one is skipped with a notice, and
    // what the text lacks keeps its value.
    void older_settings_still_load() {
        const ops::ParamRename renames[] = {{1, "patch-size", "patch"}};
        ops::InpaintParams p;
        p.seed = 5;
        const auto notices =
            ops::read_settings("patch-size=7\r\n# a comment\nblend=on\n\nmethod=patchmatch\n",
                               ops::inpaint_param_fields(), p, renames);
        QCOMPARE(p.patch, 7);
        QCOMPARE(p.method, ops::InpaintMethod::PatchMatch);
        QCOMPARE(p.seed, 5u);
        QCOMPARE(notices.size(), std::size_t{1});
        QVERIFY(notices[0].find("'blend'") != std::string::npos);
        // From version 1 on, the old name is no longer renamed.
        ops::InpaintParams q;
        QCOMPARE(
            ops::read_settings("version=1\npatch-size=7\n", ops::inpaint_param_fields(), q, renames)
                .size(),
            std::size_t{1});
        QCOMPARE(q.patch, 9);
    }

    void bad_settings_are_refused_whole() {
        const auto refused = [](const std::string& text) {
            ops::BilateralParams p;
            p.radius = 4;
            try {
                (void)ops::read_settings(text, ops::bilateral_param_fields(), p);
            } catch (const Error& e) {
                if (p.radius != 4) return QString("changed the params");
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        QCOMPARE(refused("version=1\nradius=3\nsigma-space=0\n"),
                 QString("spatial sigma must be from 0.1 to 1000 pixels, not 0"));
        QCOMPARE(refused("radius=3\nsigma-range=lots\n"),
                 QString("range sigma needs a number, not 'lots'"));
        QCOMPARE(refused("radius 3\n"),
                 QString("a settings line must be name=value, not 'radius 3'"));
        QCOMPARE(refused("version=2\nradius=3\n"),
                 QString("these settings are version 2, newer than this build's 1"));
        QCOMPARE(refused("version=x\n"),
                 QString("a settings version must be a whole number, not 'x'"));
    }
};

QTEST_GUILESS_MAIN(TestParams)
#include "test_params.moc"
