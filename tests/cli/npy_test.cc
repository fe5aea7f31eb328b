// tools/npy: the .npy reader and writer, against hand-written files and
// hostile headers.
#include "npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace quiver::tools {
namespace {

// A .npy file of version 1.0 with `dict` as its header and `data` after it.
BufferPtr NpyFile(const std::string& dict, const std::string& data = "") {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header + data;
  auto buffer = *Buffer::Allocate(static_cast<int64_t>(file.size()));
  std::memcpy(buffer->mutable_data(), file.data(), file.size());
  return buffer;
}

std::string Bytes(const void* data, size_t size) {
  return std::string(static_cast<const char*>(data), size);
}

TEST(Npy, ReadsLittleEndianZeroCopy) {
  const int32_t values[] = {1, 2, 3, 4, 5, 6};
  auto file = NpyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
                      Bytes(values, sizeof(values)));
  auto array = ReadNpy(file);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_FALSE(array->copied);
  EXPECT_EQ(array->tensor.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(array->tensor.type()->Equals(*int32()));
  EXPECT_EQ(array->tensor.raw_data(), file->data() + array->header.data_offset);
  const int64_t index[] = {1, 2};
  EXPECT_EQ(*array->tensor.Value<int32_t>(index), 6);
}

TEST(Npy, SwapsBigEndianAndTransposesFortran) {
  const uint8_t big[] = {0, 1, 0, 2, 0, 3, 0, 4};  // >i2 1, 2, 3, 4
  auto array = ReadNpy(NpyFile("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 2), }",
                               Bytes(big, sizeof(big))));
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_TRUE(array->copied);
  EXPECT_TRUE(array->tensor.IsContiguous());
  // Fortran order: memory 1, 2, 3, 4 is [[1, 3], [2, 4]].
  const int64_t i01[] = {0, 1};
  const int64_t i10[] = {1, 0};
  EXPECT_EQ(*array->tensor.Value<int16_t>(i01), 3);
  EXPECT_EQ(*array->tensor.Value<int16_t>(i10), 2);
}

TEST(Npy, ZeroDimEmptyAndBool) {
  const double pi = 3.5;
  auto scalar = ReadNpy(
      NpyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", Bytes(&pi, sizeof(pi))));
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->tensor.ndim(), 0);
  EXPECT_EQ(scalar->tensor.size(), 1);
  auto empty = ReadNpy(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }"));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->tensor.size(), 0);
  auto flags = ReadNpy(NpyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                               std::string("\x01\x00", 2)));
  ASSERT_TRUE(flags.ok());
  EXPECT_TRUE(flags->tensor.type()->is_bool8());
}

TEST(Npy, RefusesMalformedHeaders) {
  struct Case {
    std::string dict;
    std::string data;
    std::string message;
  };
  const Case cases[] = {
      {"{'descr': '<f4', 'fortran_order': False}", "", "lacks 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", "",
       "shape entry 1 is not a non-negative integer"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "",
       "unsupported .npy dtype '<c8'"},
      {"{'descr': '|i2', 'fortran_order': False, 'shape': (1,), }", "", "has no byte order"},
      {"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", "", "structured"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", "", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "",
       "unexpected or repeated key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "",
       "repeated key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "abc", "need 12 (truncated?)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "",
       "more bytes than fit in 64 bits"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } junk", "",
       "text after the header"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }", "", "unsupported .npy dtype"},
  };
  for (const Case& c : cases) {
    auto array = ReadNpy(NpyFile(c.dict, c.data));
    ASSERT_FALSE(array.ok()) << c.dict;
    EXPECT_NE(array.status().message().find(c.message), std::string::npos)
        << c.dict << " -> " << array.status().message();
  }
}

TEST(Npy, RefusesBadPrefixes) {
  auto tiny = *Buffer::Allocate(4);
  EXPECT_NE(ReadNpy(tiny).status().message().find("not a .npy file"), std::string::npos);
  auto file = NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
  file->mutable_data()[6] = 9;
  EXPECT_EQ(ReadNpy(file).status().code(), StatusCode::kNotImplemented);
  file->mutable_data()[6] = 1;
  file->mutable_data()[9] = 0x7f;  // header length 32 KiB: past the end
  EXPECT_NE(ReadNpy(file).status().message().find("header claims"), std::string::npos);
}

TEST(Npy, HeaderAsNumPyWritesIt) {
  // np.save(f, np.zeros((2, 3), '<f4')): the dict, 21 - len('2') spaces for
  // the growing axis, padding to 64 bytes and a newline.
  auto header = NpyHeaderFor(*float32(), {2, 3});
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->size(), 128u);
  EXPECT_EQ(header->substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(header->back(), '\n');
  EXPECT_EQ(NpyHeaderFor(*int64(), {}).ValueOr("").substr(10, 55),
            "{'descr': '<i8', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(NpyHeaderFor(*bool8(), {5}).ValueOr("").substr(10, 57),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }");
  EXPECT_EQ(NpyHeaderFor(*utf8(), {1}).status().code(), StatusCode::kNotImplemented);
  // Round trip through the reader.
  auto parsed = ParseNpyHeader(reinterpret_cast<const uint8_t*>(header->data()),
                               static_cast<int64_t>(header->size()));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parsed->data_offset, 128);
}

}  // namespace
}  // namespace quiver::tools
