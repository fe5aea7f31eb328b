// ToDense: scatter errors naming the first bad index, duplicates summed,
// and empty tensors whose strides would not fit int64.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "no_threads.h"
#include "quiver/sparse/sparse_internal.h"
#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::Values;
using test::Vec;

TEST(SparseTensor, CSRScatterNamesTheFirstBadIndex) {
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::MakeCSX(
                                     SparseFormat::kCSR, {2, 2}, test::Vec<int32_t>({0, 1, 3}, {3}),
                                     test::Vec<int32_t>({0, 1, 5}, {3}),
                                     test::Vec<float>({1, 2, 3}, {3}), {}, ValidationLevel::kNone));
  EXPECT_ERROR(kInvalid, "CSR indices[2] = 5 is out of range [0, 2)", csr.ToDense());
  // Repeated indices within a row are summed, sorted rows written.
  ASSERT_OK_AND_ASSIGN(
      auto dup,
      SparseTensor::MakeCSX(SparseFormat::kCSC, {2, 2}, test::Vec<int32_t>({0, 2, 3}, {3}),
                            test::Vec<int32_t>({1, 1, 0}, {3}), test::Vec<float>({1, 2, 3}, {3})));
  ASSERT_OK_AND_ASSIGN(Tensor dense, dup.ToDense());
  EXPECT_EQ(test::Values<double>(dense), (std::vector<double>{0, 3, 3, 0}));
}

// Row-major strides of [0, 2^40, 2^40] do not fit int64; an empty dense
// tensor needs none of them.
using test::EmptyCOO;

TEST(SparseHostile, ToDenseOfZeroSizeLeadingAxisWithHugeOthers) {
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSF}) {
    SparseTensor coo = EmptyCOO({0, int64_t{1} << 40, int64_t{1} << 40});
    ASSERT_OK_AND_ASSIGN(SparseTensor t, coo.Convert(format));
    ASSERT_OK_AND_ASSIGN(Tensor dense, t.ToDense());
    EXPECT_EQ(dense.size(), 0);
    EXPECT_EQ(dense.shape(), (std::vector<int64_t>{0, int64_t{1} << 40, int64_t{1} << 40}));
  }
}

}  // namespace
}  // namespace quiver
