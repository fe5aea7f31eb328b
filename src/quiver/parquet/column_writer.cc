#include "quiver/parquet/column_writer.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "quiver/parquet/page_compress.h"
#include "quiver/parquet/rle_hybrid.h"
#include "quiver/parquet/varint.h"

namespace quiver::parquet {

namespace {

// The sub-ranges of `ranges` that hold values [v0, v1) of their sequence;
// `starts[k]` is the number of values before ranges[k].
std::vector<Range> SliceRanges(const std::vector<Range>& ranges, const std::vector<int64_t>& starts,
                               int64_t v0, int64_t v1) {
  std::vector<Range> out;
  if (v0 >= v1) return out;
  size_t k =
      static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), v0) - starts.begin() - 1);
  for (; k < ranges.size() && starts[k] < v1; ++k) {
    const int64_t first = std::max(v0, starts[k]),
                  last = std::min(v1, starts[k] + ranges[k].length());
    if (first < last) {
      out.push_back(
          Range{ranges[k].begin + (first - starts[k]), ranges[k].begin + (last - starts[k])});
    }
  }
  return out;
}

std::string RepeatedRun(int64_t count, uint32_t value, int bit_width) {
  std::string out;
  if (count == 0) return out;
  AppendVarint(out, static_cast<uint64_t>(count) << 1);
  for (int b = 0; b < (bit_width + 7) / 8; ++b) out.push_back(static_cast<char>(value >> (8 * b)));
  return out;
}

std::string EncodeLevels(const std::vector<int16_t>& levels, int64_t begin, int64_t end,
                         int16_t max_level) {
  std::vector<uint32_t> values(levels.begin() + begin, levels.begin() + end);
  return EncodeRleHybrid(values.data(), end - begin, BitWidthOf(static_cast<uint32_t>(max_level)));
}

void AppendLength(std::string* out, size_t n) {
  const uint32_t length = static_cast<uint32_t>(n);
  out->append(reinterpret_cast<const char*>(&length), 4);
}

Status CheckPageSize(size_t size, const std::string& what) {
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Invalid(what, ": a Parquet page of ", size,
                           " bytes passes the format's 2 GiB limit (a smaller data_page_bytes "
                           "or a row this large cannot be written)");
  }
  return Status::OK();
}

// The runs of valid slots of `a`.
std::vector<Range> ValidRanges(const ArrayData& a) {
  std::vector<Range> out;
  for (int64_t j = 0; j < a.length; ++j) {
    if (!a.IsValid(j)) continue;
    if (!out.empty() && out.back().end == j) {
      ++out.back().end;
    } else {
      out.push_back(Range{j, j + 1});
    }
  }
  return out;
}

}  // namespace

Statistics FinishStatistics(std::optional<std::string> min, std::optional<std::string> max,
                            SortOrder order, int64_t null_count) {
  Statistics stats;
  stats.null_count = null_count;
  stats.min_value = std::move(min);
  stats.max_value = std::move(max);
  const bool signed_order = order == SortOrder::kSigned || order == SortOrder::kFloat ||
                            order == SortOrder::kBool || order == SortOrder::kDecimal;
  constexpr size_t kMaxStatisticsSize = 4096;  // as Arrow: larger ones are left out
  if (stats.min_value && (stats.min_value->size() > kMaxStatisticsSize ||
                          stats.max_value->size() > kMaxStatisticsSize)) {
    stats.min_value.reset();
    stats.max_value.reset();
  }
  if (signed_order) {
    stats.min = stats.min_value;
    stats.max = stats.max_value;
  }
  return stats;
}

BoundaryOrder BoundaryOrderOf(const ColumnIndex& index, SortOrder order, PhysicalType type) {
  bool ascending = true, descending = true, any = false;
  const std::string *min = nullptr, *max = nullptr;  // the last page with values
  for (size_t p = 0; p < index.null_pages.size(); ++p) {
    if (index.null_pages[p]) continue;
    any = true;
    const std::string& lo = index.min_values[p];
    const std::string& hi = index.max_values[p];
    if (min) {
      if (StatisticsLess(lo, *min, order, type) || StatisticsLess(hi, *max, order, type)) {
        ascending = false;
      }
      if (StatisticsLess(*min, lo, order, type) || StatisticsLess(*max, hi, order, type)) {
        descending = false;
      }
    }
    min = &lo;
    max = &hi;
  }
  if (!any) return BoundaryOrder::kUnordered;
  if (ascending) return BoundaryOrder::kAscending;
  return descending ? BoundaryOrder::kDescending : BoundaryOrder::kUnordered;
}

std::vector<PageSpan> CutPages(const ShreddedLeaf& leaf, const PhysicalValues& values,
                               int64_t value_bits, int64_t page_bytes) {
  std::vector<PageSpan> pages;
  const int64_t n = leaf.num_levels;
  const int64_t page_bits = std::max<int64_t>(1, page_bytes) * 8;
  const bool flat = leaf.rep.empty() && leaf.row_levels.empty() && leaf.def.empty();
  if (flat && value_bits > 0) {
    // Each row the same number of levels and values: pages by arithmetic.
    const int64_t per_row = leaf.rep_period > 0 ? leaf.rep_period : 1;
    const int64_t rows = leaf.num_rows;
    const int64_t rows_per_page =
        std::max<int64_t>(1, page_bits / std::max<int64_t>(1, value_bits * per_row));
    for (int64_t r = 0; r < rows; r += rows_per_page) {
      const int64_t count = std::min(rows_per_page, rows - r);
      PageSpan p{r * per_row, (r + count) * per_row, r * per_row, (r + count) * per_row, count, r};
      pages.push_back(p);
    }
    return pages;
  }
  // Scan the levels: a page ends at the first row start after its values
  // reach the size.
  size_t range = 0;
  int64_t slot = leaf.value_ranges.empty() ? 0 : leaf.value_ranges[0].begin;
  auto next_value_bits = [&]() -> int64_t {
    if (value_bits > 0) return value_bits;
    while (slot >= leaf.value_ranges[range].end) slot = leaf.value_ranges[++range].begin;
    return (static_cast<int64_t>(values.Bytes(slot++).size()) + 4) * 8;
  };
  PageSpan page;
  int64_t bits = 0, v = 0, row = 0;
  // Ends the current page before level `l` (value `value`) and starts the
  // next one there.
  auto cut = [&](int64_t l, int64_t value) {
    page.level_end = l;
    page.value_end = value;
    pages.push_back(page);
    page = PageSpan{l, 0, value, 0, 0, row};
    bits = 0;
  };
  if (!leaf.row_levels.empty() && leaf.def.empty() && value_bits > 0) {
    // Rows of known level counts, every level a fixed-width value.
    int64_t l = 0;
    for (const int64_t levels : leaf.row_levels) {
      if (bits >= page_bits && l > page.level_begin) cut(l, l);
      ++page.rows;
      ++row;
      bits += levels * (value_bits + 2);
      l += levels;
    }
    if (n > 0) {
      page.level_end = page.value_end = n;
      pages.push_back(page);
    }
    return pages;
  }
  int64_t next_row = 0;  // row_levels: the level the next row starts at
  for (int64_t l = 0; l < n; ++l) {
    bool row_start;
    if (leaf.rep_period > 0) {
      row_start = l % leaf.rep_period == 0;
    } else if (!leaf.row_levels.empty()) {
      row_start = l == next_row;
      if (row_start) next_row += leaf.row_levels[static_cast<size_t>(row)];
    } else {
      row_start = leaf.rep.empty() || leaf.rep[static_cast<size_t>(l)] == 0;
    }
    if (row_start) {
      if (bits >= page_bits && l > page.level_begin) cut(l, v);
      ++page.rows;
      ++row;
    }
    if (leaf.def.empty() || leaf.def[static_cast<size_t>(l)] == leaf.max_def) {
      bits += next_value_bits();
      ++v;
    }
    bits += 2;  // the levels, roughly
  }
  if (n > 0) {
    page.level_end = n;
    page.value_end = v;
    pages.push_back(page);
  }
  return pages;
}

std::string EncodeDefinitionLevels(const ShreddedLeaf& leaf, const PageSpan& page) {
  if (leaf.max_def == 0) return {};
  const int width = BitWidthOf(static_cast<uint32_t>(leaf.max_def));
  if (leaf.def.empty()) {
    return RepeatedRun(page.level_end - page.level_begin, static_cast<uint32_t>(leaf.max_def),
                       width);
  }
  return EncodeLevels(leaf.def, page.level_begin, page.level_end, leaf.max_def);
}

std::string EncodeRepetitionLevels(const ShreddedLeaf& leaf, const PageSpan& page) {
  if (leaf.max_rep == 0) return {};
  const int width = BitWidthOf(static_cast<uint32_t>(leaf.max_rep));
  if (leaf.rep_period > 0) {
    // Rows of k levels: 0, then max_rep k - 1 times. The levels of u rows,
    // u * k a multiple of 8, encode as whole groups of 8 whatever follows:
    // they are encoded once and repeated, the rows left over after them.
    const int64_t k = leaf.rep_period;
    const int64_t u = 8 / std::gcd<int64_t>(k, 8);
    auto rows_of = [&](int64_t rows) {
      std::vector<uint32_t> levels(static_cast<size_t>(k * rows),
                                   static_cast<uint32_t>(leaf.max_rep));
      for (int64_t r = 0; r < rows; ++r) levels[static_cast<size_t>(r * k)] = 0;
      return EncodeRleHybrid(levels.data(), static_cast<int64_t>(levels.size()), width);
    };
    const int64_t units = page.rows / u;
    const std::string unit = units > 0 ? rows_of(u) : std::string();
    const std::string rest = rows_of(page.rows - units * u);
    std::string out;
    out.reserve(unit.size() * static_cast<size_t>(units) + rest.size());
    for (int64_t i = 0; i < units; ++i) out += unit;
    out += rest;
    return out;
  }
  if (!leaf.row_levels.empty()) {
    const auto first = leaf.row_levels.begin() + page.row_begin;
    const int64_t levels = page.level_end - page.level_begin;
    if (levels >= 16 * page.rows) {
      // Long rows: a run of one 0 and a run of 1s each (rows of one level
      // join their 0s into one run).
      std::string out;
      int64_t zeros = 0;
      for (auto it = first; it != first + page.rows; ++it) {
        ++zeros;
        if (*it > 1) {
          out += RepeatedRun(zeros, 0, width);
          out += RepeatedRun(*it - 1, 1, width);
          zeros = 0;
        }
      }
      out += RepeatedRun(zeros, 0, width);
      return out;
    }
    std::vector<uint32_t> rep(static_cast<size_t>(levels), 1);
    size_t at = 0;
    for (auto it = first; it != first + page.rows; ++it) {
      rep[at] = 0;
      at += static_cast<size_t>(*it);
    }
    return EncodeRleHybrid(rep.data(), levels, width);
  }
  return EncodeLevels(leaf.rep, page.level_begin, page.level_end, leaf.max_rep);
}

Status WriteColumnChunk(const ArrayDataPtr& column, bool nullable, int leaf_index,
                        const LeafEncoding& encoding, const ColumnWriteSettings& settings,
                        io::OutputSink* sink, ColumnMetaData* meta, const std::string& what,
                        const ArrayDataPtr& dictionary_entries, ChunkPageIndex* page_index) {
  // The values of the whole chunk (for its dictionary and statistics); the
  // levels only where they need no memory.
  QUIVER_ASSIGN_OR_RETURN(ShreddedLeaf leaf, ShredLeaf(column, nullable, leaf_index, false));
  const std::vector<Range>& ranges = leaf.value_ranges;
  const int64_t lo = ranges.empty() ? 0 : ranges.front().begin;
  const int64_t hi = ranges.empty() ? 0 : ranges.back().end;
  QUIVER_ASSIGN_OR_RETURN(PhysicalValues values,
                          PhysicalValues::Make(leaf.values, encoding, lo, hi));
  const PhysicalType type = encoding.physical;
  meta->type = type;
  meta->codec = settings.codec;
  meta->num_values = leaf.num_levels;

  Encoding value_encoding = Encoding::kPlain;
  DictionaryEncoding dictionary;
  if (settings.byte_stream_split &&
      (type == PhysicalType::kFloat || type == PhysicalType::kDouble)) {
    value_encoding = Encoding::kByteStreamSplit;
  } else if (settings.dictionary && type != PhysicalType::kBoolean) {
    // The Arrow dictionary's entries open the page when they can fit it
    // (at least 4 bytes each, the size of a byte array's length); when
    // they do not, the page holds the values the chunk uses.
    std::optional<PhysicalValues> entries;
    std::vector<Range> entry_ranges;
    const int64_t least_entry_bytes = std::max<int64_t>(4, PhysicalWidth(encoding));
    if (dictionary_entries &&
        dictionary_entries->length <= settings.dictionary_bytes / least_entry_bytes) {
      entry_ranges = ValidRanges(*dictionary_entries);
      QUIVER_ASSIGN_OR_RETURN(entries, PhysicalValues::Make(dictionary_entries, encoding, 0,
                                                            dictionary_entries->length));
    }
    const DictionaryEntries first{entries ? &*entries : nullptr, entry_ranges};
    bool built = BuildDictionary(values, ranges, settings.dictionary_bytes, &dictionary, first);
    if (!built && entries) {
      built = BuildDictionary(values, ranges, settings.dictionary_bytes, &dictionary);
    }
    if (built) value_encoding = Encoding::kRleDictionary;
  }

  // The chunk's min and max, merged from its pages' before any is left out
  // for its size (one pass over the values makes both).
  std::optional<std::string> chunk_min, chunk_max;

  int64_t compressed_total = 0, uncompressed_total = 0;
  int64_t rows_written = 0;  // before the data page being written
  // `rows`: a data page's rows (its location then goes to the offset
  // index); -1 for the dictionary page.
  auto write_page = [&](PageHeader& header, const std::string& payload, int64_t uncompressed,
                        int64_t rows) -> Status {
    QUIVER_RETURN_NOT_OK(CheckPageSize(payload.size(), what));
    QUIVER_RETURN_NOT_OK(CheckPageSize(static_cast<size_t>(uncompressed), what));
    header.compressed_page_size = static_cast<int32_t>(payload.size());
    header.uncompressed_page_size = static_cast<int32_t>(uncompressed);
    const std::string bytes = EncodePageHeader(header);
    const int64_t offset = sink->position();
    QUIVER_RETURN_NOT_OK(sink->Write(bytes.data(), static_cast<int64_t>(bytes.size())));
    QUIVER_RETURN_NOT_OK(sink->Write(payload.data(), static_cast<int64_t>(payload.size())));
    const int64_t written = static_cast<int64_t>(bytes.size() + payload.size());
    compressed_total += written;
    uncompressed_total += static_cast<int64_t>(bytes.size()) + uncompressed;
    if (rows >= 0) {
      if (page_index) {
        QUIVER_RETURN_NOT_OK(CheckPageSize(static_cast<size_t>(written), what));
        page_index->offset_index.page_locations.push_back(
            PageLocation{offset, static_cast<int32_t>(written), rows_written});
      }
      rows_written += rows;
    }
    return Status::OK();
  };
  // A data page's statistics, for its header and the column index.
  auto page_statistics = [&](const std::vector<Range>& sub, int64_t num_levels,
                             int64_t num_values) -> std::optional<Statistics> {
    if (!settings.statistics && !page_index) return std::nullopt;
    std::optional<std::string> min, max;
    ComputeMinMax(values, sub, encoding.order, &min, &max);
    if (min) {
      if (!chunk_min || StatisticsLess(*min, *chunk_min, encoding.order, type)) chunk_min = min;
      if (!chunk_max || StatisticsLess(*chunk_max, *max, encoding.order, type)) chunk_max = max;
    }
    Statistics stats =
        FinishStatistics(std::move(min), std::move(max), encoding.order, num_levels - num_values);
    if (page_index) {
      ColumnIndex& index = page_index->column_index;
      const bool null_page = num_values == 0;
      index.null_pages.push_back(null_page);
      if (!null_page && !stats.min_value) page_index->has_column_index = false;
      index.min_values.push_back(null_page ? std::string() : stats.min_value.value_or(""));
      index.max_values.push_back(null_page ? std::string() : stats.max_value.value_or(""));
      if (!index.null_counts) index.null_counts.emplace();
      index.null_counts->push_back(*stats.null_count);
    }
    if (!settings.statistics) return std::nullopt;
    return stats;
  };
  auto compress = [&](const std::string& raw) {
    return CompressPage(settings.codec, settings.level,
                        reinterpret_cast<const uint8_t*>(raw.data()),
                        static_cast<int64_t>(raw.size()));
  };

  if (value_encoding == Encoding::kRleDictionary) {
    meta->dictionary_page_offset = sink->position();
    PageHeader header;
    header.type = PageType::kDictionaryPage;
    header.dictionary_page =
        DictionaryPageHeader{static_cast<int32_t>(dictionary.entries), Encoding::kPlain, false};
    QUIVER_ASSIGN_OR_RETURN(std::string payload, compress(dictionary.page));
    QUIVER_RETURN_NOT_OK(
        write_page(header, payload, static_cast<int64_t>(dictionary.page.size()), -1));
  }
  meta->data_page_offset = sink->position();

  const int64_t width = PhysicalWidth(encoding);
  const int64_t value_bits = type == PhysicalType::kBoolean ? 1
                             : value_encoding == Encoding::kRleDictionary
                                 ? 8 * 4  // by the values they stand for, roughly
                                 : width * 8;
  const int64_t page_value_bits =
      type == PhysicalType::kByteArray && value_encoding != Encoding::kRleDictionary ? 0
                                                                                     : value_bits;
  // The pages of `part` (the whole leaf, or a batch of its rows).
  auto write_pages = [&](const ShreddedLeaf& part) -> Status {
    const std::vector<Range>& part_ranges = part.value_ranges;
    std::vector<int64_t> part_starts(part_ranges.size());
    int64_t seen = 0;
    for (size_t k = 0; k < part_ranges.size(); ++k) {
      part_starts[k] = seen;
      seen += part_ranges[k].length();
    }
    const std::vector<PageSpan> pages =
        CutPages(part, values, page_value_bits, settings.page_bytes);
    for (const PageSpan& page : pages) {
      const std::string rep = EncodeRepetitionLevels(part, page);
      const std::string def = EncodeDefinitionLevels(part, page);
      const std::vector<Range> sub =
          SliceRanges(part_ranges, part_starts, page.value_begin, page.value_end);
      const int64_t num_values = page.value_end - page.value_begin;
      auto encode_values = [&](std::string* out) {
        switch (value_encoding) {
          case Encoding::kRleDictionary:
            EncodeDictionaryIndices(dictionary, values, sub, out);
            break;
          case Encoding::kByteStreamSplit: EncodeByteStreamSplit(values, sub, out); break;
          default: EncodePlain(values, sub, out); break;
        }
      };
      const int32_t num_levels = static_cast<int32_t>(page.level_end - page.level_begin);
      std::optional<Statistics> stats = page_statistics(sub, num_levels, num_values);
      PageHeader header;
      if (settings.page_version == 2) {
        header.type = PageType::kDataPageV2;
        DataPageHeaderV2 v2;
        v2.num_values = num_levels;
        v2.num_nulls = static_cast<int32_t>(num_levels - num_values);
        v2.num_rows = static_cast<int32_t>(page.rows);
        v2.encoding = value_encoding;
        v2.definition_levels_byte_length = static_cast<int32_t>(def.size());
        v2.repetition_levels_byte_length = static_cast<int32_t>(rep.size());
        v2.is_compressed = settings.codec != Codec::kUncompressed;
        v2.statistics = std::move(stats);
        header.data_page_v2 = v2;
        std::string encoded;
        encode_values(&encoded);
        QUIVER_ASSIGN_OR_RETURN(std::string values_out, compress(encoded));
        std::string payload;
        payload.reserve(rep.size() + def.size() + values_out.size());
        payload += rep;
        payload += def;
        payload += values_out;
        QUIVER_RETURN_NOT_OK(
            write_page(header, payload,
                       static_cast<int64_t>(rep.size() + def.size() + encoded.size()), page.rows));
      } else {
        header.type = PageType::kDataPage;
        DataPageHeader v1;
        v1.num_values = num_levels;
        v1.encoding = value_encoding;
        v1.statistics = std::move(stats);
        header.data_page = v1;
        std::string raw;
        if (part.max_rep > 0) {
          AppendLength(&raw, rep.size());
          raw += rep;
        }
        if (part.max_def > 0) {
          AppendLength(&raw, def.size());
          raw += def;
        }
        encode_values(&raw);
        const int64_t raw_size = static_cast<int64_t>(raw.size());
        if (settings.codec == Codec::kUncompressed) {
          QUIVER_RETURN_NOT_OK(write_page(header, raw, raw_size, page.rows));
        } else {
          QUIVER_ASSIGN_OR_RETURN(std::string payload, compress(raw));
          QUIVER_RETURN_NOT_OK(write_page(header, payload, raw_size, page.rows));
        }
      }
    }
    return Status::OK();
  };
  // Levels kept per batch of rows, about kBatchLevels at a time, so that a
  // column of long lists does not hold 4 bytes of levels per value at once
  // (pages end where batches do).
  constexpr int64_t kBatchLevels = int64_t{1} << 22;
  if (leaf.implicit_levels()) {
    QUIVER_RETURN_NOT_OK(write_pages(leaf));
  } else {
    const int64_t rows = column->length;
    // A column of at most a level per row (flat, or lists of one value)
    // is one batch: its levels cost no more than its rows, and a flat
    // leaf's value indices are relative to the batch, so a slice of one
    // would read the wrong values.
    const int64_t batch_rows =
        std::max<int64_t>(1, leaf.num_levels <= std::max(kBatchLevels, rows)
                                 ? rows
                                 : rows / ((leaf.num_levels + kBatchLevels - 1) / kBatchLevels));
    for (int64_t r = 0; r < rows; r += batch_rows) {
      const int64_t count = std::min(batch_rows, rows - r);
      ArrayDataPtr batch = column;
      if (count != rows) {
        QUIVER_ASSIGN_OR_RETURN(batch, Slice(column, r, count));
      }
      QUIVER_ASSIGN_OR_RETURN(ShreddedLeaf part, ShredLeaf(batch, nullable, leaf_index, true));
      QUIVER_RETURN_NOT_OK(write_pages(part));
    }
  }
  std::set<Encoding> used{
      value_encoding == Encoding::kRleDictionary ? Encoding::kPlain : value_encoding,
      Encoding::kRle};
  if (value_encoding == Encoding::kRleDictionary) used.insert(Encoding::kRleDictionary);
  meta->encodings.assign(used.begin(), used.end());
  meta->total_compressed_size = compressed_total;
  meta->total_uncompressed_size = uncompressed_total;
  if (settings.statistics) {
    meta->statistics = FinishStatistics(std::move(chunk_min), std::move(chunk_max), encoding.order,
                                        leaf.num_levels - leaf.num_values);
  }
  if (page_index) {
    page_index->column_index.boundary_order =
        BoundaryOrderOf(page_index->column_index, encoding.order, type);
  }
  return Status::OK();
}

}  // namespace quiver::parquet
