// `import lacuna`: the engine for numpy users. Reading an image with its calibration, line and
// direction histograms, kymographs, retargeting and inpainting, all on numpy arrays. The same
// engine functions the CLI calls, with the CLI's defaults, so a script and `lacuna ...` give the
// same numbers (tests/python compares them). CPU only: no DLPack or device arrays yet.
#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace lacuna;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using ByteArray = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

// ---- numpy ↔ engine images ----

ImageView<const float> float_view(const FloatArray& a, const char* what) {
    if (a.ndim() != 2)
        throw py::value_error(std::string(what) + " must be a 2-D array (rows, columns), not " +
                              std::to_string(a.ndim()) + "-D");
    return {a.data(), static_cast<int>(a.shape(1)), static_cast<int>(a.shape(0)),
            static_cast<std::size_t>(a.shape(1)) * sizeof(float)};
}

template <class T>
py::array_t<T> to_numpy(const Image<T>& image) {
    py::array_t<T> out({image.height(), image.width()});
    auto* dst = out.mutable_data();
    for (int y = 0; y < image.height(); ++y)
        std::memcpy(dst + static_cast<std::size_t>(y) * image.width(), image.row(y),
                    sizeof(T) * static_cast<std::size_t>(image.width()));
    return out;
}

/// A photo from numpy: its RGBA8 pixels and how many channels the array had (3: RGB, 4: RGBA),
/// so that the result goes back in the same shape.
struct Photo {
    ImageRgba8 rgba;
    int channels = 0;
};

// H × W × 3 (RGB) or × 4 (RGBA) uint8 → RGBA8.
Photo rgba_from_numpy(const py::array& array) {
    const ByteArray a = ByteArray::ensure(array);
    if (a.ndim() != 3 || (a.shape(2) != 3 && a.shape(2) != 4))
        throw py::value_error(
            "the image must be an H x W x 3 (RGB) or H x W x 4 (RGBA) uint8 array");
    const int channels = static_cast<int>(a.shape(2));
    const int h = static_cast<int>(a.shape(0)), w = static_cast<int>(a.shape(1));
    ImageRgba8 image(w, h);
    const std::uint8_t* src = a.data();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint8_t* p = src + (static_cast<std::size_t>(y) * w + x) * channels;
            image.at(x, y) = {p[0], p[1], p[2], channels == 4 ? p[3] : std::uint8_t{255}};
        }
    return {std::move(image), channels};
}

py::array_t<std::uint8_t> rgba_to_numpy(const ImageRgba8& image, const int channels) {
    py::array_t<std::uint8_t> out({image.height(), image.width(), channels});
    std::uint8_t* dst = out.mutable_data();
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const Rgba8 p = image.at(x, y);
            std::uint8_t* q = dst + (static_cast<std::size_t>(y) * image.width() + x) * channels;
            q[0] = p.r;
            q[1] = p.g;
            q[2] = p.b;
            if (channels == 4) q[3] = p.a;
        }
    return out;
}

Mask mask_from_numpy(const py::array& a, const int width, const int height, const char* what) {
    const ByteArray bytes(a.attr("astype")("uint8"));
    if (bytes.ndim() != 2 || bytes.shape(0) != height || bytes.shape(1) != width)
        throw py::value_error(std::string(what) + " must be a " + std::to_string(height) + " x " +
                              std::to_string(width) + " array (the image's rows and columns)");
    Mask mask(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) mask.at(x, y) = bytes.at(y, x) ? 255 : 0;
    return mask;
}

Sampling parse_sampling(const std::string& text) {
    if (text == "bilinear") return Sampling::Bilinear;
    if (text == "nearest") return Sampling::Nearest;
    throw py::value_error("sampling must be 'bilinear' or 'nearest', not '" + text + "'");
}

std::vector<ops::Point2> parse_path(const std::vector<std::pair<double, double>>& path) {
    std::vector<ops::Point2> points;
    for (const auto& [x, y] : path) points.push_back({x, y});
    return points;
}

// A 2-D array of values (any real dtype: a measurement), or H × W × 3/4 uint8 (a photo).
std::unique_ptr<ops::HistogramSource> histogram_source(const py::array& image) {
    if (image.ndim() == 3)
        return std::make_unique<ops::HistogramSource>(rgba_from_numpy(image).rgba.view());
    const FloatArray values = FloatArray::ensure(image);
    if (!values) throw py::value_error("the image must be a numeric array");
    return std::make_unique<ops::HistogramSource>(float_view(values, "the values"));
}

ops::HistogramChannel channel_for(const ops::HistogramSource& source,
                                  const std::optional<std::string>& channel) {
    if (!channel)
        return source.is_measurement() ? ops::HistogramChannel::Value
                                       : ops::HistogramChannel::Luminance;
    const auto parsed = ops::parse_histogram_channel(*channel);
    if (!parsed)
        throw py::value_error("channel must be lum, r, g, b, rgb or value, not '" + *channel + "'");
    return *parsed;
}

/// What the line and the direction histogram take alike: bins, value range, channel (the
/// source's default where None) and sampling.
template <class Params>
void set_histogram_params(Params& p, const ops::HistogramSource& source, const int bins,
                          const std::optional<std::pair<float, float>>& range,
                          const std::optional<std::string>& channel, const std::string& sampling) {
    p.bins = bins;
    p.range = range;
    p.channel = channel_for(source, channel);
    p.sampling = parse_sampling(sampling);
}

py::array_t<std::uint32_t> counts_array(const std::vector<std::uint32_t>& counts,
                                        const int positions, const int bins) {
    py::array_t<std::uint32_t> out({positions, bins});
    std::memcpy(out.mutable_data(), counts.data(), counts.size() * sizeof(std::uint32_t));
    return out;
}

template <class T>
py::array_t<T> vector_array(const std::vector<T>& v) {
    py::array_t<T> out(static_cast<py::ssize_t>(v.size()));
    if (!v.empty()) std::memcpy(out.mutable_data(), v.data(), v.size() * sizeof(T));
    return out;
}

// ---- the functions ----

py::dict read_file(const std::filesystem::path& path) {
    io::LoadedNative file = [&] {
        py::gil_scoped_release release;
        return io::read_native(path);
    }();
    const int pages = static_cast<int>(file.pages.size());
    const NativeImage& first = file.pages.front();
    const int h = first.height(), w = first.width(), c = first.channels();
    const auto dtype =
        visit_sample_type(first.sample_type(), [](auto s) { return py::dtype::of<decltype(s)>(); });
    std::vector<py::ssize_t> shape{pages, h, w};
    if (c > 1) shape.push_back(c);
    py::array samples(dtype, shape);
    py::array_t<float> values({pages, h, w});
    auto* bytes = static_cast<std::uint8_t*>(samples.mutable_data());
    const std::size_t row_bytes = first.row_bytes();
    for (int p = 0; p < pages; ++p) {
        const NativeImage& page = file.pages[static_cast<std::size_t>(p)];
        if (page.width() != w || page.height() != h || page.format() != first.format())
            throw py::value_error("page " + std::to_string(p + 1) + " of '" + path.string() +
                                  "' differs in size or type from page 1");
        for (int y = 0; y < h; ++y)
            std::memcpy(bytes + (static_cast<std::size_t>(p) * h + y) * row_bytes, page.row(y),
                        row_bytes);
        const ImageF32 plane = measurement_plane(page, file.calibration);
        for (int y = 0; y < h; ++y)
            std::memcpy(values.mutable_data(p, y, 0), plane.row(y), sizeof(float) * w);
    }
    py::dict out;
    out["samples"] = samples;
    out["values"] = values;
    out["unit"] = file.calibration.unit;
    out["slope"] = file.calibration.slope;
    out["intercept"] = file.calibration.intercept;
    out["calibration"] = file.calibration.describe();
    out["window"] = file.window
                        ? py::object(py::make_tuple(file.window->first, file.window->second))
                        : py::object(py::none());
    out["format"] = std::string(io::to_string(file.info.format));
    out["notices"] = file.notices;
    out["spacing"] =
        file.spacing.known()
            ? py::object(py::make_tuple(file.spacing.x, file.spacing.y, file.spacing.unit))
            : py::object(py::none());
    out["frame_interval"] =
        file.frame_interval ? py::object(py::float_(file.frame_interval->seconds)) : py::none();
    out["frame_interval_source"] =
        file.frame_interval ? py::object(py::str(file.frame_interval->source)) : py::none();
    return out;
}

py::dict line_histogram(const py::array& image, const std::pair<double, double> start,
                        const std::pair<double, double> end, const int band, const int bins,
                        const std::optional<std::pair<float, float>> range,
                        const std::optional<std::string>& channel, const std::string& sampling) {
    const auto source = histogram_source(image);
    ops::LineHistogramParams p;
    p.from = {start.first, start.second};
    p.to = {end.first, end.second};
    p.band_width = band;
    set_histogram_params(p, *source, bins, range, channel, sampling);
    const ops::LineHistogram h = [&] {
        py::gil_scoped_release release;
        return ops::line_histogram(*source, p, Backend::Cpu);
    }();
    py::dict out;
    py::dict channels;
    for (const ops::ChannelHistogram& c : h.channels) {
        py::dict d;
        d["counts"] = counts_array(c.counts, h.positions, h.bins);
        d["mean"] = vector_array(c.mean);
        d["median"] = vector_array(c.median);
        d["min"] = vector_array(c.min);
        d["max"] = vector_array(c.max);
        d["samples"] = vector_array(c.samples);
        channels[py::str(ops::to_string(c.channel))] = d;
    }
    std::vector<double> xs, ys, distance;
    const double step = std::hypot(h.geometry.step_x, h.geometry.step_y);
    for (int i = 0; i < h.positions; ++i) {
        xs.push_back(linspace_at(h.geometry.x0, h.geometry.x1, h.geometry.step_x, i, h.positions));
        ys.push_back(linspace_at(h.geometry.y0, h.geometry.y1, h.geometry.step_y, i, h.positions));
        distance.push_back(i * step);
    }
    out["channels"] = channels;
    out["x"] = vector_array(xs);
    out["y"] = vector_array(ys);
    out["distance"] = vector_array(distance);
    out["range"] = py::make_tuple(h.range_lo, h.range_hi);
    out["bins"] = h.bins;
    out["clipped"] = h.clipped;
    out["samples_outside"] = h.samples_outside;
    out["samples_out_of_range"] = h.samples_out_of_range;
    return out;
}

py::dict direction_histogram(const py::array& image, const double angle, const int bins,
                             const std::optional<std::pair<float, float>> range,
                             const std::optional<std::string>& channel,
                             const std::string& sampling) {
    const auto source = histogram_source(image);
    ops::DirectionHistogramParams p;
    p.angle_degrees = angle;
    set_histogram_params(p, *source, bins, range, channel, sampling);
    const ops::DirectionHistogram h = [&] {
        py::gil_scoped_release release;
        return ops::direction_histogram(*source, p, Backend::Cpu);
    }();
    py::dict channels;
    for (std::size_t c = 0; c < h.channels.size(); ++c)
        channels[py::str(ops::to_string(h.channels[c]))] =
            counts_array(h.counts[c], h.positions, h.bins);
    py::dict out;
    out["channels"] = channels;
    out["range"] = py::make_tuple(h.range_lo, h.range_hi);
    out["bins"] = h.bins;
    out["samples_outside"] = h.samples_outside;
    out["samples_out_of_range"] = h.samples_out_of_range;
    return out;
}

ops::KymographParams kymograph_params(const std::vector<std::pair<double, double>>& path,
                                      const int band, const std::string& sampling) {
    ops::KymographParams p;
    p.path = parse_path(path);
    p.band_width = band;
    p.sampling = parse_sampling(sampling);
    return p;
}

/// read()'s (x, y, unit), or None: unknown.
PixelSpacing spacing_from(const std::optional<py::tuple>& spacing) {
    if (!spacing) return {};
    if (spacing->size() != 3)
        throw py::value_error("spacing must be (x, y, unit), as read() gives it");
    PixelSpacing s{(*spacing)[0].cast<double>(), (*spacing)[1].cast<double>(),
                   (*spacing)[2].cast<std::string>()};
    if (!s.known() || !std::isfinite(s.x) || !std::isfinite(s.y))
        throw py::value_error("spacing must be two positive sizes and a unit, as read() gives it");
    return s;
}

py::object kymograph(const py::array& frames, const std::vector<std::pair<double, double>>& path,
                     const int band, const std::string& sampling,
                     const std::optional<py::tuple>& spacing,
                     const std::optional<double> frame_interval, const bool axes) {
    const PixelSpacing pixel = spacing_from(spacing);
    if (frame_interval && !(*frame_interval > 0 && std::isfinite(*frame_interval)))
        throw py::value_error("frame_interval must be a positive number of seconds");
    const FloatArray stack = FloatArray::ensure(frames);
    if (!stack || stack.ndim() != 3)
        throw py::value_error("frames must be a 3-D array (frames, rows, columns)");
    const int t = static_cast<int>(stack.shape(0)), h = static_cast<int>(stack.shape(1)),
              w = static_cast<int>(stack.shape(2));
    if (t < 1) throw py::value_error("frames must hold at least one frame");
    const ops::KymographSampler sampler(
        ops::plan_kymograph(w, h, kymograph_params(path, band, sampling)));
    py::array_t<float> out({t, sampler.plan().positions()});
    float* dst = out.mutable_data();
    const float* src = stack.data();
    {
        py::gil_scoped_release release;
        for (int f = 0; f < t; ++f) {
            const ImageView<const float> frame(src + static_cast<std::size_t>(f) * h * w, w, h,
                                               sizeof(float) * static_cast<std::size_t>(w));
            sampler.row(frame, dst + static_cast<std::size_t>(f) * sampler.plan().positions());
        }
    }
    if (!axes && !spacing && !frame_interval) return std::move(out);
    // With the axes: distance in the spacing's unit, time in seconds (`lacuna kymograph`'s CSV).
    const std::vector<double> d = ops::kymograph_distances(sampler.plan(), pixel);
    py::array_t<double> distance(static_cast<py::ssize_t>(d.size()));
    std::copy(d.begin(), d.end(), distance.mutable_data());
    py::array_t<double> time(t);
    for (int f = 0; f < t; ++f) time.mutable_at(f) = frame_interval ? f * *frame_interval : f;
    py::dict result;
    result["values"] = out;
    result["distance"] = distance;
    result["distance_unit"] = pixel.known() ? pixel.unit : std::string("px");
    result["time"] = time;
    result["time_unit"] = frame_interval ? "s" : "frame";
    return std::move(result);
}

py::array_t<double> path_positions(const std::vector<std::pair<double, double>>& path) {
    // The frame size only bounds nothing here: positions do not depend on it.
    ops::KymographParams p;
    p.path = parse_path(path);
    const ops::KymographPlan plan = ops::plan_kymograph(1, 1, p);
    py::array_t<double> out({plan.positions(), 3});
    for (int i = 0; i < plan.positions(); ++i) {
        out.mutable_at(i, 0) = plan.point(i).x;
        out.mutable_at(i, 1) = plan.point(i).y;
        out.mutable_at(i, 2) = plan.distance[static_cast<std::size_t>(i)];
    }
    return out;
}

py::array_t<std::uint8_t> retarget(const py::array& image, const std::optional<int> width,
                                   const std::optional<int> height, const std::string& energy,
                                   const std::optional<py::array>& protect,
                                   const std::optional<py::array>& remove, const bool faces,
                                   const double amount) {
    const Photo photo = rgba_from_numpy(image);
    const ImageRgba8& rgba = photo.rgba;
    const int w = rgba.width(), h = rgba.height();
    ops::RetargetParams p;
    p.width = width.value_or(w);
    p.height = height.value_or(h);
    const auto e = ops::parse_seam_energy(energy);
    if (!e)
        throw py::value_error("energy must be forward, l1, prewitt or sobel, not '" + energy + "'");
    p.energy = *e;
    p.amount = amount;
    std::optional<Mask> protect_mask, remove_mask;
    if (protect) protect_mask = mask_from_numpy(*protect, w, h, "protect");
    if (remove) remove_mask = mask_from_numpy(*remove, w, h, "remove");
    p.protect = protect_mask ? &*protect_mask : nullptr;
    p.remove = remove_mask ? &*remove_mask : nullptr;
    ops::RetargetResult result;
    {
        py::gil_scoped_release release;
        ops::ImportanceParams ip;
        ip.faces = faces;
        const ops::ImportanceMap importance = ops::importance_map(rgba.view(), ip);
        if (!importance.empty()) {
            p.importance = &importance.levels;
            p.importance_unit = ops::importance_unit(p.energy);
        }
        result = ops::retarget(rgba.view(), p, ops::CarveImplementation::Fast);
    }
    return rgba_to_numpy(result.image, photo.channels);
}

py::array_t<std::uint8_t> inpaint(const py::array& image, const py::array& mask,
                                  const std::string& method, const int patch,
                                  const std::uint32_t seed, const int grow,
                                  const std::optional<py::array>& never_sample) {
    const Photo photo = rgba_from_numpy(image);
    const ImageRgba8& rgba = photo.rgba;
    const int w = rgba.width(), h = rgba.height();
    ops::InpaintParams p;
    const auto m = ops::parse_inpaint_method(method);
    if (!m) throw py::value_error("method must be criminisi or patchmatch, not '" + method + "'");
    p.method = *m;
    p.patch = patch;
    p.seed = seed;
    const Mask loaded = mask_from_numpy(mask, w, h, "mask");
    if (grow < -ops::kMaxMaskGrow || grow > ops::kMaxMaskGrow)
        throw py::value_error("grow must be from " + std::to_string(-ops::kMaxMaskGrow) + " to " +
                              std::to_string(ops::kMaxMaskGrow) + " pixels");
    const Mask hole = grow != 0 ? grow_mask(loaded.view(), grow) : loaded;
    std::optional<Mask> never;
    if (never_sample) never = mask_from_numpy(*never_sample, w, h, "never_sample");
    p.never_sample = never ? &*never : nullptr;
    ops::InpaintResult result;
    {
        py::gil_scoped_release release;
        result = ops::inpaint(rgba.view(), hole, p, ops::InpaintImplementation::Fast);
    }
    return rgba_to_numpy(result.image, photo.channels);
}

}  // namespace

PYBIND11_MODULE(lacuna, m) {
    m.doc() =
        "Lacuna's engine on numpy arrays: images with their calibration, line and direction "
        "histograms, kymographs, retargeting and inpainting (CPU).";
    py::register_exception_translator([](std::exception_ptr e) {
        try {
            if (e) std::rethrow_exception(e);
        } catch (const Error& error) {
            switch (error.code()) {
                case ErrorCode::NotFound:
                    PyErr_SetString(PyExc_FileNotFoundError, error.what());
                    return;
                case ErrorCode::InvalidArgument:
                case ErrorCode::EmptyImage:
                case ErrorCode::TooLarge:
                    PyErr_SetString(PyExc_ValueError, error.what());
                    return;
                case ErrorCode::Unreadable:
                case ErrorCode::Corrupt:
                case ErrorCode::Truncated:
                case ErrorCode::UnsupportedFormat:
                case ErrorCode::WriteFailed:
                    PyErr_SetString(PyExc_OSError, error.what());
                    return;
                default:
                    PyErr_SetString(PyExc_RuntimeError, error.what());
                    return;
            }
        }
    });
    m.def("read", &read_file, py::arg("path"),
          "Reads an image file as stored. Returns a dict: 'samples' (the stored samples, "
          "pages x rows x columns [x channels], uint8/uint16/int16/float32), 'values' (float32 "
          "calibrated values, pages x rows x columns; colour as Rec. 709 luminance), 'unit', "
          "'slope', 'intercept', 'calibration', 'window' (the file's display window or None), "
          "'format', 'notices', 'spacing' ((x, y, unit): the pixel size the file states, or "
          "None), 'frame_interval' (seconds between pages where the file states it: ImageJ "
          "finterval/fps, DICOM Frame Time, a FITS time axis; else None) and "
          "'frame_interval_source'.");
    m.def("line_histogram", &line_histogram, py::arg("image"), py::arg("start"), py::arg("end"),
          py::arg("band") = 1, py::arg("bins") = ops::kDefaultHistogramBins,
          py::arg("range") = py::none(), py::arg("channel") = py::none(),
          py::arg("sampling") = "bilinear",
          "Histogram of values at every position along the line start=(x0, y0) to end=(x1, y1), "
          "as `lacuna histogram --from --to`. image: a 2-D array of values or an H x W x 3/4 "
          "uint8 photo. Returns a dict: 'channels' ({name: {'counts' (positions x bins), 'mean', "
          "'median', 'min', 'max', 'samples'}}), 'x', 'y', 'distance', 'range', 'bins', "
          "'clipped', 'samples_outside', 'samples_out_of_range'.");
    m.def("direction_histogram", &direction_histogram, py::arg("image"), py::arg("angle"),
          py::arg("bins") = ops::kDefaultHistogramBins, py::arg("range") = py::none(),
          py::arg("channel") = py::none(), py::arg("sampling") = "nearest",
          "Histogram of every line at `angle` degrees (0 = rightwards, 90 = downwards), as "
          "`lacuna histogram --direction`. Returns {'channels': {name: counts (columns x bins)}, "
          "'range', 'bins', 'samples_outside', 'samples_out_of_range'}.");
    m.def("kymograph", &kymograph, py::arg("frames"), py::arg("path"), py::arg("band") = 1,
          py::arg("sampling") = "bilinear", py::arg("spacing") = py::none(),
          py::arg("frame_interval") = py::none(), py::arg("axes") = false,
          "The mean across a band of `band` samples at every position along `path` (a list of "
          "(x, y): two for a line, more for a polyline) in every frame of `frames` (frames x "
          "rows x columns): a float32 array of frames x positions, as `lacuna kymograph`. "
          "With axes=True, or given `spacing` ((x, y, unit), read()'s 'spacing') or "
          "`frame_interval` (seconds, read()'s 'frame_interval'), returns a dict instead: 'values' "
          "(that array), "
          "'distance' (each position's distance along the path in the spacing's unit, else "
          "pixels), 'distance_unit', 'time' (each frame's time in s, else its index), "
          "'time_unit' ('s' or 'frame').");
    m.def("path_positions", &path_positions, py::arg("path"),
          "Each kymograph position's x, y and distance along `path`: an array of positions x 3.");
    m.def("retarget", &retarget, py::arg("image"), py::arg("width") = py::none(),
          py::arg("height") = py::none(), py::arg("energy") = "forward",
          py::arg("protect") = py::none(), py::arg("remove") = py::none(), py::arg("faces") = true,
          py::arg("amount") = 100.0,
          "Seam-carves an H x W x 3/4 uint8 image to width x height, as `lacuna retarget` on the "
          "CPU (faces protected unless faces=False). Masks: H x W arrays, non-zero = selected.");
    m.def("inpaint", &inpaint, py::arg("image"), py::arg("mask"), py::arg("method") = "patchmatch",
          py::arg("patch") = 9, py::arg("seed") = 1, py::arg("grow") = 0,
          py::arg("never_sample") = py::none(),
          "Fills the mask's pixels (H x W, non-zero = fill) of an H x W x 3/4 uint8 image, as "
          "`lacuna inpaint` on the CPU.");
}
