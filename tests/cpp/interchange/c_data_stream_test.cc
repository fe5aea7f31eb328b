// ArrowArrayStream export and import: batches round trip, producer errors
// reach the consumer, and a stream without callbacks is released once.
#include "quiver/c_data.h"

#include <limits>
#include <vector>
#include "c_data_test_util.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver {

using test::CountStreamRelease;
using test::g_releases;

using test::Primitive;

TEST(CData, StreamRoundTrip) {
  std::vector<ArrayDataPtr> batches = {Primitive<int64_t>(int64(), {1, 2}),
                                       Primitive<int64_t>(int64(), {3})};
  ArrowArrayStream stream;
  ASSERT_OK(ExportArrayStream(MakeArrayReader(Field{"n", int64()}, batches), &stream));
  ASSERT_OK_AND_ASSIGN(auto reader, ImportArrayStream(&stream));
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(reader->field().name, "n");
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr next, reader->Next());
    if (!next) break;
    rows += next->length;
  }
  EXPECT_EQ(rows, 3);
}

namespace {
class FailingReader : public ArrayReader {
 public:
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override { return Status::IOError("disk on fire"); }
  Field field_{"x", int8()};
};
}  // namespace

TEST(CData, StreamErrorsCarryTheProducerMessage) {
  ArrowArrayStream stream;
  ASSERT_OK(ExportArrayStream(std::make_shared<FailingReader>(), &stream));
  ASSERT_OK_AND_ASSIGN(auto reader, ImportArrayStream(&stream));
  EXPECT_ERROR(kIOError, "disk on fire", reader->Next());
}

TEST(CDataHostile, StreamWithoutCallbacksIsReleasedOnce) {
  for (int missing = 0; missing < 3; ++missing) {
    ArrowArrayStream stream{};
    stream.get_schema = [](ArrowArrayStream*, ArrowSchema*) { return 0; };
    stream.get_next = [](ArrowArrayStream*, ArrowArray*) { return 0; };
    stream.get_last_error = [](ArrowArrayStream*) -> const char* { return nullptr; };
    stream.release = CountStreamRelease;
    const char* name = "get_schema";
    if (missing == 0) stream.get_schema = nullptr;
    if (missing == 1) stream.get_next = nullptr, name = "get_next";
    if (missing == 2) stream.get_last_error = nullptr, name = "get_last_error";
    g_releases = 0;
    EXPECT_ERROR(kInvalid, std::string("ArrowArrayStream has no ") + name + " callback",
                 ImportArrayStream(&stream));
    EXPECT_EQ(g_releases, 1);
    EXPECT_EQ(stream.release, nullptr);
  }
}

}  // namespace quiver
