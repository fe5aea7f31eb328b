#include "py_buffer_protocol.h"

#include <new>
#include <string>

namespace quiver::python {

namespace {

// The struct-module format of a tensor value type ('l' for int64 on
// LP64 systems, so NumPy reads it as numpy.int64, not numpy.longlong).
const char* FormatOf(const DataType& type) {
  if (type.is_bool8()) return "?";
  if (type.is_floating()) return type.bit_width() == 16 ? "e" : type.bit_width() == 32 ? "f" : "d";
  const bool is_signed = type.is_signed_integer();
  switch (type.bit_width()) {
    case 8: return is_signed ? "b" : "B";
    case 16: return is_signed ? "h" : "H";
    case 32: return is_signed ? "i" : "I";
    default: return sizeof(long) == 8 ? (is_signed ? "l" : "L") : (is_signed ? "q" : "Q");
  }
}

int Refuse(const std::string& why) {
  PyErr_SetString(PyExc_BufferError, why.c_str());
  return -1;
}

}  // namespace

Result<Tensor> TensorView(const PyTensor& t) { return t.tensor; }

Result<Tensor> ColumnView(const PyFixedShapeTensorArray& a) { return a.array.ToTensor(); }

int FillBuffer(PyObject* exporter, const Tensor& tensor, Py_buffer* view, int flags) {
  if (!tensor.buffer()->device().is_cpu()) return Refuse("the tensor lives in device memory");
  if (tensor.type()->is_low_precision_float()) {
    // The struct module has no code for these; an "H" or "B" view would
    // pass their bits off as integers.
    return Refuse(tensor.type()->ToString() +
                  " values have no buffer-protocol format; use numpy.asarray (with ml_dtypes "
                  "installed) or DLPack");
  }
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE) {
    return Refuse("quiver tensors are read-only (shared Arrow memory); copy with numpy.array(x)");
  }
  const bool c_contiguous = tensor.IsContiguous();
  const bool strided = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
  if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !c_contiguous) {
    return Refuse("the tensor is not C-contiguous");
  }
  if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !tensor.IsColumnMajor()) {
    return Refuse("the tensor is not Fortran-contiguous");
  }
  if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !c_contiguous &&
      !tensor.IsColumnMajor()) {
    return Refuse("the tensor is not contiguous");
  }
  if (!strided && !c_contiguous) return Refuse("the tensor is strided; ask for strides");
  const int ndim = tensor.ndim();
  // Shape then strides, freed by ReleaseBuffer.
  auto* dims = new (std::nothrow) Py_ssize_t[static_cast<size_t>(2 * ndim + 1)];
  if (dims == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  for (int i = 0; i < ndim; ++i) {
    dims[i] = static_cast<Py_ssize_t>(tensor.shape()[i]);
    dims[ndim + i] = static_cast<Py_ssize_t>(tensor.strides()[i]);
  }
  const int64_t width = tensor.type()->byte_width();
  view->buf = const_cast<uint8_t*>(tensor.raw_data());  // readonly = 1 below
  view->obj = exporter;
  Py_INCREF(exporter);  // keeps the C++ object, and so its memory, alive
  view->len = static_cast<Py_ssize_t>(tensor.size() * width);
  view->readonly = 1;
  view->itemsize = static_cast<Py_ssize_t>(width);
  view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT
                     ? const_cast<char*>(FormatOf(*tensor.type()))
                     : nullptr;
  const bool with_shape = (flags & PyBUF_ND) == PyBUF_ND;
  view->ndim = with_shape ? ndim : 1;
  view->shape = with_shape ? dims : nullptr;
  view->strides = strided ? dims + ndim : nullptr;
  view->suboffsets = nullptr;
  view->internal = dims;
  return 0;
}

void ReleaseBuffer(PyObject*, Py_buffer* view) {
  delete[] static_cast<Py_ssize_t*>(view->internal);
}

}  // namespace quiver::python
