// Tensor: a dense strided tensor, zero-copy to and from NumPy.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "py_convert.h"
#include "py_dlpack.h"
#include "py_objects.h"

namespace quiver::python {

void BindTensor(nb::module_& m) {
  nb::class_<PyTensor>(m, "Tensor",
                       "A dense strided tensor (shape in elements, strides in bytes).")
      .def_static(
          "from_numpy",
          [](InputArray ndarray, std::optional<std::vector<std::string>> dim_names) {
            return PyTensor{TensorFromArray(ndarray, dim_names.value_or(std::vector<std::string>{}))};
          },
          nb::arg("ndarray"), nb::arg("dim_names") = nb::none(),
          "Views a NumPy (or any buffer / DLPack) array, zero-copy; the array is kept alive.")
      .def("to_numpy", [](const PyTensor& t) { return TensorToNumpy(t.tensor); },
           "A read-only NumPy view, zero-copy.")
      .def_prop_ro("shape", [](const PyTensor& t) { return ToTuple(t.tensor.shape()); })
      .def_prop_ro("strides", [](const PyTensor& t) { return ToTuple(t.tensor.strides()); },
                   "Byte strides, as NumPy reports them.")
      .def_prop_ro("dim_names", [](const PyTensor& t) -> std::optional<std::vector<std::string>> {
        if (t.tensor.dim_names().empty()) return std::nullopt;
        return t.tensor.dim_names();
      })
      .def_prop_ro("type", [](const PyTensor& t) { return PyDataType{t.tensor.type()}; })
      .def_prop_ro("ndim", [](const PyTensor& t) { return t.tensor.ndim(); })
      .def_prop_ro("size", [](const PyTensor& t) { return t.tensor.size(); })
      .def_prop_ro("is_contiguous", [](const PyTensor& t) { return t.tensor.IsContiguous(); })
      .def("to_contiguous", [](const PyTensor& t) { return PyTensor{Unwrap(t.tensor.ToContiguous())}; },
           "A row-major copy.")
      .def("equals", [](const PyTensor& a, const PyTensor& b) { return a.tensor.Equals(b.tensor); },
           nb::arg("other"), "Same type, shape and values.")
      .def("__dlpack__",
           [](const PyTensor& t, nb::handle stream, nb::handle max_version, nb::handle dl_device,
              nb::handle copy) { return DLPackCapsule(t.tensor, stream, max_version, dl_device, copy); },
           nb::kw_only(), nb::arg("stream").none() = nb::none(),
           nb::arg("max_version").none() = nb::none(), nb::arg("dl_device").none() = nb::none(),
           nb::arg("copy").none() = nb::none(),
           "A DLPack capsule over the tensor's memory, zero-copy and marked read-only "
           "(copy=True gives the consumer a private copy).")
      .def("__dlpack_device__", [](const PyTensor& t) { return DLPackDevice(t.tensor.buffer()->device()); })
      .def_prop_ro("device", [](const PyTensor& t) { return DLPackDevice(t.tensor.buffer()->device()); },
                   "(device_type, device_id) in DLPack numbering; (1, 0) is the CPU.")
      .def("__repr__", [](const PyTensor& t) {
        std::string shape;
        for (int64_t s : t.tensor.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
        return "quiver.Tensor<" + t.tensor.type()->ToString() + ">(shape=(" + shape + "))";
      });
}

}  // namespace quiver::python
