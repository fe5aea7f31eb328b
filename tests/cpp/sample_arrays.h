// Sample arrays for the core-type tests: the types beyond tensors (decimal32
// and 64, intervals, map, list views, unions, run-end encoded), each with
// nulls, raw nodes to assemble them, the view and dictionary builders, and
// timestamp types by unit and zone. Shared by the type, validation, C Data,
// IPC, compaction, selection and equality tests.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "quiver/internal/layout.h"
#include "test_util.h"

namespace quiver::test {

inline ArrayDataPtr Node(TypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                         std::vector<ArrayDataPtr> children = {},
                         int64_t null_count = kUnknownNullCount) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->null_count = null_count;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  return data;
}

inline ArrayDataPtr Decimal32Sample() {
  return Primitive<int32_t>(*decimal32(9, 2), {100, -250, 0, 7}, {true, false, true, true});
}

inline ArrayDataPtr Decimal64Sample() {
  return Primitive<int64_t>(*decimal64(18, 3), {1, 2, -3, 4000}, {true, true, false, true});
}

inline ArrayDataPtr YearMonthSample() {
  return Primitive<int32_t>(*interval(IntervalUnit::kYearMonth), {12, -1, 0, 5},
                            {true, true, false, true});
}

// `length` slots of a fixed-width `type` over the int32 words given.
inline ArrayDataPtr Words(TypePtr type, int64_t length, const std::vector<int32_t>& words,
                          const std::vector<bool>& valid) {
  return Node(std::move(type), length, {valid.empty() ? nullptr : Bitmap(valid), BufferOf(words)});
}

inline ArrayDataPtr DayTimeSample() {  // (days, milliseconds) pairs
  return Words(*interval(IntervalUnit::kDayTime), 4, {1, 500, -2, 0, 3, 1, 0, 9}, {});
}

inline ArrayDataPtr MonthDayNanoSample() {  // months, days (int32) and nanos (int64) per slot
  return Words(*interval(IntervalUnit::kMonthDayNano), 4,
               {1, 2, 3, 0, -1, 0, 10, 0, 0, 0, 0, 0, 5, 6, 7, 0}, {true, true, false, true});
}

// map<utf8, int32>: [[a: 1, b: null], null, [], [c: 3]].
inline ArrayDataPtr MapSample() {
  TypePtr type = *map_(utf8(), int32());
  const TypePtr& entries_type = type->children()[0].type;
  auto entries =
      Node(entries_type, 3, {nullptr},
           {Utf8({"a", "b", "c"}), Primitive<int32_t>(int32(), {1, 0, 3}, {true, false, true})}, 0);
  return Node(type, 4, {Bitmap({true, false, true, true}), BufferOf<int32_t>({0, 2, 2, 2, 3})},
              {entries});
}

// list_view<int16> over child [1, 2, 3, 4, 5]: [[4, 5], null, [1], [2, 3, 4]].
inline ArrayDataPtr ListViewSample(bool large = false) {
  TypePtr type = large ? large_list_view(ListItem(int16())) : list_view(ListItem(int16()));
  auto child = Primitive<int16_t>(int16(), {1, 2, 3, 4, 5});
  if (large) {
    return Node(type, 4,
                {Bitmap({true, false, true, true}), BufferOf<int64_t>({3, 5, 0, 1}),
                 BufferOf<int64_t>({2, 0, 1, 3})},
                {child});
  }
  return Node(type, 4,
              {Bitmap({true, false, true, true}), BufferOf<int32_t>({3, 5, 0, 1}),
               BufferOf<int32_t>({2, 0, 1, 3})},
              {child});
}

// sparse_union<i: int64=0, s: utf8=1>: [1, "b", null (int), "d"].
inline ArrayDataPtr SparseUnionSample() {
  TypePtr type = *sparse_union({Field{"i", int64()}, Field{"s", utf8()}});
  return Node(type, 4, {BufferOf<int8_t>({0, 1, 0, 1})},
              {Primitive<int64_t>(int64(), {1, 2, 3, 4}, {true, true, false, true}),
               Utf8({"a", "b", "c", "d"})},
              0);
}

// dense_union<f: float64=3, s: utf8=7>: [1.5, "x", null (float), 2.5, "y"].
inline ArrayDataPtr DenseUnionSample() {
  TypePtr type = *dense_union({Field{"f", float64()}, Field{"s", utf8()}}, {3, 7});
  return Node(type, 5, {BufferOf<int8_t>({3, 7, 3, 3, 7}), BufferOf<int32_t>({0, 0, 1, 2, 1})},
              {Primitive<double>(float64(), {1.5, 0, 2.5}, {true, false, true}), Utf8({"x", "y"})},
              0);
}

// run_end_encoded<int32, int64>: [10, 10, null, 30, 30, 30].
inline ArrayDataPtr RunEndSample() {
  TypePtr type = *run_end_encoded(int32(), int64());
  return Node(type, 6, {},
              {Primitive<int32_t>(int32(), {2, 3, 6}),
               Primitive<int64_t>(int64(), {10, 0, 30}, {true, false, true})},
              0);
}

inline std::vector<std::pair<std::string, ArrayDataPtr>> AllNewTypeSamples() {
  return {{"decimal32", Decimal32Sample()},         {"decimal64", Decimal64Sample()},
          {"year_month", YearMonthSample()},        {"day_time", DayTimeSample()},
          {"month_day_nano", MonthDayNanoSample()}, {"map", MapSample()},
          {"list_view", ListViewSample()},          {"large_list_view", ListViewSample(true)},
          {"sparse_union", SparseUnionSample()},    {"dense_union", DenseUnionSample()},
          {"run_end_encoded", RunEndSample()}};
}

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
