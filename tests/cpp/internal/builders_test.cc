// The small builders kernels share: flat arrays over a values buffer and
// the shared empty buffer standing in for an omitted one.
#include "quiver/internal/builders.h"

#include <vector>

#include "test_util.h"

namespace quiver::internal {

TEST(Builders, MakeFlatArrayIsAValidArrayWithoutNulls) {
  BufferPtr values = test::BufferOf(std::vector<int16_t>{4, -5, 6});
  ArrayDataPtr array = MakeFlatArray(int16(), 3, values);
  EXPECT_EQ(array->type->ToString(), "int16");
  EXPECT_EQ(array->length, 3);
  EXPECT_EQ(array->offset, 0);
  EXPECT_EQ(array->null_count, 0);
  ASSERT_EQ(array->buffers.size(), 2u);
  EXPECT_EQ(array->buffers[0], nullptr);
  EXPECT_EQ(array->buffers[1], values);  // the buffer itself, not a copy
  ASSERT_OK(Validate(*array));
  EXPECT_EQ(MutableAs<int16_t>(array->buffers[1])[1], -5);
  // Too few bytes for the length is what validation catches, not the builder.
  EXPECT_ERROR(kInvalid, "", Validate(*MakeFlatArray(int16(), 4, values)));
}

TEST(Builders, BufferOrEmpty) {
  BufferPtr values = test::BufferOf(std::vector<int32_t>{1});
  EXPECT_EQ(BufferOrEmpty(values), values);
  BufferPtr empty = BufferOrEmpty(nullptr);
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty->size(), 0);
  EXPECT_EQ(BufferOrEmpty(nullptr), empty);  // one shared buffer
}

}  // namespace quiver::internal
