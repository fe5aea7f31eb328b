// ChunkedArray: Make's type checks, Slice across chunk boundaries, Combine,
// Take and Filter into one chunk, Validate naming the chunk, and Equals
// whatever the chunking.
#include "quiver/chunked_array.h"

#include <vector>

#include "quiver/record_batch.h"
#include "test_util.h"

namespace quiver {

using test::Primitive;
using test::Utf8;

namespace {

ChunkedArrayPtr Strings() {
  return *ChunkedArray::Make(utf8(), {Utf8({"a", "b"}), Utf8({}), Utf8({"c", std::nullopt, "e"})});
}

}  // namespace

TEST(ChunkedArray, MakeChecksEveryChunksType) {
  ChunkedArrayPtr column = Strings();
  EXPECT_EQ(column->length(), 5);
  EXPECT_EQ(column->num_chunks(), 3);
  EXPECT_EQ(column->null_count(), 1);
  EXPECT_ERROR(kTypeError, "chunk 1 is int32, the column is utf8",
               ChunkedArray::Make(utf8(), {Utf8({"a"}), Primitive<int32_t>(int32(), {1})}));
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr empty, ChunkedArray::Make(int32(), {}));
  EXPECT_EQ(empty->length(), 0);
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr none, empty->Combine());
  EXPECT_EQ(none->length, 0);
  ASSERT_OK(Validate(*none, ValidationLevel::kFull));
}

TEST(ChunkedArray, SliceCrossesChunksWithoutCopying) {
  ChunkedArrayPtr column = Strings();
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr cut, column->Slice(1, 3));
  ASSERT_EQ(cut->num_chunks(), 2);
  EXPECT_EQ(cut->chunk(0)->buffers[2].get(), column->chunk(0)->buffers[2].get());
  EXPECT_TRUE(ArrayEquals(**cut->Combine(), *Utf8({"b", "c", std::nullopt})));
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr none, column->Slice(5, 0));
  EXPECT_EQ(none->num_chunks(), 1);  // one empty chunk: it still combines
  EXPECT_EQ((*none->Combine())->length, 0);
  EXPECT_ERROR(kIndexError, "slice [4, +2) is out of range for 5 rows", column->Slice(4, 2));
  EXPECT_ERROR(kIndexError, "out of range", column->Slice(-1, 1));
}

TEST(ChunkedArray, TakeAndFilterGiveOneChunk) {
  ChunkedArrayPtr column = Strings();
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr taken, column->Take(std::vector<int64_t>{4, 0, 3}));
  ASSERT_EQ(taken->num_chunks(), 1);
  EXPECT_TRUE(ArrayEquals(*taken->chunk(0), *Utf8({"e", "a", std::nullopt})));
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr kept, column->Filter(std::vector<uint8_t>{0, 1, 1, 0, 1}));
  EXPECT_TRUE(ArrayEquals(*kept->chunk(0), *Utf8({"b", "c", "e"})));
  EXPECT_ERROR(kIndexError, "index 5 at position 0", column->Take(std::vector<int64_t>{5}));
}

// Chunks validated on several threads: the lowest bad chunk is reported,
// under the name the caller gives its chunks.
TEST(ChunkedArray, ValidateNamesTheLowestBadChunk) {
  auto backwards = std::make_shared<ArrayData>(*Utf8({"ab", "c"}));
  backwards->buffers[1] = test::BufferOf(std::vector<int32_t>{0, 2, 1});
  std::vector<ArrayDataPtr> chunks(12, Utf8({"x", std::nullopt}));
  chunks[9] = backwards;
  chunks[5] = backwards;
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr column, ChunkedArray::Make(utf8(), chunks));
  for (int threads : {1, 2, 4}) {
    EXPECT_ERROR(kInvalid, "chunk 5: offset 2 (1) < offset 1 (2)",
                 column->Validate(ValidationLevel::kFull, threads));
  }
  EXPECT_ERROR(kInvalid,
               "record batch 5: ", column->Validate(ValidationLevel::kFull, 2, "record batch"));
  // The first and last offsets are sound: kDefault does not look between.
  ASSERT_OK(column->Validate(ValidationLevel::kDefault));
  ASSERT_OK(Strings()->Validate());
}

TEST(ChunkedArray, EqualsIgnoresChunkBoundaries) {
  ChunkedArrayPtr column = Strings();
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr one,
                       ChunkedArray::Make(utf8(), {Utf8({"a", "b", "c", std::nullopt, "e"})}));
  EXPECT_TRUE(column->Equals(*one));
  EXPECT_TRUE(one->Equals(*column));
  ASSERT_OK_AND_ASSIGN(ChunkedArrayPtr other,
                       ChunkedArray::Make(utf8(), {Utf8({"a", "b", "c", "d", "e"})}));
  EXPECT_FALSE(column->Equals(*other));
  EXPECT_FALSE(column->Equals(**column->Slice(0, 4)));
}

}  // namespace quiver
