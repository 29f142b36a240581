// `import lacuna`: the engine for numpy users. Reading an image with its calibration, line and
// direction histograms, kymographs, retargeting and inpainting, all on numpy arrays. The same
// engine functions the CLI calls, with the CLI's defaults, so a script and `lacuna ...` give the
// same numbers (tests/python compares them). Arrays come as numpy arrays or through DLPack
// (`__dlpack__`: numpy, CuPy, PyTorch); in a CUDA build, kymograph and the line and direction
// histograms read CUDA device arrays where they are, and kymograph returns a device array.
#include "dlpack_interop.hpp"

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/error.hpp>
#include <lacuna/core/image.hpp>
#include <lacuna/core/mask.hpp>
#include <lacuna/core/native_image.hpp>
#include <lacuna/io/image_io.hpp>
#include <lacuna/ops/importance.hpp>
#include <lacuna/ops/inpaint.hpp>
#include <lacuna/ops/kymograph.hpp>
#include <lacuna/ops/regions.hpp>
#include <lacuna/ops/line_histogram.hpp>
#include <lacuna/ops/seam_carve.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <fstream>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace lacuna;
using python::DeviceArray;
using python::DeviceResult;
using python::Imported;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;
using ByteArray = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

// ---- arguments: numpy, DLPack on the CPU, DLPack on a CUDA device ----

/// An array argument: on the host (a numpy array, or a numpy view of a CPU DLPack tensor, no
/// copy), or a CUDA tensor with the stream it is read on.
struct Input {
    py::array host;
    Imported device;
    [[nodiscard]] bool on_device() const { return device.tensor != nullptr; }
};

Input take_input(const py::object& object, const std::optional<std::intptr_t>& stream,
                 const char* what) {
    if (py::isinstance<py::array>(object)) return {py::reinterpret_borrow<py::array>(object), {}};
    if (python::is_dlpack(object)) {
        Imported imported = python::import_dlpack(object, stream, what);
        if (!imported.tensor->on_cuda()) return {python::numpy_view(imported.tensor, what), {}};
        return {py::array(), std::move(imported)};
    }
    // Lists and other sequences as numpy would read them; not arbitrary objects.
    py::array converted = py::array::ensure(object);
    if (!converted || converted.dtype().kind() == 'O')
        throw py::type_error(std::string(what) +
                             " must be a numpy array or an array with __dlpack__ (CuPy, PyTorch)");
    return {std::move(converted), {}};
}

/// For the functions that run on the host only (retarget, inpaint, their masks).
py::array host_input(const py::object& object, const char* what, const char* function) {
    Input in = take_input(object, std::nullopt, what);
    if (in.on_device())
        throw py::value_error(std::string(function) + " takes host arrays (" + what +
                              " is on the CUDA device): copy it with tensor.cpu() or "
                              "cupy.asnumpy(); on the device lacuna runs kymograph, "
                              "line_histogram and direction_histogram");
    return std::move(in.host);
}

/// Rows of float32 values: the array's own memory where its rows are contiguous and aligned
/// (any row stride: a crop of a larger image is read in place), else a compact float32 copy
/// (other dtypes, a column stride).
struct FloatRows {
    py::array keep;
    const float* data = nullptr;
    int width = 0;
    int height = 0;
    std::size_t pitch = 0;
    [[nodiscard]] ImageView<const float> view() const { return {data, width, height, pitch}; }
};

bool float_rows_in_place(const py::array& a) {
    if (!py::isinstance<py::array_t<float>>(a)) return false;
    const auto aligned = [](const py::ssize_t stride) {
        return stride >= 0 && stride % static_cast<py::ssize_t>(sizeof(float)) == 0;
    };
    const int n = static_cast<int>(a.ndim());
    if (a.strides(n - 1) != static_cast<py::ssize_t>(sizeof(float))) return false;
    if (reinterpret_cast<std::uintptr_t>(a.data()) % alignof(float) != 0) return false;
    for (int i = 0; i + 1 < n; ++i)
        if (!aligned(a.strides(i))) return false;
    return a.strides(n - 2) >= a.shape(n - 1) * static_cast<py::ssize_t>(sizeof(float));
}

FloatRows float_rows(const py::array& a, const char* what) {
    if (a.ndim() != 2)
        throw py::value_error(std::string(what) + " must be a 2-D array (rows, columns), not " +
                              std::to_string(a.ndim()) + "-D");
    FloatRows rows;
    rows.keep = float_rows_in_place(a) ? a : FloatArray::ensure(a);
    if (!rows.keep) throw py::value_error(std::string(what) + " must be a numeric array");
    rows.data = static_cast<const float*>(rows.keep.data());
    rows.width = static_cast<int>(rows.keep.shape(1));
    rows.height = static_cast<int>(rows.keep.shape(0));
    rows.pitch = static_cast<std::size_t>(rows.keep.strides(0));
    if (rows.height == 1) rows.pitch = sizeof(float) * static_cast<std::size_t>(rows.width);
    return rows;
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
    if (!a) throw py::value_error("the image must be a numeric array");
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
    const FloatRows values = float_rows(image, "the values");
    // The source copies the values into its own plane: `values` may go after this.
    return std::make_unique<ops::HistogramSource>(values.view());
}

ops::HistogramChannel channel_for(const bool measurement,
                                  const std::optional<std::string>& channel) {
    if (!channel)
        return measurement ? ops::HistogramChannel::Value : ops::HistogramChannel::Luminance;
    const auto parsed = ops::parse_histogram_channel(*channel);
    if (!parsed)
        throw py::value_error("channel must be lum, r, g, b, rgb or value, not '" + *channel + "'");
    return *parsed;
}

/// What the line and the direction histogram take alike: bins, value range, channel (the
/// source's default where None) and sampling.
template <class Params>
void set_histogram_params(Params& p, const bool measurement, const int bins,
                          const std::optional<std::pair<float, float>>& range,
                          const std::optional<std::string>& channel, const std::string& sampling) {
    p.bins = bins;
    p.range = range;
    p.channel = channel_for(measurement, channel);
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

// ---- device images (CUDA DLPack tensors) ----

/// A 2-D device tensor of stored samples as the engine's raw rows: its own memory, read in
/// place, so its rows must be contiguous; ValueError otherwise and for other dtypes.
struct DeviceRows {
    ImageView<const std::uint8_t> bytes;
    PixelFormat format;
    int width = 0;
};

DeviceRows device_rows(const python::ImportedTensor& t, const char* what) {
    const auto sample = t.sample_type();
    if (t.ndim() != 2 || !sample)
        throw py::value_error(std::string(what) +
                              " on the device must be a 2-D array of uint8, uint16, int16 or "
                              "float32 values, not a " +
                              std::to_string(t.ndim()) + "-D " + t.dtype_name() + " array");
    const std::vector<std::int64_t> strides = t.strides();
    const int h = static_cast<int>(t.shape(0)), w = static_cast<int>(t.shape(1));
    if (h < 1 || w < 1) throw py::value_error(std::string(what) + " is empty");
    const std::size_t size = sample_size(*sample);
    if ((w > 1 && strides[1] != 1) || (h > 1 && strides[0] < w))
        throw py::value_error(std::string(what) +
                              " on the device must have contiguous rows (read in place, not "
                              "copied): pass tensor.contiguous() or cupy.ascontiguousarray(a)");
    const std::size_t pitch = h > 1 ? static_cast<std::size_t>(strides[0]) * size : w * size;
    return {{static_cast<const std::uint8_t*>(t.data()), static_cast<int>(w * size), h, pitch},
            PixelFormat{*sample, 1},
            w};
}

/// An H x W x 4 uint8 device tensor (RGBA, as the editor's documents) whose pixels are packed
/// and rows contiguous: the engine's photo view of it. None for other shapes.
std::optional<ImageView<const Rgba8>> device_photo(const python::ImportedTensor& t) {
    if (t.ndim() != 3 || t.sample_type() != SampleType::U8 || t.shape(2) != 4) return std::nullopt;
    const std::vector<std::int64_t> st = t.strides();
    const std::int64_t h = t.shape(0), w = t.shape(1);
    if (h < 1 || w < 1) throw py::value_error("the image is empty");
    const std::int64_t pitch = h > 1 ? st[0] : 4 * w;
    if (st[2] != 1 || (w > 1 && st[1] != 4) || pitch < 4 * w || pitch % 4 != 0 ||
        reinterpret_cast<std::uintptr_t>(t.data()) % alignof(Rgba8) != 0)
        throw py::value_error(
            "a photo on the device must have packed RGBA pixels in contiguous rows (read in "
            "place, not copied): pass tensor.contiguous() or cupy.ascontiguousarray(a)");
    return ImageView<const Rgba8>{static_cast<const Rgba8*>(t.data()), static_cast<int>(w),
                                  static_cast<int>(h), static_cast<std::size_t>(pitch)};
}

/// The engine's histogrammer over the tensor's memory, on the caller's stream (the pixels are
/// read once into the histogrammer's planes on the device, never through the host).
template <class Run>
auto on_device_histogrammer(const Imported& in, const char* what, Run run) {
    const auto photo = device_photo(*in.tensor);
    if (!photo && in.tensor->ndim() == 3)
        throw py::value_error(std::string(what) +
                              " on the device must be 2-D values or an H x W x 4 uint8 (RGBA) "
                              "photo, not a " +
                              std::to_string(in.tensor->ndim()) + "-D " + in.tensor->dtype_name() +
                              " array of " + std::to_string(in.tensor->shape(2)) + " channels");
    const std::optional<DeviceRows> rows =
        photo ? std::nullopt : std::optional(device_rows(*in.tensor, what));
    const python::DeviceScope scope(in.tensor->device_id());
    py::gil_scoped_release release;
    if (photo) {
        ops::CudaLineHistogrammer histogrammer(*photo, in.stream.stream);
        return run(histogrammer);
    }
    ops::CudaLineHistogrammer histogrammer(rows->bytes, in.stream.stream, rows->format, rows->width,
                                           Calibration{});
    return run(histogrammer);
}

py::dict line_result(const ops::LineHistogram& h) {
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

py::dict line_histogram(const py::object& image, const std::pair<double, double> start,
                        const std::pair<double, double> end, const int band, const int bins,
                        const std::optional<std::pair<float, float>> range,
                        const std::optional<std::string>& channel, const std::string& sampling,
                        const std::optional<std::intptr_t> stream) {
    const Input in = take_input(image, stream, "the image");
    ops::LineHistogramParams p;
    p.from = {start.first, start.second};
    p.to = {end.first, end.second};
    p.band_width = band;
    if (in.on_device()) {
        const bool measurement = !device_photo(*in.device.tensor);
        set_histogram_params(p, measurement, bins, range, channel, sampling);
        return line_result(on_device_histogrammer(
            in.device, "the image", [&](ops::CudaLineHistogrammer& h) { return h.line(p); }));
    }
    const auto source = histogram_source(in.host);
    set_histogram_params(p, source->is_measurement(), bins, range, channel, sampling);
    const ops::LineHistogram h = [&] {
        py::gil_scoped_release release;
        return ops::line_histogram(*source, p, Backend::Cpu);
    }();
    return line_result(h);
}

py::dict direction_histogram(const py::object& image, const double angle, const int bins,
                             const std::optional<std::pair<float, float>> range,
                             const std::optional<std::string>& channel, const std::string& sampling,
                             const std::optional<std::intptr_t> stream) {
    const Input in = take_input(image, stream, "the image");
    ops::DirectionHistogramParams p;
    p.angle_degrees = angle;
    ops::DirectionHistogram h;
    if (in.on_device()) {
        const bool measurement = !device_photo(*in.device.tensor);
        set_histogram_params(p, measurement, bins, range, channel, sampling);
        h = on_device_histogrammer(in.device, "the image",
                                   [&](ops::CudaLineHistogrammer& d) { return d.direction(p); });
    } else {
        const auto source = histogram_source(in.host);
        set_histogram_params(p, source->is_measurement(), bins, range, channel, sampling);
        py::gil_scoped_release release;
        h = ops::direction_histogram(*source, p, Backend::Cpu);
    }
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

/// Frames × rows × columns of float32 on the host: the array's memory where every frame's rows
/// are contiguous (strides in whole floats), else a compact float32 copy.
struct FrameStack {
    py::array keep;
    int frames = 0, height = 0, width = 0;
    std::size_t frame_stride = 0, pitch = 0;  // bytes
    [[nodiscard]] ImageView<const float> frame(const int f) const {
        return {reinterpret_cast<const float*>(static_cast<const char*>(keep.data()) +
                                               f * frame_stride),
                width, height, pitch};
    }
};

FrameStack host_frames(const py::array& frames) {
    FrameStack s;
    if (frames.ndim() == 3 && float_rows_in_place(frames)) {
        s.keep = frames;
    } else {
        s.keep = FloatArray::ensure(frames);
        if (!s.keep || s.keep.ndim() != 3)
            throw py::value_error("frames must be a 3-D array (frames, rows, columns)");
    }
    s.frames = static_cast<int>(s.keep.shape(0));
    s.height = static_cast<int>(s.keep.shape(1));
    s.width = static_cast<int>(s.keep.shape(2));
    s.frame_stride = static_cast<std::size_t>(s.keep.strides(0));
    s.pitch = s.height > 1 ? static_cast<std::size_t>(s.keep.strides(1))
                           : sizeof(float) * static_cast<std::size_t>(s.width);
    return s;
}

/// The device stack as CudaKymograph reads it: frames top to bottom, rows of one pitch, so a
/// frame's stride must be its rows × the row stride (true of any contiguous tensor and of a
/// column crop of one).
ImageView<const float> device_stack(const python::ImportedTensor& t) {
    if (t.ndim() != 3 || t.sample_type() != SampleType::F32)
        throw py::value_error(
            "frames on the device must be a 3-D float32 array (frames, rows, "
            "columns), not a " +
            std::to_string(t.ndim()) + "-D " + t.dtype_name() + " array");
    const std::vector<std::int64_t> st = t.strides();
    const std::int64_t n = t.shape(0), h = t.shape(1), w = t.shape(2);
    if (n < 1 || h < 1 || w < 1) throw py::value_error("frames must hold at least one frame");
    const std::int64_t row = h > 1 ? st[1] : w;
    if ((w > 1 && st[2] != 1) || row < w || (n > 1 && st[0] != h * row))
        throw py::value_error(
            "frames on the device must be stacked rows of one stride (read in place, not "
            "copied): pass tensor.contiguous() or cupy.ascontiguousarray(frames)");
    if (n * h > std::numeric_limits<int>::max()) throw py::value_error("frames hold too many rows");
    return {static_cast<const float*>(t.data()), static_cast<int>(w), static_cast<int>(n * h),
            static_cast<std::size_t>(row) * sizeof(float)};
}

/// The kymograph on the device: the rows land in device memory returned as a DeviceArray; the
/// work is enqueued on the caller's stream (or the module's) and nothing waits for it.
py::object kymograph_device(const Imported& in, const ops::KymographPlan& plan) {
    const ImageView<const float> stack = device_stack(*in.tensor);
    const int frames = static_cast<int>(in.tensor->shape(0));
    auto result = std::make_shared<DeviceResult>();
    result->device = in.tensor->device_id();
    result->stream = in.stream;
    result->input = in.tensor;  // read by the enqueued kernel: kept until the result goes
    {
        const python::DeviceScope scope(result->device);
        py::gil_scoped_release release;
        auto engine = std::make_shared<ops::CudaKymograph>(plan, in.stream.stream);
        result->image = DeviceImage<float>(engine->plan().positions(), frames, in.stream.stream);
        engine->rows(stack, frames, result->image.device_view());
        result->keep = engine;  // its device tables are read by the enqueued kernel too
    }
    return py::cast(DeviceArray(std::move(result)));
}

py::object kymograph(const py::object& frames, const std::vector<std::pair<double, double>>& path,
                     const int band, const std::string& sampling,
                     const std::optional<py::tuple>& spacing,
                     const std::optional<double> frame_interval, const bool axes,
                     const std::optional<std::intptr_t> stream) {
    const PixelSpacing pixel = spacing_from(spacing);
    if (frame_interval && !(*frame_interval > 0 && std::isfinite(*frame_interval)))
        throw py::value_error("frame_interval must be a positive number of seconds");
    const Input in = take_input(frames, stream, "frames");
    const ops::KymographParams params = kymograph_params(path, band, sampling);
    py::object values;
    ops::KymographPlan plan;
    int t = 0;
    if (in.on_device()) {
        const python::ImportedTensor& tensor = *in.device.tensor;
        if (tensor.ndim() != 3)
            throw py::value_error("frames must be a 3-D array (frames, rows, columns)");
        t = static_cast<int>(tensor.shape(0));
        plan = ops::plan_kymograph(static_cast<int>(tensor.shape(2)),
                                   static_cast<int>(tensor.shape(1)), params);
        values = kymograph_device(in.device, plan);
    } else {
        const FrameStack stack = host_frames(in.host);
        t = stack.frames;
        if (t < 1) throw py::value_error("frames must hold at least one frame");
        const ops::KymographSampler sampler(ops::plan_kymograph(stack.width, stack.height, params));
        py::array_t<float> out({t, sampler.plan().positions()});
        float* dst = out.mutable_data();
        {
            py::gil_scoped_release release;
            for (int f = 0; f < t; ++f)
                sampler.row(stack.frame(f),
                            dst + static_cast<std::size_t>(f) * sampler.plan().positions());
        }
        values = std::move(out);
        plan = sampler.plan();
    }
    if (!axes && !spacing && !frame_interval) return values;
    // With the axes: distance in the spacing's unit, time in seconds (`lacuna kymograph`'s CSV).
    const std::vector<double> d = ops::kymograph_distances(plan, pixel);
    py::array_t<double> distance(static_cast<py::ssize_t>(d.size()));
    std::copy(d.begin(), d.end(), distance.mutable_data());
    py::array_t<double> time(t);
    for (int f = 0; f < t; ++f) time.mutable_at(f) = frame_interval ? f * *frame_interval : f;
    py::dict result;
    result["values"] = values;
    result["distance"] = distance;
    result["distance_unit"] = pixel.known() ? pixel.unit : std::string("px");
    result["time"] = time;
    result["time_unit"] = frame_interval ? "s" : "frame";
    return result;
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

py::array_t<std::uint8_t> retarget(const py::object& image, const std::optional<int> width,
                                   const std::optional<int> height, const std::string& energy,
                                   const std::optional<py::object>& protect,
                                   const std::optional<py::object>& remove, const bool faces,
                                   const double amount) {
    const Photo photo = rgba_from_numpy(host_input(image, "the image", "retarget"));
    const ImageRgba8& rgba = photo.rgba;
    const int w = rgba.width(), h = rgba.height();
    ops::RetargetParams p;
    p.width = width.value_or(w);
    p.height = height.value_or(h);
    const auto e = ops::parse_seam_energy(energy);
    if (!e)
        throw py::value_error("energy must be forward, l1, prewitt, sobel or transversal, not '" +
                              energy + "'");
    p.energy = *e;
    p.amount = amount;
    std::optional<Mask> protect_mask, remove_mask;
    if (protect)
        protect_mask =
            mask_from_numpy(host_input(*protect, "protect", "retarget"), w, h, "protect");
    if (remove)
        remove_mask = mask_from_numpy(host_input(*remove, "remove", "retarget"), w, h, "remove");
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

py::array_t<std::uint8_t> inpaint(const py::object& image, const py::object& mask,
                                  const std::string& method, const int patch,
                                  const std::uint32_t seed, const int grow,
                                  const std::optional<py::object>& never_sample) {
    const Photo photo = rgba_from_numpy(host_input(image, "the image", "inpaint"));
    const ImageRgba8& rgba = photo.rgba;
    const int w = rgba.width(), h = rgba.height();
    ops::InpaintParams p;
    const auto m = ops::parse_inpaint_method(method);
    if (!m) throw py::value_error("method must be criminisi or patchmatch, not '" + method + "'");
    p.method = *m;
    p.patch = patch;
    p.seed = seed;
    const Mask loaded = mask_from_numpy(host_input(mask, "mask", "inpaint"), w, h, "mask");
    if (grow < -ops::kMaxMaskGrow || grow > ops::kMaxMaskGrow)
        throw py::value_error("grow must be from " + std::to_string(-ops::kMaxMaskGrow) + " to " +
                              std::to_string(ops::kMaxMaskGrow) + " pixels");
    const Mask hole = grow != 0 ? grow_mask(loaded.view(), grow) : loaded;
    std::optional<Mask> never;
    if (never_sample)
        never = mask_from_numpy(host_input(*never_sample, "never_sample", "inpaint"), w, h,
                                "never_sample");
    p.never_sample = never ? &*never : nullptr;
    ops::InpaintResult result;
    {
        py::gil_scoped_release release;
        result = ops::inpaint(rgba.view(), hole, p, ops::InpaintImplementation::Fast);
    }
    return rgba_to_numpy(result.image, photo.channels);
}

/// The profiles of a region list (`lacuna histogram IMG --regions FILE`): `regions` is the
/// path of a regions file or a list of dicts in the file's form.
py::list region_profiles(const py::object& image, const py::object& regions,
                         const std::optional<std::string>& channel) {
    std::string text, name;
    if (py::isinstance<py::str>(regions)) {
        name = regions.cast<std::string>();
        std::ifstream in(name, std::ios::binary);
        if (!in) throw py::value_error("cannot read the regions file '" + name + "'");
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
        name = "the regions list";
        text = py::module_::import("json").attr("dumps")(regions).cast<std::string>();
    }
    std::vector<ops::ProfileRegion> list;
    try {
        list = ops::parse_regions(text, name);
    } catch (const Error& e) {
        throw py::value_error(e.what());
    }
    const Input in = take_input(image, std::nullopt, "the image");
    if (in.on_device())
        throw py::value_error(
            "region_profiles reads host arrays: copy the device array to the "
            "host first (kymograph takes device frames)");
    const std::unique_ptr<ops::HistogramSource> source = histogram_source(in.host);
    const ops::HistogramChannel picked = channel_for(source->is_measurement(), channel);
    if (picked == ops::HistogramChannel::Rgb)
        throw py::value_error("a region profile reads one channel: lum, r, g, b or value");
    const ops::HistogramChannel plane = source->planes_for(picked).front();
    py::list out;
    for (const ops::ProfileRegion& region : list) {
        ops::RegionProfile profile;
        {
            py::gil_scoped_release release;
            profile = ops::profile_region(region, source->plane(plane).view());
        }
        const ops::KymographPlan& plan = profile.plan;
        py::array_t<double> x(plan.positions()), y(plan.positions());
        for (int i = 0; i < plan.positions(); ++i) {
            const ops::Point2 c = plan.point(i);
            x.mutable_at(i) = c.x;
            y.mutable_at(i) = c.y;
        }
        py::dict d;
        d["name"] = region.name;
        d["type"] = ops::to_string(region.shape);
        d["band"] = plan.band();
        d["x"] = x;
        d["y"] = y;
        d["distance"] = vector_array(plan.distance);
        d["values"] = vector_array(profile.values);
        out.append(d);
    }
    return out;
}
}  // namespace

PYBIND11_MODULE(lacuna, m) {
    m.doc() =
        "Lacuna's engine on numpy arrays: images with their calibration, line and direction "
        "histograms, kymographs, retargeting and inpainting. Arrays through DLPack too; CUDA "
        "arrays run on the device (kymograph, line_histogram, direction_histogram).";
    python::register_device_array(m);
#ifdef LACUNA_HAS_CUDA
    m.attr("has_cuda") = true;
#else
    m.attr("has_cuda") = false;
#endif
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
          py::arg("sampling") = "bilinear", py::kw_only(), py::arg("stream") = py::none(),
          "Histogram of values at every position along the line start=(x0, y0) to end=(x1, y1), "
          "as `lacuna histogram --from --to`. image: a 2-D array of values or an H x W x 3/4 "
          "uint8 photo (numpy, or anything with __dlpack__). A CUDA array (CuPy, PyTorch: 2-D "
          "uint8/uint16/int16/float32 values with contiguous rows) is read on the device where "
          "it is, on `stream` (the caller's CUDA stream handle, e.g. "
          "torch.cuda.current_stream().cuda_stream; default: the module's own). Returns a dict: "
          "'channels' ({name: {'counts' (positions x bins), 'mean', "
          "'median', 'min', 'max', 'samples'}}), 'x', 'y', 'distance', 'range', 'bins', "
          "'clipped', 'samples_outside', 'samples_out_of_range'.");
    m.def("direction_histogram", &direction_histogram, py::arg("image"), py::arg("angle"),
          py::arg("bins") = ops::kDefaultHistogramBins, py::arg("range") = py::none(),
          py::arg("channel") = py::none(), py::arg("sampling") = "nearest", py::kw_only(),
          py::arg("stream") = py::none(),
          "Histogram of every line at `angle` degrees (0 = rightwards, 90 = downwards), as "
          "`lacuna histogram --direction`. CUDA arrays as in line_histogram. Returns {'channels': "
          "{name: counts (columns x bins)}, "
          "'range', 'bins', 'samples_outside', 'samples_out_of_range'}.");
    m.def("kymograph", &kymograph, py::arg("frames"), py::arg("path"), py::arg("band") = 1,
          py::arg("sampling") = "bilinear", py::arg("spacing") = py::none(),
          py::arg("frame_interval") = py::none(), py::arg("axes") = false, py::kw_only(),
          py::arg("stream") = py::none(),
          "The mean across a band of `band` samples at every position along `path` (a list of "
          "(x, y): two for a line, more for a polyline) in every frame of `frames` (frames x "
          "rows x columns): a float32 array of frames x positions, as `lacuna kymograph`. "
          "With axes=True, or given `spacing` ((x, y, unit), read()'s 'spacing') or "
          "`frame_interval` (seconds, read()'s 'frame_interval'), returns a dict instead: 'values' "
          "(that array), "
          "'distance' (each position's distance along the path in the spacing's unit, else "
          "pixels), 'distance_unit', 'time' (each frame's time in s, else its index), "
          "'time_unit' ('s' or 'frame'). CUDA frames (a float32 CuPy array or PyTorch tensor) are "
          "read on the device where they are, on `stream` (the caller's CUDA stream handle; "
          "default: the module's own), and the values come back as a lacuna.DeviceArray in "
          "device memory: torch.from_dlpack(v) or cupy.from_dlpack(v) takes it without a copy.");
    m.def("region_profiles", &region_profiles, py::arg("image"), py::arg("regions"),
          py::arg("channel") = py::none(),
          "Profiles of a region list, as `lacuna histogram IMG --regions FILE`: `regions` is a "
          "regions file's path or a list of dicts in its form ({'name', 'type': 'line' | "
          "'polyline' | 'rectangle', 'points' or 'x', 'y', 'width', 'height', ...}). A list "
          "of dicts per region: name, type, band, x, y, distance (pixels) and values (float32; "
          "NaN off the image).");
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
