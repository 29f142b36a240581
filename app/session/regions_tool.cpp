#include "regions_tool.hpp"

#include "line_tool.hpp"
#include "session.hpp"

#include <lacuna/core/error.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/ops/line_histogram.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace lacuna::session {
namespace {

using ops::Point2;
using ops::ProfileRegion;
using ops::RegionShape;

/// Distinct colours that read on grey, photos and the false-colour LUTs (matplotlib's tab10).
constexpr const char* kPalette[] = {"#ff7f0e", "#1f77b4", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};

double segment_distance(const Point2 p, const Point2 a, const Point2 b) {
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double length2 = dx * dx + dy * dy;
    const double t = length2 < 1e-12
                         ? 0.0
                         : std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / length2, 0.0, 1.0);
    return std::hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

std::array<std::uint8_t, 3> rgb_of(const std::string& color) {
    if (color.size() != 7) return {255, 255, 0};
    const unsigned long v = std::strtoul(color.c_str() + 1, nullptr, 16);
    return {std::uint8_t(v >> 16), std::uint8_t(v >> 8), std::uint8_t(v)};
}

/// A rectangle's four corners in continuous coordinates, clockwise from the top-left.
std::array<Point2, 4> corners(const ProfileRegion& r) {
    const double x1 = r.x + r.width, y1 = r.y + r.height;
    return {Point2{r.x, r.y}, Point2{x1, r.y}, Point2{x1, y1}, Point2{r.x, y1}};
}

/// Drops vertices equal to the one before (a click without a move): a zero-length segment has
/// no direction to profile along.
std::vector<Point2> distinct(const std::vector<Point2>& points) {
    std::vector<Point2> out;
    for (const Point2& p : points)
        if (out.empty() || std::hypot(p.x - out.back().x, p.y - out.back().y) >= 0.5)
            out.push_back(p);
    return out;
}

}  // namespace

RegionsTool::RegionsTool(Session& session) : session_(session) {}
RegionsTool::~RegionsTool() = default;

// ---- the list -------------------------------------------------------------------------------

void RegionsTool::document_opened() {
    regions_.clear();
    saved_.clear();
    steps_.clear();
    undo_index_ = 0;
    selected_ = -1;
    drag_ = Drag::None;
    drawing_ = false;
    names_used_ = colors_used_ = 0;
    cache_.clear();
    plane_ = {};
    plane_key_ = ~0ull;
    changed();
}

void RegionsTool::select(const int index) {
    selected_ = index >= 0 && index < count() ? index : -1;
    changed();
}

void RegionsTool::set_draw_shape(const RegionShape shape) {
    if (drawing_) finish_drawing();
    draw_shape_ = shape;
}

void RegionsTool::set_draw_band(const int band) {
    draw_band_ = std::clamp(band, 1, ops::kMaxBandWidth);
}

std::string RegionsTool::free_name(const RegionShape shape) {
    const std::string stem = shape == RegionShape::Rectangle ? "rect" : ops::to_string(shape);
    for (;;) {
        const std::string name = stem + " " + std::to_string(++names_used_);
        if (std::none_of(regions_.begin(), regions_.end(),
                         [&](const ProfileRegion& r) { return r.name == name; }))
            return name;
    }
}

std::string RegionsTool::next_color() {
    return kPalette[colors_used_++ % std::size(kPalette)];
}

void RegionsTool::check_name(const int index, const std::string& name) const {
    if (name.empty()) throw Error(ErrorCode::InvalidArgument, "a region needs a name");
    for (int i = 0; i < count(); ++i)
        if (i != index && regions_[std::size_t(i)].name == name)
            throw Error(ErrorCode::InvalidArgument,
                        "another region is called '" + name + "' already");
}

int RegionsTool::add(ProfileRegion region) {
    const bool taken = std::any_of(regions_.begin(), regions_.end(),
                                   [&](const ProfileRegion& r) { return r.name == region.name; });
    if (region.name.empty() || taken) region.name = free_name(region.shape);
    if (region.color.empty()) region.color = next_color();
    ops::check_region(region, count());
    std::vector<ProfileRegion> before = regions_;
    const int selected_before = selected_;
    regions_.push_back(std::move(region));
    selected_ = count() - 1;
    record("Add Region '" + regions_.back().name + "'", std::move(before), selected_before);
    return selected_;
}

int RegionsTool::add_current_line() {
    const LineTool& line = session_.line();
    if (!line.has_line()) return -1;
    ProfileRegion r;
    r.shape = RegionShape::Line;
    r.points = {line.from(), line.to()};
    r.width = line.band();
    return add(std::move(r));
}

void RegionsTool::replace(const int index, ProfileRegion region, const std::string& label) {
    if (index < 0 || index >= count()) return;
    check_name(index, region.name);
    ops::check_region(region, index);
    if (regions_[std::size_t(index)] == region) return;
    std::vector<ProfileRegion> before = regions_;
    regions_[std::size_t(index)] = std::move(region);
    record(label, std::move(before), selected_);
}

void RegionsTool::rename(const int index, const std::string& name) {
    if (index < 0 || index >= count()) return;
    ProfileRegion r = regions_[std::size_t(index)];
    r.name = name;
    replace(index, std::move(r), "Rename Region");
}

void RegionsTool::set_color(const int index, const std::string& color) {
    if (index < 0 || index >= count()) return;
    ProfileRegion r = regions_[std::size_t(index)];
    r.color = color;
    replace(index, std::move(r), "Region Colour");
}

void RegionsTool::set_band(const int index, const int band) {
    if (index < 0 || index >= count()) return;
    ProfileRegion r = regions_[std::size_t(index)];
    const bool rectangle = r.shape == RegionShape::Rectangle;
    (rectangle ? r.height : r.width) = band;
    replace(index, std::move(r), rectangle ? "Region Height" : "Region Band");
}

void RegionsTool::remove(const int index) {
    if (index < 0 || index >= count()) return;
    if (drawing_) finish_drawing();
    std::vector<ProfileRegion> before = regions_;
    const int selected_before = selected_;
    const std::string name = regions_[std::size_t(index)].name;
    regions_.erase(regions_.begin() + index);
    selected_ = regions_.empty() ? -1 : std::min(index, count() - 1);
    record("Delete Region '" + name + "'", std::move(before), selected_before);
}

void RegionsTool::clear() {
    if (regions_.empty()) return;
    drawing_ = false;
    drag_ = Drag::None;
    std::vector<ProfileRegion> before = std::move(regions_);
    regions_.clear();
    const int selected_before = selected_;
    selected_ = -1;
    record("Delete All Regions", std::move(before), selected_before);
}

// ---- undo -----------------------------------------------------------------------------------

void RegionsTool::record(std::string label, std::vector<ProfileRegion> before,
                         const int selected_before) {
    steps_.resize(undo_index_);  // a new edit drops what could be redone
    steps_.push_back({std::move(label), std::move(before), regions_, selected_before, selected_});
    // Lists are small (a few hundred regions at most): 200 steps of whole lists stay small.
    if (steps_.size() > 200) steps_.erase(steps_.begin());
    undo_index_ = steps_.size();
    changed();
}

std::string RegionsTool::undo_label() const {
    return can_undo() ? steps_[undo_index_ - 1].label : std::string();
}

std::string RegionsTool::redo_label() const {
    return can_redo() ? steps_[undo_index_].label : std::string();
}

bool RegionsTool::undo() {
    if (!can_undo() || drag_ != Drag::None) return false;
    drawing_ = false;
    const Step& s = steps_[--undo_index_];
    regions_ = s.before;
    selected_ = s.selected_before < count() ? s.selected_before : -1;
    changed();
    return true;
}

bool RegionsTool::redo() {
    if (!can_redo() || drag_ != Drag::None) return false;
    drawing_ = false;
    const Step& s = steps_[undo_index_++];
    regions_ = s.after;
    selected_ = s.selected_after < count() ? s.selected_after : -1;
    changed();
    return true;
}

// ---- files ----------------------------------------------------------------------------------

std::filesystem::path RegionsTool::sidecar(const std::filesystem::path& image) {
    std::filesystem::path p = image;
    p.replace_extension();
    p += ".regions.json";
    return p;
}

void RegionsTool::save(const std::filesystem::path& path) {
    if (drawing_) finish_drawing();
    const std::string text = ops::regions_json(regions_);
    // A temporary file beside the target, then renamed over it: a failed write never leaves a
    // half file where the list was.
    const std::filesystem::path temp = path.string() + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ignored;
            std::filesystem::remove(temp, ignored);
            throw Error(ErrorCode::WriteFailed,
                        "cannot write the regions file '" + path.string() + "'");
        }
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::error_code ignored;
        std::filesystem::remove(temp, ignored);
        throw Error(ErrorCode::WriteFailed, "cannot write the regions file '" + path.string() +
                                                "': " + std::strerror(error));
    }
    saved_ = regions_;
    changed();
}

int RegionsTool::load(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::NotFound, "cannot read the regions file '" + path.string() + "'");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<ProfileRegion> loaded = ops::parse_regions(text, path.string(), true);
    drawing_ = false;
    drag_ = Drag::None;
    for (ProfileRegion& r : loaded)
        if (r.color.empty()) r.color = next_color();
    std::vector<ProfileRegion> before = std::move(regions_);
    regions_ = std::move(loaded);
    const int selected_before = selected_;
    selected_ = regions_.empty() ? -1 : 0;
    saved_ = regions_;
    record("Open Regions", std::move(before), selected_before);
    return count();
}

// ---- profiles -------------------------------------------------------------------------------

std::uint64_t RegionsTool::plane_key() const {
    const Document& d = session_.document();
    return d.pixels_revision() * 1000003ull + d.calibration_revision();
}

void RegionsTool::build_plane() const {
    // The plane `lacuna histogram --regions` reads by default: the calibrated value of a
    // measurement, the luminance of a photo (HistogramSource's, so the numbers are the CLI's).
    // Built on the host once per pixels revision; drags then only sample it.
    const Document& d = session_.document();
    if (d.measurement()) {
        plane_ = measurement_plane(d.samples(), d.calibration());
    } else {
        const ops::HistogramSource source(d.pixels().view());
        plane_ = clone(source.plane(ops::HistogramChannel::Luminance).view());
    }
    plane_key_ = plane_key();
}

void RegionsTool::refresh() const {
    if (session_.document().empty() || regions_.empty()) {
        cache_.clear();
        return;
    }
    if (plane_key_ != plane_key() || plane_.empty()) {
        build_plane();
        cache_.clear();
    }
    cache_.resize(regions_.size());
    for (std::size_t i = 0; i < regions_.size(); ++i) {
        Cached& c = cache_[i];
        if (c.profile && c.region.params().path == regions_[i].params().path &&
            c.region.params().band_width == regions_[i].params().band_width &&
            c.region.params().sampling == regions_[i].params().sampling) {
            c.region = regions_[i];  // a new name or colour: the same numbers
            continue;
        }
        if (!c.profile && !c.error.empty() && c.region == regions_[i]) continue;
        c.region = regions_[i];
        c.profile.reset();
        c.error.clear();
        try {
            c.profile = ops::profile_region(regions_[i], plane_.view());
        } catch (const Error& e) {
            c.error = e.what();
        }
    }
}

void RegionsTool::changed() {
    refresh();
    ++revision_;
    session_.frame_changed();
}

const ops::RegionProfile* RegionsTool::profile(const int index) const {
    refresh();
    if (index < 0 || std::size_t(index) >= cache_.size()) return nullptr;
    const Cached& c = cache_[std::size_t(index)];
    return c.profile ? &*c.profile : nullptr;
}

std::string RegionsTool::profile_error(const int index) const {
    refresh();
    if (index < 0 || std::size_t(index) >= cache_.size()) return {};
    return cache_[std::size_t(index)].error;
}

std::string RegionsTool::channel_name() const {
    return session_.document().measurement() ? "value" : "lum";
}

std::string RegionsTool::unit() const {
    return session_.document().measurement() ? session_.document().calibration().unit : "";
}

std::string RegionsTool::profiles_csv(const std::string& source) const {
    std::vector<ProfileRegion> regions;
    std::vector<ops::RegionProfile> profiles;
    std::string skipped;
    for (int i = 0; i < count(); ++i) {
        if (const ops::RegionProfile* p = profile(i)) {
            regions.push_back(regions_[std::size_t(i)]);
            profiles.push_back(*p);
        } else {
            skipped += "# not profiled: '" + regions_[std::size_t(i)].name +
                       "': " + profile_error(i) + "\n";
        }
    }
    const std::string u = unit();
    const std::string header = "# region profiles of " + source + "; " +
                               std::to_string(regions.size()) + " regions, channel " +
                               channel_name() + (u.empty() ? "" : " (" + u + ")") +
                               "; distance in pixels\n" + skipped;
    return ops::region_profiles_csv(regions, profiles, header);
}

// ---- pointer input --------------------------------------------------------------------------

RegionsTool::Hit RegionsTool::hit(const Point2 c, const double tolerance) const {
    // The selected region first (its handles over the others'), then the topmost (last) one.
    std::vector<int> order;
    if (selected_ >= 0) order.push_back(selected_);
    for (int i = count() - 1; i >= 0; --i)
        if (i != selected_) order.push_back(i);
    for (const int i : order) {
        const ProfileRegion& r = regions_[std::size_t(i)];
        if (r.shape == RegionShape::Rectangle) {
            // Corners in continuous coordinates; c is a pixel centre: compare at c + 0.5.
            const Point2 q{c.x + 0.5, c.y + 0.5};
            const std::array<Point2, 4> k = corners(r);
            int nearest = -1;
            double best = tolerance;
            for (int h = 0; h < 4; ++h)
                if (const double d =
                        std::hypot(q.x - k[std::size_t(h)].x, q.y - k[std::size_t(h)].y);
                    d <= best) {
                    best = d;
                    nearest = h;
                }
            if (nearest >= 0) return {i, Drag::Corner, nearest};
            if (q.x >= r.x - tolerance / 2 && q.x <= r.x + r.width + tolerance / 2 &&
                q.y >= r.y - tolerance / 2 && q.y <= r.y + r.height + tolerance / 2)
                return {i, Drag::Whole, -1};
            continue;
        }
        int nearest = -1;
        double best = tolerance;
        for (std::size_t v = 0; v < r.points.size(); ++v)
            if (const double d = std::hypot(c.x - r.points[v].x, c.y - r.points[v].y); d <= best) {
                best = d;
                nearest = int(v);
            }
        if (nearest >= 0) return {i, Drag::Vertex, nearest};
        const double reach = std::max(r.width / 2.0, tolerance * 0.75);
        for (std::size_t v = 1; v < r.points.size(); ++v)
            if (segment_distance(c, r.points[v - 1], r.points[v]) <= reach)
                return {i, Drag::Whole, -1};
    }
    return {};
}

bool RegionsTool::press(const Pointer& p) {
    if (session_.document().empty()) return false;
    const Point2 c{p.x - 0.5, p.y - 0.5};
    if (drawing_) {
        // A polyline being drawn: the vertex following the pointer stays here; a new one
        // follows on.
        ProfileRegion& r = regions_.back();
        r.points.back() = c;
        r.points.push_back(c);
        changed();
        return true;
    }
    gesture_before_ = regions_;
    gesture_selected_ = selected_;
    const Hit h = hit(c, 8.0 * p.image_per_screen);
    if (h.region >= 0) {
        selected_ = h.region;
        drag_ = h.drag;
        drag_handle_ = h.handle;
        grab_ = c;
        grabbed_ = regions_[std::size_t(h.region)];
        changed();
        return true;
    }
    // Empty image: a new region of the drawing shape starts here.
    ProfileRegion r;
    r.shape = draw_shape_;
    r.name = free_name(r.shape);
    r.color = next_color();
    if (draw_shape_ == RegionShape::Rectangle) {
        r.x = std::floor(p.x);
        r.y = std::floor(p.y);
        r.width = 2;
        r.height = 1;
        drag_ = Drag::NewRectangle;
        grab_ = {r.x, r.y};
    } else {
        r.points = {c, c};
        r.width = draw_band_;
        drag_ = draw_shape_ == RegionShape::Line ? Drag::NewLine : Drag::None;
        drawing_ = draw_shape_ == RegionShape::Polyline;
        drag_handle_ = 1;
    }
    regions_.push_back(std::move(r));
    selected_ = count() - 1;
    changed();
    return true;
}

void RegionsTool::drag_to(const Point2 c, const bool shift) {
    ProfileRegion& r = regions_[std::size_t(selected_)];
    switch (drag_) {
        case Drag::Whole: {
            const double dx = c.x - grab_.x, dy = c.y - grab_.y;
            r = grabbed_;
            if (r.shape == RegionShape::Rectangle) {
                // Whole pixels, so the rectangle keeps reading each of its pixels once.
                r.x += std::round(dx);
                r.y += std::round(dy);
            } else {
                for (Point2& v : r.points) v = {v.x + dx, v.y + dy};
            }
            break;
        }
        case Drag::Vertex:
        case Drag::NewLine: {
            Point2 at = c;
            const std::size_t v = std::size_t(drag_handle_);
            if (shift && r.points.size() >= 2) {
                // Shift: the segment to the previous vertex at a multiple of 45°, as the Line
                // tool does.
                const Point2 anchor = r.points[v == 0 ? 1 : v - 1];
                const double dx = c.x - anchor.x, dy = c.y - anchor.y;
                const double length = std::hypot(dx, dy), step = std::atan(1.0);
                const double angle = std::round(std::atan2(dy, dx) / step) * step;
                at = {anchor.x + length * std::cos(angle), anchor.y + length * std::sin(angle)};
                if (std::abs(std::sin(angle)) < 1e-9) at.y = anchor.y;
                if (std::abs(std::cos(angle)) < 1e-9) at.x = anchor.x;
            }
            r.points[v] = at;
            break;
        }
        case Drag::Corner:
        case Drag::NewRectangle: {
            // The opposite corner stays; the rectangle covers whole pixels between.
            double fx, fy;
            if (drag_ == Drag::NewRectangle) {
                fx = grab_.x;
                fy = grab_.y;
            } else {
                const std::array<Point2, 4> k = corners(grabbed_);
                const Point2 opposite = k[std::size_t((drag_handle_ + 2) % 4)];
                fx = opposite.x;
                fy = opposite.y;
            }
            const double px = std::round(c.x + 0.5), py = std::round(c.y + 0.5);
            const double x0 = std::min(fx, px), x1 = std::max(fx, px);
            const double y0 = std::min(fy, py), y1 = std::max(fy, py);
            r.x = x0;
            r.y = y0;
            r.width = std::max(2, int(x1 - x0));
            r.height = std::clamp(int(y1 - y0), 1, ops::kMaxBandWidth);
            break;
        }
        case Drag::None:
            break;
    }
}

void RegionsTool::move(const Pointer& p) {
    const Point2 c{p.x - 0.5, p.y - 0.5};
    if (drawing_ && drag_ == Drag::None) {
        regions_.back().points.back() = c;
        changed();
        return;
    }
    if (drag_ == Drag::None || selected_ < 0) return;
    drag_to(c, p.shift);
    changed();
}

void RegionsTool::hover(const Pointer& p) {
    if (drawing_) move(p);
}

void RegionsTool::release(const Pointer&) {
    if (drawing_ || drag_ == Drag::None) return;
    const Drag was = drag_;
    drag_ = Drag::None;
    if (was == Drag::NewLine || was == Drag::NewRectangle) {
        ProfileRegion& r = regions_.back();
        const bool click = was == Drag::NewLine ? std::hypot(r.points[1].x - r.points[0].x,
                                                             r.points[1].y - r.points[0].y) < 1.0
                                                : r.width < 2;
        if (click) {
            // A click on empty image: nothing drawn; it deselects, as in ImageJ.
            regions_.pop_back();
            selected_ = -1;
            changed();
            return;
        }
        record("Add Region '" + r.name + "'", std::move(gesture_before_), gesture_selected_);
        return;
    }
    if (regions_ == gesture_before_) {
        changed();  // a click that only selected
        return;
    }
    record(was == Drag::Whole ? "Move Region" : "Edit Region", std::move(gesture_before_),
           gesture_selected_);
}

bool RegionsTool::double_click(const Pointer&) {
    if (!drawing_) return false;
    finish_drawing();
    return true;
}

void RegionsTool::finish_drawing() {
    if (!drawing_) return;
    drawing_ = false;
    ProfileRegion& r = regions_.back();
    r.points.pop_back();  // the vertex that followed the pointer
    r.points = distinct(r.points);
    if (r.points.size() < 2) {
        regions_.pop_back();
        selected_ = -1;
        changed();
        return;
    }
    record("Add Region '" + r.name + "'", std::move(gesture_before_), gesture_selected_);
}

void RegionsTool::deactivate() {
    finish_drawing();
    if (drag_ != Drag::None) release({});
}

Overlay RegionsTool::overlay() const {
    Overlay o;
    for (int i = 0; i < count(); ++i) {
        const ProfileRegion& r = regions_[std::size_t(i)];
        Overlay::Region shown;
        shown.name = r.name;
        shown.rgb = rgb_of(r.color);
        shown.selected = i == selected_;
        if (r.shape == RegionShape::Rectangle) {
            for (const Point2& k : corners(r)) shown.path.push_back({k.x, k.y});
            shown.closed = true;
        } else {
            for (const Point2& v : r.points) shown.path.push_back({v.x + 0.5, v.y + 0.5});
            shown.band = r.width;
        }
        o.regions.push_back(std::move(shown));
    }
    return o;
}

}  // namespace lacuna::session
