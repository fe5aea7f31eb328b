// enforce_shape, ShapePattern and Bindings.
//
// The common call, enforce_shape(ndarray, "b h w 3"), is kept free of
// intermediate Python objects: string patterns are parsed once into a
// small cache keyed by the str object, `.shape` is read straight from the
// tuple, and the dims list is built directly.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "py_bindings.h"
#include "py_errors.h"
#include "py_objects.h"
#include "quiver/shape_pattern.h"

namespace quiver::python {

namespace {

struct PyShapePattern {
  ShapePattern pattern;
  std::string source;  // the string it was parsed from, or "" for a list
};

struct PyBindings {
  ShapeBindings bindings;
};

constexpr Py_ssize_t kCacheLimit = 1024;
// str -> ShapePattern; owned by the module (as _pattern_cache) so that it
// is released with it.
PyObject* pattern_cache = nullptr;

std::string TypeName(nb::handle value) {
  return nb::cast<std::string>(nb::handle(value.type()).attr("__name__"));
}

// An int that is not a bool (NumPy integers included), or nullopt.
std::optional<int64_t> AsSize(PyObject* item, bool* overflow) {
  *overflow = false;
  if (PyBool_Check(item)) return std::nullopt;
  if (PyLong_CheckExact(item) || PyLong_Check(item)) {
    int of = 0;
    const long long v = PyLong_AsLongLongAndOverflow(item, &of);
    if (of != 0) {
      *overflow = true;
      return std::nullopt;
    }
    return static_cast<int64_t>(v);
  }
  if (!PyIndex_Check(item)) return std::nullopt;
  nb::object index = nb::steal(PyNumber_Index(item));
  if (!index.is_valid()) {
    PyErr_Clear();
    return std::nullopt;
  }
  return AsSize(index.ptr(), overflow);
}

ShapePattern ParseList(nb::handle sequence) {
  std::vector<ShapeEntry> entries;
  nb::object fast = nb::steal(PySequence_Fast(sequence.ptr(), "pattern"));
  if (!fast.is_valid()) throw nb::python_error();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    const std::string where = "pattern entry " + std::to_string(i);
    bool overflow = false;
    if (item == Py_None) {
      entries.push_back(ShapeEntry::Any());
    } else if (item == Py_Ellipsis) {
      entries.push_back(ShapeEntry::Ellipsis());
    } else if (PyUnicode_Check(item)) {
      // One token of the string form: "b", "_", "...", "*rest", "3".
      std::string token = nb::cast<std::string>(nb::handle(item));
      auto parsed = ShapePattern::Parse(token);
      if (!parsed.ok()) Raise(Status::Invalid(where + ": " + parsed.status().message()));
      if (parsed->size() != 1) {
        Raise(Status::Invalid(where + " " + std::string(nb::repr(nb::handle(item)).c_str()) +
                              ": expected one entry, not " + std::to_string(parsed->size())));
      }
      entries.push_back(parsed->entries()[0]);
    } else if (std::optional<int64_t> size = AsSize(item, &overflow)) {
      entries.push_back(ShapeEntry::Size(*size));
    } else if (overflow) {
      Raise(Status::Invalid(where + ": size does not fit int64"));
    } else {
      Raise(Status::TypeError(where + " must be an int, None, ..., or a str, not " +
                              TypeName(nb::handle(item))));
    }
  }
  return Unwrap(ShapePattern::Make(std::move(entries)));
}

PyShapePattern MakePattern(nb::handle pattern) {
  if (PyUnicode_Check(pattern.ptr())) {
    std::string text = nb::cast<std::string>(pattern);
    return {Unwrap(ShapePattern::Parse(text)), text};
  }
  if (nb::isinstance<PyShapePattern>(pattern)) return nb::cast<PyShapePattern&>(pattern);
  if (PyList_Check(pattern.ptr()) || PyTuple_Check(pattern.ptr())) return {ParseList(pattern), ""};
  Raise(Status::TypeError(
      "pattern must be a str, a list or tuple of entries, or a quiver.ShapePattern, not " +
      TypeName(pattern)));
}

// The parsed pattern behind `pattern`; `holder` keeps it alive.
const ShapePattern& ResolvePattern(nb::handle pattern, nb::object& holder) {
  PyObject* cache = pattern_cache;
  if (PyUnicode_CheckExact(pattern.ptr())) {
    PyObject* hit = PyDict_GetItemWithError(cache, pattern.ptr());
    if (hit) return nb::inst_ptr<PyShapePattern>(nb::handle(hit))->pattern;
    if (PyErr_Occurred()) throw nb::python_error();
    holder = nb::cast(MakePattern(pattern));
    if (PyDict_Size(cache) >= kCacheLimit) PyDict_Clear(cache);
    if (PyDict_SetItem(cache, pattern.ptr(), holder.ptr()) != 0) throw nb::python_error();
    return nb::inst_ptr<PyShapePattern>(holder)->pattern;
  }
  if (nb::isinstance<PyShapePattern>(pattern))
    return nb::inst_ptr<PyShapePattern>(pattern)->pattern;
  holder = nb::cast(MakePattern(pattern));
  return nb::inst_ptr<PyShapePattern>(holder)->pattern;
}

// Per-row sizes as a NumPy array of T (-1 in null rows) of its own.
template <typename T>
nb::object PerRowArray(const std::shared_ptr<const PerRowSizes>& values) {
  size_t shape[1] = {values->size()};
  if constexpr (std::is_same_v<T, int32_t>) {
    // A ragged column's sizes are int32 from end to end. Held by this
    // result alone (no Bindings shares them), they become the array as
    // they are: the capsule keeps them, nothing else sees or frees them.
    if (values->is_int32() && values.use_count() == 1) {
      auto* held = new std::shared_ptr<const PerRowSizes>(values);
      nb::capsule owner(held, [](void* p) noexcept {
        delete static_cast<std::shared_ptr<const PerRowSizes>*>(p);
      });
      auto* data = const_cast<int32_t*>(values->int32().data());  // (allocated non-const)
      return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, 1, shape, owner).cast();
    }
  }
  std::vector<T>* copy = nullptr;
  if (values->is_int32()) {
    copy = new std::vector<T>(values->int32().begin(), values->int32().end());
  } else {
    copy = new std::vector<T>(values->int64().begin(), values->int64().end());
  }
  nb::capsule owner(copy, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(copy->data(), 1, shape, owner).cast();
}

nb::object DimToPython(const DimSize& size, bool elements) {
  if (!size.varies()) return nb::steal(PyLong_FromLongLong(size.value));
  return elements ? PerRowArray<int64_t>(size.per_row) : PerRowArray<int32_t>(size.per_row);
}

nb::object AxesToPython(const std::vector<DimSize>& axes) {
  nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(axes.size())));
  for (size_t k = 0; k < axes.size(); ++k) {
    PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(k),
                     DimToPython(axes[k], false).release().ptr());
  }
  return tuple;
}

nb::object BindingToPython(const ShapeBinding& binding) {
  return binding.is_axes ? AxesToPython(binding.axes) : DimToPython(binding.size, false);
}

// `x.shape` as int64 sizes (any sequence of ints; TypeError otherwise).
void ReadShape(nb::handle x, std::vector<int64_t>& shape) {
  static PyObject* name = PyUnicode_InternFromString("shape");
  nb::object attr = nb::steal(PyObject_GetAttr(x.ptr(), name));
  if (!attr.is_valid()) {
    PyErr_Clear();
    Raise(Status::TypeError("enforce_shape needs an array with a .shape, not " + TypeName(x)));
  }
  nb::object fast = nb::steal(PySequence_Fast(attr.ptr(), ""));
  if (!fast.is_valid()) {
    PyErr_Clear();
    Raise(Status::TypeError(".shape of " + TypeName(x) +
                            " is not a sequence of ints: " + std::string(nb::repr(attr).c_str())));
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  shape.resize(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (PyLong_CheckExact(item)) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
      if (overflow == 0 && v >= 0) {
        shape[static_cast<size_t>(i)] = static_cast<int64_t>(v);
        continue;
      }
    }
    bool overflow = false;
    std::optional<int64_t> size = AsSize(item, &overflow);
    if (!size || *size < 0) {
      const std::string what = ".shape entry " + std::to_string(i) + " of " + TypeName(x) + " ";
      if (overflow) Raise(Status::Invalid(what + "does not fit int64"));
      if (size) Raise(Status::Invalid(what + "is negative: " + std::to_string(*size)));
      Raise(Status::TypeError(what +
                              "is not an int: " + std::string(nb::repr(nb::handle(item)).c_str())));
    }
    shape[static_cast<size_t>(i)] = *size;
  }
}

ShapeMatch Match(nb::handle x, const ShapePattern& pattern, const EnforceShapeOptions& options) {
  if (nb::isinstance<PyTensor>(x))
    return Unwrap(EnforceShape(nb::inst_ptr<PyTensor>(x)->tensor, pattern, options));
  if (nb::isinstance<PyFixedShapeTensorArray>(x)) {
    return Unwrap(EnforceShape(nb::inst_ptr<PyFixedShapeTensorArray>(x)->array, pattern, options));
  }
  if (nb::isinstance<PyVariableShapeTensorArray>(x)) {
    return Unwrap(
        EnforceShape(nb::inst_ptr<PyVariableShapeTensorArray>(x)->array, pattern, options));
  }
  std::vector<int64_t> shape;
  shape.reserve(8);
  ReadShape(x, shape);
  return Unwrap(EnforceShape(shape, pattern, options));
}

ShapeBindings* BindingsFrom(nb::handle bindings) {
  if (bindings.is_none()) return nullptr;
  if (!nb::isinstance<PyBindings>(bindings)) {
    Raise(
        Status::TypeError("bindings must be a quiver.Bindings or None, not " + TypeName(bindings)));
  }
  return &nb::inst_ptr<PyBindings>(bindings)->bindings;
}

nb::object Enforce(nb::handle x, nb::handle pattern, nb::handle bindings, std::string_view label) {
  nb::object holder;
  const ShapePattern& parsed = ResolvePattern(pattern, holder);
  ShapeMatch match = Match(x, parsed, {BindingsFrom(bindings), label});
  const auto n = static_cast<Py_ssize_t>(match.dims.size());
  nb::object dims = nb::steal(PyList_New(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    const DimSize& size = match.dims[static_cast<size_t>(i)];
    nb::object item;
    if (i == parsed.ellipsis_index()) {
      item = nb::make_tuple(AxesToPython(match.ellipsis_axes), DimToPython(size, true));
    } else {
      item = DimToPython(size, false);
    }
    PyList_SET_ITEM(dims.ptr(), i, item.release().ptr());
  }
  return nb::make_tuple(nb::borrow(x), dims);
}

// The list form of a pattern: ints, None, ..., and strings.
nb::list PatternToList(const ShapePattern& pattern) {
  nb::list out;
  for (const ShapeEntry& e : pattern.entries()) {
    switch (e.kind) {
      case ShapeEntry::Kind::kSize: out.append(nb::int_(e.size)); break;
      case ShapeEntry::Kind::kAny: out.append(nb::none()); break;
      case ShapeEntry::Kind::kEllipsis: out.append(nb::ellipsis()); break;
      default: out.append(nb::str(e.ToString().c_str())); break;
    }
  }
  return out;
}

std::string PatternRepr(const PyShapePattern& p) {
  if (!p.source.empty() || p.pattern.size() == 0) {
    return "quiver.ShapePattern(" + std::string(nb::repr(nb::str(p.source.c_str())).c_str()) + ")";
  }
  return "quiver.ShapePattern(" + p.pattern.ToString() + ")";
}

}  // namespace

void BindShapePattern(nb::module_& m) {
  nb::dict cache;
  m.attr("_pattern_cache") = cache;
  pattern_cache = cache.ptr();
  nb::class_<PyShapePattern>(
      m, "ShapePattern", "A parsed enforce_shape pattern, reusable in place of its string or list.")
      .def(
          "__init__",
          [](PyShapePattern* self, nb::handle pattern) {
            new (self) PyShapePattern(MakePattern(pattern));
          },
          nb::arg("pattern"))
      .def(
          "enforce",
          [](const PyShapePattern& self, nb::handle x, nb::handle bindings,
             std::optional<std::string> name) {
            nb::handle pattern = nb::find(self);
            return Enforce(x, pattern, bindings,
                           name ? std::string_view(*name) : std::string_view());
          },
          nb::arg("x"), nb::kw_only(), nb::arg("bindings").none() = nb::none(),
          nb::arg("name").none() = nb::none(),
          "enforce_shape(x, self, bindings=bindings); `name` (e.g. \"argument 'x'\") prefixes "
          "messages "
          "and records where symbols were bound.")
      .def(
          "with_uniform_shape",
          [](const PyShapePattern& self, const PyVariableShapeTensorArray& column,
             nb::handle bindings) {
            ShapeMatch match =
                Unwrap(EnforceShape(column.array, self.pattern, {BindingsFrom(bindings), {}}));
            return PyVariableShapeTensorArray{
                Unwrap(column.array.WithUniformShape(match.uniform_shape))};
          },
          nb::arg("column"), nb::kw_only(), nb::arg("bindings").none() = nb::none(),
          "Checks a VariableShapeTensorArray and returns it (zero-copy) with what the check proved "
          "recorded in its type's uniform_shape.")
      .def_prop_ro(
          "ndim", [](const PyShapePattern& self) { return self.pattern.min_ndim(); },
          "Number of axes it requires (at least this many with an ellipsis).")
      .def_prop_ro("has_ellipsis",
                   [](const PyShapePattern& self) { return self.pattern.ellipsis_index() >= 0; })
      .def("__len__", [](const PyShapePattern& self) { return self.pattern.size(); })
      .def("__eq__", [](const PyShapePattern& a,
                        const PyShapePattern& b) { return a.pattern.Equals(b.pattern); })
      .def("__hash__",
           [](const PyShapePattern& self) {
             return nb::hash(nb::str(self.pattern.ToString().c_str()));
           })
      .def("__str__", [](const PyShapePattern& self) { return self.pattern.ToString(); })
      .def(
          "to_list", [](const PyShapePattern& self) { return PatternToList(self.pattern); },
          "The list form: ints, None, ... and strings (\"b\", \"_\", \"*rest\").")
      .def("__reduce__",
           [](nb::handle self) {
             const PyShapePattern& p = nb::cast<const PyShapePattern&>(self);
             nb::object arg = p.source.empty() ? nb::object(PatternToList(p.pattern))
                                               : nb::object(nb::str(p.source.c_str()));
             return nb::make_tuple(self.type(), nb::make_tuple(arg));
           })
      .def("__repr__", &PatternRepr);

  nb::class_<PyBindings>(
      m, "Bindings",
      "Symbol sizes shared by several enforce_shape calls: a read-only mapping from "
      "symbol to int, per-row int32 array (ragged columns) or tuple (named ellipses).")
      .def(nb::init<>())
      .def("__getitem__",
           [](const PyBindings& self, const std::string& name) {
             const ShapeBinding* b = self.bindings.Find(name);
             if (!b) {
               PyErr_SetObject(PyExc_KeyError, nb::str(name.c_str()).ptr());
               throw nb::python_error();
             }
             return BindingToPython(*b);
           })
      .def("__contains__",
           [](const PyBindings& self, nb::handle name) {
             return PyUnicode_Check(name.ptr()) &&
                    self.bindings.Find(nb::cast<std::string>(name)) != nullptr;
           })
      .def("__len__", [](const PyBindings& self) { return self.bindings.size(); })
      .def("keys",
           [](const PyBindings& self) {
             nb::list keys;
             for (const auto& [name, binding] : self.bindings.map())
               keys.append(nb::str(name.c_str()));
             return keys;
           })
      .def("__iter__", [](nb::handle self) { return nb::iter(self.attr("keys")()); })
      .def("items",
           [](const PyBindings& self) {
             nb::list items;
             for (const auto& [name, binding] : self.bindings.map()) {
               items.append(nb::make_tuple(nb::str(name.c_str()), BindingToPython(binding)));
             }
             return items;
           })
      .def("values",
           [](const PyBindings& self) {
             nb::list values;
             for (const auto& [name, binding] : self.bindings.map())
               values.append(BindingToPython(binding));
             return values;
           })
      .def(
          "origin",
          [](const PyBindings& self, const std::string& name) {
            const ShapeBinding* b = self.bindings.Find(name);
            if (!b) Raise(Status::Invalid("'" + name + "' is not bound"));
            return b->origin;
          },
          nb::arg("name"), "Where a symbol was bound, e.g. \"argument 'images' axis 0\".")
      .def("clear", [](PyBindings& self) { self.bindings.Clear(); })
      .def("__repr__", [](const PyBindings& self) {
        nb::dict d;
        for (const auto& [name, binding] : self.bindings.map())
          d[nb::str(name.c_str())] = BindingToPython(binding);
        return "quiver.Bindings(" + std::string(nb::repr(d).c_str()) + ")";
      });

  m.def(
      "enforce_shape",
      [](nb::handle x, nb::handle pattern, nb::handle bindings) {
        return Enforce(x, pattern, bindings, {});
      },
      nb::arg("x"), nb::arg("pattern"), nb::kw_only(), nb::arg("bindings").none() = nb::none(),
      "Checks x's shape against `pattern` and returns (x, dims): x itself (no copy) and one entry "
      "per pattern entry, the ellipsis giving (axes, n_elements).");
}

}  // namespace quiver::python
