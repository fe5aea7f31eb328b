#include "inspect_summary.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace quiver::tools {
namespace {

bool IsListLike(TypeId id) {
  switch (id) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kMap: return true;
    default: return false;
  }
}

// Fills entry.fixed or entry.variable when its field is a tensor type;
// false when it is none.
bool ParseTensor(ColumnSummary& entry) {
  const TypePtr& type = entry.field->type;
  if (type->id() != TypeId::kExtension) return false;
  if (type->extension_name() == FixedShapeTensorType::kExtensionName) {
    auto parsed = FixedShapeTensorType::FromDataType(type);
    if (parsed.ok()) entry.fixed = *parsed;
    return true;
  }
  if (type->extension_name() == VariableShapeTensorType::kExtensionName) {
    auto parsed = VariableShapeTensorType::FromDataType(type);
    if (parsed.ok()) entry.variable = *parsed;
    return true;
  }
  return false;
}

// Appends the tensor fields inside `parent` (not inside tensors).
void FindNested(const ColumnSummary& parent, int depth, std::vector<ColumnSummary>& out) {
  if (depth > kMaxNestingDepth) return;  // readers refuse deeper schemas
  const DataType& storage = parent.field->type->storage();
  const bool is_struct = storage.id() == TypeId::kStruct;
  const bool list_like = IsListLike(storage.id());
  const std::vector<Field>& children = storage.children();
  for (size_t c = 0; c < children.size(); ++c) {
    ColumnSummary entry;
    entry.field = &children[c];
    entry.column = parent.column;
    entry.nested = true;
    entry.children = parent.children;
    entry.children.push_back(c);
    entry.path = parent.path;
    // A list's elements are "[]": the item field's own name says nothing.
    const std::string step = list_like ? "[]" : children[c].name;
    entry.path.push_back(step);
    entry.name = parent.name + (list_like ? "" : ".") + step;
    entry.in_list = parent.in_list || !is_struct;
    if (ParseTensor(entry)) {
      out.push_back(std::move(entry));
    } else {
      FindNested(entry, depth + 1, out);
    }
  }
}

// The value of a `width`-byte integer at `p`, in the body's byte order.
int64_t ReadInteger(const uint8_t* p, int64_t width, bool is_signed, bool swap) {
  uint8_t bytes[8] = {};
  std::memcpy(bytes, p, static_cast<size_t>(width));
  if (swap) std::reverse(bytes, bytes + width);
  switch (width) {
    case 1: return is_signed ? int64_t{static_cast<int8_t>(bytes[0])} : int64_t{bytes[0]};
    case 2: {
      uint16_t v;
      std::memcpy(&v, bytes, 2);
      return is_signed ? int64_t{static_cast<int16_t>(v)} : int64_t{v};
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, bytes, 4);
      return is_signed ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
    }
    default: {
      int64_t v;
      std::memcpy(&v, bytes, 8);
      return v;  // uint64 sizes past 2^63 show as negative, as validate reports them
    }
  }
}

// The validity bitmap of `node`, which has nulls, checked to cover `slots`.
Result<BufferPtr> ValidityOf(const ipc::FieldNodeLayout& node, const BatchBody& body,
                             int64_t slots) {
  if (node.buffers.empty()) {
    return Status::Invalid("field '", node.field.name, "' has ", node.null_count,
                           " nulls but no validity bitmap");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bitmap, body.read(node.buffers[0]));
  if (bitmap->size() < (slots + 7) / 8) {
    return Status::Invalid("field '", node.field.name, "' has ", node.null_count,
                           " nulls but a validity bitmap of ", bitmap->size(), " bytes for ", slots,
                           " slots");
  }
  return bitmap;
}

// The most axes a variable-shape column without rows lists (NumPy's limit).
constexpr int64_t kMaxAxesWithoutRows = 64;

// Adds the shapes of the non-null slots of the variable-shape tensor
// `node` (`structs`: the structs around it, outermost first, whose nulls
// hide its slots too), read from its shape buffer alone.
Status AddShapes(ColumnSummary& entry, const ipc::FieldNodeLayout& node,
                 const std::vector<const ipc::FieldNodeLayout*>& structs, const BatchBody& body) {
  const VariableShapeTensorType& type = *entry.variable;
  const int64_t ndim = type.ndim();
  if (node.children.size() != 2 || node.children[1].children.size() != 1) {
    return Status::Invalid("its storage is not struct<data, shape: fixed_size_list>");
  }
  const ipc::FieldNodeLayout& sizes = node.children[1].children[0];
  const DataType& size_type = sizes.field.type->storage();
  if (!size_type.is_integer() || sizes.buffers.size() < 2) {
    return Status::Invalid("its shape entries are ", size_type.ToString(), ", not integers");
  }
  int64_t slots = node.length;
  for (const ipc::FieldNodeLayout* outer : structs) slots = std::min(slots, outer->length);
  if (slots == 0) {
    // No shape buffer backs ndim here: a header could claim 2^31 axes and
    // make the output gigabytes of "no rows". Past NumPy's 64 dimensions
    // the axes are not listed.
    if (ndim > kMaxAxesWithoutRows) {
      return Status::Invalid("ndim ", ndim, " and no rows: axes are listed for at most ",
                             kMaxAxesWithoutRows, " when no row backs them");
    }
    entry.axes.resize(static_cast<size_t>(ndim));
    return Status::OK();
  }
  const int64_t width = size_type.byte_width();
  int64_t needed = 0;
  if (__builtin_mul_overflow(slots, ndim, &needed) ||
      __builtin_mul_overflow(needed, width, &needed)) {
    return Status::Invalid(slots, " rows of ", ndim, " shape entries overflow int64");
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr shapes, body.read(sizes.buffers[1]));
  if (shapes->size() < needed) {
    return Status::Invalid("its shape buffer holds ", shapes->size(), " bytes; ", slots,
                           " rows of ", ndim, " ", size_type.ToString(), " sizes need ", needed);
  }
  // Only now: the schema's ndim alone (any int32) must not size memory; a
  // shape buffer of slots * ndim sizes is in the input.
  entry.axes.resize(static_cast<size_t>(ndim));
  std::vector<BufferPtr> bitmaps;
  for (const ipc::FieldNodeLayout* outer : structs) {
    if (outer->null_count == 0) continue;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr bitmap, ValidityOf(*outer, body, slots));
    bitmaps.push_back(std::move(bitmap));
  }
  if (node.null_count > 0) {
    QUIVER_ASSIGN_OR_RETURN(BufferPtr bitmap, ValidityOf(node, body, slots));
    bitmaps.push_back(std::move(bitmap));
  }
  const bool swap =
      (body.endianness == ipc::Endianness::kBig) != (std::endian::native == std::endian::big);
  const bool is_signed = size_type.is_signed_integer();
  const std::vector<int64_t>& permutation = type.permutation();
  const uint8_t* values = shapes->data();
  for (int64_t row = 0; row < slots; ++row) {
    bool valid = true;
    for (const BufferPtr& bitmap : bitmaps) {
      valid = valid && ((bitmap->data()[row / 8] >> (row % 8)) & 1) != 0;
    }
    if (!valid) continue;
    for (int64_t axis = 0; axis < ndim; ++axis) {
      // Logical axis k is physical axis permutation[k] (docs/formats.md, "Permutation").
      const int64_t physical = permutation.empty() ? axis : permutation[static_cast<size_t>(axis)];
      const int64_t size =
          ReadInteger(values + (row * ndim + physical) * width, width, is_signed, swap);
      AxisStats& stats = entry.axes[static_cast<size_t>(axis)];
      if (entry.rows_with_shape == 0) {
        stats.min = stats.max = size;
      } else {
        stats.min = std::min(stats.min, size);
        stats.max = std::max(stats.max, size);
      }
      ++stats.counts[size];
    }
    ++entry.rows_with_shape;
  }
  return Status::OK();
}

void Note(ColumnSummary& entry, const Status& status) {
  if (!status.ok() && entry.problem.ok()) entry.problem = status;
}

// Adds `value` to `*total`, which stays as it was (false) when the sum
// would pass int64: headers are unchecked input and may claim any length.
bool AddTo(int64_t* total, int64_t value) {
  int64_t sum = 0;
  if (__builtin_add_overflow(*total, value, &sum)) return false;
  *total = sum;
  return true;
}

// Adds the decompressed and stored bytes of every buffer under `node`.
void AddBytes(ColumnSummary& entry, const ipc::FieldNodeLayout& node,
              const std::vector<Result<ipc::BodyBufferSize>>& sizes) {
  for (const int64_t index : node.buffers) {
    const Result<ipc::BodyBufferSize>& size = sizes[static_cast<size_t>(index)];
    if (!size.ok()) {
      Note(entry, size.status());
      continue;
    }
    if (!AddTo(&entry.bytes, size->decoded) || !AddTo(&entry.stored_bytes, size->stored)) {
      Note(entry, Status::Invalid("its buffer sizes add up past 2^63 - 1 bytes"));
    }
  }
  for (const ipc::FieldNodeLayout& child : node.children) AddBytes(entry, child, sizes);
}

}  // namespace

std::vector<ColumnSummary> PlanColumns(const Schema& schema) {
  std::vector<ColumnSummary> out;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    ColumnSummary column;
    column.field = &schema.fields[i];
    column.name = column.field->name;
    column.column = static_cast<int>(i);
    column.path = {column.name};
    const bool tensor = ParseTensor(column);
    out.push_back(column);
    if (!tensor) FindNested(column, 1, out);
  }
  return out;
}

void AddBatch(std::vector<ColumnSummary>& columns, const BatchBody& body, bool* compressed) {
  const ipc::BatchLayout& layout = *body.layout;
  std::vector<Result<ipc::BodyBufferSize>> sizes;
  sizes.reserve(layout.buffers.size());
  for (size_t b = 0; b < layout.buffers.size(); ++b) {
    if (layout.compression == ipc::Compression::kNone) {
      const int64_t length = layout.buffers[b].length;
      sizes.push_back(ipc::BodyBufferSize{length, length, false});
      continue;
    }
    sizes.push_back(body.read_size(static_cast<int64_t>(b)));
    if (sizes.back().ok() && sizes.back()->compressed) *compressed = true;
  }
  for (ColumnSummary& entry : columns) {
    if (entry.column < 0 || static_cast<size_t>(entry.column) >= layout.columns.size()) continue;
    // The node of the entry and the structs around it since the last
    // container whose children are not one slot per row.
    const ipc::FieldNodeLayout* node = &layout.columns[static_cast<size_t>(entry.column)];
    std::vector<const ipc::FieldNodeLayout*> structs;
    bool found = true;
    for (const size_t child : entry.children) {
      if (child >= node->children.size()) {
        found = false;
        break;
      }
      if (node->field.type->storage().id() == TypeId::kStruct) {
        structs.push_back(node);
      } else {
        structs.clear();
      }
      node = &node->children[child];
    }
    if (!found) continue;  // the reader checked the nodes against the schema
    const int64_t nulls =
        node->field.type->storage().id() == TypeId::kNull ? node->length : node->null_count;
    if (!AddTo(&entry.null_count, nulls)) {
      Note(entry, Status::Invalid("its null counts add up past 2^63 - 1"));
    }
    AddBytes(entry, *node, sizes);
    if (entry.variable) Note(entry, AddShapes(entry, *node, structs, body));
  }
}

}  // namespace quiver::tools
