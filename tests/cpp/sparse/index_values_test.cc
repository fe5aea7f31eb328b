// Index types: the smallest that fits, a requested one, and the errors
// when it does not fit or is not an integer type.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"
#include "quiver/sparse/sparse_internal.h"

namespace quiver {
namespace {

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
}  // namespace quiver
