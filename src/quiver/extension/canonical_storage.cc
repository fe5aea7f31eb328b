#include "quiver/extension/canonical_storage.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/builders.h"
#include "quiver/internal/layout.h"

namespace quiver::internal {

namespace {

bool IsVariableShape(const DataType& type) {
  return type.id() == TypeId::kExtension &&
         type.extension_name() == VariableShapeTensorType::kExtensionName;
}

// The offsets and shapes are read on the host; a column whose offsets or
// shapes live on a device cannot be rewritten here (its values could).
Status CheckHostBuffers(const ArrayData& node, const char* what) {
  for (const BufferPtr& buffer : node.buffers) {
    if (buffer && !buffer->device().is_cpu()) {
      return Status::NotImplemented(
          "cannot rewrite a variable_shape_tensor's ", what,
          " in device memory into the canonical storage; copy the column to the host first");
    }
  }
  return Status::OK();
}

// `node`'s validity bits [first, first + length) (absolute bit indexes)
// starting at bit 0: shared when they start on a byte, else copied.
// Sets out->buffers[0] and out->null_count.
Status RebaseValidity(const ArrayData& node, int64_t first, int64_t length, ArrayData* out) {
  out->null_count = 0;
  out->buffers[0] = nullptr;
  const BufferPtr& bits = node.buffers[0];
  if (!bits) return Status::OK();
  if (first % 8 == 0) {
    // kMinimal validation sized the bitmap for every bit up to first + length.
    QUIVER_ASSIGN_OR_RETURN(out->buffers[0],
                            Buffer::Slice(bits, first / 8, bits->size() - first / 8));
    const bool whole = first == node.offset && length == node.length;
    out->null_count = whole ? node.null_count : kUnknownNullCount;
    return Status::OK();
  }
  QUIVER_ASSIGN_OR_RETURN(out->buffers[0],
                          CopyBitmap(bits->data(), first, length, &out->null_count));
  return Status::OK();
}

// Rows [start, start + length) of a child kept as it is (zero-copy).
ArrayDataPtr Rebase(const ArrayDataPtr& child, int64_t start, int64_t length) {
  if (start == 0 && length == child->length) return child;
  auto out = std::make_shared<ArrayData>(*child);
  out->offset += start;
  out->length = length;
  out->null_count = kUnknownNullCount;
  return out;
}

// Rows [start, start + length) of a large_list as a list (int32 offsets
// from 0) whose values child starts where row `start`'s data starts.
Result<ArrayDataPtr> NarrowOffsets(const ArrayData& list, int64_t start, int64_t length,
                                   const TypePtr& list_type) {
  QUIVER_RETURN_NOT_OK(CheckHostBuffers(list, "data offsets"));
  const ArrayData& values = *list.children[0];
  const int64_t first = list.offset + start;
  const auto* in =
      list.buffers[1] ? reinterpret_cast<const int64_t*>(list.buffers[1]->data()) : nullptr;
  if (in == nullptr && length > 0) {
    return Status::Invalid("the data list of a variable_shape_tensor has no offsets buffer");
  }
  // No rows need no offsets: the format lets an empty list's buffer be
  // empty, so nothing is read then.
  const int64_t base = length > 0 ? in[first] : 0;
  if (base < 0 || base > values.length) {
    return RowError(0, "data starts at element " + std::to_string(base) + ", outside the " +
                           std::to_string(values.length) + " values of the data list");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::AllocateUninitialized((length + 1) * 4));
  int32_t* out = MutableAs<int32_t>(offsets);
  out[0] = 0;
  for (int64_t r = 1; r <= length; ++r) {
    const int64_t relative = in[first + r] - base;
    if (relative < 0) {
      return RowError(r - 1, "its data ends at element " + std::to_string(in[first + r]) +
                                 ", before row 0's data starts (element " + std::to_string(base) +
                                 ")");
    }
    if (relative > kMaxListElements) {
      return RowError(r - 1,
                      "its data ends " + std::to_string(relative) +
                          " elements after row 0's start, outside the int32 offsets of a "
                          "variable_shape_tensor's data list (0 to 2^31 - 1); split the rows over "
                          "several arrays");
    }
    out[r] = static_cast<int32_t>(relative);
  }
  auto narrowed = std::make_shared<ArrayData>();
  narrowed->type = list_type;
  narrowed->length = length;
  narrowed->buffers.resize(2);
  QUIVER_RETURN_NOT_OK(RebaseValidity(list, first, length, narrowed.get()));
  narrowed->buffers[1] = std::move(offsets);
  // The values stay where they are: the child starts at row `start`'s data.
  auto shifted = std::make_shared<ArrayData>(values);
  shifted->offset += base;
  shifted->length -= base;
  shifted->null_count = kUnknownNullCount;
  narrowed->children = {std::move(shifted)};
  return ArrayDataPtr(std::move(narrowed));
}

// The shape entries of rows [start, start + length) of `array` (a
// variable_shape_tensor) as int32. Only the entries validation would read
// (valid rows, valid shapes, valid entries) are converted and checked; the
// rest become 0, so a null row holding 2^32 - 1 does not fail the import.
Result<ArrayDataPtr> NarrowShapes(const ArrayData& array, int64_t length, int ndim,
                                  const TypePtr& shape_type) {
  const int64_t start = array.offset;
  const ArrayData& shape = *array.children[1];
  const ArrayData& entries = *shape.children[0];
  QUIVER_RETURN_NOT_OK(CheckHostBuffers(shape, "shape validity"));
  QUIVER_RETURN_NOT_OK(CheckHostBuffers(entries, "shapes"));
  const int64_t first_row = shape.offset + start;  // in the shape's own buffers
  const int64_t first_entry = entries.offset + first_row * ndim;
  const int64_t count = length * ndim;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr converted, Buffer::Allocate(count * 4));
  int32_t* out = MutableAs<int32_t>(converted);
  const uint8_t* in = entries.buffers[1] ? entries.buffers[1]->data() : nullptr;
  const TypeId id = entries.type->storage().id();
  for (int64_t r = 0; r < length && in != nullptr; ++r) {
    if (!array.IsValid(r) || !shape.IsValid(start + r)) continue;
    for (int k = 0; k < ndim; ++k) {
      const int64_t e = first_entry + r * ndim + k;
      if (!entries.IsValid(e - entries.offset)) continue;
      int64_t value = 0;
      const bool fits = ReadInteger(in, e, id, &value);
      if (!fits || value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max()) {
        return RowError(r, "shape entry " + std::to_string(k) + " (" +
                               (fits ? std::to_string(value) : std::string("above 2^63 - 1")) +
                               ") does not fit int32");
      }
      out[r * ndim + k] = static_cast<int32_t>(value);
    }
  }
  auto new_entries = std::make_shared<ArrayData>();
  new_entries->type = shape_type->children()[0].type;
  new_entries->length = count;
  new_entries->buffers.resize(2);
  QUIVER_RETURN_NOT_OK(RebaseValidity(entries, first_entry, count, new_entries.get()));
  new_entries->buffers[1] = std::move(converted);
  auto new_shape = std::make_shared<ArrayData>();
  new_shape->type = shape_type;
  new_shape->length = length;
  new_shape->buffers.resize(1);
  QUIVER_RETURN_NOT_OK(RebaseValidity(shape, first_row, length, new_shape.get()));
  new_shape->children = {std::move(new_entries)};
  return ArrayDataPtr(std::move(new_shape));
}

Result<TypePtr> CanonicalTypeAt(const TypePtr& type);

// `type` rebuilt around children of its own kind whose types changed.
Result<TypePtr> WithChildren(const TypePtr& type, std::vector<Field> children) {
  switch (type->id()) {
    case TypeId::kList: return list(std::move(children[0]));
    case TypeId::kLargeList: return large_list(std::move(children[0]));
    case TypeId::kFixedSizeList: return fixed_size_list(std::move(children[0]), type->fixed_size());
    default: return struct_(std::move(children));
  }
}

Result<TypePtr> CanonicalTypeAt(const TypePtr& type) {
  if (IsVariableShape(*type)) {
    QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType parsed,
                            VariableShapeTensorType::FromDataType(type));
    // Canonical storage keeps its type (and metadata) exactly as given.
    if (IsCanonicalVariableShapeStorage(*type->storage_type())) return type;
    return parsed.data_type();
  }
  switch (type->id()) {
    case TypeId::kExtension: {
      QUIVER_ASSIGN_OR_RETURN(TypePtr storage, CanonicalTypeAt(type->storage_type()));
      if (storage == type->storage_type()) return type;
      return extension(type->extension_name(), type->extension_metadata(), std::move(storage));
    }
    case TypeId::kDictionary: {
      QUIVER_ASSIGN_OR_RETURN(TypePtr values, CanonicalTypeAt(type->value_type()));
      if (values == type->value_type()) return type;
      return dictionary(type->index_type(), std::move(values), type->ordered());
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: {
      std::vector<Field> children = type->children();
      bool changed = false;
      for (Field& child : children) {
        QUIVER_ASSIGN_OR_RETURN(TypePtr canonical, CanonicalTypeAt(child.type));
        changed |= canonical != child.type;
        child.type = std::move(canonical);
      }
      if (!changed) return type;
      return WithChildren(type, std::move(children));
    }
    default: return type;
  }
}

Result<ArrayDataPtr> CanonicalArrayAt(const ArrayDataPtr& data) {
  if (IsVariableShape(*data->type)) {
    QUIVER_ASSIGN_OR_RETURN(VariableShapeTensorType parsed,
                            VariableShapeTensorType::FromDataType(data->type));
    return CanonicalVariableShapeArray(data, parsed);
  }
  const std::vector<Field>& fields = data->type->storage().children();
  std::vector<ArrayDataPtr> children = data->children;
  bool changed = false;
  for (size_t i = 0; i < children.size() && i < fields.size(); ++i) {
    auto canonical = CanonicalArrayAt(children[i]);
    if (!canonical.ok()) {
      return canonical.status().WithContext("field " + std::to_string(i) + " (" + fields[i].name +
                                            ")");
    }
    changed |= *canonical != children[i];
    children[i] = std::move(*canonical);
  }
  ArrayDataPtr dictionary = data->dictionary;
  if (dictionary) {
    auto canonical = CanonicalArrayAt(dictionary);
    if (!canonical.ok()) return canonical.status().WithContext("dictionary");
    changed |= *canonical != dictionary;
    dictionary = std::move(*canonical);
  }
  if (!changed) return data;
  auto out = std::make_shared<ArrayData>(*data);
  QUIVER_ASSIGN_OR_RETURN(out->type, CanonicalTypeAt(data->type));
  out->children = std::move(children);
  out->dictionary = std::move(dictionary);
  return ArrayDataPtr(std::move(out));
}

}  // namespace

bool IsCanonicalVariableShapeStorage(const DataType& storage) {
  return storage.children()[0].type->id() == TypeId::kList &&
         storage.children()[1].type->children()[0].type->id() == TypeId::kInt32;
}

TypePtr CanonicalVariableShapeStorage(const DataType& storage) {
  Field data = storage.children()[0];
  Field shape = storage.children()[1];
  Field entry = shape.type->children()[0];
  entry.type = int32();
  data.type = list(data.type->children()[0]);
  // The size was checked to be >= 0 when the storage was read.
  shape.type = *fixed_size_list(std::move(entry), shape.type->fixed_size());
  return struct_({std::move(data), std::move(shape)});
}

Result<TypePtr> CanonicalType(const TypePtr& type) {
  if (!type) return type;
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(*type));
  return CanonicalTypeAt(type);
}

Result<ArrayDataPtr> CanonicalArray(const ArrayDataPtr& data) {
  if (!data || !data->type) return data;
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(*data->type));
  return CanonicalArrayAt(data);
}

Result<ArrayDataPtr> CanonicalVariableShapeArray(const ArrayDataPtr& data,
                                                 const VariableShapeTensorType& type) {
  if (IsCanonicalVariableShapeStorage(*data->type->storage_type())) return data;
  // Only buffer and child counts and sizes matter below: the rows are
  // checked, at the caller's level, on the canonical array.
  QUIVER_RETURN_NOT_OK(Validate(*data, ValidationLevel::kMinimal));
  QUIVER_RETURN_NOT_OK(CheckHostBuffers(*data, "validity"));
  const TypePtr& storage = type.data_type()->storage_type();
  const int64_t length = data->length;
  auto out = std::make_shared<ArrayData>(*data);
  out->type = type.data_type();
  out->offset = 0;
  QUIVER_RETURN_NOT_OK(RebaseValidity(*data, data->offset, length, out.get()));
  const ArrayDataPtr& list = data->children[0];
  if (list->type->storage().id() == TypeId::kLargeList) {
    QUIVER_ASSIGN_OR_RETURN(
        out->children[0], NarrowOffsets(*list, data->offset, length, storage->children()[0].type));
  } else {
    out->children[0] = Rebase(list, data->offset, length);
  }
  const ArrayDataPtr& shape = data->children[1];
  if (shape->children[0]->type->storage().id() != TypeId::kInt32) {
    QUIVER_ASSIGN_OR_RETURN(out->children[1],
                            NarrowShapes(*data, length, type.ndim(), storage->children()[1].type));
  } else {
    out->children[1] = Rebase(shape, data->offset, length);
  }
  return ArrayDataPtr(std::move(out));
}

Result<SchemaPtr> CanonicalSchema(const SchemaPtr& schema) {
  if (!schema) return schema;
  std::vector<Field> fields = schema->fields;
  bool changed = false;
  for (size_t i = 0; i < fields.size(); ++i) {
    auto canonical = CanonicalType(fields[i].type);
    if (!canonical.ok()) {
      return canonical.status().WithContext("field " + std::to_string(i) + " (" + fields[i].name +
                                            ")");
    }
    changed |= *canonical != fields[i].type;
    fields[i].type = std::move(*canonical);
  }
  if (!changed) return schema;
  auto out = std::make_shared<Schema>(*schema);
  out->fields = std::move(fields);
  return SchemaPtr(std::move(out));
}

Result<RecordBatchPtr> CanonicalBatch(const RecordBatchPtr& batch, const SchemaPtr& canonical) {
  std::vector<ArrayDataPtr> columns = batch->columns();
  bool changed = canonical != batch->schema();
  for (size_t i = 0; i < columns.size(); ++i) {
    auto rewritten = CanonicalArray(columns[i]);
    if (!rewritten.ok()) {
      return rewritten.status().WithContext("column " + std::to_string(i) + " (" +
                                            batch->schema()->fields[i].name + ")");
    }
    changed |= *rewritten != columns[i];
    columns[i] = std::move(*rewritten);
  }
  if (!changed) return batch;
  return RecordBatch::Make(canonical, batch->num_rows(), std::move(columns),
                           ValidationLevel::kNone);
}

}  // namespace quiver::internal
