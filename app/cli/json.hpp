// Minimal JSON output for --json: objects with string, number and boolean fields, nested objects
// and arrays of strings. Enough for reports; no parsing.
#pragma once

#include <lacuna/ops/params.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lacuna::cli {

class JsonObject {
  public:
    JsonObject& add(std::string_view key, std::string_view value);
    JsonObject& add(std::string_view key, const char* value) {
        return add(key, std::string_view(value));
    }
    JsonObject& add(std::string_view key, std::int64_t value);
    JsonObject& add(std::string_view key, int value) { return add(key, std::int64_t{value}); }
    JsonObject& add(std::string_view key, std::uint64_t value);
    JsonObject& add(std::string_view key, double value);
    JsonObject& add(std::string_view key, bool value);
    JsonObject& add(std::string_view key, const JsonObject& value);
    JsonObject& add(std::string_view key, const std::vector<std::string>& values);
    JsonObject& add_raw(std::string_view key, std::string_view json);
    [[nodiscard]] std::string str() const { return "{" + body_ + "}"; }

  private:
    void key(std::string_view k);
    std::string body_;
};

std::string json_array(const std::vector<JsonObject>& objects);

/// A declared parameter in a report: its name with '_' for '-' ("sigma-space" → "sigma_space"),
/// a whole number, a number, true/false or the choice's name, as its kind says.
JsonObject& add_param(JsonObject& report, const ops::ParamSpec& spec, double value);

/// Every parameter of a table, read from `params` through its fields, in the table's order.
template <class P>
JsonObject& add_params(JsonObject& report, const P& params,
                       std::span<const ops::ParamField<P>> fields) {
    for (const ops::ParamField<P>& f : fields) add_param(report, f.spec, f.get(params));
    return report;
}

}  // namespace lacuna::cli
