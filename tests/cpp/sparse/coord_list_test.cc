// Reading any sparse index back as row-major coordinates (ToCoordList):
// COO whatever its strides, CSR, CSC and CSF with an axis order; each index
// checked as it is read, sortedness found rather than trusted.
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

TEST(SparseTensor, CoordsWithColumnMajorStrides) {
  // [nnz=2, ndim=2] stored column-major: rows (0, 1), (1, 0).
  Tensor coords = Vec<int32_t>({0, 1, 1, 0}, {2, 2}, int32(), {4, 8});
  ASSERT_OK_AND_ASSIGN(auto coo,
                       SparseTensor::MakeCOO({2, 2}, coords, Vec<float>({5, 6}, {2}), true));
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(Values<double>(dense), (std::vector<double>{0, 5, 6, 0}));
  ASSERT_OK_AND_ASSIGN(auto csr, coo.ToCSR());  // read block by block, not in place
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indptr), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indices), (std::vector<int64_t>{1, 0}));
}

std::vector<int64_t> CoordsOf(const SparseTensor& t) {
  auto list = sparse::ToCoordList(t);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  if (!list.ok()) return {};
  return std::vector<int64_t>(list->coords.span().begin(), list->coords.span().end());
}

}  // namespace

TEST(SparseCoordList, EveryFormatGivesRowMajorCoordinates) {
  // [[0, 1, 0], [2, 0, 3]]
  Tensor dense = Vec<float>({0, 1, 0, 2, 0, 3}, {2, 3});
  const std::vector<int64_t> expected = {0, 1, 1, 0, 1, 2};
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSF}) {
    ASSERT_OK_AND_ASSIGN(auto t, SparseTensor::FromDense(dense, format));
    EXPECT_EQ(CoordsOf(t), expected) << SparseFormatName(format);
    ASSERT_OK_AND_ASSIGN(auto list, sparse::ToCoordList(t));
    EXPECT_TRUE(list.canonical);
    EXPECT_EQ(list.nnz(), 3);
    EXPECT_EQ(Values<double>(list.values), (std::vector<double>{1, 2, 3}));
  }
  // CSC walks columns: the same coordinates in column order.
  ASSERT_OK_AND_ASSIGN(auto csc, SparseTensor::FromDense(dense, SparseFormat::kCSC));
  EXPECT_EQ(CoordsOf(csc), (std::vector<int64_t>{1, 0, 0, 1, 1, 2}));
  EXPECT_FALSE(sparse::ToCoordList(csc)->canonical);
  // CSF with axis order (1, 0) still gives (row, column) pairs.
  SparseOptions options;
  options.axis_order = {1, 0};
  ASSERT_OK_AND_ASSIGN(auto csf, SparseTensor::FromDense(dense, SparseFormat::kCSF, options));
  EXPECT_EQ(CoordsOf(csf), (std::vector<int64_t>{1, 0, 0, 1, 1, 2}));
}

TEST(SparseCoordList, IndicesAreCheckedAsTheyAreRead) {
  ASSERT_OK_AND_ASSIGN(
      auto csr, SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int32_t>({0, 1, 2}, {3}),
                                      Vec<int32_t>({1, 2}, {2}), Vec<float>({1, 2}, {2}), {},
                                      ValidationLevel::kNone));
  EXPECT_EQ(test::StatusOf(sparse::ToCoordList(csr)).message(),
            "CSR indices[1] = 2 is out of range [0, 2)");
  ASSERT_OK_AND_ASSIGN(
      auto coo, SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 0, 5, 1}, {2, 2}),
                                      Vec<float>({1, 2}, {2}), false, {}, ValidationLevel::kNone));
  EXPECT_EQ(test::StatusOf(sparse::ToCoordList(coo)).message(),
            "COO coords[1, 0] = 5 is out of range [0, 2)");
}

TEST(SparseCoordList, FirstUnsortedRow) {
  const std::vector<int64_t> sorted = {0, 1, 0, 2, 1, 0};
  EXPECT_EQ(sparse::FirstUnsortedRow(sorted, 2), -1);
  EXPECT_TRUE(sparse::SortedUnique(sorted, 2));
  bool duplicate = true;
  EXPECT_EQ(sparse::FirstUnsortedRow(std::vector<int64_t>{0, 2, 0, 1}, 2, &duplicate), 1);
  EXPECT_FALSE(duplicate);
  EXPECT_EQ(sparse::FirstUnsortedRow(std::vector<int64_t>{0, 1, 1, 1, 1, 1}, 2, &duplicate), 2);
  EXPECT_TRUE(duplicate);
  EXPECT_EQ(sparse::FirstUnsortedRow(std::vector<int64_t>{}, 2), -1);
}

}  // namespace quiver
