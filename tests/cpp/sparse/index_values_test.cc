// Index values: tensors of any integer type and strides read as int64, the
// index type chosen or requested (and its errors), index tensors made from
// values, and the indptr, range and coordinate checks naming the first bad
// entry.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::Values;
using test::Vec;

TEST(SparseTensor, IndexTypes) {
  Tensor dense = Vec<float>(std::vector<float>(300, 1.0f), {300});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
  EXPECT_EQ(coo.coo_index()->coords.type()->id(), TypeId::kInt16);
  SparseOptions options;
  options.index_type = uint16();
  ASSERT_OK_AND_ASSIGN(auto u16, SparseTensor::FromDense(dense, SparseFormat::kCOO, options));
  EXPECT_EQ(u16.coo_index()->coords.type()->id(), TypeId::kUInt16);
  options.index_type = int8();
  EXPECT_ERROR(kInvalid, "does not fit the requested index type int8",
               SparseTensor::FromDense(dense, SparseFormat::kCOO, options));
  options.index_type = float32();
  EXPECT_ERROR(kTypeError, "index type must be an integer type",
               SparseTensor::FromDense(dense, SparseFormat::kCOO, options));
  // CSR needs indptr up to nnz: 300 non-zeros in one row need int16.
  Tensor row = Vec<float>(std::vector<float>(300, 1.0f), {1, 300});
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(row, SparseFormat::kCSR));
  EXPECT_EQ(csr.csx_index()->indptr.type()->id(), TypeId::kInt16);
}

}  // namespace
TEST(SparseIndexValues, ReadAsInt64WhateverTheTypeAndStrides) {
  // uint64 values past int64 read as int64 max: out of range for any shape.
  Tensor wide = Vec<uint64_t>({3, uint64_t{1} << 63}, {2});
  sparse::IndexValues read = sparse::ReadIndexValues(wide);
  EXPECT_EQ(std::vector<int64_t>(read.span().begin(), read.span().end()),
            (std::vector<int64_t>{3, std::numeric_limits<int64_t>::max()}));
  // COO coords [nnz, ndim] stored column-major read row-major.
  Tensor coords = Vec<int16_t>({0, 1, 2, 5, 6, 7}, {3, 2}, int16(), {2, 6});
  sparse::IndexValues rows = sparse::ReadIndexValues(coords);
  EXPECT_EQ(std::vector<int64_t>(rows.span().begin(), rows.span().end()),
            (std::vector<int64_t>{0, 5, 1, 6, 2, 7}));
  int64_t block[4];
  sparse::ReadIndexRows(coords, 1, 3, block);
  EXPECT_EQ(std::vector<int64_t>(block, block + 4), (std::vector<int64_t>{1, 6, 2, 7}));
  EXPECT_TRUE(sparse::IsIndexType(*uint8()));
  EXPECT_FALSE(sparse::IsIndexType(*float32()));
  EXPECT_FALSE(sparse::IsIndexType(*boolean()));
}

TEST(SparseIndexValues, ChooseAndMakeIndexTensors) {
  EXPECT_EQ((*sparse::ChooseIndexType(nullptr, 127))->id(), TypeId::kInt8);
  EXPECT_EQ((*sparse::ChooseIndexType(nullptr, 128))->id(), TypeId::kInt16);
  EXPECT_EQ((*sparse::ChooseIndexType(nullptr, int64_t{1} << 31))->id(), TypeId::kInt64);
  EXPECT_EQ((*sparse::ChooseIndexType(uint8(), 255))->id(), TypeId::kUInt8);
  EXPECT_EQ(test::StatusOf(sparse::ChooseIndexType(uint8(), 256)).message(),
            "index value 256 does not fit the requested index type uint8");
  EXPECT_EQ(test::StatusOf(sparse::ChooseIndexType(float64(), 1)).message(),
            "index type must be an integer type (int8..int64, uint8..uint64), got float64");
  const std::vector<int64_t> values = {0, 4, 9, 2};
  ASSERT_OK_AND_ASSIGN(Tensor made,
                       sparse::MakeIndexTensor(values, uint16(), {2, 2}, "CSR indices"));
  EXPECT_EQ(made.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<int64_t>(made), values);
  EXPECT_EQ(
      test::StatusOf(sparse::MakeIndexTensor(std::vector<int64_t>{300}, int8(), {1}, "CSR indices"))
          .message(),
      "CSR indices value 300 does not fit the index type int8");
  EXPECT_EQ(
      test::StatusOf(sparse::MakeIndexTensor(std::vector<int64_t>{-1}, int32(), {1}, "COO coords"))
          .message(),
      "COO coords value -1 does not fit the index type int32");
  auto not_integer = sparse::MakeIndexTensor(values, float32(), {4}, "COO coords");
  EXPECT_EQ(test::StatusOf(not_integer).code(), StatusCode::kTypeError);
  EXPECT_EQ(test::StatusOf(not_integer).message(),
            "COO coords: index type must be an integer type, got float32");
}

TEST(SparseIndexValues, ChecksNameTheFirstBadEntry) {
  auto of = [](std::vector<int64_t> v) {
    sparse::IndexValues out;
    out.size = static_cast<int64_t>(v.size());
    out.owned = std::move(v);
    return out;
  };
  ASSERT_OK(sparse::CheckIndptr(of({0, 2, 2, 5}), "CSR indptr", 5));
  EXPECT_EQ(sparse::CheckIndptr(of({1, 2}), "CSR indptr", 2).message(),
            "CSR indptr[0] = 1, expected 0");
  EXPECT_EQ(sparse::CheckIndptr(of({0, 3, 2}), "CSR indptr", 2).message(),
            "CSR indptr[2] = 2 is less than CSR indptr[1] = 3");
  EXPECT_EQ(sparse::CheckIndptr(of({0, 2, 4}), "CSF indptr[0]", 5).message(),
            "CSF indptr[0][2] = 4, expected 5 (the size of the next level)");
  ASSERT_OK(sparse::CheckInRange(of({0, 3}), "CSR indices", 4));
  EXPECT_EQ(sparse::CheckInRange(of({0, 4, -1}), "CSR indices", 4).message(),
            "CSR indices[1] = 4 is out of range [0, 4)");
  ASSERT_OK(sparse::CheckCoords(of({0, 0, 1, 2}), {2, 3}));
  EXPECT_EQ(sparse::CheckCoords(of({0, 0, 1, 3}), {2, 3}).message(),
            "COO coords[1, 1] = 3 is out of range [0, 3)");
  EXPECT_EQ(sparse::MaxIndex({4, 9, 0}), 8);
  EXPECT_EQ(sparse::MaxIndex({0}), 0);
  EXPECT_EQ(sparse::IndexName(SparseFormat::kCSC, "indptr"), "CSC indptr");
  ASSERT_OK_AND_ASSIGN(BufferPtr indptr, sparse::AllocateIndptr(3, "CSR indptr"));
  EXPECT_EQ(indptr->size(), 32);
  EXPECT_EQ(indptr->data()[31], 0);
  EXPECT_EQ(
      test::StatusOf(sparse::AllocateIndptr(std::numeric_limits<int64_t>::max(), "CSR indptr"))
          .message(),
      "CSR indptr length: 9223372036854775807 + 1 overflows int64");
}

}  // namespace quiver
