#include "py_pickle.h"
#include "py_bindings.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "py_record_batch.h"
#include "quiver/array.h"
#include "quiver/c_data.h"

namespace quiver::python {

namespace {

nb::object Rebuilder(const char* name) { return nb::module_::import_("quiver._pickle").attr(name); }

// --- types -----------------------------------------------------------------

nb::bytes Bytes(const std::string& s) { return nb::bytes(s.data(), s.size()); }

std::string String(nb::handle h) {
  if (!nb::isinstance<nb::bytes>(h)) Raise(Status::TypeError("pickled type: expected bytes"));
  nb::bytes b = nb::borrow<nb::bytes>(h);
  return std::string(b.c_str(), b.size());
}

nb::tuple MetadataState(const KeyValueMetadata& metadata) {
  nb::list pairs;
  for (const auto& [k, v] : metadata) pairs.append(nb::make_tuple(Bytes(k), Bytes(v)));
  return nb::tuple(pairs);
}

KeyValueMetadata MetadataFromState(nb::handle state) {
  if (!nb::isinstance<nb::tuple>(state))
    Raise(Status::TypeError("pickled metadata: expected a tuple"));
  KeyValueMetadata out;
  for (nb::handle kv : nb::borrow<nb::tuple>(state)) {
    if (!nb::isinstance<nb::tuple>(kv) || nb::len(kv) != 2) {
      Raise(Status::TypeError("pickled metadata: expected (key, value) pairs"));
    }
    out.emplace_back(String(kv[0]), String(kv[1]));
  }
  return out;
}

nb::object TypeState(const DataType& type);

nb::tuple FieldState(const Field& f) {
  return nb::make_tuple(Bytes(f.name), TypeState(*f.type), f.nullable, MetadataState(f.metadata));
}

// A type as (format, fields, extension name, extension metadata, storage,
// dictionary): the C Data format string carries every parameter of a leaf
// (units, time zones, precision, widths), so rebuilding goes through the
// same checked parser as an import.
nb::object TypeState(const DataType& type) {
  nb::list children;
  for (const Field& f : type.children()) children.append(FieldState(f));
  nb::object storage = type.storage_type() ? TypeState(*type.storage_type()) : nb::none();
  nb::object dictionary =
      type.id() == TypeId::kDictionary
          ? nb::object(nb::make_tuple(TypeState(*type.value_type()), type.ordered()))
          : nb::none();
  const std::string format = type.id() == TypeId::kExtension ? "" : FormatString(type);
  return nb::make_tuple(Bytes(format), nb::tuple(children), Bytes(type.extension_name()),
                        Bytes(type.extension_metadata()), storage, dictionary);
}

nb::tuple TupleOf(nb::handle state, size_t size, const char* what) {
  if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != size) {
    Raise(Status::TypeError(std::string("pickled ") + what + ": expected a " +
                            std::to_string(size) + "-tuple"));
  }
  return nb::borrow<nb::tuple>(state);
}

nb::tuple Tuple(nb::handle state, const char* what) {
  if (!nb::isinstance<nb::tuple>(state)) {
    Raise(Status::TypeError(std::string("pickled ") + what + ": expected a tuple"));
  }
  return nb::borrow<nb::tuple>(state);
}

TypePtr TypeFromState(nb::handle state, int depth);

Field FieldFromState(nb::handle state, int depth) {
  nb::tuple f = TupleOf(state, 4, "field");
  return Field{String(f[0]), TypeFromState(f[1], depth + 1), nb::cast<bool>(f[2]),
               MetadataFromState(f[3])};
}

TypePtr TypeFromState(nb::handle state, int depth) {
  if (depth > kMaxNestingDepth) {
    Raise(Status::Invalid("pickled type nests deeper than the limit of " +
                          std::to_string(kMaxNestingDepth)));
  }
  nb::tuple t = TupleOf(state, 6, "type");
  if (!t[4].is_none()) {
    return Unwrap(extension(String(t[2]), String(t[3]), TypeFromState(t[4], depth + 1)));
  }
  if (!nb::isinstance<nb::tuple>(t[1]))
    Raise(Status::TypeError("pickled type: expected a tuple of fields"));
  std::vector<Field> fields;
  for (nb::handle child : nb::borrow<nb::tuple>(t[1]))
    fields.push_back(FieldFromState(child, depth));
  TypePtr type = Unwrap(TypeFromFormat(String(t[0]), std::move(fields)));
  if (!t[5].is_none()) {
    nb::tuple d = TupleOf(t[5], 2, "dictionary type");
    type =
        Unwrap(dictionary(std::move(type), TypeFromState(d[0], depth + 1), nb::cast<bool>(d[1])));
  }
  return type;
}

// --- buffers ---------------------------------------------------------------

// A buffer for the pickle stream: a PickleBuffer over the bytes (protocol
// 5: out-of-band with a buffer_callback, no copy) or a bytes copy.
nb::object BufferState(const BufferPtr& buffer, int protocol) {
  if (!buffer) return nb::none();
  if (!buffer->device().is_cpu()) {
    Raise(Status::NotImplemented("cannot pickle memory on device (" +
                                 std::to_string(buffer->device().type) + ", " +
                                 std::to_string(buffer->device().id) + ")"));
  }
  if (protocol < 5) {
    PyObject* bytes = PyBytes_FromStringAndSize(nullptr, buffer->size());
    if (bytes == nullptr) throw nb::python_error();
    {
      nb::gil_scoped_release no_gil;  // a long copy for large buffers
      if (buffer->size() > 0) std::memcpy(PyBytes_AS_STRING(bytes), buffer->data(), buffer->size());
    }
    return nb::steal(bytes);
  }
  Tensor bytes = Unwrap(Tensor::Make(uint8(), buffer, {buffer->size()}));
  return nb::module_::import_("pickle").attr("PickleBuffer")(TensorToNumpy(bytes));
}

// Borrows the memory of any buffer-protocol object (bytes, bytearray,
// PickleBuffer, memoryview, NumPy array) until the last quiver buffer
// over it dies.
BufferPtr BufferFromState(nb::handle obj) {
  if (obj.is_none()) return nullptr;
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_SIMPLE) != 0) {
    delete view;
    throw nb::python_error();
  }
  // Out-of-band buffers arrive where the transport put them (Dask packs
  // frames back to back): values read as their type need 8-byte alignment,
  // so a misaligned one is copied (rare; pickle's own bytes are aligned).
  if (reinterpret_cast<uintptr_t>(view->buf) % 8 != 0) {
    Result<BufferPtr> copy = Buffer::AllocateUninitialized(view->len);
    if (copy.ok() && view->len > 0) std::memcpy((*copy)->mutable_data(), view->buf, view->len);
    PyBuffer_Release(view);
    delete view;
    return Unwrap(std::move(copy));
  }
  return Buffer::Wrap(view->buf, view->len, [view] {
    nb::gil_scoped_acquire gil;
    PyBuffer_Release(view);
    delete view;
  });
}

// --- arrays ----------------------------------------------------------------

Result<BufferPtr> SliceBytes(const BufferPtr& buffer, int64_t begin, int64_t end) {
  if (!buffer) return buffer;
  end = std::min(end, buffer->size());
  begin = std::min(begin, end);
  if (begin == 0 && end == buffer->size()) return buffer;
  return Buffer::Slice(buffer, begin, end - begin);
}

// `data` cut down to exactly the bytes its rows use, so a slice of a large
// array pickles its own rows, not its parent's nor its neighbours'. Values
// and offsets are sliced; validity bitmaps of a slice that starts off a
// byte boundary are copied, shifted (an eighth of a value byte at most).
ArrayDataPtr CompactForPickle(const ArrayDataPtr& data) { return Unwrap(Compact(*data)); }

nb::object ArrayState(const ArrayData& data, int protocol) {
  nb::list buffers, children;
  for (const BufferPtr& b : data.buffers) buffers.append(BufferState(b, protocol));
  for (const ArrayDataPtr& c : data.children) children.append(ArrayState(*c, protocol));
  nb::object dictionary = data.dictionary ? ArrayState(*data.dictionary, protocol) : nb::none();
  return nb::make_tuple(data.length, data.offset, data.null_count, nb::tuple(buffers),
                        nb::tuple(children), dictionary);
}

ArrayDataPtr ArrayFromState(const TypePtr& type, nb::handle state, int depth) {
  if (depth > kMaxNestingDepth) Raise(Status::Invalid("pickled array nests too deep"));
  TupleOf(state, 6, "array");
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = nb::cast<int64_t>(state[0]);
  data->offset = nb::cast<int64_t>(state[1]);
  data->null_count = nb::cast<int64_t>(state[2]);
  for (nb::handle b : nb::borrow<nb::tuple>(state[3])) data->buffers.push_back(BufferFromState(b));
  const DataType& storage = type->storage();
  nb::tuple children = nb::borrow<nb::tuple>(state[4]);
  if (nb::len(children) != storage.children().size()) {
    Raise(Status::Invalid("pickled array of type " + type->ToString() + " has " +
                          std::to_string(nb::len(children)) + " children, expected " +
                          std::to_string(storage.children().size())));
  }
  for (size_t c = 0; c < storage.children().size(); ++c) {
    data->children.push_back(ArrayFromState(storage.children()[c].type, children[c], depth + 1));
  }
  if (storage.id() == TypeId::kDictionary) {
    if (state[5].is_none()) Raise(Status::Invalid("pickled dictionary array has no dictionary"));
    data->dictionary = ArrayFromState(storage.value_type(), state[5], depth + 1);
  } else if (!state[5].is_none()) {
    Raise(Status::Invalid("pickled array of type " + type->ToString() + " has a dictionary"));
  }
  return data;
}

// Full validation, as any import gets, without the GIL.
void ValidateFull(const ArrayData& data) {
  Status valid;
  {
    nb::gil_scoped_release no_gil;  // full validation scans every offset
    valid = Validate(data, ValidationLevel::kFull);
  }
  Check(valid);
}

nb::object RebuildArray(nb::handle type_state, nb::handle array_state) {
  TypePtr type = TypeFromState(type_state, 0);
  ArrayDataPtr data = ArrayFromState(type, array_state, 0);
  ValidateFull(*data);
  return WrapArray(std::move(data));
}

// --- tensors ---------------------------------------------------------------

// The tensor over only the bytes it spans, element [0, ...] at byte_offset.
Tensor CompactTensor(const Tensor& t) {
  const Range span = t.ByteSpan();
  BufferPtr bytes = Unwrap(SliceBytes(t.buffer(), span.begin, span.end));
  return Unwrap(Tensor::Make(t.type(), std::move(bytes), t.shape(), t.strides(), t.dim_names(),
                             t.byte_offset() - span.begin));
}

PyTensor RebuildTensor(nb::handle type_state, nb::handle shape, nb::handle strides,
                       nb::handle dim_names, nb::handle buffer, int64_t byte_offset) {
  TypePtr type = TypeFromState(type_state, 0);
  BufferPtr bytes = BufferFromState(buffer);
  if (!bytes) bytes = Unwrap(Buffer::Allocate(0));
  return PyTensor{
      Unwrap(Tensor::Make(std::move(type), std::move(bytes), nb::cast<std::vector<int64_t>>(shape),
                          nb::cast<std::vector<int64_t>>(strides),
                          nb::cast<std::vector<std::string>>(dim_names), byte_offset))};
}

// A tensor as the arguments of _rebuild_tensor, over only the bytes it spans.
nb::tuple TensorState(const Tensor& tensor, int protocol) {
  Tensor t = CompactTensor(tensor);
  nb::list shape, strides, names;
  for (int64_t s : t.shape()) shape.append(s);
  for (int64_t s : t.strides()) strides.append(s);
  for (const std::string& n : t.dim_names()) names.append(n);
  return nb::make_tuple(TypeState(*t.type()), nb::tuple(shape), nb::tuple(strides),
                        nb::tuple(names), BufferState(t.buffer(), protocol), t.byte_offset());
}

Tensor TensorFromState(nb::handle state) {
  nb::tuple t = TupleOf(state, 6, "tensor");
  return RebuildTensor(t[0], t[1], t[2], t[3], t[4], nb::cast<int64_t>(t[5])).tensor;
}

// --- sparse tensors ----------------------------------------------------------

nb::tuple TensorStates(const std::vector<Tensor>& tensors, int protocol) {
  nb::list out;
  for (const Tensor& t : tensors) out.append(TensorState(t, protocol));
  return nb::tuple(out);
}

std::vector<Tensor> TensorsFromState(nb::handle state, const char* what) {
  std::vector<Tensor> out;
  for (nb::handle t : Tuple(state, what)) out.push_back(TensorFromState(t));
  return out;
}

nb::object RebuildSparseTensor(nb::handle state) {
  nb::tuple s = TupleOf(state, 8, "sparse tensor");
  const std::string format = String(s[0]);
  auto shape = nb::cast<std::vector<int64_t>>(s[1]);
  auto names = nb::cast<std::vector<std::string>>(s[2]);
  const bool canonical = nb::cast<bool>(s[3]);
  auto axis_order = nb::cast<std::vector<int64_t>>(s[4]);
  Tensor values = TensorFromState(s[5]);
  std::vector<Tensor> indptr = TensorsFromState(s[6], "indptr arrays");
  std::vector<Tensor> indices = TensorsFromState(s[7], "indices arrays");
  Result<SparseTensor> out =
      Status::Invalid("pickled sparse tensor: unknown format '" + format + "'");
  {
    nb::gil_scoped_release no_gil;  // full validation reads every index
    if (format == "COO") {
      if (indptr.empty() && indices.size() == 1) {
        out = SparseTensor::MakeCOO(shape, indices[0], values, canonical, names);
      } else {
        out = Status::Invalid("pickled COO tensor: expected one coordinate array and no indptr");
      }
    } else if (format == "CSR" || format == "CSC") {
      if (indptr.size() == 1 && indices.size() == 1) {
        out = SparseTensor::MakeCSX(format == "CSR" ? SparseFormat::kCSR : SparseFormat::kCSC,
                                    shape, indptr[0], indices[0], values, names);
      } else {
        out = Status::Invalid("pickled " + format +
                              " matrix: expected one indptr and one indices array");
      }
    } else if (format == "CSF") {
      out = SparseTensor::MakeCSF(shape, indptr, indices, axis_order, values, names);
    }
  }
  return WrapSparse(Unwrap(std::move(out)));
}

// --- record batches, tables, chunked arrays, schemas ------------------------

nb::tuple SchemaState(const Schema& schema) {
  nb::list fields;
  for (const Field& f : schema.fields) fields.append(FieldState(f));
  return nb::make_tuple(nb::tuple(fields), MetadataState(schema.metadata));
}

SchemaPtr SchemaFromState(nb::handle state) {
  nb::tuple s = TupleOf(state, 2, "schema");
  auto schema = std::make_shared<Schema>();
  for (nb::handle f : Tuple(s[0], "schema fields")) schema->fields.push_back(FieldFromState(f, 0));
  schema->metadata = MetadataFromState(s[1]);
  return schema;
}

// A batch as (num_rows, column states), each column cut to the batch's rows
// (columns may be views into longer arrays).
nb::tuple BatchState(const RecordBatch& batch, int protocol) {
  nb::list columns;
  for (const ArrayDataPtr& column : batch.columns()) {
    ArrayDataPtr rows = Unwrap(quiver::Slice(column, 0, batch.num_rows()));
    columns.append(ArrayState(*CompactForPickle(rows), protocol));
  }
  return nb::make_tuple(batch.num_rows(), nb::tuple(columns));
}

RecordBatchPtr BatchFromState(const SchemaPtr& schema, nb::handle state) {
  nb::tuple b = TupleOf(state, 2, "record batch");
  nb::tuple columns = Tuple(b[1], "record batch columns");
  if (nb::len(columns) != schema->fields.size()) {
    Raise(Status::Invalid("pickled record batch has " + std::to_string(nb::len(columns)) +
                          " columns but its schema has " + std::to_string(schema->fields.size()) +
                          " fields"));
  }
  std::vector<ArrayDataPtr> arrays;
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    arrays.push_back(ArrayFromState(schema->fields[i].type, columns[i], 0));
  }
  const int64_t num_rows = nb::cast<int64_t>(b[0]);
  Result<RecordBatchPtr> batch = Status::Invalid("");
  {
    nb::gil_scoped_release no_gil;  // full validation of every column
    batch = RecordBatch::Make(schema, num_rows, std::move(arrays), ValidationLevel::kFull);
  }
  return Unwrap(std::move(batch));
}

PyRecordBatch RebuildRecordBatch(nb::handle schema_state, nb::handle batch_state) {
  return PyRecordBatch{BatchFromState(SchemaFromState(schema_state), batch_state)};
}

PyTable RebuildTable(nb::handle schema_state, nb::handle batch_states) {
  SchemaPtr schema = SchemaFromState(schema_state);
  std::vector<RecordBatchPtr> batches;
  for (nb::handle b : Tuple(batch_states, "table batches")) {
    batches.push_back(BatchFromState(schema, b));
  }
  return PyTable{Unwrap(Table::FromRecordBatches(schema, batches))};
}

PyChunkedArray RebuildChunkedArray(nb::handle type_state, nb::handle chunk_states) {
  TypePtr type = TypeFromState(type_state, 0);
  std::vector<ArrayDataPtr> chunks;
  for (nb::handle c : Tuple(chunk_states, "chunks")) {
    ArrayDataPtr chunk = ArrayFromState(type, c, 0);
    ValidateFull(*chunk);
    chunks.push_back(std::move(chunk));
  }
  return PyChunkedArray{Unwrap(ChunkedArray::Make(type, std::move(chunks)))};
}

}  // namespace

nb::tuple ReduceType(const TypePtr& type) {
  return nb::make_tuple(Rebuilder("_rebuild_type"), nb::make_tuple(TypeState(*type)));
}

nb::tuple ReduceArray(const ArrayDataPtr& data, int protocol) {
  ArrayDataPtr compact = CompactForPickle(data);
  return nb::make_tuple(Rebuilder("_rebuild_array"),
                        nb::make_tuple(TypeState(*data->type), ArrayState(*compact, protocol)));
}

nb::tuple ReduceTensor(const Tensor& tensor, int protocol) {
  return nb::make_tuple(Rebuilder("_rebuild_tensor"), TensorState(tensor, protocol));
}

nb::tuple ReduceSparseTensor(const SparseTensor& tensor, int protocol) {
  std::vector<Tensor> indptr, indices;
  std::vector<int64_t> axis_order;
  if (const SparseCOOIndex* coo = tensor.coo_index()) {
    indices = {coo->coords};
  } else if (const SparseCSXIndex* csx = tensor.csx_index()) {
    indptr = {csx->indptr};
    indices = {csx->indices};
  } else if (const SparseCSFIndex* csf = tensor.csf_index()) {
    indptr = csf->indptr;
    indices = csf->indices;
    axis_order = csf->axis_order;
  }
  nb::list names;
  for (const std::string& n : tensor.dim_names()) names.append(n);
  nb::tuple state = nb::make_tuple(
      Bytes(SparseFormatName(tensor.format())), ToTuple(tensor.shape()), nb::tuple(names),
      tensor.has_canonical_format(), ToTuple(axis_order), TensorState(tensor.values(), protocol),
      TensorStates(indptr, protocol), TensorStates(indices, protocol));
  return nb::make_tuple(Rebuilder("_rebuild_sparse_tensor"), nb::make_tuple(state));
}

nb::tuple ReduceField(const Field& field) {
  return nb::make_tuple(Rebuilder("_rebuild_field"), nb::make_tuple(FieldState(field)));
}

nb::tuple ReduceSchema(const Schema& schema) {
  return nb::make_tuple(Rebuilder("_rebuild_schema"), nb::make_tuple(SchemaState(schema)));
}

nb::tuple ReduceRecordBatch(const RecordBatch& batch, int protocol) {
  return nb::make_tuple(Rebuilder("_rebuild_record_batch"),
                        nb::make_tuple(SchemaState(*batch.schema()), BatchState(batch, protocol)));
}

nb::tuple ReduceTable(const PyTable& table, int protocol) {
  nb::list batches;
  const TablePtr& validated = table.table();
  for (const RecordBatchPtr& batch : Unwrap(validated->ToRecordBatches())) {
    batches.append(BatchState(*batch, protocol));
  }
  return nb::make_tuple(Rebuilder("_rebuild_table"),
                        nb::make_tuple(SchemaState(*validated->schema()), nb::tuple(batches)));
}

nb::tuple ReduceChunkedArray(const PyChunkedArray& chunked, int protocol) {
  nb::list chunks;
  for (const ArrayDataPtr& chunk : chunked.column->chunks()) {
    chunks.append(ArrayState(*CompactForPickle(chunk), protocol));
  }
  return nb::make_tuple(Rebuilder("_rebuild_chunked_array"),
                        nb::make_tuple(TypeState(*chunked.column->type()), nb::tuple(chunks)));
}

nb::object Rebuild(const nb::tuple& reduced) {
  return reduced[0](*nb::borrow<nb::tuple>(reduced[1]));
}

nb::object DeepCopyArray(const ArrayDataPtr& data) {
  // Protocol 4 state holds bytes copies: rebuilding from it copies once.
  return Rebuild(ReduceArray(data, 4));
}

void BindPickle(nb::module_& m) {
  m.def(
      "_rebuild_type", [](nb::handle state) { return WrapType(TypeFromState(state, 0)); },
      "Unpickles a quiver type (internal).");
  m.def("_rebuild_array", &RebuildArray, "Unpickles and validates a quiver array (internal).");
  m.def("_rebuild_tensor", &RebuildTensor, "Unpickles a quiver Tensor (internal).");
  m.def("_rebuild_sparse_tensor", &RebuildSparseTensor,
        "Unpickles and validates a quiver sparse tensor (internal).");
  m.def(
      "_rebuild_field", [](nb::handle state) { return PyField{FieldFromState(state, 0)}; },
      "Unpickles a quiver Field (internal).");
  m.def(
      "_rebuild_schema", [](nb::handle state) { return PySchema{SchemaFromState(state)}; },
      "Unpickles a quiver Schema (internal).");
  m.def("_rebuild_record_batch", &RebuildRecordBatch,
        "Unpickles and validates a quiver RecordBatch (internal).");
  m.def("_rebuild_table", &RebuildTable, "Unpickles and validates a quiver Table (internal).");
  m.def("_rebuild_chunked_array", &RebuildChunkedArray,
        "Unpickles and validates a quiver ChunkedArray (internal).");
}

}  // namespace quiver::python
