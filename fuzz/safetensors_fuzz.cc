// Fuzzes the safetensors reader (quiver/safetensors.h): any bytes must give
// a file or an error, never a crash; every tensor of a file that opens is a
// view inside the bytes, and the file written back out reads the same
// (names, dtypes, shapes, values, metadata). The write goes through the
// one-row table form (SafetensorsToTable / SafetensorsFromTable), so that
// conversion is held to the same promise and its columns to the file's bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_targets.h"
#include "quiver/safetensors.h"

namespace quiver::fuzz {

int FuzzSafetensors(const uint8_t* data, size_t size) {
  // A copy the reader owns, as a mapped file would be.
  auto bytes = Buffer::Allocate(static_cast<int64_t>(size));
  if (!bytes.ok()) return 0;
  if (size > 0) std::memcpy((*bytes)->mutable_data(), data, size);
  auto file = SafetensorsFile::FromBuffer(*bytes, "fuzz");
  if (!file.ok()) return 0;
  for (const SafetensorsEntry& entry : file->entries()) {
    auto tensor = file->GetTensor(entry.name);
    if (!tensor.ok()) __builtin_trap();
    const uint8_t* first = (*bytes)->data() + file->data_offset() + entry.begin;
    if (tensor->size() > 0 &&
        (tensor->raw_data() != first || tensor->ByteSpan().length() != entry.end - entry.begin)) {
      __builtin_trap();
    }
  }
  auto table = SafetensorsToTable(*file);
  if (!table.ok()) __builtin_trap();
  auto contents = SafetensorsFromTable(**table);
  if (!contents.ok() || contents->tensors.size() != file->entries().size()) __builtin_trap();
  for (size_t i = 0; i < contents->tensors.size(); ++i) {
    // The table's columns are the file's bytes, not a copy.
    const Tensor& tensor = contents->tensors[i].tensor;
    const SafetensorsEntry& entry = file->entries()[i];
    if (tensor.size() > 0 &&
        tensor.raw_data() != (*bytes)->data() + file->data_offset() + entry.begin) {
      __builtin_trap();
    }
  }
  io::BufferSink sink;
  if (!WriteSafetensors(contents->tensors, contents->metadata, &sink).ok()) __builtin_trap();
  auto written = sink.Finish();
  if (!written.ok()) return 0;
  auto again = SafetensorsFile::FromBuffer(*written);
  if (!again.ok() || again->metadata() != file->metadata() ||
      again->entries().size() != file->entries().size()) {
    __builtin_trap();
  }
  for (const SafetensorsEntry& entry : file->entries()) {
    const SafetensorsEntry* other = again->Find(entry.name);
    if (other == nullptr || other->dtype != entry.dtype || !(other->shape == entry.shape)) {
      __builtin_trap();
    }
    auto a = file->GetTensor(entry.name);
    auto b = again->GetTensor(entry.name);
    // Bytes compare, not values (NaN bits of float tensors).
    if (!a.ok() || !b.ok() || a->ByteSpan().length() != b->ByteSpan().length() ||
        (a->size() > 0 && std::memcmp(a->raw_data(), b->raw_data(),
                                      static_cast<size_t>(entry.end - entry.begin)) != 0)) {
      __builtin_trap();
    }
  }
  return 0;
}

}  // namespace quiver::fuzz
