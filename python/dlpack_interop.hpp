// DLPack for `import lacuna`: taking arrays from any producer (numpy >= 1.22, CuPy, PyTorch,
// JAX) through the `__dlpack__` / `__dlpack_device__` protocol or a bare "dltensor" capsule, and
// handing device results back the same way. The structs are Debian's libdlpack-dev (0.6: the
// DLManagedTensor ABI every producer still speaks; the versioned 1.0 struct is not used).
#pragma once

#include <lacuna/core/device_image.hpp>
#include <lacuna/core/native_image.hpp>

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lacuna::python {

namespace py = pybind11;

/// A tensor taken from its producer. The consumer owns it: the producer's deleter runs once,
/// with the GIL held (CuPy's deleter is Python code), when the last holder lets go.
class ImportedTensor {
  public:
    explicit ImportedTensor(DLManagedTensor* managed) : managed_(managed) {}
    ~ImportedTensor();
    ImportedTensor(const ImportedTensor&) = delete;
    ImportedTensor& operator=(const ImportedTensor&) = delete;

    [[nodiscard]] const DLTensor& tensor() const { return managed_->dl_tensor; }
    [[nodiscard]] int ndim() const { return tensor().ndim; }
    [[nodiscard]] std::int64_t shape(int i) const { return tensor().shape[i]; }
    /// Strides in elements, filled in for compact (row-major) tensors that give none.
    [[nodiscard]] std::vector<std::int64_t> strides() const;
    /// The first element (data + byte_offset).
    [[nodiscard]] const void* data() const;
    [[nodiscard]] bool on_cuda() const { return tensor().device.device_type == kDLCUDA; }
    [[nodiscard]] int device_id() const { return tensor().device.device_id; }
    /// "float32", "uint16", "complex64", ... as numpy spells them.
    [[nodiscard]] std::string dtype_name() const;
    /// The engine's sample type for uint8, uint16, int16 and float32 (the types images are
    /// stored as); none for anything else.
    [[nodiscard]] std::optional<SampleType> sample_type() const;

  private:
    DLManagedTensor* managed_;
};

/// True for an object with `__dlpack__` (that is not a numpy array: those keep their own path)
/// or a capsule (a used one is then refused by import_dlpack).
bool is_dlpack(const py::handle& object);

/// Where a CUDA consumer works: the stream handle to hand `__dlpack__` (1: the legacy default
/// stream, 2: per-thread default, else a cudaStream_t) and the same as the engine's type.
struct ConsumerStream {
    std::intptr_t protocol = 1;
    DeviceStream stream = nullptr;
};

/// The caller's `stream=` argument (an int: torch.cuda.current_stream().cuda_stream, CuPy's
/// Stream.ptr; 0 and 1 both mean the legacy default stream), else the module's own non-blocking
/// stream on `device`.
ConsumerStream consumer_stream(const std::optional<std::intptr_t>& given, int device);

/// Takes the tensor: a capsule as is; otherwise `__dlpack__()` for CPU producers and
/// `__dlpack__(stream=...)` for CUDA ones, so the producer orders its pending work before the
/// stream the engine will read on. `given_stream` as consumer_stream(). Throws ValueError for
/// devices other than the CPU and CUDA, and for CUDA in a build without it.
struct Imported {
    std::shared_ptr<ImportedTensor> tensor;
    ConsumerStream stream;  // CUDA only
};
Imported import_dlpack(const py::handle& object, const std::optional<std::intptr_t>& given_stream,
                       const char* what);

/// A CPU tensor as a numpy array over the same memory (no copy; strides kept), which keeps the
/// tensor alive. ValueError for dtypes numpy code here cannot take (complex, bfloat16, vectors).
py::array numpy_view(const std::shared_ptr<ImportedTensor>& tensor, const char* what);

/// Switches the current CUDA device for a scope (the input's), back on exit. No-op without CUDA.
class DeviceScope {
  public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

  private:
    int previous_ = -1;
};

/// A float32 result in device memory, computed on `stream`: what `torch.from_dlpack` /
/// `cupy.from_dlpack` import without a copy. Holds whatever the enqueued work still reads (the
/// input tensor, the engine object with its device tables) until the last export is gone.
struct DeviceResult {
    DeviceImage<float> image;
    ConsumerStream stream;
    int device = 0;
    std::shared_ptr<ImportedTensor> input;
    std::shared_ptr<void> keep;
};

class DeviceArray {
  public:
    explicit DeviceArray(std::shared_ptr<DeviceResult> result) : result_(std::move(result)) {}
    /// A "dltensor" capsule of rows × columns float32 with the image's row pitch as stride.
    /// `stream` is the consumer's (DLPack protocol: None = legacy default stream, -1 = do not
    /// synchronise): it is made to wait, on the device, for the work that made the result.
    [[nodiscard]] py::capsule dlpack(const std::optional<std::intptr_t>& stream) const;
    [[nodiscard]] py::tuple dlpack_device() const;
    [[nodiscard]] py::tuple shape() const;
    /// The device address of element (0, 0): tests check it lies in device memory.
    [[nodiscard]] std::uintptr_t data_ptr() const;

  private:
    std::shared_ptr<DeviceResult> result_;
};

void register_device_array(py::module_& m);

}  // namespace lacuna::python
