// Tensor: a dense strided tensor, zero-copy to and from NumPy.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "py_bindings.h"
#include "py_buffer_protocol.h"
#include "py_c_device.h"
#include "py_dlpack.h"
#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_repr.h"

namespace quiver::python {

namespace {

// One entry of a NumPy basic index. Bools are refused as NumPy reads them
// as masks (advanced indexing), not as the integers 0 and 1.
TensorIndex IndexEntry(nb::handle item) {
  PyObject* obj = item.ptr();
  if (item.is_none()) return TensorIndex::NewAxis();
  if (obj == Py_Ellipsis) return TensorIndex::Ellipsis();
  if (PySlice_Check(obj)) {
    // Absent bounds come back as the extremes, which Tensor::View clamps
    // to the ends the step walks from and to; a zero step is a ValueError.
    Py_ssize_t start = 0, stop = 0, step = 0;
    if (PySlice_Unpack(obj, &start, &stop, &step) < 0) throw nb::python_error();
    return TensorIndex::Slice(start, stop, step);
  }
  if (!PyBool_Check(obj) && PyIndex_Check(obj)) {
    // (NumPy arrays have __index__ but refuse it unless 0-d integers.)
    nb::object integer = nb::steal(PyNumber_Index(obj));
    if (integer.is_valid()) {
      int overflow = 0;
      const long long i = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
      if (i == -1 && PyErr_Occurred()) throw nb::python_error();
      if (overflow != 0) {  // quoted as written, before any axis is looked at
        Raise(Status::IndexError("index ", Str(integer),
                                 " is out of range: no axis holds 2^63 or more elements"));
      }
      return TensorIndex::Integer(static_cast<int64_t>(i));
    }
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw nb::python_error();
    PyErr_Clear();
  }
  throw nb::type_error(("Tensor indices are integers, slices, ... and None (basic indexing), "
                        "got " +
                        std::string(nb::type_name(item.type()).c_str()) +
                        "; for advanced indexing use numpy.asarray(t)[key]")
                           .c_str());
}

PyTensor TensorItem(const PyTensor& t, nb::handle key) {
  std::vector<TensorIndex> index;
  if (PyTuple_Check(key.ptr())) {
    for (nb::handle item : nb::borrow<nb::tuple>(key)) index.push_back(IndexEntry(item));
  } else {
    index.push_back(IndexEntry(key));
  }
  return PyTensor{Unwrap(t.tensor.View(index))};
}

}  // namespace

void BindTensor(nb::module_& m) {
  nb::class_<PyTensor>(m, "Tensor", "A dense strided tensor (shape in elements, strides in bytes).",
                       nb::type_slots(BufferSlots<PyTensor, &TensorView>()))
      .def_static(
          "from_numpy",
          [](nb::handle ndarray, std::optional<std::vector<std::string>> dim_names,
             nb::handle copy) {
            const CopyMode mode = CopyModeFromPython(copy);
            ArrayView view = ViewArray(ndarray, "ndarray", mode);
            Tensor t = TensorFromArray(view, dim_names.value_or(std::vector<std::string>{}));
            if (mode == CopyMode::kAlways) {
              Result<Tensor> copied = Status::Invalid("");
              {
                nb::gil_scoped_release no_gil;
                copied = t.ToContiguous();
              }
              t = Unwrap(std::move(copied));
            }
            return PyTensor{std::move(t)};
          },
          nb::arg("ndarray"), nb::arg("dim_names") = nb::none(), nb::arg("copy") = nb::none(),
          "Views a NumPy (or any buffer / DLPack) array, zero-copy; the array is kept alive. "
          "Non-native byte order is swapped into a copy (copy=False raises ValueError "
          "instead); copy=True always copies.")
      .def(
          "__array__",
          [](const PyTensor& t, nb::handle dtype, nb::handle copy) {
            return ArrayProtocol(TensorToNumpy(t.tensor), dtype, copy);
          },
          nb::arg("dtype") = nb::none(), nb::kw_only(), nb::arg("copy") = nb::none(),
          "NumPy's array protocol: a read-only zero-copy view; copy=True gives a writable copy, "
          "copy=False refuses a dtype conversion.")
      .def_prop_ro(
          "dtype", [](const PyTensor& t) { return NumpyDtype(*t.tensor.type()); },
          "The NumPy dtype of the values (bool8 -> bool).")
      .def("__len__",
           [](const PyTensor& t) {
             if (t.tensor.ndim() == 0) Raise(Status::TypeError("len() of a 0-d tensor"));
             return t.tensor.shape()[0];
           })
      .def("__getitem__", &TensorItem, nb::arg("key").none(),
           "NumPy basic indexing (integers, slices with any step, ..., None): a Tensor "
           "viewing the same memory, zero-copy; axes taken by an integer are dropped with "
           "their dim names. IndexError for an index out of range; TypeError for advanced "
           "indexing (lists, arrays, bools): index numpy.asarray(t) for that.")
      .def(
          "tolist", [](const PyTensor& t) { return TensorToNumpy(t.tensor).attr("tolist")(); },
          "The values as nested Python lists (a scalar for a 0-d tensor).")
      .def(
          "__reduce_ex__",
          [](const PyTensor& t, int protocol) { return ReduceTensor(t.tensor, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__",
          [](const PyTensor& t, nb::handle) {
            Result<Tensor> copied = Status::Invalid("");
            {
              nb::gil_scoped_release no_gil;
              copied = t.tensor.ToContiguous();
            }
            return PyTensor{Unwrap(std::move(copied))};
          },
          nb::arg("memo"))
      .def("__eq__",
           [](const PyTensor& a, nb::handle b) {
             if (!nb::isinstance<PyTensor>(b)) return false;
             const Tensor& other = nb::cast<PyTensor&>(b).tensor;
             nb::gil_scoped_release no_gil;
             return a.tensor.Equals(other);
           })
      .def("__ne__",
           [](const PyTensor& a, nb::handle b) {
             if (!nb::isinstance<PyTensor>(b)) return true;
             const Tensor& other = nb::cast<PyTensor&>(b).tensor;
             nb::gil_scoped_release no_gil;
             return !a.tensor.Equals(other);
           })
      .def(
          "to_numpy", [](const PyTensor& t) { return TensorToNumpy(t.tensor); },
          "A read-only NumPy view, zero-copy.")
      .def_prop_ro("shape", [](const PyTensor& t) { return ToTuple(t.tensor.shape()); })
      .def_prop_ro(
          "strides", [](const PyTensor& t) { return ToTuple(t.tensor.strides()); },
          "Byte strides, as NumPy reports them.")
      .def_prop_ro("dim_names",
                   [](const PyTensor& t) -> std::optional<std::vector<std::string>> {
                     if (t.tensor.dim_names().empty()) return std::nullopt;
                     return t.tensor.dim_names();
                   })
      .def_prop_ro("type", [](const PyTensor& t) { return PyDataType{t.tensor.type()}; })
      .def_prop_ro("ndim", [](const PyTensor& t) { return t.tensor.ndim(); })
      .def_prop_ro("size", [](const PyTensor& t) { return t.tensor.size(); })
      .def_prop_ro("is_contiguous", [](const PyTensor& t) { return t.tensor.IsContiguous(); })
      .def(
          "to_contiguous",
          [](const PyTensor& t) { return PyTensor{Unwrap(t.tensor.ToContiguous())}; },
          "A row-major copy.")
      .def(
          "equals",
          [](const PyTensor& a, const PyTensor& b) {
            nb::gil_scoped_release no_gil;
            return a.tensor.Equals(b.tensor);
          },
          nb::arg("other"), "Same type, shape and values.")
      .def(
          "__arrow_c_device_array__",
          [](const PyTensor& t, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) { return TensorDeviceCapsules(t.tensor, kwargs); },
          nb::arg("requested_schema") = nb::none(), nb::arg("kwargs"),
          "Exports the tensor as an arrow.fixed_shape_tensor array of shape[0] rows on its "
          "own device, zero-copy: (schema, device array) PyCapsules. Device memory is never "
          "read (it must be row-major); CPU cells that are not contiguous are copied.")
      .def_prop_ro(
          "device", [](const PyTensor& t) { return DLPackDevice(t.tensor.buffer()->device()); },
          "(device_type, device_id) in DLPack numbering; (1, 0) is the CPU.")
      .def("__repr__", [](const PyTensor& t) {
        std::string shape;
        for (int64_t s : t.tensor.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
        if (t.tensor.ndim() == 1) shape += ",";
        std::string header =
            "quiver.Tensor<" + t.tensor.type()->ToString() + "> shape=(" + shape + ")";
        if (!t.tensor.dim_names().empty()) {
          header += " dim_names=[";
          for (size_t i = 0; i < t.tensor.dim_names().size(); ++i) {
            header += (i ? ", " : "") + t.tensor.dim_names()[i];
          }
          header += "]";
        }
        if (!t.tensor.buffer()->device().is_cpu()) return header + " (device memory)";
        return header + "\n" + FormatValues(ValuesForRepr(t.tensor));
      });
  nb::handle cls = m.attr("Tensor");
  nb::setattr(cls, "__hash__", nb::none());
  AddTensorDLPack(cls);
}

}  // namespace quiver::python
