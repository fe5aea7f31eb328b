#include "py_pickle.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "py_convert.h"
#include "py_objects.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"

namespace quiver::python {

namespace {

using internal::BufferRole;
using internal::ChildRole;

nb::object Rebuilder(const char* name) {
  return nb::module_::import_("quiver._pickle").attr(name);
}

// --- types -----------------------------------------------------------------

nb::bytes Bytes(const std::string& s) { return nb::bytes(s.data(), s.size()); }

std::string String(nb::handle h) {
  if (!nb::isinstance<nb::bytes>(h)) Raise(Status::TypeError("pickled type: expected bytes"));
  nb::bytes b = nb::borrow<nb::bytes>(h);
  return std::string(b.c_str(), b.size());
}

nb::object TypeState(const DataType& type) {
  nb::list children;
  for (const Field& f : type.children()) {
    nb::list metadata;
    for (const auto& [k, v] : f.metadata) metadata.append(nb::make_tuple(Bytes(k), Bytes(v)));
    children.append(nb::make_tuple(Bytes(f.name), TypeState(*f.type), f.nullable, nb::tuple(metadata)));
  }
  nb::object storage = type.storage_type() ? TypeState(*type.storage_type()) : nb::none();
  return nb::make_tuple(static_cast<int>(type.id()), type.fixed_size(), nb::tuple(children),
                        Bytes(type.extension_name()), Bytes(type.extension_metadata()), storage);
}

TypePtr TypeFromState(nb::handle state, int depth) {
  if (depth > kMaxNestingDepth) {
    Raise(Status::Invalid("pickled type nests deeper than the limit of " +
                          std::to_string(kMaxNestingDepth)));
  }
  if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != 6) {
    Raise(Status::TypeError("pickled type: expected a 6-tuple"));
  }
  const int id = nb::cast<int>(state[0]);
  const int32_t fixed_size = nb::cast<int32_t>(state[1]);
  std::vector<Field> fields;
  for (nb::handle child : nb::borrow<nb::tuple>(state[2])) {
    if (!nb::isinstance<nb::tuple>(child) || nb::len(child) != 4) {
      Raise(Status::TypeError("pickled field: expected a 4-tuple"));
    }
    Field f{String(child[0]), TypeFromState(child[1], depth + 1), nb::cast<bool>(child[2]), {}};
    for (nb::handle kv : nb::borrow<nb::tuple>(child[3])) {
      f.metadata.emplace_back(String(kv[0]), String(kv[1]));
    }
    fields.push_back(std::move(f));
  }
  auto one_child = [&]() -> Field {
    if (fields.size() != 1) Raise(Status::Invalid("pickled list type needs one child"));
    return fields[0];
  };
  switch (static_cast<TypeId>(id)) {
    case TypeId::kInt8: return int8();
    case TypeId::kInt16: return int16();
    case TypeId::kInt32: return int32();
    case TypeId::kInt64: return int64();
    case TypeId::kUInt8: return uint8();
    case TypeId::kUInt16: return uint16();
    case TypeId::kUInt32: return uint32();
    case TypeId::kUInt64: return uint64();
    case TypeId::kFloat16: return float16();
    case TypeId::kFloat32: return float32();
    case TypeId::kFloat64: return float64();
    case TypeId::kBool: return boolean();
    case TypeId::kUtf8: return utf8();
    case TypeId::kLargeUtf8: return large_utf8();
    case TypeId::kBinary: return binary();
    case TypeId::kLargeBinary: return large_binary();
    case TypeId::kFixedSizeBinary: return Unwrap(fixed_size_binary(fixed_size));
    case TypeId::kList: return list(one_child());
    case TypeId::kLargeList: return large_list(one_child());
    case TypeId::kFixedSizeList: return Unwrap(fixed_size_list(one_child(), fixed_size));
    case TypeId::kStruct: return struct_(std::move(fields));
    case TypeId::kExtension:
      if (state[5].is_none()) Raise(Status::Invalid("pickled extension type has no storage"));
      return Unwrap(extension(String(state[3]), String(state[4]), TypeFromState(state[5], depth + 1)));
  }
  Raise(Status::Invalid("pickled type has unknown id " + std::to_string(id)));
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

// `data` re-based so that it references only the bytes its rows use (as
// far as that is possible without rewriting values): a slice of a large
// array pickles its own rows, not its parent's. The new offset is the old
// one modulo 8 so validity bits never need shifting.
Result<ArrayDataPtr> Compact(const ArrayDataPtr& data) {
  const internal::Layout layout = internal::LayoutOf(*data->type);
  const int64_t keep = data->offset % 8, shift = data->offset - keep;
  const int64_t slots = keep + data->length;
  auto out = std::make_shared<ArrayData>(*data);
  out->offset = keep;
  int64_t child_begin = -1, child_end = -1;  // offsets: the child range the rows use
  for (int b = 0; b < layout.num_buffers && b < static_cast<int>(out->buffers.size()); ++b) {
    const BufferPtr& buffer = data->buffers[b];
    if (!buffer) continue;
    switch (layout.roles[b]) {
      case BufferRole::kValidity:
      case BufferRole::kBits: {
        QUIVER_ASSIGN_OR_RETURN(out->buffers[b], SliceBytes(buffer, shift / 8, (shift + slots + 7) / 8));
        break;
      }
      case BufferRole::kValues: {
        const int64_t width = layout.value_bits / 8;
        QUIVER_ASSIGN_OR_RETURN(out->buffers[b], SliceBytes(buffer, shift * width, (shift + slots) * width));
        break;
      }
      case BufferRole::kOffsets32:
      case BufferRole::kOffsets64: {
        const int64_t w = layout.offset_width();
        if (buffer->size() < (data->offset + data->length + 1) * w) break;
        auto read = [&](int64_t i) -> int64_t {
          if (w == 4) {
            int32_t v;
            std::memcpy(&v, buffer->data() + i * 4, 4);
            return v;
          }
          int64_t v;
          std::memcpy(&v, buffer->data() + i * 8, 8);
          return v;
        };
        child_begin = read(shift);
        child_end = read(data->offset + data->length);
        if (child_begin < 0 || child_end < child_begin) return data;  // left to validation
        // Rewrite the few offsets so they start at 0 and the values before
        // the first row stay behind.
        QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::Allocate((slots + 1) * w));
        for (int64_t i = 0; i <= slots; ++i) {
          const int64_t v = read(shift + i) - child_begin;
          if (w == 4) {
            const int32_t v32 = static_cast<int32_t>(v);
            std::memcpy(offsets->mutable_data() + i * 4, &v32, 4);
          } else {
            std::memcpy(offsets->mutable_data() + i * 8, &v, 8);
          }
        }
        out->buffers[b] = std::move(offsets);
        break;
      }
      case BufferRole::kData: {
        if (child_begin >= 0) {
          QUIVER_ASSIGN_OR_RETURN(out->buffers[b], SliceBytes(buffer, child_begin, child_end));
        }
        break;
      }
    }
  }
  for (size_t c = 0; c < out->children.size(); ++c) {
    const ArrayDataPtr& child = data->children[c];
    ArrayDataPtr sliced = child;
    switch (layout.children) {
      case ChildRole::kOffsetList: {
        if (child_begin >= 0) {
          QUIVER_ASSIGN_OR_RETURN(sliced, quiver::Slice(child, child_begin, child_end - child_begin));
        }
        break;
      }
      case ChildRole::kFixedSizeList: {
        QUIVER_ASSIGN_OR_RETURN(sliced, quiver::Slice(child, shift * layout.list_size, slots * layout.list_size));
        break;
      }
      case ChildRole::kStructFields: {
        QUIVER_ASSIGN_OR_RETURN(sliced, quiver::Slice(child, shift, slots));
        break;
      }
      case ChildRole::kNone:
        break;
    }
    QUIVER_ASSIGN_OR_RETURN(out->children[c], Compact(sliced));
  }
  return ArrayDataPtr(std::move(out));
}

nb::object ArrayState(const ArrayData& data, int protocol) {
  nb::list buffers, children;
  for (const BufferPtr& b : data.buffers) buffers.append(BufferState(b, protocol));
  for (const ArrayDataPtr& c : data.children) children.append(ArrayState(*c, protocol));
  return nb::make_tuple(data.length, data.offset, data.null_count, nb::tuple(buffers), nb::tuple(children));
}

ArrayDataPtr ArrayFromState(const TypePtr& type, nb::handle state, int depth) {
  if (depth > kMaxNestingDepth) Raise(Status::Invalid("pickled array nests too deep"));
  if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != 5) {
    Raise(Status::TypeError("pickled array: expected a 5-tuple"));
  }
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
  return data;
}

nb::object RebuildArray(nb::handle type_state, nb::handle array_state) {
  TypePtr type = TypeFromState(type_state, 0);
  ArrayDataPtr data = ArrayFromState(type, array_state, 0);
  Status valid;
  {
    nb::gil_scoped_release no_gil;  // full validation scans every offset
    valid = Validate(*data, ValidationLevel::kFull);
  }
  Check(valid);
  return WrapArray(std::move(data));
}

// --- tensors ---------------------------------------------------------------

// The tensor over only the bytes it spans, element [0, ...] at byte_offset.
Tensor CompactTensor(const Tensor& t) {
  int64_t low = 0, high = t.size() > 0 ? t.type()->byte_width() : 0;
  if (t.size() > 0) {
    for (int i = 0; i < t.ndim(); ++i) {
      const int64_t span = (t.shape()[i] - 1) * t.strides()[i];
      (span < 0 ? low : high) += span;
    }
  }
  BufferPtr bytes = Unwrap(SliceBytes(t.buffer(), t.byte_offset() + low, t.byte_offset() + high));
  return Unwrap(Tensor::Make(t.type(), std::move(bytes), t.shape(), t.strides(), t.dim_names(),
                             t.size() > 0 ? -low : 0));
}

PyTensor RebuildTensor(nb::handle type_state, nb::handle shape, nb::handle strides,
                       nb::handle dim_names, nb::handle buffer, int64_t byte_offset) {
  TypePtr type = TypeFromState(type_state, 0);
  BufferPtr bytes = BufferFromState(buffer);
  if (!bytes) bytes = Unwrap(Buffer::Allocate(0));
  return PyTensor{Unwrap(Tensor::Make(std::move(type), std::move(bytes),
                                      nb::cast<std::vector<int64_t>>(shape),
                                      nb::cast<std::vector<int64_t>>(strides),
                                      nb::cast<std::vector<std::string>>(dim_names), byte_offset))};
}

}  // namespace

nb::tuple ReduceType(const TypePtr& type) {
  return nb::make_tuple(Rebuilder("_rebuild_type"), nb::make_tuple(TypeState(*type)));
}

nb::tuple ReduceArray(const ArrayDataPtr& data, int protocol) {
  ArrayDataPtr compact = Unwrap(Compact(data));
  return nb::make_tuple(Rebuilder("_rebuild_array"),
                        nb::make_tuple(TypeState(*data->type), ArrayState(*compact, protocol)));
}

nb::tuple ReduceTensor(const Tensor& tensor, int protocol) {
  Tensor t = CompactTensor(tensor);
  nb::list shape, strides, names;
  for (int64_t s : t.shape()) shape.append(s);
  for (int64_t s : t.strides()) strides.append(s);
  for (const std::string& n : t.dim_names()) names.append(n);
  return nb::make_tuple(Rebuilder("_rebuild_tensor"),
                        nb::make_tuple(TypeState(*t.type()), nb::tuple(shape), nb::tuple(strides),
                                       nb::tuple(names), BufferState(t.buffer(), protocol),
                                       t.byte_offset()));
}

nb::object DeepCopyArray(const ArrayDataPtr& data) {
  // Protocol 4 state holds bytes copies: rebuilding from it copies once.
  nb::tuple reduced = ReduceArray(data, 4);
  return reduced[0](*nb::borrow<nb::tuple>(reduced[1]));
}

void BindPickle(nb::module_& m) {
  m.def("_rebuild_type", [](nb::handle state) { return WrapType(TypeFromState(state, 0)); },
        "Unpickles a quiver type (internal).");
  m.def("_rebuild_array", &RebuildArray, "Unpickles and validates a quiver array (internal).");
  m.def("_rebuild_tensor", &RebuildTensor, "Unpickles a quiver Tensor (internal).");
}

}  // namespace quiver::python
