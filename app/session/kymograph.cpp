// The editor's kymograph: the job takes copies of what it reads (pages, calibration, spacing,
// line), so the document can change while it runs; rows are computed frame by frame, which gives
// progress and cancel between frames, by the CPU sampler or the device (CudaKymograph on its own
// stream, falling back to the CPU when the device fails).
#include "kymograph.hpp"

#include "line_tool.hpp"
#include "regions_tool.hpp"
#include "session.hpp"

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/io/video_io.hpp>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <memory>
#include <sstream>

namespace lacuna::session {
namespace {

/// One frame's row at a time on the backend chosen; a device failure (out of memory, a lost
/// device) moves the rest of the job to the CPU, as the CLI's --backend auto does.
class Rows {
  public:
    Rows(const ops::KymographPlan& plan, const bool device) : cpu_(plan) {
        if (!device) return;
        try {
            stream_ = std::make_unique<OwnedStream>();
            device_ = std::make_unique<ops::CudaKymograph>(plan, stream_->get());
        } catch (const Error& e) {
            if (!falls_back_to_cpu(BackendRequest::Auto, e)) throw;
            drop_device();
        }
    }
    void row(const ImageView<const float> frame, float* out) {
        if (device_) {
            try {
                device_->row(frame, out);
                return;
            } catch (const Error& e) {
                if (!falls_back_to_cpu(BackendRequest::Auto, e)) throw;
                drop_device();
            }
        }
        cpu_.row(frame, out);
    }
    [[nodiscard]] Backend backend() const { return device_ ? Backend::Cuda : Backend::Cpu; }

  private:
    void drop_device() {
        device_.reset();
        stream_.reset();
    }
    ops::KymographSampler cpu_;
    std::unique_ptr<OwnedStream> stream_;  // outlives the device kymograph
    std::unique_ptr<ops::CudaKymograph> device_;
};

void check_progress(JobControl& control, const int done, const int total) {
    if (!control.report(done, total)) throw Error(ErrorCode::Cancelled, "kymograph cancelled");
}

std::string number(const double v) {
    std::ostringstream s;
    s << std::setprecision(6) << v;
    return s.str();
}

/// The result's axes from its table.
void finish(KymographResult& r) {
    r.distance = ops::kymograph_distances(r.plan, r.table.spacing);
    r.distance_unit = r.table.spacing.known() ? r.table.spacing.unit : "px";
}

}  // namespace

Kymographer::Kymographer(Session& session) : session_(session) {}

Kymographer::~Kymographer() = default;

std::string Kymographer::unavailable() const {
    if (session_.document().empty()) return "Open a stack or a video first.";
    if (session_.video() == nullptr && session_.pages().size() < 2)
        return "A kymograph needs a stack (a multi-page TIFF, a multi-frame DICOM or a FITS "
               "cube) or a video.";
    if (!path())
        return "Draw a line with the Line tool, or select a region of the Regions tool, first.";
    return {};
}

std::optional<KymographPath> Kymographer::path() const {
    const RegionsTool& regions = session_.regions();
    if (const int i = regions.selected(); i >= 0 && i < regions.count()) {
        const ops::ProfileRegion& region = regions.regions()[static_cast<std::size_t>(i)];
        KymographPath p;
        p.params = region.params();  // the regions' CLI profile: same path, band and sampling
        p.polyline = region.shape == ops::RegionShape::Polyline;
        p.what = "region '" + region.name + "' (" + ops::to_string(region.shape) + ")";
        return p;
    }
    if (!session_.line().has_line()) return std::nullopt;
    KymographPath p;
    p.params.path = {session_.line().from(), session_.line().to()};
    p.params.band_width = session_.line().band();
    p.what = "the Line tool's line";
    return p;
}

void Kymographer::start() {
    if (const std::string why = unavailable(); !why.empty())
        throw Error(ErrorCode::InvalidArgument, why);
    const KymographPath along = *path();
    const ops::KymographParams params = along.params;
    const Document& doc = session_.document();
    // Checked now, so a bad line is said at once rather than by the job.
    (void)ops::plan_kymograph(doc.width(), doc.height(), params);
    const bool device = session_.on_device();
    message_.clear();
    if (const VideoClip* clip = session_.video()) {
        const std::filesystem::path path = clip->path();
        const int announced = clip->frame_count();
        job_.start([path, params, along, device, announced](JobControl& control) {
            io::VideoReader reader(path);
            const io::VideoInfo& info = reader.info();
            KymographResult r;
            r.plan = ops::plan_kymograph(info.width, info.height, params);
            Rows rows(r.plan, device);
            std::vector<float> values;
            const auto n = static_cast<std::size_t>(r.plan.positions());
            int frames = 0;
            while (const std::optional<ImageRgba8> frame = reader.next()) {
                const ImageF32 plane = measurement_plane(to_native(frame->view()));
                values.resize(values.size() + n);
                rows.row(plane.view(), values.data() + values.size() - n);
                check_progress(control, ++frames, std::max(announced, frames));
            }
            r.values = ImageF32(static_cast<int>(n), frames);
            for (int t = 0; t < frames; ++t)
                std::copy_n(values.data() + static_cast<std::size_t>(t) * n, n, r.values.row(t));
            r.table.values = "Rec. 709 luminance of the 8-bit video frames (0..255)";
            if (!io::is_image_sequence_pattern(path) && info.fps > 0) {
                r.table.frame_interval = 1.0 / info.fps;
                r.table.interval_source = "from the file (" + number(info.fps) + " fps)";
            }
            r.backend = rows.backend();
            r.source = "video " + path.filename().string();
            r.path = along.what;
            r.table.polyline = along.polyline;
            finish(r);
            return r;
        });
        return;
    }
    // The stack as it is now: the shown page with its edits.
    auto pages = std::make_shared<std::vector<NativeImage>>(session_.pages());
    (*pages)[static_cast<std::size_t>(session_.page())] = doc.samples();
    const Calibration calibration = doc.calibration();
    const PixelSpacing spacing = doc.spacing();
    const std::optional<io::FrameInterval> interval = session_.frame_interval();
    job_.start([pages, params, along, device, calibration, spacing, interval](JobControl& control) {
        const NativeImage& first = pages->front();
        const int count = static_cast<int>(pages->size());
        KymographResult r;
        r.plan = ops::plan_kymograph(first.width(), first.height(), params);
        Rows rows(r.plan, device);
        r.values = ImageF32(r.plan.positions(), count);
        for (int t = 0; t < count; ++t) {
            const ImageF32 plane =
                measurement_plane((*pages)[static_cast<std::size_t>(t)], calibration);
            rows.row(plane.view(), r.values.row(t));
            check_progress(control, t + 1, count);
        }
        // As `lacuna kymograph` describes a stack's values.
        r.table.values =
            describe(first.format()) + (first.channels() > 1 ? " (Rec. 709 luminance)" : "");
        if (!calibration.identity() || !calibration.unit.empty())
            r.table.values += ", " + calibration.describe();
        r.table.unit = calibration.unit;
        r.table.spacing = spacing;
        if (interval) {
            r.table.frame_interval = interval->seconds;
            r.table.interval_source = "from the file (" + interval->source + ")";
        }
        r.backend = rows.backend();
        r.source = "stack of " + std::to_string(count) + " pages";
        r.path = along.what;
        r.table.polyline = along.polyline;
        finish(r);
        return r;
    });
}

bool Kymographer::poll() {
    std::optional<JobOutcome<KymographResult>> outcome = job_.take();
    if (!outcome) return false;
    if (outcome->ok()) {
        result_ = std::move(*outcome->value);
        message_.clear();
    } else {
        message_ = outcome->cancelled ? "Kymograph cancelled." : "Kymograph: " + outcome->error;
    }
    return true;
}

ImageRgba8 Kymographer::render() const {
    if (!result_ || result_->values.empty()) return {};
    const ImageF32& v = result_->values;
    NativeImage image(v.width(), v.height(), {SampleType::F32, 1});
    for (int y = 0; y < v.height(); ++y) std::copy_n(v.row(y), v.width(), image.samples<float>(y));
    // The values are calibrated already: the window applies to them as they are.
    const Session::Display& d = session_.display();
    return render_display(image, {}, d.window, d.lut, d.mark_clipped);
}

std::optional<Kymographer::Readout> Kymographer::readout(const double x, const double y) const {
    if (!result_) return std::nullopt;
    const double px = std::floor(x + 0.5), py = std::floor(y + 0.5);
    if (!(px >= 0 && py >= 0 && px < result_->values.width() && py < result_->values.height()))
        return std::nullopt;
    Readout r;
    r.position = static_cast<int>(px);
    r.frame = static_cast<int>(py);
    r.distance = result_->distance[static_cast<std::size_t>(r.position)];
    if (result_->table.frame_interval) r.time_s = r.frame * *result_->table.frame_interval;
    r.value = result_->values.at(r.position, r.frame);
    return r;
}

std::string Kymographer::readout_text(const double x, const double y) const {
    const std::optional<Readout> r = readout(x, y);
    if (!r) return {};
    std::ostringstream s;
    s << std::setprecision(6) << "d = " << r->distance << ' ' << result_->distance_unit;
    if (r->time_s)
        s << ", t = " << *r->time_s << " s (frame " << r->frame << ")";
    else
        s << ", frame " << r->frame;
    s << ": ";
    if (std::isnan(r->value))
        s << "no value (off the image)";
    else
        s << r->value << (result_->table.unit.empty() ? "" : " " + result_->table.unit);
    return s.str();
}

std::vector<std::string> Kymographer::export_to(
    const std::optional<std::filesystem::path>& image,
    const std::optional<std::filesystem::path>& csv) const {
    if (!result_) throw Error(ErrorCode::InvalidArgument, "there is no kymograph to export");
    std::vector<std::string> notices;
    if (image) {
        const ImageF32& v = result_->values;
        NativeImage out(v.width(), v.height(), {SampleType::F32, 1});
        for (int y = 0; y < v.height(); ++y)
            std::copy_n(v.row(y), v.width(), out.samples<float>(y));
        const Calibration unit_only{1.0, 0.0, result_->table.unit};
        io::WriteOptions options;
        options.calibration = &unit_only;
        notices = io::write_native(*image, out, options);
    }
    if (csv)
        io::write_file_atomically(
            *csv, ops::kymograph_csv(result_->plan, result_->values, result_->table));
    return notices;
}

}  // namespace lacuna::session
