// Fuzzes full validation of variable-size arrays built from raw bytes: a
// list<utf8> whose offsets, validity and characters all come from the
// input. Whatever Validate accepts must be safe to walk completely.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_targets.h"
#include "quiver/array.h"

namespace {

using namespace quiver;

BufferPtr Take(const uint8_t*& data, size_t& size, size_t want) {
  want = want < size ? want : size;
  BufferPtr out = *Buffer::Allocate(static_cast<int64_t>(want));
  if (want > 0) std::memcpy(out->mutable_data(), data, want);
  data += want;
  size -= want;
  return out;
}

int32_t Offset(const ArrayData& a, int64_t i) {
  int32_t v;
  std::memcpy(&v, a.buffers[1]->data() + i * 4, 4);
  return v;
}

}  // namespace

namespace quiver::fuzz {

int FuzzArrayValidation(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const int64_t outer_length = data[0] % 8, inner_length = data[1] % 16;
  const int64_t outer_offset = data[2] % 4, inner_offset = data[3] % 4;
  data += 4;
  size -= 4;
  auto strings = std::make_shared<ArrayData>();
  strings->type = utf8();
  strings->length = inner_length;
  strings->offset = inner_offset;
  strings->buffers = {Take(data, size, 4), Take(data, size, (inner_offset + inner_length + 1) * 4),
                      Take(data, size, 32)};
  auto lists = std::make_shared<ArrayData>();
  lists->type = list(ListItem(utf8()));
  lists->length = outer_length;
  lists->offset = outer_offset;
  lists->buffers = {Take(data, size, 2), Take(data, size, (outer_offset + outer_length + 1) * 4)};
  lists->children = {strings};
  if (!Validate(*lists, ValidationLevel::kFull).ok()) return 0;
  // Walk every string of every valid list: must stay inside the buffers.
  uint64_t checksum = 0;
  for (int64_t i = 0; i < lists->length; ++i) {
    if (!lists->IsValid(i)) continue;
    for (int32_t j = Offset(*lists, lists->offset + i); j < Offset(*lists, lists->offset + i + 1);
         ++j) {
      int32_t begin = Offset(*strings, strings->offset + j),
              end = Offset(*strings, strings->offset + j + 1);
      for (int32_t k = begin; k < end; ++k) checksum += strings->buffers[2]->data()[k];
    }
  }
  // Keeps the reads from being optimised away (libFuzzer wants 0 back).
  volatile uint64_t sink = checksum;
  (void)sink;
  return 0;
}

}  // namespace quiver::fuzz
