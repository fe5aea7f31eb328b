// Importing types and arrays through the C Data Interface. Imported
// structs are foreign input: every count and size is checked before use.
#include <cstdint>
#include <cstring>
#include <string>

#include "quiver/c_data.h"
#include "quiver/extension/canonical_extensions.h"
#include "quiver/extension/canonical_storage.h"
#include "quiver/extension/extension_keys.h"
#include "quiver/interchange/c_data_format.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"

namespace quiver {

namespace {

// Owns a moved-in ArrowSchema and releases it on scope exit.
class SchemaGuard {
 public:
  explicit SchemaGuard(ArrowSchema* source) : schema_(*source) { source->release = nullptr; }
  ~SchemaGuard() {
    if (schema_.release != nullptr) schema_.release(&schema_);
  }
  const ArrowSchema& get() const { return schema_; }

 private:
  ArrowSchema schema_;
};

// Owns a moved-in ArrowArray; every imported buffer shares one of these.
struct ArrayOwner {
  explicit ArrayOwner(ArrowArray* source) : array(*source) { source->release = nullptr; }
  ~ArrayOwner() {
    if (array.release != nullptr) array.release(&array);
  }
  ArrowArray array;
};

// Where a schema node sits ("field.child 0 (price).dictionary"), for
// errors. The text is built only when an error names it: importing a wide
// schema builds no strings.
struct NodePath {
  const NodePath* parent = nullptr;
  const char* step = "field";
  int64_t child = -1;                  // the child index, for a "child" step
  const ArrowSchema* named = nullptr;  // the child whose name is shown

  std::string Text() const {
    std::string out = parent ? parent->Text() + "." + step : step;
    if (child >= 0) out += " " + std::to_string(child);
    // A named child is named ("field.child 0 (price)"), as the IPC reader
    // names its columns. A released child's name is not read: its memory
    // may be gone.
    if (named != nullptr && named->release != nullptr && named->name != nullptr &&
        named->name[0] != '\0') {
      out += std::string(" (") + named->name + ")";
    }
    return out;
  }
};

Result<Field> ImportFieldNode(const ArrowSchema& schema, const NodePath& path, int depth) {
  if (depth > kMaxNestingDepth) {
    return Status::Invalid(path.Text(), ": ArrowSchema nests more than ", kMaxNestingDepth,
                           " levels deep");
  }
  if (schema.release == nullptr) return Status::Invalid(path.Text(), ": ArrowSchema is released");
  if (schema.format == nullptr) return Status::Invalid(path.Text(), ": ArrowSchema has no format");
  if (schema.n_children < 0 || (schema.n_children > 0 && schema.children == nullptr)) {
    return Status::Invalid(path.Text(), ": ArrowSchema has ", schema.n_children,
                           " children but no children array");
  }
  std::vector<Field> children;
  for (int64_t i = 0; i < schema.n_children; ++i) {
    if (schema.children[i] == nullptr) {
      return Status::Invalid(path.Text(), ": child ", i, " is NULL");
    }
    const ArrowSchema& child_schema = *schema.children[i];
    const NodePath where{&path, "child", i, &child_schema};
    QUIVER_ASSIGN_OR_RETURN(Field child, ImportFieldNode(child_schema, where, depth + 1));
    children.push_back(std::move(child));
  }
  Field field;
  field.name = schema.name ? schema.name : "";
  field.nullable = (schema.flags & ARROW_FLAG_NULLABLE) != 0;
  auto type = TypeFromFormat(schema.format, std::move(children));
  if (!type.ok()) return type.status().WithContext(path.Text());
  field.type = *type;
  if (field.type->id() == TypeId::kMap && (schema.flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0) {
    auto sorted = map_(field.type->children()[0], true);
    if (!sorted.ok()) return sorted.status().WithContext(path.Text());
    field.type = *sorted;
  }
  if (schema.dictionary != nullptr) {
    // The format names the indices; the dictionary schema the values (its
    // name, nullability and plain metadata carry nothing for quiver).
    QUIVER_ASSIGN_OR_RETURN(
        Field values,
        ImportFieldNode(*schema.dictionary, NodePath{&path, "dictionary"}, depth + 1));
    auto encoded =
        dictionary(field.type, values.type, (schema.flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
    if (!encoded.ok()) return encoded.status().WithContext(path.Text());
    field.type = *encoded;
  }
  auto metadata = interchange::DecodeMetadata(schema.metadata);
  if (!metadata.ok()) return metadata.status().WithContext(path.Text());
  Status st = internal::LiftExtensionKeys(std::move(*metadata), &field);
  if (!st.ok()) return st.WithContext(path.Text());
  return field;
}

// A buffer cannot extend past the end of the address space; a size that
// claims so comes from a length no producer could have meant.
Status CheckAddressRange(const void* data, int64_t size, int64_t index) {
  const auto begin = reinterpret_cast<uintptr_t>(data);
  if (static_cast<uint64_t>(size) > UINTPTR_MAX - begin) {
    return Status::Invalid("buffer ", index, " would need ", size,
                           " bytes from its address, past the end of memory");
  }
  return Status::OK();
}

// Byte sizes of each ArrayData buffer of `node`, derived from its type and
// length (the C struct does not carry them), with every product
// overflow-checked. Views' variadic buffers take their sizes from the
// struct's last buffer (int64 each), which ArrayData does not keep.
Result<std::vector<int64_t>> BufferSizes(const ArrowArray& node, const internal::Layout& layout) {
  const int64_t end = node.offset + node.length;
  std::vector<int64_t> sizes(static_cast<size_t>(layout.num_buffers), 0);
  for (int b = 0; b < layout.num_buffers; ++b) {
    QUIVER_ASSIGN_OR_RETURN(sizes[b], internal::RequiredBufferSize(layout, layout.roles[b], end));
  }
  if (layout.variadic) {
    const int64_t count = node.n_buffers - layout.num_buffers - 1;
    const void* size_buffer = node.buffers[node.n_buffers - 1];
    if (count > 0 && size_buffer == nullptr) {
      return Status::Invalid("ArrowArray has ", count,
                             " variadic buffers but no buffer of their sizes (its last buffer)");
    }
    QUIVER_ASSIGN_OR_RETURN(int64_t size_bytes,
                            internal::MultiplyChecked(count, 8, "variadic sizes buffer size"));
    QUIVER_RETURN_NOT_OK(CheckAddressRange(size_buffer, size_bytes, node.n_buffers - 1));
    for (int64_t j = 0; j < count; ++j) {
      int64_t size = 0;
      std::memcpy(&size, static_cast<const uint8_t*>(size_buffer) + j * 8, 8);
      if (size < 0) {
        return Status::Invalid("variadic buffer ", j, " has negative size ", size);
      }
      if (size > 0 && node.buffers[layout.num_buffers + j] == nullptr) {
        return Status::Invalid("variadic buffer ", j, " is NULL but has ", size, " bytes");
      }
      sizes.push_back(size);
    }
  }
  if (layout.num_buffers == 3 && layout.roles[2] == internal::BufferRole::kData && end > 0 &&
      node.buffers[1] != nullptr) {
    // The data buffer ends where the last offset points.
    const int64_t last = internal::ReadOffset(static_cast<const uint8_t*>(node.buffers[1]), end,
                                              layout.offset_width());
    if (last < 0) return Status::Invalid("last offset ", last, " is negative");
    sizes[2] = last;
  }
  return sizes;
}

Result<ArrayDataPtr> ImportNode(const ArrowArray& node, const TypePtr& type,
                                const std::shared_ptr<ArrayOwner>& owner) {
  const DataType& storage = type->storage();
  if (node.release == nullptr) return Status::Invalid("ArrowArray is released");
  if (node.length < 0 || node.offset < 0 || node.null_count < -1) {
    return Status::Invalid("ArrowArray has length ", node.length, ", offset ", node.offset,
                           ", null_count ", node.null_count);
  }
  QUIVER_RETURN_NOT_OK(internal::AddChecked(node.offset, node.length, "offset + length").status());
  const internal::Layout layout = internal::LayoutOf(storage);
  // Views carry their variadic buffers and then one buffer of their sizes.
  const bool count_ok =
      layout.variadic ? node.n_buffers > layout.num_buffers : node.n_buffers == layout.num_buffers;
  if (!count_ok || (node.n_buffers > 0 && node.buffers == nullptr)) {
    return Status::Invalid("ArrowArray of type ", type->ToString(), " has ", node.n_buffers,
                           " buffers, expected ",
                           (layout.variadic ? "at least " + std::to_string(layout.num_buffers + 1) +
                                                  " (validity, views, variadic data buffers, "
                                                  "then their sizes)"
                                            : std::to_string(layout.num_buffers)));
  }
  if (layout.dictionary && node.dictionary == nullptr) {
    return Status::Invalid("ArrowArray of type ", type->ToString(), " has no dictionary");
  }
  if (!layout.dictionary && node.dictionary != nullptr) {
    return Status::Invalid("ArrowArray of type ", type->ToString(),
                           " has a dictionary, but its schema is not dictionary-encoded");
  }
  const int64_t expected_children = internal::ChildCount(storage);
  if (node.n_children != expected_children || (expected_children > 0 && node.children == nullptr)) {
    return Status::Invalid("ArrowArray of type ", type->ToString(), " has ", node.n_children,
                           " children, expected ", expected_children);
  }
  if (layout.has_offsets() && node.buffers[1] == nullptr && node.offset + node.length > 0) {
    return Status::Invalid("ArrowArray of type ", type->ToString(), " has no offsets buffer");
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, BufferSizes(node, layout));
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = node.length;
  data->offset = node.offset;
  // Some producers write 0 for the null type; every slot is null.
  data->null_count = storage.id() == TypeId::kNull ? node.length : node.null_count;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    if (node.buffers[i] == nullptr) {
      data->buffers.push_back(nullptr);
      continue;
    }
    QUIVER_RETURN_NOT_OK(CheckAddressRange(node.buffers[i], sizes[i], i));
    data->buffers.push_back(Buffer::Wrap(node.buffers[i], sizes[i], [owner] {}));
  }
  for (int64_t i = 0; i < node.n_children; ++i) {
    if (node.children[i] == nullptr) {
      return Status::Invalid("child ", i, " is NULL");
    }
    auto child = ImportNode(*node.children[i], storage.children()[i].type, owner);
    if (!child.ok()) {
      return child.status().WithContext("child " + std::to_string(i) + " (" +
                                        storage.children()[i].name + ")");
    }
    data->children.push_back(*child);
  }
  if (layout.dictionary) {
    // Owned by the same struct: released with it, never on its own.
    auto values = ImportNode(*node.dictionary, storage.value_type(), owner);
    if (!values.ok()) return values.status().WithContext("dictionary");
    data->dictionary = *values;
  }
  return ArrayDataPtr(data);
}

}  // namespace

Result<Field> ImportField(ArrowSchema* schema) {
  if (schema == nullptr) return Status::Invalid("ArrowSchema pointer is NULL");
  if (schema->release == nullptr) return Status::Invalid("ArrowSchema is already released");
  SchemaGuard guard(schema);
  return ImportFieldNode(guard.get(), NodePath{}, 0);
}

Result<TypePtr> ImportType(ArrowSchema* schema) {
  QUIVER_ASSIGN_OR_RETURN(Field field, ImportField(schema));
  return field.type;
}

Result<ArrayDataPtr> ImportArray(ArrowArray* array, const TypePtr& type, ValidationLevel level) {
  if (array == nullptr) return Status::Invalid("ArrowArray pointer is NULL");
  if (array->release == nullptr) return Status::Invalid("ArrowArray is already released");
  auto owner = std::make_shared<ArrayOwner>(array);
  if (!type) return Status::Invalid("cannot import an ArrowArray without a type");
  // ImportNode recurses over the type: bound it first.
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(*type));
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr data, ImportNode(owner->array, type, owner));
  Status st = Validate(*data, level);
  if (!st.ok()) return st.WithContext("imported ArrowArray of type " + type->ToString());
  auto canonical = internal::CanonicalArray(data);
  if (!canonical.ok()) {
    return canonical.status().WithContext("imported ArrowArray of type " + type->ToString());
  }
  return canonical;
}

Result<TypePtr> CanonicalType(const TypePtr& type) { return internal::CanonicalType(type); }

}  // namespace quiver
