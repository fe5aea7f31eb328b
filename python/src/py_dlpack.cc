// DLPack capsules: producing them for quiver tensors and consuming them
// from NumPy, PyTorch, JAX and any other producer.
#include "py_dlpack.h"

#include <nanobind/stl/string.h>

#include "py_convert.h"
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

template <typename Managed, const char* kName>
nb::object WrapCapsule(Result<Managed*> exported) {
  if (!exported.ok()) {
    if (exported.status().code() == StatusCode::kInvalid) RaiseBufferError(exported.status().message());
    Raise(exported.status());
  }
  PyObject* capsule = PyCapsule_New(*exported, kName, &DeleteUnconsumed<Managed, kName>);
  if (capsule == nullptr) {
    (*exported)->deleter(*exported);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

// Whether max_version asks for the versioned (1.x) struct.
bool WantsVersioned(nb::handle max_version) {
  if (max_version.is_none()) return false;
  if (!nb::isinstance<nb::tuple>(max_version) || nb::len(max_version) != 2) {
    Raise(Status::TypeError("max_version must be None or a (major, minor) tuple"));
  }
  return nb::cast<int64_t>(max_version[0]) >= 1;
}

CopyMode CopyModeOf(nb::handle copy) {
  if (copy.is_none()) return CopyMode::kIfNeeded;
  return nb::cast<bool>(copy) ? CopyMode::kAlways : CopyMode::kNever;
}

// Renames the capsule to its "used_" name (before anything can fail, as the
// protocol asks) and imports it; the deleter then runs exactly once.
Tensor ConsumeCapsule(nb::handle capsule, uint64_t* flags) {
  PyObject* object = capsule.ptr();
  if (PyCapsule_IsValid(object, kVersionedName)) {
    auto* managed = static_cast<dlpack::DLManagedTensorVersioned*>(PyCapsule_GetPointer(object, kVersionedName));
    if (PyCapsule_SetName(object, kUsedVersionedName) != 0) throw nb::python_error();
    return Unwrap(dlpack::Import(managed, flags));
  }
  if (PyCapsule_IsValid(object, kLegacyName)) {
    auto* managed = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(object, kLegacyName));
    if (PyCapsule_SetName(object, kUsedLegacyName) != 0) throw nb::python_error();
    *flags = 0;
    return Unwrap(dlpack::ImportLegacy(managed));
  }
  if (PyCapsule_IsValid(object, kUsedVersionedName) || PyCapsule_IsValid(object, kUsedLegacyName)) {
    RaiseBufferError("this DLPack capsule was already consumed; ask the producer for a new one");
  }
  Raise(Status::TypeError("expected a DLPack capsule ('dltensor' or 'dltensor_versioned') or an "
                          "object with __dlpack__, got " +
                          std::string(nb::type_name(capsule.type()).c_str())));
}

// The capsule an object with __dlpack__ hands over: versioned first, the
// legacy call for producers that predate max_version.
nb::object CapsuleFrom(nb::handle obj, nb::handle device, nb::handle copy) {
  nb::dict kwargs;
  kwargs["max_version"] = nb::make_tuple(dlpack::kMajorVersion, dlpack::kMinorVersion);
  if (!device.is_none()) kwargs["dl_device"] = device;
  if (!copy.is_none()) kwargs["copy"] = copy;
  nb::object dlpack = obj.attr("__dlpack__");
  try {
    return dlpack(**kwargs);
  } catch (nb::python_error& error) {
    if (!error.matches(PyExc_TypeError)) throw;
  }
  return dlpack();
}

bool IsCpu(nb::handle device) {
  if (device.is_none()) return true;
  nb::tuple pair = nb::cast<nb::tuple>(device);
  return nb::len(pair) == 2 && nb::cast<int>(pair[0]) == dlpack::kDeviceCPU;
}

Tensor FromDLPack(nb::handle obj, nb::handle device, nb::handle copy) {
  bool is_capsule = PyCapsule_CheckExact(obj.ptr());
  if (!is_capsule && !nb::hasattr(obj, "__dlpack__")) {
    Raise(Status::TypeError("quiver.from_dlpack needs an object with __dlpack__ or a DLPack "
                            "capsule, got " + std::string(nb::type_name(obj.type()).c_str())));
  }
  if (!device.is_none() && !IsCpu(device)) {
    RaiseBufferError("quiver.from_dlpack can place tensors on the CPU only (device=(1, 0)); "
                     "device=None keeps the producer's device");
  }
  nb::object capsule = is_capsule ? nb::borrow(obj) : CapsuleFrom(obj, device, copy);
  uint64_t flags = 0;
  Tensor tensor = ConsumeCapsule(capsule, &flags);
  const bool want_copy = !copy.is_none() && nb::cast<bool>(copy);
  if (want_copy && !(flags & dlpack::kFlagIsCopied)) return Unwrap(tensor.ToContiguous());
  return tensor;
}

}  // namespace

nb::object DLPackCapsule(const Tensor& tensor, nb::handle stream, nb::handle max_version,
                         nb::handle dl_device, nb::handle copy, bool fresh) {
  const Device& device = tensor.buffer()->device();
  if (!stream.is_none() && device.is_cpu()) {
    RaiseBufferError("stream must be None for CPU tensors");
  }
  if (!dl_device.is_none()) {
    nb::tuple wanted = nb::cast<nb::tuple>(dl_device);
    if (nb::len(wanted) != 2 || nb::cast<int>(wanted[0]) != device.type ||
        nb::cast<int>(wanted[1]) != device.id) {
      RaiseBufferError("cannot export to device " + std::string(nb::repr(dl_device).c_str()) +
                       ": the tensor lives on (" + std::to_string(device.type) + ", " +
                       std::to_string(device.id) + ") and quiver does not copy across devices");
    }
  }
  const CopyMode mode = fresh ? CopyMode::kNever : CopyModeOf(copy);
  if (WantsVersioned(max_version)) {
    auto exported = dlpack::Export(tensor, mode);
    if (exported.ok() && fresh) (*exported)->flags = dlpack::kFlagIsCopied;
    return WrapCapsule<dlpack::DLManagedTensorVersioned, kVersionedName>(std::move(exported));
  }
  return WrapCapsule<dlpack::DLManagedTensor, kLegacyName>(dlpack::ExportLegacy(tensor, mode));
}

nb::object ColumnDLPackCapsule(const FixedShapeTensorArray& array, nb::handle stream,
                               nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  bool unpacked = false;
  auto tensor = dlpack::ColumnTensor(array, NullPolicy::kError, CopyModeOf(copy), &unpacked);
  if (!tensor.ok()) {
    std::string hint = array.null_count() > 0
                           ? "; export a.to_tensor(allow_nulls=True) to include null rows"
                           : "";
    RaiseBufferError(tensor.status().message() + hint);
  }
  return DLPackCapsule(*tensor, stream, max_version, dl_device, copy, unpacked);
}

nb::tuple DLPackDevice(const Device& device) {
  return nb::make_tuple(device.type, device.id);
}

void BindDLPack(nb::module_& m) {
  m.def("from_dlpack",
        [](nb::handle obj, nb::handle device, nb::handle copy) {
          return PyTensor{FromDLPack(obj, device, copy)};
        },
        nb::arg("x"), nb::kw_only(), nb::arg("device").none() = nb::none(),
        nb::arg("copy").none() = nb::none(),
        "A quiver.Tensor over the memory of any DLPack producer (NumPy, PyTorch, JAX, ...) or "
        "a DLPack capsule, zero-copy. Asks for the versioned (1.x) struct first and falls back "
        "to the legacy call. copy=True makes a private copy; device=None keeps the producer's "
        "device (memory off the CPU is held, never read).");
}

}  // namespace quiver::python
