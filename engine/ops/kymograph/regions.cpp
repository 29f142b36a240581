// The regions file: a small JSON reader (objects, arrays, numbers, strings, true, false, null:
// the whole grammar, nothing more), its writer, and the regions' profiles (regions.hpp).
#include <lacuna/ops/regions.hpp>

#include <lacuna/core/json_text.hpp>

#include <lacuna/core/error.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

namespace lacuna::ops {
namespace {

struct Json;
using JsonArray = std::vector<Json>;
using JsonMap = std::map<std::string, Json>;
struct Json {
    std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<JsonArray>,
                 std::shared_ptr<JsonMap>>
        value;
};

class Parser {
  public:
    Parser(const std::string& text, const std::string& file) : text_(text), file_(file) {}

    Json document() {
        Json j = value(0);
        skip();
        if (pos_ != text_.size()) fail("text after the end of the JSON value");
        return j;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        int line = 1;
        for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) line += text_[i] == '\n';
        throw Error(ErrorCode::InvalidArgument,
                    "'" + file_ + "' line " + std::to_string(line) + " is not valid JSON: " + what);
    }
    void skip() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                       text_[pos_] == '\r' || text_[pos_] == '\t'))
            ++pos_;
    }
    bool take(const char c) {
        skip();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(const char c) {
        if (!take(c)) fail(std::string("expected '") + c + "'");
    }
    bool word(const char* w) {
        const std::string s(w);
        if (text_.compare(pos_, s.size(), s) != 0) return false;
        pos_ += s.size();
        return true;
    }

    Json value(const int depth) {
        if (depth > 64) fail("nested too deeply");
        skip();
        if (pos_ >= text_.size()) fail("unexpected end");
        const char c = text_[pos_];
        if (c == '{') return object(depth);
        if (c == '[') return array(depth);
        if (c == '"') return {string()};
        if (word("true")) return {true};
        if (word("false")) return {false};
        if (word("null")) return {nullptr};
        return {number()};
    }
    Json object(const int depth) {
        expect('{');
        auto map = std::make_shared<JsonMap>();
        if (!take('}')) {
            do {
                skip();
                if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a key in quotes");
                std::string key = string();
                expect(':');
                (*map)[key] = value(depth + 1);
            } while (take(','));
            expect('}');
        }
        return {map};
    }
    Json array(const int depth) {
        expect('[');
        auto list = std::make_shared<JsonArray>();
        if (!take(']')) {
            do list->push_back(value(depth + 1));
            while (take(','));
            expect(']');
        }
        return {list};
    }
    std::string string() {
        ++pos_;  // the opening quote
        std::string out;
        while (pos_ < text_.size() && text_[pos_] != '"') {
            char c = text_[pos_++];
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
            if (c == '\\') {
                if (pos_ >= text_.size()) fail("unexpected end");
                const char e = text_[pos_++];
                switch (e) {
                    case 'n':
                        c = '\n';
                        break;
                    case 't':
                        c = '\t';
                        break;
                    case 'r':
                        c = '\r';
                        break;
                    case 'b':
                        c = '\b';
                        break;
                    case 'f':
                        c = '\f';
                        break;
                    case '"':
                    case '\\':
                    case '/':
                        c = e;
                        break;
                    case 'u': {
                        if (pos_ + 4 > text_.size()) fail("a cut \\u escape");
                        const unsigned long code =
                            std::strtoul(text_.substr(pos_, 4).c_str(), nullptr, 16);
                        pos_ += 4;
                        // UTF-8 of a BMP code point (names only: surrogate pairs kept as is).
                        if (code < 0x80) {
                            out += static_cast<char>(code);
                        } else if (code < 0x800) {
                            out += static_cast<char>(0xC0 | (code >> 6));
                            out += static_cast<char>(0x80 | (code & 0x3F));
                        } else {
                            out += static_cast<char>(0xE0 | (code >> 12));
                            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
                            out += static_cast<char>(0x80 | (code & 0x3F));
                        }
                        continue;
                    }
                    default:
                        fail(std::string("an unknown escape \\") + e);
                }
            }
            out += c;
        }
        if (pos_ >= text_.size()) fail("a string without its closing quote");
        ++pos_;
        return out;
    }
    double number() {
        const char* start = text_.c_str() + pos_;
        char* end = nullptr;
        const double v = std::strtod(start, &end);
        if (end == start) fail("expected a value");
        pos_ += static_cast<std::size_t>(end - start);
        return v;
    }

    const std::string& text_;
    const std::string& file_;
    std::size_t pos_ = 0;
};

class RegionReader {
  public:
    RegionReader(const std::string& file, const int index) : file_(file), index_(index) {}
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(ErrorCode::InvalidArgument,
                    "'" + file_ + "', region " + std::to_string(index_ + 1) +
                        (name_.empty() ? "" : " ('" + name_ + "')") + ": " + what);
    }
    void set_name(const std::string& name) { name_ = name; }
    double number(const JsonMap& m, const std::string& key) const {
        const auto it = m.find(key);
        if (it == m.end()) fail("needs \"" + key + "\"");
        const double* v = std::get_if<double>(&it->second.value);
        if (!v || !std::isfinite(*v)) fail("\"" + key + "\" must be a number");
        return *v;
    }
    int whole(const JsonMap& m, const std::string& key, const int fallback) const {
        if (!m.count(key)) return fallback;
        const double v = number(m, key);
        if (v != std::floor(v) || v < 1 || v > 1e9)
            fail("\"" + key + "\" must be a whole number of pixels, at least 1");
        return static_cast<int>(v);
    }
    std::vector<Point2> points(const JsonMap& m) const {
        const auto it = m.find("points");
        const auto* list =
            it == m.end() ? nullptr : std::get_if<std::shared_ptr<JsonArray>>(&it->second.value);
        if (!list) fail("needs \"points\": [[x0, y0], [x1, y1], ...]");
        std::vector<Point2> out;
        for (const Json& p : **list) {
            const auto* xy = std::get_if<std::shared_ptr<JsonArray>>(&p.value);
            if (!xy || (*xy)->size() != 2) fail("each point must be [x, y]");
            const double* x = std::get_if<double>(&(**xy)[0].value);
            const double* y = std::get_if<double>(&(**xy)[1].value);
            if (!x || !y) fail("each point must be [x, y] with numbers");
            out.push_back({*x, *y});
        }
        return out;
    }
    const std::string* text(const JsonMap& m, const std::string& key) const {
        const auto it = m.find(key);
        if (it == m.end()) return nullptr;
        const auto* s = std::get_if<std::string>(&it->second.value);
        if (!s) fail("\"" + key + "\" must be text");
        return s;
    }

  private:
    const std::string& file_;
    int index_;
    std::string name_;
};

bool is_hex_colour(const std::string& c) {
    if (c.size() != 7 || c[0] != '#') return false;
    for (std::size_t i = 1; i < 7; ++i)
        if (!std::isxdigit(static_cast<unsigned char>(c[i]))) return false;
    return true;
}

// The semantic checks, shared by the reader (messages naming the file) and check_region.
void check_fields(const ProfileRegion& region, const RegionReader& r) {
    if (region.name.empty()) r.fail("needs a \"name\" (text)");
    if (!region.color.empty() && !is_hex_colour(region.color))
        r.fail("\"color\" must be \"#rrggbb\", not '" + region.color + "'");
    if (region.shape == RegionShape::Rectangle) {
        if (!std::isfinite(region.x) || !std::isfinite(region.y))
            r.fail("\"x\" and \"y\" must be numbers");
        if (region.width < 2) r.fail("a rectangle needs a \"width\" of at least 2 pixels");
        if (region.height < 1) r.fail("a rectangle needs a \"height\" of at least 1 pixel");
        if (region.height > kMaxBandWidth)
            r.fail("\"height\" must be at most " + std::to_string(kMaxBandWidth));
        return;
    }
    if (region.shape == RegionShape::Line && region.points.size() != 2)
        r.fail("a line has two points; use \"polyline\" for more");
    if (region.shape == RegionShape::Polyline && region.points.size() < 2)
        r.fail("a polyline needs at least two points");
    for (const Point2& p : region.points)
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) r.fail("each point must be finite");
    if (region.width < 1) r.fail("\"width\" must be a whole number of pixels, at least 1");
    if (region.width > kMaxBandWidth)
        r.fail("\"width\" must be at most " + std::to_string(kMaxBandWidth));
}

// Shortest text that reads back as the same double (integers without a fraction).
std::string number_text(const double v) {
    char buffer[32];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
        if (std::strtod(buffer, nullptr) == v) break;
    }
    return buffer;
}

}  // namespace

const char* to_string(const RegionShape shape) {
    switch (shape) {
        case RegionShape::Line:
            return "line";
        case RegionShape::Polyline:
            return "polyline";
        case RegionShape::Rectangle:
            return "rectangle";
    }
    return "line";
}

KymographParams ProfileRegion::params() const {
    KymographParams p;
    if (shape == RegionShape::Rectangle) {
        const double cy = y + (height - 1) / 2.0;
        p.path = {{x, cy}, {x + width - 1, cy}};
        p.band_width = height;
        p.sampling = sampling.value_or(Sampling::Nearest);
    } else {
        p.path = points;
        p.band_width = width;
        p.sampling = sampling.value_or(Sampling::Bilinear);
    }
    return p;
}

void check_region(const ProfileRegion& region, const int index) {
    const std::string file = "regions";
    RegionReader r(file, index);
    r.set_name(region.name);
    try {
        check_fields(region, r);
    } catch (const Error& e) {
        // "'regions', region 2 ('a'): ..." → "region 2 ('a'): ..."
        const std::string what = e.what();
        throw Error(ErrorCode::InvalidArgument, what.substr(what.find("region ")));
    }
}

std::vector<ProfileRegion> parse_regions(const std::string& text, const std::string& file,
                                         const bool allow_empty) {
    const Json doc = Parser(text, file).document();
    const auto* list = std::get_if<std::shared_ptr<JsonArray>>(&doc.value);
    if (!list)
        throw Error(ErrorCode::InvalidArgument, "'" + file + "' must hold a JSON list of regions");
    if ((*list)->empty() && !allow_empty)
        throw Error(ErrorCode::InvalidArgument, "'" + file + "' lists no regions");
    std::vector<ProfileRegion> regions;
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
        RegionReader r(file, static_cast<int>(i));
        const auto* object = std::get_if<std::shared_ptr<JsonMap>>(&(**list)[i].value);
        if (!object) r.fail("must be an object with \"name\" and \"type\"");
        const JsonMap& m = **object;
        ProfileRegion region;
        const std::string* name = r.text(m, "name");
        if (!name || name->empty()) r.fail("needs a \"name\" (text)");
        region.name = *name;
        r.set_name(region.name);
        for (const ProfileRegion& earlier : regions)
            if (earlier.name == region.name) r.fail("the name is used twice");
        const std::string* type = r.text(m, "type");
        if (!type) r.fail("needs a \"type\": line, polyline or rectangle");
        if (const std::string* s = r.text(m, "sampling")) {
            if (*s != "nearest" && *s != "bilinear")
                r.fail("\"sampling\" must be \"nearest\" or \"bilinear\"");
            region.sampling = *s == "nearest" ? Sampling::Nearest : Sampling::Bilinear;
        }
        if (const std::string* c = r.text(m, "color")) region.color = *c;
        if (*type == "line" || *type == "polyline") {
            region.shape = *type == "line" ? RegionShape::Line : RegionShape::Polyline;
            region.points = r.points(m);
            region.width = r.whole(m, "width", 1);
        } else if (*type == "rectangle") {
            region.shape = RegionShape::Rectangle;
            region.x = r.number(m, "x");
            region.y = r.number(m, "y");
            region.width = r.whole(m, "width", 0);
            region.height = r.whole(m, "height", 0);
        } else {
            r.fail("\"type\" must be line, polyline or rectangle, not '" + *type + "'");
        }
        check_fields(region, r);
        regions.push_back(std::move(region));
    }
    return regions;
}

std::string regions_json(const std::vector<ProfileRegion>& regions) {
    std::string out = "[";
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const ProfileRegion& r = regions[i];
        check_region(r, static_cast<int>(i));
        for (std::size_t j = 0; j < i; ++j)
            if (regions[j].name == r.name)
                throw Error(ErrorCode::InvalidArgument, "region " + std::to_string(i + 1) + " ('" +
                                                            r.name + "'): the name is used twice");
        out += i == 0 ? "\n  " : ",\n  ";
        out += "{\"name\": " + json_quote(r.name) + ", \"type\": \"" + to_string(r.shape) + "\"";
        if (r.shape == RegionShape::Rectangle) {
            out += ", \"x\": " + number_text(r.x) + ", \"y\": " + number_text(r.y) +
                   ", \"width\": " + std::to_string(r.width) +
                   ", \"height\": " + std::to_string(r.height);
        } else {
            out += ", \"points\": [";
            for (std::size_t p = 0; p < r.points.size(); ++p)
                out += (p ? ", [" : "[") + number_text(r.points[p].x) + ", " +
                       number_text(r.points[p].y) + "]";
            out += "], \"width\": " + std::to_string(r.width);
        }
        if (r.sampling)
            out += std::string(", \"sampling\": \"") +
                   (*r.sampling == Sampling::Nearest ? "nearest" : "bilinear") + "\"";
        if (!r.color.empty()) out += ", \"color\": " + json_quote(r.color);
        out += "}";
    }
    return out + (regions.empty() ? "]\n" : "\n]\n");
}

RegionProfile profile_region(const ProfileRegion& region, const ImageView<const float> plane) {
    RegionProfile profile;
    profile.plan = plan_kymograph(plane.width, plane.height, region.params());
    profile.values.resize(static_cast<std::size_t>(profile.plan.positions()));
    KymographSampler sampler(profile.plan);
    sampler.row(plane, profile.values.data());
    return profile;
}

std::string region_profiles_csv(const std::vector<ProfileRegion>& regions,
                                const std::vector<RegionProfile>& profiles,
                                const std::string& header, const PixelSpacing& spacing) {
    std::ostringstream csv;
    csv << std::setprecision(9) << header;
    // The unit's column and its comment only when the pixel size is known, so a file without
    // one reads exactly as before (the line profile's CSV does the same).
    const bool physical = spacing.known();
    if (physical)
        csv << "# pixel spacing: " << spacing.describe() << " (distance_" << spacing.unit
            << ": along the path, measured in " << spacing.unit << ")\n";
    csv << "region,type,position,x,y,distance,"
        << (physical ? "distance_" + spacing.unit + "," : std::string()) << "value\n";
    for (std::size_t r = 0; r < regions.size() && r < profiles.size(); ++r) {
        const RegionProfile& p = profiles[r];
        const std::vector<double> unit =
            physical ? kymograph_distances(p.plan, spacing) : std::vector<double>();
        for (int i = 0; i < p.plan.positions(); ++i) {
            const auto k = static_cast<std::size_t>(i);
            const Point2 at = p.plan.point(i);
            csv << regions[r].name << ',' << to_string(regions[r].shape) << ',' << i << ',' << at.x
                << ',' << at.y << ',' << p.plan.distance[k] << ',';
            if (physical) csv << unit[k] << ',';
            csv << p.values[k] << "\n";
        }
    }
    return csv.str();
}

}  // namespace lacuna::ops
