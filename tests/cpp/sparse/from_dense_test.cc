// FromDense: exact results in every format, -0.0 and NaN, strides, the
// block scan and its parts joined across threads, and huge empty axes.
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
  // bfloat16 and float8: the sign bit alone (-0.0) is zero, NaN is not.
  Tensor brain = Vec<uint16_t>({0x8000, 0x7FC0, 0x0000, 0xBF80}, {4}, bfloat16());
  ASSERT_OK_AND_ASSIGN(auto b, SparseTensor::FromDense(brain, SparseFormat::kCSF));
  EXPECT_EQ(Values<int64_t>(b.values()), (std::vector<int64_t>{0x7FC0, 0xBF80}));
  for (const TypePtr& type : {float8_e4m3fn(), float8_e5m2()}) {
    Tensor eight = Vec<uint8_t>({0x80, 0x7F, 0x00, 0x01}, {4}, type);
    ASSERT_OK_AND_ASSIGN(auto e, SparseTensor::FromDense(eight, SparseFormat::kCOO));
    EXPECT_EQ(Values<int64_t>(e.values()), (std::vector<int64_t>{0x7F, 0x01})) << type->ToString();
    EXPECT_EQ(Values<int64_t>(e.coo_index()->coords), (std::vector<int64_t>{1, 3}));
  }
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

TEST(SparseTensor, LongRowsScanInBlocks) {
  // One row of 200,003 elements (more than three scan blocks), non-zeros at
  // the block edges.
  std::vector<double> row(200003, 0.0);
  for (int64_t at : {int64_t{0}, (int64_t{1} << 16) - 1, int64_t{1} << 16, int64_t{200002}}) {
    row[static_cast<size_t>(at)] = static_cast<double>(at) + 1;
  }
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{200003}, std::vector<int64_t>{1, 200003}}) {
    Tensor dense = test::Vec<double>(row, shape);
    ASSERT_OK_AND_ASSIGN(auto coo, SparseTensor::FromDense(dense, SparseFormat::kCOO));
    EXPECT_EQ(test::Values<double>(coo.values()), (std::vector<double>{1, 65536, 65537, 200003}));
    ASSERT_OK_AND_ASSIGN(Tensor back, coo.ToDense());
    EXPECT_TRUE(back.Equals(dense));
  }
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
    for (int64_t c = r % 3; c < kInner; c += 3)
      data[r * kInner + c] = static_cast<float>(r * 10 + c % 7 + 1);
  }
  const int64_t nnz = std::count_if(data.begin(), data.end(), [](float x) { return x != 0.0f; });
  Tensor dense = test::Vec<float>(data, {kRows, kInner});
  for (SparseFormat format :
       {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC, SparseFormat::kCSF}) {
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
      auto a = Buffer::Allocate(512 << 10), b = Buffer::Allocate(512 << 10),
           c = Buffer::Allocate(480 << 10);
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
    for (int64_t c : {int64_t{0}, int64_t{15}, int64_t{16}, int64_t{500}, int64_t{991},
                      int64_t{992}, kInner - 1}) {
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

using test::kMax;

// The same through FromDense: a dense [2^62, 0] tensor holds no bytes.
TEST(SparseHostile, FromDenseCSXOfHugeEmptyAxisIsAnError) {
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

// A kernel asked for threads the system will not start still finishes:
// std::thread's std::system_error must not reach std::terminate.
TEST(SparseHostile, ThreadCreationFailureIsNotFatal) {
  // [16, 2^18]: rows this long are worth a thread each, so 4 are asked for.
  const int64_t columns = int64_t{1} << 18;
  std::vector<uint8_t> dense(static_cast<size_t>(16 * columns), 0);
  dense[static_cast<size_t>(13 * columns + 5)] = 7;
  Tensor t = Vec<uint8_t>(dense, {16, columns});
  // On one thread: a process with threads (the pool's, parked) forks a
  // child that ThreadSanitizer does not let start threads of its own.
  ASSERT_OK_AND_ASSIGN(auto csr, SparseTensor::FromDense(t, SparseFormat::kCSR, {nullptr, {}, 1}));
  bool skipped = false;
  const std::string failure = test::RunWithoutThreads(
      [&] {
        Result<Tensor> out = csr.ToDense(4);
        if (!out.ok()) return 5;
        if (test::Values<uint8_t>(*out) != dense) return 6;
        Result<SparseTensor> back =
            SparseTensor::FromDense(t, SparseFormat::kCOO, {nullptr, {}, 4});
        return back.ok() && back->non_zero_length() == 1 ? 0 : 7;
      },
      &skipped);
  if (skipped) GTEST_SKIP() << "needs root to drop to an unprivileged user with no threads left";
  EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace quiver
