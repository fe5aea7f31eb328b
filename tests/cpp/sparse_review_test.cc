// Sparse tensors under hostile inputs found in review: huge or zero-size
// shapes with few non-zeros, narrow index types, unchecked claims, and
// thread creation failing. Each test asserts what a user should get: the
// right result, or a quiver error (never a throw, an abort or UB).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::Values;
using test::Vec;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

SparseTensor EmptyCOO(std::vector<int64_t> shape) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  auto made = SparseTensor::MakeCOO(std::move(shape), Vec<int64_t>({}, {0, ndim}), Vec<float>({}, {0}),
                                    true);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

// Row-major strides of [0, 2^40, 2^40] do not fit int64; an empty dense
// tensor needs none of them.
TEST(SparseReview, ToDenseOfZeroSizeLeadingAxisWithHugeOthers) {
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
