// The checked storage accessors, assembling variable_shape_tensor storage
// and reading integer tensors.
#include <cstring>
#include <limits>

#include "quiver/extension/null_rows.h"
#include "quiver/extension/variable_shape_storage.h"
#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"

namespace quiver::internal {

Status RowError(int64_t i, const std::string& message) {
  return Status::Invalid("row ", i, ": ", message);
}

Status CheckDenseValues(const VariableShapeTensorType& type, const char* what) {
  if (type.value_type()->is_tensor_value()) return Status::OK();
  return Status::NotImplemented("cannot ", what, " ", type.value_type()->ToString(),
                                " tensors: Arrow bools are bit-packed");
}

Status CheckListCapacity(int64_t total_elements) {
  if (total_elements <= kMaxListElements) return Status::OK();
  return Status::Invalid(
      "the rows hold ", total_elements,
      " elements in total, more than the int32 offsets of a variable_shape_tensor's data list "
      "address (2^31 - 1); split the rows over several arrays");
}

const uint8_t* VariableShapeStorage::ValueBytes(const RowRange& range) const {
  const BufferPtr& buffer = values().buffers[1];
  if (!buffer || range.size() == 0) return nullptr;
  return buffer->data() + range.begin * array_.type_.value_type()->byte_width();
}

Status VariableShapeStorage::CheckedOffsets(int64_t from, int64_t to,
                                            std::span<int64_t> out) const {
  const ArrayData& child = values();
  int64_t previous = Offset(from);
  if (previous < 0 || previous > child.length) {
    return RowError(from, "data starts at element " + std::to_string(previous) + ", outside the " +
                              std::to_string(child.length) + " values of the data list");
  }
  out[0] = previous;
  for (int64_t i = from + 1; i <= to; ++i) {
    const int64_t next = Offset(i);
    if (next < previous || next > child.length) {
      return RowError(i - 1, "data [" + std::to_string(previous) + ", " + std::to_string(next) +
                                 ") is not a range inside the " + std::to_string(child.length) +
                                 " values of the data list");
    }
    out[static_cast<size_t>(i - from)] = next;
    previous = next;
  }
  return Status::OK();
}

Result<RowRange> VariableShapeStorage::CheckedRange(int64_t i) const {
  int64_t bounds[2];
  QUIVER_RETURN_NOT_OK(CheckedOffsets(i, i + 1, bounds));
  const int64_t base = values().offset;
  return RowRange{base + bounds[0], base + bounds[1]};
}

Result<RowRange> VariableShapeStorage::CheckedLayout(int64_t i, std::span<int64_t> physical) const {
  QUIVER_ASSIGN_OR_RETURN(RowRange range, CheckedRange(i));
  std::span<const int32_t> dims = PhysicalShape(i);
  for (size_t k = 0; k < dims.size(); ++k) physical[k] = dims[k];
  // Sizes fit int32; the product saturates past kCap (far above any data
  // length an int32-offset list can hold) instead of overflowing.
  constexpr int64_t kCap = int64_t{1} << 40;
  int64_t product = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t size = physical[k];
    if (size < 0) {
      return RowError(i,
                      "shape " + FormatShape(physical.first(dims.size())) + " has a negative size");
    }
    product = (size != 0 && product > kCap / size) ? kCap + 1 : product * size;
  }
  if (range.size() != product) {
    std::string product_text = product <= kCap ? std::to_string(product) : "more than 2^40";
    return RowError(i, "data length " + std::to_string(range.size()) + " != product of shape " +
                           FormatShape(physical.first(dims.size())) + " (" + product_text + ")");
  }
  return range;
}

Result<VariableShapeTensorArray> Assemble(const VariableShapeTensorType& type,
                                          VariableShapeParts parts, ValidationLevel level) {
  const TypePtr& storage = type.data_type()->storage_type();
  auto list = std::make_shared<ArrayData>();
  list->type = storage->children()[0].type;
  list->length = parts.length;
  list->null_count = 0;
  list->buffers = {nullptr, std::move(parts.offsets)};
  list->children = {std::move(parts.values)};

  auto shape_values = std::make_shared<ArrayData>();
  shape_values->type = int32();
  shape_values->length = parts.length * type.ndim();
  shape_values->null_count = 0;
  shape_values->buffers = {nullptr, std::move(parts.shapes)};
  auto shape = std::make_shared<ArrayData>();
  shape->type = storage->children()[1].type;
  shape->length = parts.length;
  shape->null_count = 0;
  shape->buffers = {nullptr};
  shape->children = {std::move(shape_values)};

  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = parts.length;
  data->null_count = parts.validity ? parts.null_count : 0;
  data->buffers = {std::move(parts.validity)};
  data->children = {std::move(list), std::move(shape)};
  return VariableShapeTensorArray::Make(std::move(data), level);
}

Result<std::vector<int64_t>> ReadIntegers(const Tensor& tensor, std::span<const int64_t> expected,
                                          const char* what) {
  if (!tensor.type()->is_integer()) {
    return Status::TypeError(std::string(what), " must hold integers, got ",
                             tensor.type()->ToString());
  }
  if (!std::equal(tensor.shape().begin(), tensor.shape().end(), expected.begin(), expected.end())) {
    return Status::Invalid(std::string(what), " has shape ", internal::FormatShape(tensor.shape()),
                           ", expected ", internal::FormatShape(expected));
  }
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(tensor.size()));
  const bool is_signed = tensor.type()->is_signed_integer();
  const int64_t width = tensor.type()->byte_width();
  auto read = [&](const uint8_t* p) -> Result<int64_t> {
    switch (width) {
      case 1: return is_signed ? int64_t{*reinterpret_cast<const int8_t*>(p)} : int64_t{*p};
      case 2: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return is_signed ? int64_t{static_cast<int16_t>(v)} : int64_t{v};
      }
      case 4: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return is_signed ? int64_t{static_cast<int32_t>(v)} : int64_t{v};
      }
      default: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        if (!is_signed && v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Status::Invalid(what, " entry ", v, " does not fit int64");
        }
        return static_cast<int64_t>(v);
      }
    }
  };
  const int64_t rows = expected.empty() ? 1 : expected[0];
  const int64_t cols = expected.size() > 1 ? expected[1] : 1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      int64_t index[2] = {r, c};
      QUIVER_ASSIGN_OR_RETURN(const uint8_t* p, tensor.ElementPointer(std::span<const int64_t>(
                                                    index, expected.size())));
      QUIVER_ASSIGN_OR_RETURN(int64_t v, read(p));
      out.push_back(v);
    }
  }
  return out;
}

Status CheckNoNullElements(const ArrayData& values, int64_t begin, int64_t end) {
  if (!values.buffers[0] || values.null_count == 0) return Status::OK();
  for (int64_t e = begin; e < end; ++e) {
    if (!GetBit(values.buffers[0]->data(), e)) return NullElementError(e - values.offset);
  }
  return Status::OK();
}

}  // namespace quiver::internal
