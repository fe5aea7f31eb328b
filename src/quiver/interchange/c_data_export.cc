// Exporting types and arrays through the C Data Interface.
#include <memory>
#include <string>
#include <vector>

#include "quiver/c_data.h"
#include "quiver/extension/extension_keys.h"
#include "quiver/interchange/c_data_format.h"
#include "quiver/internal/layout.h"

namespace quiver {

namespace {

// Owns the strings and child structs an exported ArrowSchema points at.
struct ExportedSchema {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;
  std::unique_ptr<ArrowSchema> dictionary;  // dictionary-encoded fields: the values
};

// Keeps the exported ArrayData (and so its buffers) alive.
struct ExportedArray {
  ArrayDataPtr data;
  std::vector<const void*> buffers;
  std::vector<int64_t> variadic_sizes;  // views: the last buffer exported
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;
  std::unique_ptr<ArrowArray> dictionary;  // dictionary arrays: the values
};

// The release callback of an exported ArrowSchema or ArrowArray: releases
// the children and dictionary still held (a consumer may have moved some
// out, leaving release == NULL), frees what the struct points at and marks
// it released.
template <typename Struct, typename Owned>
void ReleaseExported(Struct* exported) {
  if (exported == nullptr || exported->release == nullptr) return;
  auto* owned = static_cast<Owned*>(exported->private_data);
  for (Struct& child : owned->children) {
    if (child.release != nullptr) child.release(&child);
  }
  if (owned->dictionary && owned->dictionary->release != nullptr) {
    owned->dictionary->release(owned->dictionary.get());
  }
  delete owned;
  exported->release = nullptr;
}

void ReleaseSchema(ArrowSchema* schema) { ReleaseExported<ArrowSchema, ExportedSchema>(schema); }
void ReleaseArray(ArrowArray* array) { ReleaseExported<ArrowArray, ExportedArray>(array); }

// Consumers may dereference even the buffers of empty arrays (the first
// offset of a utf8 array, say), so stand a zeroed block in for missing ones.
alignas(64) const uint8_t kZeros[64] = {};

Status ExportFieldNode(const Field& field, ArrowSchema* out, int depth);
Status ExportArrayNode(const ArrayDataPtr& data, ArrowArray* out, int depth);

Status DepthError(int depth) {
  return Status::Invalid("cannot export a type nested ", depth, " levels deep (the limit is ",
                         kMaxNestingDepth, ")");
}

Status ExportFieldNode(const Field& field, ArrowSchema* out, int depth) {
  if (depth > kMaxNestingDepth) return DepthError(depth);
  if (!field.type) return Status::Invalid("field '", field.name, "' has no type");
  const DataType& storage = field.type->storage();
  auto owned = std::make_unique<ExportedSchema>();
  owned->format = FormatString(storage);
  owned->name = field.name;
  owned->metadata = interchange::EncodeMetadata(internal::MetadataWithExtensionKeys(field));
  owned->children.resize(storage.children().size());
  for (size_t i = 0; i < storage.children().size(); ++i) {
    Status st = ExportFieldNode(storage.children()[i], &owned->children[i], depth + 1);
    if (!st.ok()) {
      for (size_t k = 0; k < i; ++k) ReleaseSchema(&owned->children[k]);
      return st;
    }
    owned->child_pointers.push_back(&owned->children[i]);
  }
  if (storage.id() == TypeId::kDictionary) {
    // The values travel as an unnamed nullable field (extension keys and all).
    owned->dictionary = std::make_unique<ArrowSchema>();
    Status st = ExportFieldNode(Field{"", storage.value_type(), true, {}}, owned->dictionary.get(),
                                depth + 1);
    if (!st.ok()) {
      for (ArrowSchema& child : owned->children) ReleaseSchema(&child);
      return st;
    }
  }
  *out = ArrowSchema{};
  out->format = owned->format.c_str();
  out->name = owned->name.c_str();
  out->metadata = owned->metadata.empty() ? nullptr : owned->metadata.data();
  out->flags = field.nullable ? ARROW_FLAG_NULLABLE : 0;
  if (storage.id() == TypeId::kDictionary && storage.ordered()) {
    out->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  }
  if (storage.id() == TypeId::kMap && storage.keys_sorted())
    out->flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  out->n_children = static_cast<int64_t>(owned->children.size());
  out->children = owned->child_pointers.empty() ? nullptr : owned->child_pointers.data();
  out->dictionary = owned->dictionary.get();
  out->release = ReleaseSchema;
  out->private_data = owned.release();
  return Status::OK();
}

}  // namespace

Status ExportField(const Field& field, ArrowSchema* out) { return ExportFieldNode(field, out, 0); }

Status ExportType(const DataType& type, ArrowSchema* out) {
  // Field wants a TypePtr; alias the caller's type without owning it.
  TypePtr alias(std::shared_ptr<const DataType>{}, &type);
  return ExportField(Field{"", alias, true, {}}, out);
}

namespace {

Status ExportArrayNode(const ArrayDataPtr& data, ArrowArray* out, int depth) {
  if (depth > kMaxNestingDepth) return DepthError(depth);
  if (!data || !data->type) return Status::Invalid("cannot export an array without a type");
  const internal::Layout layout = internal::LayoutOf(*data->type);
  const auto n_buffers = static_cast<int64_t>(data->buffers.size());
  if (layout.variadic ? n_buffers < layout.num_buffers : n_buffers != layout.num_buffers) {
    return Status::Invalid("cannot export ", data->type->ToString(), " with ", data->buffers.size(),
                           " buffers (it has ", layout.num_buffers, ")");
  }
  if (static_cast<int>(data->children.size()) != internal::ChildCount(*data->type)) {
    return Status::Invalid("cannot export ", data->type->ToString(), " with ",
                           data->children.size(), " children");
  }
  if (layout.dictionary != (data->dictionary != nullptr)) {
    return Status::Invalid("cannot export ", data->type->ToString(),
                           (layout.dictionary ? " without a dictionary" : " with a dictionary"));
  }
  auto owned = std::make_unique<ExportedArray>();
  owned->data = data;
  for (int64_t i = 0; i < n_buffers; ++i) {
    const BufferPtr& buffer = data->buffers[i];
    const bool is_validity =
        i == 0 && layout.num_buffers > 0 && layout.roles[0] == internal::BufferRole::kValidity;
    owned->buffers.push_back(buffer ? buffer->data() : (is_validity ? nullptr : kZeros));
    if (i >= layout.num_buffers) owned->variadic_sizes.push_back(buffer ? buffer->size() : 0);
  }
  if (layout.variadic) {
    owned->buffers.push_back(owned->variadic_sizes.empty()
                                 ? static_cast<const void*>(kZeros)
                                 : static_cast<const void*>(owned->variadic_sizes.data()));
  }
  owned->children.resize(data->children.size());
  for (size_t i = 0; i < data->children.size(); ++i) {
    Status st = ExportArrayNode(data->children[i], &owned->children[i], depth + 1);
    if (!st.ok()) {
      for (size_t k = 0; k < i; ++k) ReleaseArray(&owned->children[k]);
      return st;
    }
    owned->child_pointers.push_back(&owned->children[i]);
  }
  if (data->dictionary) {
    owned->dictionary = std::make_unique<ArrowArray>();
    Status st = ExportArrayNode(data->dictionary, owned->dictionary.get(), depth + 1);
    if (!st.ok()) {
      for (ArrowArray& child : owned->children) ReleaseArray(&child);
      return st;
    }
  }
  *out = ArrowArray{};
  out->length = data->length;
  // An empty array's offset points at nothing: exported as 0, since a
  // consumer may import its buffers as empty and then find an offset past
  // their end (pyarrow's concat_arrays of an empty filter result did).
  out->offset = data->length == 0 ? 0 : data->offset;
  bool no_validity = !internal::HasValidity(layout) || !data->buffers[0];
  out->null_count = no_validity ? 0 : data->null_count;
  if (data->type->storage().id() == TypeId::kNull) out->null_count = data->length;
  out->n_buffers = static_cast<int64_t>(owned->buffers.size());
  out->n_children = static_cast<int64_t>(owned->children.size());
  out->buffers = owned->buffers.empty() ? nullptr : owned->buffers.data();
  out->children = owned->child_pointers.empty() ? nullptr : owned->child_pointers.data();
  out->dictionary = owned->dictionary.get();
  out->release = ReleaseArray;
  out->private_data = owned.release();
  return Status::OK();
}

}  // namespace

Status ExportArray(const ArrayDataPtr& data, ArrowArray* out) {
  if (data && data->type) QUIVER_RETURN_NOT_OK(CheckNestingDepth(*data->type));
  return ExportArrayNode(data, out, 0);
}

}  // namespace quiver
