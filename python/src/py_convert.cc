#include "py_convert.h"

#include "quiver/internal/checked_math.h"
#include "quiver/dlpack.h"

namespace quiver::python {

void Raise(const Status& status) {
  PyObject* type = PyExc_ValueError;
  switch (status.code()) {
    case StatusCode::kTypeError: type = PyExc_TypeError; break;
    case StatusCode::kIndexError: type = PyExc_IndexError; break;
    case StatusCode::kNotImplemented: type = PyExc_NotImplementedError; break;
    case StatusCode::kIOError: type = PyExc_OSError; break;
    case StatusCode::kOutOfMemory: type = PyExc_MemoryError; break;
    default: break;
  }
  PyErr_SetString(type, status.message().c_str());
  throw nb::python_error();
}

TypePtr TypeFromDtype(nb::dlpack::dtype dtype) {
  return Unwrap(dlpack::ValueTypeOf(dlpack::DLDataType{dtype.code, dtype.bits, dtype.lanes}));
}

nb::dlpack::dtype DtypeFromType(const DataType& type) {
  using Code = nb::dlpack::dtype_code;
  if (type.is_bool8()) return nb::dlpack::dtype{static_cast<uint8_t>(Code::Bool), 8, 1};
  Code code = type.is_floating() ? Code::Float : type.is_signed_integer() ? Code::Int : Code::UInt;
  return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(type.bit_width()), 1};
}

namespace {

// A Tensor over memory someone else owns: `first` is element [0, ...],
// strides are in bytes; `release` runs when the last buffer over it dies.
Tensor TensorOverMemory(TypePtr type, const uint8_t* first, std::vector<int64_t> shape,
                        std::vector<int64_t> strides, std::vector<std::string> dim_names,
                        Buffer::ReleaseHook release) {
  // The bytes the array spans, relative to its first element.
  int64_t low = 0, high = type->byte_width();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) {
      low = high = 0;
      break;
    }
    int64_t span = (shape[i] - 1) * strides[i];
    if (span < 0) low += span; else high += span;
  }
  BufferPtr buffer = Buffer::Wrap(first + low, high - low, std::move(release));
  return Unwrap(Tensor::Make(std::move(type), std::move(buffer), std::move(shape),
                             std::move(strides), std::move(dim_names), -low));
}

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
    case 'i': case 'l': case 'q':
      return itemsize == 4 ? int32() : itemsize == 8 ? int64() : nullptr;
    case 'I': case 'L': case 'Q':
      return itemsize == 4 ? uint32() : itemsize == 8 ? uint64() : nullptr;
    case 'e': return float16();
    case 'f': return float32();
    case 'd': return float64();
    case '?': return itemsize == 1 ? bool8() : nullptr;
    default: return nullptr;
  }
}

}  // namespace

Tensor TensorFromArray(const InputArray& array, std::vector<std::string> dim_names) {
  TypePtr type = TypeFromDtype(array.dtype());
  const int64_t width = type->byte_width();
  std::vector<int64_t> shape(array.ndim()), strides(array.ndim());
  for (size_t i = 0; i < array.ndim(); ++i) {
    shape[i] = static_cast<int64_t>(array.shape(i));
    strides[i] = array.stride(i) * width;  // nanobind strides count elements
  }
  // Hold the nanobind view (and so the producer's object) until the last
  // quiver buffer over it dies; drop it under the GIL.
  auto* keep = new InputArray(array);
  return TensorOverMemory(std::move(type), static_cast<const uint8_t*>(array.data()),
                          std::move(shape), std::move(strides), std::move(dim_names), [keep] {
                            nb::gil_scoped_acquire gil;
                            delete keep;
                          });
}

BorrowedBuffers::~BorrowedBuffers() {
  for (Py_buffer& view : views_) PyBuffer_Release(&view);
}

std::optional<Tensor> BorrowedBuffers::TryBorrow(nb::handle obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  TypePtr type = TypeFromFormat(view.format ? view.format : "B", view.itemsize);
  if (!type) {
    PyBuffer_Release(&view);
    return std::nullopt;
  }
  views_.push_back(view);
  std::vector<int64_t> shape(view.shape, view.shape + view.ndim);
  std::vector<int64_t> strides(view.strides, view.strides + view.ndim);
  return TensorOverMemory(std::move(type), static_cast<const uint8_t*>(view.buf),
                          std::move(shape), std::move(strides), {}, nullptr);
}

nb::tuple ToTuple(const std::vector<int64_t>& values) {
  nb::list out;
  for (int64_t v : values) out.append(v);
  return nb::tuple(out);
}

// Resolves a Python index (negative counts from the end) against `length`.
int64_t ResolveIndex(int64_t index, int64_t length) {
  int64_t resolved = index < 0 ? index + length : index;
  if (resolved < 0 || resolved >= length) {
    Raise(Status::IndexError("index " + std::to_string(index) + " is out of range for " +
                             std::to_string(length) + " rows"));
  }
  return resolved;
}

// [start, start + count) of a step-1 Python slice over `length` rows.
std::pair<int64_t, int64_t> ResolveSlice(const nb::slice& slice, int64_t length) {
  auto [start, stop, step, count] = slice.compute(static_cast<size_t>(length));
  if (step != 1) {
    Raise(Status::NotImplemented("slices with a step other than 1 are not supported (got " +
                                 std::to_string(step) + ")"));
  }
  return {static_cast<int64_t>(start), static_cast<int64_t>(count)};
}

CopyMode CopyModeFromPython(std::optional<bool> copy) {
  if (!copy) return CopyMode::kIfNeeded;
  return *copy ? CopyMode::kAlways : CopyMode::kNever;
}

ArrayDataPtr StorageOf(const ArrayDataPtr& data) {
  auto storage = std::make_shared<ArrayData>(*data);
  storage->type = data->type->storage_type();
  return storage;
}

nb::object TensorToNumpy(const Tensor& tensor) {
  Check(tensor.CheckOnHost());  // NumPy would read device memory as host memory
  const int64_t width = tensor.type()->byte_width();
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  std::vector<int64_t> strides(tensor.strides());
  for (int64_t& s : strides) s /= width;  // whole elements: cells are element-aligned
  auto* owner = new BufferPtr(tensor.buffer());
  nb::capsule keep(owner, [](void* p) noexcept { delete static_cast<BufferPtr*>(p); });
  nb::ndarray<nb::numpy, nb::ro> view(tensor.raw_data(), shape.size(), shape.data(), keep,
                                      strides.data(), DtypeFromType(*tensor.type()));
  return nb::cast(view, nb::rv_policy::reference);
}

}  // namespace quiver::python
