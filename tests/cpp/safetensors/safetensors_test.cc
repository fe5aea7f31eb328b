// safetensors: round trips, the reference layout, and every rule of the
// format a hostile file can break.
#include "quiver/safetensors.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "test_util.h"

namespace quiver {
namespace {

using test::IotaOf;

// A file from a header text and a data section of `data_bytes` bytes.
BufferPtr FileBytes(const std::string& header, int64_t data_bytes, uint64_t length = UINT64_MAX) {
  if (length == UINT64_MAX) length = header.size();
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  bytes += header;
  bytes.append(static_cast<size_t>(data_bytes), '\x01');
  return test::BufferFrom(bytes.data(), static_cast<int64_t>(bytes.size()));
}

Result<BufferPtr> Write(const std::vector<SafetensorsInput>& tensors,
                        const std::map<std::string, std::string>& metadata = {}) {
  io::BufferSink sink;
  QUIVER_RETURN_NOT_OK(WriteSafetensors(tensors, metadata, &sink));
  return sink.Finish();
}

// BF16, F8_E4M3 and F8_E5M2 are quiver's bfloat16, float8_e4m3fn and
// float8_e5m2, read and written without a dtype given.
TEST(SafetensorsTest, LowPrecisionFloatsMapToTheirDtypes) {
  const std::vector<uint16_t> brains = {0x3F80, 0xC000};
  const std::vector<uint8_t> eights = {0x38, 0xC0};
  ASSERT_OK_AND_ASSIGN(Tensor b, Tensor::Make(bfloat16(), test::BufferOf(brains), {2}));
  ASSERT_OK_AND_ASSIGN(Tensor e4, Tensor::Make(float8_e4m3fn(), test::BufferOf(eights), {2}));
  ASSERT_OK_AND_ASSIGN(Tensor e5, Tensor::Make(float8_e5m2(), test::BufferOf(eights), {2}));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write({{"b", b, ""}, {"e4", e4, ""}, {"e5", e5, ""}}));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  const std::tuple<const char*, const char*, Tensor> cases[] = {
      {"b", "BF16", b}, {"e4", "F8_E4M3", e4}, {"e5", "F8_E5M2", e5}};
  for (const auto& [name, dtype, tensor] : cases) {
    EXPECT_EQ(file.Find(name)->dtype, dtype);
    ASSERT_OK_AND_ASSIGN(Tensor got, file.GetTensor(name));
    EXPECT_TRUE(got.type()->Equals(*tensor.type())) << got.type()->ToString();
    EXPECT_TRUE(got.Equals(tensor));
  }
  // A dtype of another width is refused by name.
  EXPECT_ERROR(kInvalid, "BF16", Write({{"x", e4, "BF16"}}));
}

TEST(SafetensorsTest, RoundTripKeepsValuesMetadataAndLayout) {
  Tensor a = IotaOf<float>(float32(), {2, 3});
  Tensor b = IotaOf<int64_t>(int64(), {4});
  Tensor c = IotaOf<uint8_t>(uint8(), {3});
  Tensor empty = IotaOf<int16_t>(int16(), {0, 5});
  ASSERT_OK_AND_ASSIGN(
      BufferPtr bytes,
      Write({{"a", a, ""}, {"b", b, ""}, {"c", c, ""}, {"e", empty, ""}, {"bits", c, "F8_E4M3"}},
            {{"format", "pt"}}));
  // The header length is a multiple of 8 and the header ends in spaces.
  uint64_t length = 0;
  std::memcpy(&length, bytes->data(), 8);
  EXPECT_EQ(length % 8, 0u);
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  // Widest dtype first, then by name (the reference writer's order).
  EXPECT_EQ(file.names(), (std::vector<std::string>{"b", "a", "e", "bits", "c"}));
  EXPECT_EQ(file.metadata().at("format"), "pt");
  EXPECT_EQ(file.Find("bits")->dtype, "F8_E4M3");
  ASSERT_OK_AND_ASSIGN(Tensor got, file.GetTensor("a"));
  EXPECT_TRUE(got.Equals(a));
  EXPECT_EQ(got.buffer()->data(), bytes->data() + file.data_offset() + file.Find("a")->begin);
  ASSERT_OK_AND_ASSIGN(got, file.GetTensor("e"));
  EXPECT_TRUE(got.Equals(empty));
  // uint8 bits written as F8_E4M3 read back as float8_e4m3fn, the same bytes.
  ASSERT_OK_AND_ASSIGN(got, file.GetTensor("bits"));
  EXPECT_TRUE(got.type()->Equals(*float8_e4m3fn()));
  EXPECT_EQ(std::memcmp(got.raw_data(), c.raw_data(), 3), 0);
  EXPECT_ERROR(kIndexError, "no tensor named 'zz'", file.GetTensor("zz"));
}

TEST(SafetensorsTest, StridedTensorsAreWrittenRowMajor) {
  Tensor a = IotaOf<int32_t>(int32(), {3, 4});
  ASSERT_OK_AND_ASSIGN(Tensor view, a.View({TensorIndex::Slice(std::nullopt, std::nullopt, -1),
                                            TensorIndex::Slice(0, 4, 2)}));
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write({{"v", view, ""}}));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  ASSERT_OK_AND_ASSIGN(Tensor got, file.GetTensor("v"));
  EXPECT_TRUE(got.Equals(view));
}

TEST(SafetensorsTest, WriterRefusesWhatTheFormatCannotHold) {
  Tensor c = IotaOf<uint8_t>(uint8(), {3});
  EXPECT_ERROR(kInvalid, "given twice", Write({{"x", c, ""}, {"x", c, ""}}));
  EXPECT_ERROR(kInvalid, "reserved", Write({{"__metadata__", c, ""}}));
  // An empty name is a name (the reference reads and writes it).
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, Write({{"", c, ""}}));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::FromBuffer(bytes));
  EXPECT_EQ(file.names(), std::vector<std::string>{""});
  EXPECT_ERROR(kInvalid, "4 bytes wide, uint8 is 1", Write({{"x", c, "F32"}}));
  EXPECT_ERROR(kInvalid, "unknown dtype 'Q8'", Write({{"x", c, "Q8"}}));
  EXPECT_ERROR(kInvalid, "not valid UTF-8", Write({{"x", c, ""}}, {{"k", "\xff"}}));
}

TEST(SafetensorsTest, FileIsWrittenAtomicallyAndMapped) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("quiver_st_" + std::to_string(getpid()) + ".safetensors"))
                               .string();
  Tensor a = IotaOf<double>(float64(), {5});
  ASSERT_OK(WriteSafetensorsFile({{"a", a, ""}}, {}, path));
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file, SafetensorsFile::Open(path));
  ASSERT_OK_AND_ASSIGN(Tensor got, file.GetTensor("a"));
  EXPECT_TRUE(got.Equals(a));
  std::filesystem::remove(path);
  EXPECT_ERROR(kIOError, "", SafetensorsFile::Open(path));
}

TEST(SafetensorsTest, RepeatedNameIsFoundEvenWhenBothEntriesAgree) {
  // The JSON object would keep one "a" covering all the data; the name
  // given twice is still refused, with the parse stopped there.
  const std::string entry = R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]})";
  EXPECT_ERROR(kInvalid, "'f': tensor 'a' appears twice in the header",
               SafetensorsFile::FromBuffer(FileBytes("{" + entry + "," + entry + "}", 2), "'f'"));
  // Keys repeated inside an entry are not tensor names.
  ASSERT_OK(
      SafetensorsFile::FromBuffer(
          FileBytes(R"({"a":{"dtype":"U8","dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2))
          .status());
  // A header of many tensors parses (once quadratic in their count).
  std::string many = "{";
  for (int i = 0; i < 3000; ++i) {
    if (i > 0) many += ",";
    many += "\"t" + std::to_string(i) + "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[" +
            std::to_string(i) + "," + std::to_string(i + 1) + "]}";
  }
  ASSERT_OK_AND_ASSIGN(SafetensorsFile file,
                       SafetensorsFile::FromBuffer(FileBytes(many + "}", 3000)));
  EXPECT_EQ(file.entries().size(), 3000u);
  EXPECT_EQ(file.entries()[2999].name, "t2999");
}

TEST(SafetensorsTest, HostileHeadersAreInvalid) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  ASSERT_OK(SafetensorsFile::FromBuffer(FileBytes(ok, 8)).status());
  EXPECT_ERROR(kInvalid, "too short", SafetensorsFile::FromBuffer(test::BufferFrom("abc", 3), "f"));
  EXPECT_ERROR(kInvalid, "past the end", SafetensorsFile::FromBuffer(FileBytes(ok, 8, 1000), "f"));
  EXPECT_ERROR(kInvalid, "100000000-byte limit",
               SafetensorsFile::FromBuffer(FileBytes(ok, 8, 200'000'000), "f"));
  EXPECT_ERROR(kInvalid, "'m.st': header is not valid JSON",
               SafetensorsFile::FromBuffer(FileBytes("{\"a\":", 0), "'m.st'"));
  EXPECT_ERROR(kInvalid, "UTF-8", SafetensorsFile::FromBuffer(FileBytes("{\"\xff\":1}", 0)));
  EXPECT_ERROR(kInvalid, "not a JSON object", SafetensorsFile::FromBuffer(FileBytes("[]", 0)));
  EXPECT_ERROR(kInvalid, "unknown dtype 'F128'",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"F128","shape":[],"data_offsets":[0,16]}})", 16)));
  EXPECT_ERROR(kInvalid, "tensor 'a': shape [3] of F32 needs 12 bytes",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)));
  EXPECT_ERROR(kInvalid, "non-negative",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8)));
  EXPECT_ERROR(kInvalid, "outside the data section", SafetensorsFile::FromBuffer(FileBytes(ok, 4)));
  EXPECT_ERROR(kInvalid, "which holds 12 bytes", SafetensorsFile::FromBuffer(FileBytes(ok, 12)));
  EXPECT_ERROR(kInvalid, "appears twice",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                             2)));
  EXPECT_ERROR(kInvalid, "tensor 'b': data_offsets [0, 1] overlap",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                             1)));
  EXPECT_ERROR(kInvalid, "tensor 'b': data_offsets [2, 3] leave a gap",
               SafetensorsFile::FromBuffer(
                   FileBytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}})",
                             3)));
  EXPECT_ERROR(
      kInvalid, "shape",
      SafetensorsFile::FromBuffer(FileBytes(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],)"
                                            R"("data_offsets":[0,1]}})",
                                            1)));
  EXPECT_ERROR(kInvalid, "__metadata__",
               SafetensorsFile::FromBuffer(FileBytes(R"({"__metadata__":{"k":1}})", 0)));
}

}  // namespace
}  // namespace quiver
