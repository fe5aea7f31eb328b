// Building COO, CSR/CSC and CSF indices from coordinate lists:
// canonical (sorted, summed) output, narrow index types widened as needed,
// and compressed axes too large to index.
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

TEST(SparseTensor, UnsortedCSRRowsAreSortedByConversions) {
  // Row 0 holds columns 2, 0 (unsorted), row 1 column 1 twice.
  ASSERT_OK_AND_ASSIGN(
      auto csr,
      SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 3}, Vec<int64_t>({0, 2, 4}, {3}),
                            Vec<int64_t>({2, 0, 1, 1}, {4}), Vec<double>({1, 2, 3, 4}, {4})));
  EXPECT_FALSE(csr.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, csr.Canonicalize());
  EXPECT_TRUE(canonical.has_canonical_format());
  EXPECT_EQ(Values<int64_t>(canonical.csx_index()->indices), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(Values<double>(canonical.values()), (std::vector<double>{2, 1, 7}));
  ASSERT_OK_AND_ASSIGN(Tensor dense, csr.ToDense());
  EXPECT_EQ(Values<double>(dense), (std::vector<double>{2, 0, 1, 0, 7, 0}));
}

using test::kMax;

// CSR/CSC indptr of a huge compressed axis is legitimate but cannot be
// allocated: a quiver error, not std::length_error / std::bad_alloc.
using test::EmptyCOO;

TEST(SparseHostile, ToCSXOfHugeCompressedAxisIsAnError) {
  SparseTensor rows = EmptyCOO({int64_t{1} << 61, 2});
  EXPECT_FALSE(rows.ToCSR().ok());
  SparseTensor cols = EmptyCOO({2, int64_t{1} << 61});
  EXPECT_FALSE(cols.ToCSC().ok());
  // An allocation that fails rather than one past max_size().
  SparseTensor big = EmptyCOO({int64_t{1} << 44, 2});
  EXPECT_FALSE(big.ToCSR().ok());
}

// rows + 1 overflows int64 for a [2^63 - 1, 0] tensor.
TEST(SparseHostile, ToCSXOfInt64MaxAxisDoesNotOverflow) {
  SparseTensor t = EmptyCOO({kMax, 0});
  Result<SparseTensor> csr = t.ToCSR();
  EXPECT_FALSE(csr.ok());
  SparseTensor u = EmptyCOO({0, kMax});
  EXPECT_FALSE(u.ToCSC().ok());
}

// Canonicalize keeps the index type the tensor uses where a request for
// it would be accepted; otherwise it takes the smallest that fits (a
// request is checked against the shape's largest index, not the indices
// stored).
TEST(SparseHostile, CanonicalizeOfANarrowIndexType) {
  // CSR [2, 200], int8 indices (every stored index < 128), row 0 unsorted.
  ASSERT_OK_AND_ASSIGN(
      auto csr, SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 200}, Vec<int8_t>({0, 2, 2}, {3}),
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

}  // namespace
}  // namespace quiver
