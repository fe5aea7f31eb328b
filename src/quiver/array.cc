#include "quiver/array.h"

#include <cstring>
#include <string>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/utf8.h"

namespace quiver {

bool ArrayData::IsValid(int64_t i) const {
  if (buffers.empty() || !buffers[0]) return true;
  return GetBit(buffers[0]->data(), offset + i);
}

int64_t ArrayData::ComputeNullCount() const {
  if (null_count != kUnknownNullCount) return null_count;
  if (buffers.empty() || !buffers[0]) return 0;
  int64_t nulls = 0;
  for (int64_t i = 0; i < length; ++i) nulls += IsValid(i) ? 0 : 1;
  return nulls;
}

Result<ArrayDataPtr> Slice(const ArrayDataPtr& data, int64_t offset, int64_t length) {
  if (offset < 0 || length < 0 || offset > data->length || length > data->length - offset) {
    return Status::IndexError("slice [" + std::to_string(offset) + ", " +
                              std::to_string(offset) + " + " + std::to_string(length) +
                              ") is outside an array of length " + std::to_string(data->length));
  }
  auto out = std::make_shared<ArrayData>(*data);
  out->offset = data->offset + offset;
  out->length = length;
  bool all_valid = data->null_count == 0 || data->buffers.empty() || !data->buffers[0];
  out->null_count = all_valid ? 0 : kUnknownNullCount;
  return ArrayDataPtr(out);
}

namespace {

int ExpectedChildCount(const DataType& storage) {
  switch (storage.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      return 1;
    case TypeId::kStruct:
      return static_cast<int>(storage.children().size());
    default:
      return 0;
  }
}

int64_t ReadOffset(const ArrayData& data, int64_t index) {
  const uint8_t* base = data.buffers[1]->data();
  if (HasLargeOffsets(data.type->storage().id())) {
    int64_t v;
    std::memcpy(&v, base + index * 8, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, base + index * 4, 4);
  return v;
}

Status CheckBufferSize(const ArrayData& data, int index, int64_t needed, const char* what) {
  const BufferPtr& buffer = data.buffers[index];
  if (needed == 0) return Status::OK();
  if (!buffer) {
    return Status::Invalid(std::string(what) + " buffer is missing (" + std::to_string(needed) +
                           " bytes needed)");
  }
  if (buffer->size() < needed) {
    return Status::Invalid(std::string(what) + " buffer has " + std::to_string(buffer->size()) +
                           " bytes, " + std::to_string(needed) + " needed for offset " +
                           std::to_string(data.offset) + " + length " +
                           std::to_string(data.length));
  }
  return Status::OK();
}

Status ValidateLayout(const ArrayData& data) {
  if (!data.type) return Status::Invalid("array has no type");
  const DataType& storage = data.type->storage();
  if (data.length < 0) return Status::Invalid("negative length " + std::to_string(data.length));
  if (data.offset < 0) return Status::Invalid("negative offset " + std::to_string(data.offset));
  QUIVER_RETURN_NOT_OK(internal::AddChecked(data.offset, data.length, "offset + length").status());
  if (data.null_count < kUnknownNullCount || data.null_count > data.length) {
    return Status::Invalid("null_count " + std::to_string(data.null_count) +
                           " is outside [0, length " + std::to_string(data.length) + "]");
  }
  int expected_buffers = ExpectedBufferCount(storage);
  if (static_cast<int>(data.buffers.size()) != expected_buffers) {
    return Status::Invalid("type " + data.type->ToString() + " needs " +
                           std::to_string(expected_buffers) + " buffers, got " +
                           std::to_string(data.buffers.size()));
  }
  int expected_children = ExpectedChildCount(storage);
  if (static_cast<int>(data.children.size()) != expected_children) {
    return Status::Invalid("type " + data.type->ToString() + " needs " +
                           std::to_string(expected_children) + " children, got " +
                           std::to_string(data.children.size()));
  }
  for (int i = 0; i < expected_children; ++i) {
    const Field& field = storage.children()[i];
    if (!data.children[i] || !data.children[i]->type ||
        !data.children[i]->type->Equals(*field.type)) {
      return Status::TypeError("child " + std::to_string(i) + " (" + field.name +
                               ") does not have type " + field.type->ToString());
    }
  }
  return Status::OK();
}

Status ValidateOffsets(const ArrayData& data, int64_t limit, const char* limit_name, bool full) {
  int64_t end = data.offset + data.length;
  int64_t width = HasLargeOffsets(data.type->storage().id()) ? 8 : 4;
  if (end == 0 && !data.buffers[1]) return Status::OK();
  QUIVER_ASSIGN_OR_RETURN(int64_t needed, internal::MultiplyChecked(end + 1, width, "offsets size"));
  QUIVER_RETURN_NOT_OK(CheckBufferSize(data, 1, needed, "offsets"));
  int64_t first = ReadOffset(data, data.offset);
  int64_t last = ReadOffset(data, end);
  if (first < 0 || first > last || last > limit) {
    return Status::Invalid("offsets [" + std::to_string(first) + ", " + std::to_string(last) +
                           "] are outside [0, " + std::string(limit_name) + " " +
                           std::to_string(limit) + "]");
  }
  if (!full) return Status::OK();
  int64_t previous = first;
  for (int64_t i = data.offset + 1; i <= end; ++i) {
    int64_t current = ReadOffset(data, i);
    if (current < previous) {
      return Status::Invalid("offset " + std::to_string(i) + " (" + std::to_string(current) +
                             ") < offset " + std::to_string(i - 1) + " (" +
                             std::to_string(previous) + ")");
    }
    previous = current;
  }
  return Status::OK();
}

Status ValidateUtf8Values(const ArrayData& data) {
  for (int64_t i = 0; i < data.length; ++i) {
    int64_t begin = ReadOffset(data, data.offset + i);
    int64_t end = ReadOffset(data, data.offset + i + 1);
    const uint8_t* bytes = data.buffers[2] ? data.buffers[2]->data() : nullptr;
    if (end > begin && !internal::IsValidUtf8(bytes + begin, end - begin)) {
      return Status::Invalid("row " + std::to_string(i) + " is not valid UTF-8");
    }
  }
  return Status::OK();
}

Status ValidateSizes(const ArrayData& data, bool full) {
  const DataType& storage = data.type->storage();
  int64_t end = data.offset + data.length;
  if (!data.buffers.empty() && data.buffers[0]) {
    QUIVER_RETURN_NOT_OK(CheckBufferSize(data, 0, (end + 7) / 8, "validity"));
  }
  switch (storage.id()) {
    case TypeId::kBool:
      return CheckBufferSize(data, 1, (end + 7) / 8, "values");
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      int64_t data_size = data.buffers[2] ? data.buffers[2]->size() : 0;
      QUIVER_RETURN_NOT_OK(ValidateOffsets(data, data_size, "data size", full));
      if (full && (storage.id() == TypeId::kUtf8 || storage.id() == TypeId::kLargeUtf8)) {
        return ValidateUtf8Values(data);
      }
      return Status::OK();
    }
    case TypeId::kList:
    case TypeId::kLargeList:
      return ValidateOffsets(data, data.children[0]->length, "child length", full);
    case TypeId::kFixedSizeList: {
      QUIVER_ASSIGN_OR_RETURN(int64_t needed,
                              internal::MultiplyChecked(end, storage.fixed_size(), "fixed_size_list"));
      if (data.children[0]->length < needed) {
        return Status::Invalid("child has length " + std::to_string(data.children[0]->length) +
                               ", " + std::to_string(needed) + " needed for " +
                               std::to_string(end) + " lists of " +
                               std::to_string(storage.fixed_size()));
      }
      return Status::OK();
    }
    case TypeId::kStruct:
      for (size_t i = 0; i < data.children.size(); ++i) {
        if (data.children[i]->length < end) {
          return Status::Invalid("child " + std::to_string(i) + " (" +
                                 storage.children()[i].name + ") has length " +
                                 std::to_string(data.children[i]->length) + " < " +
                                 std::to_string(end));
        }
      }
      return Status::OK();
    default: {  // fixed-width primitives and fixed_size_binary
      QUIVER_ASSIGN_OR_RETURN(int64_t needed,
                              internal::MultiplyChecked(end, storage.byte_width(), "values size"));
      return CheckBufferSize(data, 1, needed, "values");
    }
  }
}

Status ValidateNullCount(const ArrayData& data) {
  if (data.null_count == kUnknownNullCount) return Status::OK();
  ArrayData unknown = data;
  unknown.null_count = kUnknownNullCount;
  int64_t counted = unknown.ComputeNullCount();
  if (counted != data.null_count) {
    return Status::Invalid("null_count is " + std::to_string(data.null_count) +
                           " but the validity bitmap has " + std::to_string(counted) + " nulls");
  }
  return Status::OK();
}

}  // namespace

Status Validate(const ArrayData& data, ValidationLevel level) {
  if (level == ValidationLevel::kNone) return Status::OK();
  QUIVER_RETURN_NOT_OK(ValidateLayout(data));
  bool full = level == ValidationLevel::kFull;
  if (level != ValidationLevel::kMinimal) {
    QUIVER_RETURN_NOT_OK(ValidateSizes(data, full));
    if (full) QUIVER_RETURN_NOT_OK(ValidateNullCount(data));
  }
  const DataType& storage = data.type->storage();
  for (size_t i = 0; i < data.children.size(); ++i) {
    Status st = Validate(*data.children[i], level);
    if (!st.ok()) {
      return st.WithContext("child " + std::to_string(i) + " (" + storage.children()[i].name +
                            ")");
    }
  }
  return Status::OK();
}

}  // namespace quiver
