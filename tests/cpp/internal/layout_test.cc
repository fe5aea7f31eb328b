#include "quiver/internal/layout.h"

#include <limits>

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
