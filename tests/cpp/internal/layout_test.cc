// The layout table (buffer roles, widths and children per type), the
// overflow-checked buffer sizes, and the read helpers for integers,
// offsets and views.
#include "quiver/internal/layout.h"

#include <limits>
#include <random>

#include "quiver/type.h"
#include "sample_arrays.h"
#include "test_util.h"

namespace quiver::internal {

TEST(Layout, BufferRolesPerType) {
  Layout fixed = LayoutOf(*int32());
  ASSERT_EQ(fixed.num_buffers, 2);
  EXPECT_EQ(fixed.roles[0], BufferRole::kValidity);
  EXPECT_EQ(fixed.roles[1], BufferRole::kValues);
  EXPECT_EQ(fixed.value_bits, 32);
  EXPECT_EQ(LayoutOf(*boolean()).roles[1], BufferRole::kBits);
  Layout text = LayoutOf(*large_utf8());
  ASSERT_EQ(text.num_buffers, 3);
  EXPECT_EQ(text.roles[1], BufferRole::kOffsets64);
  EXPECT_EQ(text.roles[2], BufferRole::kData);
  EXPECT_EQ(text.offset_width(), 8);
  Layout items = LayoutOf(*list(ListItem(int8())));
  EXPECT_EQ(items.num_buffers, 2);
  EXPECT_EQ(items.children, ChildRole::kOffsetList);
  EXPECT_EQ(items.offset_width(), 4);
  Layout cells = LayoutOf(**fixed_size_list(ListItem(int8()), 6));
  EXPECT_EQ(cells.num_buffers, 1);
  EXPECT_EQ(cells.list_size, 6);
  EXPECT_EQ(ChildCount(*struct_({Field{"a", int8()}, Field{"b", utf8()}})), 2);
  EXPECT_EQ(ChildCount(*struct_({})), 0);
  // Extension types have their storage's layout.
  EXPECT_EQ(LayoutOf(*bool8()).value_bits, 8);
}

TEST(Layout, RequiredSizesAreOverflowChecked) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  Layout fixed = LayoutOf(*int64());
  EXPECT_EQ(*RequiredBufferSize(fixed, BufferRole::kValidity, max), max / 8 + 1);
  EXPECT_EQ(*RequiredBufferSize(fixed, BufferRole::kValues, 3), 24);
  EXPECT_ERROR(kInvalid, "overflows", RequiredBufferSize(fixed, BufferRole::kValues, max));
  Layout text = LayoutOf(*utf8());
  EXPECT_EQ(*RequiredBufferSize(text, BufferRole::kOffsets32, 0), 0);
  EXPECT_EQ(*RequiredBufferSize(text, BufferRole::kOffsets32, 2), 12);
  EXPECT_ERROR(kInvalid, "overflows", RequiredBufferSize(text, BufferRole::kOffsets32, max));
  ASSERT_OK_AND_ASSIGN(TypePtr wide, fixed_size_binary(268435456));
  EXPECT_EQ(*RequiredBufferSize(LayoutOf(*wide), BufferRole::kValues, 2), int64_t{1} << 29);
  EXPECT_EQ(BitmapBytes(0), 0);
  EXPECT_EQ(BitmapBytes(9), 2);
}

}  // namespace quiver::internal

namespace quiver {

using internal::BufferRole;
using internal::Layout;
using internal::LayoutOf;
using test::ViewBytes;

namespace {

using test::kMax;

using test::Timestamp;

}  // namespace

// --- layout table -----------------------------------------------------------

TEST(CoreTypes, LayoutRows) {
  Layout none = LayoutOf(*null());
  EXPECT_EQ(none.num_buffers, 0);
  EXPECT_EQ(internal::ChildCount(*null()), 0);
  struct Row {
    TypePtr type;
    int64_t bits;
  };
  for (const Row& row :
       {Row{date32(), 32}, Row{date64(), 64}, Row{*time32(TimeUnit::kMilli), 32},
        Row{*time64(TimeUnit::kNano), 64}, Row{Timestamp(TimeUnit::kSecond, "UTC"), 64},
        Row{*duration(TimeUnit::kMicro), 64}, Row{*decimal128(10, 2), 128},
        Row{*decimal256(40, 2), 256}}) {
    SCOPED_TRACE(row.type->ToString());
    Layout layout = LayoutOf(*row.type);
    ASSERT_EQ(layout.num_buffers, 2);
    EXPECT_EQ(layout.roles[0], BufferRole::kValidity);
    EXPECT_EQ(layout.roles[1], BufferRole::kValues);
    EXPECT_EQ(layout.value_bits, row.bits);
    EXPECT_FALSE(layout.variadic);
    EXPECT_FALSE(layout.dictionary);
    EXPECT_EQ(*internal::RequiredBufferSize(layout, BufferRole::kValues, 3), 3 * row.bits / 8);
  }
  for (const TypePtr& type : {utf8_view(), binary_view()}) {
    Layout views = LayoutOf(*type);
    ASSERT_EQ(views.num_buffers, 2);
    EXPECT_EQ(views.roles[1], BufferRole::kViews);
    EXPECT_TRUE(views.variadic);
    EXPECT_FALSE(views.has_offsets());
    EXPECT_EQ(*internal::RequiredBufferSize(views, BufferRole::kViews, 3), 48);
    EXPECT_ERROR(kInvalid, "views buffer size",
                 internal::RequiredBufferSize(views, BufferRole::kViews, kMax / 8));
  }
  TypePtr dict = *dictionary(int16(), utf8());
  Layout indices = LayoutOf(*dict);
  ASSERT_EQ(indices.num_buffers, 2);
  EXPECT_EQ(indices.roles[1], BufferRole::kValues);
  EXPECT_EQ(indices.value_bits, 16);
  EXPECT_TRUE(indices.dictionary);
  EXPECT_EQ(internal::ChildCount(*dict), 0);
  // An extension type over a dictionary has the dictionary's layout.
  ASSERT_OK_AND_ASSIGN(TypePtr labels, extension("my.labels", "", dict));
  EXPECT_TRUE(LayoutOf(*labels).dictionary);
}

TEST(CoreTypes, ReadHelpers) {
  std::vector<uint8_t> view = ViewBytes("a string longer than twelve", 3, 40);
  internal::BinaryView parsed = internal::ReadView(view.data(), 0);
  EXPECT_EQ(parsed.length, 27);
  EXPECT_FALSE(parsed.is_inline());
  EXPECT_EQ(parsed.buffer_index, 3);
  EXPECT_EQ(parsed.offset, 40);
  EXPECT_EQ(std::memcmp(parsed.inline_bytes, "a st", 4), 0);
  EXPECT_TRUE(internal::ReadView(ViewBytes("short", 0, 0).data(), 0).is_inline());
  const uint64_t big[2] = {5, uint64_t{1} << 63};
  int64_t out = 0;
  EXPECT_TRUE(
      internal::ReadInteger(reinterpret_cast<const uint8_t*>(big), 0, TypeId::kUInt64, &out));
  EXPECT_EQ(out, 5);
  EXPECT_FALSE(
      internal::ReadInteger(reinterpret_cast<const uint8_t*>(big), 1, TypeId::kUInt64, &out));
  const int8_t small[2] = {-3, 4};
  EXPECT_TRUE(
      internal::ReadInteger(reinterpret_cast<const uint8_t*>(small), 0, TypeId::kInt8, &out));
  EXPECT_EQ(out, -3);
  EXPECT_FALSE(
      internal::ReadInteger(reinterpret_cast<const uint8_t*>(small), 0, TypeId::kFloat32, &out));
}

}  // namespace quiver
