// Fuzzes the Parquet value decoders and page codecs (value_decoder.h,
// page_codec.h). The input's first 4 bytes choose an encoding, a physical
// type and a value count (0 to 65535); the rest is the page. Any page must
// decode to exactly `count` values laid out as ColumnValues promises, or
// to an error that leaves the values as they were; the same bytes
// decompressed with the codec the first byte names give `count` bytes or
// an error, never a read or write outside either buffer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_targets.h"
#include "quiver/parquet/page_codec.h"
#include "quiver/parquet/value_decoder.h"

namespace quiver::fuzz {

namespace {

using parquet::ColumnValues;
using parquet::PhysicalType;

// A dictionary of three values of `type` (FIXED_LEN_BYTE_ARRAY of 3).
ColumnValues Dictionary(PhysicalType type) {
  auto dictionary = ColumnValues::Make(type, 3);
  if (!dictionary.ok()) __builtin_trap();
  const uint8_t strings[] = {1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c', 0, 0, 0, 0};
  const uint8_t fixed[36] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const bool byte_array = type == PhysicalType::kByteArray;
  if (!parquet::DecodeValues(parquet::Encoding::kPlain, byte_array ? strings : fixed,
                             byte_array ? sizeof(strings) : sizeof(fixed), 3, nullptr, &*dictionary,
                             "dictionary")
           .ok()) {
    __builtin_trap();
  }
  return std::move(*dictionary);
}

// What ColumnValues promises of `values`.
void CheckLayout(const ColumnValues& values) {
  if (values.type == PhysicalType::kByteArray) {
    if (values.offsets.size() != (values.count + 1) * 4) __builtin_trap();
    int32_t previous = 0;
    for (int64_t i = 0; i <= values.count; ++i) {
      int32_t offset;
      std::memcpy(&offset, values.offsets.data() + i * 4, sizeof(offset));
      if (offset < previous || (i == 0 && offset != 0)) __builtin_trap();
      previous = offset;
    }
    if (previous != values.bytes.size()) __builtin_trap();
  } else {
    if (values.fixed.size() != values.count * values.width) __builtin_trap();
    if (values.type == PhysicalType::kBoolean) {
      for (int64_t i = 0; i < values.count; ++i) {
        if (values.fixed.data()[i] > 1) __builtin_trap();
      }
    }
  }
}

}  // namespace

int FuzzParquetValues(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const auto encoding = static_cast<parquet::Encoding>(data[0] % 10);
  const auto type = static_cast<PhysicalType>(data[1] % 8);
  const int64_t count = data[2] | data[3] << 8;
  // A copy of exactly the page, as a decompressed page would be.
  const size_t page_size = size - 4;
  std::unique_ptr<uint8_t[]> page(new uint8_t[page_size + 1]);
  std::memcpy(page.get(), data + 4, page_size);

  const ColumnValues dictionary = Dictionary(type);
  auto values = ColumnValues::Make(type, 3);
  if (!values.ok()) __builtin_trap();
  // One value already there, that a failed page must leave alone.
  const uint8_t first_string[] = {1, 0, 0, 0, 'z'};
  const bool byte_array = type == PhysicalType::kByteArray;
  if (!parquet::DecodeValues(parquet::Encoding::kPlain,
                             byte_array ? first_string : dictionary.fixed.data(),
                             byte_array ? sizeof(first_string) : dictionary.fixed.size(), 1,
                             nullptr, &*values, "first")
           .ok()) {
    __builtin_trap();
  }
  const int64_t before = values->count;
  Status status = parquet::DecodeValues(encoding, page.get(), static_cast<int64_t>(page_size),
                                        count, &dictionary, &*values, "fuzz");
  if (values->count != (status.ok() ? before + count : before)) __builtin_trap();
  CheckLayout(*values);

  const auto codec = static_cast<parquet::Codec>(data[0] % 8);
  std::unique_ptr<uint8_t[]> out(new uint8_t[static_cast<size_t>(count) + 1]);
  (void)parquet::DecompressPage(codec, page.get(), static_cast<int64_t>(page_size), out.get(),
                                count, "fuzz");
  return 0;
}

}  // namespace quiver::fuzz
