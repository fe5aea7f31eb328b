#include "quiver/parquet/leaf_values.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"

namespace quiver::parquet {

namespace {

using internal::GetBit;
using internal::SetBit;

Status Unsupported(const ColumnValues& v, const DataType& type, const std::string& what) {
  return Status::NotImplemented(what, ": quiver does not read Parquet ", PhysicalTypeName(v.type),
                                " values as ", type.ToString());
}

int32_t OffsetAt(const ColumnValues& v, int64_t i) {
  int32_t out = 0;
  std::memcpy(&out, v.offsets.data() + i * 4, sizeof(out));
  return out;
}

// --- fixed-width conversions ---------------------------------------------------------

std::optional<TimeUnit> SourceUnit(const SchemaElement& e) {
  if (e.type == PhysicalType::kInt96) return TimeUnit::kNano;
  const LogicalType& l = e.logical_type;
  if (l.kind == LogicalType::kTimestamp || l.kind == LogicalType::kTime) return l.unit;
  if (l.kind != LogicalType::kNone || !e.converted_type) return std::nullopt;
  switch (*e.converted_type) {
    case 7:  // TIME_MILLIS
    case 9:  // TIMESTAMP_MILLIS
      return TimeUnit::kMilli;
    case 8:   // TIME_MICROS
    case 10:  // TIMESTAMP_MICROS
      return TimeUnit::kMicro;
    default: return std::nullopt;
  }
}

int64_t PerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

bool IsDecimal(TypeId id) {
  return id == TypeId::kDecimal32 || id == TypeId::kDecimal64 || id == TypeId::kDecimal128 ||
         id == TypeId::kDecimal256;
}

// `n` bytes of a two's complement integer (little endian when `big` is
// false) into `width` little-endian bytes: sign-extended, or narrowed when
// the bytes dropped only repeat the sign.
bool ToLittleEndian(const uint8_t* src, int64_t n, bool big, uint8_t* dst, int64_t width) {
  auto byte = [&](int64_t i) { return big ? src[n - 1 - i] : src[i]; };  // i-th least significant
  const uint8_t sign = n > 0 && (byte(n - 1) & 0x80) ? 0xff : 0x00;
  for (int64_t i = 0; i < width; ++i) dst[i] = i < n ? byte(i) : sign;
  for (int64_t i = width; i < n; ++i) {
    if (byte(i) != sign) return false;
  }
  return n <= width || (dst[width - 1] & 0x80 ? 0xff : 0x00) == sign;
}

Result<BufferPtr> Decimals(const ColumnValues& v, int64_t width, const std::string& what) {
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::MultiplyChecked(v.count, width, "decimals"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(size));
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < v.count; ++i) {
    const uint8_t* src = nullptr;
    int64_t n = 0;
    bool big = true;
    if (v.type == PhysicalType::kByteArray) {
      src = v.bytes.data() + OffsetAt(v, i);
      n = OffsetAt(v, i + 1) - OffsetAt(v, i);
    } else {
      n = v.width;
      src = v.fixed.data() + i * n;
      big = v.type == PhysicalType::kFixedLenByteArray;
    }
    if (!ToLittleEndian(src, n, big, dst + i * width, width)) {
      return Status::Invalid(what, ": decimal value ", i, " of ", n, " bytes does not fit ", width,
                             " bytes");
    }
  }
  return out;
}

// Integers rescaled from one time unit to another (or copied), into
// `width`-byte integers.
template <typename In>
Result<BufferPtr> Rescaled(const ColumnValues& v, int64_t multiply, int64_t divide, int64_t width,
                           const std::string& what) {
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::MultiplyChecked(v.count, width, "values"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(size));
  const In* in = reinterpret_cast<const In*>(v.fixed.data());
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < v.count; ++i) {
    int64_t x = static_cast<int64_t>(in[i]);
    if (__builtin_mul_overflow(x, multiply, &x)) {
      return Status::Invalid(what, ": value ", i, " (", in[i],
                             ") overflows int64 in the unit read");
    }
    if (x % divide != 0) {
      // A coarser unit than the stored one (an ARROW:schema that says
      // seconds over milliseconds) holds only whole units: never truncate.
      return Status::Invalid(what, ": value ", i, " (", in[i],
                             ") is not a whole number of the unit the Arrow schema gives");
    }
    x /= divide;
    if (width == 4) {
      if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
        return Status::Invalid(what, ": value ", i, " does not fit int32 in the unit read");
      }
      const int32_t narrow = static_cast<int32_t>(x);
      std::memcpy(dst + i * 4, &narrow, 4);
    } else {
      std::memcpy(dst + i * 8, &x, 8);
    }
  }
  return out;
}

template <typename Out>
Result<BufferPtr> Narrowed(const ColumnValues& v) {
  QUIVER_ASSIGN_OR_RETURN(
      BufferPtr out, Buffer::AllocateUninitialized(v.count * static_cast<int64_t>(sizeof(Out))));
  const int32_t* in = reinterpret_cast<const int32_t*>(v.fixed.data());
  Out* dst = reinterpret_cast<Out*>(out->mutable_data());
  for (int64_t i = 0; i < v.count; ++i) dst[i] = static_cast<Out>(in[i]);
  return out;
}

// INT96 timestamps: 8 bytes of nanoseconds within the day, then 4 bytes of
// Julian day number, little endian.
Result<BufferPtr> Int96Timestamps(const ColumnValues& v, TimeUnit unit, const std::string& what) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(v.count * 8));
  constexpr int64_t kUnixEpochJulianDay = 2440588;
  constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;
  const int64_t divide = PerSecond(TimeUnit::kNano) / PerSecond(unit);
  const uint8_t* in = v.fixed.data();
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < v.count; ++i) {
    int64_t nanos_of_day = 0;
    int32_t julian_day = 0;
    std::memcpy(&nanos_of_day, in + i * 12, 8);
    std::memcpy(&julian_day, in + i * 12 + 8, 4);
    int64_t nanos = 0;
    if (__builtin_mul_overflow(julian_day - kUnixEpochJulianDay, kNanosPerDay, &nanos) ||
        __builtin_add_overflow(nanos, nanos_of_day, &nanos)) {
      return Status::Invalid(what, ": INT96 timestamp ", i, " (Julian day ", julian_day,
                             ") overflows int64 nanoseconds");
    }
    nanos /= divide;
    std::memcpy(dst + i * 8, &nanos, 8);
  }
  return out;
}

// The values as `count` values of `type`'s width, in order.
Result<BufferPtr> CompactFixed(ColumnValues* v, const SchemaElement& e, const DataType& type,
                               const std::string& what) {
  const TypeId id = type.id();
  const int64_t width = type.byte_width();
  const PhysicalType p = v->type;
  if (IsDecimal(id)) {
    if (p == PhysicalType::kInt32 || p == PhysicalType::kInt64 ||
        p == PhysicalType::kFixedLenByteArray || p == PhysicalType::kByteArray) {
      return Decimals(*v, width, what);
    }
    return Unsupported(*v, type, what);
  }
  const std::optional<TimeUnit> unit = SourceUnit(e);
  if (p == PhysicalType::kInt96) {
    if (id != TypeId::kTimestamp) return Unsupported(*v, type, what);
    return Int96Timestamps(*v, type.time_unit(), what);
  }
  if ((id == TypeId::kTimestamp || id == TypeId::kTime32 || id == TypeId::kTime64) && unit &&
      *unit != type.time_unit() && (p == PhysicalType::kInt32 || p == PhysicalType::kInt64)) {
    const int64_t from = PerSecond(*unit), to = PerSecond(type.time_unit());
    const int64_t multiply = to > from ? to / from : 1, divide = from > to ? from / to : 1;
    if (p == PhysicalType::kInt32) return Rescaled<int32_t>(*v, multiply, divide, width, what);
    return Rescaled<int64_t>(*v, multiply, divide, width, what);
  }
  if (id == TypeId::kDate64 && p == PhysicalType::kInt32) {
    return Rescaled<int32_t>(*v, 86400000, 1, 8, what);
  }
  if (p == PhysicalType::kInt32) {
    switch (id) {
      case TypeId::kInt8: return Narrowed<int8_t>(*v);
      case TypeId::kUInt8: return Narrowed<uint8_t>(*v);
      case TypeId::kInt16: return Narrowed<int16_t>(*v);
      case TypeId::kUInt16: return Narrowed<uint16_t>(*v);
      case TypeId::kInt64: return Rescaled<int32_t>(*v, 1, 1, 8, what);
      case TypeId::kUInt64: return Rescaled<uint32_t>(*v, 1, 1, 8, what);
      case TypeId::kInt32:
      case TypeId::kUInt32:
      case TypeId::kDate32:
      case TypeId::kTime32:
      case TypeId::kIntervalYearMonth: break;
      default: return Unsupported(*v, type, what);
    }
  } else if (p == PhysicalType::kInt64) {
    switch (id) {
      case TypeId::kInt64:
      case TypeId::kUInt64:
      case TypeId::kTimestamp:
      case TypeId::kDuration:
      case TypeId::kTime64:
      case TypeId::kDate64: break;
      default: return Unsupported(*v, type, what);
    }
  } else if (p == PhysicalType::kFloat) {
    if (id != TypeId::kFloat32) return Unsupported(*v, type, what);
  } else if (p == PhysicalType::kDouble) {
    if (id != TypeId::kFloat64) return Unsupported(*v, type, what);
  } else if (p == PhysicalType::kBoolean) {
    if (id != TypeId::kInt8 && id != TypeId::kUInt8) return Unsupported(*v, type, what);
  } else if (p == PhysicalType::kFixedLenByteArray) {
    if (id != TypeId::kFixedSizeBinary && id != TypeId::kFloat16 &&
        id != TypeId::kIntervalDayTime && id != TypeId::kIntervalMonthDayNano) {
      return Unsupported(*v, type, what);
    }
  } else {
    return Unsupported(*v, type, what);
  }
  if (v->width != width) {
    return Status::Invalid(what, ": Parquet values of ", v->width, " bytes read as ",
                           type.ToString(), " (", width, " bytes)");
  }
  return v->fixed.Finish();  // the decoded memory itself: no copy
}

// --- spreading over the slots --------------------------------------------------------

// Values [0, count) of `width` bytes to the slots whose present bit is
// set, in order; a byte of eight present slots copies eight values at once.
template <int64_t kWidth>
void Spread(const uint8_t* in, int64_t count, int64_t width, const Placement& p, uint8_t* dst) {
  const int64_t w = kWidth > 0 ? kWidth : width;
  int64_t v = 0;
  for (int64_t s = 0; s < p.slots && v < count;) {
    if ((s & 7) == 0 && s + 8 <= p.slots && v + 8 <= count) {
      const uint8_t byte = p.present[s >> 3];
      if (byte == 0xff) {
        std::memcpy(dst + s * w, in + v * w, static_cast<size_t>(8 * w));
        s += 8;
        v += 8;
        continue;
      }
      if (byte == 0) {
        s += 8;
        continue;
      }
    }
    if (GetBit(p.present, s)) {
      std::memcpy(dst + s * w, in + v * w, static_cast<size_t>(w));
      ++v;
    }
    ++s;
  }
}

Result<BufferPtr> SpreadFixed(BufferPtr compact, int64_t count, int64_t width, const Placement& p) {
  if (!p.present) return compact;
  QUIVER_ASSIGN_OR_RETURN(int64_t size, internal::MultiplyChecked(p.slots, width, "values"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(size));
  const uint8_t* in = compact->data();
  uint8_t* dst = out->mutable_data();
  switch (width) {
    case 1: Spread<1>(in, count, width, p, dst); break;
    case 2: Spread<2>(in, count, width, p, dst); break;
    case 4: Spread<4>(in, count, width, p, dst); break;
    case 8: Spread<8>(in, count, width, p, dst); break;
    case 16: Spread<16>(in, count, width, p, dst); break;
    default: Spread<0>(in, count, width, p, dst); break;
  }
  return out;
}

Result<BufferPtr> PackBools(const ColumnValues& v, const Placement& p) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate((p.slots + 7) / 8));
  const uint8_t* in = v.fixed.data();
  uint8_t* bits = out->mutable_data();
  int64_t next = 0;
  for (int64_t s = 0; s < p.slots && next < v.count; ++s) {
    if (p.present && !GetBit(p.present, s)) continue;
    if (in[next++] != 0) SetBit(bits, s);
  }
  return out;
}

template <typename Offset>
Result<BufferPtr> SpreadOffsets(const ColumnValues& v, const Placement& p) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out,
                          Buffer::AllocateUninitialized((p.slots + 1) * sizeof(Offset)));
  Offset* dst = reinterpret_cast<Offset*>(out->mutable_data());
  dst[0] = 0;
  int64_t next = 0;
  for (int64_t s = 0; s < p.slots; ++s) {
    Offset end = dst[s];
    if ((!p.present || GetBit(p.present, s)) && next < v.count) {
      end = static_cast<Offset>(OffsetAt(v, next + 1));
      ++next;
    }
    dst[s + 1] = end;
  }
  return out;
}

// utf8_view / binary_view: 16 bytes per slot; values over 12 bytes point
// into the one data buffer (the decoded bytes, moved).
Result<BufferPtr> Views(const ColumnValues& v, const Placement& p) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(p.slots * 16));
  uint8_t* dst = out->mutable_data();
  const uint8_t* bytes = v.bytes.data();
  int64_t next = 0;
  for (int64_t s = 0; s < p.slots && next < v.count; ++s) {
    if (p.present && !GetBit(p.present, s)) continue;
    const int32_t begin = OffsetAt(v, next), length = OffsetAt(v, next + 1) - begin;
    ++next;
    uint8_t* view = dst + s * 16;
    std::memcpy(view, &length, 4);
    if (length <= 12) {
      if (length > 0) std::memcpy(view + 4, bytes + begin, static_cast<size_t>(length));
    } else {
      const int32_t buffer_index = 0;
      std::memcpy(view + 4, bytes + begin, 4);
      std::memcpy(view + 8, &buffer_index, 4);
      std::memcpy(view + 12, &begin, 4);
    }
  }
  return out;
}

Result<ArrayDataPtr> BinaryLeaf(ColumnValues* v, const TypePtr& type, const Placement& p,
                                std::shared_ptr<ArrayData> out) {
  switch (type->id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      BufferPtr offsets;
      if (p.present) {
        QUIVER_ASSIGN_OR_RETURN(offsets, SpreadOffsets<int32_t>(*v, p));
      } else {
        QUIVER_ASSIGN_OR_RETURN(offsets, v->offsets.Finish());
      }
      QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, v->bytes.Finish());
      out->buffers = {p.validity, std::move(offsets), std::move(bytes)};
      break;
    }
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, SpreadOffsets<int64_t>(*v, p));
      QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, v->bytes.Finish());
      out->buffers = {p.validity, std::move(offsets), std::move(bytes)};
      break;
    }
    default: {  // views
      QUIVER_ASSIGN_OR_RETURN(BufferPtr views, Views(*v, p));
      QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, v->bytes.Finish());
      out->buffers = {p.validity, std::move(views), std::move(bytes)};
      break;
    }
  }
  return ArrayDataPtr(std::move(out));
}

// Byte arrays behind offsets (int32, or int64 for the large ones).
bool IsLargeOffsets(TypeId id) { return id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary; }
bool HasOffsets(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kBinary || IsLargeOffsets(id);
}

bool IsBinaryTarget(TypeId id) {
  return HasOffsets(id) || id == TypeId::kUtf8View || id == TypeId::kBinaryView;
}

// --- dictionaries --------------------------------------------------------------------

// The bytes of value i of a fixed-width or binary array (no nulls).
class ValueBytes {
 public:
  explicit ValueBytes(const ArrayData& a)
      : id_(a.type->id()),
        width_(a.type->byte_width()),
        offsets_(HasOffsets(id_)),
        large_(IsLargeOffsets(id_)),
        o_(offsets_ ? DataOf(a, 1) : nullptr),
        base_(DataOf(a, offsets_ ? 2 : 1)) {}

  // Buffer i's bytes; null when the array has none (no values).
  static const uint8_t* DataOf(const ArrayData& a, size_t i) {
    return i < a.buffers.size() && a.buffers[i] ? a.buffers[i]->data() : nullptr;
  }

  std::string_view operator()(int64_t i) const {
    if (!offsets_) {
      return {reinterpret_cast<const char*>(base_ + i * width_), static_cast<size_t>(width_)};
    }
    int64_t begin = 0, end = 0;
    if (large_) {
      std::memcpy(&begin, o_ + i * 8, 8);
      std::memcpy(&end, o_ + (i + 1) * 8, 8);
    } else {
      int32_t b = 0, x = 0;
      std::memcpy(&b, o_ + i * 4, 4);
      std::memcpy(&x, o_ + (i + 1) * 4, 4);
      begin = b;
      end = x;
    }
    return {reinterpret_cast<const char*>(base_ + begin), static_cast<size_t>(end - begin)};
  }

 private:
  TypeId id_;
  int64_t width_;
  bool offsets_, large_;
  const uint8_t* o_;
  const uint8_t* base_;
};

// An array of `type` holding `entries` (fixed-width or binary), in order.
Result<ArrayDataPtr> ArrayOfEntries(const TypePtr& type,
                                    const std::vector<std::string_view>& entries) {
  const TypeId id = type->id();
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = static_cast<int64_t>(entries.size());
  out->null_count = 0;
  if (HasOffsets(id)) {
    const bool large = IsLargeOffsets(id);
    int64_t total = 0;
    for (std::string_view e : entries) total += static_cast<int64_t>(e.size());
    if (!large && total > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid("a dictionary of ", total, " bytes does not fit int32 offsets");
    }
    const int64_t offset_width = large ? 8 : 4;
    QUIVER_ASSIGN_OR_RETURN(BufferPtr o, Buffer::Allocate((out->length + 1) * offset_width));
    QUIVER_ASSIGN_OR_RETURN(BufferPtr d, Buffer::AllocateUninitialized(total));
    int64_t end = 0;
    for (size_t k = 0; k < entries.size(); ++k) {
      std::string_view value = entries[k];
      if (!value.empty()) std::memcpy(d->mutable_data() + end, value.data(), value.size());
      end += static_cast<int64_t>(value.size());
      if (large) {
        std::memcpy(o->mutable_data() + (k + 1) * 8, &end, 8);
      } else {
        const int32_t narrow = static_cast<int32_t>(end);
        std::memcpy(o->mutable_data() + (k + 1) * 4, &narrow, 4);
      }
    }
    out->buffers = {nullptr, std::move(o), std::move(d)};
    return ArrayDataPtr(std::move(out));
  }
  const int64_t width = type->byte_width();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr d, Buffer::AllocateUninitialized(out->length * width));
  for (size_t k = 0; k < entries.size(); ++k) {
    std::memcpy(d->mutable_data() + static_cast<int64_t>(k) * width, entries[k].data(),
                static_cast<size_t>(width));
  }
  out->buffers = {nullptr, std::move(d)};
  return ArrayDataPtr(std::move(out));
}

// Drops the entries no index points at, keeping the others' order.
void KeepUsedEntries(std::vector<std::string_view>* entries, std::vector<int64_t>* indices) {
  std::vector<int64_t> renumbered(entries->size(), -1);
  for (int64_t index : *indices) renumbered[static_cast<size_t>(index)] = 0;
  size_t kept = 0;
  for (size_t e = 0; e < entries->size(); ++e) {
    if (renumbered[e] < 0) continue;
    renumbered[e] = static_cast<int64_t>(kept);
    (*entries)[kept++] = (*entries)[e];
  }
  entries->resize(kept);
  for (int64_t& index : *indices) index = renumbered[static_cast<size_t>(index)];
}

// The dictionary is the chunk's dictionary page, entry for entry and in its
// order (unused entries and an ordered dictionary's order survive), then
// any value of a page that fell back from the dictionary and is not in it,
// in the order it first appears. Each value's index is found by its bytes,
// so a chunk read whole or in any mix of encodings gives the same indices.
Result<ArrayDataPtr> DictionaryLeaf(ColumnValues* v, ColumnValues* page, const SchemaElement& e,
                                    const TypePtr& type, const Placement& p,
                                    const std::string& what) {
  const TypePtr& value_type = type->value_type();
  const DataType& index_type = *type->index_type();
  const TypeId vid = value_type->id();
  const bool offsets = HasOffsets(vid);
  if (!offsets &&
      (value_type->byte_width() <= 0 || vid == TypeId::kDictionary || vid == TypeId::kExtension)) {
    return Status::NotImplemented(what, ": quiver builds dictionaries of fixed-width, string and ",
                                  "binary values, not of ", value_type->ToString());
  }
  Placement dense;
  dense.slots = v->count;
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr values, LeafArray(v, e, value_type, dense, what));
  ArrayDataPtr page_values;
  if (page != nullptr) {
    QUIVER_RETURN_NOT_OK(CheckValues(*page, what + " (its dictionary page)"));
    Placement all;
    all.slots = page->count;
    QUIVER_ASSIGN_OR_RETURN(page_values, LeafArray(page, e, value_type, all, what));
  }
  std::unordered_map<std::string_view, int64_t> index_of;
  std::vector<std::string_view> entries;
  if (page_values) {
    const ValueBytes entry_at(*page_values);
    entries.reserve(static_cast<size_t>(page_values->length));
    for (int64_t i = 0; i < page_values->length; ++i) {
      entries.push_back(entry_at(i));
      index_of.emplace(entries.back(), i);  // a repeated entry: its first place
    }
  }
  const int64_t count = values->length;
  const ValueBytes value_at(*values);
  std::vector<int64_t> indices(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    std::string_view value = value_at(i);
    auto [it, inserted] = index_of.emplace(value, static_cast<int64_t>(entries.size()));
    if (inserted) entries.push_back(value);
    indices[static_cast<size_t>(i)] = it->second;
  }
  const int64_t index_width = index_type.byte_width();
  const int64_t max_index =
      index_width >= 8
          ? std::numeric_limits<int64_t>::max()
          : (int64_t{1} << (index_width * 8 - (index_type.is_signed_integer() ? 1 : 0))) - 1;
  if (!entries.empty() && static_cast<int64_t>(entries.size()) - 1 > max_index) {
    // More entries than the index type counts (a page of a large Arrow
    // dictionary whose rows use few of them): the entries the values use,
    // in the page's order.
    KeepUsedEntries(&entries, &indices);
    if (static_cast<int64_t>(entries.size()) - 1 > max_index) {
      return Status::Invalid(what, ": ", entries.size(), " distinct values do not fit a ",
                             "dictionary indexed by ", index_type.ToString());
    }
  }
  ArrayDataPtr dictionary;
  {
    Result<ArrayDataPtr> built = ArrayOfEntries(value_type, entries);
    if (!built.ok()) return Status::Invalid(what, ": ", built.status().message());
    dictionary = *std::move(built);
  }
  // The indices, in the index type's width, spread over the slots.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr compact, Buffer::Allocate(count * index_width));
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t index = static_cast<uint64_t>(indices[static_cast<size_t>(i)]);
    std::memcpy(compact->mutable_data() + i * index_width, &index,
                static_cast<size_t>(index_width));  // little endian: the low bytes
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr spread, SpreadFixed(std::move(compact), count, index_width, p));
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = p.slots;
  out->null_count = p.validity ? p.null_count : 0;
  out->buffers = {p.validity, std::move(spread)};
  out->dictionary = std::move(dictionary);
  return ArrayDataPtr(std::move(out));
}

}  // namespace

// Views and decimals read the bytes the offsets point at: they are checked
// here, before anything is built.
Status CheckValues(const ColumnValues& v, const std::string& what) {
  if (v.count < 0) return Status::Invalid(what, ": a negative value count (", v.count, ")");
  if (v.type != PhysicalType::kByteArray) {
    int64_t bytes = 0;
    if (__builtin_mul_overflow(v.count, static_cast<int64_t>(v.width), &bytes) ||
        v.fixed.size() != bytes) {
      return Status::Invalid(what, ": ", v.count, " values of ", v.width, " bytes, but ",
                             v.fixed.size(), " bytes of them");
    }
    return Status::OK();
  }
  if (v.offsets.size() != (v.count + 1) * 4) {
    return Status::Invalid(what, ": ", v.count, " byte arrays, but ", v.offsets.size() / 4,
                           " offsets (one more than the values)");
  }
  int32_t previous = OffsetAt(v, 0);
  if (previous != 0) return Status::Invalid(what, ": the first byte array offset is ", previous);
  for (int64_t i = 1; i <= v.count; ++i) {
    const int32_t next = OffsetAt(v, i);
    if (next < previous) {
      return Status::Invalid(what, ": byte array offset ", i, " (", next, ") < offset ", i - 1,
                             " (", previous, ")");
    }
    previous = next;
  }
  if (previous != v.bytes.size()) {
    return Status::Invalid(what, ": the byte arrays end at ", previous, ", but ", v.bytes.size(),
                           " bytes hold them");
  }
  return Status::OK();
}

Result<ArrayDataPtr> LeafArray(ColumnValues* values, const SchemaElement& leaf, const TypePtr& type,
                               const Placement& placement, const std::string& what,
                               ColumnValues* dictionary_page) {
  QUIVER_RETURN_NOT_OK(CheckValues(*values, what));
  const DataType& t = *type;
  if (t.id() == TypeId::kExtension) {
    // The storage, then the extension type over it.
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr storage, LeafArray(values, leaf, t.storage_type(),
                                                            placement, what, dictionary_page));
    auto out = std::make_shared<ArrayData>(*storage);
    out->type = type;
    return ArrayDataPtr(std::move(out));
  }
  if (t.id() == TypeId::kDictionary) {
    return DictionaryLeaf(values, dictionary_page, leaf, type, placement, what);
  }
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = placement.slots;
  out->null_count = placement.validity ? placement.null_count : 0;
  if (t.id() == TypeId::kNull) {
    if (values->count != 0) {
      return Status::Invalid(what, ": a column of nulls (UNKNOWN) holds ", values->count,
                             " values");
    }
    out->null_count = placement.slots;
    return ArrayDataPtr(std::move(out));
  }
  if (t.id() == TypeId::kBool) {
    if (values->type != PhysicalType::kBoolean) return Unsupported(*values, t, what);
    QUIVER_ASSIGN_OR_RETURN(BufferPtr bits, PackBools(*values, placement));
    out->buffers = {placement.validity, std::move(bits)};
    return ArrayDataPtr(std::move(out));
  }
  if (IsBinaryTarget(t.id())) {
    if (values->type != PhysicalType::kByteArray) return Unsupported(*values, t, what);
    return BinaryLeaf(values, type, placement, std::move(out));
  }
  if (t.byte_width() <= 0) return Unsupported(*values, t, what);
  const int64_t count = values->count;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr compact, CompactFixed(values, leaf, t, what));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr spread,
                          SpreadFixed(std::move(compact), count, t.byte_width(), placement));
  out->buffers = {placement.validity, std::move(spread)};
  return ArrayDataPtr(std::move(out));
}

}  // namespace quiver::parquet
