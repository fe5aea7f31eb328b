// Reading SparseTensor messages: crafted honest messages, memory-mapped
// files read zero-copy, messages off 8 bytes read through aligned copies,
// and other messages or missing arguments refused.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "quiver/ipc.h"
#include "quiver/ipc/message.h"
#include "quiver/sparse_tensor.h"
#include "sparse_ipc_test_util.h"

namespace quiver::ipc {

namespace {

using test::AllInside;
using test::HonestCoo;
using test::HonestCsf;
using test::HonestCsr;
using test::SampleDense;
using test::Vec;

}  // namespace

TEST(SparseIpc, MemoryMappedFileIsReadZeroCopy) {
  char path[] = "/tmp/quiver_sparse_ipc_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  const SparseFormat formats[] = {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC,
                                  SparseFormat::kCSF};
  std::vector<SparseTensor> written;
  std::vector<int64_t> offsets;
  {
    ASSERT_OK_AND_ASSIGN(auto sink, OpenFileSink(path));
    for (SparseFormat format : formats) {
      const int ndim = format == SparseFormat::kCSR || format == SparseFormat::kCSC ? 2 : 3;
      ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                           SparseTensor::FromDense(SampleDense(float64(), ndim), format));
      offsets.push_back(sink->position());
      ASSERT_OK(WriteSparseTensor(tensor, sink.get()));
      written.push_back(tensor);
    }
    ASSERT_OK(sink->Close());
  }
  std::vector<SparseTensor> read;
  {
    ASSERT_OK_AND_ASSIGN(auto source, OpenFileSource(path));
    ASSERT_TRUE(source->zero_copy());
    ASSERT_OK_AND_ASSIGN(BufferPtr mapping, source->ReadAt(0, source->size()));
    for (size_t i = 0; i < written.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(SparseTensor tensor, ReadSparseTensor(source, offsets[i]));
      EXPECT_TRUE(AllInside(tensor, {mapping->data(), mapping->data() + mapping->size()}));
      read.push_back(tensor);
    }
  }
  std::remove(path);  // the tensors keep the mapping alive
  for (size_t i = 0; i < written.size(); ++i) test::ExpectSameSparse(written[i], read[i]);
}

TEST(SparseIpc, AMessageOffEightBytesIsReadThroughAlignedCopies) {
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                       SparseTensor::FromDense(SampleDense(float64(), 3), SparseFormat::kCOO));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, test::Written(tensor));
  std::vector<uint8_t> shifted(4, 0);
  shifted.insert(shifted.end(), bytes->data(), bytes->data() + bytes->size());
  BufferPtr source = test::BufferOf(shifted);
  ASSERT_OK_AND_ASSIGN(SparseTensor read, ReadSparseTensor(BufferSource(source), 4));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(read.values().raw_data()) % 8, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(read.coo_index()->coords.raw_data()) % 8, 0u);
  test::ExpectSameSparse(tensor, read);
}

TEST(SparseIpc, OtherMessagesAndMissingArgumentsAreRefused) {
  BufferSink sink;
  ASSERT_OK(WriteTensor(Vec<float>({1, 2}, {2}), &sink));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, sink.Finish());
  EXPECT_ERROR(kInvalid, "message at byte 0 is a Tensor message, not a SparseTensor",
               ReadSparseTensor(BufferSource(bytes)));
  EXPECT_ERROR(kInvalid, "needs a source", ReadSparseTensor(nullptr));
  ASSERT_OK_AND_ASSIGN(SparseTensor tensor,
                       SparseTensor::FromDense(SampleDense(float64(), 3), SparseFormat::kCOO));
  EXPECT_ERROR(kInvalid, "needs a sink", WriteSparseTensor(tensor, nullptr));
  BufferSink unused;
  EXPECT_ERROR(kInvalid, "default-made", WriteSparseTensor(SparseTensor(), &unused));
}

TEST(SparseIpcHostile, CraftedHonestMessagesRead) {
  ASSERT_OK_AND_ASSIGN(SparseTensor coo, HonestCoo().Read());
  ASSERT_OK_AND_ASSIGN(Tensor dense, coo.ToDense());
  EXPECT_EQ(test::Values<double>(dense), (std::vector<double>{0, 1, 0, 0, 0, 2}));
  ASSERT_OK_AND_ASSIGN(SparseTensor csr, HonestCsr().Read());
  EXPECT_TRUE(csr.Equals(coo));
  // CSF lengths in elements (as Arrow C++ writes) and in bytes (the
  // format's unit) give the same tensor.
  ASSERT_OK_AND_ASSIGN(SparseTensor csf_elements, HonestCsf(true).Read());
  ASSERT_OK_AND_ASSIGN(SparseTensor csf_bytes, HonestCsf(false).Read());
  test::ExpectSameSparse(csf_elements, csf_bytes);
  EXPECT_TRUE(csf_elements.Equals(coo));
}

}  // namespace quiver::ipc
