// Reading a sparse index back as a coordinate list, whatever the strides
// of the COO coordinates.
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
using test::Values;

TEST(SparseTensor, CoordsWithColumnMajorStrides) {
  // [nnz=2, ndim=2] stored column-major: rows (0, 1), (1, 0).
  Tensor coords = Vec<int32_t>({0, 1, 1, 0}, {2, 2}, int32(), {4, 8});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({2, 2}, coords, Vec<float>({5, 6}, {2}), true));
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(Values<double>(dense), (std::vector<double>{0, 5, 6, 0}));
  ASSERT_OK_AND_ASSIGN(auto csr, coo.ToCSR());  // read block by block, not in place
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indptr), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indices), (std::vector<int64_t>{1, 0}));
}

}  // namespace
}  // namespace quiver
