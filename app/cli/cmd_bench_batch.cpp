// lacuna bench batch: images per second of `lacuna batch retarget` (1080p to 75 % width by default)
// on the CPU, on one GPU and on every GPU of the host, in one run, with where the time goes
// (decode, carve including its transfers, encode) summed from the items' own reports.
#include "bench_util.hpp"
#include "commands.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>

#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace lacuna::cli {
namespace {

namespace fs = std::filesystem;

/// The number after "key": in a JSON line (0 when absent): the items' reports are flat enough.
double field(const std::string& line, const std::string& key) {
    const std::string needle = "\"" + key + "\":";
    const std::size_t at = line.find(needle);
    return at == std::string::npos ? 0.0 : std::strtod(line.c_str() + at + needle.size(), nullptr);
}

struct Run {
    std::string name;
    int items = 0;
    int ok = 0;
    double seconds = 0;
    double load_ms = 0, carve_ms = 0, write_ms = 0;  ///< sums over the items
    std::string error;
};

Run run_batch_config(const std::string& name, const fs::path& input, const fs::path& output,
                     const std::vector<std::string>& extra) {
    std::error_code ec;
    fs::remove_all(output, ec);
    std::vector<std::string> args{"batch",    "retarget",      "--input", input.string(),
                                  "--output", output.string(), "--width", "75%"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    run(args, out, err);
    Run r;
    r.name = name;
    std::istringstream lines(out.str());
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("{\"summary\"", 0) == 0) {
            r.seconds = field(line, "seconds");
            continue;
        }
        ++r.items;
        if (line.find("\"status\":\"ok\"") == std::string::npos) {
            if (r.error.empty()) r.error = line;
            continue;
        }
        ++r.ok;
        r.load_ms += field(line, "load_ms");
        r.carve_ms += field(line, "carve_ms");
        r.write_ms += field(line, "write_ms");
    }
    if (r.items == 0) r.error = err.str();
    return r;
}

}  // namespace

int bench_batch(Context& ctx) {
    const std::string size = ctx.args.get("size").value_or("1920x1080");
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w < 8 || h < 8)
        throw UsageError("--size must be WxH, like 1920x1080");
    const int count = std::atoi(ctx.args.get("count").value_or("200").c_str());
    const int cpu_count = std::atoi(ctx.args.get("cpu-count").value_or("16").c_str());
    if (count < 1 || cpu_count < 0) throw UsageError("--count must be 1 or more");
    const std::string source_path = LACUNA_SAMPLE_IMAGE_PATH;
    const std::string photo = ctx.args.get("image").value_or(
        fs::exists(source_path) ? source_path : std::string(LACUNA_INSTALLED_SAMPLE_PATH));
    const ImageRgba8 source = io::read_image(photo).image;
    const fs::path dir = make_temp_dir();
    // The inputs: JPEGs (what a catalogue holds), each a different crop and mirror of the photo
    // scaled to the size, so no two items are the same picture.
    const fs::path input = dir / "in", cpu_input = dir / "in-cpu";
    fs::create_directories(input);
    fs::create_directories(cpu_input);
    for (int i = 0; i < count; ++i) {
        const int cw = source.width() * (90 - i % 11) / 100,
                  ch = source.height() * (90 - i % 7) / 100;
        const int x0 = (source.width() - cw) * (i % 5) / 4,
                  y0 = (source.height() - ch) * (i % 3) / 2;
        ImageRgba8 crop =
            clone(sub_view(source.view(), PixelRect{x0, y0, x0 + cw - 1, y0 + ch - 1}));
        ImageRgba8 item = resized(crop, w, h);
        if (i % 2) cv::flip(as_mat(item), as_mat(item), 1);
        char name[32];
        std::snprintf(name, sizeof name, "%04d.jpg", i);
        io::write_image(input / name, item.view());
        if (i < cpu_count) io::write_image(cpu_input / name, item.view());
    }
    const int devices = cuda_device_count();
    ctx.out << "lacuna bench batch: " << count << " JPEGs " << w << "x" << h
            << " retargeted to 75 % width (" << cpu_count << " on the CPU); " << devices
            << " CUDA device(s)\n";
    std::vector<Run> runs;
    if (cpu_count > 0)
        runs.push_back(run_batch_config("CPU (this process, 2 at a time)", cpu_input,
                                        dir / "out-cpu", {"--devices", "cpu"}));
    // Each configuration at each --jobs value: an exact carve keeps one SM busy, so how many
    // items a GPU worker carves at once decides how much of the device it uses.
    std::vector<int> jobs_list;
    {
        std::istringstream list(ctx.args.get("jobs").value_or("3,8"));
        std::string item;
        while (std::getline(list, item, ',')) {
            const int j = std::atoi(item.c_str());
            if (j < 1 || j > 64) throw UsageError("--jobs takes numbers 1 to 64, like 3,12");
            jobs_list.push_back(j);
        }
    }
    for (const int j : jobs_list) {
        const std::string jobs = std::to_string(j);
        if (devices >= 1)
            runs.push_back(run_batch_config("1 GPU, " + jobs + " at a time", input,
                                            dir / ("out-gpu1-" + jobs),
                                            {"--devices", "0", "--jobs", jobs}));
        if (devices >= 2)
            runs.push_back(run_batch_config(
                std::to_string(devices) + " GPUs, " + jobs + " at a time each", input,
                dir / ("out-all-" + jobs), {"--devices", "all", "--jobs", jobs}));
    }
    char line[256];
    std::snprintf(line, sizeof line, "%-34s %6s %8s %9s %9s %9s %9s %8s\n", "configuration",
                  "items", "wall s", "images/s", "decode", "carve*", "encode", "vs 1 GPU");
    ctx.out << line;
    // "vs 1 GPU": against the one-GPU run with the same items at a time.
    const auto one_gpu_rate = [&](const Run& of) {
        const std::string tail = of.name.substr(of.name.find(','));
        for (const Run& r : runs)
            if (r.name.rfind("1 GPU", 0) == 0 && r.seconds > 0 &&
                r.name.substr(r.name.find(',')).rfind(tail.substr(0, tail.find(" each")), 0) == 0)
                return r.ok / r.seconds;
        return 0.0;
    };
    for (const Run& r : runs) {
        const double one_gpu = r.name.find(',') == std::string::npos ? 0.0 : one_gpu_rate(r);
        const double rate = r.seconds > 0 ? r.ok / r.seconds : 0;
        const double n = std::max(1, r.ok);
        std::snprintf(line, sizeof line, "%-34s %6d %8.2f %9.2f %7.1fms %7.1fms %7.1fms %7.2fx\n",
                      r.name.c_str(), r.items, r.seconds, rate, r.load_ms / n, r.carve_ms / n,
                      r.write_ms / n, one_gpu > 0 ? rate / one_gpu : 0.0);
        ctx.out << line;
        if (!r.error.empty()) ctx.out << "  first failure: " << r.error.substr(0, 300) << "\n";
    }
    ctx.out << "decode, carve and encode are means per item (wall time of that stage of one item;\n"
               "items overlap, so they add up to more than the wall time). *carve includes the\n"
               "upload of the image and the download of the result.\n";
    std::error_code ec;
    fs::remove_all(dir, ec);
    return kExitOk;
}

}  // namespace lacuna::cli
