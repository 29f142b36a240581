#include "args.hpp"

#include <algorithm>
#include <sstream>

namespace lacuna::cli {

const std::vector<OptionSpec>& global_options() {
    static const std::vector<OptionSpec> options = {
        {"backend", "auto|cpu|cuda", "device to run on (default auto: CUDA when usable, else CPU)"},
        {"json", "", "print machine-readable JSON on stdout"},
        {"help", "", "show this help"},
    };
    return options;
}

std::optional<std::string> ParsedArgs::get(const std::string& name) const {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> ParsedArgs::get_all(const std::string& name) const {
    const auto it = all_values.find(name);
    return it == all_values.end() ? std::vector<std::string>{} : it->second;
}

namespace {
const OptionSpec* find_option(const CommandSpec& spec, const std::string& name) {
    for (const auto* list : {&spec.options, &global_options()}) {
        const auto it = std::find_if(list->begin(), list->end(),
                                     [&](const OptionSpec& o) { return o.name == name; });
        if (it != list->end()) return &*it;
    }
    return nullptr;
}
}  // namespace

ParsedArgs parse_args(const CommandSpec& spec, const std::vector<std::string>& args) {
    ParsedArgs parsed;
    const std::string where = "'lacuna " + spec.name + "'";
    bool only_positionals = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (only_positionals || arg.size() < 2 || arg.rfind("--", 0) != 0) {
            if (!only_positionals && arg.size() >= 2 && arg[0] == '-' && arg != "-") {
                throw UsageError("unknown option '" + arg + "' for " + where);
            }
            parsed.positionals.push_back(arg);
            continue;
        }
        if (arg == "--") {
            only_positionals = true;
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> value;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
        }
        const OptionSpec* option = find_option(spec, name);
        if (option == nullptr) throw UsageError("unknown option '--" + name + "' for " + where);
        if (option->value_name.empty()) {
            if (value) throw UsageError("option '--" + name + "' takes no value");
            parsed.values[name] = "";
            continue;
        }
        if (!value) {
            if (i + 1 >= args.size()) {
                throw UsageError("option '--" + name + "' needs a value (" + option->value_name +
                                 ")");
            }
            value = args[++i];
        }
        parsed.values[name] = *value;
        parsed.all_values[name].push_back(*value);
    }
    if (parsed.has("help")) return parsed;
    if (parsed.positionals.size() < spec.min_positionals) {
        throw UsageError(where + " needs " + std::to_string(spec.min_positionals) +
                         " argument(s): " + spec.usage);
    }
    if (parsed.positionals.size() > spec.max_positionals) {
        throw UsageError("too many arguments for " + where + ": " + spec.usage);
    }
    return parsed;
}

std::string help_text(const CommandSpec& spec) {
    std::ostringstream out;
    out << "Usage: lacuna " << spec.name << ' ' << spec.usage << "\n\n" << spec.summary << "\n";
    const auto print = [&](const std::vector<OptionSpec>& options) {
        for (const OptionSpec& o : options) {
            std::string left = "  --" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
            if (left.size() < 28)
                left.resize(28, ' ');
            else
                left += "\n" + std::string(28, ' ');
            out << left << o.help << "\n";
        }
    };
    if (!spec.options.empty()) {
        out << "\nOptions:\n";
        print(spec.options);
    }
    out << "\nCommon options:\n";
    print(global_options());
    if (!spec.details.empty()) out << "\n" << spec.details << "\n";
    return out.str();
}

}  // namespace lacuna::cli
