// DLPack producer and consumer for the Python module (see dlpack_interop.hpp).
#include "dlpack_interop.hpp"

#include <pybind11/stl.h>  // std::optional arguments (the stream)

#include <lacuna/core/error.hpp>

#include <map>
#include <mutex>

#ifdef LACUNA_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace lacuna::python {

namespace {

constexpr const char* kCapsuleName = "dltensor";
// A consumer renames the capsule it took, so that the capsule's own destructor knows not to
// free it again (the DLPack protocol).
constexpr const char* kUsedCapsuleName = "used_dltensor";

std::string device_name(const DLDevice device) {
    switch (device.device_type) {
        case kDLCPU:
            return "cpu";
        case kDLCUDA:
            return "cuda:" + std::to_string(device.device_id);
        case kDLCUDAHost:
            return "cuda pinned host memory";
        case kDLCUDAManaged:
            return "cuda managed memory";
        case kDLROCM:
            return "rocm:" + std::to_string(device.device_id);
        default:
            return "DLPack device type " + std::to_string(device.device_type);
    }
}

#ifdef LACUNA_HAS_CUDA
void cuda_throw(const cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw py::value_error(std::string(what) + ": " + cudaGetErrorString(status));
}

DeviceStream stream_of(const std::intptr_t protocol) {
    // The legacy and per-thread default streams' handles (cudaStreamLegacy, cudaStreamPerThread).
    if (protocol == 0 || protocol == 1) return reinterpret_cast<DeviceStream>(cudaStreamLegacy);
    if (protocol == 2) return reinterpret_cast<DeviceStream>(cudaStreamPerThread);
    return reinterpret_cast<DeviceStream>(protocol);
}
#endif

}  // namespace

// ---- ImportedTensor ----

ImportedTensor::~ImportedTensor() {
    if (managed_->deleter == nullptr) return;
    if (Py_IsInitialized() == 0) return;  // interpreter gone: the producer's memory goes with it
    const py::gil_scoped_acquire gil;
    managed_->deleter(managed_);
}

std::vector<std::int64_t> ImportedTensor::strides() const {
    const DLTensor& t = tensor();
    std::vector<std::int64_t> s(static_cast<std::size_t>(t.ndim));
    if (t.strides != nullptr) {
        std::copy_n(t.strides, t.ndim, s.begin());
        return s;
    }
    std::int64_t step = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
        s[static_cast<std::size_t>(i)] = step;
        step *= t.shape[i];
    }
    return s;
}

const void* ImportedTensor::data() const {
    return static_cast<const char*>(tensor().data) + tensor().byte_offset;
}

std::string ImportedTensor::dtype_name() const {
    const DLDataType d = tensor().dtype;
    std::string base;
    switch (d.code) {
        case kDLInt:
            base = "int";
            break;
        case kDLUInt:
            base = "uint";
            break;
        case kDLFloat:
            base = "float";
            break;
        case kDLBfloat:
            base = "bfloat";
            break;
        case kDLComplex:
            base = "complex";
            break;
        case 6:
            base = "bool";
            break;  // kDLBool (DLPack 0.8; 0.6's header does not name it)
        default:
            base = "opaque";
            break;
    }
    std::string name = base + std::to_string(d.bits);
    if (d.lanes != 1) name += "x" + std::to_string(d.lanes);
    return name;
}

std::optional<SampleType> ImportedTensor::sample_type() const {
    const DLDataType d = tensor().dtype;
    if (d.lanes != 1) return std::nullopt;
    if (d.code == kDLUInt && d.bits == 8) return SampleType::U8;
    if (d.code == kDLUInt && d.bits == 16) return SampleType::U16;
    if (d.code == kDLInt && d.bits == 16) return SampleType::I16;
    if (d.code == kDLFloat && d.bits == 32) return SampleType::F32;
    return std::nullopt;
}

// ---- taking tensors ----

bool is_dlpack(const py::handle& object) {
    if (py::isinstance<py::array>(object)) return false;
    // Any capsule: a used one ("used_dltensor") is refused with a sentence, not a type error.
    if (PyCapsule_CheckExact(object.ptr()) != 0) return true;
    return py::hasattr(object, "__dlpack__");
}

ConsumerStream consumer_stream(const std::optional<std::intptr_t>& given, const int device) {
#ifdef LACUNA_HAS_CUDA
    if (given) {
        if (*given < 0) throw py::value_error("stream must be a CUDA stream handle (an int >= 0)");
        return {*given == 0 ? 1 : *given, stream_of(*given)};
    }
    // One non-blocking stream per device for the life of the module: work never queues behind
    // the legacy default stream, and a caller who passes no stream still gets ordered results.
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<OwnedStream>> streams;
    const std::lock_guard lock(mutex);
    std::unique_ptr<OwnedStream>& owned = streams[device];
    if (!owned) {
        const DeviceScope scope(device);
        owned = std::make_unique<OwnedStream>();
    }
    return {reinterpret_cast<std::intptr_t>(owned->get()), owned->get()};
#else
    (void)given;
    (void)device;
    throw py::value_error(
        "this lacuna module was built without CUDA: device arrays cannot be read; copy them to "
        "the host first (tensor.cpu(), cupy.asnumpy)");
#endif
}

namespace {

std::shared_ptr<ImportedTensor> take_capsule(const py::handle& capsule) {
    if (PyCapsule_IsValid(capsule.ptr(), kCapsuleName) == 0)
        throw py::value_error(
            "the DLPack capsule was already consumed (a capsule can be imported once)");
    auto* managed =
        static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
    if (managed == nullptr) throw py::error_already_set();
    PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
    return std::make_shared<ImportedTensor>(managed);
}

}  // namespace

Imported import_dlpack(const py::handle& object, const std::optional<std::intptr_t>& given_stream,
                       const char* what) {
    Imported out;
    if (PyCapsule_CheckExact(object.ptr()) != 0) {
        // A bare capsule carries no stream agreement: its producer synchronised when it made it.
        out.tensor = take_capsule(object);
        if (out.tensor->on_cuda())
            out.stream = consumer_stream(given_stream, out.tensor->device_id());
    } else {
        int type = kDLCPU, id = 0;
        if (py::hasattr(object, "__dlpack_device__")) {
            const py::tuple device = object.attr("__dlpack_device__")();
            type = device[0].cast<int>();
            id = device[1].cast<int>();
        }
        if (type == kDLCPU) {
            out.tensor = take_capsule(object.attr("__dlpack__")());
        } else if (type == kDLCUDA) {
            out.stream = consumer_stream(given_stream, id);
            out.tensor =
                take_capsule(object.attr("__dlpack__")(py::arg("stream") = out.stream.protocol));
        } else {
            throw py::value_error(std::string(what) + " is on " +
                                  device_name({static_cast<DLDeviceType>(type), id}) +
                                  "; lacuna reads the CPU and CUDA devices");
        }
    }
    const DLTensor& t = out.tensor->tensor();
    if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDA)
        throw py::value_error(std::string(what) + " is on " + device_name(t.device) +
                              "; lacuna reads the CPU and CUDA devices");
    return out;
}

py::array numpy_view(const std::shared_ptr<ImportedTensor>& tensor, const char* what) {
    const DLDataType d = tensor->tensor().dtype;
    const bool real = d.lanes == 1 && (d.code == kDLInt || d.code == kDLUInt || d.code == kDLFloat);
    const bool sized = d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64;
    if (!real || !sized || (d.code == kDLFloat && d.bits == 8))
        throw py::value_error(std::string(what) + " has dtype " + tensor->dtype_name() +
                              "; lacuna takes integer or floating-point (real) arrays");
    const char kind = d.code == kDLFloat ? 'f' : d.code == kDLInt ? 'i' : 'u';
    const py::dtype dtype(std::string(1, kind) + std::to_string(d.bits / 8));
    std::vector<py::ssize_t> shape, strides;
    const std::vector<std::int64_t> elements = tensor->strides();
    for (int i = 0; i < tensor->ndim(); ++i) {
        shape.push_back(static_cast<py::ssize_t>(tensor->shape(i)));
        strides.push_back(
            static_cast<py::ssize_t>(elements[static_cast<std::size_t>(i)] * (d.bits / 8)));
    }
    // The numpy array's base holds the tensor: the producer's memory lives as long as the view.
    auto holder = std::make_unique<std::shared_ptr<ImportedTensor>>(tensor);
    const py::capsule base(holder.get(), [](void* p) {
        std::unique_ptr<std::shared_ptr<ImportedTensor>>(
            static_cast<std::shared_ptr<ImportedTensor>*>(p));
    });
    holder.release();  // owned by the capsule from here
    return py::array(dtype, shape, strides, tensor->data(), base);
}

// ---- DeviceScope ----

DeviceScope::DeviceScope(const int device) {
#ifdef LACUNA_HAS_CUDA
    int current = 0;
    cuda_throw(cudaGetDevice(&current), "finding the current CUDA device");
    if (current != device) {
        cuda_throw(cudaSetDevice(device), "selecting the input's CUDA device");
        previous_ = current;
    }
#else
    (void)device;
#endif
}

DeviceScope::~DeviceScope() {
#ifdef LACUNA_HAS_CUDA
    if (previous_ >= 0) cudaSetDevice(previous_);
#endif
}

// ---- DeviceArray: the producer side ----

namespace {

/// What a DLManagedTensor handed out points into: its shape and strides, and the result it
/// keeps alive until the consumer calls the deleter.
struct Export {
    DLManagedTensor managed{};
    std::int64_t shape[2] = {0, 0};
    std::int64_t strides[2] = {0, 0};
    std::shared_ptr<DeviceResult> result;
};

void delete_export(DLManagedTensor* managed) {
    // Made by dlpack() with make_unique and released to the consumer: ownership comes back here.
    std::unique_ptr<Export>(static_cast<Export*>(managed->manager_ctx));
}

void delete_unused_capsule(PyObject* capsule) {
    // A capsule nobody imported still owns its tensor.
    if (PyCapsule_IsValid(capsule, kCapsuleName) == 0) return;
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

}  // namespace

py::capsule DeviceArray::dlpack(const std::optional<std::intptr_t>& stream) const {
    const DeviceResult& r = *result_;
#ifdef LACUNA_HAS_CUDA
    // The consumer's stream waits, on the device, for the stream the result was made on.
    const std::intptr_t consumer = stream.value_or(1);
    if (consumer != -1 && stream_of(consumer) != r.stream.stream) {
        const DeviceScope scope(r.device);
        cudaEvent_t done = nullptr;
        cuda_throw(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "creating an event");
        const cudaError_t recorded = cudaEventRecord(done, r.stream.stream);
        const cudaError_t waited =
            recorded == cudaSuccess ? cudaStreamWaitEvent(stream_of(consumer), done, 0) : recorded;
        cudaEventDestroy(done);  // released once the wait has happened
        cuda_throw(waited, "ordering the consumer's stream after the result");
    }
#else
    (void)stream;
#endif
    auto e = std::make_unique<Export>();
    e->result = result_;
    e->shape[0] = r.image.height();
    e->shape[1] = r.image.width();
    e->strides[0] = static_cast<std::int64_t>(r.image.pitch() / sizeof(float));
    e->strides[1] = 1;
    DLTensor& t = e->managed.dl_tensor;
    t.data = const_cast<float*>(r.image.device_view().data);
    t.device = {kDLCUDA, r.device};
    t.ndim = 2;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = e->shape;
    t.strides = e->strides;
    t.byte_offset = 0;
    e->managed.manager_ctx = e.get();
    e->managed.deleter = delete_export;
    PyObject* capsule = PyCapsule_New(&e->managed, kCapsuleName, delete_unused_capsule);
    if (capsule == nullptr) throw py::error_already_set();
    e.release();  // owned by the capsule, then by whoever imports it
    return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple DeviceArray::dlpack_device() const {
    return py::make_tuple(static_cast<int>(kDLCUDA), result_->device);
}

py::tuple DeviceArray::shape() const {
    return py::make_tuple(result_->image.height(), result_->image.width());
}

std::uintptr_t DeviceArray::data_ptr() const {
    return reinterpret_cast<std::uintptr_t>(result_->image.device_view().data);
}

void register_device_array(py::module_& m) {
    py::class_<DeviceArray>(m, "DeviceArray",
                            "A float32 result in CUDA device memory. Import it without a copy "
                            "with torch.from_dlpack(a) or cupy.from_dlpack(a).")
        // The array API's keywords: max_version (a consumer asking for a versioned capsule
        // still takes the unversioned one a producer without them returns, as CuPy and
        // PyTorch do), dl_device (only the array's own) and copy (never made here).
        .def(
            "__dlpack__",
            [](const DeviceArray& a, const std::optional<std::intptr_t>& stream,
               const py::object& max_version, const py::object& dl_device, const py::object& copy) {
                (void)max_version;
                if (!copy.is_none() && copy.cast<bool>())
                    throw py::buffer_error(
                        "a lacuna.DeviceArray is exported without a copy "
                        "only (copy=True asked for one)");
                if (!dl_device.is_none() && !dl_device.equal(a.dlpack_device()))
                    throw py::buffer_error(
                        "a lacuna.DeviceArray is exported on its own device "
                        "only");
                return a.dlpack(stream);
            },
            py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
            py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
            "A DLPack capsule; `stream` is the consumer's CUDA stream (None: the legacy "
            "default stream, -1: no synchronisation).")
        .def("__dlpack_device__", &DeviceArray::dlpack_device)
        .def_property_readonly("shape", &DeviceArray::shape)
        .def_property_readonly("dtype", [](const DeviceArray&) { return "float32"; })
        .def_property_readonly("device", &DeviceArray::dlpack_device)
        .def_property_readonly("data_ptr", &DeviceArray::data_ptr,
                               "The device address of the first element.");
}

}  // namespace lacuna::python
