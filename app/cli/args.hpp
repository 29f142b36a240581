// A small command-line parser for `lacuna <command> [options] [arguments]`: each command declares
// its options as data, so --help text and validation come from one place.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lacuna::cli {

/// A mistake in how the command was called: exit status 2, with a pointer to --help.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct OptionSpec {
    std::string name;        ///< without dashes, e.g. "width"
    std::string value_name;  ///< empty for a flag, e.g. "W"
    std::string help;
};

struct CommandSpec {
    std::string name;
    std::string summary;
    std::string usage;  ///< e.g. "IN OUT [options]"
    std::vector<std::string> positionals;
    std::size_t min_positionals = 0;
    std::size_t max_positionals = 0;
    std::vector<OptionSpec> options;
    std::string details;  ///< extra paragraphs for --help
};

/// Options every command accepts.
const std::vector<OptionSpec>& global_options();

struct ParsedArgs {
    std::vector<std::string> positionals;
    std::map<std::string, std::string> values;  ///< option name → value ("" for flags; the last)
    /// Every value of every option in the order given, for options that may be repeated
    /// (`--mask-key 0:a.png --mask-key 30:b.png`).
    std::map<std::string, std::vector<std::string>> all_values;
    [[nodiscard]] bool has(const std::string& name) const { return values.count(name) != 0; }
    [[nodiscard]] std::optional<std::string> get(const std::string& name) const;
    [[nodiscard]] std::vector<std::string> get_all(const std::string& name) const;
};

/// Parses args (after the command name). Throws UsageError. "--help" is reported as the "help"
/// flag.
ParsedArgs parse_args(const CommandSpec& spec, const std::vector<std::string>& args);

/// The --help text of a command.
std::string help_text(const CommandSpec& spec);

}  // namespace lacuna::cli
