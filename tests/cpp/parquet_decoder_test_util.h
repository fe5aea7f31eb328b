// Page builders and readers shared by the Parquet value decoder tests
// (tests/cpp/parquet/*_decoder*_test.cc, byte_stream_split_test.cc).
#pragma once

#include "quiver/parquet/value_decoder.h"

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/varint.h"
#include "test_util.h"

namespace quiver::parquet {
namespace {

inline ColumnValues Values(PhysicalType type, int32_t length = 0) {
  Result<ColumnValues> made = ColumnValues::Make(type, length);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return std::move(*made);
}

inline Status Decode(Encoding encoding, const std::string& page, int64_t count, ColumnValues* out,
                     const ColumnValues* dictionary = nullptr) {
  return DecodeValues(encoding, reinterpret_cast<const uint8_t*>(page.data()),
                      static_cast<int64_t>(page.size()), count, dictionary, out, "column x");
}

template <typename T>
inline std::vector<T> Fixed(const ColumnValues& values) {
  std::vector<T> out(static_cast<size_t>(values.fixed.size()) / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.fixed.data(), out.size() * sizeof(T));
  return out;
}

inline std::vector<std::string> Strings(const ColumnValues& values) {
  std::vector<std::string> out;
  const auto* offsets = reinterpret_cast<const int32_t*>(values.offsets.data());
  for (int64_t i = 0; i < values.count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(values.bytes.data()) + offsets[i],
                     static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  EXPECT_EQ(values.offsets.size(), (values.count + 1) * 4);
  return out;
}

inline std::vector<std::string> Chunks(const ColumnValues& values) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < values.count; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(values.fixed.data()) + i * values.width,
                     static_cast<size_t>(values.width));
  }
  return out;
}

template <typename T>
inline std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

inline std::string Le32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

inline std::string PlainStrings(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += Le32(static_cast<uint32_t>(v.size())) + v;
  return out;
}

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks of 32; `bits`
// 32 or 64 says the type whose arithmetic wraps.
inline std::string EncodeDelta(const std::vector<int64_t>& values, int bits) {
  std::string out;
  AppendVarint(out, 128);
  AppendVarint(out, 4);
  AppendVarint(out, values.size());
  if (values.empty()) {
    AppendVarint(out, 0);
    return out;
  }
  AppendVarint(out, ZigZag(values[0]));
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xffffffffu;
  auto as_signed = [&](uint64_t v) -> int64_t {
    return bits == 64 ? static_cast<int64_t>(v) : static_cast<int32_t>(static_cast<uint32_t>(v));
  };
  std::vector<int64_t> deltas;
  for (size_t i = 1; i < values.size(); ++i) {
    deltas.push_back(
        as_signed(static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(values[i - 1])));
  }
  for (size_t block = 0; block < deltas.size(); block += 128) {
    const size_t end = std::min(deltas.size(), block + 128);
    int64_t min = deltas[block];
    for (size_t i = block; i < end; ++i) min = std::min(min, deltas[i]);
    AppendVarint(out, ZigZag(min));
    std::string widths, packed;
    for (size_t m = 0; m < 4; ++m) {
      const size_t start = block + m * 32;
      if (start >= end) {
        widths.push_back(0);
        continue;
      }
      uint64_t max = 0;
      std::vector<uint64_t> adjusted(32, 0);
      for (size_t i = start; i < std::min(end, start + 32); ++i) {
        adjusted[i - start] =
            (static_cast<uint64_t>(deltas[i]) - static_cast<uint64_t>(min)) & mask;
        max = std::max(max, adjusted[i - start]);
      }
      const int width = max == 0 ? 0 : 64 - __builtin_clzll(max);
      widths.push_back(static_cast<char>(width));
      std::string bytes(static_cast<size_t>(32 * width / 8), '\0');
      for (size_t k = 0; k < 32; ++k) {
        for (int b = 0; b < width; ++b) {
          if (adjusted[k] >> b & 1) {
            const size_t bit = k * width + b;
            bytes[bit / 8] = static_cast<char>(bytes[bit / 8] | (1 << (bit % 8)));
          }
        }
      }
      packed += bytes;
    }
    out += widths + packed;
  }
  return out;
}

inline std::string EncodeDeltaLength(const std::vector<std::string>& values) {
  std::vector<int64_t> lengths;
  std::string bytes;
  for (const std::string& v : values) {
    lengths.push_back(static_cast<int64_t>(v.size()));
    bytes += v;
  }
  return EncodeDelta(lengths, 32) + bytes;
}

inline std::string EncodeDeltaByteArray(const std::vector<std::string>& values) {
  std::vector<int64_t> prefixes;
  std::vector<std::string> suffixes;
  std::string previous;
  for (const std::string& v : values) {
    size_t p = 0;
    while (p < v.size() && p < previous.size() && v[p] == previous[p]) ++p;
    prefixes.push_back(static_cast<int64_t>(p));
    suffixes.push_back(v.substr(p));
    previous = v;
  }
  return EncodeDelta(prefixes, 32) + EncodeDeltaLength(suffixes);
}

inline std::string EncodeByteStreamSplit(const std::string& values, int width) {
  const size_t count = values.size() / static_cast<size_t>(width);
  std::string out(values.size(), '\0');
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < width; ++k) out[k * count + i] = values[i * width + k];
  }
  return out;
}

// --- PLAIN --------------------------------------------------------------

inline std::string Hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

inline std::string DictionaryPage(const std::vector<uint32_t>& indices, int width) {
  return std::string(1, static_cast<char>(width)) +
         EncodeRleHybrid(indices.data(), static_cast<int64_t>(indices.size()), width);
}

// Decodes `page` from a heap copy of exactly its size, so that a sanitizer
// build catches any read past its end.
inline Status DecodeExact(Encoding encoding, const std::string& page, int64_t count,
                          ColumnValues* out, const ColumnValues* dictionary) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[page.size() + 1]);
  if (!page.empty()) std::memcpy(copy.get(), page.data(), page.size());
  const uint8_t* data = page.empty() ? nullptr : copy.get();
  return DecodeValues(encoding, data, static_cast<int64_t>(page.size()), count, dictionary, out,
                      "column x");
}

}  // namespace
}  // namespace quiver::parquet
