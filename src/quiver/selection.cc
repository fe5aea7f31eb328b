#include "quiver/selection.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/internal/layout.h"
#include "quiver/internal/row_gather.h"
#include "quiver/record_batch.h"

namespace quiver {

namespace {

using internal::BitmapBytes;
using internal::BufferRole;
using internal::ChildRole;
using internal::CopyBits;
using internal::Layout;

// Rows [begin, begin + length) of `array`, begin relative to its offset.
// Take, filter and concatenate all reduce to joining pieces, so a random
// take of a million rows makes a million pieces, not a million arrays.
struct Piece {
  const ArrayData* array;
  int64_t begin;
  int64_t length;
};

int64_t Start(const Piece& piece) { return piece.array->offset + piece.begin; }

const uint8_t* BufferData(const ArrayData& array, int b) {
  if (static_cast<size_t>(b) >= array.buffers.size() || !array.buffers[b]) return nullptr;
  return array.buffers[b]->data();
}

// The validity bitmap of the joined pieces, or null when no row is null.
Result<BufferPtr> JoinValidity(std::span<const Piece> pieces, int64_t total, int64_t* nulls) {
  *nulls = 0;
  const bool any_bitmap = std::any_of(pieces.begin(), pieces.end(), [](const Piece& piece) {
    return BufferData(*piece.array, 0) != nullptr;
  });
  if (!any_bitmap) return BufferPtr{};
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(BitmapBytes(total)));
  uint8_t* bits = out->mutable_data();
  int64_t at = 0;
  for (const Piece& piece : pieces) {
    const uint8_t* src = BufferData(*piece.array, 0);
    if (src) {
      CopyBits(src, Start(piece), bits, at, piece.length);
    } else {
      internal::SetBits(bits, at, piece.length);
    }
    at += piece.length;
  }
  *nulls = internal::CountUnsetBits(bits, 0, total);
  if (*nulls == 0) return BufferPtr{};
  return out;
}

// Bit-packed bool values.
Result<BufferPtr> JoinBits(std::span<const Piece> pieces, int b, int64_t total) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::Allocate(BitmapBytes(total)));
  int64_t at = 0;
  for (const Piece& piece : pieces) {
    const uint8_t* src = BufferData(*piece.array, b);
    if (src) CopyBits(src, Start(piece), out->mutable_data(), at, piece.length);
    at += piece.length;
  }
  return out;
}

// Pieces up to this many are joined with one internal::CopyRanges (shared
// between threads when large); more (a take makes a piece per row) are
// copied in a loop that inlines the common sizes.
constexpr size_t kFewPieces = 4096;

Result<BufferPtr> JoinValues(std::span<const Piece> pieces, int b, int64_t width, int64_t total) {
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(total, width, "the joined values"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(bytes));
  uint8_t* dst = out->mutable_data();
  if (pieces.size() <= kFewPieces) {
    std::vector<internal::CopyRange> copies;
    copies.reserve(pieces.size());
    for (const Piece& piece : pieces) {
      const uint8_t* src = BufferData(*piece.array, b);
      const int64_t size = piece.length * width;
      if (src) {
        copies.push_back({dst, src + Start(piece) * width, size});
      } else {
        std::memset(dst, 0, static_cast<size_t>(size));  // an empty array may omit its values
      }
      dst += size;
    }
    internal::CopyRanges(copies);
    return out;
  }
  const ArrayData* array = nullptr;  // of the previous piece: most pieces share one
  const uint8_t* src = nullptr;      // its values, at its offset
  for (const Piece& piece : pieces) {
    if (piece.array != array) {
      array = piece.array;
      src = BufferData(*array, b);
      if (src) src += array->offset * width;
    }
    const size_t size = static_cast<size_t>(piece.length * width);
    if (src) {
      const uint8_t* from = src + piece.begin * width;
      // A random take makes a piece per row: small constant sizes are
      // copied inline rather than through a call to memcpy.
      switch (size) {
        case 4: std::memcpy(dst, from, 4); break;
        case 8: std::memcpy(dst, from, 8); break;
        case 16: std::memcpy(dst, from, 16); break;
        default: std::memcpy(dst, from, size);
      }
    } else {
      std::memset(dst, 0, size);  // an empty array may omit its values
    }
    dst += size;
  }
  return out;
}

// Offsets src[0..length] (of type T) of a piece re-based to start at
// `next`, into dst[0..length): one pass without a branch per row, the checks folded
// into a flag (monotonic, and the last inside `end`); false when one
// fails, for the caller to find the row. Re-based values wrap harmlessly
// when the sum overflows: the caller checks the total before using them.
template <typename T>
bool RebaseOffsets(const uint8_t* src, int64_t length, int64_t end, int64_t next, uint8_t* dst) {
  using Wide = std::make_unsigned_t<T>;
  // Loads and stores through memcpy: a buffer need not be aligned.
  auto load = [src](int64_t i) {
    T value;
    std::memcpy(&value, src + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
  };
  T previous = load(0);
  const auto shift = static_cast<Wide>(next - static_cast<int64_t>(previous));
  bool decreasing = false;
  for (int64_t i = 1; i <= length; ++i) {
    const T value = load(i);
    decreasing |= value < previous;
    previous = value;
    const auto rebased = static_cast<T>(static_cast<Wide>(value) + shift);
    std::memcpy(dst + (i - 1) * static_cast<int64_t>(sizeof(T)), &rebased, sizeof(T));
  }
  return !decreasing && previous <= end;
}

// The error of a piece whose offsets RebaseOffsets refused: the first row
// whose offsets decrease or pass `end`.
Status OffsetsError(const Piece& piece, const uint8_t* src, int64_t width, int64_t end) {
  int64_t previous = internal::ReadOffset(src, Start(piece), width);
  for (int64_t i = 1; i <= piece.length; ++i) {
    const int64_t value = internal::ReadOffset(src, Start(piece) + i, width);
    if (value < previous || value > end) {
      return Status::Invalid("row ", std::to_string(piece.begin + i - 1), ": offsets ",
                             std::to_string(previous), ", ", std::to_string(value),
                             " are not an increasing range inside 0..", std::to_string(end));
    }
    previous = value;
  }
  return Status::Invalid("row ", std::to_string(piece.begin), ": offsets out of order");
}

// Offsets of the joined pieces, re-based, and for each piece the range
// [first, last) of data bytes or child entries it covers. Every offset is
// checked: monotonic and inside `extent(piece)` (the data buffer's size or
// the child's length).
template <typename Extent>
Result<BufferPtr> JoinOffsets(std::span<const Piece> pieces, int64_t width, int64_t total,
                              Extent extent, std::vector<Piece>* ranges) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized((total + 1) * width));
  uint8_t* dst = out->mutable_data();
  const int64_t limit =
      width == 4 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  std::memset(dst, 0, static_cast<size_t>(width));  // the first offset
  int64_t next = 0;                                 // the running output offset
  int64_t slot = 1;
  for (const Piece& piece : pieces) {
    const uint8_t* src = BufferData(*piece.array, 1);
    const int64_t start = Start(piece);
    const int64_t first = src ? internal::ReadOffset(src, start, width) : 0;
    const int64_t end = extent(*piece.array);
    if (first < 0 || first > end) {
      return Status::Invalid("row ", std::to_string(piece.begin), ": offset ",
                             std::to_string(first), " lies outside 0..", std::to_string(end));
    }
    if (piece.length == 0) {
      ranges->push_back({piece.array, first, 0});
      continue;
    }
    if (!src) return Status::Invalid("row ", std::to_string(piece.begin), ": no offsets buffer");
    const bool sound =
        width == 8
            ? RebaseOffsets<int64_t>(src + start * 8, piece.length, end, next, dst + slot * 8)
            : RebaseOffsets<int32_t>(src + start * 4, piece.length, end, next, dst + slot * 4);
    if (!sound) return OffsetsError(piece, src, width, end);
    const int64_t last = internal::ReadOffset(src, start + piece.length, width);
    if (last - first > limit - next) {
      return Status::Invalid(
          "the joined rows hold more than 2^31 - 1 values or bytes, more "
          "than 32-bit offsets can address; use the large_ type");
    }
    next += last - first;
    slot += piece.length;
    ranges->push_back({piece.array, first, last - first});
  }
  return out;
}

Result<BufferPtr> JoinData(std::span<const Piece> ranges, int b) {
  int64_t bytes = 0;
  for (const Piece& range : ranges) bytes += range.length;  // bounded by the offsets' limit
  QUIVER_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateUninitialized(bytes));
  std::vector<internal::CopyRange> copies;
  copies.reserve(ranges.size());
  uint8_t* dst = out->mutable_data();
  for (const Piece& range : ranges) {
    if (range.length == 0) continue;
    copies.push_back({dst, BufferData(*range.array, b) + range.begin, range.length});
    dst += range.length;
  }
  internal::CopyRanges(copies);
  return out;
}

// Binary views: the views are copied with their buffer indices shifted past
// the variadic buffers of the arrays before them, whose buffers follow.
Status JoinViews(std::span<const Piece> pieces, int64_t total, ArrayData* out) {
  QUIVER_ASSIGN_OR_RETURN(BufferPtr views,
                          Buffer::AllocateUninitialized(total * internal::kViewBytes));
  std::vector<const ArrayData*> sources;  // distinct arrays, in first-use order
  std::vector<int32_t> shifts;
  int64_t at = 0;
  for (const Piece& piece : pieces) {
    size_t k = 0;
    while (k < sources.size() && sources[k] != piece.array) ++k;
    if (k == sources.size()) {
      const size_t variadic = piece.array->buffers.size() - 2;
      if (out->buffers.size() - 2 + variadic > static_cast<size_t>(INT32_MAX)) {
        return Status::Invalid("the joined views need more than 2^31 - 1 data buffers");
      }
      sources.push_back(piece.array);
      shifts.push_back(static_cast<int32_t>(out->buffers.size() - 2));
      out->buffers.insert(out->buffers.end(), piece.array->buffers.begin() + 2,
                          piece.array->buffers.end());
    }
    const uint8_t* src = BufferData(*piece.array, 1);
    const int64_t variadic = static_cast<int64_t>(piece.array->buffers.size()) - 2;
    for (int64_t i = 0; i < piece.length; ++i) {
      internal::BinaryView view = internal::ReadView(src, Start(piece) + i);
      uint8_t* dst = views->mutable_data() + (at + i) * internal::kViewBytes;
      std::memcpy(dst, src + (Start(piece) + i) * internal::kViewBytes, internal::kViewBytes);
      if (view.is_inline()) continue;
      const BufferPtr& data = view.buffer_index >= 0 && view.buffer_index < variadic
                                  ? piece.array->buffers[static_cast<size_t>(view.buffer_index) + 2]
                                  : BufferPtr{};
      const int64_t size = data ? data->size() : 0;
      if (view.buffer_index < 0 || view.buffer_index >= variadic || view.offset < 0 ||
          view.length > size - view.offset) {
        return Status::Invalid("row ", std::to_string(piece.begin + i), ": view of ",
                               std::to_string(view.length), " bytes at buffer ",
                               std::to_string(view.buffer_index), " offset ",
                               std::to_string(view.offset), " lies outside the data buffers");
      }
      const int32_t index = view.buffer_index + shifts[k];
      std::memcpy(dst + 8, &index, 4);
    }
    at += piece.length;
  }
  out->buffers[1] = std::move(views);
  return Status::OK();
}

Result<ArrayDataPtr> JoinPieces(const TypePtr& type, std::span<const Piece> all);

// The dictionary `joined` (made by JoinPieces: offset 0, offsets checked)
// with each repeated value kept once, as pyarrow unifies dictionaries (pandas
// refuses categories that repeat). remap[j] is entry j's place in the
// result. Values compare by their bytes: fixed-width values and (large)
// binary / utf8; dictionaries of other types, and null entries, are kept
// whole.
Result<ArrayDataPtr> UniqueValues(const ArrayDataPtr& joined, std::vector<int64_t>* remap) {
  const Layout layout = internal::LayoutOf(*joined->type);
  remap->resize(static_cast<size_t>(joined->length));
  for (size_t j = 0; j < remap->size(); ++j) (*remap)[j] = static_cast<int64_t>(j);
  const bool fixed = layout.num_buffers == 2 && layout.roles[1] == BufferRole::kValues &&
                     layout.value_bits % 8 == 0;
  const bool binary =
      layout.num_buffers == 3 && layout.has_offsets() && layout.roles[2] == BufferRole::kData;
  if ((!fixed && !binary) || layout.children != ChildRole::kNone || layout.dictionary) {
    return joined;
  }
  const int64_t width = fixed ? layout.value_bits / 8 : layout.offset_width();
  const uint8_t* offsets = BufferData(*joined, 1);
  const uint8_t* bytes = BufferData(*joined, fixed ? 1 : 2);
  const char* chars = bytes ? reinterpret_cast<const char*>(bytes) : "";
  std::unordered_map<std::string_view, int64_t> first;  // value -> its entry in the result
  std::vector<Piece> keep;
  int64_t kept = 0;
  for (int64_t j = 0; j < joined->length; ++j) {
    if (joined->IsValid(j)) {
      const int64_t begin = fixed ? j * width : internal::ReadOffset(offsets, j, width);
      const int64_t end = fixed ? begin + width : internal::ReadOffset(offsets, j + 1, width);
      auto [it, added] = first.try_emplace(
          std::string_view(chars + begin, static_cast<size_t>(end - begin)), kept);
      if (!added) {
        (*remap)[static_cast<size_t>(j)] = it->second;
        continue;
      }
    }
    if (!keep.empty() && keep.back().begin + keep.back().length == j) {
      ++keep.back().length;
    } else {
      keep.push_back({joined.get(), j, 1});
    }
    (*remap)[static_cast<size_t>(j)] = kept++;
  }
  if (kept == joined->length) return joined;
  return JoinPieces(joined->type, keep);
}

// Dictionary arrays keep one dictionary when all pieces share an equal one;
// otherwise the distinct dictionaries are joined, equal values merged
// (UniqueValues), and each piece's indices mapped into the result.
Status JoinDictionaries(std::span<const Piece> pieces, ArrayData* out) {
  std::vector<const ArrayData*> distinct;  // equal dictionaries count once
  // Per dictionary object met, the joined dictionary's start of its values
  // (compared once per object, not per piece: a take makes many pieces).
  std::vector<std::pair<const ArrayData*, int64_t>> shifts;
  int64_t joined_length = 0;
  for (const Piece& piece : pieces) {
    const ArrayData* dictionary = piece.array->dictionary.get();
    if (!dictionary) return Status::Invalid("a dictionary array has no dictionary");
    bool known = false;
    for (const auto& entry : shifts) known |= entry.first == dictionary;
    if (known) continue;
    int64_t shift = -1, start = 0;
    for (const ArrayData* other : distinct) {
      if (shift < 0 && ArrayEquals(*other, *dictionary)) shift = start;
      start += other->length;
    }
    if (shift < 0) {
      shift = joined_length;
      joined_length += dictionary->length;
      distinct.push_back(dictionary);
    }
    shifts.emplace_back(dictionary, shift);
  }
  out->dictionary = pieces.front().array->dictionary;
  if (distinct.size() <= 1) return Status::OK();

  std::vector<Piece> whole;
  for (const ArrayData* dictionary : distinct) whole.push_back({dictionary, 0, dictionary->length});
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr joined, JoinPieces(distinct.front()->type, whole));
  std::vector<int64_t> remap;  // entry of `joined` -> entry of the result's dictionary
  QUIVER_ASSIGN_OR_RETURN(out->dictionary, UniqueValues(joined, &remap));
  const DataType& index_type = *out->type->storage().index_type();
  const int64_t width = index_type.bit_width() / 8;
  const int64_t bits = index_type.is_signed_integer() ? width * 8 - 1 : width * 8;
  const int64_t most = bits >= 63 ? INT64_MAX : (int64_t{1} << bits) - 1;
  uint8_t* dst = out->buffers[1]->mutable_data();
  int64_t at = 0;
  for (const Piece& piece : pieces) {
    int64_t shift = 0;
    for (const auto& entry : shifts) {
      if (entry.first == piece.array->dictionary.get()) shift = entry.second;
    }
    for (int64_t i = 0; i < piece.length; ++i, ++at) {
      if (!out->IsValid(at)) continue;
      int64_t index = 0;
      if (!internal::ReadInteger(dst, at, index_type.id(), &index) || index < 0 ||
          index >= piece.array->dictionary->length) {
        return Status::Invalid("row ", std::to_string(piece.begin + i), ": dictionary index ",
                               std::to_string(index), " lies outside the dictionary of ",
                               std::to_string(piece.array->dictionary->length), " values");
      }
      const int64_t shifted = remap[static_cast<size_t>(index + shift)];
      if (shifted > most) {
        return Status::Invalid("the joined dictionaries hold ",
                               std::to_string(out->dictionary->length), " values, more than ",
                               index_type.ToString(), " indices address");
      }
      std::memcpy(dst + at * width, &shifted, static_cast<size_t>(width));  // little-endian
    }
  }
  return Status::OK();
}

Result<ArrayDataPtr> JoinPieces(const TypePtr& type, std::span<const Piece> all) {
  // Empty pieces (empty lists' children) are dropped: their arrays may
  // hold no offsets to read. Without any, `all` is used as it is (a take
  // of a million rows makes a million pieces: no copy of them).
  std::vector<Piece> non_empty;
  std::span<const Piece> pieces = all;
  if (std::any_of(all.begin(), all.end(), [](const Piece& piece) { return piece.length == 0; })) {
    for (const Piece& piece : all) {
      if (piece.length > 0) non_empty.push_back(piece);
    }
    pieces = non_empty;
  }
  const Layout layout = internal::LayoutOf(*type);
  if (layout.children == ChildRole::kSparseUnion || layout.children == ChildRole::kDenseUnion ||
      layout.children == ChildRole::kListView || layout.children == ChildRole::kRunEnds) {
    return Status::NotImplemented("joining rows of ", type->ToString(),
                                  " arrays (take, filter, concatenate) is not implemented");
  }
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  for (const Piece& piece : pieces) {
    QUIVER_ASSIGN_OR_RETURN(out->length,
                            internal::AddChecked(out->length, piece.length, "the joined length"));
  }
  const int64_t total = out->length;
  if (layout.num_buffers == 0) {  // the null type
    out->null_count = total;
    return ArrayDataPtr(std::move(out));
  }
  out->buffers.resize(static_cast<size_t>(layout.num_buffers));
  std::vector<Piece> ranges;  // what the offsets delimit, per piece
  if (layout.has_offsets()) ranges.reserve(pieces.size());
  for (int b = 0; b < layout.num_buffers; ++b) {
    BufferPtr& buffer = out->buffers[static_cast<size_t>(b)];
    switch (layout.roles[b]) {
      case BufferRole::kValidity: {
        QUIVER_ASSIGN_OR_RETURN(buffer, JoinValidity(pieces, total, &out->null_count));
        break;
      }
      case BufferRole::kBits: {
        QUIVER_ASSIGN_OR_RETURN(buffer, JoinBits(pieces, b, total));
        break;
      }
      case BufferRole::kValues: {
        QUIVER_ASSIGN_OR_RETURN(buffer, JoinValues(pieces, b, layout.value_bits / 8, total));
        break;
      }
      case BufferRole::kViews: {
        QUIVER_RETURN_NOT_OK(JoinViews(pieces, total, out.get()));
        break;
      }
      case BufferRole::kOffsets32:
      case BufferRole::kOffsets64: {
        const bool has_data = layout.num_buffers > 2 && layout.roles[2] == BufferRole::kData;
        auto extent = [has_data](const ArrayData& array) -> int64_t {
          if (!has_data) return array.children.empty() ? 0 : array.children[0]->length;
          return array.buffers.size() > 2 && array.buffers[2] ? array.buffers[2]->size() : 0;
        };
        QUIVER_ASSIGN_OR_RETURN(buffer,
                                JoinOffsets(pieces, layout.offset_width(), total, extent, &ranges));
        break;
      }
      case BufferRole::kData: {
        QUIVER_ASSIGN_OR_RETURN(buffer, JoinData(ranges, b));
        break;
      }
      case BufferRole::kTypeIds:
      case BufferRole::kUnionOffsets:
      case BufferRole::kViewOffsets:
      case BufferRole::kViewSizes: break;  // refused above
    }
  }
  if (layout.dictionary) {
    if (pieces.empty()) {
      // No row is joined. The source's dictionary is kept when there is a
      // source; a child below lists that are all empty has none at all (no
      // piece), and gets an empty dictionary of its value type.
      if (!all.empty()) {
        out->dictionary = all.front().array->dictionary;
      } else {
        QUIVER_ASSIGN_OR_RETURN(out->dictionary, MakeEmptyArray(type->storage().value_type()));
      }
    } else {
      QUIVER_RETURN_NOT_OK(JoinDictionaries(pieces, out.get()));
    }
  }

  const std::vector<Field>& fields = type->storage().children();
  for (size_t c = 0; c < fields.size(); ++c) {
    std::vector<Piece> child_pieces;
    child_pieces.reserve(layout.children == ChildRole::kOffsetList ? ranges.size() : pieces.size());
    if (layout.children == ChildRole::kOffsetList) {
      for (const Piece& range : ranges) {
        child_pieces.push_back({range.array->children[c].get(), range.begin, range.length});
      }
    } else {
      const int64_t per_row = layout.children == ChildRole::kFixedSizeList ? layout.list_size : 1;
      for (const Piece& piece : pieces) {
        child_pieces.push_back(
            {piece.array->children[c].get(), Start(piece) * per_row, piece.length * per_row});
      }
    }
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child, JoinPieces(fields[c].type, child_pieces));
    out->children.push_back(std::move(child));
  }
  return ArrayDataPtr(std::move(out));
}

// Rows of chunks taken as one sequence: which chunk row i lies in.
class ChunkLocator {
 public:
  explicit ChunkLocator(std::span<const ArrayDataPtr> chunks)
      : chunks_(chunks), finder_(LengthsOf(chunks)) {}
  int64_t length() const { return finder_.length(); }
  // The chunk that holds `row`, and the row's place in it (in `local`).
  // Precondition: 0 <= row < length().
  size_t Find(int64_t row, int64_t* local) const {
    const size_t c = finder_.Find(row);
    *local = row - finder_.start(c);
    return c;
  }
  Piece Row(int64_t row) const {
    int64_t local = 0;
    return {chunks_[Find(row, &local)].get(), local, 1};
  }

 private:
  static std::vector<int64_t> LengthsOf(std::span<const ArrayDataPtr> chunks) {
    std::vector<int64_t> lengths;
    lengths.reserve(chunks.size());
    for (const ArrayDataPtr& chunk : chunks) lengths.push_back(chunk->length);
    return lengths;
  }

  std::span<const ArrayDataPtr> chunks_;
  internal::ChunkFinder finder_;
};

void AppendPiece(std::vector<Piece>& pieces, const Piece& row) {
  if (!pieces.empty() && pieces.back().array == row.array &&
      pieces.back().begin + pieces.back().length == row.begin) {
    ++pieces.back().length;  // consecutive rows copy as one block
  } else {
    pieces.push_back(row);
  }
}

// One piece is a slice of its chunk (no copy); several are joined.
Result<ArrayDataPtr> Select(std::span<const ArrayDataPtr> chunks, std::span<const Piece> pieces) {
  if (pieces.empty()) return Slice(chunks[0], 0, 0);
  if (pieces.size() == 1) {
    for (const ArrayDataPtr& chunk : chunks) {
      if (chunk.get() == pieces[0].array) return Slice(chunk, pieces[0].begin, pieces[0].length);
    }
  }
  return JoinPieces(chunks[0]->type, pieces);
}

// Arrays whose rows are a fixed number of bytes in one values buffer:
// fixed-width values, directly or under fixed-size lists whose children
// have no validity bitmap (numbers, tensor cells). Take (and Filter, which
// takes the rows it keeps) gathers their rows straight from the row
// numbers, without a piece per row.
struct FlatRows {
  const uint8_t* values = nullptr;  // row 0 (the offsets applied); null: not flat
  int64_t row_bytes = 0;
};

FlatRows FlatRowsOf(const ArrayData& data) {
  const Layout layout = internal::LayoutOf(*data.type);
  if (layout.dictionary) return {};
  if (layout.children == ChildRole::kNone && layout.num_buffers == 2 &&
      layout.roles[1] == BufferRole::kValues && layout.value_bits % 8 == 0) {
    const uint8_t* values = BufferData(data, 1);
    const int64_t width = layout.value_bits / 8;
    if (!values || width == 0) return {};
    return {values + data.offset * width, width};
  }
  if (layout.children == ChildRole::kFixedSizeList && layout.list_size > 0 &&
      data.children.size() == 1 && BufferData(*data.children[0], 0) == nullptr) {
    const FlatRows cell = FlatRowsOf(*data.children[0]);
    if (!cell.values || cell.row_bytes > INT64_MAX / layout.list_size) return {};
    const int64_t row_bytes = cell.row_bytes * layout.list_size;
    if (data.offset > INT64_MAX / row_bytes) return {};
    return {cell.values + data.offset * row_bytes, row_bytes};
  }
  return {};
}

// An array of `type` (FlatRowsOf's kind) of `rows` rows over `values`,
// `validity` at the top level only.
ArrayDataPtr MakeFlat(const TypePtr& type, int64_t rows, BufferPtr validity, int64_t nulls,
                      BufferPtr values) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = rows;
  out->null_count = nulls;
  const Layout layout = internal::LayoutOf(*type);
  if (layout.children == ChildRole::kFixedSizeList) {
    out->buffers = {std::move(validity)};
    out->children = {MakeFlat(type->storage().children()[0].type, rows * layout.list_size, nullptr,
                              0, std::move(values))};
  } else {
    out->buffers = {std::move(validity), std::move(values)};
  }
  return out;
}

// The flat views of `chunks`, or an empty vector when one holding rows is
// not flat (empty chunks are never read: they may omit buffers); `width`
// receives the bytes per row.
std::vector<internal::FlatChunk> FlatChunksOf(std::span<const ArrayDataPtr> chunks,
                                              int64_t* width) {
  std::vector<internal::FlatChunk> flat;
  *width = 0;
  for (const ArrayDataPtr& chunk : chunks) {
    internal::FlatChunk view{nullptr, BufferData(*chunk, 0), chunk->offset, chunk->length};
    if (chunk->length > 0) {
      const FlatRows rows = FlatRowsOf(*chunk);
      if (!rows.values) return {};
      view.values = rows.values;
      *width = rows.row_bytes;
    }
    flat.push_back(view);
  }
  return flat;
}

bool AnyValidity(std::span<const internal::FlatChunk> chunks) {
  return std::any_of(chunks.begin(), chunks.end(),
                     [](const internal::FlatChunk& chunk) { return chunk.validity != nullptr; });
}

// `index` at `position` lies outside the `rows` rows.
Status IndexOutOfRange(int64_t index, int64_t position, int64_t rows) {
  return Status::IndexError("index ", std::to_string(index), " at position ",
                            std::to_string(position), " is out of range for ", std::to_string(rows),
                            " rows");
}

// The array of `count` rows that fill(values, validity) writes, for flat
// chunks: the validity bitmap is dropped when no row is null.
template <typename Fill>
Result<ArrayDataPtr> MakeGathered(const TypePtr& type, int64_t count, int64_t width,
                                  bool any_validity, Fill fill) {
  QUIVER_ASSIGN_OR_RETURN(int64_t bytes,
                          internal::MultiplyChecked(count, width, "the gathered values"));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateUninitialized(bytes));
  BufferPtr validity;
  if (any_validity) {
    QUIVER_ASSIGN_OR_RETURN(validity, Buffer::Allocate(BitmapBytes(count)));
  }
  uint8_t* bits = validity ? validity->mutable_data() : nullptr;
  QUIVER_RETURN_NOT_OK(fill(values->mutable_data(), bits));
  const int64_t nulls = bits ? internal::CountUnsetBits(bits, 0, count) : 0;
  if (nulls == 0) validity.reset();
  return MakeFlat(type, count, std::move(validity), nulls, std::move(values));
}

// The rows `rows` names of flat chunks (each checked to be in range as it
// is read), or null when a chunk is not flat.
Result<ArrayDataPtr> GatherFlat(std::span<const ArrayDataPtr> chunks,
                                std::span<const int64_t> rows) {
  int64_t width = 0;
  const std::vector<internal::FlatChunk> flat = FlatChunksOf(chunks, &width);
  if (flat.empty()) return ArrayDataPtr{};
  const bool any_validity = AnyValidity(flat);
  return MakeGathered(chunks[0]->type, static_cast<int64_t>(rows.size()), width, any_validity,
                      [&](uint8_t* values, uint8_t* bits) {
                        const int64_t bad = internal::GatherRows(flat, width, rows, values, bits);
                        if (bad < 0) return Status::OK();
                        int64_t length = 0;
                        for (const internal::FlatChunk& chunk : flat) length += chunk.length;
                        return IndexOutOfRange(rows[static_cast<size_t>(bad)], bad, length);
                      });
}

internal::MaskWords WordsOf(const RowMask& mask) {
  return {mask.words().data(), mask.length(), mask.kept()};
}

// The rows a mask keeps of flat chunks; null when a chunk is not flat.
Result<ArrayDataPtr> FilterFlat(std::span<const ArrayDataPtr> chunks, const RowMask& mask) {
  int64_t width = 0;
  const std::vector<internal::FlatChunk> flat = FlatChunksOf(chunks, &width);
  if (flat.empty()) return ArrayDataPtr{};
  const bool any_validity = AnyValidity(flat);
  return MakeGathered(chunks[0]->type, mask.kept(), width, any_validity,
                      [&](uint8_t* values, uint8_t* bits) {
                        internal::FilterRows(flat, width, WordsOf(mask), values, bits);
                        return Status::OK();
                      });
}

// Rows of binary / utf8 chunks (32- or 64-bit offsets), gathered as
// GatherFlat gathers (null for other types): the offsets first, each row's
// checked against its data buffer as it is read (once), then the bytes.
Result<ArrayDataPtr> GatherBinary(std::span<const ArrayDataPtr> chunks,
                                  std::span<const int64_t> rows) {
  const auto count = static_cast<int64_t>(rows.size());
  const Layout layout = internal::LayoutOf(*chunks[0]->type);
  if (layout.dictionary || layout.children != ChildRole::kNone || layout.num_buffers != 3 ||
      !layout.has_offsets() || layout.roles[2] != BufferRole::kData) {
    return ArrayDataPtr{};
  }
  bool any_validity = false;
  for (const ArrayDataPtr& chunk : chunks) {
    if (chunk->length == 0) continue;  // never read
    if (!BufferData(*chunk, 1)) return ArrayDataPtr{};
    any_validity |= BufferData(*chunk, 0) != nullptr;
  }
  const int64_t width = layout.offset_width();
  const int64_t limit = width == 4 ? INT32_MAX : INT64_MAX;
  QUIVER_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::AllocateUninitialized((count + 1) * width));
  BufferPtr validity;
  if (any_validity) {
    QUIVER_ASSIGN_OR_RETURN(validity, Buffer::Allocate(BitmapBytes(count)));
  }
  Status status;
  uint8_t* out = offsets->mutable_data();
  uint8_t* bits = validity ? validity->mutable_data() : nullptr;
  auto write = [&](int64_t slot, int64_t value) {
    if (width == 8) {
      std::memcpy(out + slot * 8, &value, 8);
    } else {
      const int32_t narrow = static_cast<int32_t>(value);
      std::memcpy(out + slot * 4, &narrow, 4);
    }
  };
  // Where row `local` of chunk `c` lies in its data buffer; an error if
  // outside it (`status` set, false returned: no Status made per row).
  auto range = [&](const ArrayData& chunk, int64_t local, int64_t* begin, int64_t* end) {
    const uint8_t* src = BufferData(chunk, 1) + (chunk.offset + local) * width;
    if (width == 8) {
      std::memcpy(begin, src, 8);
      std::memcpy(end, src + 8, 8);
    } else {  // inline, not internal::ReadOffset: this runs once per row
      int32_t pair[2];
      std::memcpy(pair, src, 8);
      *begin = pair[0], *end = pair[1];
    }
    const int64_t size = chunk.buffers[2] ? chunk.buffers[2]->size() : 0;
    if (*begin < 0 || *begin > *end || *end > size) {
      status = Status::Invalid("row ", std::to_string(local), ": offsets ", std::to_string(*begin),
                               ", ", std::to_string(*end),
                               " are not an increasing range inside 0..", std::to_string(size));
      return false;
    }
    return true;
  };
  auto read = [&](int64_t slot) { return internal::ReadOffset(out, slot, width); };
  std::vector<const uint8_t*> sources(static_cast<size_t>(count));  // each row's first byte
  ChunkLocator locator(chunks);
  int64_t j = 0, total = 0;
  write(0, 0);
  for (const int64_t row : rows) {
    if (row < 0 || row >= locator.length()) return IndexOutOfRange(row, j, locator.length());
    int64_t local = 0, begin = 0, end = 0;
    const ArrayData& chunk = *chunks[locator.Find(row, &local)];
    if (!range(chunk, local, &begin, &end)) return status;
    if (end - begin > limit - total) {
      return Status::Invalid(
          "the joined rows hold more than 2^31 - 1 bytes, more than 32-bit offsets can "
          "address; use the large_ type");
    }
    total += end - begin;
    sources[static_cast<size_t>(j)] = end > begin ? BufferData(chunk, 2) + begin : nullptr;
    write(++j, total);
    const uint8_t* valid = BufferData(chunk, 0);
    if (bits && (!valid || internal::GetBit(valid, chunk.offset + local))) {
      internal::SetBit(bits, j - 1);
    }
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, Buffer::AllocateUninitialized(total));
  uint8_t* dst = data->mutable_data();
  for (int64_t k = 0; k < count; ++k) {  // the bytes pass 1 checked, in order
    const int64_t begin = read(k), size = read(k + 1) - begin;
    if (size > 0) {
      std::memcpy(dst + begin, sources[static_cast<size_t>(k)], static_cast<size_t>(size));
    }
  }
  const int64_t nulls = bits ? internal::CountUnsetBits(bits, 0, count) : 0;
  if (nulls == 0) validity.reset();
  auto result = std::make_shared<ArrayData>();
  result->type = chunks[0]->type;
  result->length = count;
  result->null_count = nulls;
  result->buffers = {std::move(validity), std::move(offsets), std::move(data)};
  return ArrayDataPtr(std::move(result));
}

// The rows `rows` names, gathered without a piece per row when the chunks
// are flat (GatherFlat) or binary (GatherBinary); null otherwise.
Result<ArrayDataPtr> Gather(std::span<const ArrayDataPtr> chunks, std::span<const int64_t> rows) {
  QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr flat, GatherFlat(chunks, rows));
  if (flat) return flat;
  return GatherBinary(chunks, rows);
}

Status CheckChunks(std::span<const ArrayDataPtr> chunks) {
  if (chunks.empty()) return Status::Invalid("selecting rows needs at least one chunk");
  for (size_t i = 1; i < chunks.size(); ++i) {
    if (!chunks[i]->type->Equals(*chunks[0]->type)) {
      return Status::TypeError("chunk ", std::to_string(i), " is ", chunks[i]->type->ToString(),
                               ", chunk 0 is ", chunks[0]->type->ToString());
    }
  }
  return Status::OK();
}

}  // namespace

std::vector<int64_t> MarkedRows(std::span<const uint8_t> mask) {
  return MarkedRows(RowMask::FromBytes(mask));
}

std::vector<int64_t> MarkedRows(const RowMask& mask) {
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(mask.kept()));
  const std::span<const uint64_t> words = mask.words();
  for (size_t w = 0; w < words.size(); ++w) {
    for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
      rows.push_back(static_cast<int64_t>(w) * 64 + __builtin_ctzll(bits));
    }
  }
  return rows;
}

Result<ArrayDataPtr> MakeEmptyArray(const TypePtr& type) {
  if (!type) return Status::Invalid("an empty array needs a type");
  QUIVER_RETURN_NOT_OK(CheckNestingDepth(*type));
  const Layout layout = internal::LayoutOf(*type);
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->null_count = 0;
  out->buffers.resize(static_cast<size_t>(layout.num_buffers));
  for (int b = 1; b < layout.num_buffers; ++b) {
    // One zero offset; no bytes for everything else.
    const int64_t size = internal::Layout::IsOffsets(layout.roles[b]) ? layout.offset_width() : 0;
    QUIVER_ASSIGN_OR_RETURN(out->buffers[static_cast<size_t>(b)], Buffer::Allocate(size));
  }
  for (const Field& field : type->storage().children()) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr child, MakeEmptyArray(field.type));
    out->children.push_back(std::move(child));
  }
  if (layout.dictionary) {
    QUIVER_ASSIGN_OR_RETURN(out->dictionary, MakeEmptyArray(type->storage().value_type()));
  }
  return ArrayDataPtr(std::move(out));
}

Result<ArrayDataPtr> Concatenate(std::span<const ArrayDataPtr> arrays) {
  if (arrays.empty()) return Status::Invalid("concatenate needs at least one array");
  const TypePtr& type = arrays[0]->type;
  std::vector<Piece> pieces;
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i]->type->Equals(*type)) {
      return Status::TypeError("array ", std::to_string(i), " is ", arrays[i]->type->ToString(),
                               ", array 0 is ", type->ToString());
    }
    if (arrays[i]->length > 0) pieces.push_back({arrays[i].get(), 0, arrays[i]->length});
  }
  if (arrays.size() == 1) return arrays[0];
  if (pieces.empty()) return Slice(arrays[0], 0, 0);
  return JoinPieces(type, pieces);
}

namespace {

// Take of `chunks`, or with `copy` TakeCopy (which never slices).
Result<ArrayDataPtr> TakeRows(std::span<const ArrayDataPtr> chunks,
                              std::span<const int64_t> indices, bool copy) {
  QUIVER_RETURN_NOT_OK(CheckChunks(chunks));
  ChunkLocator locator(chunks);
  const auto count = static_cast<int64_t>(indices.size());
  // Consecutive rows in range: a zero-copy slice if of one chunk.
  bool one_run = !copy && count > 0 && indices[0] >= 0 && indices[0] <= locator.length() - count &&
                 indices.back() == indices[0] + count - 1;
  for (int64_t j = 1; one_run && j < count; ++j) one_run = indices[j] == indices[0] + j;
  if (!one_run && count > 0) {
    // Flat and binary rows are checked as the gather reads them.
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr gathered, Gather(chunks, indices));
    if (gathered) return gathered;
  }
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = indices[static_cast<size_t>(j)];
    if (i < 0 || i >= locator.length()) return IndexOutOfRange(i, j, locator.length());
  }
  if (copy && count == 0) return MakeEmptyArray(chunks[0]->type);
  std::vector<Piece> pieces;
  for (int64_t i : indices) AppendPiece(pieces, locator.Row(i));
  if (copy) return JoinPieces(chunks[0]->type, pieces);
  return Select(chunks, pieces);
}

}  // namespace

Result<ArrayDataPtr> Take(std::span<const ArrayDataPtr> chunks, std::span<const int64_t> indices) {
  return TakeRows(chunks, indices, /*copy=*/false);
}

Result<ArrayDataPtr> TakeCopy(const ArrayDataPtr& data, std::span<const int64_t> indices) {
  return TakeRows(std::span<const ArrayDataPtr>(&data, 1), indices, /*copy=*/true);
}

Result<ArrayDataPtr> Filter(std::span<const ArrayDataPtr> chunks, std::span<const uint8_t> mask) {
  return Filter(chunks, RowMask::FromBytes(mask));
}

Result<ArrayDataPtr> Filter(std::span<const ArrayDataPtr> chunks, const RowMask& mask) {
  QUIVER_RETURN_NOT_OK(CheckChunks(chunks));
  int64_t rows = 0;
  for (const ArrayDataPtr& chunk : chunks) rows += chunk->length;
  if (mask.length() != rows) {
    return Status::Invalid("filter mask has ", std::to_string(mask.length()), " entries for ",
                           std::to_string(rows), " rows");
  }
  // One run of rows (or none) is a slice where it lies in one chunk: not
  // copied. Else flat rows are copied by the mask; other rows go as a
  // piece per run, split at chunk boundaries, or, where there are many
  // short runs, as Take takes them.
  const internal::MarkedRuns one = internal::FindMarkedRuns(WordsOf(mask), 1);
  if (!one.complete) {
    QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr flat, FilterFlat(chunks, mask));
    if (flat) return flat;
  }
  const internal::MarkedRuns runs =
      one.complete ? one
                   : internal::FindMarkedRuns(WordsOf(mask), static_cast<size_t>(rows / 64 + 16));
  if (!runs.complete) return Take(chunks, MarkedRows(mask));
  const ChunkLocator locator(chunks);
  std::vector<Piece> pieces;
  for (internal::RowRun run : runs.runs) {
    while (run.length > 0) {
      Piece piece = locator.Row(run.begin);
      piece.length = std::min(run.length, piece.array->length - piece.begin);
      pieces.push_back(piece);
      run.begin += piece.length;
      run.length -= piece.length;
    }
  }
  return Select(chunks, pieces);
}

Result<ArrayDataPtr> Take(const ArrayDataPtr& data, std::span<const int64_t> indices) {
  return Take(std::span<const ArrayDataPtr>(&data, 1), indices);
}

Result<ArrayDataPtr> Filter(const ArrayDataPtr& data, std::span<const uint8_t> mask) {
  return Filter(std::span<const ArrayDataPtr>(&data, 1), mask);
}

Result<ArrayDataPtr> Filter(const ArrayDataPtr& data, const RowMask& mask) {
  return Filter(std::span<const ArrayDataPtr>(&data, 1), mask);
}

}  // namespace quiver
