#include "recovery.hpp"

#include "remove_object_tool.hpp"
#include "retarget_tool.hpp"

#include <lacuna/ops/params.hpp>

#include <zlib.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
#include <tuple>

namespace lacuna::session {
namespace fs = std::filesystem;

namespace {

// ---- the file format ----------------------------------------------------------------------
//
// "LACUNArc", u32 version, u32 reserved; then sections until 'END ': u32 tag, u64 payload
// length, u32 CRC-32 of the payload, the payload. Little-endian (the machines Lacuna runs on);
// a file from another byte order fails its magic. Images are stored as dense rows; a blob is
// u8 method (0 raw, 1 deflate), u64 raw size, then the bytes.
//
// Version 2 keeps the tool state as versioned name=value text (lacuna/ops/params.hpp's settings
// format: the declared parameters by their declared names, the rest by names below), so a tool
// setting can be added or renamed without a new file version. Version 1 kept it as a fixed
// byte layout with enum counts baked in; such files still load (get_tools_v1), and
// tests/data/recovery/v1-photo.recovery keeps one to prove it.

constexpr char kMagic[8] = {'L', 'A', 'C', 'U', 'N', 'A', 'r', 'c'};
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kOldestVersion = 1;

constexpr std::uint32_t tag(const char (&t)[5]) {
    return std::uint32_t(std::uint8_t(t[0])) | std::uint32_t(std::uint8_t(t[1])) << 8 |
           std::uint32_t(std::uint8_t(t[2])) << 16 | std::uint32_t(std::uint8_t(t[3])) << 24;
}
constexpr std::uint32_t kHead = tag("HEAD"), kPixels = tag("PIXL"), kPage = tag("PAGE"),
                        kCalibration = tag("CALB"), kMask = tag("MASK"), kMeta = tag("META"),
                        kTools = tag("TOOL"), kEnd = tag("END ");

std::string tag_name(const std::uint32_t t) {
    std::string s(4, ' ');
    for (int i = 0; i < 4; ++i) {
        const char c = static_cast<char>((t >> (8 * i)) & 0xff);
        s[std::size_t(i)] = (c >= 32 && c < 127) ? c : '?';
    }
    return s;
}

std::string quoted(const fs::path& path) {
    return "\"" + path.string() + "\"";
}

Error damaged(const fs::path& path, const std::string& why) {
    return Error(ErrorCode::Corrupt, "the recovery file " + quoted(path) + " is damaged: " + why);
}

class ByteWriter {
  public:
    template <class T>
    void put(const T value) {
        const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
        bytes_.insert(bytes_.end(), p, p + sizeof(T));
    }
    void put_bytes(std::span<const std::uint8_t> data) {
        put<std::uint64_t>(data.size());
        bytes_.insert(bytes_.end(), data.begin(), data.end());
    }
    void put_string(const std::string& s) {
        put_bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
    }
    void append(std::span<const std::uint8_t> data) {
        bytes_.insert(bytes_.end(), data.begin(), data.end());
    }
    [[nodiscard]] std::vector<std::uint8_t>& bytes() { return bytes_; }

  private:
    std::vector<std::uint8_t> bytes_;
};

// Reads a section's payload; every read is bounds-checked, so a damaged length cannot read
// beyond it.
class ByteReader {
  public:
    ByteReader(std::span<const std::uint8_t> data, const fs::path& path, std::string section)
        : data_(data), path_(path), section_(std::move(section)) {}
    template <class T>
    T get() {
        need(sizeof(T));
        T value;
        std::memcpy(&value, data_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return value;
    }
    std::vector<std::uint8_t> get_bytes() {
        const auto n = get<std::uint64_t>();
        need(n);
        std::vector<std::uint8_t> out(data_.begin() + std::ptrdiff_t(pos_),
                                      data_.begin() + std::ptrdiff_t(pos_ + n));
        pos_ += n;
        return out;
    }
    std::string get_string() {
        const std::vector<std::uint8_t> b = get_bytes();
        return {b.begin(), b.end()};
    }
    std::span<const std::uint8_t> rest() {
        const auto r = data_.subspan(pos_);
        pos_ = data_.size();
        return r;
    }
    /// An enum stored as u8 with `count` values.
    template <class E>
    E get_enum(const int count, const char* what) {
        const auto v = get<std::uint8_t>();
        if (v >= count) fail(std::string("unknown ") + what + " " + std::to_string(v));
        return static_cast<E>(v);
    }
    [[noreturn]] void fail(const std::string& why) const {
        throw damaged(path_, why + " in section '" + section_ + "'");
    }

  private:
    void need(const std::uint64_t n) const {
        if (n > data_.size() - pos_) fail("a value runs past the end of its section");
    }
    std::span<const std::uint8_t> data_;
    std::size_t pos_ = 0;
    const fs::path& path_;
    std::string section_;
};

// ---- images as blobs ------------------------------------------------------------------------

enum class Method : std::uint8_t { Raw = 0, Deflate = 1 };

std::vector<std::uint8_t> dense_rows(const std::byte* first_row, const std::size_t pitch,
                                     const std::size_t row_bytes, const int height) {
    std::vector<std::uint8_t> out(row_bytes * std::size_t(height));
    for (int y = 0; y < height; ++y)
        std::memcpy(out.data() + row_bytes * std::size_t(y), first_row + pitch * std::size_t(y),
                    row_bytes);
    return out;
}

void put_blob(ByteWriter& w, const std::vector<std::uint8_t>& raw, const bool deflate) {
    w.put<std::uint8_t>(std::uint8_t(deflate ? Method::Deflate : Method::Raw));
    w.put<std::uint64_t>(raw.size());
    if (!deflate) {
        w.append(raw);
        return;
    }
    uLongf size = compressBound(uLong(raw.size()));
    std::vector<std::uint8_t> packed(size);
    // Level 1: masks shrink to almost nothing at any level, and photos gain little from more.
    if (compress2(packed.data(), &size, raw.data(), uLong(raw.size()), Z_BEST_SPEED) != Z_OK)
        throw Error(ErrorCode::OutOfMemory, "cannot compress the recovery data");
    packed.resize(size);
    w.append(packed);
}

std::vector<std::uint8_t> get_blob(ByteReader& r, const std::size_t expected) {
    const auto method = r.get_enum<Method>(2, "compression method");
    const auto size = r.get<std::uint64_t>();
    if (size != expected)
        r.fail("the image data holds " + std::to_string(size) + " bytes where " +
               std::to_string(expected) + " belong");
    const std::span<const std::uint8_t> data = r.rest();
    if (method == Method::Raw) {
        if (data.size() != size) r.fail("the image data has the wrong length");
        return {data.begin(), data.end()};
    }
    std::vector<std::uint8_t> out(size);
    uLongf out_size = uLongf(size);
    if (uncompress(out.data(), &out_size, data.data(), uLong(data.size())) != Z_OK ||
        out_size != size)
        r.fail("the compressed image data does not inflate");
    return out;
}

template <class T>
std::vector<std::uint8_t> dense(const Image<T>& image) {
    return dense_rows(reinterpret_cast<const std::byte*>(image.row(0)), image.pitch(),
                      sizeof(T) * std::size_t(image.width()), image.height());
}

template <class T>
void fill_rows(Image<T>& image, const std::vector<std::uint8_t>& rows) {
    const std::size_t row_bytes = sizeof(T) * std::size_t(image.width());
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(image.row(y), rows.data() + row_bytes * std::size_t(y), row_bytes);
}

// ---- sections -------------------------------------------------------------------------------

// Version 1's tool section: a fixed byte layout.
ToolState get_tools_v1(ByteReader& r) {
    ToolState t;
    t.active = r.get_enum<ToolKind>(4, "tool");
    t.brush.radius = r.get<double>();
    t.brush.hardness = r.get<double>();
    t.brush.erase = r.get<std::uint8_t>() != 0;
    t.removal_layer = r.get_enum<MaskLayer>(kMaskLayers, "mask layer");
    t.fill.patch = r.get<std::int32_t>();
    t.fill.search = r.get_enum<ops::InpaintSearch>(2, "search area");
    t.fill.window_factor = r.get<double>();
    t.fill.coherence = r.get<std::uint8_t>() != 0;
    t.fill.method = r.get_enum<ops::InpaintMethod>(2, "fill method");
    t.fill.seed = r.get<std::uint32_t>();
    t.retarget_width = r.get<std::int32_t>();
    t.retarget_height = r.get<std::int32_t>();
    t.energy = r.get_enum<SeamEnergy>(4, "seam energy");
    t.show_seams = r.get<std::uint8_t>() != 0;
    t.has_line = r.get<std::uint8_t>() != 0;
    t.line_from.x = r.get<double>();
    t.line_from.y = r.get<double>();
    t.line_to.x = r.get<double>();
    t.line_to.y = r.get<double>();
    t.line_band = r.get<std::int32_t>();
    t.line_bins = r.get<std::int32_t>();
    t.range_mode = r.get_enum<LineTool::RangeMode>(3, "histogram range");
    t.typed_range.first = r.get<double>();
    t.typed_range.second = r.get<double>();
    const auto n = r.get<std::uint32_t>();
    if (n > 16) r.fail("too many histogram channels");
    t.channels.clear();
    for (std::uint32_t i = 0; i < n; ++i)
        t.channels.push_back(r.get_enum<ops::HistogramChannel>(6, "histogram channel"));
    return t;
}

// Version 2's tool section: name=value text. Enumerations are written by name, so a tool or
// channel added later does not shift the meaning of what older files say.
constexpr std::array<std::string_view, 6> kToolNames = {"pan", "remove-object", "retarget",
                                                        "line-histogram", "filter", "regions"};
constexpr std::array<std::string_view, kMaskLayers> kLayerNames = {"fill", "protect",
                                                                   "carve-remove", "never-sample"};
constexpr std::array<std::string_view, 3> kRangeNames = {"image", "line", "typed"};
constexpr std::array<std::string_view, 2> kSearchNames = {"window", "full"};

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& names, const std::string& text,
             const char* what) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == text) return static_cast<int>(i);
    throw Error(ErrorCode::InvalidArgument, std::string("unknown ") + what + " '" + text + "'");
}

std::string exact(const double v) {
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof text, v);
    return error == std::errc{} ? std::string(text, end) : std::to_string(v);
}

double real_of(const std::string& text) {
    double v = 0;
    const char* const end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, v);
    if (text.empty() || error != std::errc{} || stop != end || !std::isfinite(v))
        throw Error(ErrorCode::InvalidArgument, "'" + text + "' is not a number");
    return v;
}

int int_of(const std::string& text) {
    int v = 0;
    const char* const end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, v);
    if (text.empty() || error != std::errc{} || stop != end)
        throw Error(ErrorCode::InvalidArgument, "'" + text + "' is not a whole number");
    return v;
}

std::pair<double, double> pair_of(const std::string& text) {
    const std::size_t comma = text.find(',');
    if (comma == std::string::npos)
        throw Error(ErrorCode::InvalidArgument, "'" + text + "' is not two numbers");
    return {real_of(text.substr(0, comma)), real_of(text.substr(comma + 1))};
}

bool on_off(const std::string& text) {
    if (text == "on") return true;
    if (text == "off") return false;
    throw Error(ErrorCode::InvalidArgument, "'" + text + "' is not on or off");
}

std::string tools_text(const ToolState& t) {
    std::string out = "version=" + std::to_string(ops::kSettingsVersion) + "\n";
    const auto line = [&](const std::string_view name, const std::string& value) {
        out.append(name);
        out += '=';
        out += value;
        out += '\n';
    };
    line("tool", std::string(kToolNames[std::size_t(t.active)]));
    ops::append_settings(out, "brush.", t.brush, ops::brush_param_fields());
    line("brush.erase", t.brush.erase ? "on" : "off");
    line("layer", std::string(kLayerNames[std::size_t(t.removal_layer)]));
    ops::append_settings(out, "fill.", t.fill, ops::inpaint_param_fields());
    line("fill.search", std::string(kSearchNames[std::size_t(t.fill.search)]));
    ops::RetargetParams retarget;
    retarget.energy = t.energy;
    ops::append_settings(out, "retarget.", retarget, ops::seam_param_fields());
    ops::append_settings(out, "retarget.", t.retarget_mix, ops::retarget_mix_param_fields());
    line("retarget.width", std::to_string(t.retarget_width));
    line("retarget.height", std::to_string(t.retarget_height));
    line("retarget.show-seams", t.show_seams ? "on" : "off");
    ops::LineHistogramParams histogram;
    histogram.band_width = t.line_band;
    histogram.bins = t.line_bins;
    ops::append_settings(out, "line.", histogram, ops::line_histogram_param_fields());
    line("line.drawn", t.has_line ? "on" : "off");
    line("line.from", exact(t.line_from.x) + "," + exact(t.line_from.y));
    line("line.to", exact(t.line_to.x) + "," + exact(t.line_to.y));
    line("line.range", std::string(kRangeNames[std::size_t(t.range_mode)]));
    line("line.typed-range", exact(t.typed_range.first) + "," + exact(t.typed_range.second));
    std::string channels;
    for (const ops::HistogramChannel c : t.channels)
        channels += (channels.empty() ? "" : ",") + ops::to_string(c);
    line("line.channels", channels);
    if (t.spacing.known()) {
        line("scale.pixel-width", exact(t.spacing.x));
        line("scale.pixel-height", exact(t.spacing.y));
        line("scale.unit", t.spacing.unit);
    }
    return out;
}

// Reads a version-2 tool section. A name this version does not know (a newer writer's setting)
// and a value a setting refuses are skipped, keeping that setting's default: the document is
// what recovery is for, and a tool setting never costs it. (The section's CRC catches damage.)
ToolState tools_from_text(const std::string& text) {
    ToolState t;
    ops::RetargetParams retarget;
    ops::LineHistogramParams histogram;
    histogram.band_width = t.line_band;
    histogram.bins = t.line_bins;
    int version = 0;
    for (const ops::SettingsLine& l : ops::split_settings(text, version)) {
        try {
            const std::string_view name = l.name;
            const auto under = [&](const std::string_view prefix) {
                return name.substr(0, prefix.size()) == prefix ? name.substr(prefix.size())
                                                               : std::string_view{};
            };
            if (name == "tool")
                t.active = static_cast<ToolKind>(index_of(kToolNames, l.value, "tool"));
            else if (name == "brush.erase")
                t.brush.erase = on_off(l.value);
            else if (name == "layer")
                t.removal_layer =
                    static_cast<MaskLayer>(index_of(kLayerNames, l.value, "mask layer"));
            else if (name == "fill.search")
                t.fill.search =
                    static_cast<ops::InpaintSearch>(index_of(kSearchNames, l.value, "search area"));
            else if (name == "retarget.width")
                t.retarget_width = int_of(l.value);
            else if (name == "retarget.height")
                t.retarget_height = int_of(l.value);
            else if (name == "retarget.show-seams")
                t.show_seams = on_off(l.value);
            else if (name == "line.drawn")
                t.has_line = on_off(l.value);
            else if (name == "line.from")
                std::tie(t.line_from.x, t.line_from.y) = pair_of(l.value);
            else if (name == "line.to")
                std::tie(t.line_to.x, t.line_to.y) = pair_of(l.value);
            else if (name == "line.range")
                t.range_mode = static_cast<LineTool::RangeMode>(
                    index_of(kRangeNames, l.value, "histogram range"));
            else if (name == "line.typed-range")
                t.typed_range = pair_of(l.value);
            else if (name == "scale.pixel-width")
                t.spacing.x = real_of(l.value);
            else if (name == "scale.pixel-height")
                t.spacing.y = real_of(l.value);
            else if (name == "scale.unit")
                t.spacing.unit = l.value;
            else if (name == "line.channels") {
                std::vector<ops::HistogramChannel> channels;
                std::size_t start = 0;
                while (start <= l.value.size() && !l.value.empty()) {
                    std::size_t end = l.value.find(',', start);
                    if (end == std::string::npos) end = l.value.size();
                    const std::string one = l.value.substr(start, end - start);
                    const auto c = ops::parse_histogram_channel(one);
                    if (!c)
                        throw Error(ErrorCode::InvalidArgument,
                                    "unknown histogram channel '" + one + "'");
                    channels.push_back(*c);
                    start = end + 1;
                }
                if (!channels.empty()) t.channels = std::move(channels);
            } else if (!under("brush.").empty())
                (void)ops::apply_setting(ops::brush_param_fields(), t.brush, under("brush."),
                                         l.value);
            else if (!under("fill.").empty())
                (void)ops::apply_setting(ops::inpaint_param_fields(), t.fill, under("fill."),
                                         l.value);
            else if (!under("retarget.").empty()) {
                // The energy (the seam table), or the mix and importance terms.
                if (!ops::apply_setting(ops::seam_param_fields(), retarget, under("retarget."),
                                        l.value))
                    (void)ops::apply_setting(ops::retarget_mix_param_fields(), t.retarget_mix,
                                             under("retarget."), l.value);
            } else if (!under("line.").empty())
                (void)ops::apply_setting(ops::line_histogram_param_fields(), histogram,
                                         under("line."), l.value);
        } catch (const Error&) {
            // skipped: see above
        }
    }
    t.energy = retarget.energy;
    t.line_band = histogram.band_width;
    t.line_bins = histogram.bins;
    if (!t.spacing.known()) t.spacing = {};  // a part missing or refused: none
    return t;
}

std::vector<std::uint8_t> tool_bytes(const ToolState& tools) {
    const std::string text = tools_text(tools);
    return {text.begin(), text.end()};
}

// ---- writing --------------------------------------------------------------------------------

// A temporary file next to the target that is removed unless committed: no half-written file
// is ever left under the recovery file's name, nor beside it.
class TempFile {
  public:
    explicit TempFile(const fs::path& target) : target_(target) {
        std::string name = ".";
        name += target.filename().string();
        name += ".tmp-XXXXXX";
        temp_ = (target.parent_path() / name).string();
        fd_ = ::mkstemp(temp_.data());
        if (fd_ < 0) fail(errno);
        ::fchmod(fd_, 0600);  // the user's pictures: nobody else reads them
    }
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(temp_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    void write(std::span<const std::uint8_t> bytes) {
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail(n < 0 ? errno : ENOSPC);
            done += std::size_t(n);
        }
        written_ += bytes.size();
    }
    [[nodiscard]] std::size_t written() const { return written_; }
    void commit() {
        if (::fsync(fd_) != 0) fail(errno);
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) fail(errno);
        if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail(errno);
        committed_ = true;
        // The rename itself reaches the disk with the directory.
        const int dir = ::open(target_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir >= 0) {
            ::fsync(dir);
            ::close(dir);
        }
    }
    [[nodiscard]] const std::string& temp_path() const { return temp_; }

  private:
    [[noreturn]] void fail(const int err) const {
        throw Error(ErrorCode::WriteFailed, "cannot write the recovery file " + quoted(target_) +
                                                ": " + std::strerror(err));
    }
    fs::path target_;
    std::string temp_;
    int fd_ = -1;
    bool committed_ = false;
    std::size_t written_ = 0;
};

// crc32 takes uInt lengths: checksum larger payloads piecewise.
std::uint32_t crc_of(std::span<const std::uint8_t> data) {
    uLong crc = crc32(0L, Z_NULL, 0);
    constexpr std::size_t kChunk = std::size_t{1} << 30;
    for (std::size_t off = 0; off < data.size(); off += kChunk) {
        const std::size_t n = std::min(kChunk, data.size() - off);
        crc = crc32(crc, data.data() + off, static_cast<uInt>(n));
    }
    return std::uint32_t(crc);
}

void write_section(TempFile& file, const std::uint32_t t, std::vector<std::uint8_t>& payload,
                   const RecoveryLimits& limits, const fs::path& path) {
    const std::size_t after = file.written() + 16 + payload.size();
    if (after > limits.max_file_bytes)
        throw Error(ErrorCode::TooLarge,
                    "the document needs more than " + std::to_string(limits.max_file_bytes >> 20) +
                        " MB, the recovery file's limit, so it is not autosaved (" +
                        path.filename().string() + ")");
    ByteWriter head;
    head.put<std::uint32_t>(t);
    head.put<std::uint64_t>(payload.size());
    head.put<std::uint32_t>(crc_of(payload));
    file.write(head.bytes());
    file.write(payload);
    payload.clear();
    payload.shrink_to_fit();
}

}  // namespace

// ---- the snapshot ---------------------------------------------------------------------------

int RecoverySnapshot::width() const {
    return measurement() ? pages.front().width() : pixels.width();
}
int RecoverySnapshot::height() const {
    return measurement() ? pages.front().height() : pixels.height();
}

std::size_t RecoverySnapshot::raw_bytes() const {
    std::size_t n = pixels.pitch() * std::size_t(pixels.height());
    for (const NativeImage& p : pages) n += p.row_bytes() * std::size_t(p.height());
    for (const Mask& m : masks) n += std::size_t(m.width()) * std::size_t(m.height());
    return n;
}

ToolState tool_state(const Session& session) {
    auto& mutable_session = const_cast<Session&>(session);  // the tools' getters are non-const
    const RemoveObjectTool& removal = mutable_session.remove_object();
    const RetargetTool& retarget = mutable_session.retarget();
    const LineTool& line = mutable_session.line();
    ToolState t;
    t.active = session.active_kind();
    t.brush = removal.brush();
    t.removal_layer = removal.layer();
    t.fill = removal.fill_params();
    t.fill.never_sample = nullptr;
    t.retarget_width = retarget.target_width();
    t.retarget_height = retarget.target_height();
    t.energy = retarget.energy();
    t.retarget_mix = retarget.mix();
    t.show_seams = retarget.show_seams();
    t.has_line = line.has_line();
    t.line_from = line.from();
    t.line_to = line.to();
    t.line_band = line.band();
    t.line_bins = line.bins();
    t.range_mode = line.range_mode();
    t.typed_range = line.typed_range();
    t.channels = line.channels();
    t.spacing = session.document().spacing();
    return t;
}

RecoverySnapshot take_snapshot(const Session& session, std::string document_path) {
    const Document& document = session.document();
    if (document.empty()) throw Error(ErrorCode::InvalidArgument, "there is no document to save");
    RecoverySnapshot s;
    if (document.measurement()) {
        // The shown page as edited; a stack's other pages as they are.
        s.pages = session.pages().size() > 1 ? session.pages()
                                             : std::vector<NativeImage>{document.samples()};
        s.page = std::clamp(session.page(), 0, int(s.pages.size()) - 1);
        s.pages[std::size_t(s.page)] = document.samples();
        s.calibration = document.calibration();
        s.display = session.display();
    } else {
        s.pixels = clone(document.pixels().view());
    }
    // Unpainted masks stay empty: no copy on this (the GUI) thread, zeros in the file.
    for (int i = 0; i < kMaskLayers; ++i)
        if (document.mask_painted(static_cast<MaskLayer>(i)))
            s.masks[std::size_t(i)] = clone(document.mask(static_cast<MaskLayer>(i)).view());
    s.metadata = session.metadata();
    s.document_path = std::move(document_path);
    if (const VideoClip* clip = session.video()) {
        s.video_path = clip->path().string();
        s.video_frame = clip->current();
    }
    s.tools = tool_state(session);
    s.writer_pid = ::getpid();
    return s;
}

void apply_tool_state(Session& session, const ToolState& t) {
    RemoveObjectTool& removal = session.remove_object();
    removal.set_brush(t.brush);
    removal.set_layer(t.removal_layer);
    removal.set_fill_params(t.fill);
    RetargetTool& retarget = session.retarget();
    ops::BrushSettings brush = t.brush;
    brush.erase = false;
    retarget.set_brush(brush);
    retarget.set_energy(t.energy);
    retarget.set_mix(t.retarget_mix);
    if (t.retarget_width > 0 && t.retarget_height > 0)
        retarget.set_target(t.retarget_width, t.retarget_height);
    retarget.set_show_seams(t.show_seams);
    LineTool& line = session.line();
    line.set_bins(t.line_bins);
    line.set_band(t.line_band);
    line.set_channels(t.channels);
    line.set_range(t.range_mode, t.typed_range);
    if (t.has_line) line.set_line(t.line_from, t.line_to);
    if (t.spacing.known()) session.document().set_spacing(t.spacing);
    session.select(t.active);
}

std::vector<std::string> restore_snapshot(Session& session, const RecoverySnapshot& s) {
    std::vector<std::string> notices;
    bool video_open = false;
    if (!s.video_path.empty() && !s.measurement()) {
        try {
            session.open_video(s.video_path);
            session.show_video_frame(s.video_frame);
            video_open = true;
        } catch (const Error& e) {
            notices.push_back("The video \"" + s.video_path + "\" cannot be opened again (" +
                              e.what() + "); its edited frame is restored as an image.");
        }
    }
    if (s.measurement()) {
        session.open_measurement(s.pages, s.calibration, s.display.window, s.metadata);
        session.show_page(s.page);
        session.set_lut(s.display.lut);
        session.set_mark_clipped(s.display.mark_clipped);
    } else if (!video_open) {
        session.open(clone(s.pixels.view()), s.metadata);
    }
    Document& document = session.document();
    const auto put_pixels_and_masks = [&] {
        if (video_open) {
            // The frame as it was edited (a fill, or a retarget that changed its size).
            std::array<Mask, kMaskLayers> masks;
            for (std::size_t i = 0; i < masks.size(); ++i)
                masks[i] =
                    s.masks[i].empty() ? Mask(s.width(), s.height(), 0) : clone(s.masks[i].view());
            document.replace(s.pixels, masks);
            return;
        }
        const PixelRect all{0, 0, document.width() - 1, document.height() - 1};
        for (int i = 0; i < kMaskLayers; ++i) {
            const Mask& m = s.masks[std::size_t(i)];
            if (!m.empty() && count_selected(m.view()) > 0)
                document.write_mask(static_cast<MaskLayer>(i), all, m);
        }
    };
    // A device failure moves the session to the host, with the document intact: do it there.
    if (!session.guarded(put_pixels_and_masks)) put_pixels_and_masks();
    session.line().document_changed();
    session.retarget().refresh();
    apply_tool_state(session, s.tools);
    // Nothing of this is on disk: the document counts as unsaved until it is saved.
    session.history().clear();
    session.history().mark_unsaved();
    session.frame_changed();
    if (session.on_document_changed) session.on_document_changed();
    return notices;
}

// ---- writing and reading --------------------------------------------------------------------

RecoveryWriteReport write_recovery(const fs::path& path, const RecoverySnapshot& s,
                                   const RecoveryLimits& limits) {
    if (s.width() <= 0 || s.height() <= 0)
        throw Error(ErrorCode::EmptyImage, "there is no document to save");
    RecoveryWriteReport report;
    const bool deflate = s.raw_bytes() > limits.compress_above;
    report.compressed = deflate;
    TempFile file(path);
    {
        ByteWriter w;
        w.append({reinterpret_cast<const std::uint8_t*>(kMagic), sizeof kMagic});
        w.put<std::uint32_t>(kVersion);
        w.put<std::uint32_t>(0);
        file.write(w.bytes());
    }
    {
        ByteWriter w;
        w.put<std::uint8_t>(s.measurement() ? 1 : 0);
        w.put<std::int32_t>(s.width());
        w.put<std::int32_t>(s.height());
        w.put<std::int64_t>(s.writer_pid);
        w.put_string(s.document_path);
        w.put_string(s.video_path);
        w.put<std::int32_t>(s.video_frame);
        w.put<std::uint32_t>(std::uint32_t(s.pages.size()));
        w.put<std::int32_t>(s.page);
        write_section(file, kHead, w.bytes(), limits, path);
    }
    if (!s.measurement()) {
        ByteWriter w;
        put_blob(w, dense(s.pixels), deflate);
        write_section(file, kPixels, w.bytes(), limits, path);
    }
    for (const NativeImage& p : s.pages) {
        ByteWriter w;
        w.put<std::uint8_t>(std::uint8_t(p.sample_type()));
        w.put<std::uint8_t>(std::uint8_t(p.channels()));
        w.put<std::int32_t>(p.width());
        w.put<std::int32_t>(p.height());
        put_blob(w, dense_rows(p.row(0), p.pitch(), p.row_bytes(), p.height()), deflate);
        write_section(file, kPage, w.bytes(), limits, path);
    }
    {
        ByteWriter w;
        w.put<double>(s.calibration.slope);
        w.put<double>(s.calibration.intercept);
        w.put_string(s.calibration.unit);
        w.put<double>(s.display.window.lo);
        w.put<double>(s.display.window.hi);
        w.put<std::uint8_t>(std::uint8_t(s.display.lut));
        w.put<std::uint8_t>(s.display.mark_clipped);
        write_section(file, kCalibration, w.bytes(), limits, path);
    }
    for (int i = 0; i < kMaskLayers; ++i) {
        const Mask& m = s.masks[std::size_t(i)];
        ByteWriter w;
        w.put<std::uint8_t>(std::uint8_t(i));
        w.put<std::int32_t>(s.width());
        w.put<std::int32_t>(s.height());
        const std::vector<std::uint8_t> rows =
            m.empty() ? std::vector<std::uint8_t>(std::size_t(s.width()) * std::size_t(s.height()))
                      : dense(m);
        put_blob(w, rows, /*deflate=*/true);  // mostly empty: a 4K mask packs to ~16 KB
        write_section(file, kMask, w.bytes(), limits, path);
    }
    {
        ByteWriter w;
        w.put_bytes(s.metadata.icc);
        w.put_bytes(s.metadata.exif);
        w.put_string(s.metadata.xmp);
        w.put_bytes(s.metadata.iptc);
        w.put_string(s.metadata.comment);
        w.put<std::uint8_t>(s.metadata.orientation_applied);
        write_section(file, kMeta, w.bytes(), limits, path);
    }
    {
        std::vector<std::uint8_t> text = tool_bytes(s.tools);
        write_section(file, kTools, text, limits, path);
    }
    std::vector<std::uint8_t> none;
    write_section(file, kEnd, none, limits, path);
    report.bytes = file.written();
    file.commit();
    return report;
}

RecoverySnapshot read_recovery(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw Error(ErrorCode::NotFound, "the recovery file " + quoted(path) + " does not exist");
    std::ifstream in(path, std::ios::binary);
    const std::uintmax_t file_size = fs::file_size(path, ec);
    if (!in || ec)
        throw Error(ErrorCode::Unreadable, "cannot read the recovery file " + quoted(path));
    const auto truncated = [&](const std::string& where) {
        return Error(ErrorCode::Truncated,
                     "the recovery file " + quoted(path) + " is truncated (it ends " + where +
                         "); it was not written completely and cannot be restored");
    };
    char magic[8] = {};
    std::uint32_t version = 0, reserved = 0;
    in.read(magic, sizeof magic);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < sizeof magic && std::memcmp(magic, kMagic, got) == 0)
        throw truncated("inside its header");
    if (got != sizeof magic || std::memcmp(magic, kMagic, sizeof magic) != 0)
        throw Error(ErrorCode::Corrupt, "\"" + path.string() + "\" is not a Lacuna recovery file");
    in.read(reinterpret_cast<char*>(&version), sizeof version);
    in.read(reinterpret_cast<char*>(&reserved), sizeof reserved);
    if (!in) throw truncated("inside its header");
    if (version < kOldestVersion || version > kVersion)
        throw Error(ErrorCode::UnsupportedFormat,
                    "the recovery file " + quoted(path) + " has format version " +
                        std::to_string(version) + ", which this Lacuna does not read (it reads " +
                        std::to_string(kOldestVersion) + " to " + std::to_string(kVersion) + ")");

    RecoverySnapshot s;
    bool head = false, pixels = false, calibration = false, meta = false, tools = false;
    std::uint32_t page_count = 0;
    std::array<bool, kMaskLayers> masks{};
    int width = 0, height = 0;
    for (;;) {
        std::uint32_t t = 0, crc = 0;
        std::uint64_t length = 0;
        in.read(reinterpret_cast<char*>(&t), sizeof t);
        if (in.gcount() == 0) throw truncated("before its last section");
        in.read(reinterpret_cast<char*>(&length), sizeof length);
        in.read(reinterpret_cast<char*>(&crc), sizeof crc);
        if (!in) throw truncated("inside a section header");
        const std::string name = tag_name(t);
        // A damaged length must not make us allocate what the file cannot hold.
        const auto at = static_cast<std::uintmax_t>(in.tellg());
        if (length > file_size - at) throw truncated("inside section '" + name + "'");
        std::vector<std::uint8_t> payload(length);
        in.read(reinterpret_cast<char*>(payload.data()), std::streamsize(length));
        if (!in) throw truncated("inside section '" + name + "'");
        if (crc_of(payload) != crc)
            throw damaged(path, "section '" + name + "' fails its checksum");
        ByteReader r(payload, path, name);
        if (t == kEnd) break;
        if (t != kHead && !head) r.fail("the header section is missing");
        if (t == kHead) {
            if (head) r.fail("a second header");
            head = true;
            const auto kind = r.get<std::uint8_t>();
            if (kind > 1) r.fail("unknown document kind " + std::to_string(kind));
            width = r.get<std::int32_t>();
            height = r.get<std::int32_t>();
            if (width <= 0 || height <= 0 || width > 1 << 20 || height > 1 << 20)
                r.fail("the document size " + std::to_string(width) + " x " +
                       std::to_string(height) + " is impossible");
            s.writer_pid = r.get<std::int64_t>();
            s.document_path = r.get_string();
            s.video_path = r.get_string();
            s.video_frame = r.get<std::int32_t>();
            page_count = r.get<std::uint32_t>();
            s.page = r.get<std::int32_t>();
            if ((kind == 1) != (page_count > 0) || page_count > 100000 || s.page < 0 ||
                (page_count > 0 && s.page >= int(page_count)))
                r.fail("the page count does not fit the document");
        } else if (t == kPixels) {
            if (pixels || page_count > 0) r.fail("unexpected pixels");
            pixels = true;
            s.pixels = ImageRgba8(width, height);
            fill_rows(s.pixels, get_blob(r, sizeof(Rgba8) * std::size_t(width) * height));
        } else if (t == kPage) {
            if (s.pages.size() >= page_count) r.fail("more pages than the header says");
            const auto sample = r.get_enum<SampleType>(4, "sample type");
            const int channels = r.get<std::uint8_t>();
            const int w = r.get<std::int32_t>();
            const int h = r.get<std::int32_t>();
            if (w != width || h != height || (channels != 1 && channels != 3 && channels != 4))
                r.fail("a page does not match the document");
            NativeImage page(w, h, PixelFormat{sample, channels});
            if (!s.pages.empty() && page.format() != s.pages.front().format())
                r.fail("the pages differ in format");
            const std::vector<std::uint8_t> rows = get_blob(r, page.row_bytes() * std::size_t(h));
            for (int y = 0; y < h; ++y)
                std::memcpy(page.row(y), rows.data() + page.row_bytes() * std::size_t(y),
                            page.row_bytes());
            s.pages.push_back(std::move(page));
        } else if (t == kCalibration) {
            calibration = true;
            s.calibration.slope = r.get<double>();
            s.calibration.intercept = r.get<double>();
            s.calibration.unit = r.get_string();
            s.display.window.lo = r.get<double>();
            s.display.window.hi = r.get<double>();
            s.display.lut = r.get_enum<Lut>(4, "lookup table");
            s.display.mark_clipped = r.get<std::uint8_t>() != 0;
        } else if (t == kMask) {
            const auto layer = r.get<std::uint8_t>();
            if (layer >= kMaskLayers || masks[layer]) r.fail("an unknown or repeated mask layer");
            masks[layer] = true;
            const int w = r.get<std::int32_t>();
            const int h = r.get<std::int32_t>();
            if (w != width || h != height) r.fail("a mask does not match the document's size");
            const std::vector<std::uint8_t> rows = get_blob(r, std::size_t(w) * std::size_t(h));
            // An unpainted mask reads back empty, as the snapshot held it.
            if (std::any_of(rows.begin(), rows.end(), [](std::uint8_t v) { return v != 0; })) {
                Mask m(w, h);
                fill_rows(m, rows);
                s.masks[layer] = std::move(m);
            }
        } else if (t == kMeta) {
            meta = true;
            s.metadata.icc = r.get_bytes();
            s.metadata.exif = r.get_bytes();
            s.metadata.xmp = r.get_string();
            s.metadata.iptc = r.get_bytes();
            s.metadata.comment = r.get_string();
            s.metadata.orientation_applied = r.get<std::uint8_t>() != 0;
        } else if (t == kTools) {
            tools = true;
            if (version == 1) {
                s.tools = get_tools_v1(r);
            } else {
                try {
                    s.tools = tools_from_text(std::string(payload.begin(), payload.end()));
                } catch (const Error& e) {
                    r.fail(std::string("the tool settings: ") + e.what());
                }
            }
        }
        // An unknown section from a newer writer of the same version is skipped.
    }
    const bool all_masks = std::all_of(masks.begin(), masks.end(), [](bool b) { return b; });
    if (!head || !calibration || !meta || !tools || !all_masks ||
        (page_count == 0 ? !pixels : s.pages.size() != page_count))
        throw damaged(path, "a section is missing");
    return s;
}

// ---- where ----------------------------------------------------------------------------------

fs::path recovery_directory() {
    const char* state = std::getenv("XDG_STATE_HOME");
    // XDG: a relative path in the variable is invalid and must be ignored.
    if (state != nullptr && *state == '/') return fs::path(state) / "lacuna" / "recovery";
    const char* home = std::getenv("HOME");
    const fs::path base =
        home != nullptr && *home != '\0' ? fs::path(home) : fs::temp_directory_path();
    return base / ".local" / "state" / "lacuna" / "recovery";
}

namespace {
constexpr const char* kRecoveryExtension = ".recovery";
constexpr const char* kLockExtension = ".lock";

/// The lock of `recovery`: "<id>.lock" beside "<id>.recovery".
fs::path lock_of(const fs::path& recovery) {
    fs::path lock = recovery;
    lock.replace_extension(kLockExtension);
    return lock;
}

/// Holds another instance's lock while we act on its files; empty when that instance runs.
class ForeignLock {
  public:
    explicit ForeignLock(const fs::path& lock) : path_(lock) {
        fd_ = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
        if (fd_ < 0) {
            free_ = errno == ENOENT;  // no lock file: its editor is gone (or never locked)
            return;
        }
        free_ = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    }
    ~ForeignLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    ForeignLock(const ForeignLock&) = delete;
    ForeignLock& operator=(const ForeignLock&) = delete;
    /// Its editor is not running.
    [[nodiscard]] bool free() const { return free_; }
    /// Removes the lock file (while holding it).
    void remove() const {
        if (free_ && fd_ >= 0) ::unlink(path_.c_str());
    }

  private:
    fs::path path_;
    int fd_ = -1;
    bool free_ = false;
};
}  // namespace

RecoverySlot::RecoverySlot(fs::path directory) : directory_(std::move(directory)) {
    std::error_code ec;
    fs::create_directories(directory_, ec);
    if (ec || !fs::is_directory(directory_))
        throw Error(ErrorCode::WriteFailed, "cannot make the recovery directory " +
                                                quoted(directory_) + ": " + ec.message());
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::replace, ec);
    // The process and its start: unique even when a crashed editor's process id comes again.
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const std::string id = "editor-" + std::to_string(::getpid()) + "-" + std::to_string(now);
    file_ = directory_ / (id + kRecoveryExtension);
    lock_ = directory_ / (id + kLockExtension);
    lock_fd_ = ::open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        if (lock_fd_ >= 0) ::close(lock_fd_);
        throw Error(ErrorCode::WriteFailed,
                    "cannot lock " + quoted(lock_) + ": " + std::strerror(err));
    }
}

RecoverySlot::~RecoverySlot() {
    ::unlink(lock_.c_str());
    ::close(lock_fd_);
}

void RecoverySlot::remove_file() const {
    ::unlink(file_.c_str());
}

std::vector<fs::path> RecoverySlot::orphans() const {
    std::vector<std::pair<fs::file_time_type, fs::path>> found;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(directory_, ec)) {
        const fs::path& p = e.path();
        if (p == file_ || p == lock_) continue;
        if (p.extension() == kLockExtension) {
            fs::path recovery = p;
            recovery.replace_extension(kRecoveryExtension);
            // A crash before the first autosave leaves only its lock.
            if (!fs::exists(recovery, ec)) {
                const ForeignLock lock(p);
                lock.remove();
            }
            continue;
        }
        if (p.extension() != kRecoveryExtension || !e.is_regular_file(ec)) continue;
        if (!ForeignLock(lock_of(p)).free()) continue;  // its editor is running
        found.emplace_back(e.last_write_time(ec), p);
    }
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<fs::path> out;
    for (auto& f : found) out.push_back(std::move(f.second));
    return out;
}

bool RecoverySlot::adopt(const fs::path& orphan) const {
    const ForeignLock lock(lock_of(orphan));
    if (!lock.free()) return false;
    // Atomic: of two editors starting at once, one rename finds the file and the other none.
    if (std::rename(orphan.c_str(), file_.c_str()) != 0) return false;
    lock.remove();
    return true;
}

bool RecoverySlot::discard(const fs::path& orphan) const {
    const ForeignLock lock(lock_of(orphan));
    if (!lock.free()) return false;
    if (::unlink(orphan.c_str()) != 0) return false;
    lock.remove();
    return true;
}

fs::path RecoverySlot::set_aside(const fs::path& orphan) const {
    fs::path aside = orphan;
    aside += ".damaged";
    const ForeignLock lock(lock_of(orphan));
    if (lock.free() && std::rename(orphan.c_str(), aside.c_str()) == 0) lock.remove();
    return aside;
}

// ---- the autosaver --------------------------------------------------------------------------

Autosaver::Autosaver(fs::path directory, RecoveryLimits limits)
    : slot_(std::move(directory)), limits_(limits) {}

Autosaver::~Autosaver() {
    // The write is never cancelled: it finishes (atomically) before the autosaver goes.
    if (running_.started()) take(running_.wait());
}

void Autosaver::take(std::optional<JobOutcome<Outcome>> finished) {
    if (!finished) return;
    if (finished->value) {
        unpolled_ = std::move(*finished->value);
    } else {
        unpolled_ = Outcome{};
        unpolled_->message = finished->error;
    }
    if (!unpolled_->ok) written_.reset();  // try again next time
}

Autosaver::Key Autosaver::key_of(const Session& session, const std::string& document_path) {
    const Document& d = session.document();
    Key k;
    k.pixels = d.pixels_revision();
    k.calibration = d.calibration_revision();
    for (int i = 0; i < kMaskLayers; ++i)
        k.masks[std::size_t(i)] = d.mask_revision(static_cast<MaskLayer>(i));
    k.page = session.page();
    k.video_frame = session.video() ? session.video()->current() : -1;
    k.document_path = document_path;
    k.tools = tool_bytes(tool_state(session));
    return k;
}

bool Autosaver::same(const Key& a, const Key& b) {
    return a.pixels == b.pixels && a.calibration == b.calibration && a.masks == b.masks &&
           a.page == b.page && a.video_frame == b.video_frame &&
           a.document_path == b.document_path && a.tools == b.tools;
}

Autosaver::Request Autosaver::request(const Session& session, const std::string& document_path) {
    if (running_.started()) {
        if (running_.running()) return Request::Busy;
        take(running_.take());
    }
    if (session.document().empty()) return Request::Empty;
    auto& s = const_cast<Session&>(session);
    // Mid-stroke or mid-fill the host mirror is not complete (the device holds the news).
    if (s.remove_object().fill_running() || s.remove_object().stroking() || s.retarget().stroking())
        return Request::Busy;
    if (session.history().is_clean()) {
        remove();
        return Request::Removed;
    }
    Key key = key_of(session, document_path);
    if (written_ && same(*written_, key)) return Request::Unchanged;
    const auto t0 = std::chrono::steady_clock::now();
    RecoverySnapshot snapshot = take_snapshot(session, document_path);
    snapshot_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    written_ = std::move(key);
    running_.start(
        [file = slot_.file(), limits = limits_, snap = std::move(snapshot)](JobControl&) {
            Outcome out;
            const auto start = std::chrono::steady_clock::now();
            try {
                out.report = write_recovery(file, snap, limits);
                out.ok = true;
            } catch (const Error& e) {
                out.message = e.what();
            } catch (const std::exception& e) {
                out.message = std::string("the recovery file could not be written: ") + e.what();
            }
            out.milliseconds =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
            return out;
        });
    return Request::Started;
}

Autosaver::Request Autosaver::request_and_wait(const Session& session,
                                               const std::string& document_path) {
    wait();
    const Request r = request(session, document_path);
    wait();
    return r;
}

std::optional<Autosaver::Outcome> Autosaver::poll() {
    take(running_.take());
    return std::exchange(unpolled_, std::nullopt);
}

std::optional<Autosaver::Outcome> Autosaver::wait() {
    take(running_.wait());
    return std::exchange(unpolled_, std::nullopt);
}

void Autosaver::remove() {
    if (running_.started()) take(running_.wait());
    slot_.remove_file();
    written_.reset();
}

}  // namespace lacuna::session
