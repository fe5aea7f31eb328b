// Validation of sparse tensors: shape errors and one test per invalid-index
// class, refused at kFull and never read out of bounds by the kernels of
// tensors made at a lower level.
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

TEST(SparseTensor, ShapeErrors) {
  Tensor values = Vec<float>({1}, {1});
  Tensor coords = Vec<int64_t>({0, 0}, {1, 2});
  EXPECT_ERROR(kInvalid, "at least one dimension",
               SparseTensor::MakeCOO({}, Vec<int64_t>({}, {1, 0}), values, true));
  EXPECT_ERROR(kInvalid, "sparse tensor shape",
               SparseTensor::MakeCOO({int64_t{1} << 40, int64_t{1} << 40}, coords, values, true));
  EXPECT_ERROR(kInvalid, "negative", SparseTensor::MakeCOO({-1, 2}, coords, values, true));
  EXPECT_ERROR(kInvalid, "dim_names", SparseTensor::MakeCOO({1, 1}, coords, values, true, {"a"}));
  EXPECT_ERROR(kInvalid, "COO coords have shape [1, 2], expected [1, 3]",
               SparseTensor::MakeCOO({1, 1, 1}, coords, values, true));
  EXPECT_ERROR(kTypeError, "integer type",
               SparseTensor::MakeCOO({1, 1}, Vec<float>({0, 0}, {1, 2}), values, true));
  EXPECT_ERROR(kInvalid, "1-D",
               SparseTensor::MakeCOO({1, 1}, coords, Vec<float>({1}, {1, 1}), true));
  EXPECT_ERROR(kInvalid, "CSR needs a 2-D shape",
               SparseTensor::MakeCSX(SparseFormat::kCSR, {2}, Vec<int8_t>({0, 1}, {2}),
                                     Vec<int8_t>({0}, {1}), values));
  EXPECT_ERROR(kInvalid, "CSR needs a 2-D tensor",
               SparseTensor::FromDense(Vec<float>({1}, {1}), SparseFormat::kCSR));
  EXPECT_ERROR(kInvalid, "at least one dimension",
               SparseTensor::FromDense(Vec<float>({1}, {}), SparseFormat::kCOO));
}

// One test per invalid-index class; each is refused at kFull, and a tensor
// made at kNone with the same arrays gives Invalid from every kernel.
struct BadIndexCase {
  const char* name;
  Result<SparseTensor> (*make)(ValidationLevel);
  const char* message;
};

Result<SparseTensor> COOOutOfBounds(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({0, 0, 1, 2}, {2, 2}), Vec<float>({1, 2}, {2}),
                               false, {}, level);
}
Result<SparseTensor> COONegative(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int8_t>({0, -1}, {1, 2}), Vec<float>({1}, {1}), false,
                               {}, level);
}
Result<SparseTensor> COOHugeUnsigned(ValidationLevel level) {
  return SparseTensor::MakeCOO({2}, Vec<uint64_t>({~uint64_t{0}}, {1, 1}), Vec<float>({1}, {1}),
                               false, {}, level);
}
Result<SparseTensor> COOFalseCanonical(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({1, 0, 0, 1}, {2, 2}), Vec<float>({1, 2}, {2}),
                               true, {}, level);
}
Result<SparseTensor> COODuplicateCanonical(ValidationLevel level) {
  return SparseTensor::MakeCOO({2, 2}, Vec<int64_t>({1, 0, 1, 0}, {2, 2}), Vec<float>({1, 2}, {2}),
                               true, {}, level);
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
  return SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 3}, {2})},
                               {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 1}, {2})}, {0, 1},
                               Vec<float>({1, 2}, {2}), {}, level);
}
Result<SparseTensor> CSFIndicesOutOfRange(ValidationLevel level) {
  return SparseTensor::MakeCSF({2, 3}, {Vec<int8_t>({0, 2}, {2})},
                               {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 3}, {2})}, {0, 1},
                               Vec<float>({1, 2}, {2}), {}, level);
}

TEST(SparseTensor, EveryInvalidIndexClassIsRefusedAndNeverReadOutOfBounds) {
  const BadIndexCase cases[] = {
      {"coo out of bounds", COOOutOfBounds, "COO coords[1, 1] = 2 is out of range [0, 2)"},
      {"coo negative", COONegative, "COO coords[0, 1] = -1 is out of range"},
      {"coo huge unsigned", COOHugeUnsigned, "is out of range [0, 2)"},
      {"coo false canonical", COOFalseCanonical, "marked canonical but row 1 is not after row 0"},
      {"coo duplicate canonical", COODuplicateCanonical, "row 1 is a duplicate of row 0"},
      {"csr indptr start", CSRIndptrNotZero, "CSR indptr[0] = 1, expected 0"},
      {"csr indptr decreasing", CSRIndptrDecreasing,
       "CSR indptr[2] = 1 is less than CSR indptr[1] = 2"},
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
  EXPECT_ERROR(
      kInvalid, "not a permutation",
      SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1}, {2})},
                            {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})}, {0, 0}, values));
  EXPECT_ERROR(kInvalid, "axis_order has 1 entries for 2 dimensions",
               SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1}, {2})},
                                     {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})}, {0}, values));
  EXPECT_ERROR(kInvalid, "CSF has 0 indptr and 2 indices arrays, expected 1 and 2",
               SparseTensor::MakeCSF({2, 2}, {}, {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})},
                                     {0, 1}, values));
  EXPECT_ERROR(
      kInvalid, "CSF indptr[0] has 3 entries, expected 2 (level size + 1)",
      SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 1, 1}, {3})},
                            {Vec<int8_t>({0}, {1}), Vec<int8_t>({0}, {1})}, {0, 1}, values));
  EXPECT_ERROR(
      kInvalid, "CSF indices[1] has 2 entries, expected 1 (one per non-zero)",
      SparseTensor::MakeCSF({2, 2}, {Vec<int8_t>({0, 2}, {2})},
                            {Vec<int8_t>({0}, {1}), Vec<int8_t>({0, 1}, {2})}, {0, 1}, values));
  EXPECT_ERROR(kInvalid, "CSR indptr has 2 entries, expected 3 (rows + 1)",
               SparseTensor::MakeCSX(SparseFormat::kCSR, {2, 2}, Vec<int8_t>({0, 1}, {2}),
                                     Vec<int8_t>({0}, {1}), values));
}

}  // namespace
}  // namespace quiver
