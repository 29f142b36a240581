// The parameter tables (lacuna/ops/params.hpp): defaults agree with the params structs, checks
// accept the bounds and refuse just outside, choices round-trip, and the engine's own validation
// agrees with the tables.
#include <lacuna/core/error.hpp>
#include <lacuna/ops/brush.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/params.hpp>
#include <lacuna/ops/seam_carve.hpp>

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
        QVERIFY(accepts(e, 0) && accepts(e, 3) && !accepts(e, 4) && !accepts(e, -1));
    }

    void parse_choice_round_trips_every_energy() {
        const ParamSpec& e = energy();
        QCOMPARE(e.choices.size(), std::size_t{4});
        for (const SeamEnergy kind :
             {SeamEnergy::L1, SeamEnergy::Prewitt, SeamEnergy::Sobel, SeamEnergy::Forward}) {
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
            QCOMPARE(QString(error.what()),
                     QString("energy must be forward, l1, prewitt or sobel, not 'magic'"));
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
        QCOMPARE(text(energy()), QString("forward, l1, prewitt or sobel (default forward)"));
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
};

QTEST_GUILESS_MAIN(TestParams)
#include "test_params.moc"
