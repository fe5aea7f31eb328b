// quiver.ChunkedArray and qv.chunked_array(): one column in chunks, with
// the row access and tensor methods of its chunks' class across all of
// them.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "py_bindings.h"
#include "py_c_device.h"
#include "py_capsules.h"
#include "py_errors.h"
#include "py_index.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_pickle.h"
#include "py_record_batch.h"
#include "quiver/chunked_array.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::python {

namespace {

bool IsExtension(const DataType& type, std::string_view name) {
  return type.id() == TypeId::kExtension && type.extension_name() == name;
}
bool IsFixed(const DataType& type) {
  return IsExtension(type, FixedShapeTensorType::kExtensionName);
}
bool IsVariable(const DataType& type) {
  return IsExtension(type, VariableShapeTensorType::kExtensionName);
}

// TypeError unless the column holds tensors of the kind a method needs.
void RequireTensors(const ChunkedArray& c, const char* method, bool variable_only = false) {
  const bool ok = IsVariable(*c.type()) || (!variable_only && IsFixed(*c.type()));
  if (!ok) {
    Raise(Status::TypeError(std::string(method) + " needs a " +
                            (variable_only ? "variable_shape_tensor" : "tensor") + " column, got " +
                            c.type()->ToString()));
  }
}

// The column as one quiver array (zero-copy with one chunk).
nb::object Combined(const ChunkedArray& c) {
  Result<ArrayDataPtr> combined = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;
    combined = c.Combine();
  }
  return WrapArray(Unwrap(std::move(combined)));
}

// Row i (negative counts from the end): a tensor row as its chunk's class
// returns it (a NumPy view; None for a null row, as iteration gives it),
// any other value as to_pylist() does.
nb::object Row(const ChunkedArray& c, int64_t i) {
  int64_t row = ResolveIndex(i, c.length());
  for (const ArrayDataPtr& chunk : c.chunks()) {
    if (row < chunk->length) {
      if (IsFixed(*c.type()) || IsVariable(*c.type())) {
        if (!chunk->IsValid(row)) return nb::none();
        return WrapArray(chunk)[nb::int_(row)];
      }
      return WrapArray(Unwrap(Slice(chunk, row, 1))).attr("to_pylist")()[0];
    }
    row -= chunk->length;
  }
  Raise(Status::IndexError("row " + std::to_string(i) + " is out of range"));
}

// Calls `method` on every chunk (wrapped as its quiver class) with `args`.
nb::list EachChunk(const ChunkedArray& c, const char* method) {
  nb::list out;
  for (const ArrayDataPtr& chunk : c.chunks()) out.append(WrapArray(chunk).attr(method)());
  return out;
}

// One padded batch over every chunk: each chunk pads its rows into its
// slice of the output, whose cell is the largest row shape of them all.
nb::tuple PaddedAcrossChunks(const ChunkedArray& c, nb::handle pad_value, bool allow_nulls,
                             nb::handle out) {
  RequireTensors(c, "to_padded()", /*variable_only=*/true);
  nb::object numpy = Numpy();
  if (c.num_chunks() == 1) {
    return nb::cast<nb::tuple>(
        WrapArray(c.chunk(0)).attr("to_padded")(pad_value, allow_nulls, nb::arg("out") = out));
  }
  const VariableShapeTensorType type = Unwrap(VariableShapeTensorType::FromDataType(c.type()));
  nb::list shape_parts = EachChunk(c, "shapes");
  nb::object shapes = shape_parts.size() == 0
                          ? numpy.attr("zeros")(nb::make_tuple(0, type.ndim()), "int32")
                          : numpy.attr("concatenate")(shape_parts);
  std::vector<int64_t> padded = {c.length()};
  if (c.length() == 0) {
    padded.resize(static_cast<size_t>(type.ndim()) + 1, 0);
  } else {
    for (nb::handle size : shapes.attr("max")(nb::arg("axis") = 0).attr("tolist")()) {
      padded.push_back(nb::cast<int64_t>(size));
    }
  }
  nb::object batch = nb::borrow(out);
  nb::object dtype = NumpyDtype(*type.value_type());
  if (batch.is_none()) {
    batch = numpy.attr("empty")(ToTuple(padded), dtype);
  } else {
    // The chunks check dtype, contiguity and writability; the shape is the
    // whole column's.
    const std::vector<int64_t> given = nb::cast<std::vector<int64_t>>(batch.attr("shape"));
    if (given != padded) {
      Raise(Status::Invalid("out has shape " + Str(batch.attr("shape")) +
                            " but the padded batch has shape " + Str(ToTuple(padded))));
    }
  }
  int64_t start = 0;
  for (const ArrayDataPtr& chunk : c.chunks()) {
    nb::object part =
        batch[nb::slice(nb::int_(start), nb::int_(start + chunk->length), nb::none())];
    WrapArray(chunk).attr("to_padded")(pad_value, allow_nulls, nb::arg("out") = part);
    start += chunk->length;
  }
  return nb::make_tuple(batch, shapes);
}

nb::object TakeOrFilter(const ChunkedArray& c, nb::handle selector, bool take) {
  Result<ChunkedArrayPtr> result = Status::Invalid("");
  if (take) {
    auto index = IndexArray(selector, c.length());
    std::span<const int64_t> span(index.data(), index.shape(0));
    nb::gil_scoped_release no_gil;
    result = c.Take(span);
  } else {
    const RowMask rows = MaskRows(selector);
    nb::gil_scoped_release no_gil;
    result = c.Filter(rows);
  }
  return nb::cast(PyChunkedArray{Unwrap(std::move(result))});
}

PyChunkedArray ChunkedFromPython(nb::handle obj, nb::handle type) {
  if (nb::isinstance<nb::list>(obj) || nb::isinstance<nb::tuple>(obj)) {
    std::vector<ArrayDataPtr> chunks;
    TypePtr column_type;
    if (!type.is_none()) {
      column_type = nb::hasattr(type, "__arrow_c_schema__")
                        ? ImportSchemaCapsule(type.attr("__arrow_c_schema__")()).type
                        : TypeFromPython(type);
    }
    for (nb::handle chunk : obj) {
      ChunkedArrayPtr part = ColumnFromPython(chunk, "chunk");
      if (!column_type) column_type = part->type();
      chunks.insert(chunks.end(), part->chunks().begin(), part->chunks().end());
    }
    if (!column_type) {
      Raise(Status::Invalid("chunked_array() of no chunks needs type="));
    }
    return PyChunkedArray{Unwrap(ChunkedArray::Make(column_type, std::move(chunks)))};
  }
  if (!type.is_none()) Raise(Status::TypeError("type= goes with a list of chunks"));
  return PyChunkedArray{ColumnFromPython(obj, "chunked_array()")};
}

}  // namespace

void BindChunkedArray(nb::module_& m) {
  nb::class_<PyChunkedArray>(m, "ChunkedArray", "Arrays of one type, in order.")
      .def_prop_ro("type", [](const PyChunkedArray& c) { return WrapType(c.column->type()); })
      .def_prop_ro("chunks",
                   [](const PyChunkedArray& c) {
                     nb::list out;
                     for (const ArrayDataPtr& chunk : c.column->chunks())
                       out.append(WrapArray(chunk));
                     return out;
                   })
      .def_prop_ro("num_chunks", [](const PyChunkedArray& c) { return c.column->num_chunks(); })
      .def_prop_ro("null_count", [](const PyChunkedArray& c) { return c.column->null_count(); })
      .def(
          "chunk",
          [](const PyChunkedArray& c, int64_t i) {
            return WrapArray(c.column->chunk(
                static_cast<int>(ResolveIndex(i, c.column->num_chunks(), "chunks"))));
          },
          nb::arg("i"), "Chunk i as its quiver array class.")
      .def("__len__", [](const PyChunkedArray& c) { return c.column->length(); })
      .def("length", [](const PyChunkedArray& c) { return c.column->length(); })
      .def(
          "__getitem__",
          [](const PyChunkedArray& c, nb::handle key) -> nb::object {
            if (nb::isinstance<nb::slice>(key)) {
              std::vector<int64_t> rows;
              if (SliceRows(nb::borrow<nb::slice>(key), c.column->length(), &rows)) {
                return nb::cast(PyChunkedArray{Unwrap(c.column->Take(rows))});
              }
              auto [start, count] = ResolveSlice(nb::borrow<nb::slice>(key), c.column->length());
              return nb::cast(PyChunkedArray{Unwrap(c.column->Slice(start, count))});
            }
            // NumPy integers too (they have __index__), as pyarrow takes them.
            if (nb::isinstance<nb::bool_>(key) || !PyIndex_Check(key.ptr())) {
              Raise(Status::TypeError("a chunked array takes an int or a slice, got " +
                                      std::string(nb::type_name(key.type()).c_str())));
            }
            return Row(*c.column, ResolveIndex(key, c.column->length()));
          },
          nb::arg("key"),
          "Row i (tensor rows as their chunks return them: a NumPy view, None for null), or a "
          "zero-copy ChunkedArray of rows for a slice (a copy of the rows for a step other than "
          "1, as pyarrow).")
      .def("__iter__",
           [](nb::handle self) {
             const PyChunkedArray& c = nb::cast<const PyChunkedArray&>(self);
             nb::list rows;
             for (const ArrayDataPtr& chunk : c.column->chunks()) {
               nb::object wrapped = WrapArray(chunk);
               if (IsFixed(*c.column->type()) || IsVariable(*c.column->type())) {
                 for (nb::handle row : wrapped) rows.append(row);
               } else {
                 for (nb::handle value : wrapped.attr("to_pylist")()) rows.append(value);
               }
             }
             return rows.attr("__iter__")();
           })
      .def(
          "slice",
          [](const PyChunkedArray& c, int64_t offset, std::optional<int64_t> length) {
            auto [start, count] = ClipSlice(offset, length, c.column->length());
            return PyChunkedArray{Unwrap(c.column->Slice(start, count))};
          },
          nb::arg("offset") = 0, nb::arg("length").none() = nb::none(),
          "Rows [offset, offset + length), clipped to the rows there are; no copy.")
      .def(
          "combine_chunks", [](const PyChunkedArray& c) { return Combined(*c.column); },
          "All rows as one quiver array: the chunk itself when there is one, else a copy.")
      .def(
          "take",
          [](const PyChunkedArray& c, nb::handle indices) {
            return TakeOrFilter(*c.column, indices, true);
          },
          nb::arg("indices"),
          "The rows `indices` picks, as one chunk (a copy; a zero-copy slice "
          "for consecutive rows of one chunk).")
      .def(
          "filter",
          [](const PyChunkedArray& c, nb::handle mask) {
            return TakeOrFilter(*c.column, mask, false);
          },
          nb::arg("mask"),
          "The rows where `mask` is True, as one chunk (a copy); a null in the mask selects "
          "nothing, as in pyarrow.")
      .def("to_pylist",
           [](const PyChunkedArray& c) {
             nb::list out;
             for (nb::handle part : EachChunk(*c.column, "to_pylist")) {
               for (nb::handle value : part) out.append(value);
             }
             return out;
           })
      .def(
          "to_numpy",
          [](const PyChunkedArray& c, bool allow_nulls) -> nb::object {
            // Fixed shapes: one chunk is its zero-copy view, several are
            // joined by NumPy (one copy). Ragged rows: a list of arrays.
            RequireTensors(*c.column, "to_numpy()");
            nb::list parts;
            for (const ArrayDataPtr& chunk : c.column->chunks()) {
              nb::object wrapped = WrapArray(chunk);
              parts.append(IsFixed(*c.column->type())
                               ? wrapped.attr("to_numpy")(nb::arg("allow_nulls") = allow_nulls)
                               : wrapped.attr("to_numpy")());
            }
            if (IsVariable(*c.column->type())) {
              nb::list rows;
              for (nb::handle part : parts) {
                for (nb::handle row : part) rows.append(row);
              }
              return rows;
            }
            if (parts.size() == 1) return parts[0];
            if (parts.size() == 0) return Combined(*c.column).attr("to_numpy")();
            return Numpy().attr("concatenate")(parts);
          },
          nb::arg("allow_nulls") = false,
          "Fixed-shape tensors as one NumPy array (zero-copy with one chunk, one copy "
          "otherwise); ragged tensors as a list of arrays, one per row.")
      .def(
          "shapes",
          [](const PyChunkedArray& c) -> nb::object {
            RequireTensors(*c.column, "shapes()", /*variable_only=*/true);
            nb::list parts = EachChunk(*c.column, "shapes");
            if (parts.size() == 1) return parts[0];
            if (parts.size() == 0) return Combined(*c.column).attr("shapes")();
            return Numpy().attr("concatenate")(parts);
          },
          "The (N, ndim) int32 logical shapes of every row across chunks.")
      .def(
          "to_padded",
          [](const PyChunkedArray& c, nb::handle pad_value, bool allow_nulls, nb::handle out) {
            return PaddedAcrossChunks(*c.column, pad_value, allow_nulls, out);
          },
          nb::arg("pad_value") = 0, nb::arg("allow_nulls") = false, nb::kw_only(),
          nb::arg("out") = nb::none(),
          "(batch, shapes) over every chunk: one (N, *max_shape) batch, each chunk padding its "
          "rows straight into its part (out= as VariableShapeTensorArray.to_padded).")
      .def(
          "to_fixed",
          [](const PyChunkedArray& c, std::optional<bool> copy) {
            RequireTensors(*c.column, "to_fixed()", /*variable_only=*/true);
            std::vector<ArrayDataPtr> chunks;
            TypePtr type;
            for (const ArrayDataPtr& chunk : c.column->chunks()) {
              nb::object fixed = WrapArray(chunk).attr("to_fixed")(nb::arg("copy") = copy);
              chunks.push_back(nb::cast<const PyFixedShapeTensorArray&>(fixed).array.data());
              if (type && !type->Equals(*chunks.back()->type)) {
                Raise(
                    Status::Invalid("the chunks have different fixed shapes: " + type->ToString() +
                                    " and " + chunks.back()->type->ToString()));
              }
              type = chunks.back()->type;
            }
            if (!type)
              Raise(Status::Invalid("to_fixed() of a column without chunks has no shape to take"));
            return PyChunkedArray{Unwrap(ChunkedArray::Make(type, std::move(chunks)))};
          },
          nb::arg("copy").none() = nb::none(),
          "Every chunk as a fixed_shape_tensor column (see VariableShapeTensorArray.to_fixed); "
          "all rows must share one shape.")
      .def(
          "to_variable",
          [](const PyChunkedArray& c) {
            if (!IsFixed(*c.column->type())) {
              Raise(Status::TypeError("to_variable() needs a fixed_shape_tensor column, got " +
                                      c.column->type()->ToString()));
            }
            std::vector<ArrayDataPtr> chunks;
            for (const ArrayDataPtr& chunk : c.column->chunks()) {
              nb::object variable = WrapArray(chunk).attr("to_variable")();
              chunks.push_back(nb::cast<const PyVariableShapeTensorArray&>(variable).array.data());
            }
            TypePtr type = chunks.empty() ? nullptr : chunks[0]->type;
            if (!type) Raise(Status::Invalid("to_variable() of a column without chunks"));
            return PyChunkedArray{Unwrap(ChunkedArray::Make(type, std::move(chunks)))};
          },
          "Every chunk as a variable_shape_tensor column (zero-copy values).")
      .def(
          "equals",
          [](const PyChunkedArray& a, const PyChunkedArray& b) {
            return a.column->Equals(*b.column);
          },
          nb::arg("other"), "Same type and values, wherever the chunk boundaries fall.")
      .def(
          "__eq__",
          [](const PyChunkedArray& a, nb::handle b) {
            return nb::isinstance<PyChunkedArray>(b) &&
                   a.column->Equals(*nb::cast<const PyChunkedArray&>(b).column);
          },
          nb::arg("other"))
      .def(
          "__arrow_c_stream__",
          [](const PyChunkedArray& c, nb::handle /*requested_schema: best-effort, ignored*/) {
            return StreamCapsule(
                MakeArrayReader(Field{"", c.column->type(), true, {}}, c.column->chunks()));
          },
          nb::arg("requested_schema").none() = nb::none())
      .def(
          "__arrow_c_device_stream__",
          [](const PyChunkedArray& c, nb::handle /*requested_schema: best-effort, ignored*/,
             nb::kwargs kwargs) {
            return DeviceStreamCapsule(
                MakeArrayReader(Field{"", c.column->type(), true, {}}, c.column->chunks()), kwargs);
          },
          nb::arg("requested_schema").none() = nb::none(), nb::arg("kwargs"))
      .def("__repr__",
           [](const PyChunkedArray& c) {
             return "quiver.ChunkedArray<" + c.column->type()->ToString() +
                    ">: " + std::to_string(c.column->length()) + " rows in " +
                    std::to_string(c.column->num_chunks()) + " chunks";
           })
      .def(
          "__reduce_ex__",
          [](const PyChunkedArray& c, int protocol) { return ReduceChunkedArray(c, protocol); },
          nb::arg("protocol"))
      .def("__copy__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__deepcopy__",
          [](const PyChunkedArray& c, nb::handle) { return Rebuild(ReduceChunkedArray(c, 4)); },
          nb::arg("memo"));
  nb::setattr(m.attr("ChunkedArray"), "__hash__", nb::none());

  m.def("chunked_array", &ChunkedFromPython, nb::arg("obj"), nb::arg("type").none() = nb::none(),
        "A ChunkedArray from a list of arrays (quiver arrays, NumPy arrays, anything with "
        "__arrow_c_array__; type= for an empty list) or from any __arrow_c_stream__ "
        "(pyarrow ChunkedArray, polars Series) or __arrow_c_array__ producer; no copy, foreign "
        "data validated fully.");
}

}  // namespace quiver::python
