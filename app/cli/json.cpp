#include "json.hpp"

#include <lacuna/core/json_text.hpp>

#include <cmath>
#include <cstdio>

namespace lacuna::cli {

void JsonObject::key(const std::string_view k) {
    if (!body_.empty()) body_ += ",";
    body_ += json_quote(k) + ":";
}

JsonObject& JsonObject::add(const std::string_view k, const std::string_view value) {
    key(k);
    body_ += json_quote(value);
    return *this;
}
JsonObject& JsonObject::add(const std::string_view k, const std::int64_t value) {
    key(k);
    body_ += std::to_string(value);
    return *this;
}
JsonObject& JsonObject::add(const std::string_view k, const std::uint64_t value) {
    key(k);
    body_ += std::to_string(value);
    return *this;
}
JsonObject& JsonObject::add(const std::string_view k, const double value) {
    key(k);
    if (!std::isfinite(value)) {
        body_ += "null";
    } else {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.6g", value);
        body_ += buf;
    }
    return *this;
}
JsonObject& JsonObject::add(const std::string_view k, const bool value) {
    key(k);
    body_ += value ? "true" : "false";
    return *this;
}
JsonObject& JsonObject::add(const std::string_view k, const JsonObject& value) {
    return add_raw(k, value.str());
}
JsonObject& JsonObject::add(const std::string_view k, const std::vector<std::string>& values) {
    std::string arr = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) arr += ',';
        arr += json_quote(values[i]);
    }
    return add_raw(k, arr + "]");
}
JsonObject& JsonObject::add_raw(const std::string_view k, const std::string_view json) {
    key(k);
    body_ += json;
    return *this;
}

std::string json_array(const std::vector<JsonObject>& objects) {
    std::string arr = "[";
    for (std::size_t i = 0; i < objects.size(); ++i) {
        if (i > 0) arr += ',';
        arr += objects[i].str();
    }
    return arr + "]";
}

JsonObject& add_param(JsonObject& report, const ops::ParamSpec& spec, const double value) {
    std::string key(spec.name);
    for (char& c : key)
        if (c == '-') c = '_';
    switch (spec.kind) {
        case ops::ParamKind::Int:
            return report.add(key, static_cast<std::int64_t>(value));
        case ops::ParamKind::Real:
            return report.add(key, value);
        case ops::ParamKind::Bool:
            return report.add(key, value != 0);
        case ops::ParamKind::Choice:
            return report.add(key, ops::format_value(spec, value));
    }
    return report;
}

}  // namespace lacuna::cli
