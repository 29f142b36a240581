// lacuna bench startup: what a user waits for before any work, measured as whole processes of
// this very executable (issue 37's first rows): `--version`, `backend` (driver, context, the
// device probe), and one small object removal (the bundled sample scaled to 512 × 512, a disc of
// about 7 200 pixels) under --backend auto, cpu and, where the device works, cuda. The runs are
// interleaved, so a change in the machine's load touches every row alike.
#include "bench_util.hpp"
#include "commands.hpp"
#include "options.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/io/image_io.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace lacuna::cli {
namespace {

struct StartupRow {
    std::string name;
    std::string command;
    std::vector<double> ms;
};

/// The path for a shell command line (temporary and executable paths hold no single quote).
std::string quoted(const std::filesystem::path& p) {
    std::ostringstream text;
    text << std::quoted(p.string(), '\'');
    return text.str();
}

}  // namespace

int bench_startup(Context& ctx) {
    const int repeats = parse_int("repeats", ctx.args.get("repeats").value_or("5"));
    if (repeats < 1) throw UsageError("--repeats must be at least 1");
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
    const std::filesystem::path dir = make_temp_dir();
    const ImageRgba8 photo = resized(
        io::read_image(ctx.args.get("image").value_or(default_sample_path())).image, 512, 512);
    Mask hole(512, 512, std::uint8_t{0});
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 512; ++x)
            if ((x - 300) * (x - 300) + (y - 260) * (y - 260) < 48 * 48) hole.at(x, y) = 255;
    io::write_image(dir / "photo.png", photo.view());
    io::write_image(dir / "mask.png", mask_as_image(hole).view());
    const std::string inpaint = quoted(self) + " inpaint " + quoted(dir / "photo.png") + " " +
                                quoted(dir / "mask.png") + " " + quoted(dir / "out.png") +
                                " --backend ";

    std::vector<StartupRow> rows = {{"lacuna --version", quoted(self) + " --version", {}},
                                    {"lacuna backend", quoted(self) + " backend", {}},
                                    {"inpaint 512x512, --backend auto", inpaint + "auto", {}},
                                    {"inpaint 512x512, --backend cpu", inpaint + "cpu", {}}};
    const BackendInfo backend = select_backend(BackendRequest::Auto);
    if (backend.backend == Backend::Cuda)
        rows.push_back({"inpaint 512x512, --backend cuda", inpaint + "cuda", {}});
    for (int r = 0; r < repeats; ++r)
        for (StartupRow& row : rows) row.ms.push_back(time_command(row.command));
    std::filesystem::remove_all(dir);

    char line[256];
    std::snprintf(line, sizeof line,
                  "lacuna bench startup: whole processes of %s, %d interleaved runs each; %s; "
                  "inpaint: %lld hole pixels\n",
                  self.string().c_str(), repeats,
                  backend.backend == Backend::Cuda ? backend.describe().c_str()
                                                   : ("CPU: " + backend.reason).c_str(),
                  static_cast<long long>(count_selected(hole.view())));
    ctx.out << line;
    std::snprintf(line, sizeof line, "%-34s %10s %10s %10s\n", "process", "median ms", "min ms",
                  "max ms");
    ctx.out << line;
    for (StartupRow& row : rows) {
        if (std::any_of(row.ms.begin(), row.ms.end(), [](double v) { return v < 0; })) {
            ctx.out << row.name << ": FAILED (" << row.command << ")\n";
            continue;
        }
        std::sort(row.ms.begin(), row.ms.end());
        std::snprintf(line, sizeof line, "%-34s %10.1f %10.1f %10.1f\n", row.name.c_str(),
                      row.ms[row.ms.size() / 2], row.ms.front(), row.ms.back());
        ctx.out << line;
    }
    return kExitOk;
}

}  // namespace lacuna::cli
