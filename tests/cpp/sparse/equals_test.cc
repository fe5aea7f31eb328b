// Equality of sparse tensors by value, across formats and index types.
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

using test::Vec;

TEST(SparseTensor, EqualityByValueAcrossFormats) {
  Tensor dense = Vec<float>({0, 1, 0, 2}, {2, 2});
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(dense, SparseFormat::kCSR));
  // The same matrix as COO with an explicit zero at (0, 0), int64 coords.
  ASSERT_OK_AND_ASSIGN(auto coo,
                       SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 0, 0, 1, 1, 1}, {3, 2}),
                                             Vec<float>({0, 1, 2}, {3}), true));
  EXPECT_TRUE(csr.Equals(coo));
  EXPECT_TRUE(coo.Equals(csr));
  ASSERT_OK_AND_ASSIGN(auto other, SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 1, 1, 1}, {2, 2}),
                                                         Vec<float>({1, 3}, {2}), true));
  EXPECT_FALSE(csr.Equals(other));
  ASSERT_OK_AND_ASSIGN(auto wider, SparseTensor::MakeCOO({2, 3}, Vec<int64_t>({0, 1, 1, 1}, {2, 2}),
                                                         Vec<float>({1, 2}, {2}), true));
  EXPECT_FALSE(csr.Equals(wider));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_OK_AND_ASSIGN(auto with_nan,
                       SparseTensor::FromDense(Vec<float>({nan}, {1}), SparseFormat::kCOO));
  EXPECT_FALSE(with_nan.Equals(with_nan));
}

}  // namespace
}  // namespace quiver
