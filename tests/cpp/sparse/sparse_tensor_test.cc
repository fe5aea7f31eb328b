// SparseTensor: conversions between formats, canonicalisation, empty and
// huge tensors, and every path from dense to each format and back.
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

TEST(SparseTensor, ConversionsBetweenFormatsKeepValuesAndNames) {
  Tensor dense =
      Vec<double>({0, 1, 0, 2, 0, 3, 4, 0, 0, 0, 5, 0}, {3, 4}, float64(), {}, {"row", "col"});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
  for (SparseFormat to :
       {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
    ASSERT_OK_AND_ASSIGN(auto converted, coo.Convert(to));
    EXPECT_EQ(converted.format(), to);
    EXPECT_TRUE(converted.has_canonical_format());
    EXPECT_EQ(converted.dim_names(), (std::vector<std::string>{"row", "col"}));
    EXPECT_TRUE(converted.Equals(coo)) << SparseFormatName(to);
    ASSERT_OK(converted.Validate());
    ASSERT_OK_AND_ASSIGN(Tensor back, converted.ToDense());
    EXPECT_TRUE(back.Equals(dense)) << SparseFormatName(to);
    EXPECT_EQ(back.dim_names(), dense.dim_names());
  }
}

TEST(SparseTensor, CanonicalizeSortsAndSumsDuplicates) {
  // (1,1)=2, (0,2)=1, (1,1)=5, (0,0)=-1 : duplicates at (1, 1).
  Tensor coords = Vec<int32_t>({1, 1, 0, 2, 1, 1, 0, 0}, {4, 2});
  ASSERT_OK_AND_ASSIGN(
      auto coo, SparseTensor::MakeCOO({2, 3}, coords, Vec<int64_t>({2, 1, 5, -1}, {4}), false));
  EXPECT_FALSE(coo.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, coo.Canonicalize());
  EXPECT_TRUE(canonical.has_canonical_format());
  EXPECT_EQ(canonical.coo_index()->coords.type()->id(), TypeId::kInt32);  // kept
  EXPECT_EQ(Values<int64_t>(canonical.coo_index()->coords),
            (std::vector<int64_t>{0, 0, 0, 2, 1, 1}));
  EXPECT_EQ(Values<int64_t>(canonical.values()), (std::vector<int64_t>{-1, 1, 7}));
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(Values<int64_t>(dense), (std::vector<int64_t>{-1, 0, 1, 0, 7, 0}));
  EXPECT_TRUE(coo.Equals(canonical));

  // Integer sums wrap; bool8 duplicates or; float16 sums in float.
  ASSERT_OK_AND_ASSIGN(auto wrap, SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                                        Vec<int8_t>({127, 1}, {2}), false));
  ASSERT_OK_AND_ASSIGN(Tensor wrapped, wrap.ToDense());
  EXPECT_EQ(Values<int64_t>(wrapped), (std::vector<int64_t>{-128}));
  ASSERT_OK_AND_ASSIGN(auto flags,
                       SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                             Vec<uint8_t>({200, 100}, {2}, bool8()), false));
  ASSERT_OK_AND_ASSIGN(Tensor ored, flags.ToDense());
  EXPECT_NE(Values<int64_t>(ored)[0], 0);
  ASSERT_OK_AND_ASSIGN(
      auto halves, SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                         Vec<uint16_t>({0x3C00, 0x3800}, {2}, float16()), false));
  ASSERT_OK_AND_ASSIGN(Tensor summed, halves.ToDense());
  EXPECT_EQ(Values<int64_t>(summed)[0], 0x3E00);  // 1 + 0.5 = 1.5, as raw half bits
}

TEST(SparseTensor, EmptyTensors) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{0, 5}, std::vector<int64_t>{3, 0}, std::vector<int64_t>{4, 4}}) {
    Tensor dense =
        Vec<float>(std::vector<float>(static_cast<size_t>(shape[0] * shape[1]), 0.0f), shape);
    for (SparseFormat format :
         {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
      ASSERT_OK_AND_ASSIGN(auto s, SparseTensor::FromDense(dense, format));
      EXPECT_EQ(s.non_zero_length(), 0);
      ASSERT_OK(s.Validate());
      ASSERT_OK_AND_ASSIGN(Tensor back, s.ToDense());
      EXPECT_TRUE(back.Equals(dense));
      for (SparseFormat to :
           {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
        ASSERT_OK_AND_ASSIGN(auto converted, s.Convert(to));
        ASSERT_OK(converted.Validate());
        EXPECT_TRUE(converted.Equals(s));
      }
    }
  }
}

// Random dense tensors (up to 6-D, every value type, three layouts, all
// densities) through every path: dense -> format -> format -> dense.
TEST(SparseTensor, PropertyEveryPathRoundTrips) {
  test::Random rng(20261123);
  const SparseFormat formats[] = {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC,
                                  SparseFormat::kCSF};
  for (int trial = 0; trial < 150; ++trial) {
    Tensor dense = test::RandomDense(rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + dense.type()->ToString() +
                 test::ShapeString(dense.shape()));
    SparseOptions options;
    options.threads = 1 + trial % 3;
    options.index_type = test::RandomIndexType(rng, dense.shape());
    if (dense.ndim() > 1 && rng.Uniform(2) == 0)
      options.axis_order = test::RandomPermutation(rng, dense.ndim());
    for (SparseFormat from : formats) {
      if ((from == SparseFormat::kCSR || from == SparseFormat::kCSC) && dense.ndim() != 2) continue;
      ASSERT_OK_AND_ASSIGN(auto sparse, SparseTensor::FromDense(dense, from, options));
      ASSERT_OK(sparse.Validate());
      ASSERT_TRUE(sparse.has_canonical_format());
      ASSERT_OK_AND_ASSIGN(Tensor back, sparse.ToDense(options.threads));
      ASSERT_TRUE(test::SameValues(back, dense)) << SparseFormatName(from);
      for (SparseFormat to : formats) {
        if ((to == SparseFormat::kCSR || to == SparseFormat::kCSC) && dense.ndim() != 2) continue;
        ASSERT_OK_AND_ASSIGN(auto converted, sparse.Convert(to, options));
        ASSERT_OK(converted.Validate());
        ASSERT_TRUE(converted.has_canonical_format());
        ASSERT_EQ(converted.non_zero_length(), sparse.non_zero_length());
        ASSERT_OK_AND_ASSIGN(Tensor again, converted.ToDense());
        ASSERT_TRUE(test::SameValues(again, dense))
            << SparseFormatName(from) << " -> " << SparseFormatName(to);
        if (!test::HasNaN(dense)) {
          ASSERT_TRUE(converted.Equals(sparse));
        }
      }
    }
  }
}

TEST(SparseTensor, HugeShapesWithFewNonZeros) {
  // 2^62 elements, one non-zero: COO and CSF cost nothing per element, the
  // dense tensor cannot exist, and a CSR would need 2^61 + 1 indptr entries
  // (more bytes than int64 counts).
  const int64_t rows = int64_t{1} << 61;
  ASSERT_OK_AND_ASSIGN(auto coo,
                       SparseTensor::MakeCOO({rows, 2}, test::Vec<int64_t>({rows - 1, 1}, {1, 2}),
                                             test::Vec<float>({3}, {1}), true));
  EXPECT_EQ(coo.size(), int64_t{1} << 62);
  ASSERT_OK_AND_ASSIGN(auto csf, coo.ToCSF());
  EXPECT_TRUE(csf.Equals(coo));
  const int64_t first[] = {0};
  EXPECT_EQ(*csf.csf_index()->indices[0].Value<int64_t>(first), rows - 1);
  EXPECT_ERROR(kInvalid, "dense tensor size", coo.ToDense());
  EXPECT_ERROR(kInvalid, "CSR indptr bytes", coo.ToCSR());
  ASSERT_OK_AND_ASSIGN(auto csc, coo.ToCSC());  // compresses the 2 columns
  EXPECT_EQ(test::Values<int64_t>(csc.csx_index()->indptr), (std::vector<int64_t>{0, 0, 1}));
}

// A COO canonical claim made below kFull was never checked: the tensor
// does not report it, and Canonicalize does the work.
TEST(SparseHostile, UncheckedCanonicalClaimIsNotTrusted) {
  ASSERT_OK_AND_ASSIGN(
      auto coo, SparseTensor::MakeCOO({3}, Vec<int64_t>({1, 1}, {2, 1}), Vec<float>({1, 2}, {2}),
                                      true, {}, ValidationLevel::kMinimal));
  EXPECT_FALSE(coo.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, coo.Canonicalize());
  EXPECT_EQ(canonical.non_zero_length(), 1);
  EXPECT_EQ(Values<double>(canonical.values()), (std::vector<double>{3}));
  // The same claim checked at kFull is refused.
  EXPECT_FALSE(
      SparseTensor::MakeCOO({3}, Vec<int64_t>({1, 1}, {2, 1}), Vec<float>({1, 2}, {2}), true).ok());
}

}  // namespace
}  // namespace quiver
