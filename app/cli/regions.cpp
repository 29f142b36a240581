// The regions file: a small JSON reader (objects, arrays, numbers, strings, true, false, null:
// the whole grammar, nothing more) and the regions it describes.
#include "regions.hpp"

#include "json.hpp"

#include <lacuna/core/error.hpp>

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

namespace lacuna::cli {
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
    std::vector<ops::Point2> points(const JsonMap& m) const {
        const auto it = m.find("points");
        const auto* list =
            it == m.end() ? nullptr : std::get_if<std::shared_ptr<JsonArray>>(&it->second.value);
        if (!list) fail("needs \"points\": [[x0, y0], [x1, y1], ...]");
        std::vector<ops::Point2> out;
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

  private:
    const std::string& file_;
    int index_;
    std::string name_;
};

}  // namespace

std::vector<Region> parse_regions(const std::string& text, const std::string& file) {
    const Json doc = Parser(text, file).document();
    const auto* list = std::get_if<std::shared_ptr<JsonArray>>(&doc.value);
    if (!list)
        throw Error(ErrorCode::InvalidArgument, "'" + file + "' must hold a JSON list of regions");
    if ((*list)->empty())
        throw Error(ErrorCode::InvalidArgument, "'" + file + "' lists no regions");
    std::vector<Region> regions;
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
        RegionReader r(file, static_cast<int>(i));
        const auto* object = std::get_if<std::shared_ptr<JsonMap>>(&(**list)[i].value);
        if (!object) r.fail("must be an object with \"name\" and \"type\"");
        const JsonMap& m = **object;
        Region region;
        const auto name = m.find("name");
        if (name == m.end() || !std::get_if<std::string>(&name->second.value))
            r.fail("needs a \"name\" (text)");
        region.name = std::get<std::string>(name->second.value);
        r.set_name(region.name);
        for (const Region& earlier : regions)
            if (earlier.name == region.name) r.fail("the name is used twice");
        const auto type = m.find("type");
        if (type == m.end() || !std::get_if<std::string>(&type->second.value))
            r.fail("needs a \"type\": line, polyline or rectangle");
        region.type = std::get<std::string>(type->second.value);
        if (const auto s = m.find("sampling"); s != m.end()) {
            const auto* text_value = std::get_if<std::string>(&s->second.value);
            if (!text_value || (*text_value != "nearest" && *text_value != "bilinear"))
                r.fail("\"sampling\" must be \"nearest\" or \"bilinear\"");
            region.params.sampling =
                *text_value == "nearest" ? Sampling::Nearest : Sampling::Bilinear;
        }
        if (region.type == "line" || region.type == "polyline") {
            region.params.path = r.points(m);
            if (region.type == "line" && region.params.path.size() != 2)
                r.fail("a line has two points; use \"polyline\" for more");
            if (region.type == "polyline" && region.params.path.size() < 2)
                r.fail("a polyline needs at least two points");
            region.params.band_width = r.whole(m, "width", 1);
            if (region.params.band_width > ops::kMaxBandWidth)
                r.fail("\"width\" must be at most " + std::to_string(ops::kMaxBandWidth));
        } else if (region.type == "rectangle") {
            const double x = r.number(m, "x"), y = r.number(m, "y");
            const int w = r.whole(m, "width", 0), h = r.whole(m, "height", 0);
            if (w < 2) r.fail("a rectangle needs a \"width\" of at least 2 pixels");
            if (h < 1) r.fail("a rectangle needs a \"height\" of at least 1 pixel");
            if (h > ops::kMaxBandWidth)
                r.fail("\"height\" must be at most " + std::to_string(ops::kMaxBandWidth));
            const double cy = y + (h - 1) / 2.0;
            region.params.path = {{x, cy}, {x + w - 1, cy}};
            region.params.band_width = h;
            if (!m.count("sampling")) region.params.sampling = Sampling::Nearest;
        } else {
            r.fail("\"type\" must be line, polyline or rectangle, not '" + region.type + "'");
        }
        regions.push_back(std::move(region));
    }
    return regions;
}

}  // namespace lacuna::cli

namespace lacuna::cli {

std::string region_profiles_csv(const std::vector<Region>& regions,
                                const ImageView<const float> plane, const std::string& header,
                                std::string& json) {
    std::ostringstream csv;
    csv << std::setprecision(9) << header << "region,type,position,x,y,distance,value\n";
    std::vector<JsonObject> summary;
    for (const Region& region : regions) {
        const ops::KymographPlan plan =
            ops::plan_kymograph(plane.width, plane.height, region.params);
        std::vector<float> row(static_cast<std::size_t>(plan.positions()));
        ops::KymographSampler(plan).row(plane, row.data());
        for (int i = 0; i < plan.positions(); ++i) {
            const ops::Point2 at = plan.point(i);
            csv << region.name << ',' << region.type << ',' << i << ',' << at.x << ',' << at.y
                << ',' << plan.distance[static_cast<std::size_t>(i)] << ','
                << row[static_cast<std::size_t>(i)] << "\n";
        }
        summary.push_back(JsonObject()
                              .add("name", region.name)
                              .add("type", region.type)
                              .add("positions", plan.positions())
                              .add("length", plan.length())
                              .add("band_width", plan.band()));
    }
    json = json_array(summary);
    return csv.str();
}

}  // namespace lacuna::cli
