#include "quiver/parquet/value_encoders.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include "quiver/parquet/rle_hybrid.h"

namespace quiver::parquet {

namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

void AppendLength(std::string* out, size_t n) {
  const uint32_t length = static_cast<uint32_t>(n);
  out->append(reinterpret_cast<const char*>(&length), 4);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? std::nanf("") : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -value : value;
}

}  // namespace

int PhysicalWidth(const LeafEncoding& encoding) {
  switch (encoding.physical) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat: return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: return 8;
    case PhysicalType::kInt96: return 12;
    case PhysicalType::kFixedLenByteArray: return encoding.type_length;
    default: return 0;
  }
}

Result<PhysicalValues> PhysicalValues::Make(const ArrayDataPtr& values,
                                            const LeafEncoding& encoding, int64_t begin,
                                            int64_t end) {
  PhysicalValues out;
  out.encoding_ = encoding;
  out.array_ = values;
  out.width_ = PhysicalWidth(encoding);
  out.begin_ = begin;
  const ArrayData& a = *values;
  if (out.width_ == 0) return out;  // bool, byte arrays: read in place
  const uint8_t* src = a.buffers.size() > 1 && a.buffers[1] ? a.buffers[1]->data() : nullptr;
  const int64_t aw = encoding.arrow_width;
  if (encoding.conversion == Conversion::kNone) {
    out.base_ = src ? src + (a.offset + begin) * out.width_ : nullptr;
    return out;
  }
  const int64_t n = std::max<int64_t>(0, end - begin);
  out.owned_.resize(static_cast<size_t>(n * out.width_));
  uint8_t* dst = out.owned_.data();
  const uint8_t* s = src + (a.offset + begin) * aw;
  const int w = out.width_;
  for (int64_t k = 0; k < n; ++k, s += aw, dst += w) {
    switch (encoding.conversion) {
      case Conversion::kSignExtend:
        Store<int32_t>(dst, aw == 1 ? Load<int8_t>(s) : Load<int16_t>(s));
        break;
      case Conversion::kZeroExtend:
        Store<int32_t>(dst, aw == 1 ? Load<uint8_t>(s) : Load<uint16_t>(s));
        break;
      case Conversion::kTimes1000: {
        // Seconds as milliseconds (Parquet has no seconds): a valid value
        // that overflows is an error, never a wrapped time; null slots may
        // hold anything and are stored as 0.
        bool overflow = false;
        if (w == 4) {
          int32_t ms = 0;
          overflow = __builtin_mul_overflow(Load<int32_t>(s), 1000, &ms);
          Store<int32_t>(dst, overflow ? 0 : ms);
        } else {
          int64_t ms = 0;
          overflow = __builtin_mul_overflow(Load<int64_t>(s), int64_t{1000}, &ms);
          Store<int64_t>(dst, overflow ? 0 : ms);
        }
        if (overflow && a.IsValid(begin + k)) {
          return Status::Invalid("value ", begin + k, " (",
                                 w == 4 ? Load<int32_t>(s) : Load<int64_t>(s),
                                 " seconds) overflows the milliseconds Parquet stores it as");
        }
        break;
      }
      case Conversion::kDate64ToDays: {
        const int64_t ms = Load<int64_t>(s);
        int64_t days = ms / 86400000;
        if (ms % 86400000 < 0) --days;
        Store<int32_t>(dst, static_cast<int32_t>(days));
        break;
      }
      case Conversion::kLowBytes: std::memcpy(dst, s, static_cast<size_t>(w)); break;
      case Conversion::kBigEndian:
        for (int b = 0; b < w; ++b) dst[b] = s[w - 1 - b];
        break;
      case Conversion::kNone: break;
    }
  }
  out.base_ = out.owned_.data();
  return out;
}

bool PhysicalValues::Bool(int64_t j) const {
  const ArrayData& a = *array_;
  const int64_t bit = a.offset + j;
  return (a.buffers[1]->data()[bit / 8] >> (bit % 8)) & 1;
}

std::string_view PhysicalValues::Bytes(int64_t j) const {
  const ArrayData& a = *array_;
  const TypeId id = a.type->id();
  if (id == TypeId::kUtf8View || id == TypeId::kBinaryView) {
    const uint8_t* view = a.buffers[1]->data() + (a.offset + j) * 16;
    const int32_t length = Load<int32_t>(view);
    if (length <= 12) return {reinterpret_cast<const char*>(view + 4), static_cast<size_t>(length)};
    const int32_t buffer = Load<int32_t>(view + 8), offset = Load<int32_t>(view + 12);
    return {reinterpret_cast<const char*>(a.buffers[2 + buffer]->data() + offset),
            static_cast<size_t>(length)};
  }
  const uint8_t* data = a.buffers[2] ? a.buffers[2]->data() : nullptr;
  int64_t begin, end;
  if (id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary) {
    const int64_t* offsets = reinterpret_cast<const int64_t*>(a.buffers[1]->data()) + a.offset;
    begin = offsets[j];
    end = offsets[j + 1];
  } else {
    const int32_t* offsets = reinterpret_cast<const int32_t*>(a.buffers[1]->data()) + a.offset;
    begin = offsets[j];
    end = offsets[j + 1];
  }
  if (begin == end) return {};
  return {reinterpret_cast<const char*>(data + begin), static_cast<size_t>(end - begin)};
}

void EncodePlain(const PhysicalValues& values, ValueRanges ranges, std::string* out) {
  const int w = values.width();
  if (values.type() == PhysicalType::kBoolean) {
    int64_t count = 0;
    for (const Range& r : ranges) count += r.length();
    const size_t start = out->size();
    out->resize(start + static_cast<size_t>((count + 7) / 8), '\0');
    uint8_t* bits = reinterpret_cast<uint8_t*>(out->data() + start);
    int64_t k = 0;
    for (const Range& r : ranges) {
      for (int64_t j = r.begin; j < r.end; ++j, ++k) {
        if (values.Bool(j)) bits[k / 8] = static_cast<uint8_t>(bits[k / 8] | (1u << (k % 8)));
      }
    }
    return;
  }
  if (values.type() == PhysicalType::kByteArray) {
    for (const Range& r : ranges) {
      for (int64_t j = r.begin; j < r.end; ++j) {
        const std::string_view v = values.Bytes(j);
        AppendLength(out, v.size());
        out->append(v.data(), v.size());
      }
    }
    return;
  }
  int64_t count = 0;
  for (const Range& r : ranges) count += r.length();
  size_t at = out->size();
  out->resize(at + static_cast<size_t>(count * w));
  for (const Range& r : ranges) {
    const size_t bytes = static_cast<size_t>(r.length() * w);
    std::memcpy(out->data() + at, values.Fixed(r.begin), bytes);
    at += bytes;
  }
}

void EncodeByteStreamSplit(const PhysicalValues& values, ValueRanges ranges, std::string* out) {
  std::string plain;
  EncodePlain(values, ranges, &plain);
  const size_t w = static_cast<size_t>(values.width());
  const size_t n = plain.size() / w;
  const size_t at = out->size();
  out->resize(at + plain.size());
  char* dst = out->data() + at;
  const char* src = plain.data();
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < w; ++b) dst[b * n + i] = src[i * w + b];
  }
}

namespace {

uint64_t FixedKey(const uint8_t* p, int width) {
  switch (width) {
    case 2: return Load<uint16_t>(p);
    case 4: return Load<uint32_t>(p);
    default: return Load<uint64_t>(p);
  }
}

}  // namespace

size_t DictionaryEncoding::Slot(uint64_t key) const {
  return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (keys.size() - 1);
}

uint32_t DictionaryEncoding::Index(const PhysicalValues& values, int64_t j) const {
  if (fixed_width > 0) {
    const uint64_t key = FixedKey(values.Fixed(j), fixed_width);
    size_t slot = Slot(key);
    while (ids[slot] == 0 || keys[slot] != key) slot = (slot + 1) & (keys.size() - 1);
    return ids[slot] - 1;
  }
  return slot_index[static_cast<size_t>(j - slot_begin)];
}

bool BuildDictionary(const PhysicalValues& values, ValueRanges ranges, int64_t max_bytes,
                     DictionaryEncoding* out, const DictionaryEntries& first) {
  const bool bytes = values.type() == PhysicalType::kByteArray;
  const int w = bytes ? 0 : values.width();
  out->page.clear();
  out->entries = 0;
  if (w == 2 || w == 4 || w == 8) {
    // An open-addressing table of the values' bits (linear probing, at
    // most half full).
    out->fixed_width = w;
    out->keys.assign(1024, 0);
    out->ids.assign(1024, 0);
    const int64_t max_entries = max_bytes / w;
    auto add = [&](const uint8_t* p) {
      const uint64_t key = FixedKey(p, w);
      size_t slot = out->Slot(key);
      while (out->ids[slot] != 0 && out->keys[slot] != key) {
        slot = (slot + 1) & (out->keys.size() - 1);
      }
      if (out->ids[slot] != 0) return true;
      if (out->entries + 1 > max_entries) return false;
      out->page.append(reinterpret_cast<const char*>(p), static_cast<size_t>(w));
      out->keys[slot] = key;
      out->ids[slot] = static_cast<uint32_t>(++out->entries);
      if (static_cast<size_t>(out->entries) * 2 > out->keys.size()) {  // grow, rehash
        const size_t capacity = out->keys.size() * 2;
        out->keys.assign(capacity, 0);
        out->ids.assign(capacity, 0);
        for (int64_t e = 0; e < out->entries; ++e) {
          const uint64_t k =
              FixedKey(reinterpret_cast<const uint8_t*>(out->page.data()) + e * w, w);
          size_t s = out->Slot(k);
          while (out->ids[s] != 0) s = (s + 1) & (capacity - 1);
          out->keys[s] = k;
          out->ids[s] = static_cast<uint32_t>(e + 1);
        }
      }
      return true;
    };
    auto add_all = [&](const PhysicalValues& from, ValueRanges in) {
      for (const Range& r : in) {
        const uint8_t* p = from.Fixed(r.begin);
        for (int64_t j = r.begin; j < r.end; ++j, p += w) {
          if (!add(p)) return false;
        }
      }
      return true;
    };
    return (first.values == nullptr || add_all(*first.values, first.ranges)) &&
           add_all(values, ranges);
  }
  out->fixed_width = 0;
  out->by_bytes.clear();
  out->slot_begin = ranges.empty() ? 0 : ranges.front().begin;
  out->slot_index.assign(
      ranges.empty() ? 0 : static_cast<size_t>(ranges.back().end - out->slot_begin), 0);
  int64_t page_bytes = 0;
  // The value's index, or -1 when the page would pass max_bytes.
  auto add = [&](std::string_view v) -> int64_t {
    auto [it, inserted] = out->by_bytes.try_emplace(v, static_cast<uint32_t>(out->entries));
    if (!inserted) return it->second;
    page_bytes += static_cast<int64_t>(v.size() + (bytes ? 4 : 0));
    if (page_bytes > max_bytes) return -1;
    if (bytes) AppendLength(&out->page, v.size());
    out->page.append(v.data(), v.size());
    return out->entries++;
  };
  auto value_of = [&](const PhysicalValues& from, int64_t j) {
    return bytes ? from.Bytes(j)
                 : std::string_view(reinterpret_cast<const char*>(from.Fixed(j)),
                                    static_cast<size_t>(w));
  };
  if (first.values != nullptr) {
    for (const Range& r : first.ranges) {
      for (int64_t j = r.begin; j < r.end; ++j) {
        if (add(value_of(*first.values, j)) < 0) return false;
      }
    }
  }
  for (const Range& r : ranges) {
    for (int64_t j = r.begin; j < r.end; ++j) {
      const int64_t index = add(value_of(values, j));
      if (index < 0) return false;
      out->slot_index[static_cast<size_t>(j - out->slot_begin)] = static_cast<uint32_t>(index);
    }
  }
  out->by_bytes.clear();  // the slots' indices say all that is needed now
  return true;
}

void EncodeDictionaryIndices(const DictionaryEncoding& dictionary, const PhysicalValues& values,
                             ValueRanges ranges, std::string* out) {
  std::vector<uint32_t> indices;
  for (const Range& r : ranges) {
    for (int64_t j = r.begin; j < r.end; ++j) indices.push_back(dictionary.Index(values, j));
  }
  EncodeDictionaryIndices(indices.data(), static_cast<int64_t>(indices.size()), dictionary.entries,
                          out);
}

void EncodeDictionaryIndices(const uint32_t* indices, int64_t count, int64_t entries,
                             std::string* out) {
  const int width =
      std::max(1, BitWidthOf(static_cast<uint32_t>(std::max<int64_t>(0, entries - 1))));
  out->push_back(static_cast<char>(width));
  out->append(EncodeRleHybrid(indices, count, width));
}

namespace {

// The least and greatest values by `less`, skipping those `skip` says.
template <typename T, typename Get, typename Less, typename Skip>
void MinMaxOf(ValueRanges ranges, Get get, Less less, Skip skip, std::optional<T>* min,
              std::optional<T>* max) {
  for (const Range& r : ranges) {
    for (int64_t j = r.begin; j < r.end; ++j) {
      const T v = get(j);
      if (skip(v)) continue;
      if (!*min || less(v, **min)) *min = v;
      if (!*max || less(**max, v)) *max = v;
    }
  }
}

bool UnsignedBytesLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  return c != 0 ? c < 0 : a.size() < b.size();
}

// Big-endian two's complement of one width: the sign byte signed.
bool BigEndianSignedLess(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.size() < b.size();
  const int8_t sa = static_cast<int8_t>(a[0]), sb = static_cast<int8_t>(b[0]);
  if (sa != sb) return sa < sb;
  return UnsignedBytesLess(a.substr(1), b.substr(1));
}

// a < b for two values of T stored little-endian in sizeof(T) bytes.
template <typename T>
bool LoadedLess(std::string_view a, std::string_view b) {
  T x{}, y{};
  std::memcpy(&x, a.data(), std::min(a.size(), sizeof(T)));
  std::memcpy(&y, b.data(), std::min(b.size(), sizeof(T)));
  return x < y;
}

template <typename T>
std::string Bytes(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
void Numbers(const PhysicalValues& values, ValueRanges ranges, std::optional<std::string>* min,
             std::optional<std::string>* max) {
  // Plain loops over each range's values (which the compiler vectorises):
  // a NaN compares false both ways, so it never becomes min or max.
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  if constexpr (std::is_floating_point_v<T>) {
    lo = std::numeric_limits<T>::infinity();
    hi = -std::numeric_limits<T>::infinity();
  }
  bool any = false;
  for (const Range& r : ranges) {
    const uint8_t* p = values.Fixed(r.begin);
    const int64_t n = r.length();
    bool seen = false;
    for (int64_t k = 0; k < n; ++k) {
      T v;
      std::memcpy(&v, p + k * static_cast<int64_t>(sizeof(T)), sizeof(T));
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
      if constexpr (std::is_floating_point_v<T>) {
        seen |= v == v;
      } else {
        seen = true;
      }
    }
    any |= seen;
  }
  if (!any) return;
  if constexpr (std::is_floating_point_v<T>) {
    if (lo == 0) lo = -T(0);
    if (hi == 0) hi = T(0);
  }
  *min = Bytes(lo);
  *max = Bytes(hi);
}

}  // namespace

void ComputeMinMax(const PhysicalValues& values, ValueRanges ranges, SortOrder order,
                   std::optional<std::string>* min, std::optional<std::string>* max) {
  const PhysicalType type = values.type();
  switch (order) {
    case SortOrder::kBool: {
      std::optional<bool> lo, hi;
      MinMaxOf<bool>(
          ranges, [&](int64_t j) { return values.Bool(j); }, [](bool a, bool b) { return a < b; },
          [](bool) { return false; }, &lo, &hi);
      if (lo) {
        *min = std::string(1, static_cast<char>(*lo));
        *max = std::string(1, static_cast<char>(*hi));
      }
      return;
    }
    case SortOrder::kSigned:
      if (type == PhysicalType::kInt32) return Numbers<int32_t>(values, ranges, min, max);
      return Numbers<int64_t>(values, ranges, min, max);
    case SortOrder::kUnsigned:
      if (type == PhysicalType::kInt32) return Numbers<uint32_t>(values, ranges, min, max);
      return Numbers<uint64_t>(values, ranges, min, max);
    case SortOrder::kFloat:
      if (type == PhysicalType::kFloat) return Numbers<float>(values, ranges, min, max);
      return Numbers<double>(values, ranges, min, max);
    case SortOrder::kFloat16: {
      std::optional<uint16_t> lo, hi;
      MinMaxOf<uint16_t>(
          ranges, [&](int64_t j) { return Load<uint16_t>(values.Fixed(j)); },
          [](uint16_t a, uint16_t b) { return HalfToFloat(a) < HalfToFloat(b); },
          [](uint16_t v) { return std::isnan(HalfToFloat(v)); }, &lo, &hi);
      if (!lo) return;
      if (HalfToFloat(*lo) == 0) lo = uint16_t{0x8000};
      if (HalfToFloat(*hi) == 0) hi = uint16_t{0};
      *min = Bytes(*lo);
      *max = Bytes(*hi);
      return;
    }
    case SortOrder::kBytes:
    case SortOrder::kDecimal: {
      const bool fixed = type != PhysicalType::kByteArray;
      const size_t w = static_cast<size_t>(values.width());
      auto get = [&](int64_t j) {
        return fixed ? std::string_view(reinterpret_cast<const char*>(values.Fixed(j)), w)
                     : values.Bytes(j);
      };
      std::optional<std::string_view> lo, hi;
      if (order == SortOrder::kDecimal && w > 0) {
        MinMaxOf<std::string_view>(
            ranges, get, BigEndianSignedLess, [](std::string_view) { return false; }, &lo, &hi);
      } else {
        MinMaxOf<std::string_view>(
            ranges, get, UnsignedBytesLess, [](std::string_view) { return false; }, &lo, &hi);
      }
      if (lo) {
        *min = std::string(*lo);
        *max = std::string(*hi);
      }
      return;
    }
  }
}

bool StatisticsLess(std::string_view a, std::string_view b, SortOrder order, PhysicalType type) {
  switch (order) {
    case SortOrder::kBool: return LoadedLess<uint8_t>(a, b);
    case SortOrder::kSigned:
      return type == PhysicalType::kInt32 ? LoadedLess<int32_t>(a, b) : LoadedLess<int64_t>(a, b);
    case SortOrder::kUnsigned:
      return type == PhysicalType::kInt32 ? LoadedLess<uint32_t>(a, b) : LoadedLess<uint64_t>(a, b);
    case SortOrder::kFloat:
      return type == PhysicalType::kFloat ? LoadedLess<float>(a, b) : LoadedLess<double>(a, b);
    case SortOrder::kFloat16: {
      uint16_t x = 0, y = 0;
      std::memcpy(&x, a.data(), std::min<size_t>(a.size(), 2));
      std::memcpy(&y, b.data(), std::min<size_t>(b.size(), 2));
      return HalfToFloat(x) < HalfToFloat(y);
    }
    case SortOrder::kDecimal:
      if (type != PhysicalType::kByteArray) return BigEndianSignedLess(a, b);
      return UnsignedBytesLess(a, b);
    case SortOrder::kBytes: return UnsignedBytesLess(a, b);
  }
  return false;
}

}  // namespace quiver::parquet
