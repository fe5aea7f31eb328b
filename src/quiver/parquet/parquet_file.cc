// ParquetFile: the footer read and checked against itself, the schema
// mapped to Arrow types, and the metadata as quiver/parquet.h shows it.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <utility>

#include "quiver/internal/threads.h"
#include "quiver/parquet.h"
#include "quiver/parquet/assemble.h"
#include "quiver/parquet/column_chunk_reader.h"
#include "quiver/parquet/file_footer.h"
#include "quiver/parquet/page_codec.h"
#include "quiver/parquet/schema.h"

namespace quiver::parquet {

namespace {

// The leaves under `node` (itself, when it is one) in column order, each
// with its path below the root.
void CollectLeaves(const SchemaNode& node, std::vector<std::string>* path,
                   std::vector<std::pair<const SchemaNode*, std::vector<std::string>>>* out) {
  path->push_back(node.element->name);
  if (node.is_leaf()) {
    out->emplace_back(&node, *path);
  } else {
    for (const SchemaNode& child : node.children) CollectLeaves(child, path, out);
  }
  path->pop_back();
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ".") + part;
  return out;
}

ColumnChunkInfo InfoOf(const ColumnChunk& chunk) {
  const ColumnMetaData& m = *chunk.meta_data;
  ColumnChunkInfo info;
  info.path = m.path_in_schema;
  info.physical_type = PhysicalTypeName(m.type);
  info.codec = CodecName(m.codec);
  for (Encoding e : m.encodings) info.encodings.push_back(EncodingName(e));
  info.num_values = m.num_values;
  info.compressed_size = m.total_compressed_size;
  info.uncompressed_size = m.total_uncompressed_size;
  info.data_page_offset = m.data_page_offset;
  info.dictionary_page_offset = m.dictionary_page_offset;
  if (m.statistics) {
    const Statistics& s = *m.statistics;
    ColumnStatistics out;
    // The current fields first; the deprecated ones (signed order) only
    // where a writer left nothing else.
    out.min = s.min_value ? s.min_value : s.min;
    out.max = s.max_value ? s.max_value : s.max;
    out.null_count = s.null_count;
    out.distinct_count = s.distinct_count;
    out.nan_count = s.nan_count;
    info.statistics = std::move(out);
  }
  info.has_offset_index = chunk.offset_index_offset.has_value();
  info.has_column_index = chunk.column_index_offset.has_value();
  info.has_page_index = info.has_offset_index;
  return info;
}

// The checks a reader of column chunks relies on, for column `c` of row
// group `g`: metadata present, in this file, of the leaf's physical type
// and path, its bytes between the leading magic and the footer.
Status CheckChunk(const ColumnChunk& chunk, const SchemaNode& leaf,
                  const std::vector<std::string>& path, int64_t data_end, size_t g, size_t c,
                  const std::string& name) {
  const std::string where = name + ": column chunk " + std::to_string(c) + " (" + Joined(path) +
                            ") of row group " + std::to_string(g);
  if (chunk.encrypted) {
    return Status::NotImplemented(where, " is encrypted, which quiver does not read");
  }
  if (!chunk.file_path.empty()) {
    return Status::NotImplemented(where, " lies in another file ('", chunk.file_path,
                                  "'), which quiver does not read");
  }
  if (!chunk.meta_data) return Status::Invalid(where, " has no column metadata");
  const ColumnMetaData& m = *chunk.meta_data;
  if (m.type != *leaf.element->type) {
    return Status::Invalid(where, " is ", PhysicalTypeName(m.type), ", the schema says ",
                           PhysicalTypeName(*leaf.element->type));
  }
  if (m.path_in_schema != path) {
    return Status::Invalid(where, " names the path ", Joined(m.path_in_schema));
  }
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
    start = std::min(start, *m.dictionary_page_offset);
  }
  // A chunk of no values is never read, wherever its offsets point (a
  // writer may leave the data page offset 0 beside a dictionary page).
  if (m.num_values == 0) return Status::OK();
  if (start < 4 || m.total_compressed_size > data_end - start) {
    return Status::Invalid(where, ": its ", m.total_compressed_size, " bytes at offset ", start,
                           " lie outside the file's data (bytes 4 to ", data_end, ")");
  }
  return Status::OK();
}

// The leaves of a top-level field: [first, first + count) in column order.
struct LeafRange {
  int first = 0, count = 0;
};

// The list size the column chunk reader can check repetition levels
// against instead of keeping them: a fixed-size list (or an extension
// type over one, such as arrow.fixed_shape_tensor) of a non-nested value
// type, whose leaf sits under that one list. 0 otherwise.
int64_t FixedListSize(const DataType& type, const SchemaNode& node) {
  const DataType* t = &type;
  if (t->id() == TypeId::kExtension) t = t->storage_type().get();
  if (t->id() != TypeId::kFixedSizeList || t->fixed_size() <= 0) return 0;
  const DataType& value = *t->children()[0].type;
  if (!value.children().empty() || value.id() == TypeId::kExtension) return 0;
  const SchemaNode* leaf = &node;
  while (!leaf->is_leaf()) {
    if (leaf->children.size() != 1) return 0;
    leaf = &leaf->children[0];
  }
  return leaf->max_repetition_level == 1 ? t->fixed_size() : 0;
}

}  // namespace

struct ParquetFile::Impl {
  std::shared_ptr<io::InputSource> source;
  FileFooter footer;
  SchemaNode root;
  std::vector<LeafRange> field_leaves;    // per top-level field
  std::vector<const SchemaNode*> leaves;  // in column order
  std::string name;
  SchemaPtr schema;
  std::vector<RowGroupInfo> row_groups;
  std::vector<std::string> column_paths;
  // Each column chunk's offset index once read and checked (row group
  // major; null until then): reads of row ranges consult it on every call.
  // Installed with a compare-and-swap, not under a lock, so that a process
  // forked while another thread reads finds no lock held.
  std::unique_ptr<std::atomic<const OffsetIndex*>[]> offset_indexes;

  // The slot of a chunk's kept offset index (in range: checked by callers).
  std::atomic<const OffsetIndex*>& CachedOffsetIndex(int row_group, int column) const {
    return offset_indexes[static_cast<size_t>(row_group) * leaves.size() +
                          static_cast<size_t>(column)];
  }

  ~Impl() {
    if (!offset_indexes) return;
    const size_t chunks = row_groups.size() * leaves.size();
    for (size_t i = 0; i < chunks; ++i) delete offset_indexes[i].load();
  }
};

ParquetFile::ParquetFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetFile::~ParquetFile() = default;

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(std::shared_ptr<io::InputSource> source) {
  auto impl = std::make_unique<Impl>();
  const std::string name = SourceName(*source);
  QUIVER_ASSIGN_OR_RETURN(impl->footer, ReadFileFooter(*source));
  const FileMetaData& m = impl->footer.metadata;
  if (m.encrypted) {
    return Status::NotImplemented(name, " is an encrypted Parquet file (a plaintext footer over ",
                                  "encrypted columns), which quiver does not read");
  }
  QUIVER_ASSIGN_OR_RETURN(impl->root, BuildSchemaTree(m, name));
  const SchemaNode& root = impl->root;
  QUIVER_ASSIGN_OR_RETURN(Schema schema, ArrowSchemaOf(m, root, name));
  impl->schema = std::make_shared<const Schema>(std::move(schema));

  std::vector<std::string> path;
  std::vector<std::pair<const SchemaNode*, std::vector<std::string>>> leaves;
  for (const SchemaNode& child : root.children) {
    const int first = static_cast<int>(leaves.size());
    CollectLeaves(child, &path, &leaves);
    impl->field_leaves.push_back(LeafRange{first, static_cast<int>(leaves.size()) - first});
  }
  for (const auto& leaf : leaves) {
    impl->column_paths.push_back(Joined(leaf.second));
    impl->leaves.push_back(leaf.first);
  }
  impl->name = name;

  int64_t rows = 0;
  for (size_t g = 0; g < m.row_groups.size(); ++g) {
    const RowGroup& group = m.row_groups[g];
    if (group.columns.size() != leaves.size()) {
      return Status::Invalid(name, ": row group ", g, " has ", group.columns.size(),
                             " column chunks, the schema ", leaves.size(), " columns");
    }
    RowGroupInfo info{group.num_rows, group.total_byte_size, {}};
    for (size_t c = 0; c < leaves.size(); ++c) {
      QUIVER_RETURN_NOT_OK(CheckChunk(group.columns[c], *leaves[c].first, leaves[c].second,
                                      impl->footer.metadata_offset, g, c, name));
      info.columns.push_back(InfoOf(group.columns[c]));
    }
    if (__builtin_add_overflow(rows, group.num_rows, &rows)) {
      return Status::Invalid(name, ": the row groups' row counts overflow int64");
    }
    impl->row_groups.push_back(std::move(info));
  }
  if (rows != m.num_rows) {
    return Status::Invalid(name, ": the footer says ", m.num_rows, " rows, its row groups hold ",
                           rows);
  }
  impl->offset_indexes = std::make_unique<std::atomic<const OffsetIndex*>[]>(
      impl->row_groups.size() * impl->leaves.size());
  impl->source = std::move(source);
  return std::unique_ptr<ParquetFile>(new ParquetFile(std::move(impl)));
}

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(const std::string& location,
                                                       const io::SourceOptions& options) {
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<io::InputSource> source,
                          io::OpenSource(location, options));
  return Open(std::move(source));
}

const SchemaPtr& ParquetFile::schema() const { return impl_->schema; }
int64_t ParquetFile::num_rows() const { return impl_->footer.metadata.num_rows; }
int ParquetFile::num_row_groups() const { return static_cast<int>(impl_->row_groups.size()); }
const RowGroupInfo& ParquetFile::row_group(int i) const {
  return impl_->row_groups[static_cast<size_t>(i)];
}
const std::vector<std::string>& ParquetFile::column_paths() const { return impl_->column_paths; }
const std::string& ParquetFile::created_by() const { return impl_->footer.metadata.created_by; }
int32_t ParquetFile::format_version() const { return impl_->footer.metadata.version; }
const KeyValueMetadata& ParquetFile::key_value_metadata() const {
  return impl_->footer.metadata.key_value_metadata;
}

namespace {

// The indices of the fields the options name (all when they name none).
Result<std::vector<int>> FieldIndices(const Schema& schema, const ParquetReadOptions& options,
                                      const std::string& what) {
  const std::vector<std::string>& names = options.columns;
  std::vector<int> out;
  if (names.empty() && !options.field_indices.empty()) {
    for (int f : options.field_indices) {
      if (f < 0 || static_cast<size_t>(f) >= schema.fields.size()) {
        return Status::IndexError("field ", f, " of ", what, ", which has ", schema.fields.size());
      }
    }
    return options.field_indices;
  }
  if (names.empty()) {
    for (size_t f = 0; f < schema.fields.size(); ++f) out.push_back(static_cast<int>(f));
    return out;
  }
  for (const std::string& name : names) {
    int found = -1;
    for (size_t f = 0; f < schema.fields.size() && found < 0; ++f) {
      if (schema.fields[f].name == name) found = static_cast<int>(f);
    }
    if (found < 0) {
      std::string all;
      for (const Field& field : schema.fields) all += (all.empty() ? "" : ", ") + field.name;
      return Status::Invalid(what, " has no column named '", name, "' (its columns: ", all, ")");
    }
    out.push_back(found);
  }
  return out;
}

}  // namespace

std::vector<std::string> ReadableCodecs() {
  std::vector<std::string> out;
  for (int c = 0; c <= static_cast<int>(Codec::kLz4Raw); ++c) {
    const auto codec = static_cast<Codec>(c);
    if (HasPageCodec(codec)) out.push_back(CodecName(codec));
  }
  return out;
}

namespace {

// The first byte of a column chunk (its dictionary page's, if before).
int64_t ChunkStart(const ColumnMetaData& m) {
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
    start = std::min(start, *m.dictionary_page_offset);
  }
  return start;
}

// The leaf columns of top-level fields `fields`, in column order.
std::vector<int> LeavesOf(const std::vector<LeafRange>& field_leaves,
                          const std::vector<int>& fields) {
  std::vector<int> leaves;
  for (int f : fields) {
    const LeafRange& range = field_leaves[static_cast<size_t>(f)];
    for (int leaf = range.first; leaf < range.first + range.count; ++leaf) leaves.push_back(leaf);
  }
  return leaves;
}

// Rows [begin, end) of a row group.
struct RowSpan {
  int64_t begin = 0, end = 0;
};

// Widens rows [*begin, *end) to a leaf's page boundaries: *begin to the
// first row of the page holding it, *end to the first row of the page
// after the one holding row *end - 1 (or `rows`).
void AlignToPages(const OffsetIndex& index, int64_t rows, int64_t* begin, int64_t* end) {
  const auto& pages = index.page_locations;
  auto after = std::upper_bound(
      pages.begin(), pages.end(), *begin,
      [](int64_t row, const PageLocation& page) { return row < page.first_row_index; });
  *begin = after == pages.begin() ? 0 : std::prev(after)->first_row_index;
  auto stop_at = std::lower_bound(
      pages.begin(), pages.end(), *end,
      [](const PageLocation& page, int64_t row) { return page.first_row_index < row; });
  *end = stop_at == pages.end() ? rows : stop_at->first_row_index;
}

// The pages of a leaf's chunk that hold each span's rows [begin, end)
// (page boundaries, AlignToPages), read in one ReadRanges with the bytes
// before its first data page (the dictionary page, read once), each span
// decoded as a chunk of its rows' levels.
Result<std::vector<ColumnChunkData>> ReadPagesOfRows(
    io::InputSource& source, const ColumnChunk& chunk, const OffsetIndex& index,
    const std::vector<RowSpan>& spans, int64_t group_rows, const SchemaNode& leaf,
    const ColumnChunkOptions& options, const std::string& what) {
  const auto& pages = index.page_locations;
  const ColumnMetaData& meta = *chunk.meta_data;
  const int64_t start = ChunkStart(meta);
  const io::ByteRange prefix{start, pages[0].offset - start};
  struct Run {
    size_t first = 0, last = 0;
    io::ByteRange bytes;
  };
  std::vector<Run> runs;
  std::vector<io::ByteRange> ranges;
  if (prefix.length > 0) ranges.push_back(prefix);
  for (const RowSpan& span : spans) {
    Run run;
    if (span.begin == span.end) {  // no rows: no pages
      runs.push_back(run);
      continue;
    }
    while (pages[run.first].first_row_index < span.begin) ++run.first;
    run.last = run.first;
    while (run.last + 1 < pages.size() && pages[run.last + 1].first_row_index < span.end) {
      ++run.last;
    }
    const PageLocation& last = pages[run.last];
    run.bytes = {pages[run.first].offset,
                 last.offset + last.compressed_page_size - pages[run.first].offset};
    if (run.bytes.length <= 0) {
      return Status::Invalid(what, ": the offset index puts page ", run.last, " before page ",
                             run.first);
    }
    ranges.push_back(run.bytes);
    runs.push_back(run);
  }
  std::vector<BufferPtr> parts;
  if (ranges.size() > (prefix.length > 0 ? 1u : 0u)) {
    QUIVER_ASSIGN_OR_RETURN(parts, source.ReadRanges(ranges));
    if (prefix.length > 0 && parts[0]->size() != prefix.length) {
      return Status::IOError(what, ": read ", parts[0]->size(), " of the ", prefix.length,
                             " bytes before its first data page");
    }
  }
  std::vector<ColumnChunkData> out;
  size_t next = prefix.length > 0 ? 1 : 0;  // the next run's bytes among `parts`
  for (size_t s = 0; s < spans.size(); ++s) {
    const Run& run = runs[s];
    ColumnMetaData part = meta;
    part.num_values = 0;
    if (run.bytes.length == 0) {
      QUIVER_ASSIGN_OR_RETURN(ColumnChunkData empty,
                              ReadColumnChunkPages(nullptr, 0, part, leaf, options, what));
      out.push_back(std::move(empty));
      continue;
    }
    // Each page's rows, as the index says, for the reader to hold the pages to.
    ColumnChunkOptions run_options = options;
    run_options.first_indexed_page = run.first;
    for (size_t p = run.first; p <= run.last; ++p) {
      const int64_t end = p + 1 < pages.size() ? pages[p + 1].first_row_index : group_rows;
      run_options.page_levels.push_back(end - pages[p].first_row_index);
    }
    const Buffer& pages_read = *parts[next++];
    if (pages_read.size() != run.bytes.length) {
      return Status::IOError(what, ": read ", pages_read.size(), " of the ", run.bytes.length,
                             " bytes of pages ", run.first, " to ", run.last);
    }
    part.num_values = spans[s].end - spans[s].begin;  // a flat leaf: a level per row
    if (leaf.max_repetition_level > 0) {  // levels are not rows: the pages' headers count them
      QUIVER_ASSIGN_OR_RETURN(part.num_values,
                              LevelsInPages(pages_read.data(), pages_read.size(), what));
    }
    part.total_compressed_size = prefix.length + run.bytes.length;
    std::vector<uint8_t> joined;
    const uint8_t* bytes = pages_read.data();
    if (prefix.length > 0) {
      joined.resize(static_cast<size_t>(part.total_compressed_size));
      std::memcpy(joined.data(), parts[0]->data(), static_cast<size_t>(prefix.length));
      std::memcpy(joined.data() + prefix.length, pages_read.data(),
                  static_cast<size_t>(run.bytes.length));
      bytes = joined.data();
    }
    QUIVER_ASSIGN_OR_RETURN(
        ColumnChunkData data,
        ReadColumnChunkPages(bytes, part.total_compressed_size, part, leaf, run_options, what));
    out.push_back(std::move(data));
  }
  return out;
}

}  // namespace

Result<RecordBatchPtr> ParquetFile::ReadRowGroup(int i, const ParquetReadOptions& options) const {
  if (i < 0 || i >= num_row_groups()) {
    return Status::IndexError("row group ", i, " of ", impl_->name, ", which has ",
                              num_row_groups());
  }
  const int64_t rows = impl_->footer.metadata.row_groups[static_cast<size_t>(i)].num_rows;
  QUIVER_ASSIGN_OR_RETURN(std::vector<RecordBatchPtr> read, ReadRows(i, {{0, rows}}, options));
  return std::move(read[0]);
}

Result<RecordBatchPtr> ParquetFile::ReadRowRange(int i, int64_t first, int64_t count,
                                                 const ParquetReadOptions& options) const {
  QUIVER_ASSIGN_OR_RETURN(std::vector<RecordBatchPtr> read,
                          ReadRowRanges(i, {{first, count}}, options));
  return std::move(read[0]);
}

Result<std::vector<RecordBatchPtr>> ParquetFile::ReadRowRanges(
    int i, const std::vector<std::pair<int64_t, int64_t>>& ranges,
    const ParquetReadOptions& options) const {
  if (i < 0 || i >= num_row_groups()) {
    return Status::IndexError("row group ", i, " of ", impl_->name, ", which has ",
                              num_row_groups());
  }
  const int64_t rows = impl_->footer.metadata.row_groups[static_cast<size_t>(i)].num_rows;
  for (const auto& [first, count] : ranges) {
    if (first < 0 || count < 0 || first > rows || count > rows - first) {
      return Status::IndexError("rows ", first, " to ", first, " + ", count, " of row group ", i,
                                " of ", impl_->name, ", which has ", rows, " rows");
    }
  }
  if (ranges.empty()) return std::vector<RecordBatchPtr>();
  return ReadRows(i, ranges, options);
}

namespace {

// What a leaf of a field read through its offset index reads: runs of its
// pages (`reads`, ascending and apart: the pages of neighbouring ranges
// asked are one run), and for each range asked the run that holds it
// (`read_of`; unused for an empty range).
struct LeafReads {
  std::vector<RowSpan> reads;
  std::vector<size_t> read_of;
};

// Each range's rows widened to the leaf's page boundaries, then merged
// into runs. Older writers let a list's page end inside a row: a leaf of
// variable-size lists reads on to the page after, whose first level must
// start a row, so that the last row asked for is known to be whole.
LeafReads PlanLeafReads(const OffsetIndex& index, bool variable_lists, int64_t rows,
                        const std::vector<RowSpan>& asked) {
  std::vector<RowSpan> aligned = asked;
  std::vector<size_t> order;
  for (size_t r = 0; r < asked.size(); ++r) {
    RowSpan& span = aligned[r];
    if (span.begin == span.end) continue;
    AlignToPages(index, rows, &span.begin, &span.end);
    if (variable_lists && span.end < rows) {
      ++span.end;
      AlignToPages(index, rows, &span.begin, &span.end);
    }
    order.push_back(r);
  }
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return aligned[x].begin < aligned[y].begin; });
  LeafReads out;
  out.read_of.assign(asked.size(), 0);
  for (size_t r : order) {
    if (out.reads.empty() || aligned[r].begin > out.reads.back().end) {
      out.reads.push_back(aligned[r]);
    } else {
      out.reads.back().end = std::max(out.reads.back().end, aligned[r].end);
    }
    out.read_of[r] = out.reads.size() - 1;
  }
  return out;
}

}  // namespace

Result<std::vector<RecordBatchPtr>> ParquetFile::ReadRows(
    int i, const std::vector<std::pair<int64_t, int64_t>>& ranges,
    const ParquetReadOptions& options) const {
  const Impl& impl = *impl_;
  QUIVER_ASSIGN_OR_RETURN(std::vector<int> fields, FieldIndices(*impl.schema, options, impl.name));
  const RowGroup& group = impl.footer.metadata.row_groups[static_cast<size_t>(i)];
  const int64_t rows = group.num_rows;
  std::vector<RowSpan> asked;
  for (const auto& [first, count] : ranges) asked.push_back({first, first + count});
  const bool whole_group = asked.size() == 1 && asked[0].begin == 0 && asked[0].end == rows;

  auto fixed_list_size = [&](int f) {
    return FixedListSize(*impl.schema->fields[static_cast<size_t>(f)].type,
                         impl.root.children[static_cast<size_t>(f)]);
  };
  // A field whose leaves all have an offset index reads, leaf by leaf, the
  // pages that hold the ranges asked (`plans`, per leaf); any other field
  // reads its whole column chunks once for all the ranges.
  std::vector<const OffsetIndex*> indexes(impl.leaves.size(), nullptr);
  std::vector<LeafReads> plans(impl.leaves.size());
  std::vector<bool> indexed(fields.size(), false);
  if (!whole_group) {
    const std::vector<int> wanted = LeavesOf(impl.field_leaves, fields);
    QUIVER_ASSIGN_OR_RETURN(std::vector<const OffsetIndex*> found, OffsetIndexes(i, wanted));
    for (size_t w = 0; w < wanted.size(); ++w) {
      if (found[w] && !found[w]->page_locations.empty()) {
        indexes[static_cast<size_t>(wanted[w])] = found[w];
      }
    }
    for (size_t k = 0; k < fields.size(); ++k) {
      const LeafRange& range = impl.field_leaves[static_cast<size_t>(fields[k])];
      bool all = true;
      for (int leaf = range.first; leaf < range.first + range.count; ++leaf) {
        all = all && indexes[static_cast<size_t>(leaf)] != nullptr;
      }
      indexed[k] = all;
      for (int leaf = range.first; leaf < range.first + range.count; ++leaf) {
        const auto l = static_cast<size_t>(leaf);
        if (!all) {
          indexes[l] = nullptr;
          continue;
        }
        // A fixed-size list's rows are checked whole (ChunkReader's pattern,
        // the assembler's row sizes): no page after is needed to tell.
        const bool variable_lists =
            impl.leaves[l]->max_repetition_level > 0 && fixed_list_size(fields[k]) == 0;
        plans[l] = PlanLeafReads(*indexes[l], variable_lists, rows, asked);
      }
    }
  }

  // Every leaf of the projected fields read on its own (in parallel), then
  // each field assembled from its leaves, once per range.
  std::vector<std::pair<int, int>> tasks;  // (field position, leaf)
  for (size_t k = 0; k < fields.size(); ++k) {
    const LeafRange& range = impl.field_leaves[static_cast<size_t>(fields[k])];
    for (int leaf = range.first; leaf < range.first + range.count; ++leaf) {
      tasks.emplace_back(static_cast<int>(k), leaf);
    }
  }
  // Per task: a chunk read whole, or one per run of pages (LeafReads::reads).
  std::vector<std::vector<ColumnChunkData>> data(tasks.size());
  QUIVER_RETURN_NOT_OK(internal::ParallelTasks(
      static_cast<int64_t>(tasks.size()), options.threads, [&](int64_t t) -> Status {
        const auto [k, leaf] = tasks[static_cast<size_t>(t)];
        const std::string what = impl.name + ": column " + impl.column_paths[leaf] +
                                 " of row group " + std::to_string(i);
        ColumnChunkOptions chunk_options;
        // Threads the leaves leave idle decompress each leaf's pages.
        chunk_options.threads = std::max<int>(
            1, internal::ThreadCount(options.threads) / static_cast<int>(tasks.size()));
        chunk_options.fixed_list_size = fixed_list_size(fields[static_cast<size_t>(k)]);
        const ColumnChunk& chunk = group.columns[static_cast<size_t>(leaf)];
        const SchemaNode& node = *impl.leaves[static_cast<size_t>(leaf)];
        const OffsetIndex* index = indexes[static_cast<size_t>(leaf)];
        std::vector<ColumnChunkData>& out = data[static_cast<size_t>(t)];
        if (index != nullptr) {
          QUIVER_ASSIGN_OR_RETURN(out, ReadPagesOfRows(*impl.source, chunk, *index,
                                                       plans[static_cast<size_t>(leaf)].reads, rows,
                                                       node, chunk_options, what));
        } else {
          out.resize(1);
          QUIVER_ASSIGN_OR_RETURN(out[0],
                                  ReadColumnChunk(*impl.source, chunk, node, chunk_options, what));
        }
        return Status::OK();
      }));

  // columns[r][k]: range r's rows of field k.
  std::vector<std::vector<ArrayDataPtr>> columns(asked.size());
  size_t next = 0;  // the field's first task
  for (size_t k = 0; k < fields.size(); ++k) {
    const int f = fields[k];
    const Field& field = impl.schema->fields[static_cast<size_t>(f)];
    const SchemaNode& node = impl.root.children[static_cast<size_t>(f)];
    const LeafRange& range = impl.field_leaves[static_cast<size_t>(f)];
    const std::string what =
        impl.name + ": column " + field.name + " of row group " + std::to_string(i);
    if (!indexed[k]) {  // whole chunks: assembled once, each range sliced from them
      std::vector<ColumnChunkData> leaves;
      for (int n = 0; n < range.count; ++n) {
        leaves.push_back(std::move(data[next + static_cast<size_t>(n)][0]));
      }
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr column,
                              AssembleColumn(node, field, &leaves, rows, what));
      for (size_t r = 0; r < asked.size(); ++r) {
        const int64_t count = asked[r].end - asked[r].begin;
        if (count == rows) {
          columns[r].push_back(column);
          continue;
        }
        // No rows: at offset 0, as other readers expect an empty array.
        QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr piece,
                                Slice(column, count == 0 ? 0 : asked[r].begin, count));
        columns[r].push_back(std::move(piece));
      }
    } else {  // each leaf's rows kept from its run of pages, then assembled
      for (size_t r = 0; r < asked.size(); ++r) {
        const int64_t count = asked[r].end - asked[r].begin;
        std::vector<ColumnChunkData> leaves;
        for (int n = 0; n < range.count; ++n) {
          const auto l = static_cast<size_t>(range.first + n);
          const size_t t = next + static_cast<size_t>(n);
          const LeafReads& plan = plans[l];
          const std::string leaf_what =
              impl.name + ": column " + impl.column_paths[l] + " of row group " + std::to_string(i);
          if (count == 0) {
            ColumnMetaData none = *group.columns[l].meta_data;
            none.num_values = 0;
            QUIVER_ASSIGN_OR_RETURN(
                ColumnChunkData empty,
                ReadColumnChunkPages(nullptr, 0, none, *impl.leaves[l], {}, leaf_what));
            leaves.push_back(std::move(empty));
            continue;
          }
          const size_t read = plan.read_of[r];
          QUIVER_ASSIGN_OR_RETURN(
              ColumnChunkData kept,
              KeepRows(data[t][read], *impl.leaves[l], fixed_list_size(f),
                       asked[r].begin - plan.reads[read].begin, count, leaf_what));
          leaves.push_back(std::move(kept));
        }
        QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr column,
                                AssembleColumn(node, field, &leaves, count, what));
        columns[r].push_back(std::move(column));
      }
    }
    next += static_cast<size_t>(range.count);
  }
  std::vector<Field> out_fields;
  for (int f : fields) out_fields.push_back(impl.schema->fields[static_cast<size_t>(f)]);
  auto schema =
      std::make_shared<const Schema>(Schema{std::move(out_fields), impl.schema->metadata});
  std::vector<RecordBatchPtr> out;
  for (size_t r = 0; r < asked.size(); ++r) {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch,
                            RecordBatch::Make(schema, asked[r].end - asked[r].begin,
                                              std::move(columns[r]), ValidationLevel::kFull));
    out.push_back(std::move(batch));
  }
  return out;
}

Result<std::optional<std::vector<int64_t>>> ParquetFile::PageRowStarts(
    int i, const ParquetReadOptions& options) const {
  using Starts = std::optional<std::vector<int64_t>>;
  if (i < 0 || i >= num_row_groups()) {
    return Status::IndexError("row group ", i, " of ", impl_->name, ", which has ",
                              num_row_groups());
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<int> fields,
                          FieldIndices(*impl_->schema, options, impl_->name));
  QUIVER_ASSIGN_OR_RETURN(std::vector<const OffsetIndex*> indexes,
                          OffsetIndexes(i, LeavesOf(impl_->field_leaves, fields)));
  std::vector<int64_t> starts{0};
  for (const OffsetIndex* index : indexes) {
    if (index == nullptr || index->page_locations.empty()) return Starts();
    for (const PageLocation& page : index->page_locations) starts.push_back(page.first_row_index);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return Starts(std::move(starts));
}

Result<TablePtr> ParquetFile::ReadTable(const ParquetReadOptions& options) const {
  std::vector<int> groups;
  if (options.row_groups) {
    groups = *options.row_groups;
  } else {
    for (int g = 0; g < num_row_groups(); ++g) groups.push_back(g);
  }
  QUIVER_ASSIGN_OR_RETURN(std::vector<int> fields,
                          FieldIndices(*impl_->schema, options, impl_->name));
  // The names resolved once, not again for each row group.
  ParquetReadOptions resolved = options;
  resolved.columns.clear();
  resolved.field_indices = fields;
  std::vector<Field> out_fields;
  for (int f : fields) out_fields.push_back(impl_->schema->fields[static_cast<size_t>(f)]);
  auto schema =
      std::make_shared<const Schema>(Schema{std::move(out_fields), impl_->schema->metadata});
  std::vector<RecordBatchPtr> batches;
  for (int g : groups) {
    QUIVER_ASSIGN_OR_RETURN(RecordBatchPtr batch, ReadRowGroup(g, resolved));
    batches.push_back(std::move(batch));
  }
  return Table::FromRecordBatches(std::move(schema), batches);
}

namespace {

// The checks of an index's position before any byte of it is read.
Status CheckIndexRange(int64_t offset, int32_t length, int64_t data_end, int64_t file_size,
                       const char* index, const std::string& where) {
  if (length <= 0 || offset < 4 || offset > data_end || length > data_end - offset) {
    return Status::Invalid(where, ": its ", index, "'s ", length, " bytes at offset ", offset,
                           " lie outside the file's data (bytes 4 to ", data_end, " of its ",
                           file_size, ")");
  }
  return Status::OK();
}

}  // namespace

namespace {

// The page index of one column chunk: the checks both indexes share, then
// the bytes read.
struct PageIndexReader {
  const std::string& name;
  const std::vector<std::string>& column_paths;
  const FileFooter& footer;
  io::InputSource& source;
  int row_group, column;

  std::string Where() const {
    return name + ": column " + column_paths[static_cast<size_t>(column)] + " of row group " +
           std::to_string(row_group);
  }

  Result<const ColumnChunk*> Chunk(int num_row_groups) const {
    if (row_group < 0 || row_group >= num_row_groups) {
      return Status::IndexError("row group ", row_group, " of ", name, ", which has ",
                                num_row_groups);
    }
    const int columns = static_cast<int>(column_paths.size());
    if (column < 0 || column >= columns) {
      return Status::IndexError("column ", column, " of ", name, ", which has ", columns);
    }
    return &footer.metadata.row_groups[static_cast<size_t>(row_group)]
                .columns[static_cast<size_t>(column)];
  }

  Result<BufferPtr> Read(int64_t offset, int32_t length, const char* index) const {
    QUIVER_RETURN_NOT_OK(
        CheckIndexRange(offset, length, footer.metadata_offset, source.size(), index, Where()));
    return source.ReadAt(offset, length);
  }
};

}  // namespace

Result<std::optional<OffsetIndex>> ParquetFile::ReadOffsetIndex(int row_group, int column) const {
  QUIVER_ASSIGN_OR_RETURN(std::vector<const OffsetIndex*> found,
                          OffsetIndexes(row_group, {column}));
  if (found[0] == nullptr) return std::optional<OffsetIndex>();
  return std::optional<OffsetIndex>(*found[0]);
}

Result<std::vector<const OffsetIndex*>> ParquetFile::OffsetIndexes(
    int row_group, const std::vector<int>& columns) const {
  const Impl& impl = *impl_;
  std::vector<const OffsetIndex*> out(columns.size(), nullptr);
  // The chunks with an index not read yet, read together (one request for
  // neighbouring indexes on a remote source).
  std::vector<size_t> missing;
  std::vector<io::ByteRange> ranges;
  for (size_t c = 0; c < columns.size(); ++c) {
    const PageIndexReader reader{impl.name,    impl.column_paths, impl.footer,
                                 *impl.source, row_group,         columns[c]};
    QUIVER_ASSIGN_OR_RETURN(const ColumnChunk* chunk, reader.Chunk(num_row_groups()));
    out[c] = impl.CachedOffsetIndex(row_group, columns[c]).load(std::memory_order_acquire);
    if (out[c] != nullptr || !chunk->offset_index_offset) continue;
    QUIVER_RETURN_NOT_OK(CheckIndexRange(*chunk->offset_index_offset, chunk->offset_index_length,
                                         impl.footer.metadata_offset, impl.source->size(),
                                         "offset index", reader.Where()));
    missing.push_back(c);
    ranges.push_back({*chunk->offset_index_offset, chunk->offset_index_length});
  }
  if (missing.empty()) return out;
  QUIVER_ASSIGN_OR_RETURN(std::vector<BufferPtr> bytes, impl.source->ReadRanges(ranges));
  for (size_t m = 0; m < missing.size(); ++m) {
    const size_t c = missing[m];
    QUIVER_ASSIGN_OR_RETURN(OffsetIndex index,
                            CheckedOffsetIndex(row_group, columns[c], *bytes[m]));
    auto made = std::make_unique<const OffsetIndex>(std::move(index));
    const OffsetIndex* expected = nullptr;
    // Another thread may have installed the same index meanwhile: theirs stays.
    if (impl.CachedOffsetIndex(row_group, columns[c])
            .compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel)) {
      out[c] = made.release();
    } else {
      out[c] = expected;
    }
  }
  return out;
}

Result<OffsetIndex> ParquetFile::CheckedOffsetIndex(int row_group, int column,
                                                    const Buffer& bytes) const {
  const PageIndexReader reader{impl_->name,    impl_->column_paths, impl_->footer,
                               *impl_->source, row_group,           column};
  const ColumnChunk* chunk = &impl_->footer.metadata.row_groups[static_cast<size_t>(row_group)]
                                  .columns[static_cast<size_t>(column)];
  const std::string where = reader.Where();
  QUIVER_ASSIGN_OR_RETURN(OffsetIndex index,
                          DecodeOffsetIndex(bytes.data(), static_cast<int64_t>(bytes.size()),
                                            where + ": the offset index"));
  // Each page inside the column chunk, and starting at one of the row
  // group's rows (the first at row 0).
  const ColumnMetaData& m = *chunk->meta_data;
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0) {
    start = std::min(start, *m.dictionary_page_offset);
  }
  const int64_t end = start + m.total_compressed_size;  // checked when the file opened
  const int64_t rows = impl_->footer.metadata.row_groups[static_cast<size_t>(row_group)].num_rows;
  for (size_t p = 0; p < index.page_locations.size(); ++p) {
    const PageLocation& page = index.page_locations[p];
    if (page.offset < start || page.offset > end || page.compressed_page_size > end - page.offset) {
      return Status::Invalid(where, ": the offset index puts page ", p, " (",
                             page.compressed_page_size, " bytes at offset ", page.offset,
                             ") outside the column chunk (bytes ", start, " to ", end, ")");
    }
    if (page.first_row_index >= rows || (p == 0 && page.first_row_index != 0)) {
      return Status::Invalid(where, ": the offset index says page ", p, " starts at row ",
                             page.first_row_index, " of the row group's ", rows, " rows");
    }
    // Pages follow each other in the file: a run of them is read front to
    // back, so one that overlaps or precedes the page before would be read
    // as another.
    if (p > 0) {
      const PageLocation& before = index.page_locations[p - 1];
      // Equal rows are a page of no rows (pyarrow writes one before a
      // list column's last page).
      if (page.first_row_index < before.first_row_index) {
        return Status::Invalid(where, ": the offset index says page ", p, " starts at row ",
                               page.first_row_index, ", before page ", p - 1, " (row ",
                               before.first_row_index, ")");
      }
      if (page.offset < before.offset + before.compressed_page_size) {
        return Status::Invalid(where, ": the offset index puts page ", p, " at offset ",
                               page.offset, ", inside or before page ", p - 1, " (",
                               before.compressed_page_size, " bytes at offset ", before.offset,
                               ")");
      }
    }
  }
  return index;
}

Result<std::optional<ColumnIndex>> ParquetFile::ReadColumnIndex(int row_group, int column) const {
  const PageIndexReader reader{impl_->name,    impl_->column_paths, impl_->footer,
                               *impl_->source, row_group,           column};
  QUIVER_ASSIGN_OR_RETURN(const ColumnChunk* chunk, reader.Chunk(num_row_groups()));
  if (!chunk->column_index_offset) return std::optional<ColumnIndex>();
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, reader.Read(*chunk->column_index_offset,
                                                       chunk->column_index_length, "column index"));
  QUIVER_ASSIGN_OR_RETURN(ColumnIndex index,
                          DecodeColumnIndex(bytes->data(), static_cast<int64_t>(bytes->size()),
                                            reader.Where() + ": the column index"));
  return std::optional<ColumnIndex>(std::move(index));
}

}  // namespace quiver::parquet
