// lacuna batch: one job (retarget, inpaint, histogram) over many images (retarget and inpaint: and
// video files). A manifest (a folder, or a list file) in; outputs mirrored under the output
// folder; one JSON line per item and a summary.
//
// Each item runs the job's own command in this process (the same code, checks and atomic writes
// as `lacuna retarget` etc.), so a batch item behaves exactly like the single command. Several
// items run at once on each worker: while one is decoded or encoded on the CPU, another's seams
// are found on the GPU. With several CUDA devices, one worker per device: this process works on
// device 0 itself and starts a worker process for each other device (the device made its only
// visible one), so every device has its own streams, pools and pinned staging. The workers claim
// items one at a time from a counter they share, so a worker process that spends its first
// second creating its CUDA context takes fewer items instead of finishing a fixed share a second
// late. This process forwards the workers' JSON lines and reports progress.
//
// Resumable: an item whose output exists and is newer than its inputs is skipped. A failed item
// is reported and the batch goes on. Ctrl-C (SIGINT) or SIGTERM lets the items in flight finish
// (their outputs are written to a temporary name and renamed), starts no new one, and ends with
// the summary; no half-written output is left under a final name.
#include "commands.hpp"
#include "json.hpp"

#include <lacuna/core/backend.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <exception>
#include <optional>
#include <sstream>
#include <thread>

extern char** environ;

namespace lacuna::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

enum class Job { Retarget, Inpaint, Histogram };

Job parse_job(const std::string& name) {
    if (name == "retarget") return Job::Retarget;
    if (name == "inpaint") return Job::Inpaint;
    if (name == "histogram") return Job::Histogram;
    throw UsageError("JOB must be retarget, inpaint or histogram, not '" + name + "'");
}

// ---- stopping on Ctrl-C ----

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
    g_stop.store(true);
}

/// SIGINT and SIGTERM set the stop flag for the batch's lifetime (the previous handlers come
/// back after).
class StopSignals {
  public:
    StopSignals() {
        g_stop.store(false);
        struct sigaction action {};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

  private:
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

// ---- the manifest ----

struct Item {
    fs::path input;
    fs::path relative;  ///< where it goes under the output folder
};

/// An image, or (when `videos`: retarget, inpaint) a video file.
bool looks_like_input(const fs::path& path, const bool videos) {
    if (io::is_video_path(path) && !io::is_image_sequence_pattern(path)) return videos;
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](const unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static const char* const kExtensions[] = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp",
                                              ".bmp", ".ppm", ".pgm",  ".pfm", ".fits", ".fit",
                                              ".fts", ".dcm", ".pbm",  ".pnm"};
    return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                       [&](const char* e) { return ext == e; });
}

/// A folder (every image under it, recursively, in name order) or a list file (one path a line,
/// relative to `base`, by default the list's folder; blank lines and lines starting with # are
/// skipped).
std::vector<Item> read_manifest(const fs::path& input, const std::optional<fs::path>& base_dir,
                                const bool videos) {
    std::vector<Item> items;
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
        for (auto it = fs::recursive_directory_iterator(
                 input, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file(ec) && looks_like_input(it->path(), videos))
                items.push_back({it->path(), fs::relative(it->path(), input, ec)});
        }
        if (ec)
            throw Error(ErrorCode::Unreadable,
                        "cannot list '" + input.string() + "': " + ec.message());
    } else {
        std::ifstream list(input);
        if (!list)
            throw Error(ErrorCode::NotFound,
                        "cannot read '" + input.string() + "': no such folder or list file");
        const fs::path base = base_dir ? *base_dir : input.parent_path();
        std::string line;
        while (std::getline(list, line)) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
            if (line.empty() || line[0] == '#') continue;
            const fs::path path = fs::path(line).is_absolute() ? fs::path(line) : base / line;
            // Absolute entries keep their file name (with their folders under a root-less path).
            items.push_back({path, fs::path(line).is_absolute() ? fs::path(line).relative_path()
                                                                : fs::path(line)});
        }
    }
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return a.relative < b.relative; });
    return items;
}

/// Whether `path` lies in `folder` (compared as absolute, normalised paths; the folder need not
/// exist yet).
bool is_inside(const fs::path& path, const fs::path& folder) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    const fs::path f = fs::weakly_canonical(fs::absolute(folder, ec), ec);
    const auto mismatch = std::mismatch(f.begin(), f.end(), p.begin(), p.end());
    return mismatch.first == f.end() && mismatch.second != p.end();
}

// ---- one item ----

struct Settings {
    Job job = Job::Retarget;
    fs::path output;
    std::optional<fs::path> masks;
    bool force = false;
    std::string backend = "auto";
    std::vector<std::string> forwarded;  ///< the job's own options
};

fs::path output_of(const Settings& s, const Item& item) {
    fs::path out = s.output / item.relative;
    if (s.job == Job::Histogram) out.replace_extension(".csv");
    // Videos are written as MP4 (H.264 where the FFmpeg build has it), whatever they came as.
    else if (io::is_video_path(item.input))
        out.replace_extension(".mp4");
    return out;
}

/// The hole mask of an inpaint item: the same relative path under --masks, or the same name with
/// a .png extension. A video's mask is a mask video of the same name (any video extension: a
/// lossless .mkv keeps a mask's edges) or a still .png for every frame; the first that exists,
/// in that order.
std::optional<fs::path> mask_of(const Settings& s, const Item& item) {
    if (!s.masks) return std::nullopt;
    const fs::path same = *s.masks / item.relative;
    std::error_code ec;
    if (fs::exists(same, ec)) return same;
    fs::path png = same;
    png.replace_extension(".png");
    if (!io::is_video_path(item.input) || fs::exists(png, ec)) return png;
    for (const char* ext : {".mkv", ".mp4", ".avi", ".mov", ".m4v", ".webm"}) {
        fs::path video = same;
        video.replace_extension(ext);
        if (fs::exists(video, ec)) return video;
    }
    return png;  // named in the item's error: the still mask is the common case
}

/// True when `out` exists and is at least as new as every input.
bool up_to_date(const fs::path& out, const std::vector<fs::path>& inputs) {
    std::error_code ec;
    if (!fs::is_regular_file(out, ec)) return false;  // missing, or something else in its place
    const auto out_time = fs::last_write_time(out, ec);
    if (ec) return false;
    for (const fs::path& in : inputs) {
        const auto in_time = fs::last_write_time(in, ec);
        if (ec || in_time > out_time) return false;
    }
    return true;
}

std::string first_error_line(const std::string& err) {
    std::istringstream lines(err);
    std::string line, last;
    while (std::getline(lines, line)) {
        for (const char* prefix : {"lacuna: error: ", "lacuna: usage error: "}) {
            if (line.rfind(prefix, 0) == 0) return line.substr(std::strlen(prefix));
        }
        if (!line.empty()) last = line;
    }
    return last;
}

/// The command's notes ("lacuna: note: …" lines), joined by "; " (empty when none).
std::string notes_of(const std::string& err) {
    constexpr std::string_view prefix = "lacuna: note: ";
    std::istringstream lines(err);
    std::string line, notes;
    while (std::getline(lines, line))
        if (line.rfind(prefix, 0) == 0) {
            if (!notes.empty()) notes += "; ";
            notes += line.substr(prefix.size());
        }
    return notes;
}

struct Outcome {
    enum Status { Ok, Failed, Skipped } status = Ok;
    std::string line;  ///< the JSON line
};

Outcome run_item(const Settings& s, const Item& item, const std::string& device) {
    const fs::path out = output_of(s, item);
    const std::optional<fs::path> mask = s.job == Job::Inpaint ? mask_of(s, item) : std::nullopt;
    JsonObject line;
    line.add("input", item.input.string()).add("output", out.string());
    if (mask) line.add("mask", mask->string());
    std::vector<fs::path> inputs{item.input};
    if (mask) inputs.push_back(*mask);
    if (!s.force && up_to_date(out, inputs)) {
        line.add("status", "skipped").add("reason", "the output is newer than its inputs");
        return {Outcome::Skipped, line.str()};
    }
    const auto start = Clock::now();
    std::vector<std::string> args;
    switch (s.job) {
        case Job::Retarget:
            args = {"retarget", item.input.string(), out.string()};
            break;
        case Job::Inpaint:
            args = {"inpaint", item.input.string(), mask ? mask->string() : std::string(),
                    out.string()};
            break;
        case Job::Histogram:
            args = {"histogram", item.input.string(), "--csv", out.string()};
            break;
    }
    args.insert(args.end(), s.forwarded.begin(), s.forwarded.end());
    // A GPU worker's items run under auto: CUDA while the device works, and the CPU with a note
    // when it fails in the middle of an item, so the item still ends with its result.
    args.insert(args.end(), {"--json", "--backend", s.backend == "cuda" ? "auto" : s.backend});
    std::ostringstream result, err;
    int status = kExitFailure;
    std::error_code ec;
    fs::create_directories(out.parent_path(), ec);
    if (ec) {
        err << "lacuna: error: cannot create the folder '" << out.parent_path().string()
            << "': " << ec.message() << "\n";
    } else if (s.job == Job::Inpaint && !s.masks) {
        err << "lacuna: error: inpaint needs --masks DIR (a hole mask per image or video)\n";
    } else {
        status = run(args, result, err);
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    line.add("device", device).add("ms", ms);
    if (status == kExitOk) {
        line.add("status", "ok");
        std::string json = result.str();
        while (!json.empty() && json.back() == '\n') json.pop_back();
        // The command's own report (sizes, times per stage); the histogram writes its CSV only.
        if (!json.empty() && json.front() == '{' && json.find('\n') == std::string::npos)
            line.add_raw("result", json);
        if (const std::string notes = notes_of(err.str()); !notes.empty()) line.add("notes", notes);
        return {Outcome::Ok, line.str()};
    }
    line.add("status", "failed").add("exit", status).add("error", first_error_line(err.str()));
    return {Outcome::Failed, line.str()};
}

// ---- progress and summary ----

struct Tally {
    std::int64_t total = 0, ok = 0, failed = 0, skipped = 0;
    [[nodiscard]] std::int64_t done() const { return ok + failed + skipped; }
    void count(const Outcome::Status status) {
        (status == Outcome::Ok ? ok : status == Outcome::Failed ? failed : skipped) += 1;
    }
};

Outcome::Status status_of_line(const std::string& line) {
    if (line.find("\"status\":\"ok\"") != std::string::npos) return Outcome::Ok;
    if (line.find("\"status\":\"skipped\"") != std::string::npos) return Outcome::Skipped;
    return Outcome::Failed;
}

class Progress {
  public:
    Progress(std::ostream& err, const std::int64_t total) : err_(err), total_(total) {}
    void report(const Tally& t, const bool last = false) {
        const double s = seconds();
        if (!last && s - last_ < 1.0) return;
        last_ = s;
        const std::int64_t worked = t.ok + t.failed;  // skipped items cost nothing
        const double rate = s > 0 ? worked / s : 0.0;
        err_ << "lacuna: batch: " << t.done() << "/" << total_ << " items (" << t.failed
             << " failed, " << t.skipped << " skipped), " << format(rate) << " images/s";
        if (!last && rate > 0) err_ << ", " << format((total_ - t.done()) / rate) << " s left";
        err_ << "\n";
    }
    [[nodiscard]] double seconds() const {
        return std::chrono::duration<double>(Clock::now() - start_).count();
    }

  private:
    static std::string format(const double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", v);
        return text;
    }
    std::ostream& err_;
    std::int64_t total_;
    Clock::time_point start_ = Clock::now();
    double last_ = 0;
};

std::string summary_line(const Tally& t, const double seconds, const bool interrupted,
                         const std::vector<std::string>& devices) {
    JsonObject summary;
    summary.add("items", t.total)
        .add("ok", t.ok)
        .add("failed", t.failed)
        .add("skipped", t.skipped)
        .add("not_started", t.total - t.done())
        .add("seconds", seconds)
        .add("images_per_s", seconds > 0 ? (t.ok + t.failed) / seconds : 0.0)
        .add("interrupted", interrupted)
        .add("devices", devices);
    return JsonObject().add("summary", summary).str();
}

// ---- one worker: items run on threads of this process ----

/// The next item to start, shared by every worker of a batch (this process's threads and the
/// worker processes): a counter in a memory file the worker processes inherit (--claims FD).
/// Claiming one item at a time balances the devices whatever each one's start-up costs.
class SharedClaims {
  public:
    using Counter = std::atomic<std::uint64_t>;
    static_assert(Counter::is_always_lock_free, "a counter shared between processes");

    /// A new counter at 0 (the batch's own process); its descriptor is inherited by children.
    SharedClaims() {
        fd_ = memfd_create("lacuna-batch-claims", 0);
        if (fd_ < 0 || ftruncate(fd_, sizeof(Counter)) != 0)
            throw Error(ErrorCode::DeviceError,
                        std::string("cannot share the batch's items: ") + std::strerror(errno));
        map();
        new (counter_) Counter(0);
    }
    /// The counter of the batch that started this worker process.
    explicit SharedClaims(const int fd) : fd_(fd), owner_(false) { map(); }
    ~SharedClaims() {
        if (counter_ != nullptr) munmap(counter_, sizeof(Counter));
        if (owner_ && fd_ >= 0) close(fd_);
    }
    SharedClaims(const SharedClaims&) = delete;
    SharedClaims& operator=(const SharedClaims&) = delete;

    [[nodiscard]] std::uint64_t claim() const {
        return counter_->fetch_add(1, std::memory_order_relaxed);
    }
    [[nodiscard]] int fd() const { return fd_; }

  private:
    void map() {
        void* p = mmap(nullptr, sizeof(Counter), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED)
            throw Error(ErrorCode::DeviceError,
                        std::string("cannot share the batch's items: ") + std::strerror(errno));
        counter_ = static_cast<Counter*>(p);
    }
    int fd_ = -1;
    bool owner_ = true;
    Counter* counter_ = nullptr;
};

/// What a worker's threads report into: the lines, the counts and the progress, under one lock
/// (this process's own worker and the forwarded lines of the worker processes share them).
struct Report {
    explicit Report(std::ostream& to, Progress* shown = nullptr) : out(to), progress(shown) {}
    std::ostream& out;
    Progress* progress = nullptr;
    std::mutex mutex;
    Tally tally;
    void line(const std::string& text, const Outcome::Status status) {
        const std::lock_guard lock(mutex);
        out << text << "\n" << std::flush;
        tally.count(status);
        if (progress) progress->report(tally);
    }
};

/// Runs `threads` items at a time, each the item whose index `claim()` returns, until it returns
/// one past the end; each JSON line goes to `report` as soon as its item ends.
template <class Claim>
void run_worker(const Settings& s, const std::vector<Item>& items, Claim&& claim, const int threads,
                const std::string& device, Report& report) {
    const auto work = [&] {
        for (;;) {
            if (g_stop.load()) return;
            const std::uint64_t i = claim();
            if (i >= items.size()) return;
            const Outcome o = run_item(s, items[static_cast<std::size_t>(i)], device);
            report.line(o.line, o.status);
        }
    };
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    pool.clear();  // joins
}

// ---- one worker process per device ----

struct Child {
    pid_t pid = -1;
    int fd = -1;  ///< its stdout
    std::string pending;
};

Child spawn_worker(const std::vector<std::string>& args, const std::string& visible_device) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        throw Error(ErrorCode::DeviceError, "cannot create a pipe for a worker");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    std::vector<std::string> env_text;
    for (char** e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) != 0) env_text.emplace_back(*e);
    env_text.push_back("CUDA_VISIBLE_DEVICES=" + visible_device);
    std::vector<char*> env;
    for (std::string& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> argv_text{"/proc/self/exe"};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (rc != 0) {
        close(pipe_fds[0]);
        throw Error(ErrorCode::DeviceError,
                    std::string("cannot start a worker process: ") + std::strerror(rc));
    }
    return {pid, pipe_fds[0], {}};
}

/// Forwards the children's JSON lines (the summary lines of their own are dropped: this process
/// writes the batch's) and tallies them until every child has exited.
void gather(std::vector<Child>& children, Report& report, bool& worker_failed) {
    std::size_t open = children.size();
    bool forwarded_stop = false;
    std::vector<pollfd> fds;
    std::vector<Child*> owners;
    char buffer[65536];
    while (open > 0) {
        // A stop asked of this process alone (kill, not the terminal's Ctrl-C, which reaches
        // the whole process group) is passed on: the workers finish their items in flight.
        if (g_stop.load() && !forwarded_stop) {
            for (const Child& c : children) kill(c.pid, SIGINT);
            forwarded_stop = true;
        }
        fds.clear();
        owners.clear();
        for (Child& c : children)
            if (c.fd >= 0) {
                fds.push_back({c.fd, POLLIN, 0});
                owners.push_back(&c);
            }
        if (poll(fds.data(), fds.size(), 250) < 0) continue;  // EINTR: look at the stop flag
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            Child& c = *owners[i];
            const ssize_t n = read(c.fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(c.fd);
                c.fd = -1;
                --open;
                continue;
            }
            c.pending.append(buffer, static_cast<std::size_t>(n));
            for (std::size_t end; (end = c.pending.find('\n')) != std::string::npos;) {
                const std::string line = c.pending.substr(0, end);
                c.pending.erase(0, end + 1);
                if (line.rfind("{\"summary\"", 0) == 0 || line.empty()) continue;
                report.line(line, status_of_line(line));
            }
        }
    }
    for (Child& c : children) {
        int status = 0;
        while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) > kExitFailure) worker_failed = true;
    }
}

/// --devices: "all" (every CUDA device, or the CPU without one), "cpu", or a list "0,1".
std::vector<std::string> parse_devices(const std::string& text) {
    if (text == "cpu") return {};
    if (text == "all") {
        std::vector<std::string> all;
        for (int d = 0; d < cuda_device_count(); ++d) all.push_back(std::to_string(d));
        return all;
    }
    std::vector<std::string> list;
    std::stringstream parts(text);
    std::string part;
    const int count = cuda_device_count();
    while (std::getline(parts, part, ',')) {
        char* end = nullptr;
        const long d = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end != '\0' || d < 0)
            throw UsageError("--devices must be all, cpu or a list like 0,1, not '" + text + "'");
        if (d >= count)
            throw Error(ErrorCode::CudaUnavailable, "there is no CUDA device " + part +
                                                        " (this machine has " +
                                                        std::to_string(count) + ")");
        list.push_back(part);
    }
    return list;
}

int parse_positive(const std::string& name, const std::string& text, const int max) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < 1 || v > max)
        throw UsageError("--" + name + " must be a whole number from 1 to " + std::to_string(max));
    return static_cast<int>(v);
}

int run_batch(Context& ctx) {
    Settings s;
    s.job = parse_job(ctx.args.positionals[0]);
    const auto input = ctx.args.get("input");
    const auto output = ctx.args.get("output");
    if (!input || !output) throw UsageError("give --input DIR|LIST and --output DIR");
    s.output = *output;
    if (const auto m = ctx.args.get("masks")) s.masks = fs::path(*m);
    if (s.job == Job::Inpaint && !s.masks)
        throw UsageError(
            "inpaint needs --masks DIR: a hole mask per image or video, same relative path");
    s.force = ctx.args.has("force");
    // The job's own options, passed on to each item's command.
    const std::vector<std::pair<const char*, const char*>> forward = {
        {"width", "width"},
        {"height", "height"},
        {"energy", "energy"},
        {"method", "method"},
        {"patch", "patch"},
        {"seed", "seed"},
        {"from", "from"},
        {"to", "to"},
        {"band", "width"},
        {"bins", "bins"},
        {"range", "range"},
        {"channel", "channel"},
        {"temporal", "temporal"},
        {"temporal-term", "temporal-term"},
        {"approximate", "approximate"},
        {"keep-truncated", "keep-truncated"},
        {"no-audio", "no-audio"},
        {"grow", "grow"},
        {"amount", "amount"},
        {"auto", "auto"},
        {"no-faces", "no-faces"},
        {"face-weight", "face-weight"},
        {"saliency", "saliency"},
        {"saliency-weight", "saliency-weight"},
        {"lines", "lines"},
        {"line-weight", "line-weight"},
        {"skin", "skin"},
        {"skin-weight", "skin-weight"}};
    for (const auto& [option, as] : forward) {
        const auto v = ctx.args.get(option);
        if (!v) continue;
        s.forwarded.push_back(std::string("--") + as);
        if (!v->empty()) s.forwarded.push_back(*v);  // flags have no value
    }
    if (s.job == Job::Histogram && (!ctx.args.has("from") || !ctx.args.has("to")))
        throw UsageError("histogram needs --from x0,y0 --to x1,y1");
    if (s.job == Job::Retarget && !ctx.args.has("width") && !ctx.args.has("height"))
        throw UsageError("retarget needs --width and/or --height (pixels or %)");
    const auto base = ctx.args.get("base");
    std::vector<Item> items = read_manifest(
        *input, base ? std::optional<fs::path>(*base) : std::nullopt, s.job != Job::Histogram);
    // An output folder inside the input folder: its files are this batch's results, not inputs
    // (a rerun would otherwise carve the last run's outputs into a folder inside that one).
    std::erase_if(items, [&](const Item& item) { return is_inside(item.input, s.output); });
    std::error_code ec;
    fs::create_directories(s.output, ec);
    if (ec)
        throw Error(ErrorCode::WriteFailed,
                    "cannot create the output folder '" + s.output.string() + "': " + ec.message());

    const StopSignals signals;
    // Many carves wait on their streams at once: sleeping threads leave the cores to the
    // decoders and encoders (with spinning waits, 16 carves in flight held 16 cores).
    if (ctx.backend != BackendRequest::Cpu) cuda_prefer_blocking_sync();
    // A worker process started by a batch, on the one device it sees (or the CPU): it claims
    // items from the batch's shared counter (--claims), or takes shard K of N (items K, K + N, …).
    if (const auto worker = ctx.args.get("worker")) {
        const auto slash = worker->find('/');
        if (slash == std::string::npos) throw UsageError("--worker must be K/N");
        const int shards = parse_positive("worker", worker->substr(slash + 1), 4096);
        const int shard = std::stoi(worker->substr(0, slash));
        const bool cpu = ctx.backend == BackendRequest::Cpu;
        s.backend = cpu ? "cpu" : "cuda";
        const int threads =
            parse_positive("jobs", ctx.args.get("jobs").value_or(cpu ? "2" : "8"), 64);
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        const std::string device =
            cpu ? std::string("cpu") : std::string("cuda:") + (visible ? visible : "0");
        Report report(ctx.out);
        if (const auto claims = ctx.args.get("claims")) {
            const SharedClaims shared(parse_positive("claims", *claims, 1 << 20));
            run_worker(
                s, items, [&] { return shared.claim(); }, threads, device, report);
        } else {
            std::atomic<std::uint64_t> next{0};
            run_worker(
                s, items,
                [&] {
                    return static_cast<std::uint64_t>(shard) +
                           next.fetch_add(1) * static_cast<std::uint64_t>(shards);
                },
                threads, device, report);
        }
        return kExitOk;
    }

    const std::vector<std::string> devices =
        ctx.backend == BackendRequest::Cpu ? std::vector<std::string>{}
                                           : parse_devices(ctx.args.get("devices").value_or("all"));
    const int cpu_workers = parse_positive("workers", ctx.args.get("workers").value_or("1"), 256);
    // The workers: this process (device 0, or the CPU) and a worker process for every other
    // device (or every other --workers on the CPU). This process works from the first moment
    // (in `lacuna bench batch` its CUDA context is even made already), while a worker process
    // first starts and makes its own context; with the items claimed one at a time, that start
    // costs the batch about half as much as when every device was a process with a fixed share.
    struct Slot {
        std::string visible;  ///< CUDA_VISIBLE_DEVICES for the worker
        std::string backend;
        std::string label;
    };
    std::vector<Slot> slots;
    bool here = true;  ///< this process works on items too
    if (devices.empty()) {
        for (int k = 1; k < cpu_workers; ++k) slots.push_back({"", "cpu", "cpu"});
    } else {
        for (const std::string& d : devices)
            if (d != "0") slots.push_back({d, "cuda", "cuda:" + d});
        here = std::find(devices.begin(), devices.end(), "0") != devices.end();
    }
    // Videos carve their frames side by side on many streams; the workers inherit the setting.
    if (std::any_of(items.begin(), items.end(),
                    [](const auto& item) { return io::is_video_path(item.input); }))
        cuda_prefer_many_queues();
    Progress progress(ctx.err, static_cast<std::int64_t>(items.size()));
    Report report(ctx.out, &progress);
    bool worker_failed = false;
    std::vector<std::string> used;
    // Only worker processes need the counter in shared memory.
    std::optional<SharedClaims> shared;
    if (!slots.empty()) shared.emplace();
    std::atomic<std::uint64_t> local{0};
    std::vector<Child> children;
    if (!slots.empty()) {
        std::vector<std::string> args = ctx.args.positionals;
        for (const auto& [name, value] : ctx.args.values) {
            if (name == "devices" || name == "json" || name == "backend" || name == "workers")
                continue;
            args.push_back("--" + name);
            if (!value.empty()) args.push_back(value);
        }
        // Started first, so their start-up overlaps this process's first items.
        for (std::size_t k = 0; k < slots.size(); ++k) {
            std::vector<std::string> child_args{"batch"};
            child_args.insert(child_args.end(), args.begin(), args.end());
            child_args.insert(child_args.end(),
                              {"--backend", slots[k].backend, "--worker",
                               std::to_string(k) + "/" + std::to_string(slots.size()), "--claims",
                               std::to_string(shared->fd())});
            children.push_back(spawn_worker(child_args, slots[k].visible));
        }
    }
    // The worker processes' lines are forwarded on a thread of their own while this thread
    // works on items.
    std::exception_ptr gather_error;
    std::jthread forwarder;
    if (!children.empty())
        forwarder = std::jthread([&] {
            try {
                gather(children, report, worker_failed);
            } catch (...) {
                gather_error = std::current_exception();
            }
        });
    if (here) {
        // The CPU when asked for (--devices cpu, --backend cpu), otherwise what --backend finds
        // (device 0), with its reason when that is the CPU.
        const bool cpu_asked =
            ctx.backend == BackendRequest::Cpu || ctx.args.get("devices").value_or("all") == "cpu";
        const BackendInfo backend = select_backend(cpu_asked ? BackendRequest::Cpu : ctx.backend);
        s.backend = backend.backend == Backend::Cuda ? "cuda" : "cpu";
        const std::string device = backend.backend == Backend::Cuda ? "cuda:0" : "cpu";
        used.push_back(slots.empty() ? backend.describe() : device);
        const int threads = parse_positive(
            "jobs", ctx.args.get("jobs").value_or(backend.backend == Backend::Cuda ? "8" : "2"),
            64);
        run_worker(
            s, items, [&] { return shared ? shared->claim() : local.fetch_add(1); }, threads,
            device, report);
    }
    for (const Slot& slot : slots) used.push_back(slot.label);
    if (forwarder.joinable()) forwarder.join();
    if (gather_error) std::rethrow_exception(gather_error);
    Tally tally = report.tally;
    tally.total = static_cast<std::int64_t>(items.size());
    progress.report(tally, true);
    ctx.out << summary_line(tally, progress.seconds(), g_stop.load(), used) << "\n" << std::flush;
    if (g_stop.load()) ctx.note("stopped: the items in flight were finished, no new one started");
    if (worker_failed) throw Error(ErrorCode::DeviceError, "a worker process failed");
    return tally.failed > 0 || g_stop.load() ? kExitFailure : kExitOk;
}

}  // namespace

Command batch_command() {
    return {
        {"batch",
         "run retarget, inpaint or histogram over many images (or videos), on every GPU",
         "JOB --input DIR|LIST --output DIR [job options]  (JOB: retarget, inpaint, histogram)",
         {"JOB"},
         1,
         1,
         {{"input", "DIR|LIST", "a folder (every image under it) or a list file (one path a line)"},
          {"output", "DIR", "outputs mirror the inputs' paths here (histogram: .csv)"},
          {"base", "DIR", "a list's paths are relative to DIR (default: the list's folder)"},
          {"devices", "all|cpu|0,1", "CUDA devices, one worker each (default all)"},
          {"jobs", "N", "items at once per worker (default 8 on a GPU, 2 on the CPU)"},
          {"workers", "N", "worker processes on the CPU (default 1; GPUs: one per device)"},
          {"force", "", "redo items whose output is newer than their inputs"},
          {"masks", "DIR",
           "inpaint: hole masks, same relative path (or .png) as each image;\n"
           "                            a video's: a mask video of its name or a still .png"},
          {"grow", "N", "inpaint: grow (or, below 0, shrink) every mask by N pixels"},
          {"width", "W", "retarget: target width, pixels or %"},
          {"height", "H", "retarget: target height, pixels or %"},
          {"energy", "E", "retarget: forward, l1, prewitt, sobel or transversal"},
          {"amount", "P", "retarget: percent of the change made by seams (rest: scaling)"},
          {"auto", "", "retarget: choose crop, seams and scaling per side"},
          {"no-faces", "", "retarget: do not protect detected faces"},
          {"face-weight", "N", "retarget: importance of a face, 0..63"},
          {"saliency", "", "retarget: carve salient objects last"},
          {"saliency-weight", "N", "retarget: importance of salient pixels, 0..63"},
          {"lines", "", "retarget: keep detected straight lines"},
          {"line-weight", "N", "retarget: importance of line pixels, 0..63"},
          {"skin", "", "retarget: carve skin tones last"},
          {"skin-weight", "N", "retarget: importance of skin pixels, 0..63"},
          {"method", "M", "inpaint: patchmatch or criminisi"},
          {"patch", "P", "inpaint: patch size"},
          {"seed", "N", "inpaint: random seed"},
          {"from", "x0,y0", "histogram: line start"},
          {"to", "x1,y1", "histogram: line end"},
          {"band", "W", "histogram: band width across the line"},
          {"bins", "N", "histogram: bin count"},
          {"range", "lo,hi", "histogram: value range of the bins"},
          {"channel", "CH", "histogram: lum, r, g, b, rgb or value"},
          {"temporal", "W", "retarget, videos: temporal weight (default 1)"},
          {"temporal-term", "T", "retarget, videos: seam (default) or removed"},
          {"approximate", "F", "retarget, videos: seams of a 1/F-size copy (2, 4 or 8)"},
          {"keep-truncated", "", "videos: process what a truncated file still has"},
          {"no-audio", "", "videos: write no sound (default: the audio streams are copied)"},
          {"worker", "K/N", "(internal) run shard K of N on the one visible CUDA device"},
          {"claims", "FD", "(internal) a worker claims items from its batch's shared counter"}},
         "Videos (.mp4 .mov .mkv .avi .m4v .webm) are retargeted or inpainted whole and written\n"
         "as MP4 with their audio streams copied (a stream MP4 cannot hold, PCM, is transcoded to\n"
         "AAC, with a note in the item's line).\n"
         "Prints one JSON line per item (input, output, status ok/failed/skipped, device, ms,\n"
         "the command's own report or the error) and a summary line at the end; progress on\n"
         "stderr. Items whose output is newer than their inputs are skipped (resume); a failed\n"
         "item does not stop the batch. Ctrl-C finishes the items in flight and stops. Exit\n"
         "status 1 if any item failed or the batch was stopped."},
        run_batch};
}

}  // namespace lacuna::cli
