// Sparse tensors under hostile inputs found in review: huge or zero-size
// shapes with few non-zeros, narrow index types, unchecked claims, and
// thread creation failing. Each test asserts what a user should get: the
// right result, or a quiver error (never a throw, an abort or UB).
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "no_threads.h"
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

// CSR/CSC indptr of a huge compressed axis is legitimate but cannot be
// allocated: a quiver error, not std::length_error / std::bad_alloc.
TEST(SparseReview, ToCSXOfHugeCompressedAxisIsAnError) {
  SparseTensor rows = EmptyCOO({int64_t{1} << 61, 2});
  EXPECT_FALSE(rows.ToCSR().ok());
  SparseTensor cols = EmptyCOO({2, int64_t{1} << 61});
  EXPECT_FALSE(cols.ToCSC().ok());
  // An allocation that fails rather than one past max_size().
  SparseTensor big = EmptyCOO({int64_t{1} << 44, 2});
  EXPECT_FALSE(big.ToCSR().ok());
}

// rows + 1 overflows int64 for a [2^63 - 1, 0] tensor.
TEST(SparseReview, ToCSXOfInt64MaxAxisDoesNotOverflow) {
  SparseTensor t = EmptyCOO({kMax, 0});
  Result<SparseTensor> csr = t.ToCSR();
  EXPECT_FALSE(csr.ok());
  SparseTensor u = EmptyCOO({0, kMax});
  EXPECT_FALSE(u.ToCSC().ok());
}

// The same through FromDense: a dense [2^62, 0] tensor holds no bytes.
TEST(SparseReview, FromDenseCSXOfHugeEmptyAxisIsAnError) {
  // (Element-width strides: row-major ones overflow for [0, 2^62].)
  Tensor rows = Vec<float>({}, {int64_t{1} << 62, 0}, nullptr, {4, 4});
  EXPECT_FALSE(SparseTensor::FromDense(rows, SparseFormat::kCSR).ok());
  Tensor cols = Vec<float>({}, {0, int64_t{1} << 62}, nullptr, {4, 4});
  EXPECT_FALSE(SparseTensor::FromDense(cols, SparseFormat::kCSC).ok());
  Tensor max_rows = Vec<float>({}, {kMax, 0}, nullptr, {4, 4});
  EXPECT_FALSE(SparseTensor::FromDense(max_rows, SparseFormat::kCSR).ok());
  // COO and CSF allocate per non-zero only.
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(rows, SparseFormat::kCOO));
  EXPECT_EQ(coo.non_zero_length(), 0);
  ASSERT_OK_AND_ASSIGN(auto csf, SparseTensor::FromDense(max_rows, SparseFormat::kCSF));
  EXPECT_EQ(csf.non_zero_length(), 0);
}

// Canonicalize keeps the index type the tensor uses where a request for
// it would be accepted; otherwise it takes the smallest that fits (a
// request is checked against the shape's largest index, not the indices
// stored).
TEST(SparseReview, CanonicalizeOfANarrowIndexType) {
  // CSR [2, 200], int8 indices (every stored index < 128), row 0 unsorted.
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 200},
                                                       Vec<int8_t>({0, 2, 2}, {3}),
                                                       Vec<int8_t>({5, 3}, {2}), Vec<float>({1, 2}, {2})));
  EXPECT_FALSE(csr.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, csr.Canonicalize());
  EXPECT_TRUE(canonical.has_canonical_format());
  EXPECT_EQ(canonical.csx_index()->indices.type()->id(), TypeId::kInt16);
  EXPECT_EQ(Values<int64_t>(canonical.csx_index()->indices), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(Values<double>(canonical.values()), (std::vector<double>{2, 1}));

  // COO [300] with uint8 coordinates and a duplicate.
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({300}, Vec<uint8_t>({7, 2, 7}, {3, 1}),
                                                       Vec<int32_t>({1, 2, 3}, {3}), false));
  ASSERT_OK_AND_ASSIGN(auto summed, coo.Canonicalize());
  EXPECT_EQ(Values<int64_t>(summed.coo_index()->coords), (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(Values<int64_t>(summed.values()), (std::vector<int64_t>{2, 4}));

  // A type that holds the shape's indices is kept.
  ASSERT_OK_AND_ASSIGN(auto kept, SparseTensor::MakeCOO({256}, Vec<uint8_t>({7, 2}, {2, 1}),
                                                        Vec<int32_t>({1, 2}, {2}), false));
  ASSERT_OK_AND_ASSIGN(auto sorted, kept.Canonicalize());
  EXPECT_EQ(sorted.coo_index()->coords.type()->id(), TypeId::kUInt8);
}

// A COO canonical claim made below kFull was never checked: the tensor
// does not report it, and Canonicalize does the work.
TEST(SparseReview, UncheckedCanonicalClaimIsNotTrusted) {
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({3}, Vec<int64_t>({1, 1}, {2, 1}),
                                                       Vec<float>({1, 2}, {2}), true, {},
                                                       ValidationLevel::kMinimal));
  EXPECT_FALSE(coo.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, coo.Canonicalize());
  EXPECT_EQ(canonical.non_zero_length(), 1);
  EXPECT_EQ(Values<double>(canonical.values()), (std::vector<double>{3}));
  // The same claim checked at kFull is refused.
  EXPECT_FALSE(SparseTensor::MakeCOO({3}, Vec<int64_t>({1, 1}, {2, 1}), Vec<float>({1, 2}, {2}), true).ok());
}

// A kernel asked for threads the system will not start still finishes:
// std::thread's std::system_error must not reach std::terminate.
TEST(SparseReview, ThreadCreationFailureIsNotFatal) {
  // [16, 2^18]: rows this long are worth a thread each, so 4 are asked for.
  const int64_t columns = int64_t{1} << 18;
  std::vector<uint8_t> dense(static_cast<size_t>(16 * columns), 0);
  dense[static_cast<size_t>(13 * columns + 5)] = 7;
  Tensor t = Vec<uint8_t>(dense, {16, columns});
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(t, SparseFormat::kCSR));
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        Result<Tensor> out = csr.ToDense(4);
        if (!out.ok()) return 5;
        if (test::Values<uint8_t>(*out) != dense) return 6;
        Result<SparseTensor> back = SparseTensor::FromDense(t, SparseFormat::kCOO, {nullptr, {}, 4});
        return back.ok() && back->non_zero_length() == 1 ? 0 : 7;
      },
      &skipped);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace quiver
