// Finds and loads liblacuna_opencv.so (opencv_plugin.hpp says why it is a plugin).
#include <lacuna/io/opencv_plugin.hpp>

#include <lacuna/core/error.hpp>

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lacuna::io {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPluginFile = "liblacuna_opencv.so";
std::atomic<bool> loaded{false};

// The file this code was linked into: the program, or the Python module.
fs::path containing_object_folder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&opencv_plugin), &info) == 0 ||
        info.dli_fname == nullptr)
        return {};
    std::error_code ec;
    const fs::path object = fs::canonical(info.dli_fname, ec);
    return ec ? fs::path() : object.parent_path();
}

// Where the plugin may be, first match wins: the folder the user names; beside an installed
// program or Python module (relative, so an unpacked package works wherever it lies); a build
// tree's lib/ above the program (tests and a copied build folder); the configured install folder.
std::vector<fs::path> candidates() {
    std::vector<fs::path> out;
    if (const char* dir = std::getenv("LACUNA_PLUGIN_DIR"); dir != nullptr && *dir != '\0')
        out.push_back(fs::path(dir) / kPluginFile);
    if (const fs::path here = containing_object_folder(); !here.empty()) {
        out.push_back(here / LACUNA_PLUGIN_FROM_BINDIR / kPluginFile);
        out.push_back(here / LACUNA_PLUGIN_FROM_PYTHONDIR / kPluginFile);
        fs::path up = here;
        for (int level = 0; level < 5 && !up.empty(); ++level) {
            out.push_back(up / "lib" / kPluginFile);
            if (up == up.parent_path()) break;
            up = up.parent_path();
        }
    }
    out.push_back(fs::path(LACUNA_PLUGIN_INSTALL_DIR) / kPluginFile);
    return out;
}

const OpenCvPlugin& load() {
    std::string tried;
    std::string load_error;
    for (const fs::path& candidate : candidates()) {
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) {
            tried += (tried.empty() ? "" : ", ") + candidate.lexically_normal().string();
            continue;
        }
        // Never closed: the plugin's objects (readers, writers) may live until the process ends.
        void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = dlerror();
            load_error = candidate.string() + ": " + (why != nullptr ? why : "dlopen failed");
            continue;
        }
        using Entry = const OpenCvPlugin* (*)();
        const auto entry = reinterpret_cast<Entry>(dlsym(handle, "lacuna_opencv_plugin"));
        if (entry == nullptr) {
            load_error = candidate.string() + " has no lacuna_opencv_plugin entry";
            continue;
        }
        loaded = true;
        return *entry();
    }
    throw Error(ErrorCode::UnsupportedFormat,
                "video files, image sequences, BMP and Netpbm need Lacuna's OpenCV plugin (" +
                    std::string(kPluginFile) + "), which " +
                    (load_error.empty() ? "was not found (looked in " + tried + ")"
                                        : "could not be loaded: " + load_error) +
                    "; reinstall lacuna");
}

}  // namespace

const OpenCvPlugin& opencv_plugin() {
    static const OpenCvPlugin& plugin = load();
    return plugin;
}

bool opencv_plugin_loaded() noexcept {
    return loaded;
}

}  // namespace lacuna::io
