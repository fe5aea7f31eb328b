#include "py_numpy.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include <nanobind/stl/string.h>

#include "py_optional.h"
#include "quiver/dlpack.h"

namespace quiver::python {

TypePtr TypeFromDtype(nb::dlpack::dtype dtype) {
  return Unwrap(dlpack::ValueTypeOf(dlpack::DLDataType{dtype.code, dtype.bits, dtype.lanes}));
}

nb::dlpack::dtype DtypeFromType(const DataType& type) {
  using Code = nb::dlpack::dtype_code;
  if (type.is_bool8()) return nb::dlpack::dtype{static_cast<uint8_t>(Code::Bool), 8, 1};
  if (type.is_low_precision_float()) {
    const dlpack::DLDataType dtype = *dlpack::DataTypeOf(type);
    return nb::dlpack::dtype{dtype.code, dtype.bits, dtype.lanes};
  }
  Code code = type.is_floating() ? Code::Float : type.is_signed_integer() ? Code::Int : Code::UInt;
  return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(type.bit_width()), 1};
}

namespace {

// The value type of a buffer-protocol format string, or null when quiver
// does not hold it (non-native byte order, bool, structs ...).
TypePtr TypeFromFormat(const char* format, Py_ssize_t itemsize) {
  if (*format == '<' || *format == '=' || *format == '@') ++format;
  if (format[0] == 0 || format[1] != 0) return nullptr;
  switch (format[0]) {
    case 'b': return int8();
    case 'B': return uint8();
    case 'h': return int16();
    case 'H': return uint16();
    case 'i':
    case 'l':
    case 'q': return itemsize == 4 ? int32() : itemsize == 8 ? int64() : nullptr;
    case 'I':
    case 'L':
    case 'Q': return itemsize == 4 ? uint32() : itemsize == 8 ? uint64() : nullptr;
    case 'e': return float16();
    case 'f': return float32();
    case 'd': return float64();
    case '?': return itemsize == 1 ? bool8() : nullptr;
    default: return nullptr;
  }
}

}  // namespace

Tensor TensorFromArray(const ArrayView& view, std::vector<std::string> dim_names) {
  const InputArray& array = view.array;
  TypePtr type = view.low_float ? view.low_float : TypeFromDtype(array.dtype());
  const int64_t width = type->byte_width();
  Dims shape(array.ndim(), 0), strides(array.ndim(), 0);
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(array.shape(i));
    // nanobind strides count elements; a producer's could overflow as bytes
    if (__builtin_mul_overflow(array.stride(i), width, &strides[i])) {
      Raise(Status::Invalid("stride " + std::to_string(array.stride(i)) + " of axis " +
                            std::to_string(i) + " overflows int64 in bytes"));
    }
  }
  // Hold the nanobind view (and so the producer's object) until the last
  // quiver buffer over it dies; drop it under the GIL.
  auto* keep = new InputArray(array);
  return Unwrap(Tensor::Wrap(
      std::move(type), reinterpret_cast<uintptr_t>(array.data()), std::move(shape),
      std::move(strides),
      [keep] {
        nb::gil_scoped_acquire gil;
        delete keep;
      },
      Device{}, std::move(dim_names)));
}

BorrowedBuffers::~BorrowedBuffers() {
  for (Py_buffer& view : views_) PyBuffer_Release(&view);
}

const Py_buffer* BorrowedBuffers::Borrow(PyObject* obj, TypePtr* type) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return nullptr;
  }
  const char* format = view.format ? view.format : "B";
  if (last_type_ && view.itemsize == last_itemsize_ && last_format_ == format) {
    *type = last_type_;
  } else {
    *type = TypeFromFormat(format, view.itemsize);
    if (!*type) {
      PyBuffer_Release(&view);
      return nullptr;
    }
    last_type_ = *type;
    last_format_ = format;
    last_itemsize_ = view.itemsize;
  }
  views_.push_back(view);
  return &views_.back();
}

namespace {

// A Python object looked up once and kept for the life of the process.
// Not a C++ function-local static: an import lets go of the GIL, another
// thread then waits on the static's initialisation lock while holding the
// GIL, and neither moves. Here two threads may both look it up (the import
// system serialises the import itself); the first to finish is kept.
template <typename Lookup>
PyObject* KeptOnce(std::atomic<PyObject*>& slot, Lookup&& lookup) {
  PyObject* kept = slot.load(std::memory_order_acquire);
  if (kept != nullptr) return kept;
  nb::object found = lookup();
  PyObject* expected = nullptr;
  if (slot.compare_exchange_strong(expected, found.ptr(), std::memory_order_acq_rel)) {
    return found.release().ptr();
  }
  return expected;
}

}  // namespace

nb::object Numpy() {
  // Imported once: an import per call is a few hundred nanoseconds of
  // dictionary lookups on paths that view an array.
  static std::atomic<PyObject*> module{nullptr};
  return nb::borrow(KeptOnce(module, [] { return nb::module_::import_("numpy"); }));
}

PyTypeObject* NumpyArrayType() {
  static std::atomic<PyObject*> type{nullptr};
  return reinterpret_cast<PyTypeObject*>(KeptOnce(type, [] { return Numpy().attr("ndarray"); }));
}

nb::tuple ToTuple(const std::vector<int64_t>& values) {
  nb::list out;
  for (int64_t v : values) out.append(v);
  return nb::tuple(out);
}

namespace {

// numpy.ma.MaskedArray, looked up once (kept for the life of the process).
nb::handle MaskedArrayType() {
  static std::atomic<PyObject*> type{nullptr};
  return KeptOnce(type, [] { return nb::module_::import_("numpy.ma").attr("MaskedArray"); });
}

// Why a NumPy dtype cannot hold tensor values, or "" when it can.
std::string UnsupportedDtype(nb::handle dtype) {
  const std::string kind = nb::cast<std::string>(dtype.attr("kind"));
  // bool, int, uint, float: the usual case returns before str(dtype),
  // which runs Python code in NumPy (about a microsecond).
  if (LowFloatTypeOfDtype(dtype)) return "";
  if (kind == "b" || kind == "i" || kind == "u" || kind == "f") return "";
  const std::string name = Str(dtype);
  if (kind == "O") return "dtype " + name + " (Python objects)";
  if (kind == "U" || kind == "S") return "dtype " + name + " (strings)";
  if (kind == "M" || kind == "m")
    return "dtype " + name + " (dates and times; view them as int64 first)";
  if (nb::cast<int>(dtype.attr("num")) >= 256) {  // a user dtype: other ml_dtypes types
    return "dtype " + name + " (a NumPy user dtype; of these quiver holds only ml_dtypes' " +
           "bfloat16, float8_e4m3fn and float8_e5m2)";
  }
  if (kind == "V") return "dtype " + name + " (structured or raw bytes)";
  if (kind == "c") return "dtype " + name + " (complex numbers)";
  return "";
}

}  // namespace

bool IsMaskedArray(nb::handle obj) {
  return PyObject_IsInstance(obj.ptr(), MaskedArrayType().ptr()) == 1;
}

nb::object PrepareArray(nb::handle obj, const char* what, CopyMode copy) {
  nb::object numpy = Numpy();
  nb::object array = nb::borrow(obj);
  if (!PyObject_TypeCheck(obj.ptr(), NumpyArrayType())) {
    InputArray view;
    if (nb::try_cast(obj, view)) return array;  // DLPack and buffer producers
    try {
      array = numpy.attr("asarray")(obj);
    } catch (nb::python_error& error) {
      Raise(Status::TypeError(std::string(what) + " is not an array of numbers (" + error.what() +
                              ")"));
    }
  }
  nb::object dtype = array.attr("dtype");
  std::string unsupported = UnsupportedDtype(dtype);
  if (!unsupported.empty()) {
    Raise(Status::TypeError(std::string(what) + " has " + unsupported +
                            "; tensors hold int, uint, float, bool and the ml_dtypes bfloat16, "
                            "float8_e4m3fn and float8_e5m2 values"));
  }
  if (!nb::cast<bool>(dtype.attr("isnative"))) {
    const std::string name = Str(dtype);
    if (copy == CopyMode::kNever) {
      Raise(Status::Invalid(std::string(what) + " has dtype " + name +
                            " in non-native byte order; a byte-swapping copy is needed (copy=None "
                            "or copy=True allow it)"));
    }
    array = array.attr("astype")(dtype.attr("newbyteorder")("="));
  }
  return array;
}

ArrayDataPtr StorageOf(const ArrayDataPtr& data) {
  auto storage = std::make_shared<ArrayData>(*data);
  storage->type = data->type->storage_type();
  return storage;
}

namespace {

// An unsigned-integer dtype of `type`'s width: NumPy arrays over
// low-precision floats are made as these and then viewed as ml_dtypes.
nb::dlpack::dtype BitsDtype(const DataType& type) {
  return nb::dlpack::dtype{static_cast<uint8_t>(nb::dlpack::dtype_code::UInt),
                           static_cast<uint8_t>(type.bit_width()), 1};
}

}  // namespace

nb::object TensorToNumpy(const Tensor& tensor, NumpyAccess access) {
  Check(tensor.CheckOnHost());  // NumPy would read device memory as host memory
  const DataType& type = *tensor.type();
  // Looked up first, so a missing ml_dtypes fails before anything is made.
  nb::object low_float = type.is_low_precision_float() ? NumpyDtype(type) : nb::object();
  const nb::dlpack::dtype dtype = low_float.is_valid() ? BitsDtype(type) : DtypeFromType(type);
  const int64_t width = tensor.type()->byte_width();
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  std::vector<int64_t> strides(tensor.strides());
  for (int64_t& s : strides) s /= width;  // whole elements: cells are element-aligned
  auto* owner = new BufferPtr(tensor.buffer());
  nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<BufferPtr*>(p); });
  if (access == NumpyAccess::kWritable) {
    nb::ndarray<nb::numpy> array(const_cast<uint8_t*>(tensor.raw_data()), shape.size(),
                                 shape.data(), keep, strides.data(), dtype);
    nb::object out = nb::cast(array, nb::rv_policy::reference);
    return low_float.is_valid() ? out.attr("view")(low_float) : out;
  }
  nb::ndarray<nb::numpy, nb::ro> view(tensor.raw_data(), shape.size(), shape.data(), keep,
                                      strides.data(), dtype);
  nb::object out = nb::cast(view, nb::rv_policy::reference);
  return low_float.is_valid() ? out.attr("view")(low_float) : out;
}

TypePtr LowFloatTypeOfDtype(nb::handle dtype) {
  // ml_dtypes registers its types as NumPy user dtypes (type numbers from
  // 256, NPY_USERDEF; their kind varies: "V", or "f" for float8_e5m2);
  // the scalar type's module tells them from other user dtypes.
  if (nb::cast<int>(dtype.attr("num")) < 256) return nullptr;
  nb::object scalar = dtype.attr("type");
  const std::string module = nb::cast<std::string>(nb::str(scalar.attr("__module__")));
  if (module.rfind("ml_dtypes", 0) != 0) return nullptr;
  const std::string name = nb::cast<std::string>(dtype.attr("name"));
  if (name == "bfloat16") return bfloat16();
  if (name == "float8_e4m3fn") return float8_e4m3fn();
  if (name == "float8_e5m2") return float8_e5m2();
  return nullptr;
}

nb::object NumpyDtype(const DataType& type) {
  nb::object numpy = Numpy();
  if (type.is_bool8()) return numpy.attr("dtype")("bool");
  if (type.is_low_precision_float()) {
    return numpy.attr("dtype")(ImportOptional("ml_dtypes").attr(type.ToString().c_str()));
  }
  if (!type.is_numeric()) {
    Raise(Status::TypeError(type.ToString() + " has no NumPy dtype"));
  }
  const char* name = type.is_floating() ? (type.bit_width() == 16   ? "float16"
                                           : type.bit_width() == 32 ? "float32"
                                                                    : "float64")
                                        : nullptr;
  if (name) return numpy.attr("dtype")(name);
  return numpy.attr("dtype")(
      (std::string(type.is_signed_integer() ? "int" : "uint") + std::to_string(type.bit_width()))
          .c_str());
}

nb::object ArrayProtocol(nb::object view, nb::handle dtype, nb::handle copy) {
  if (dtype.is_none() && copy.is_none()) return view;  // np.asarray(x): the view itself
  const CopyMode mode = CopyModeFromPython(copy);
  nb::object numpy = Numpy();
  if (mode == CopyMode::kAlways) {
    nb::dict kwargs;
    kwargs["copy"] = true;
    if (!dtype.is_none()) kwargs["dtype"] = dtype;
    return numpy.attr("array")(view, **kwargs);
  }
  if (!dtype.is_none()) {
    nb::object wanted = numpy.attr("dtype")(dtype);
    if (!wanted.equal(view.attr("dtype"))) {
      if (mode == CopyMode::kNever) {
        Raise(Status::Invalid("converting " + Str(view.attr("dtype")) + " to " + Str(wanted) +
                              " needs a copy, which copy=False forbids"));
      }
      return view.attr("astype")(wanted);
    }
  }
  return view;
}

ArrayView ViewArray(nb::handle ndarray, const char* what, CopyMode copy) {
  nb::object prepared = PrepareArray(ndarray, what, copy);
  ArrayView view;
  if (nb::hasattr(prepared, "dtype") && PyObject_TypeCheck(prepared.ptr(), NumpyArrayType())) {
    view.low_float = LowFloatTypeOfDtype(prepared.attr("dtype"));
    if (view.low_float) {
      // The same memory as unsigned integers of the same width (zero-copy).
      prepared =
          prepared.attr("view")(view.low_float->storage().bit_width() == 16 ? "uint16" : "uint8");
    }
  }
  if (!nb::try_cast(prepared, view.array)) {
    Raise(Status::TypeError(std::string(what) +
                            " is not an array of numbers: " + nb::repr(ndarray).c_str()));
  }
  return view;
}

}  // namespace quiver::python
