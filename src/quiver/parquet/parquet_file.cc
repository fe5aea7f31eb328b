// ParquetFile: the footer read and checked against itself, the schema
// mapped to Arrow types, and the metadata as quiver/parquet.h shows it.
#include <algorithm>
#include <utility>

#include "quiver/parquet.h"
#include "quiver/parquet/file_footer.h"
#include "quiver/parquet/schema.h"

namespace quiver::parquet {

namespace {

// The leaves in column order, each with its path below the root.
void CollectLeaves(const SchemaNode& node, std::vector<std::string>* path,
                   std::vector<std::pair<const SchemaNode*, std::vector<std::string>>>* out) {
  for (const SchemaNode& child : node.children) {
    path->push_back(child.element->name);
    if (child.is_leaf()) {
      out->emplace_back(&child, *path);
    } else {
      CollectLeaves(child, path, out);
    }
    path->pop_back();
  }
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
  info.has_page_index = chunk.offset_index_offset.has_value();
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
  if (start < 4 || m.total_compressed_size > data_end - start) {
    return Status::Invalid(where, ": its ", m.total_compressed_size, " bytes at offset ", start,
                           " lie outside the file's data (bytes 4 to ", data_end, ")");
  }
  return Status::OK();
}

}  // namespace

struct ParquetFile::Impl {
  std::shared_ptr<io::InputSource> source;
  FileFooter footer;
  SchemaPtr schema;
  std::vector<RowGroupInfo> row_groups;
  std::vector<std::string> column_paths;
};

ParquetFile::ParquetFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetFile::~ParquetFile() = default;

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(std::shared_ptr<io::InputSource> source) {
  auto impl = std::make_unique<Impl>();
  const std::string name = SourceName(*source);
  QUIVER_ASSIGN_OR_RETURN(impl->footer, ReadFileFooter(*source));
  const FileMetaData& m = impl->footer.metadata;
  if (m.encrypted) {
    return Status::NotImplemented(name,
                                  " is an encrypted Parquet file, which quiver does not read");
  }
  QUIVER_ASSIGN_OR_RETURN(SchemaNode root, BuildSchemaTree(m, name));
  QUIVER_ASSIGN_OR_RETURN(Schema schema, ArrowSchemaOf(m, root, name));
  impl->schema = std::make_shared<const Schema>(std::move(schema));

  std::vector<std::string> path;
  std::vector<std::pair<const SchemaNode*, std::vector<std::string>>> leaves;
  CollectLeaves(root, &path, &leaves);
  for (const auto& leaf : leaves) impl->column_paths.push_back(Joined(leaf.second));

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

}  // namespace quiver::parquet
