// Builders for the view and dictionary arrays the core-type tests share,
// and timestamp types by unit and zone.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "quiver/internal/layout.h"
#include "test_util.h"

namespace quiver::test {

// A 16-byte view of `value`: inline when it fits in 12 bytes, else a
// prefix, `buffer_index` and `offset`.
inline std::vector<uint8_t> ViewBytes(const std::string& value, int32_t buffer_index,
                                      int32_t offset) {
  std::vector<uint8_t> view(16, 0);
  const auto length = static_cast<int32_t>(value.size());
  std::memcpy(view.data(), &length, 4);
  if (value.size() <= 12) {
    std::memcpy(view.data() + 4, value.data(), value.size());
  } else {
    std::memcpy(view.data() + 4, value.data(), 4);
    std::memcpy(view.data() + 8, &buffer_index, 4);
    std::memcpy(view.data() + 12, &offset, 4);
  }
  return view;
}

// A utf8_view (or binary_view) array: short values inline, long ones
// appended to one variadic buffer each `per_buffer` long values.
inline ArrayDataPtr Views(const std::vector<std::optional<std::string>>& values,
                          TypePtr type = utf8_view(), int per_buffer = 2) {
  std::vector<uint8_t> views;
  std::vector<std::string> data(1);
  std::vector<bool> valid;
  int in_buffer = 0;
  for (const auto& v : values) {
    valid.push_back(v.has_value());
    std::string value = v.value_or("");
    if (value.size() > 12 && in_buffer == per_buffer) {
      data.emplace_back();
      in_buffer = 0;
    }
    const auto index = static_cast<int32_t>(data.size() - 1);
    const auto offset = static_cast<int32_t>(data.back().size());
    if (value.size() > 12) {
      data.back() += value;
      ++in_buffer;
    }
    std::vector<uint8_t> view = ViewBytes(value, index, offset);
    views.insert(views.end(), view.begin(), view.end());
  }
  auto out = std::make_shared<ArrayData>();
  out->type = std::move(type);
  out->length = static_cast<int64_t>(values.size());
  out->buffers = {Bitmap(valid), BufferOf(views)};
  for (const std::string& bytes : data) {
    out->buffers.push_back(BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size())));
  }
  return out;
}

// Overwrites the view at `slot` of a views array (a fresh copy of its buffer).
inline ArrayDataPtr WithView(const ArrayDataPtr& array, int64_t slot,
                             const std::vector<uint8_t>& view) {
  auto out = std::make_shared<ArrayData>(*array);
  BufferPtr views = BufferFrom(array->buffers[1]->data(), array->buffers[1]->size());
  std::memcpy(views->mutable_data() + slot * 16, view.data(), 16);
  out->buffers[1] = views;
  return out;
}

// A dictionary array of int32 indices (nullopt = null) over `values`.
inline ArrayDataPtr DictionaryOf(const std::vector<std::optional<int32_t>>& indices,
                                 ArrayDataPtr values, TypePtr index_type = int32()) {
  std::vector<int32_t> raw;
  std::vector<bool> valid;
  for (const auto& i : indices) {
    raw.push_back(i.value_or(0));
    valid.push_back(i.has_value());
  }
  auto out = std::make_shared<ArrayData>();
  out->type = *dictionary(std::move(index_type), values->type);
  out->length = static_cast<int64_t>(indices.size());
  out->buffers = {Bitmap(valid), BufferOf(raw)};
  out->dictionary = std::move(values);
  return out;
}

// timestamp(unit, tz), which cannot fail for a valid unit.
inline TypePtr Timestamp(TimeUnit unit, std::string tz = "") {
  return *timestamp(unit, std::move(tz));
}

}  // namespace quiver::test
