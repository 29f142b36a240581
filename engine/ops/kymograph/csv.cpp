// A kymograph as CSV: '#' lines saying what the values are, the time axis and each position's
// place, then one row per frame. `lacuna kymograph --csv` and the editor's Export write this.
#include <lacuna/ops/kymograph.hpp>

#include <iomanip>
#include <sstream>

namespace lacuna::ops {
namespace {

std::string number_list(const std::vector<double>& values) {
    std::ostringstream s;
    s << std::setprecision(9);
    for (std::size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
    return s.str();
}

}  // namespace

std::string kymograph_csv(const KymographPlan& plan, const ImageF32& rows,
                          const KymographTable& table) {
    std::ostringstream csv;
    csv << std::setprecision(9);
    csv << "# lacuna kymograph: mean of " << plan.band() << " sample"
        << (plan.band() > 1 ? "s" : "") << " across a " << (table.polyline ? "polyline" : "line")
        << " of " << plan.length() << " pixels ("
        << (plan.sampling == Sampling::Nearest ? "nearest" : "bilinear") << "), "
        << plan.positions() << " positions, " << rows.height()
        << " frames; values: " << table.values << (table.unit.empty() ? "" : "; unit " + table.unit)
        << "\n";
    if (table.frame_interval)
        csv << "# frame interval " << *table.frame_interval << " s, " << table.interval_source
            << "\n";
    else
        csv << "# frame interval unknown: time is in frames\n";
    std::vector<double> xs, ys;
    for (int i = 0; i < plan.positions(); ++i) {
        xs.push_back(plan.point(i).x);
        ys.push_back(plan.point(i).y);
    }
    csv << "# x (px): " << number_list(xs) << "\n# y (px): " << number_list(ys)
        << "\n# distance (px): " << number_list(plan.distance) << "\n";
    if (table.spacing.known())
        csv << "# distance (" << table.spacing.unit << ", pixel size " << table.spacing.describe()
            << "): " << number_list(kymograph_distances(plan, table.spacing)) << "\n";
    csv << "frame" << (table.frame_interval ? ",time_s" : "");
    for (int i = 0; i < plan.positions(); ++i) csv << ",p" << i;
    csv << "\n";
    for (int t = 0; t < rows.height(); ++t) {
        csv << t;
        if (table.frame_interval) csv << ',' << t * *table.frame_interval;
        const float* row = rows.row(t);
        for (int i = 0; i < plan.positions(); ++i) csv << ',' << row[i];
        csv << "\n";
    }
    return csv.str();
}

}  // namespace lacuna::ops
