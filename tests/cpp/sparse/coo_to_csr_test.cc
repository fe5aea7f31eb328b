// COO to CSR: sorted coordinates in one pass, unsorted ones the general
// way, and the pass split across threads.
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

TEST(SparseTensor, COOToCSRSortedInOnePassUnsortedTheGeneralWay) {
  // Sorted: shares the values.
  ASSERT_OK_AND_ASSIGN(auto sorted,
                       SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({0, 2, 2, 0, 2, 1}, {3, 2}),
                                             test::Vec<float>({1, 2, 3}, {3}), true));
  ASSERT_OK_AND_ASSIGN(auto csr, sorted.ToCSR());
  EXPECT_EQ(test::Values<int64_t>(csr.csx_index()->indptr), (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(test::Values<int64_t>(csr.csx_index()->indices), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(csr.values().raw_data(), sorted.values().raw_data());
  // Unsorted with a duplicate: sorted and summed.
  ASSERT_OK_AND_ASSIGN(auto unsorted,
                       SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({2, 1, 0, 2, 2, 1}, {3, 2}),
                                             test::Vec<float>({1, 2, 3}, {3}), false));
  ASSERT_OK_AND_ASSIGN(auto summed, unsorted.ToCSR());
  EXPECT_EQ(test::Values<int64_t>(summed.csx_index()->indptr), (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(test::Values<double>(summed.values()), (std::vector<double>{2, 4}));
  // Out of range at kNone: the one-pass path names the coordinate.
  ASSERT_OK_AND_ASSIGN(
      auto bad,
      SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({0, 0, 1, 7}, {2, 2}),
                            test::Vec<float>({1, 2}, {2}), false, {}, ValidationLevel::kNone));
  EXPECT_ERROR(kInvalid, "COO coords[1, 1] = 7 is out of range [0, 3)", bad.ToCSR());
}

TEST(SparseTensor, COOToCSRSplitAcrossThreadsMatchesTheDenseScan) {
  // 300,000 non-zeros: the one-pass conversion runs in two parts, whose
  // boundary falls inside a row; empty rows at both ends and in between.
  test::Random rng(5);
  std::vector<float> data(700 * 1000, 0.0f);
  for (int64_t r = 50; r < 650; ++r) {
    if (r % 97 == 0) continue;
    for (int64_t c = 0; c < 1000; ++c)
      data[r * 1000 + c] = rng.Uniform(2) == 0 ? 0.0f : 1.0f + static_cast<float>(c);
  }
  Tensor dense = test::Vec<float>(data, {700, 1000});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
  ASSERT_GT(coo.non_zero_length(), 2 * (int64_t{1} << 16));
  SparseOptions options;
  options.threads = 2;
  options.index_type = int32();
  ASSERT_OK_AND_ASSIGN(auto converted, coo.ToCSR(options));
  ASSERT_OK_AND_ASSIGN(auto scanned, SparseTensor::FromDense(dense, SparseFormat::kCSR, options));
  ASSERT_OK(converted.Validate());
  EXPECT_EQ(test::Values<int64_t>(converted.csx_index()->indptr),
            test::Values<int64_t>(scanned.csx_index()->indptr));
  EXPECT_EQ(test::Values<int64_t>(converted.csx_index()->indices),
            test::Values<int64_t>(scanned.csx_index()->indices));
  EXPECT_TRUE(converted.Equals(scanned));
}

}  // namespace
}  // namespace quiver
