// Writing SparseTensor messages: round trips of every format, value type
// and index type, dim names, empty tensors, and what the writer copies or
// widens. Reading: sparse_tensor_message_read_test.cc; hostile messages:
// sparse_tensor_message_read_hostile_test.cc.
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/sparse_tensor.h"
#include "sparse_ipc_test_util.h"

namespace quiver::ipc {

namespace {

using test::AllInside;
using test::SampleDense;
using test::Vec;

std::vector<TypePtr> ValueTypes() {
  return {int8(),    int16(),  int32(),    int64(),         uint8(),
          uint16(),  uint32(), uint64(),   float16(),       float32(),
          float64(), bool8(),  bfloat16(), float8_e4m3fn(), float8_e5m2()};
}

std::vector<TypePtr> IndexTypes() {
  return {int8(), int16(), int32(), int64(), uint8(), uint16(), uint32(), uint64()};
}

}  // namespace

TEST(SparseIpc, EveryFormatValueTypeAndIndexTypeRoundTrips) {
  const SparseFormat formats[] = {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC,
                                  SparseFormat::kCSF};
  for (SparseFormat format : formats) {
    const int ndim = format == SparseFormat::kCSR || format == SparseFormat::kCSC ? 2 : 3;
    for (const TypePtr& value_type : ValueTypes()) {
      for (const TypePtr& index_type : IndexTypes()) {
        SCOPED_TRACE(std::string(SparseFormatName(format)) + " " + value_type->ToString() + " " +
                     index_type->ToString());
        SparseOptions options;
        options.index_type = index_type;
        ASSERT_OK_AND_ASSIGN(
            SparseTensor tensor,
            SparseTensor::FromDense(SampleDense(value_type, ndim), format, options));
        ASSERT_OK_AND_ASSIGN(BufferPtr bytes, test::Written(tensor));
        ASSERT_OK_AND_ASSIGN(SparseTensor read, ReadSparseTensor(BufferSource(bytes)));
        test::ExpectSameSparse(tensor, read);
        EXPECT_TRUE(AllInside(read, {bytes->data(), bytes->data() + bytes->size()}));
      }
    }
  }
}

TEST(SparseIpc, DimNamesAndCanonicalFlagTravel) {
  Tensor dense = test::DenseOf(float32(), {0, 1, 0, 2, 0, 0, 3, 0}, {2, 2, 2});
  ASSERT_OK_AND_ASSIGN(Tensor named,
                       Tensor::Make(float32(), dense.buffer(), {2, 2, 2}, {}, {"t", "", "w"}));
  for (SparseFormat format : {SparseFormat::kCOO, SparseFormat::kCSF}) {
    ASSERT_OK_AND_ASSIGN(SparseTensor tensor, SparseTensor::FromDense(named, format));
    ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
    EXPECT_EQ(read.dim_names(), (std::vector<std::string>{"t", "", "w"}));
    test::ExpectSameSparse(tensor, read);
  }
  // An unsorted COO tensor keeps its (false) flag and its order.
  ASSERT_OK_AND_ASSIGN(SparseTensor unsorted,
                       SparseTensor::MakeCOO({3, 3}, Vec<int16_t>({2, 1, 0, 2}, {2, 2}),
                                             Vec<float>({5, 6}, {2}), false));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(unsorted));
  EXPECT_FALSE(read.coo_index()->canonical);
  test::ExpectSameSparse(unsorted, read);
}

TEST(SparseIpc, EmptyTensorsOfEveryFormat) {
  for (SparseFormat format :
       {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
    SCOPED_TRACE(SparseFormatName(format));
    const bool matrix = format == SparseFormat::kCSR || format == SparseFormat::kCSC;
    Tensor zeros =
        test::DenseOf(float64(), std::vector<double>(12, 0.0),
                      matrix ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{2, 3, 2});
    ASSERT_OK_AND_ASSIGN(SparseTensor tensor, SparseTensor::FromDense(zeros, format));
    ASSERT_EQ(tensor.non_zero_length(), 0);
    ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
    EXPECT_EQ(read.non_zero_length(), 0);
    test::ExpectSameSparse(tensor, read);
    ASSERT_OK_AND_ASSIGN(Tensor back, read.ToDense());
    EXPECT_TRUE(back.Equals(zeros));
  }
  // A zero-size axis.
  ASSERT_OK_AND_ASSIGN(
      SparseTensor empty,
      SparseTensor::MakeCOO({4, 0, 3}, Vec<int64_t>({}, {0, 3}), Vec<float>({}, {0}), true));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(empty));
  EXPECT_EQ(read.shape(), (std::vector<int64_t>{4, 0, 3}));
}

TEST(SparseIpc, ColumnMajorCoordinatesAreWrittenAsTheyAre) {
  // Rows (0, 2), (1, 0), (1, 1) stored column-major.
  Tensor coords = Vec<int32_t>({0, 1, 1, 2, 0, 1}, {3, 2}, int32(), {4, 12});
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                       SparseTensor::MakeCOO({2, 3}, coords, Vec<double>({1, 2, 3}, {3}), true));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
  EXPECT_EQ(read.coo_index()->coords.strides(), (std::vector<int64_t>{4, 12}));
  test::ExpectSameSparse(tensor, read);
}

TEST(SparseIpc, OtherCoordinateLayoutsAreWrittenAsRowMajorCopies) {
  // Every other row of a 6 x 2 block: neither row- nor column-major.
  Tensor block = Vec<int64_t>({0, 0, 9, 9, 0, 2, 9, 9, 1, 1, 9, 9}, {6, 2});
  ASSERT_OK_AND_ASSIGN(Tensor coords, Tensor::Make(int64(), block.buffer(), {3, 2}, {32, 8}));
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                       SparseTensor::MakeCOO({2, 3}, coords, Vec<float>({1, 2, 3}, {3}), true));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
  EXPECT_EQ(read.coo_index()->coords.strides(), (std::vector<int64_t>{16, 8}));
  test::ExpectSameSparse(tensor, read);
}

TEST(SparseIpc, CsfArraysOfMixedIndexTypesAreWidened) {
  // One fiber tree, levels of int8, int16 and uint32: the message has one
  // indices type, so all are written as int64.
  ASSERT_OK_AND_ASSIGN(
      SparseTensor tensor,
      SparseTensor::MakeCSF(
          {2, 2, 2}, {Vec<int8_t>({0, 2}, {2}), Vec<int16_t>({0, 1, 2}, {3})},
          {Vec<int8_t>({1}, {1}), Vec<int16_t>({0, 1}, {2}), Vec<uint32_t>({0, 1}, {2})}, {0, 1, 2},
          Vec<float>({4, 5}, {2})));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
  for (const Tensor& array : read.csf_index()->indices) EXPECT_TRUE(array.type()->Equals(*int64()));
  for (const Tensor& array : read.csf_index()->indptr) EXPECT_TRUE(array.type()->Equals(*int64()));
  EXPECT_TRUE(read.Equals(tensor));
}

TEST(SparseIpc, Bool8ValuesComeBackAsBool8) {
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                       SparseTensor::FromDense(test::DenseOf(bool8(), {0, 1, 1, 0, 0, 1}, {2, 3}),
                                               SparseFormat::kCSR));
  ASSERT_OK_AND_ASSIGN(SparseTensor read, test::RoundTrip(tensor));
  EXPECT_TRUE(read.type()->is_bool8());
  test::ExpectSameSparse(tensor, read);
}

TEST(SparseIpc, MessagesFollowEachOtherInOneBuffer) {
  BufferSink sink;
  ASSERT_OK_AND_ASSIGN(SparseTensor first,
                       SparseTensor::FromDense(SampleDense(float32(), 2), SparseFormat::kCSC));
  ASSERT_OK_AND_ASSIGN(SparseTensor second,
                       SparseTensor::FromDense(SampleDense(int16(), 3), SparseFormat::kCSF));
  ASSERT_OK(WriteSparseTensor(first, &sink));
  const int64_t offset = sink.position();
  EXPECT_EQ(offset % 8, 0);
  ASSERT_OK(WriteSparseTensor(second, &sink));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  ASSERT_OK_AND_ASSIGN(SparseTensor read, ReadSparseTensor(BufferSource(bytes), offset));
  test::ExpectSameSparse(second, read);
  EXPECT_ERROR(kInvalid, "no SparseTensor message at byte " + std::to_string(bytes->size()),
               ReadSparseTensor(BufferSource(bytes), bytes->size()));
}

}  // namespace quiver::ipc
