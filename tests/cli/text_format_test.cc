// tools/text_format: sizes, shapes and NumPy-style tensors.
#include "text_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace quiver::tools {
namespace {

Tensor Iota(TypePtr type, std::vector<int64_t> shape) {
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  auto buffer = *Buffer::Allocate(size * type->byte_width());
  for (int64_t i = 0; i < size; ++i) {
    const int32_t v = static_cast<int32_t>(i);
    std::memcpy(buffer->mutable_data() + i * 4, &v, 4);
  }
  return *Tensor::Make(std::move(type), buffer, shape);
}

TEST(TextFormat, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(int64_t{3} << 30), "3.0 GiB");
}

TEST(TextFormat, TensorLikeNumPy) {
  EXPECT_EQ(FormatTensor(Iota(int32(), {2, 3})), "[[0, 1, 2],\n [3, 4, 5]]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {2, 1, 2})), "[[[0, 1]],\n\n [[2, 3]]]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {})), "0");
  EXPECT_EQ(FormatTensor(Iota(int32(), {0})), "[]");
}

TEST(TextFormat, LongAxesAreCut) {
  EXPECT_EQ(FormatTensor(Iota(int32(), {2000})), "[0, 1, 2, ..., 1997, 1998, 1999]");
  EXPECT_EQ(FormatTensor(Iota(int32(), {10}), 3, 5), "[0, 1, 2, ..., 7, 8, 9]");
}

TEST(TextFormat, Floats) {
  float values[] = {1.0f, 0.5f, -2.25f};
  auto buffer = *Buffer::Allocate(sizeof(values));
  std::memcpy(buffer->mutable_data(), values, sizeof(values));
  EXPECT_EQ(FormatTensor(*Tensor::Make(float32(), buffer, {3})), "[1., 0.5, -2.25]");
}

// bfloat16 and float8 print their values, not their bits.
TEST(TextFormat, LowPrecisionFloats) {
  const uint16_t brains[] = {0x3F80, 0xC010, 0x7FC0};  // 1, -2.25, NaN
  auto buffer = *Buffer::Allocate(sizeof(brains));
  std::memcpy(buffer->mutable_data(), brains, sizeof(brains));
  EXPECT_EQ(FormatTensor(*Tensor::Make(bfloat16(), buffer, {3})), "[1., -2.25, nan]");
  const uint8_t eights[] = {0x7E, 0xB4};  // 448 and -0.75 in e4m3fn
  auto small = *Buffer::Allocate(sizeof(eights));
  std::memcpy(small->mutable_data(), eights, sizeof(eights));
  EXPECT_EQ(FormatTensor(*Tensor::Make(float8_e4m3fn(), small, {2})), "[448., -0.75]");
}

TEST(TextFormat, EscapeTextLeavesNoTerminalControl) {
  EXPECT_EQ(EscapeText("plain name"), "plain name");
  EXPECT_EQ(EscapeText("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");  // UTF-8 kept
  EXPECT_EQ(EscapeText("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
  EXPECT_EQ(EscapeText(std::string("a\0b\n\x7f", 5)), "a\\x00b\\x0a\\x7f");
  // C1 controls in UTF-8 form (U+009B is CSI to some terminals), and bytes
  // that are not UTF-8 (a lone 0x9b is CSI to others).
  EXPECT_EQ(EscapeText("\xc2\x9b"
                       "2J"),
            "\\xc2\\x9b"
            "2J");
  EXPECT_EQ(EscapeText("\x9b"
                       "1m"),
            "\\x9b"
            "1m");
  EXPECT_EQ(EscapeText("\xc2\xa0"), "\xc2\xa0");             // U+00A0 is not a control
  EXPECT_EQ(EscapeText("\xe0\x80\x80"), "\\xe0\\x80\\x80");  // overlong
  EXPECT_EQ(EscapeText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(EscapeText("\xf0\x9f"), "\\xf0\\x9f");           // cut short
  // Backslashes are escaped so that an escape in the output is one.
  EXPECT_EQ(EscapeText("a\\x1b"), "a\\\\x1b");
  EXPECT_EQ(EscapeText("say \"hi\"", '"'), "say \\\"hi\\\"");
  EXPECT_EQ(EscapeText("say \"hi\""), "say \"hi\"");
}

TEST(TextFormat, StringCellsAreQuotedAndEscaped) {
  const std::string text = "a\"\x1b";
  auto offsets = *Buffer::Allocate(8);
  const int32_t ends[] = {0, static_cast<int32_t>(text.size())};
  std::memcpy(offsets->mutable_data(), ends, 8);
  auto chars = *Buffer::Allocate(static_cast<int64_t>(text.size()));
  std::memcpy(chars->mutable_data(), text.data(), text.size());
  ArrayData data;
  data.type = utf8();
  data.length = 1;
  data.null_count = 0;
  data.buffers = {nullptr, offsets, chars};
  EXPECT_EQ(FormatCell(data, 0), "\"a\\\"\\x1b\"");
}

TEST(TextFormat, DictionaryCellsShowTheirEntries) {
  auto entries = std::make_shared<ArrayData>();
  entries->type = int32();
  entries->length = 3;
  entries->null_count = 0;
  auto values = *Buffer::Allocate(12);
  const int32_t words[] = {30, 10, 20};
  std::memcpy(values->mutable_data(), words, 12);
  entries->buffers = {nullptr, values};
  auto indices = *Buffer::Allocate(3);
  const int8_t picks[] = {2, 0, -1};
  std::memcpy(indices->mutable_data(), picks, 3);
  ArrayData data;
  data.type = *dictionary(int8(), int32());
  data.length = 3;
  data.null_count = 0;
  data.buffers = {nullptr, indices};
  data.dictionary = entries;
  EXPECT_EQ(FormatCell(data, 0), "20");
  EXPECT_EQ(FormatCell(data, 1), "30");
  EXPECT_EQ(FormatCell(data, 2), "<bad index -1>");  // never read past the dictionary
  data.dictionary = nullptr;
  EXPECT_EQ(FormatCell(data, 0), "<bad buffer>");
}

}  // namespace
}  // namespace quiver::tools
