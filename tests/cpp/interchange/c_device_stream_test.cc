// ArrowDeviceArrayStream export and import: batches round trip on the CPU,
// producer errors reach the consumer, and streams or arrays on another
// device are refused with their structs released once and never read.
#include <cerrno>
#include <cstdint>
#include <vector>

#include "c_data_test_util.h"
#include "quiver/c_device.h"

namespace quiver {

using test::g_releases;
using test::Primitive;

namespace {

class FailingReader : public ArrayReader {
 public:
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override { return Status::IOError("disk on fire"); }
  Field field_{"x", int8()};
};

void CountDeviceStreamRelease(ArrowDeviceArrayStream* stream) {
  ++g_releases;
  stream->release = nullptr;
}

// A hand-made stream of int32 arrays whose every callback counts its calls;
// get_next hands out one array on `array_device` over bogus pointers.
struct HandMadeStream {
  static inline int schema_calls = 0;
  static inline int next_calls = 0;
  static inline int32_t array_device = ARROW_DEVICE_CUDA;
  static inline std::vector<const void*> buffers = {
      nullptr, reinterpret_cast<const void*>(uintptr_t{0x1000})};

  static ArrowDeviceArrayStream Make(int32_t stream_device) {
    schema_calls = next_calls = 0;
    g_releases = 0;
    ArrowDeviceArrayStream stream{};
    stream.device_type = stream_device;
    stream.get_schema = [](ArrowDeviceArrayStream*, ArrowSchema* out) {
      ++schema_calls;
      *out = test::Leaf("i");
      return 0;
    };
    stream.get_next = [](ArrowDeviceArrayStream*, ArrowDeviceArray* out) {
      ++next_calls;
      *out = ArrowDeviceArray{};
      out->array = test::Foreign(1, buffers);
      out->device_type = array_device;
      return 0;
    };
    stream.get_last_error = [](ArrowDeviceArrayStream*) -> const char* { return nullptr; };
    stream.release = CountDeviceStreamRelease;
    return stream;
  }
};

}  // namespace

TEST(CDevice, StreamRoundTrip) {
  std::vector<ArrayDataPtr> batches = {Primitive<int64_t>(int64(), {1, 2}),
                                       Primitive<int64_t>(int64(), {3})};
  ArrowDeviceArrayStream stream;
  ASSERT_OK(ExportDeviceArrayStream(MakeArrayReader(Field{"n", int64()}, batches), &stream));
  EXPECT_EQ(stream.device_type, ARROW_DEVICE_CPU);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportDeviceArrayStream(&stream));
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(reader->field().name, "n");
  std::vector<int64_t> lengths;
  while (true) {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr next, reader->Next());
    if (!next) break;
    lengths.push_back(next->length);
  }
  EXPECT_EQ(lengths, (std::vector<int64_t>{2, 1}));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr after_end, reader->Next());
  EXPECT_EQ(after_end, nullptr);
}

TEST(CDevice, ExportedStreamHandsOutCpuArraysAndThenAReleasedOne) {
  ArrowDeviceArrayStream stream;
  ASSERT_OK(ExportDeviceArrayStream(
      MakeArrayReader(Field{"n", int8()}, {Primitive<int8_t>(int8(), {1})}), &stream));
  ArrowDeviceArray array;
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  EXPECT_EQ(array.device_type, ARROW_DEVICE_CPU);
  EXPECT_EQ(array.device_id, -1);
  EXPECT_EQ(array.sync_event, nullptr);
  ASSERT_NE(array.array.release, nullptr);
  array.array.release(&array.array);
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  EXPECT_EQ(array.array.release, nullptr);  // the end
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(CDevice, StreamErrorsCarryTheProducerMessage) {
  ArrowDeviceArrayStream stream;
  ASSERT_OK(ExportDeviceArrayStream(std::make_shared<FailingReader>(), &stream));
  ArrowDeviceArray array;
  EXPECT_EQ(stream.get_next(&stream, &array), EIO);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("disk on fire"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto reader, ImportDeviceArrayStream(&stream));
  EXPECT_ERROR(kIOError, "ArrowDeviceArrayStream get_next failed", reader->Next());
  EXPECT_ERROR(kIOError, "disk on fire", reader->Next());
}

TEST(CDeviceHostile, StreamOnADeviceIsRefusedBeforeAnyCall) {
  ArrowDeviceArrayStream stream = HandMadeStream::Make(ARROW_DEVICE_CUDA);
  EXPECT_ERROR(kNotImplemented, "produces arrays on CUDA (device_type 2)",
               ImportDeviceArrayStream(&stream));
  EXPECT_EQ(HandMadeStream::schema_calls, 0);
  EXPECT_EQ(HandMadeStream::next_calls, 0);
  EXPECT_EQ(g_releases, 1);
  EXPECT_EQ(stream.release, nullptr);
}

TEST(CDeviceHostile, DeviceArrayInACpuStreamIsRefusedUnread) {
  HandMadeStream::array_device = ARROW_DEVICE_CUDA;
  ArrowDeviceArrayStream stream = HandMadeStream::Make(ARROW_DEVICE_CPU);
  {
    ASSERT_OK_AND_ASSIGN(auto reader, ImportDeviceArrayStream(&stream));
    EXPECT_EQ(g_releases, 1);  // the schema
    EXPECT_ERROR(kNotImplemented, "array 0", reader->Next());
    EXPECT_EQ(g_releases, 2);  // and the refused array, once
  }
  EXPECT_EQ(g_releases, 3);  // and the stream
}

TEST(CDeviceHostile, StreamWithoutCallbacksIsReleasedOnce) {
  for (int missing = 0; missing < 3; ++missing) {
    ArrowDeviceArrayStream stream = HandMadeStream::Make(ARROW_DEVICE_CPU);
    const char* name = "get_schema";
    if (missing == 0) stream.get_schema = nullptr;
    if (missing == 1) stream.get_next = nullptr, name = "get_next";
    if (missing == 2) stream.get_last_error = nullptr, name = "get_last_error";
    EXPECT_ERROR(kInvalid, name, ImportDeviceArrayStream(&stream));
    EXPECT_EQ(g_releases, 1);
  }
  EXPECT_ERROR(kInvalid, "pointer is NULL", ImportDeviceArrayStream(nullptr));
  ArrowDeviceArrayStream released{};
  EXPECT_ERROR(kInvalid, "already released", ImportDeviceArrayStream(&released));
  EXPECT_ERROR(kInvalid, "NULL reader", ExportDeviceArrayStream(nullptr, &released));
}

}  // namespace quiver
