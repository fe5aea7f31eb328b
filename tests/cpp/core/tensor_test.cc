#include "quiver/tensor.h"

#include <limits>
#include <numeric>

#include "test_util.h"

namespace quiver {

namespace {
// A row-major int32 tensor of `shape` holding 0, 1, 2, ...
Tensor Iota(std::vector<int64_t> shape) { return test::IotaOf<int32_t>(int32(), std::move(shape)); }
}  // namespace

TEST(Tensor, RowMajorByDefault) {
  Tensor t = Iota({2, 3});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4}));
  EXPECT_EQ(t.size(), 6);
  EXPECT_TRUE(t.IsContiguous());
  std::vector<int64_t> index = {1, 2};
  ASSERT_OK_AND_ASSIGN(int32_t v, t.Value<int32_t>(index));
  EXPECT_EQ(v, 5);
}

TEST(Tensor, TransposedViewCopiesToContiguous) {
  Tensor base = Iota({2, 3});
  ASSERT_OK_AND_ASSIGN(Tensor transposed,
                       Tensor::Make(int32(), base.buffer(), {3, 2}, {4, 12}, {"W", "H"}));
  EXPECT_FALSE(transposed.IsContiguous());
  EXPECT_TRUE(transposed.IsColumnMajor());
  EXPECT_FALSE(base.IsColumnMajor());
  ASSERT_OK_AND_ASSIGN(Tensor copy, transposed.ToContiguous());
  EXPECT_TRUE(copy.IsContiguous());
  EXPECT_EQ(copy.dim_names(), (std::vector<std::string>{"W", "H"}));
  EXPECT_TRUE(copy.Equals(transposed));
  EXPECT_FALSE(copy.Equals(base));
  std::vector<int64_t> index = {2, 1};
  EXPECT_EQ(*copy.Value<int32_t>(index), 5);
  EXPECT_EQ(*transposed.Value<int32_t>(index), 5);
}

TEST(Tensor, CopyToRowMajorFillsTheCallersMemoryExactly) {
  Tensor base = Iota({2, 3});
  ASSERT_OK_AND_ASSIGN(Tensor transposed, Tensor::Make(int32(), base.buffer(), {3, 2}, {4, 12}));
  std::vector<int32_t> out(6, -1);
  ASSERT_OK(transposed.CopyToRowMajor(out.data(), 24));
  EXPECT_EQ(out, (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_ERROR(kInvalid, "takes 24 bytes, the destination has 20",
               transposed.CopyToRowMajor(out.data(), 20));
  EXPECT_ERROR(kInvalid, "destination of a row-major copy is null",
               transposed.CopyToRowMajor(nullptr, 24));
  Tensor empty = Iota({0, 3});
  ASSERT_OK(empty.CopyToRowMajor(nullptr, 0));
}

TEST(Tensor, NegativeStridesAreBoundsChecked) {
  Tensor base = Iota({4});
  ASSERT_OK_AND_ASSIGN(Tensor reversed, Tensor::Make(int32(), base.buffer(), {4}, {-4}, {}, 12));
  std::vector<int64_t> index = {0};
  EXPECT_EQ(*reversed.Value<int32_t>(index), 3);
  EXPECT_ERROR(kInvalid, "outside a buffer of 16 bytes",
               Tensor::Make(int32(), base.buffer(), {4}, {-4}, {}, 8));
}

TEST(Tensor, MakeRejectsBadInput) {
  Tensor base = Iota({6});
  EXPECT_ERROR(kInvalid, "negative size", Tensor::Make(int32(), base.buffer(), {-1, 2}));
  EXPECT_ERROR(kInvalid, "2 dimensions but 1 strides",
               Tensor::Make(int32(), base.buffer(), {2, 3}, {4}));
  EXPECT_ERROR(kInvalid, "1 dim_names", Tensor::Make(int32(), base.buffer(), {2, 3}, {}, {"a"}));
  EXPECT_ERROR(kInvalid, "outside a buffer of 24 bytes", Tensor::Make(int32(), base.buffer(), {7}));
  EXPECT_ERROR(kTypeError, "must be numeric", Tensor::Make(utf8(), base.buffer(), {1}));
  EXPECT_ERROR(kInvalid, "overflows int64",
               Tensor::Make(int8(), base.buffer(), {1LL << 40, 1LL << 40}));
  EXPECT_ERROR(kInvalid, "spans more than 2^63 bytes",
               Tensor::Make(int32(), base.buffer(), {3}, {int64_t{1} << 62}));
  // The span fits int64 but its end past the byte offset does not.
  const int64_t huge = std::numeric_limits<int64_t>::max() - 8;
  EXPECT_ERROR(kInvalid, "reaches bytes [8, 9223372036854775807) outside a buffer of 24 bytes",
               Tensor::Make(int32(), base.buffer(), {2}, {huge}, {}, 8));
}

TEST(Tensor, ZeroSizeAndZeroDim) {
  Tensor empty = Iota({0, 5});
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.IsContiguous());
  ASSERT_OK_AND_ASSIGN(Tensor copy, empty.ToContiguous());
  EXPECT_TRUE(copy.Equals(empty));
  Tensor scalar = Iota({});
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.size(), 1);
  EXPECT_EQ(*scalar.Value<int32_t>(std::vector<int64_t>{}), 0);
}

TEST(Tensor, ByteSpanCoversTheElements) {
  Tensor base = Iota({3, 4});  // 48 bytes
  EXPECT_EQ(base.ByteSpan(), (Range{0, 48}));
  // Every other column of rows 1-2: from byte 16 to the end of [2, 2].
  ASSERT_OK_AND_ASSIGN(Tensor strided,
                       Tensor::Make(int32(), base.buffer(), {2, 2}, {16, 8}, {}, 16));
  EXPECT_EQ(strided.ByteSpan(), (Range{16, 44}));
  // Negative strides reach below the byte offset.
  ASSERT_OK_AND_ASSIGN(Tensor reversed,
                       Tensor::Make(int32(), base.buffer(), {3, 2}, {-16, -4}, {}, 36));
  EXPECT_EQ(reversed.ByteSpan(), (Range{0, 40}));
  EXPECT_EQ(reversed.ByteSpan().length(), 40);
  ASSERT_OK_AND_ASSIGN(Tensor element, Tensor::Make(int32(), base.buffer(), {}, {}, {}, 20));
  EXPECT_EQ(element.ByteSpan(), (Range{20, 24}));
  // Zero strides cover one element; no elements cover nothing.
  ASSERT_OK_AND_ASSIGN(Tensor broadcast, Tensor::Make(int32(), base.buffer(), {5}, {0}, {}, 8));
  EXPECT_EQ(broadcast.ByteSpan(), (Range{8, 12}));
  ASSERT_OK_AND_ASSIGN(Tensor empty, Tensor::Make(int32(), base.buffer(), {0, 4}, {}, {}, 12));
  EXPECT_EQ(empty.ByteSpan(), (Range{12, 12}));
  EXPECT_EQ(Tensor().ByteSpan(), (Range{0, 0}));
}

TEST(Tensor, ElementAccessErrors) {
  Tensor t = Iota({2, 2});
  EXPECT_ERROR(kIndexError, "out of range for axis 1 of size 2",
               t.ElementPointer(std::vector<int64_t>{0, 2}));
  EXPECT_ERROR(kIndexError, "1 entries for a tensor of 2",
               t.ElementPointer(std::vector<int64_t>{0}));
  EXPECT_ERROR(kTypeError, "holds int32", t.Value<float>(std::vector<int64_t>{0, 0}));
}

TEST(Tensor, FloatEqualityIsByValue) {
  std::vector<float> a = {0.0f, 1.5f};
  std::vector<float> b = {-0.0f, 1.5f};
  ASSERT_OK_AND_ASSIGN(Tensor ta, Tensor::Make(float32(), test::BufferOf(a), {2}));
  ASSERT_OK_AND_ASSIGN(Tensor tb, Tensor::Make(float32(), test::BufferOf(b), {2}));
  EXPECT_TRUE(ta.Equals(tb));
  std::vector<uint16_t> half = {0x3C00, 0xC000};  // 1.0, -2.0
  EXPECT_EQ(HalfToFloat(half[0]), 1.0f);
  EXPECT_EQ(HalfToFloat(half[1]), -2.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.960464477539063e-08f);
}

}  // namespace quiver

namespace quiver {

TEST(Tensor, EmptyTensorWithHugeAxesCopies) {
  // A zero-size axis makes the tensor empty however large the others are;
  // a row-major copy must not multiply the outermost size into a stride
  // (found by ipc_tensor_fuzz).
  ASSERT_OK_AND_ASSIGN(BufferPtr none, Buffer::Allocate(0));
  ASSERT_OK_AND_ASSIGN(Tensor empty, Tensor::Make(float32(), none, {117440514, 0, 1125899906842627},
                                                  {17179869208, 12, 1024}));
  ASSERT_OK_AND_ASSIGN(Tensor dense, empty.ToContiguous());
  EXPECT_EQ(dense.size(), 0);
  EXPECT_EQ(dense.shape(), empty.shape());
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> strides, RowMajorStrides(4, empty.shape()));
  EXPECT_EQ(strides, (std::vector<int64_t>{4503599627370508, 4503599627370508, 4}));
  // Inner sizes whose product overflows: still an empty tensor that copies.
  ASSERT_OK_AND_ASSIGN(
      Tensor wide,
      Tensor::Make(float32(), none, {0, 9007216501719042, 562949986975750}, {0, 0, 0}));
  ASSERT_OK_AND_ASSIGN(Tensor wide_dense, wide.ToContiguous());
  EXPECT_EQ(wide_dense.size(), 0);
}

}  // namespace quiver

namespace quiver {

// Tensor::Wrap: someone else's memory, the buffer exactly the bytes the
// elements span, every check once, the release hook run exactly once.
TEST(TensorWrap, BufferCoversExactlyTheElements) {
  std::vector<int32_t> values(12);
  std::iota(values.begin(), values.end(), 0);
  int releases = 0;
  {
    // A reversed view of the rows: element [0, 0] is values[8].
    const auto first = reinterpret_cast<uintptr_t>(values.data() + 8);
    ASSERT_OK_AND_ASSIGN(Tensor t, Tensor::Wrap(int32(), first, Dims{3, 4}, Dims{-16, 4},
                                                [&releases] { ++releases; }, Device{}, {"r", "c"}));
    EXPECT_EQ(t.buffer()->data(), reinterpret_cast<const uint8_t*>(values.data()));
    EXPECT_EQ(t.buffer()->size(), 48);
    EXPECT_EQ(t.byte_offset(), 32);
    EXPECT_EQ(*t.Value<int32_t>(std::vector<int64_t>{2, 1}), 1);
    EXPECT_EQ(t.dim_names(), (std::vector<std::string>{"r", "c"}));
    Tensor copy = t;
    EXPECT_EQ(releases, 0);
  }
  EXPECT_EQ(releases, 1);
}

TEST(TensorWrap, EmptyTensorMayHaveNoData) {
  int releases = 0;
  {
    ASSERT_OK_AND_ASSIGN(Tensor t, Tensor::Wrap(float32(), 0, Dims{0, int64_t{1} << 40}, Dims{4, 4},
                                                [&releases] { ++releases; }));
    EXPECT_EQ(t.size(), 0);
    EXPECT_EQ(t.buffer()->size(), 0);
  }
  EXPECT_EQ(releases, 1);
}

TEST(TensorWrap, EveryErrorRunsTheReleaseOnce) {
  struct Case {
    const char* fragment;
    StatusCode code;
    TypePtr type;
    uintptr_t first;
    Dims shape, strides;
    std::vector<std::string> names;
  };
  const uintptr_t top = std::numeric_limits<uintptr_t>::max() - 7;
  const Case cases[] = {
      {"value type must be numeric, bool8, bfloat16 or float8",
       StatusCode::kTypeError,
       utf8(),
       4096,
       Dims{2},
       Dims{4},
       {}},
      {"1 dimensions, 2 strides and 0 dim_names",
       StatusCode::kInvalid,
       int32(),
       4096,
       Dims{2},
       Dims{4, 4},
       {}},
      {"2 dimensions, 2 strides and 1 dim_names",
       StatusCode::kInvalid,
       int32(),
       4096,
       Dims{2, 2},
       Dims{8, 4},
       {"x"}},
      {"dimension 1 has negative size -2",
       StatusCode::kInvalid,
       int32(),
       4096,
       Dims{2, -2},
       Dims{8, 4},
       {}},
      {"spans more than 2^63 bytes",
       StatusCode::kInvalid,
       int32(),
       4096,
       Dims{3},
       Dims{int64_t{1} << 62},
       {}},
      {"spans more than 2^63 bytes",
       StatusCode::kInvalid,
       int32(),
       4096,
       Dims{3, 3},
       Dims{-(int64_t{1} << 61), -(int64_t{1} << 61)},
       {}},
      {"no data", StatusCode::kInvalid, int32(), 0, Dims{1}, Dims{4}, {}},
      {"reach 8 bytes below the data pointer, before the start of memory",
       StatusCode::kInvalid,
       int32(),
       4,
       Dims{3},
       Dims{-4},
       {}},
      {"before the start of memory",
       StatusCode::kInvalid,
       int32(),
       8,
       Dims{3},
       Dims{-4},
       {}},  // would start at 0
      {"wraps around the address space", StatusCode::kInvalid, int32(), top, Dims{4}, Dims{4}, {}},
  };
  for (const Case& c : cases) {
    int releases = 0;
    Dims shape = c.shape, strides = c.strides;
    auto result = Tensor::Wrap(
        c.type, c.first, std::move(shape), std::move(strides), [&releases] { ++releases; },
        Device{}, c.names);
    ASSERT_FALSE(result.ok()) << c.fragment;
    EXPECT_EQ(result.status().code(), c.code) << result.status().ToString();
    EXPECT_NE(result.status().message().find(c.fragment), std::string::npos)
        << c.fragment << " / " << result.status().ToString();
    EXPECT_EQ(releases, 1) << c.fragment;
  }
}

// --- NumPy basic indexing (Tensor::View) ----------------------------------------

namespace {
using Ix = TensorIndex;

// The values of `t` in row-major order.
std::vector<int32_t> Values(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.size()));
  EXPECT_TRUE(t.CopyToRowMajor(out.data(), t.size() * 4).ok());
  return out;
}
}  // namespace

TEST(TensorView, IntegersDropAxesAndSlicesKeepThem) {
  ASSERT_OK_AND_ASSIGN(
      Tensor t, Tensor::Make(int32(), Iota({2, 3, 4}).buffer(), {2, 3, 4}, {}, {"N", "H", "W"}));
  ASSERT_OK_AND_ASSIGN(Tensor row, t.View({Ix::Integer(1)}));
  EXPECT_EQ(row.shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(row.strides(), (std::vector<int64_t>{16, 4}));
  EXPECT_EQ(row.dim_names(), (std::vector<std::string>{"H", "W"}));
  EXPECT_EQ(row.raw_data(), t.raw_data() + 48);  // a view: the same memory
  EXPECT_EQ(row.buffer(), t.buffer());
  ASSERT_OK_AND_ASSIGN(Tensor column, t.View({Ix::Ellipsis(), Ix::Integer(-1)}));
  EXPECT_EQ(column.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(column.dim_names(), (std::vector<std::string>{"N", "H"}));
  EXPECT_EQ(Values(column), (std::vector<int32_t>{3, 7, 11, 15, 19, 23}));
  ASSERT_OK_AND_ASSIGN(Tensor one, t.View({Ix::Integer(1), Ix::Integer(2), Ix::Integer(3)}));
  EXPECT_EQ(one.ndim(), 0);
  EXPECT_TRUE(one.dim_names().empty());
  EXPECT_EQ(Values(one), (std::vector<int32_t>{23}));
  ASSERT_OK_AND_ASSIGN(Tensor same, t.View({}));
  EXPECT_TRUE(same.Equals(t));
  EXPECT_EQ(same.dim_names(), t.dim_names());
}

TEST(TensorView, NegativeStepsGiveNegativeStrides) {
  Tensor t = Iota({3, 4});
  ASSERT_OK_AND_ASSIGN(Tensor reversed, t.View({Ix::Slice(std::nullopt, std::nullopt, -1)}));
  EXPECT_EQ(reversed.strides(), (std::vector<int64_t>{-16, 4}));
  EXPECT_EQ(Values(reversed), (std::vector<int32_t>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  ASSERT_OK_AND_ASSIGN(Tensor odd, t.View({Ix::Slice(), Ix::Slice(3, 0, -2)}));
  EXPECT_EQ(odd.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(odd.strides(), (std::vector<int64_t>{16, -8}));
  EXPECT_EQ(Values(odd), (std::vector<int32_t>{3, 1, 7, 5, 11, 9}));
  // A view of a view walks back again.
  ASSERT_OK_AND_ASSIGN(Tensor back, odd.View({Ix::Slice(std::nullopt, std::nullopt, -1),
                                              Ix::Slice(std::nullopt, std::nullopt, -1)}));
  EXPECT_EQ(Values(back), (std::vector<int32_t>{9, 11, 5, 7, 1, 3}));
  ASSERT_OK_AND_ASSIGN(Tensor contiguous, back.ToContiguous());
  EXPECT_TRUE(contiguous.Equals(back));
}

TEST(TensorView, SliceBoundsFollowPython) {
  Tensor t = Iota({5});
  struct Case {
    std::optional<int64_t> start, stop;
    int64_t step;
    std::vector<int32_t> expected;
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const std::vector<Case> cases = {
      {1, 3, 1, {1, 2}},
      {-2, std::nullopt, 1, {3, 4}},
      {std::nullopt, -10, 1, {}},
      {-10, 10, 2, {0, 2, 4}},
      {10, std::nullopt, -1, {4, 3, 2, 1, 0}},
      {std::nullopt, -10, -2, {4, 2, 0}},
      {3, 3, 1, {}},
      {1, 3, -1, {}},
      {kMin, kMax, kMax, {0}},
      {kMax, kMin, kMin, {4}},
      {std::nullopt, std::nullopt, kMin, {4}},
      {4, std::nullopt, -3, {4, 1}},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Tensor view, t.View({Ix::Slice(c.start, c.stop, c.step)}));
    EXPECT_EQ(Values(view), c.expected)
        << (c.start ? *c.start : -999) << ":" << (c.stop ? *c.stop : -999) << ":" << c.step;
  }
}

TEST(TensorView, NewAxesAndEllipsis) {
  ASSERT_OK_AND_ASSIGN(Tensor t,
                       Tensor::Make(int32(), Iota({2, 3}).buffer(), {2, 3}, {}, {"H", "W"}));
  ASSERT_OK_AND_ASSIGN(Tensor v, t.View({Ix::NewAxis(), Ix::Ellipsis(), Ix::NewAxis()}));
  EXPECT_EQ(v.shape(), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(v.dim_names(), (std::vector<std::string>{"", "H", "W", ""}));
  EXPECT_EQ(Values(v), Values(t));
  // An ellipsis that stands for no axis.
  ASSERT_OK_AND_ASSIGN(Tensor e, t.View({Ix::Integer(1), Ix::Ellipsis(), Ix::Integer(0)}));
  EXPECT_EQ(e.ndim(), 0);
  EXPECT_EQ(Values(e), (std::vector<int32_t>{3}));
  ASSERT_OK_AND_ASSIGN(Tensor scalar, e.View({Ix::NewAxis()}));
  EXPECT_EQ(scalar.shape(), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values(scalar), (std::vector<int32_t>{3}));
}

TEST(TensorView, EmptyResultsAndEmptyTensors) {
  Tensor t = Iota({2, 3});
  ASSERT_OK_AND_ASSIGN(Tensor none, t.View({Ix::Slice(5, std::nullopt)}));
  EXPECT_EQ(none.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(none.size(), 0);
  ASSERT_OK_AND_ASSIGN(Tensor none_then_int, none.View({Ix::Slice(), Ix::Integer(2)}));
  EXPECT_EQ(none_then_int.shape(), (std::vector<int64_t>{0}));
  // An axis of size 0 has no position to pick, but other axes may be indexed.
  Tensor empty = Iota({0, 4});
  ASSERT_OK_AND_ASSIGN(Tensor column, empty.View({Ix::Ellipsis(), Ix::Integer(3)}));
  EXPECT_EQ(column.shape(), (std::vector<int64_t>{0}));
  EXPECT_ERROR(kIndexError, "index 0 is out of bounds for axis 0 with size 0",
               empty.View({Ix::Integer(0)}));
}

TEST(TensorView, BadIndicesAreErrors) {
  Tensor t = Iota({2, 3});
  EXPECT_ERROR(kIndexError, "index 3 is out of bounds for axis 1 with size 3",
               t.View({Ix::Slice(), Ix::Integer(3)}));
  EXPECT_ERROR(kIndexError, "index -3 is out of bounds for axis 0 with size 2",
               t.View({Ix::Integer(-3)}));
  EXPECT_ERROR(kIndexError, "index -9223372036854775808 is out of bounds for axis 0",
               t.View({Ix::Integer(std::numeric_limits<int64_t>::min())}));
  EXPECT_ERROR(kIndexError, "tensor is 2-dimensional, but 3 were indexed",
               t.View({Ix::Integer(0), Ix::Integer(0), Ix::Slice()}));
  EXPECT_ERROR(kIndexError, "a single ellipsis", t.View({Ix::Ellipsis(), Ix::Ellipsis()}));
  EXPECT_ERROR(kInvalid, "slice step cannot be zero", t.View({Ix::Slice(0, 1, 0)}));
}

TEST(TensorView, ViewsOfDeviceMemoryReadNothing) {
  // A tensor "on a GPU" at an address the host must not touch.
  int released = 0;
  ASSERT_OK_AND_ASSIGN(Tensor t, Tensor::Wrap(
                                     int32(), uintptr_t{1} << 40, Dims{4, 4}, Dims{16, 4},
                                     [&released] { ++released; }, Device{2, 0}));
  ASSERT_OK_AND_ASSIGN(Tensor v,
                       t.View({Ix::Slice(std::nullopt, std::nullopt, -1), Ix::Integer(1)}));
  EXPECT_EQ(v.buffer()->device().type, 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.raw_data()), (uintptr_t{1} << 40) + 48 + 4);
  EXPECT_EQ(v.strides(), (std::vector<int64_t>{-16}));
  EXPECT_EQ(released, 0);
}

}  // namespace quiver
