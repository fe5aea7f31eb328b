// safetensors files: the private bindings quiver.safetensors wraps
// (load, open, save, to_table, from_table).
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "quiver/safetensors.h"

namespace quiver::python {

namespace {

struct PySafetensorsFile {
  SafetensorsFile file;
};

}  // namespace

void BindSafetensors(nb::module_& m) {
  nb::class_<PySafetensorsFile>(m, "_SafetensorsFile")
      .def("keys", [](const PySafetensorsFile& f) { return f.file.names(); })
      .def("metadata", [](const PySafetensorsFile& f) { return f.file.metadata(); })
      .def("entry",
           [](const PySafetensorsFile& f, const std::string& name) -> nb::object {
             const SafetensorsEntry* entry = f.file.Find(name);
             if (entry == nullptr) return nb::none();
             std::vector<int64_t> shape(entry->shape.begin(), entry->shape.end());
             return nb::make_tuple(entry->dtype, ToTuple(shape), entry->begin, entry->end);
           })
      .def("tensor",
           [](const PySafetensorsFile& f, const std::string& name) {
             return PyTensor{Unwrap(f.file.GetTensor(name))};
           })
      .def("numpy", [](const PySafetensorsFile& f, const std::string& name) {
        return TensorToNumpy(Unwrap(f.file.GetTensor(name)));
      });
  m.def("_safetensors_open", [](const std::string& path) {
    return PySafetensorsFile{Unwrap(WithoutGil([&] { return SafetensorsFile::Open(path); }))};
  });
  m.def("_safetensors_save",
        [](const std::vector<std::tuple<std::string, PyTensor, std::string>>& items,
           const std::string& path, const std::map<std::string, std::string>& metadata) {
          std::vector<SafetensorsInput> tensors;
          tensors.reserve(items.size());
          for (const auto& [name, tensor, dtype] : items) {
            tensors.push_back({name, tensor.tensor, dtype});
          }
          Check(WithoutGil([&] { return WriteSafetensorsFile(tensors, metadata, path); }));
        });
  m.def("_safetensors_to_table",
        [](const PySafetensorsFile& f) { return PyTable{Unwrap(SafetensorsToTable(f.file))}; });
  // `metadata` given replaces the table's schema metadata.
  m.def("_safetensors_from_table",
        [](const PyTable& t, const std::string& path,
           const std::optional<std::map<std::string, std::string>>& metadata) {
          SafetensorsContents contents = Unwrap(SafetensorsFromTable(*t.table()));
          if (metadata) contents.metadata = *metadata;
          Check(WithoutGil(
              [&] { return WriteSafetensorsFile(contents.tensors, contents.metadata, path); }));
          return contents.tensors.size();
        });
}

}  // namespace quiver::python
