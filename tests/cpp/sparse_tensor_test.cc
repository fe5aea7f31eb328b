// SparseTensor: exact results on small tensors, -0.0 and NaN, strides,
// index types, canonicalisation, equality, and one test per invalid-index
// class through the builders and through the kernels of tensors made at a
// low validation level.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <vector>

#include "quiver/sparse_tensor.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quiver {
namespace {

using test::Vec;
using test::Values;

TEST(SparseTensor, FromDenseMatrixInEveryFormat) {
  // [[0, 1, 0],
  //  [2, 0, 3]]
  Tensor dense = Vec<float>({0, 1, 0, 2, 0, 3}, {2, 3});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
  EXPECT_EQ(coo.non_zero_length(), 3);
  EXPECT_TRUE(coo.has_canonical_format());
  EXPECT_EQ(Values<int64_t>(coo.coo_index()->coords), (std::vector<int64_t>{0, 1, 1, 0, 1, 2}));
  EXPECT_EQ(Values<double>(coo.values()), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(coo.coo_index()->coords.type()->id(), TypeId::kInt8);  // smallest that fits

  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(dense, SparseFormat::kCSR));
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indptr), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(Values<int64_t>(csr.csx_index()->indices), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(Values<double>(csr.values()), (std::vector<double>{1, 2, 3}));

  ASSERT_OK_AND_ASSIGN(auto csc, SparseTensor::FromDense(dense, SparseFormat::kCSC));
  EXPECT_EQ(Values<int64_t>(csc.csx_index()->indptr), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Values<int64_t>(csc.csx_index()->indices), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(Values<double>(csc.values()), (std::vector<double>{2, 1, 3}));
}

TEST(SparseTensor, FromDenseCSFWithAxisOrder) {
  // Non-zeros at (0,0,1)=1, (0,2,0)=2, (1,0,1)=3, (1,0,2)=4.
  std::vector<int32_t> data(2 * 3 * 3, 0);
  data[0 * 9 + 0 * 3 + 1] = 1;
  data[0 * 9 + 2 * 3 + 0] = 2;
  data[1 * 9 + 0 * 3 + 1] = 3;
  data[1 * 9 + 0 * 3 + 2] = 4;
  Tensor dense = Vec<int32_t>(data, {2, 3, 3});
  ASSERT_OK_AND_ASSIGN(auto csf, SparseTensor::FromDense(dense, SparseFormat::kCSF));
  const SparseCSFIndex& index = *csf.csf_index();
  EXPECT_EQ(Values<int64_t>(index.indices[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Values<int64_t>(index.indptr[0]), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(Values<int64_t>(index.indices[1]), (std::vector<int64_t>{0, 2, 0}));
  EXPECT_EQ(Values<int64_t>(index.indptr[1]), (std::vector<int64_t>{0, 1, 2, 4}));
  EXPECT_EQ(Values<int64_t>(index.indices[2]), (std::vector<int64_t>{1, 0, 1, 2}));
  EXPECT_EQ(Values<int64_t>(csf.values()), (std::vector<int64_t>{1, 2, 3, 4}));

  // Levels in order axis 2, 0, 1: sorted by (k, i, j).
  SparseOptions options;
  options.axis_order = {2, 0, 1};
  ASSERT_OK_AND_ASSIGN(auto permuted, SparseTensor::FromDense(dense, SparseFormat::kCSF, options));
  const SparseCSFIndex& p = *permuted.csf_index();
  EXPECT_EQ(p.axis_order, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(Values<int64_t>(p.indices[0]), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Values<int64_t>(permuted.values()), (std::vector<int64_t>{2, 1, 3, 4}));
  EXPECT_TRUE(permuted.Equals(csf));
  ASSERT_OK_AND_ASSIGN(Tensor back, permuted.ToDense());
  EXPECT_TRUE(back.Equals(dense));
}

TEST(SparseTensor, NegativeZeroIsZeroAndNaNIsNot) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor dense = Vec<double>({-0.0, nan, 0.0, -1.5}, {4});
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSF}) {
    ASSERT_OK_AND_ASSIGN(auto s, SparseTensor::FromDense(dense, format));
    EXPECT_EQ(s.non_zero_length(), 2) << SparseFormatName(format);
    ASSERT_OK_AND_ASSIGN(Tensor back, s.ToDense());
    EXPECT_TRUE(test::SameValues(back, dense));
  }
  Tensor half = Vec<uint16_t>({0x8000, 0x7E00, 0x0000, 0x3C00}, {4}, float16());
  ASSERT_OK_AND_ASSIGN(auto h, SparseTensor::FromDense(half, SparseFormat::kCOO));
  EXPECT_EQ(h.non_zero_length(), 2);
}

TEST(SparseTensor, ColumnMajorAndStridedInputGiveRowMajorCanonicalOutput) {
  // Column-major storage of [[0, 1], [2, 3]]: bytes 0, 2, 1, 3.
  Tensor fortran = Vec<int16_t>({0, 2, 1, 3}, {2, 2}, int16(), {2, 4});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(fortran, SparseFormat::kCOO));
  EXPECT_EQ(Values<int64_t>(coo.coo_index()->coords), (std::vector<int64_t>{0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(Values<int64_t>(coo.values()), (std::vector<int64_t>{1, 2, 3}));
  // Every other element of a 1-D buffer, and a negative stride.
  Tensor every_other = Vec<int32_t>({5, 9, 0, 9, 7, 9}, {3}, int32(), {8});
  ASSERT_OK_AND_ASSIGN(auto s, SparseTensor::FromDense(every_other, SparseFormat::kCOO));
  EXPECT_EQ(Values<int64_t>(s.values()), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(Values<int64_t>(s.coo_index()->coords), (std::vector<int64_t>{0, 2}));
}

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

TEST(SparseTensor, ConversionsBetweenFormatsKeepValuesAndNames) {
  Tensor dense = Vec<double>({0, 1, 0, 2, 0, 3, 4, 0, 0, 0, 5, 0}, {3, 4}, float64(), {},
                             {"row", "col"});
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
  for (SparseFormat to : {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
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
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({2, 3}, coords, Vec<int64_t>({2, 1, 5, -1}, {4}), false));
  EXPECT_FALSE(coo.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, coo.Canonicalize());
  EXPECT_TRUE(canonical.has_canonical_format());
  EXPECT_EQ(canonical.coo_index()->coords.type()->id(), TypeId::kInt32);  // kept
  EXPECT_EQ(Values<int64_t>(canonical.coo_index()->coords), (std::vector<int64_t>{0, 0, 0, 2, 1, 1}));
  EXPECT_EQ(Values<int64_t>(canonical.values()), (std::vector<int64_t>{-1, 1, 7}));
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(Values<int64_t>(dense), (std::vector<int64_t>{-1, 0, 1, 0, 7, 0}));
  EXPECT_TRUE(coo.Equals(canonical));

  // Integer sums wrap; bool8 duplicates or; float16 sums in float.
  ASSERT_OK_AND_ASSIGN(auto wrap, SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                                        Vec<int8_t>({127, 1}, {2}), false));
  ASSERT_OK_AND_ASSIGN(Tensor wrapped, wrap.ToDense());
  EXPECT_EQ(Values<int64_t>(wrapped), (std::vector<int64_t>{-128}));
  ASSERT_OK_AND_ASSIGN(auto flags, SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                                         Vec<uint8_t>({200, 100}, {2}, bool8()), false));
  ASSERT_OK_AND_ASSIGN(Tensor ored, flags.ToDense());
  EXPECT_NE(Values<int64_t>(ored)[0], 0);
  ASSERT_OK_AND_ASSIGN(auto halves, SparseTensor::MakeCOO({1}, Vec<int8_t>({0, 0}, {2, 1}),
                                                          Vec<uint16_t>({0x3C00, 0x3800}, {2}, float16()), false));
  ASSERT_OK_AND_ASSIGN(Tensor summed, halves.ToDense());
  EXPECT_EQ(Values<int64_t>(summed)[0], 0x3E00);  // 1 + 0.5 = 1.5, as raw half bits
}

TEST(SparseTensor, EqualityByValueAcrossFormats) {
  Tensor dense = Vec<float>({0, 1, 0, 2}, {2, 2});
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(dense, SparseFormat::kCSR));
  // The same matrix as COO with an explicit zero at (0, 0), int64 coords.
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 0, 0, 1, 1, 1}, {3, 2}),
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
  ASSERT_OK_AND_ASSIGN(auto with_nan, SparseTensor::FromDense(Vec<float>({nan}, {1}), SparseFormat::kCOO));
  EXPECT_FALSE(with_nan.Equals(with_nan));
}

TEST(SparseTensor, EmptyTensors) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 5}, std::vector<int64_t>{3, 0},
                                     std::vector<int64_t>{4, 4}}) {
    Tensor dense = Vec<float>(std::vector<float>(static_cast<size_t>(shape[0] * shape[1]), 0.0f), shape);
    for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
      ASSERT_OK_AND_ASSIGN(auto s, SparseTensor::FromDense(dense, format));
      EXPECT_EQ(s.non_zero_length(), 0);
      ASSERT_OK(s.Validate());
      ASSERT_OK_AND_ASSIGN(Tensor back, s.ToDense());
      EXPECT_TRUE(back.Equals(dense));
      for (SparseFormat to : {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
        ASSERT_OK_AND_ASSIGN(auto converted, s.Convert(to));
        ASSERT_OK(converted.Validate());
        EXPECT_TRUE(converted.Equals(s));
      }
    }
  }
}

TEST(SparseTensor, ShapeErrors) {
  Tensor values = Vec<float>({1}, {1});
  Tensor coords = Vec<int64_t>({0, 0}, {1, 2});
  EXPECT_ERROR(kInvalid, "at least one dimension", SparseTensor::MakeCOO({}, Vec<int64_t>({}, {1, 0}), values, true));
  EXPECT_ERROR(kInvalid, "sparse tensor shape", SparseTensor::MakeCOO({int64_t{1} << 40, int64_t{1} << 40}, coords, values, true));
  EXPECT_ERROR(kInvalid, "negative", SparseTensor::MakeCOO({-1, 2}, coords, values, true));
  EXPECT_ERROR(kInvalid, "dim_names", SparseTensor::MakeCOO({1, 1}, coords, values, true, {"a"}));
  EXPECT_ERROR(kInvalid, "COO coords have shape [1, 2], expected [1, 3]",
               SparseTensor::MakeCOO({1, 1, 1}, coords, values, true));
  EXPECT_ERROR(kTypeError, "integer type", SparseTensor::MakeCOO({1, 1}, Vec<float>({0, 0}, {1, 2}), values, true));
  EXPECT_ERROR(kInvalid, "1-D", SparseTensor::MakeCOO({1, 1}, coords, Vec<float>({1}, {1, 1}), true));
  EXPECT_ERROR(kInvalid, "CSR needs a 2-D shape",
               SparseTensor::MakeCSX(SparseFormat::kCSR, {2}, Vec<int8_t>({0, 1}, {2}), Vec<int8_t>({0}, {1}), values));
  EXPECT_ERROR(kInvalid, "CSR needs a 2-D tensor", SparseTensor::FromDense(Vec<float>({1}, {1}), SparseFormat::kCSR));
  EXPECT_ERROR(kInvalid, "at least one dimension", SparseTensor::FromDense(Vec<float>({1}, {}), SparseFormat::kCOO));
}

// One test per invalid-index class; each is refused at kFull, and a tensor
// made at kNone with the same arrays gives Invalid from every kernel.
struct BadIndexCase {
  const char* name;
  Result<SparseTensor> (*make)(ValidationLevel);
  const char* message;
};

Result<SparseTensor> COOOutOfBounds(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 0, 1, 2}, {2, 2}), Vec<float>({1, 2}, {2}), false, {}, level);
}
Result<SparseTensor> COONegative(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int8_t>({0, -1}, {1, 2}), Vec<float>({1}, {1}), false, {}, level);
}
Result<SparseTensor> COOHugeUnsigned(ValidationLevel level) {
  return SparseTensor::MakeCOO({2}, Vec<uint64_t>({~uint64_t{0}}, {1, 1}), Vec<float>({1}, {1}), false, {}, level);
}
Result<SparseTensor> COOFalseCanonical(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({1, 0, 0, 1}, {2, 2}), Vec<float>({1, 2}, {2}), true, {}, level);
}
Result<SparseTensor> COODuplicateCanonical(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({1, 0, 1, 0}, {2, 2}), Vec<float>({1, 2}, {2}), true, {}, level);
}
Result<SparseTensor> CSRIndptrNotZero(ValidationLevel level) {
  return SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int32_t>({1, 1, 2}, {3}),
                               Vec<int32_t>({0, 1}, {2}), Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSRIndptrDecreasing(ValidationLevel level) {
  return SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int32_t>({0, 2, 1}, {3}),
                               Vec<int32_t>({0, 1}, {2}), Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSRIndptrWrongEnd(ValidationLevel level) {
  return SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int32_t>({0, 1, 1}, {3}),
                               Vec<int32_t>({0, 1}, {2}), Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSCIndicesOutOfRange(ValidationLevel level) {
  return SparseTensor::MakeCSX(SparseFormat::kCSC, {2, 2}, Vec<int32_t>({0, 1, 2}, {3}),
                               Vec<int32_t>({0, 2}, {2}), Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSFIndptrPastLevel(ValidationLevel level) {
  return SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 3}, {2})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 1}, {2})},
                               {0, 1}, Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSFIndicesOutOfRange(ValidationLevel level) {
  return SparseTensor::MakeCSF({2, 3}, {Vec<int8_t>({0, 2}, {2})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 3}, {2})},
                               {0, 1}, Vec<float>({1, 2}, {2}), {}, level);
}

TEST(SparseTensor, EveryInvalidIndexClassIsRefusedAndNeverReadOutOfBounds) {
  const BadIndexCase cases[] = {
      {"coo out of bounds", COOOutOfBounds, "COO coords[1, 1] = 2 is out of range [0, 2)"},
      {"coo negative", COONegative, "COO coords[0, 1] = -1 is out of range"},
      {"coo huge unsigned", COOHugeUnsigned, "is out of range [0, 2)"},
      {"coo false canonical", COOFalseCanonical, "marked canonical but row 1 is not after row 0"},
      {"coo duplicate canonical", COODuplicateCanonical, "row 1 is a duplicate of row 0"},
      {"csr indptr start", CSRIndptrNotZero, "CSR indptr[0] = 1, expected 0"},
      {"csr indptr decreasing", CSRIndptrDecreasing, "CSR indptr[2] = 1 is less than CSR indptr[1] = 2"},
      {"csr indptr end", CSRIndptrWrongEnd, "CSR indptr[2] = 1, expected 2"},
      {"csc indices", CSCIndicesOutOfRange, "CSC indices[1] = 2 is out of range [0, 2)"},
      {"csf indptr", CSFIndptrPastLevel, "CSF indptr[0][1] = 3, expected 2"},
      {"csf indices", CSFIndicesOutOfRange, "CSF indices[1][1] = 3 is out of range [0, 3)"},
  };
  for (const BadIndexCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_ERROR(kInvalid, c.message, c.make(ValidationLevel::kFull));
    auto unchecked = c.make(ValidationLevel::kNone);
    ASSERT_TRUE(unchecked.ok()) << unchecked.status().ToString();
    const bool canonical_lie = std::string(c.name).find("canonical") != std::string::npos;
    if (canonical_lie) {
      // A false canonical claim misleads nothing: sortedness is re-checked.
      ASSERT_OK_AND_ASSIGN(auto csr, unchecked->ToCSR());
      ASSERT_OK(csr.Validate());
      continue;
    }
    EXPECT_FALSE(unchecked->ToDense().ok());
    EXPECT_FALSE(unchecked->ToCOO().ok());
    EXPECT_FALSE(unchecked->ToCSR().ok());
    EXPECT_FALSE(unchecked->Canonicalize().ok());
    EXPECT_FALSE(unchecked->Equals(*unchecked));
  }
}

TEST(SparseTensor, CSFStructureErrors) {
  Tensor values = Vec<float>({1}, {1});
  EXPECT_ERROR(kInvalid, "not a permutation",
               SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1}, {2})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})},
                                     {0, 0}, values));
  EXPECT_ERROR(kInvalid, "axis_order has 1 entries for 2 dimensions",
               SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1}, {2})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})},
                                     {0}, values));
  EXPECT_ERROR(kInvalid, "CSF has 0 indptr and 2 indices arrays, expected 1 and 2",
               SparseTensor::MakeCSF({2, 2}, {}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})}, {0, 1}, values));
  EXPECT_ERROR(kInvalid, "CSF indptr[0] has 3 entries, expected 2 (level size + 1)",
               SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1, 1}, {3})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})},
                                     {0, 1}, values));
  EXPECT_ERROR(kInvalid, "CSF indices[1] has 2 entries, expected 1 (one per non-zero)",
               SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 2}, {2})}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 1}, {2})},
                                     {0, 1}, values));
  EXPECT_ERROR(kInvalid, "CSR indptr has 2 entries, expected 3 (rows + 1)",
               SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int8_t>({0, 1}, {2}), Vec<int8_t>({0}, {1}), values));
}

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

TEST(SparseTensor, UnsortedCSRRowsAreSortedByConversions) {
  // Row 0 holds columns 2, 0 (unsorted), row 1 column 1 twice.
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 3}, Vec<int64_t>({0, 2, 4}, {3}),
                                                       Vec<int64_t>({2, 0, 1, 1}, {4}),
                                                       Vec<double>({1, 2, 3, 4}, {4})));
  EXPECT_FALSE(csr.has_canonical_format());
  ASSERT_OK_AND_ASSIGN(auto canonical, csr.Canonicalize());
  EXPECT_TRUE(canonical.has_canonical_format());
  EXPECT_EQ(Values<int64_t>(canonical.csx_index()->indices), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(Values<double>(canonical.values()), (std::vector<double>{2, 1, 7}));
  ASSERT_OK_AND_ASSIGN(Tensor dense, csr.ToDense());
  EXPECT_EQ(Values<double>(dense), (std::vector<double>{2, 0, 1, 0, 7, 0}));
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
    if (dense.ndim() > 1 && rng.Uniform(2) == 0) options.axis_order = test::RandomPermutation(rng, dense.ndim());
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
        ASSERT_TRUE(test::SameValues(again, dense)) << SparseFormatName(from) << " -> " << SparseFormatName(to);
        if (!test::HasNaN(dense)) {
          ASSERT_TRUE(converted.Equals(sparse));
        }
      }
    }
  }
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

TEST(SparseTensor, HugeShapesWithFewNonZeros) {
  // 2^62 elements, one non-zero: COO and CSF cost nothing per element, the
  // dense tensor cannot exist, and a CSR would need 2^61 + 1 indptr entries
  // (more bytes than int64 counts).
  const int64_t rows = int64_t{1} << 61;
  ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::MakeCOO({rows, 2}, test::Vec<int64_t>({rows - 1, 1}, {1, 2}),
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

}  // namespace
}  // namespace quiver

#include "quiver/sparse/sparse_internal.h"

namespace quiver {
namespace {

TEST(SparseTensor, LongRowsScanInBlocks) {
  // One row of 200,003 elements (more than three scan blocks), non-zeros at
  // the block edges.
  std::vector<double> row(200003, 0.0);
  for (int64_t at : {int64_t{0}, (int64_t{1} << 16) - 1, int64_t{1} << 16, int64_t{200002}}) {
    row[static_cast<size_t>(at)] = static_cast<double>(at) + 1;
  }
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{200003}, std::vector<int64_t>{1, 200003}}) {
    Tensor dense = test::Vec<double>(row, shape);
    ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
    EXPECT_EQ(test::Values<double>(coo.values()), (std::vector<double>{1, 65536, 65537, 200003}));
    ASSERT_OK_AND_ASSIGN(Tensor back, coo.ToDense());
    EXPECT_TRUE(back.Equals(dense));
  }
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

TEST(SparseTensor, COOToCSRSortedInOnePassUnsortedTheGeneralWay) {
  // Sorted: shares the values.
  ASSERT_OK_AND_ASSIGN(auto sorted, SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({0, 2, 2, 0, 2, 1}, {3, 2}),
                                                          test::Vec<float>({1, 2, 3}, {3}), true));
  ASSERT_OK_AND_ASSIGN(auto csr, sorted.ToCSR());
  EXPECT_EQ(test::Values<int64_t>(csr.csx_index()->indptr), (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(test::Values<int64_t>(csr.csx_index()->indices), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(csr.values().raw_data(), sorted.values().raw_data());
  // Unsorted with a duplicate: sorted and summed.
  ASSERT_OK_AND_ASSIGN(auto unsorted, SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({2, 1, 0, 2, 2, 1}, {3, 2}),
                                                            test::Vec<float>({1, 2, 3}, {3}), false));
  ASSERT_OK_AND_ASSIGN(auto summed, unsorted.ToCSR());
  EXPECT_EQ(test::Values<int64_t>(summed.csx_index()->indptr), (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(test::Values<double>(summed.values()), (std::vector<double>{2, 4}));
  // Out of range at kNone: the one-pass path names the coordinate.
  ASSERT_OK_AND_ASSIGN(auto bad, SparseTensor::MakeCOO({3, 3}, test::Vec<int16_t>({0, 0, 1, 7}, {2, 2}),
                                                       test::Vec<float>({1, 2}, {2}), false, {}, ValidationLevel::kNone));
  EXPECT_ERROR(kInvalid, "COO coords[1, 1] = 7 is out of range [0, 3)", bad.ToCSR());
}

TEST(SparseTensor, CSRScatterNamesTheFirstBadIndex) {
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, test::Vec<int32_t>({0, 1, 3}, {3}),
                                                       test::Vec<int32_t>({0, 1, 5}, {3}),
                                                       test::Vec<float>({1, 2, 3}, {3}), {}, ValidationLevel::kNone));
  EXPECT_ERROR(kInvalid, "CSR indices[2] = 5 is out of range [0, 2)", csr.ToDense());
  // Repeated indices within a row are summed, sorted rows written.
  ASSERT_OK_AND_ASSIGN(auto dup, SparseTensor::MakeCSX(SparseFormat::kCSC, {2, 2}, test::Vec<int32_t>({0, 2, 3}, {3}),
                                                       test::Vec<int32_t>({1, 1, 0}, {3}),
                                                       test::Vec<float>({1, 2, 3}, {3})));
  ASSERT_OK_AND_ASSIGN(Tensor dense, dup.ToDense());
  EXPECT_EQ(test::Values<double>(dense), (std::vector<double>{0, 3, 3, 0}));
}

}  // namespace
}  // namespace quiver

namespace quiver {
namespace {

TEST(SparseTensor, COOToCSRSplitAcrossThreadsMatchesTheDenseScan) {
  // 300,000 non-zeros: the one-pass conversion runs in two parts, whose
  // boundary falls inside a row; empty rows at both ends and in between.
  test::Random rng(5);
  std::vector<float> data(700 * 1000, 0.0f);
  for (int64_t r = 50; r < 650; ++r) {
    if (r % 97 == 0) continue;
    for (int64_t c = 0; c < 1000; ++c) data[r * 1000 + c] = rng.Uniform(2) == 0 ? 0.0f : 1.0f + static_cast<float>(c);
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
  EXPECT_EQ(test::Values<int64_t>(converted.csx_index()->indptr), test::Values<int64_t>(scanned.csx_index()->indptr));
  EXPECT_EQ(test::Values<int64_t>(converted.csx_index()->indices), test::Values<int64_t>(scanned.csx_index()->indices));
  EXPECT_TRUE(converted.Equals(scanned));
}

// Rows that do not divide evenly into the parts leave the last parts
// empty (17 rows in 8 parts of 3 on two threads), and a first row
// sparser than the rest makes the first part's guess at the room the
// joined values need too short: every format still comes out equal to a
// one-thread scan and back to the same dense tensor.
TEST(SparseFromDense, UnevenScanPartsJoinCorrectly) {
  constexpr int64_t kRows = 17, kInner = int64_t{1} << 17;
  std::vector<float> data(static_cast<size_t>(kRows * kInner), 0.0f);
  data[7] = -1.5f;
  for (int64_t r = 1; r < kRows; ++r) {
    for (int64_t c = r % 3; c < kInner; c += 3) data[r * kInner + c] = static_cast<float>(r * 10 + c % 7 + 1);
  }
  const int64_t nnz = std::count_if(data.begin(), data.end(), [](float x) { return x != 0.0f; });
  Tensor dense = test::Vec<float>(data, {kRows, kInner});
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
    SparseOptions one, two;
    one.threads = 1;
    two.threads = 2;
    ASSERT_OK_AND_ASSIGN(auto serial, SparseTensor::FromDense(dense, format, one));
    ASSERT_OK_AND_ASSIGN(auto parallel, SparseTensor::FromDense(dense, format, two));
    ASSERT_OK(parallel.Validate(ValidationLevel::kFull));
    EXPECT_EQ(parallel.non_zero_length(), nnz) << SparseFormatName(format);
    EXPECT_TRUE(parallel.Equals(serial)) << SparseFormatName(format);
    EXPECT_EQ(test::Values<float>(parallel.values()), test::Values<float>(serial.values()));
    ASSERT_OK_AND_ASSIGN(Tensor back, parallel.ToDense());
    EXPECT_TRUE(back.Equals(dense)) << SparseFormatName(format);
  }
}

// A full first row and nearly empty rows after it: the room reserved at
// the first row's density is far more than the values need, and they come
// out right (in an array of their own size) with one thread and with two.
TEST(SparseFromDense, DenseFirstRowThenSparseRows) {
  constexpr int64_t kRows = 64, kInner = int64_t{1} << 14;
  std::vector<double> data(static_cast<size_t>(kRows * kInner), 0.0);
  for (int64_t c = 0; c < kInner; ++c) data[c] = static_cast<double>(c + 1);
  for (int64_t r = 1; r < kRows; ++r) data[r * kInner + r * 37] = -static_cast<double>(r);
  Tensor dense = test::Vec<double>(data, {kRows, kInner});
  for (int threads : {1, 2}) {
    SparseOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(dense, SparseFormat::kCSR, options));
    ASSERT_EQ(csr.non_zero_length(), kInner + kRows - 1);
    std::vector<double> values = test::Values<double>(csr.values());
    EXPECT_EQ(values[kInner - 1], static_cast<double>(kInner));
    EXPECT_EQ(values.back(), -static_cast<double>(kRows - 1));
    ASSERT_OK_AND_ASSIGN(Tensor back, csr.ToDense());
    EXPECT_TRUE(back.Equals(dense));
  }
}

// Memory resident in this process (Linux), in bytes; -1 elsewhere.
int64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

// Small and empty results own arrays of their own size: they do not pin
// the scan's working block (a long row's worth of values), even when that
// block was reused memory that is already resident.
TEST(SparseFromDense, SmallResultsDoNotPinTheScanBlock) {
  if (ResidentBytes() < 0) GTEST_SKIP() << "needs /proc/self/status";
  Buffer::ReleaseCache();
  std::vector<double> zeros(size_t{1} << 20, 0.0);
  Tensor dense = test::Vec<double>(zeros, {int64_t{1} << 20});
  SparseOptions options;
  options.threads = 1;
  std::vector<SparseTensor> held;
  const int64_t before = ResidentBytes();
  for (int i = 0; i < 200; ++i) {
    {  // resident blocks of about a scan block's size left in the cache
      auto a = Buffer::Allocate(512 << 10), b = Buffer::Allocate(512 << 10), c = Buffer::Allocate(480 << 10);
      ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    }
    ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO, options));
    ASSERT_EQ(coo.non_zero_length(), 0);
    held.push_back(std::move(coo));
  }
  // 200 pinned blocks would be 100 MiB.
  EXPECT_LT(ResidentBytes() - before, int64_t{32} << 20);
  held.clear();
  Buffer::ReleaseCache();
}

// A very sparse tensor is scanned in runs of 16 that skip all-zero runs:
// non-zeros at the edges of runs, in the tail of a row that is not a
// whole number of runs, NaN, and -0.0 (zero) in otherwise empty runs all
// come out exactly, in order.
TEST(SparseFromDense, SkippingScanFindsEveryNonZero) {
  constexpr int64_t kRows = 600, kInner = 1003;  // 1003 = 62 runs of 16 + 11
  std::vector<double> data(static_cast<size_t>(kRows * kInner), 0.0);
  std::vector<int64_t> expected;
  for (int64_t r = 0; r < kRows; r += 7) {
    for (int64_t c : {int64_t{0}, int64_t{15}, int64_t{16}, int64_t{500}, int64_t{991}, int64_t{992}, kInner - 1}) {
      if ((r + c) % 3 == 0) continue;
      data[r * kInner + c] = c == 500 ? std::nan("") : static_cast<double>(r + c + 1);
      expected.insert(expected.end(), {r, c});
    }
    data[r * kInner + 100] = -0.0;
  }
  Tensor dense = test::Vec<double>(data, {kRows, kInner});
  for (int threads : {1, 2}) {
    SparseOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO, options));
    EXPECT_EQ(test::Values<int64_t>(coo.coo_index()->coords), expected);
    ASSERT_OK_AND_ASSIGN(Tensor back, coo.ToDense());
    EXPECT_TRUE(test::SameValues(back, dense));
  }
}

}  // namespace
}  // namespace quiver
