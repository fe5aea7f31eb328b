// DLPack capsules: producing them for quiver tensors and consuming them
// from NumPy, PyTorch, JAX and any other producer.
#include "py_dlpack.h"
#include "py_bindings.h"

#include <nanobind/stl/string.h>

#include "py_errors.h"
#include "py_fastcall.h"
#include "py_objects.h"
#include "quiver/dlpack_columns.h"

namespace quiver::python {

namespace {

constexpr char kLegacyName[] = "dltensor";
constexpr char kVersionedName[] = "dltensor_versioned";
constexpr char kUsedLegacyName[] = "used_dltensor";
constexpr char kUsedVersionedName[] = "used_dltensor_versioned";

[[noreturn]] void RaiseBufferError(const std::string& message) {
  PyErr_SetString(PyExc_BufferError, message.c_str());
  throw nb::python_error();
}

// Capsule destructor: a capsule nobody consumed (still under its original
// name) still owns the managed tensor.
template <typename Managed, const char* kName>
void DeleteUnconsumed(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kName)) return;  // renamed: the consumer owns it
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, kName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

// Taken by reference: moving a Result (its Status and string) costs a
// store-forwarding stall on a call of a couple of hundred nanoseconds.
template <typename Managed, const char* kName>
nb::object WrapCapsule(const Result<Managed*>& exported) {
  if (!exported.ok()) {
    if (exported.status().code() == StatusCode::kInvalid)
      RaiseBufferError(exported.status().message());
    Raise(exported.status());
  }
  Managed* managed = *exported;
  PyObject* capsule = PyCapsule_New(managed, kName, &DeleteUnconsumed<Managed, kName>);
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

// Whether max_version asks for the versioned (1.x) struct.
bool WantsVersioned(nb::handle max_version) {
  if (max_version.is_none()) return false;
  PyObject* tuple = max_version.ptr();
  if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 2) {
    Raise(Status::TypeError("max_version must be None or a (major, minor) tuple"));
  }
  PyObject* major = PyTuple_GET_ITEM(tuple, 0);
  int overflow = 0;
  const long long value = PyLong_Check(major) ? PyLong_AsLongLongAndOverflow(major, &overflow) : -1;
  if (!PyLong_Check(major) || (value == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    Raise(Status::TypeError("max_version must be None or a (major, minor) tuple of ints"));
  }
  return overflow > 0 || value >= 1;
}

CopyMode CopyModeOf(nb::handle copy) { return CopyModeFromPython(copy, "copy"); }

// A (device_type, device_id) pair; TypeError naming `name` otherwise.
std::pair<int, int> DevicePair(nb::handle device, const char* name) {
  if (nb::isinstance<nb::tuple>(device) && nb::len(device) == 2) {
    int type = 0, id = 0;
    if (nb::try_cast(device[0], type) && nb::try_cast(device[1], id)) return {type, id};
  }
  Raise(Status::TypeError(std::string(name) +
                          " must be a (device_type, device_id) tuple of ints "
                          "such as (1, 0) for the CPU, got " +
                          nb::repr(device).c_str()));
}

// Renames the capsule to its "used_" name (before anything can fail, as the
// protocol asks) and imports it; the deleter then runs exactly once.
Tensor ConsumeCapsule(nb::handle capsule, uint64_t* flags) {
  PyObject* object = capsule.ptr();
  if (PyCapsule_IsValid(object, kVersionedName)) {
    auto* managed = static_cast<dlpack::DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(object, kVersionedName));
    if (PyCapsule_SetName(object, kUsedVersionedName) != 0) throw nb::python_error();
    return Unwrap(dlpack::Import(managed, flags));
  }
  if (PyCapsule_IsValid(object, kLegacyName)) {
    auto* managed =
        static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(object, kLegacyName));
    if (PyCapsule_SetName(object, kUsedLegacyName) != 0) throw nb::python_error();
    *flags = 0;
    return Unwrap(dlpack::ImportLegacy(managed));
  }
  if (PyCapsule_IsValid(object, kUsedVersionedName) || PyCapsule_IsValid(object, kUsedLegacyName)) {
    RaiseBufferError("this DLPack capsule was already consumed; ask the producer for a new one");
  }
  Raise(
      Status::TypeError("expected a DLPack capsule ('dltensor' or 'dltensor_versioned') or an "
                        "object with __dlpack__, got " +
                        std::string(nb::type_name(capsule.type()).c_str())));
}

// The capsule an object with __dlpack__ hands over: versioned first, the
// legacy call for producers that predate max_version. Called by vectorcall
// with interned keyword names, as NumPy does: no dict is built.
nb::object CapsuleFrom(nb::handle obj, nb::handle device, nb::handle copy) {
  static PyObject* const dlpack_name = Interned("__dlpack__");
  static PyObject* const max_version =
      nb::make_tuple(dlpack::kMajorVersion, dlpack::kMinorVersion).release().ptr();
  // One keyword tuple for each combination of the optional arguments.
  static PyObject* const kwnames[4] = {
      nb::make_tuple(nb::handle(Interned("max_version"))).release().ptr(),
      nb::make_tuple(nb::handle(Interned("max_version")), nb::handle(Interned("dl_device")))
          .release()
          .ptr(),
      nb::make_tuple(nb::handle(Interned("max_version")), nb::handle(Interned("copy")))
          .release()
          .ptr(),
      nb::make_tuple(nb::handle(Interned("max_version")), nb::handle(Interned("dl_device")),
                     nb::handle(Interned("copy")))
          .release()
          .ptr()};
  PyObject* args[4] = {obj.ptr(), max_version, nullptr, nullptr};
  size_t count = 2;
  if (!device.is_none()) args[count++] = device.ptr();
  if (!copy.is_none()) args[count++] = copy.ptr();
  PyObject* names = kwnames[(device.is_none() ? 0 : 1) + (copy.is_none() ? 0 : 2)];
  PyObject* capsule = PyObject_VectorcallMethod(dlpack_name, args, 1, names);
  if (capsule != nullptr) return nb::steal(capsule);
  if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    nb::python_error error;  // fetched: hasattr below needs a clean state
    if (!nb::hasattr(obj, dlpack_name)) {
      Raise(
          Status::TypeError("quiver.from_dlpack needs an object with __dlpack__ or a DLPack "
                            "capsule, got " +
                            std::string(nb::type_name(obj.type()).c_str())));
    }
    throw error;  // raised inside __dlpack__ itself
  }
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
  PyErr_Clear();
  capsule = PyObject_VectorcallMethod(dlpack_name, args, 1, nullptr);
  if (capsule == nullptr) throw nb::python_error();
  return nb::steal(capsule);
}

bool IsCpu(nb::handle device) {
  if (device.is_none()) return true;
  return DevicePair(device, "device").first == dlpack::kDeviceCPU;
}

Tensor FromDLPack(nb::handle obj, nb::handle device, nb::handle copy) {
  const bool is_capsule = PyCapsule_CheckExact(obj.ptr());
  // TypeError for anything but None, True and False, before the producer runs.
  const CopyMode mode = CopyModeOf(copy);
  if (!device.is_none() && !IsCpu(device)) {
    RaiseBufferError(
        "quiver.from_dlpack can place tensors on the CPU only (device=(1, 0)); "
        "device=None keeps the producer's device");
  }
  nb::object capsule = is_capsule ? nb::borrow(obj) : CapsuleFrom(obj, device, copy);
  uint64_t flags = 0;
  Tensor tensor = ConsumeCapsule(capsule, &flags);
  if (mode == CopyMode::kAlways && !(flags & dlpack::kFlagIsCopied)) {
    tensor = Unwrap(tensor.ToContiguous());
  }
  return tensor;  // one return: no move on the way out
}

// A Python Tensor owning `tensor`, made in place without looking the
// class up by C++ type.
nb::object NewPyTensor(Tensor&& tensor) {
  static const nb::handle type = nb::type<PyTensor>();
  nb::object self = nb::inst_alloc(type);
  new (nb::inst_ptr<PyTensor>(self)) PyTensor{std::move(tensor)};
  nb::inst_mark_ready(self);
  return self;
}

// __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)
// by vectorcall; `Export` makes the capsule for a `Self`.
template <typename Self,
          nb::object (*Export)(const Self&, nb::handle, nb::handle, nb::handle, nb::handle)>
PyObject* FastDLPack(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return Guarded([&]() -> nb::object {
    static PyObject* const names[] = {Interned("stream"), Interned("max_version"),
                                      Interned("dl_device"), Interned("copy")};
    PyObject* given[4];
    if (!MatchArguments("__dlpack__", args, nargs, kwnames, names, 0, given)) return {};
    if (!nb::inst_ready(self)) Raise(Status::TypeError("__dlpack__ of an uninitialised object"));
    return Export(*nb::inst_ptr<Self>(self), ArgOrNone(given[0]), ArgOrNone(given[1]),
                  ArgOrNone(given[2]), ArgOrNone(given[3]));
  });
}

nb::object TensorCapsule(const PyTensor& t, nb::handle stream, nb::handle max_version,
                         nb::handle dl_device, nb::handle copy) {
  return DLPackCapsule(t.tensor, stream, max_version, dl_device, copy);
}

Device TensorDevice(const PyTensor& t) { return t.tensor.buffer()->device(); }

Device ColumnDevice(const PyFixedShapeTensorArray& a) {
  const BufferPtr& values = a.array.data()->children[0]->buffers[1];
  return values ? values->device() : Device{};
}

// __dlpack_device__() as a plain METH_NOARGS method: no argument parsing.
template <typename Self, Device (*DeviceOf)(const Self&)>
PyObject* FastDLPackDevice(PyObject* self, PyObject*) {
  return Guarded([&]() -> nb::object {
    if (!nb::inst_ready(self))
      Raise(Status::TypeError("__dlpack_device__ of an uninitialised object"));
    return DLPackDevice(DeviceOf(*nb::inst_ptr<Self>(self)));
  });
}

nb::object ColumnCapsule(const PyFixedShapeTensorArray& a, nb::handle stream,
                         nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  return ColumnDLPackCapsule(a.array, stream, max_version, dl_device, copy);
}

// quiver.from_dlpack(x, *, device=None, copy=None) by vectorcall.
PyObject* FastFromDLPack(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return Guarded([&]() -> nb::object {
    static PyObject* const names[] = {Interned("x"), Interned("device"), Interned("copy")};
    PyObject* given[3];
    if (!MatchArguments("from_dlpack", args, nargs, kwnames, names, 1, given)) return {};
    if (given[0] == nullptr) Raise(Status::TypeError("from_dlpack() missing argument 'x'"));
    return NewPyTensor(FromDLPack(given[0], ArgOrNone(given[1]), ArgOrNone(given[2])));
  });
}

}  // namespace

nb::object DLPackCapsule(const Tensor& tensor, nb::handle stream, nb::handle max_version,
                         nb::handle dl_device, nb::handle copy, bool fresh) {
  const Device& device = tensor.buffer()->device();
  if (!stream.is_none() && device.is_cpu()) {
    RaiseBufferError("stream must be None for CPU tensors");
  }
  if (!dl_device.is_none()) {
    auto [type, id] = DevicePair(dl_device, "dl_device");
    if (type != device.type || id != device.id) {
      RaiseBufferError("cannot export to device " + std::string(nb::repr(dl_device).c_str()) +
                       ": the tensor lives on (" + std::to_string(device.type) + ", " +
                       std::to_string(device.id) + ") and quiver does not copy across devices");
    }
  }
  const CopyMode mode = fresh ? CopyMode::kNever : CopyModeOf(copy);
  if (WantsVersioned(max_version)) {
    auto exported = dlpack::Export(tensor, mode);
    if (exported.ok() && fresh) (*exported)->flags = dlpack::kFlagIsCopied;
    return WrapCapsule<dlpack::DLManagedTensorVersioned, kVersionedName>(exported);
  }
  return WrapCapsule<dlpack::DLManagedTensor, kLegacyName>(dlpack::ExportLegacy(tensor, mode));
}

nb::object ColumnDLPackCapsule(const FixedShapeTensorArray& array, nb::handle stream,
                               nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  bool unpacked = false;
  auto tensor = dlpack::ColumnTensor(array, NullPolicy::kError, CopyModeOf(copy), &unpacked);
  if (!tensor.ok()) {
    std::string hint =
        array.null_count() > 0 ? "; export a.to_tensor(allow_nulls=True) to include null rows" : "";
    RaiseBufferError(tensor.status().message() + hint);
  }
  return DLPackCapsule(*tensor, stream, max_version, dl_device, copy, unpacked);
}

nb::tuple DLPackDevice(const Device& device) {
  // np.from_dlpack asks every producer first: the CPU's pair is made once.
  static PyObject* const cpu = nb::make_tuple(dlpack::kDeviceCPU, 0).release().ptr();
  if (device == Device{}) return nb::borrow<nb::tuple>(cpu);
  return nb::make_tuple(device.type, device.id);
}

void AddTensorDLPack(nb::handle cls) {
  static PyMethodDef def = {
      "__dlpack__",
      reinterpret_cast<PyCFunction>(
          reinterpret_cast<void (*)()>(&FastDLPack<PyTensor, &TensorCapsule>)),
      METH_FASTCALL | METH_KEYWORDS,
      "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
      "A DLPack capsule over the tensor's memory, zero-copy and marked read-only "
      "(copy=True gives the consumer a private copy)."};
  AddFastMethod(cls, &def);
  static PyMethodDef device = {"__dlpack_device__",
                               reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
                                   &FastDLPackDevice<PyTensor, &TensorDevice>)),
                               METH_NOARGS,
                               "__dlpack_device__($self, /)\n--\n\nThe (device_type, device_id) "
                               "pair of the tensor's memory: "
                               "(1, 0) for the CPU."};
  AddFastMethod(cls, &device);
}

void AddColumnDLPack(nb::handle cls) {
  static PyMethodDef def = {
      "__dlpack__",
      reinterpret_cast<PyCFunction>(
          reinterpret_cast<void (*)()>(&FastDLPack<PyFixedShapeTensorArray, &ColumnCapsule>)),
      METH_FASTCALL | METH_KEYWORDS,
      "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
      "The whole column as one (N, *logical_shape) DLPack tensor, zero-copy (bit-packed "
      "bools are unpacked into a copy, refused with copy=False). Null rows raise "
      "BufferError."};
  AddFastMethod(cls, &def);
  static PyMethodDef device = {
      "__dlpack_device__",
      reinterpret_cast<PyCFunction>(
          reinterpret_cast<void (*)()>(&FastDLPackDevice<PyFixedShapeTensorArray, &ColumnDevice>)),
      METH_NOARGS,
      "__dlpack_device__($self, /)\n--\n\nThe (device_type, device_id) pair of the column's "
      "values: (1, 0) for the CPU."};
  AddFastMethod(cls, &device);
}

void BindDLPack(nb::module_& m) {
  static PyMethodDef def = {
      "from_dlpack", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&FastFromDLPack)),
      METH_FASTCALL | METH_KEYWORDS,
      "from_dlpack(x, *, device=None, copy=None)\n--\n\n"
      "A quiver.Tensor over the memory of any DLPack producer (NumPy, PyTorch, JAX, ...) or "
      "a DLPack capsule, zero-copy. Asks for the versioned (1.x) struct first and falls back "
      "to the legacy call. copy=True makes a private copy; device=None keeps the producer's "
      "device (memory off the CPU is held, never read)."};
  PyObject* function = PyCFunction_NewEx(&def, nullptr, m.attr("__name__").ptr());
  if (function == nullptr) throw nb::python_error();
  m.attr("from_dlpack") = nb::steal(function);
}

}  // namespace quiver::python
