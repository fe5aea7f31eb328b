#include "quiver/parquet/column_chunk_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "quiver/internal/threads.h"
#include "quiver/parquet/page_codec.h"
#include "quiver/parquet/rle_hybrid.h"

namespace quiver::parquet {

namespace {

// The bytes of one page's levels: where they start and how many there are.
struct LevelBytes {
  const uint8_t* data = nullptr;
  int64_t size = 0;
  Encoding encoding = Encoding::kRle;
};

// Levels stored with the deprecated BIT_PACKED encoding: `width` bits per
// value, the first value in the most significant bits of the first byte.
Status DecodeMsbBitPacked(const LevelBytes& bytes, int width, int64_t count, uint32_t* out,
                          const std::string& what) {
  if (count * width > bytes.size * 8) {
    return Status::Invalid(what, ": ", count, " bit-packed levels of ", width,
                           " bits run past the page's ", bytes.size, " bytes of levels");
  }
  for (int64_t i = 0; i < count; ++i) {
    uint32_t value = 0;
    for (int b = 0; b < width; ++b) {
      const int64_t bit = i * width + b;
      value = value << 1 | ((bytes.data[bit / 8] >> (7 - bit % 8)) & 1);
    }
    out[i] = value;
  }
  return Status::OK();
}

// Reads the levels of a page one span at a time (RLE hybrid or BIT_PACKED).
Status DecodeLevels(const LevelBytes& bytes, int width, int64_t count, uint32_t* out,
                    const std::string& what) {
  if (bytes.encoding == Encoding::kBitPacked) {
    return DecodeMsbBitPacked(bytes, width, count, out, what);
  }
  RleHybridDecoder decoder(bytes.data, bytes.size, width, what);
  return decoder.Decode(out, count);
}

class ChunkReader {
 public:
  ChunkReader(const ColumnMetaData& meta, const SchemaNode& leaf, const ColumnChunkOptions& options,
              std::string what)
      : meta_(meta),
        max_def_(leaf.max_definition_level),
        max_rep_(leaf.max_repetition_level),
        // The pattern check only fits a leaf under exactly one list.
        fixed_list_size_(leaf.max_repetition_level == 1 ? options.fixed_list_size : 0),
        what_(std::move(what)) {
    options_threads_ = std::max(1, options.threads);
    page_levels_ = options.page_levels;
    first_indexed_page_ = options.first_indexed_page;
  }

  Status Init(const SchemaNode& leaf) {
    QUIVER_ASSIGN_OR_RETURN(out_.values, ColumnValues::Make(meta_.type, leaf.element->type_length));
    return Reserve();
  }

  // The pages in order. Compressed pages are decompressed ahead, several
  // at once, in windows of a few pages per thread (options.threads > 1),
  // then decoded in order; otherwise each as it comes.
  Status ReadPages(const uint8_t* data, int64_t size) {
    int64_t position = 0;
    int page = 0;
    while (out_.num_levels < meta_.num_values && position < size) {
      std::vector<Page> window;
      QUIVER_RETURN_NOT_OK(NextWindow(data, size, &position, &page, &window));
      if (window.size() > 1) QUIVER_RETURN_NOT_OK(DecompressAhead(&window));
      for (Page& p : window) {
        prepared_ = std::move(p.decompressed);
        QUIVER_RETURN_NOT_OK(ReadPage(p.header, p.data, p.where));
        prepared_.reset();
        if (out_.num_levels >= meta_.num_values) break;
      }
    }
    if (out_.num_levels != meta_.num_values) {
      return Status::Invalid(what_, ": its pages hold ", out_.num_levels,
                             " values, its metadata says ", meta_.num_values);
    }
    if (!page_levels_.empty() && (data_pages_ != page_levels_.size() || position != size)) {
      return Status::Invalid(what_, ": the offset index's pages end at byte ", size,
                             " of the run read, the pages' headers at byte ", position);
    }
    if (fixed_list_size_ > 0 && out_.all_defined && row_position_ != 0) {
      return PatternBroken(out_.num_levels, what_);
    }
    return Status::OK();
  }

  // A data page of a run the offset index named holds the rows it says: a
  // flat leaf's levels are its rows, checked here; a repeated leaf's rows
  // are counted from its repetition levels once they are read
  // (CheckIndexedRows).
  Status CheckIndexedPage(const PageHeader& header, const std::string& where) {
    const int64_t levels = header.type == PageType::kDataPage ? header.data_page->num_values
                                                              : header.data_page_v2->num_values;
    if (data_pages_ >= page_levels_.size()) {
      return Status::Invalid(where, ": a data page more than the ", page_levels_.size(),
                             " the offset index names for these rows");
    }
    const int64_t expected = page_levels_[data_pages_++];
    if (max_rep_ > 0) {
      indexed_rows_ = expected;
      return Status::OK();
    }
    if (levels != expected) return IndexedRowsDiffer(levels, expected);
    return Status::OK();
  }

  // The indexed data page being read, for errors: "<what>: data page N".
  std::string IndexedPage() const {
    return what_ + ": data page " + std::to_string(first_indexed_page_ + data_pages_ - 1);
  }

  Status IndexedRowsDiffer(int64_t rows, int64_t expected) const {
    return Status::Invalid(IndexedPage(), " holds ", rows, " rows, the offset index says ",
                           expected);
  }

  // A repeated leaf's page of an indexed run, its `count` levels read (the
  // first at chunk-wide index `first`; `position` the pattern check's place
  // before them): it starts and ends on a row boundary, as pages must where
  // an offset index exists, and holds the rows the index says.
  Status CheckIndexedRows(int64_t first, int64_t count, int64_t position) {
    int64_t rows = 0;
    if (fixed_list_size_ > 0 && out_.all_defined) {  // the pattern held: rows of k levels
      if (position != 0) return IndexedRowSplit();
      if (row_position_ != 0) {
        return Status::Invalid(IndexedPage(),
                               " ends inside a row (pages must not, where an offset index exists)");
      }
      rows = count / fixed_list_size_;
    } else {
      const int16_t* levels = out_.rep_levels.data() + first;
      if (count > 0 && levels[0] != 0) return IndexedRowSplit();
      rows = std::count(levels, levels + count, int16_t{0});
    }
    if (rows != indexed_rows_) return IndexedRowsDiffer(rows, indexed_rows_);
    indexed_rows_ = -1;
    return Status::OK();
  }

  Status IndexedRowSplit() const {
    return Status::Invalid(IndexedPage(),
                           " does not start on a row (pages must, where an offset index exists)");
  }

  ColumnChunkData Finish() {
    out_.dictionary = std::move(dictionary_);
    return std::move(out_);
  }

 private:
  // Room for the chunk's values from its metadata, bounded by what its
  // bytes could plausibly hold so that a lying count cannot reserve
  // gigabytes; appends grow past the reservation when a count was short.
  Status Reserve() {
    // The footer's uncompressed size is a claim: trusted up to 64 times the
    // bytes the chunk really has (values grow past it when it was short).
    const int64_t stored = std::min<int64_t>(meta_.total_compressed_size, int64_t{1} << 40);
    const int64_t claimed = std::clamp<int64_t>(meta_.total_uncompressed_size, 0, stored * 64);
    const int64_t plausible = claimed * 8 + (int64_t{1} << 20);
    const int64_t values = std::min(meta_.num_values, plausible);
    if (max_rep_ > 0 && fixed_list_size_ == 0) out_.rep_levels.reserve(static_cast<size_t>(values));
    ColumnValues& v = out_.values;
    if (v.type == PhysicalType::kByteArray) {
      QUIVER_RETURN_NOT_OK(v.offsets.Reserve((values + 1) * 4));
      return v.bytes.Reserve(claimed);
    }
    return v.fixed.Reserve(values * v.width);
  }

  Status ReadPage(const PageHeader& header, const uint8_t* page, const std::string& where) {
    if (!page_levels_.empty() && ((header.type == PageType::kDataPage && header.data_page) ||
                                  (header.type == PageType::kDataPageV2 && header.data_page_v2))) {
      QUIVER_RETURN_NOT_OK(CheckIndexedPage(header, where));
    }
    switch (header.type) {
      case PageType::kDictionaryPage: return ReadDictionaryPage(header, page, where);
      case PageType::kDataPage: return ReadDataPageV1(header, page, where);
      case PageType::kDataPageV2: return ReadDataPageV2(header, page, where);
      case PageType::kIndexPage:
        return Status::OK();  // never written by known writers; nothing to read
    }
    return Status::OK();
  }

  struct Page {
    PageHeader header;
    const uint8_t* data = nullptr;  // the stored page, after its header
    std::string where;
    BufferPtr decompressed;  // when decompressed ahead
  };

  // Page headers from `*position` on, one page when pages are read one at
  // a time, else until the window holds kPagesPerThread pages per thread
  // (or the values the chunk holds are reached).
  Status NextWindow(const uint8_t* data, int64_t size, int64_t* position, int* page,
                    std::vector<Page>* window) {
    constexpr int kPagesPerThread = 4;
    const bool ahead = options_threads_ > 1 && meta_.codec != Codec::kUncompressed;
    const size_t most = ahead ? static_cast<size_t>(kPagesPerThread) * options_threads_ : 1;
    int64_t levels = out_.num_levels;
    while (window->size() < most && *position < size && levels < meta_.num_values) {
      Page p;
      p.where = what_ + ", page " + std::to_string(*page);
      int64_t header_size = 0;
      QUIVER_ASSIGN_OR_RETURN(
          p.header, DecodePageHeader(data + *position, size - *position, p.where, &header_size));
      *position += header_size;
      if (p.header.compressed_page_size > size - *position) {
        return Status::Invalid(p.where, ": its ", p.header.compressed_page_size,
                               " bytes run past the column chunk's end (", size - *position,
                               " bytes left)");
      }
      p.data = data + *position;
      *position += p.header.compressed_page_size;
      ++*page;
      if (p.header.data_page) levels += p.header.data_page->num_values;
      if (p.header.data_page_v2) levels += p.header.data_page_v2->num_values;
      window->push_back(std::move(p));
    }
    return Status::OK();
  }

  // A compressed v2 page whose values section is empty both ways (a page of
  // nulls): there is nothing to decompress, and zero bytes are no valid
  // stream for most codecs.
  static bool NoValueBytes(int64_t stored, int64_t decoded) { return stored == 0 && decoded == 0; }

  // The compressed part of a page: all of a v1 or dictionary page, the
  // values of a compressed v2 page (its levels are stored as they are);
  // false when nothing is compressed.
  static bool CompressedPart(const PageHeader& h, int64_t* offset, int64_t* stored,
                             int64_t* decoded) {
    *offset = 0;
    *stored = h.compressed_page_size;
    *decoded = h.uncompressed_page_size;
    if (h.type == PageType::kDataPageV2) {
      const DataPageHeaderV2& v2 = *h.data_page_v2;
      const int64_t levels =
          int64_t{v2.repetition_levels_byte_length} + v2.definition_levels_byte_length;
      if (!v2.is_compressed || levels > *stored || levels > *decoded) return false;
      *offset = levels;
      *stored -= levels;
      *decoded -= levels;
      return !NoValueBytes(*stored, *decoded);
    }
    return h.type == PageType::kDataPage || h.type == PageType::kDictionaryPage;
  }

  // Decompresses the window's pages on threads of their own, each into a
  // buffer of its own that ReadPage then takes (prepared_).
  Status DecompressAhead(std::vector<Page>* window) {
    return internal::ParallelTasks(
        static_cast<int64_t>(window->size()), options_threads_, [&](int64_t i) -> Status {
          Page& p = (*window)[static_cast<size_t>(i)];
          int64_t offset = 0, stored = 0, decoded = 0;
          if (!CompressedPart(p.header, &offset, &stored, &decoded)) return Status::OK();
          QUIVER_ASSIGN_OR_RETURN(p.decompressed, Buffer::AllocateUninitialized(decoded));
          return DecompressPage(meta_.codec, p.data + offset, stored,
                                p.decompressed->mutable_data(), decoded, p.where);
        });
  }

  // The page's bytes decompressed into scratch memory (or the page itself
  // when it is stored uncompressed, or what DecompressAhead left).
  Result<const uint8_t*> Decompressed(const uint8_t* data, int64_t size, int64_t decoded_size,
                                      const std::string& where) {
    if (meta_.codec == Codec::kUncompressed) {
      if (size != decoded_size) {
        return Status::Invalid(where, ": an uncompressed page of ", size, " bytes says it holds ",
                               decoded_size);
      }
      return data;
    }
    if (prepared_) {
      if (prepared_->size() != decoded_size) {
        return Status::Invalid(where, ": the page decompressed to ", prepared_->size(),
                               " bytes, not ", decoded_size);
      }
      return prepared_->data();
    }
    if (!scratch_ || scratch_->size() < decoded_size) {
      QUIVER_ASSIGN_OR_RETURN(scratch_, Buffer::AllocateUninitialized(decoded_size));
    }
    QUIVER_RETURN_NOT_OK(
        DecompressPage(meta_.codec, data, size, scratch_->mutable_data(), decoded_size, where));
    return scratch_->data();
  }

  Status ReadDictionaryPage(const PageHeader& header, const uint8_t* page,
                            const std::string& where) {
    if (dictionary_) return Status::Invalid(where, ": a second dictionary page");
    if (out_.num_levels > 0) return Status::Invalid(where, ": a dictionary page after data pages");
    const DictionaryPageHeader& h = *header.dictionary_page;
    if (h.encoding != Encoding::kPlain && h.encoding != Encoding::kPlainDictionary) {
      return Status::Invalid(where, ": a dictionary page in ", EncodingName(h.encoding),
                             " (dictionaries are PLAIN)");
    }
    QUIVER_ASSIGN_OR_RETURN(
        const uint8_t* bytes,
        Decompressed(page, header.compressed_page_size, header.uncompressed_page_size, where));
    QUIVER_ASSIGN_OR_RETURN(ColumnValues dictionary,
                            ColumnValues::Make(out_.values.type, out_.values.width));
    QUIVER_RETURN_NOT_OK(DecodeValues(Encoding::kPlain, bytes, header.uncompressed_page_size,
                                      h.num_values, nullptr, &dictionary, where));
    // A dictionary page holds its values and nothing else: bytes over mean
    // they are not values of the column's type (BYTE_ARRAY values, each
    // behind a length, in a FIXED_LEN_BYTE_ARRAY column, say).
    const int64_t used = dictionary.width > 0 ? int64_t{h.num_values} * dictionary.width
                                              : int64_t{h.num_values} * 4 + dictionary.bytes.size();
    if (dictionary.type != PhysicalType::kBoolean && used != header.uncompressed_page_size) {
      return Status::Invalid(where, ": a dictionary page of ", header.uncompressed_page_size,
                             " bytes whose ", h.num_values, " PLAIN ",
                             PhysicalTypeName(dictionary.type), " values take ", used);
    }
    dictionary_ = std::make_unique<ColumnValues>(std::move(dictionary));
    return Status::OK();
  }

  // A v1 page: everything compressed together; the repetition levels, then
  // the definition levels (each with a 4-byte length in RLE), then values.
  Status ReadDataPageV1(const PageHeader& header, const uint8_t* page, const std::string& where) {
    const DataPageHeader& h = *header.data_page;
    QUIVER_ASSIGN_OR_RETURN(
        const uint8_t* bytes,
        Decompressed(page, header.compressed_page_size, header.uncompressed_page_size, where));
    int64_t left = header.uncompressed_page_size;
    LevelBytes rep, def;
    if (max_rep_ > 0) {
      QUIVER_ASSIGN_OR_RETURN(rep, V1Levels(h.repetition_level_encoding, max_rep_, h.num_values,
                                            &bytes, &left, "repetition", where));
    }
    if (max_def_ > 0) {
      QUIVER_ASSIGN_OR_RETURN(def, V1Levels(h.definition_level_encoding, max_def_, h.num_values,
                                            &bytes, &left, "definition", where));
    }
    return ReadLevelsAndValues(h.num_values, rep, def, h.encoding, bytes, left, where);
  }

  Result<LevelBytes> V1Levels(Encoding encoding, int16_t max_level, int64_t count,
                              const uint8_t** bytes, int64_t* left, const char* kind,
                              const std::string& where) {
    LevelBytes out;
    out.encoding = encoding;
    if (encoding == Encoding::kRle) {
      if (*left < 4) return Status::Invalid(where, ": the ", kind, " levels' length is cut off");
      uint32_t length = 0;
      std::memcpy(&length, *bytes, 4);  // little endian
      if (length > static_cast<uint64_t>(*left - 4)) {
        return Status::Invalid(where, ": ", length, " bytes of ", kind,
                               " levels run past the page's ", *left - 4, " bytes");
      }
      out.data = *bytes + 4;
      out.size = length;
    } else if (encoding == Encoding::kBitPacked) {
      const int64_t length = (count * BitWidthOf(static_cast<uint32_t>(max_level)) + 7) / 8;
      if (length > *left) {
        return Status::Invalid(where, ": ", length, " bytes of bit-packed ", kind,
                               " levels run past the page's ", *left, " bytes");
      }
      out.data = *bytes;
      out.size = length;
    } else {
      return Status::Invalid(where, ": ", kind, " levels in ", EncodingName(encoding),
                             " (levels are RLE or BIT_PACKED)");
    }
    const int64_t consumed = (out.data - *bytes) + out.size;
    *bytes += consumed;
    *left -= consumed;
    return out;
  }

  // A v2 page: the levels first and never compressed (their lengths in the
  // header, no length words), then the values, compressed when the header
  // says so.
  Status ReadDataPageV2(const PageHeader& header, const uint8_t* page, const std::string& where) {
    const DataPageHeaderV2& h = *header.data_page_v2;
    const int64_t levels =
        int64_t{h.repetition_levels_byte_length} + h.definition_levels_byte_length;
    if (levels > header.compressed_page_size || levels > header.uncompressed_page_size) {
      return Status::Invalid(where, ": its ", levels, " bytes of levels exceed the page's size");
    }
    if (max_def_ == 0 && h.num_nulls > 0) {
      return Status::Invalid(where, ": a page of a column that cannot be null (REQUIRED) says it ",
                             "holds ", h.num_nulls, " nulls");
    }
    LevelBytes rep{page, h.repetition_levels_byte_length, Encoding::kRle};
    LevelBytes def{page + rep.size, h.definition_levels_byte_length, Encoding::kRle};
    const uint8_t* values = page + levels;
    const int64_t stored = header.compressed_page_size - levels;
    const int64_t decoded = header.uncompressed_page_size - levels;
    if (h.is_compressed && !NoValueBytes(stored, decoded)) {
      QUIVER_ASSIGN_OR_RETURN(values, Decompressed(values, stored, decoded, where));
    } else if (stored != decoded) {
      return Status::Invalid(where, ": an uncompressed page of ", stored,
                             " bytes of values says it holds ", decoded);
    }
    return ReadLevelsAndValues(h.num_values, rep, def, h.encoding, values, decoded, where);
  }

  Status ReadLevelsAndValues(int64_t count, const LevelBytes& rep, const LevelBytes& def,
                             Encoding encoding, const uint8_t* values, int64_t size,
                             const std::string& where) {
    if (count > meta_.num_values - out_.num_levels) {
      return Status::Invalid(where, ": its ", count, " values run past the chunk's ",
                             meta_.num_values);
    }
    int64_t present = count;
    if (max_def_ > 0) {
      QUIVER_ASSIGN_OR_RETURN(present, AddDefinitionLevels(def, count, where));
    }
    const int64_t position = row_position_;
    if (max_rep_ > 0) QUIVER_RETURN_NOT_OK(AddRepetitionLevels(rep, count, where));
    if (indexed_rows_ >= 0)
      QUIVER_RETURN_NOT_OK(CheckIndexedRows(out_.num_levels, count, position));
    out_.num_levels += count;
    return DecodeValues(encoding, values, size, present, dictionary_.get(), &out_.values, where);
  }

  uint32_t* Scratch(int64_t count) {
    if (static_cast<int64_t>(levels_.size()) < count) levels_.resize(static_cast<size_t>(count));
    return levels_.data();
  }

  // Appends a page's definition levels; the count of values present.
  Result<int64_t> AddDefinitionLevels(const LevelBytes& bytes, int64_t count,
                                      const std::string& where) {
    const int width = BitWidthOf(static_cast<uint32_t>(max_def_));
    if (out_.all_defined && bytes.encoding == Encoding::kRle) {
      RleHybridDecoder decoder(bytes.data, bytes.size, width, where + ": definition levels");
      QUIVER_ASSIGN_OR_RETURN(bool all, decoder.NextAllEqual(count, max_def_));
      if (all) return count;
    }
    if (out_.all_defined) {  // the first level below the maximum: keep them all from here
      out_.all_defined = false;
      out_.def_levels.assign(static_cast<size_t>(out_.num_levels), max_def_);
      if (fixed_list_size_ > 0) RestoreRepetitionPattern();
    }
    return AppendLevels(bytes, width, count, max_def_, "definition", &out_.def_levels, where);
  }

  Status AddRepetitionLevels(const LevelBytes& bytes, int64_t count, const std::string& where) {
    const int width = BitWidthOf(static_cast<uint32_t>(max_rep_));
    if (fixed_list_size_ > 0 && out_.all_defined && bytes.encoding == Encoding::kRle) {
      return CheckRepetitionRuns(bytes, width, count, where);
    }
    if (fixed_list_size_ > 0 && out_.all_defined) {
      uint32_t* levels = Scratch(count);
      QUIVER_RETURN_NOT_OK(
          DecodeLevels(bytes, width, count, levels, where + ": repetition levels"));
      return CheckRepetitionPattern(levels, count, where);
    }
    return AppendLevels(bytes, width, count, max_rep_, "repetition", &out_.rep_levels, where)
        .status();
  }

  // Appends `count` levels to `out`, each checked against `max`, a run at
  // a time (a repeated run is one fill); the count of levels equal to max.
  Result<int64_t> AppendLevels(const LevelBytes& bytes, int width, int64_t count, int16_t max,
                               const char* kind, std::vector<int16_t>* out,
                               const std::string& where) {
    const size_t start = out->size();
    out->resize(start + static_cast<size_t>(count));
    int16_t* dest = out->data() + start;
    int64_t at_max = 0;
    auto too_high = [&](uint32_t level, int64_t i) {
      out->resize(start);
      return Status::Invalid(where, ": ", kind, " level ", level, " at value ", i,
                             " is above the column's maximum ", max);
    };
    if (bytes.encoding != Encoding::kRle) {
      uint32_t* levels = Scratch(count);
      QUIVER_RETURN_NOT_OK(
          DecodeLevels(bytes, width, count, levels, where + ": " + kind + " levels"));
      for (int64_t i = 0; i < count; ++i) {
        if (levels[i] > static_cast<uint32_t>(max)) return too_high(levels[i], i);
        at_max += levels[i] == static_cast<uint32_t>(max);
        dest[i] = static_cast<int16_t>(levels[i]);
      }
      return at_max;
    }
    Status st = ForEachRun(bytes, width, count, where, kind,
                           [&](bool repeated, uint32_t value, const uint32_t* levels, int64_t n,
                               int64_t done) -> Status {
                             if (repeated) {
                               if (value > static_cast<uint32_t>(max)) return too_high(value, done);
                               std::fill(dest + done, dest + done + n, static_cast<int16_t>(value));
                               if (value == static_cast<uint32_t>(max)) at_max += n;
                               return Status::OK();
                             }
                             for (int64_t i = 0; i < n; ++i) {
                               if (levels[i] > static_cast<uint32_t>(max)) {
                                 return too_high(levels[i], done + i);
                               }
                               at_max += levels[i] == static_cast<uint32_t>(max);
                               dest[done + i] = static_cast<int16_t>(levels[i]);
                             }
                             return Status::OK();
                           });
    if (!st.ok()) {
      out->resize(start);
      return st;
    }
    return at_max;
  }

  // Calls fn(repeated, value, levels, n, done) for the `count` levels of a
  // page's RLE hybrid runs, at most 4096 at a time: a repeated run gives
  // its value (levels unused), a bit-packed one its n levels.
  template <typename Fn>
  Status ForEachRun(const LevelBytes& bytes, int width, int64_t count, const std::string& where,
                    const char* kind, Fn&& fn) {
    RleHybridDecoder decoder(bytes.data, bytes.size, width, where + ": " + kind + " levels");
    uint32_t* scratch = Scratch(std::min<int64_t>(count, 4096));
    for (int64_t done = 0; done < count;) {
      bool repeated = false;
      uint32_t value = 0;
      QUIVER_ASSIGN_OR_RETURN(int64_t n, decoder.DecodeRun(std::min<int64_t>(count - done, 4096),
                                                           scratch, &repeated, &value));
      QUIVER_RETURN_NOT_OK(fn(repeated, value, scratch, n, done));
      done += n;
    }
    return Status::OK();
  }

  // A level that breaks the pattern at chunk-wide index `level`: a row
  // that starts before the current one holds fixed_list_size_ values, or
  // one that goes on past them.
  Status PatternBroken(int64_t level, const std::string& where) const {
    const int64_t k = fixed_list_size_;
    if (row_position_ > 0) {
      return Status::Invalid(where, ": row ", (level - row_position_) / k, " holds ", row_position_,
                             " values, not the ", k, " of its fixed-size list type");
    }
    return Status::Invalid(where, ": row ", level / k - 1, " holds more than the ", k,
                           " values of its fixed-size list type");
  }

  // Every row a list of exactly fixed_list_size_ values: levels 0, 1, ... 1.
  // `first` is the chunk-wide index of levels[0].
  Status CheckRepetitionPattern(const uint32_t* levels, int64_t count, const std::string& where,
                                int64_t first = -1) {
    if (first < 0) first = out_.num_levels;
    for (int64_t i = 0; i < count; ++i) {
      const uint32_t expected = row_position_ == 0 ? 0 : 1;
      if (levels[i] != expected) return PatternBroken(first + i, where);
      if (++row_position_ == fixed_list_size_) row_position_ = 0;
    }
    return Status::OK();
  }

  // The same check one run at a time: a repeated run of 1s continues the
  // current row (it must not reach the next row's start), a repeated run
  // of 0s is a run of one-value rows; bit-packed runs (the few values
  // around each row's start) are checked value by value.
  Status CheckRepetitionRuns(const LevelBytes& bytes, int width, int64_t count,
                             const std::string& where) {
    return ForEachRun(bytes, width, count, where, "repetition",
                      [&](bool repeated, uint32_t value, const uint32_t* levels, int64_t n,
                          int64_t done) -> Status {
                        const int64_t first = out_.num_levels + done;
                        if (!repeated) return CheckRepetitionPattern(levels, n, where, first);
                        if (value == 1) {
                          if (row_position_ == 0) return PatternBroken(first, where);
                          if (row_position_ + n > fixed_list_size_) {
                            const int64_t fits = fixed_list_size_ - row_position_;
                            row_position_ = 0;
                            return PatternBroken(first + fits, where);
                          }
                          row_position_ = (row_position_ + n) % fixed_list_size_;
                          return Status::OK();
                        }
                        if (value == 0) {
                          if (row_position_ != 0) return PatternBroken(first, where);
                          if (fixed_list_size_ > 1 && n > 1) {
                            row_position_ = 1;
                            return PatternBroken(first + 1, where);
                          }
                          row_position_ = fixed_list_size_ == 1 ? 0 : 1;
                          return Status::OK();
                        }
                        return Status::Invalid(where, ": repetition level ", value,
                                               " is above the column's maximum 1");
                      });
  }

  // The repetition levels the pattern check did not keep, for the levels
  // read so far (all of which followed the pattern).
  void RestoreRepetitionPattern() {
    out_.rep_levels.resize(static_cast<size_t>(out_.num_levels));
    for (int64_t i = 0; i < out_.num_levels; ++i) {
      out_.rep_levels[static_cast<size_t>(i)] = i % fixed_list_size_ == 0 ? 0 : 1;
    }
    fixed_list_size_ = 0;
  }

  const ColumnMetaData& meta_;
  const int16_t max_def_, max_rep_;
  int64_t fixed_list_size_;
  int64_t row_position_ = 0;  // the pattern check's place in the current row
  const std::string what_;
  ColumnChunkData out_;
  std::unique_ptr<ColumnValues> dictionary_;
  BufferPtr scratch_;                 // decompressed pages
  BufferPtr prepared_;                // the current page, decompressed ahead
  int options_threads_ = 1;           // ColumnChunkOptions::threads
  std::vector<int64_t> page_levels_;  // ColumnChunkOptions::page_levels
  size_t data_pages_ = 0;             // data pages read, when page_levels_ is given
  size_t first_indexed_page_ = 0;     // ColumnChunkOptions::first_indexed_page
  int64_t indexed_rows_ = -1;         // the rows the index gives the page being read (repeated)
  std::vector<uint32_t> levels_;      // one page's levels
};

}  // namespace

Result<ColumnChunkData> ReadColumnChunk(io::InputSource& source, const ColumnChunk& chunk,
                                        const SchemaNode& leaf, const ColumnChunkOptions& options,
                                        const std::string& what) {
  const ColumnMetaData& meta = *chunk.meta_data;
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0) {
    start = std::min(start, *meta.dictionary_page_offset);
  }
  if (meta.num_values == 0) {  // never read (ParquetFile::Open)
    return ReadColumnChunkPages(nullptr, 0, meta, leaf, options, what);
  }
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, source.ReadAt(start, meta.total_compressed_size));
  return ReadColumnChunkPages(bytes->data(), static_cast<int64_t>(bytes->size()), meta, leaf,
                              options, what);
}

Result<ColumnChunkData> ReadColumnChunkPages(const uint8_t* data, int64_t size,
                                             const ColumnMetaData& meta, const SchemaNode& leaf,
                                             const ColumnChunkOptions& options,
                                             const std::string& what) {
  ChunkReader reader(meta, leaf, options, what);
  QUIVER_RETURN_NOT_OK(reader.Init(leaf));
  if (meta.num_values == 0) return reader.Finish();
  QUIVER_RETURN_NOT_OK(reader.ReadPages(data, size));
  ColumnChunkData out = reader.Finish();
  return out;
}

namespace {

// The levels of rows [skip, skip + rows) of a leaf's levels: [*begin, *end).
Status RowLevels(const ColumnChunkData& data, const SchemaNode& leaf, int64_t fixed_list_size,
                 int64_t skip, int64_t rows, int64_t* begin, int64_t* end,
                 const std::string& what) {
  const int64_t last = skip + rows;
  if (leaf.max_repetition_level == 0) {
    *begin = skip;
    *end = last;
  } else if (data.rep_levels.empty()) {  // the fixed-size list pattern held: k levels a row
    const int64_t k = data.num_levels == 0 ? 1 : fixed_list_size;
    if (k <= 0) return Status::Invalid(what, ": list levels without repetition levels");
    *begin = skip * k;
    *end = last * k;
  } else {
    *begin = *end = -1;
    int64_t row = -1;
    for (int64_t l = 0; l < data.num_levels && *end < 0; ++l) {
      if (data.rep_levels[static_cast<size_t>(l)] != 0) continue;
      ++row;
      if (row == skip) *begin = l;
      if (row == last) *end = l;
    }
    if (*begin < 0 && row + 1 == skip) *begin = data.num_levels;  // no rows kept, at the end
    if (*end < 0 && row + 1 == last) *end = data.num_levels;
  }
  if (*begin < 0 || *end < *begin || *end > data.num_levels) {
    return Status::Invalid(what, ": the pages read hold fewer rows than the ", last,
                           " their offset index gives them");
  }
  return Status::OK();
}

}  // namespace

Result<ColumnChunkData> KeepRows(const ColumnChunkData& data, const SchemaNode& leaf,
                                 int64_t fixed_list_size, int64_t skip, int64_t rows,
                                 const std::string& what) {
  int64_t begin = 0, end = 0;
  QUIVER_RETURN_NOT_OK(RowLevels(data, leaf, fixed_list_size, skip, rows, &begin, &end, what));
  // A value for each level at the maximum definition level.
  int64_t first_value = begin, last_value = end;
  if (!data.all_defined) {
    const auto& def = data.def_levels;
    const int16_t max = leaf.max_definition_level;
    first_value = std::count(def.begin(), def.begin() + begin, max);
    last_value = first_value + std::count(def.begin() + begin, def.begin() + end, max);
  }
  const ColumnValues& from = data.values;
  if (last_value > from.count) {
    return Status::Invalid(what, ": the levels hold ", last_value, " values, the pages ",
                           from.count);
  }
  ColumnChunkData out;
  QUIVER_ASSIGN_OR_RETURN(out.values, ColumnValues::Make(from.type, from.width));
  ColumnValues& to = out.values;
  to.count = last_value - first_value;
  if (from.type == PhysicalType::kByteArray) {
    const auto* offsets = reinterpret_cast<const int32_t*>(from.offsets.data());
    const int32_t base = offsets[first_value];
    QUIVER_ASSIGN_OR_RETURN(uint8_t * rebased, to.offsets.Extend(to.count * 4));
    for (int64_t v = 0; v < to.count; ++v) {
      const int32_t next = offsets[first_value + v + 1] - base;
      std::memcpy(rebased + v * 4, &next, 4);
    }
    QUIVER_RETURN_NOT_OK(to.bytes.Append(from.bytes.data() + base, offsets[last_value] - base));
  } else {
    QUIVER_RETURN_NOT_OK(
        to.fixed.Append(from.fixed.data() + first_value * from.width, to.count * from.width));
  }
  out.num_levels = end - begin;
  out.all_defined = data.all_defined;
  if (!data.def_levels.empty()) {
    out.def_levels.assign(data.def_levels.begin() + begin, data.def_levels.begin() + end);
  }
  if (!data.rep_levels.empty()) {
    out.rep_levels.assign(data.rep_levels.begin() + begin, data.rep_levels.begin() + end);
  }
  if (data.dictionary) out.dictionary = std::make_unique<ColumnValues>(*data.dictionary);
  return out;
}

Result<int64_t> LevelsInPages(const uint8_t* data, int64_t size, const std::string& what) {
  int64_t levels = 0;
  for (int64_t position = 0, page = 0; position < size; ++page) {
    const std::string where = what + ", page " + std::to_string(page);
    int64_t header_size = 0;
    QUIVER_ASSIGN_OR_RETURN(
        PageHeader header, DecodePageHeader(data + position, size - position, where, &header_size));
    position += header_size;
    if (header.compressed_page_size > size - position) {
      return Status::Invalid(where, ": its ", header.compressed_page_size,
                             " bytes run past the pages read (", size - position, " bytes left)");
    }
    position += header.compressed_page_size;
    if (header.data_page) levels += header.data_page->num_values;
    if (header.data_page_v2) levels += header.data_page_v2->num_values;
  }
  return levels;
}

}  // namespace quiver::parquet
