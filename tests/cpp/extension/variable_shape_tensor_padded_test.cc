// ToPadded / ToPaddedInto / FromPadded: padding the rows of a
// variable-shape column into one tensor and back, on any thread count.
#include "quiver/variable_shape_tensor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "no_threads.h"
#include "quiver/selection.h"
#include "sparse_test_util.h"
#include "test_util.h"
#include "variable_shape_test_util.h"

namespace quiver {

using test::BufferOf;
using test::Float32Type;
using test::Iota;
using test::ThreeRows;

namespace {

// Building a large variable-shape column and padding it each use two
// threads; without them they still finish with the same bytes.
TEST(Threads, VariableShapeCopiesFinishWithoutThreads) {
  const int64_t side = 1024;  // two rows of 4 MiB: past the 8 MiB parallel threshold
  std::vector<float> values(static_cast<size_t>(2 * side * side));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 1000);
  auto type = *VariableShapeTensorType::Make(float32(), 2);
  std::vector<std::optional<Tensor>> rows = {
      test::Vec<float>({values.begin(), values.begin() + side * side}, {side, side}),
      test::Vec<float>({values.begin() + side * side, values.end()}, {side, side})};
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        auto array = VariableShapeTensorArray::FromTensors(type, rows);
        if (!array.ok()) return 1;
        auto padded = array->ToPadded();
        if (!padded.ok()) return 2;
        const auto* out = reinterpret_cast<const float*>(padded->values.raw_data());
        for (size_t i = 0; i < values.size(); ++i) {
          if (out[i] != values[i]) return 3;
        }
        return 0;
      },
      &skipped, /*threads=*/0);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

}  // namespace

TEST(VariableShapeTensorArray, PaddedRoundTrip) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(7));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 2}), 5.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 3}), 7.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 1, 0}), 7.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{2, 0, 0}), 7.0f);
  ASSERT_OK_AND_ASSIGN(
      auto back, VariableShapeTensorArray::FromPadded(array.type(), padded.values, padded.shapes));
  for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(back.RowTensor(i)->Equals(*array.RowTensor(i)));
  EXPECT_ERROR(kInvalid, "not exactly representable as int8",
               (*VariableShapeTensorArray::FromTensors(*VariableShapeTensorType::Make(int8(), 0),
                                                       std::vector<std::optional<Tensor>>{}))
                   .ToPadded(0.5));
}

TEST(VariableShapeTensorArray, IntegerPadValuesAreExact) {
  std::vector<int64_t> values = {1, 2, 3};
  auto row = *Tensor::Make(int64(), BufferOf(values), {3});
  auto short_row = *Tensor::Make(int64(), BufferOf(values), {1});
  std::vector<std::optional<Tensor>> rows = {row, short_row};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(
                                       *VariableShapeTensorType::Make(int64(), 1), rows));
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(big));
  EXPECT_EQ(*padded.values.Value<int64_t>(std::vector<int64_t>{1, 2}), big);
  ASSERT_OK_AND_ASSIGN(padded, array.ToPadded(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(*padded.values.Value<int64_t>(std::vector<int64_t>{1, 1}),
            std::numeric_limits<int64_t>::max());
  EXPECT_ERROR(kInvalid, "pad value 9223372036854775808 is not exactly representable as int64",
               array.ToPadded(uint64_t{1} << 63));
  auto floats = ThreeRows();
  EXPECT_ERROR(kInvalid, "pad value 16777217 is not exactly representable as float",
               floats.ToPadded(int64_t{16777217}));
  ASSERT_OK(floats.ToPadded(int64_t{16777216}).status());
}

TEST(VariableShapeTensorArray, PaddedIntoCallerMemory) {
  VariableShapeTensorArray array = ThreeRows();
  std::vector<float> out(3 * 2 * 4, -5.0f);
  const int64_t small[3] = {3, 2, 3};
  EXPECT_ERROR(kInvalid, "out has shape [3, 2, 3] but the padded batch has shape [3, 2, 4]",
               array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()), small));
  const int64_t rows[3] = {2, 2, 4};
  EXPECT_ERROR(kInvalid, "out has shape [2, 2, 4]",
               array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()), rows));
  // A larger cell pads further: row 0's values, then pad_value.
  std::vector<float> wide(3 * 3 * 5, -5.0f);
  const int64_t larger[3] = {3, 3, 5};
  ASSERT_OK(array.ToPaddedInto(reinterpret_cast<uint8_t*>(wide.data()), larger, 9).status());
  EXPECT_EQ(wide[5 * 3 - 1], 9.0f);  // row 0, last cell element: padding
  const int64_t shape[3] = {3, 2, 4};
  ASSERT_OK_AND_ASSIGN(Tensor shapes,
                       array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()), shape));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(std::memcmp(out.data(), padded.values.raw_data(), out.size() * 4),
            0);  // padding written
  EXPECT_TRUE(shapes.Equals(padded.shapes));
}

TEST(VariableShapeTensorArray, PaddedRoundTripWithZeroSizeAxes) {
  std::vector<std::optional<Tensor>> rows = {Iota({0, 2}), Iota({0, 3})};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2, 0, 3}));
  ASSERT_OK_AND_ASSIGN(
      auto back, VariableShapeTensorArray::FromPadded(array.type(), padded.values, padded.shapes));
  EXPECT_TRUE(back.RowTensor(1)->Equals(*array.RowTensor(1)));
}

TEST(VariableShapeTensorArray, LargeBatchesPadOnTwoThreadsWithTheSameResult) {
  // 64 x 7 x 5063 float32 = 9 MiB of output: the rows are split over two threads.
  std::vector<std::optional<Tensor>> rows;
  for (int i = 0; i < 64; ++i) rows.push_back(Iota({1 + i % 7, 5000 + i}, static_cast<float>(i)));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-1));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{64, 7, 5063}));
  for (int64_t i = 0; i < 64; ++i) {
    std::vector<int64_t> last = {i, i % 7, 4999 + i}, pad = {i, 6, 5062};
    EXPECT_EQ(*padded.values.Value<float>(last),
              static_cast<float>(i + (i % 7 + 1) * (5000 + i) - 1))
        << i;
    EXPECT_EQ(*padded.values.Value<float>(pad), -1.0f) << i;
  }
}

TEST(VariableShapeTensorArray, LargeColumnsWithNullAndEmptyRowsCopyInPieces) {
  // About 12 MiB of rows of uneven sizes, with null and empty rows: the
  // build and the padding hand rows to the threads in 2 MiB pieces, and
  // every row lands where it belongs whichever thread took its piece.
  std::vector<std::optional<Tensor>> rows;
  for (int i = 0; i < 300; ++i) {
    if (i % 37 == 5) {
      rows.emplace_back();
    } else {
      rows.push_back(Iota({i % 11 == 0 ? 0 : 1 + i % 5, 2000 + 7 * i}, static_cast<float>(i)));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  for (int64_t i = 0; i < 300; ++i) {
    if (!rows[i]) {
      EXPECT_FALSE(array.IsValid(i)) << i;
      continue;
    }
    ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(i));
    EXPECT_TRUE(row.Equals(*rows[i])) << i;
  }
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-1, NullPolicy::kAllow));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{300, 5, 2000 + 7 * 299}));
  const std::vector<int64_t> in_corner = {4, 2000 + 7 * 299 - 1};
  for (int64_t i : {0, 1, 5, 42, 150, 298, 299}) {
    const int64_t h = rows[i] ? rows[i]->shape()[0] : 0, w = rows[i] ? rows[i]->shape()[1] : 0;
    if (h > 0) {
      std::vector<int64_t> last = {i, h - 1, w - 1}, in_row = {h - 1, w - 1};
      EXPECT_EQ(*padded.values.Value<float>(last), *rows[i]->Value<float>(in_row)) << i;
    }
    std::vector<int64_t> corner = {i, 4, 2000 + 7 * 299 - 1};  // padding unless the row fills it
    const float expected = h == 5 && w == 2000 + 7 * 299 ? *rows[i]->Value<float>(in_corner) : -1;
    EXPECT_EQ(*padded.values.Value<float>(corner), expected) << i;
  }
}

TEST(VariableShapeTensorArray, LargePaddingIntoCallerMemoryWritesEveryByte) {
  // About 20 MiB of output, over the size split between threads, into
  // memory full of a stale byte, with a larger cell than the rows need:
  // null, empty and full rows alike land byte for byte as ToPadded's, every
  // padding byte written.
  std::vector<std::optional<Tensor>> rows;
  for (int i = 0; i < 200; ++i) {
    if (i % 41 == 7) {
      rows.emplace_back();
    } else {
      rows.push_back(Iota({i % 13 == 0 ? 0 : 1 + i % 4, 3000 + 11 * i}, static_cast<float>(i)));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-2, NullPolicy::kAllow));
  const std::vector<int64_t> max = padded.values.shape();  // {200, 4, 3000 + 11 * 199}
  const std::vector<int64_t> cell = {max[0], max[1] + 1, max[2] + 3};
  std::vector<float> out(static_cast<size_t>(cell[0] * cell[1] * cell[2]));
  std::memset(out.data(), 0x5a, out.size() * sizeof(float));
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()),
                                                         cell, -2, NullPolicy::kAllow));
  EXPECT_TRUE(shapes.Equals(padded.shapes));
  const auto* reference = reinterpret_cast<const float*>(padded.values.raw_data());
  for (int64_t i = 0; i < cell[0]; ++i) {
    for (int64_t r = 0; r < cell[1]; ++r) {
      for (int64_t c = 0; c < cell[2]; ++c) {
        const float got = out[static_cast<size_t>((i * cell[1] + r) * cell[2] + c)];
        const float want =
            r < max[1] && c < max[2] ? reference[(i * max[1] + r) * max[2] + c] : -2.0f;
        if (got != want) {
          FAIL() << "row " << i << " at (" << r << ", " << c << "): " << got << " not " << want;
        }
      }
    }
  }
}

TEST(VariableShapeTensorArray, PaddedWithPermutation) {
  VariableShapeTensorArray array = ThreeRows({1, 0});
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 2}), 5.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 0, 3}), 103.0f);
}

TEST(VariableShapeTensorArray, EveryNumericValueType) {
  for (TypePtr type : {int8(), int16(), int32(), int64(), uint8(), uint16(), uint32(), uint64(),
                       float16(), float32(), float64()}) {
    const int64_t width = type->byte_width();
    std::vector<uint8_t> bytes(6 * width);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b % 60);
    Tensor tensor = *Tensor::Make(type, test::BufferFrom(bytes.data(), bytes.size()), {2, 3});
    std::vector<std::optional<Tensor>> rows = {tensor, std::nullopt};
    ASSERT_OK_AND_ASSIGN(auto vtype, VariableShapeTensorType::Make(type, 2));
    ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(vtype, rows));
    EXPECT_TRUE(array.RowTensor(0)->Equals(tensor)) << type->ToString();
    ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(1, NullPolicy::kAllow));
    EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2, 2, 3}));
  }
}

}  // namespace quiver

namespace quiver {

// An empty column whose type claims 2^31 - 1 dimensions costs its type
// nothing; padding it is refused before any vector of ndim entries is made
// (c_data_import_fuzz: 16 GiB asked for by a 282-byte input).
TEST(VariableShapeTensorArray, PaddingHugeNdimIsRefusedWithoutAllocating) {
  constexpr int kNdim = std::numeric_limits<int32_t>::max();
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(float32(), kNdim));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr empty, MakeEmptyArray(type.data_type()));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(empty));
  EXPECT_ERROR(kNotImplemented, "may have at most 64 dimensions", array.ToPadded());
  ASSERT_OK_AND_ASSIGN(auto type63, VariableShapeTensorType::Make(float32(), 63));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr empty63, MakeEmptyArray(type63.data_type()));
  ASSERT_OK_AND_ASSIGN(auto array63, VariableShapeTensorArray::Make(empty63));
  ASSERT_OK_AND_ASSIGN(auto padded, array63.ToPadded());
  EXPECT_EQ(padded.values.ndim(), 64);
}

}  // namespace quiver
