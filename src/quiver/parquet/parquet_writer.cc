// Writing Parquet files: the schema (Arrow types as Parquet physical,
// logical and converted types, as pyarrow writes them), row groups of
// column chunks (column_writer.h) and the footer, with the Arrow schema
// under ARROW:schema. docs/parquet.md, "Writing".
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "quiver/build_info.h"
#include "quiver/internal/base64.h"
#include "quiver/ipc/encoder.h"
#include "quiver/parquet.h"
#include "quiver/parquet/column_writer.h"
#include "quiver/parquet/level_shredding.h"
#include "quiver/parquet/metadata.h"
#include "quiver/parquet/page_compress.h"
#include "quiver/parquet/value_encoders.h"
#include "quiver/table.h"

namespace quiver::parquet {

namespace {

using namespace converted_type;  // NOLINT(google-build-using-namespace)

struct LeafColumn {
  LeafEncoding encoding;
  std::vector<std::string> path;
};

// Bytes a big-endian two's complement integer needs for every decimal of
// `precision` digits.
int32_t DecimalBytes(int32_t precision) {
  return static_cast<int32_t>(std::ceil((precision * std::log2(10.0) + 1) / 8));
}

struct SchemaBuilder {
  std::vector<SchemaElement>& elements;
  std::vector<LeafColumn>& leaves;
  const std::string& column;  // the top-level field, for errors

  Status Unsupported(const DataType& type) const {
    return Status::TypeError("column '", column, "': Parquet cannot hold ", type.ToString(),
                             " values");
  }

  Status Leaf(SchemaElement e, LeafEncoding encoding, std::vector<std::string> path) {
    elements.push_back(std::move(e));
    leaves.push_back(LeafColumn{encoding, std::move(path)});
    return Status::OK();
  }

  // `type` is a stored type (StoredType).
  Status Add(const std::string& name, const DataType& type, Repetition repetition,
             std::vector<std::string> path) {
    path.push_back(name);
    if (path.size() > static_cast<size_t>(kMaxNestingDepth)) {
      // Each list or map is two schema elements: the file would nest past
      // what readers, quiver's among them (schema.h), accept.
      return Status::Invalid("column '", column, "': its Parquet schema would nest ", path.size(),
                             " elements deep, more than the ", kMaxNestingDepth,
                             " a reader accepts (each list or map level takes two)");
    }
    SchemaElement e;
    e.name = name;
    e.repetition = repetition;
    LeafEncoding enc;
    auto integer = [&](PhysicalType p, int bits, bool is_signed, int32_t converted,
                       Conversion conversion, int arrow_width) {
      e.type = p;
      e.logical_type.kind = LogicalType::kInteger;
      e.logical_type.bit_width = static_cast<int8_t>(bits);
      e.logical_type.is_signed = is_signed;
      e.converted_type = converted;
      enc.physical = p;
      enc.conversion = conversion;
      enc.arrow_width = arrow_width;
      enc.order = is_signed ? SortOrder::kSigned : SortOrder::kUnsigned;
    };
    auto plain = [&](PhysicalType p, SortOrder order, int arrow_width) {
      e.type = p;
      enc.physical = p;
      enc.order = order;
      enc.arrow_width = arrow_width;
    };
    switch (type.id()) {
      case TypeId::kBool: plain(PhysicalType::kBoolean, SortOrder::kBool, 0); break;
      case TypeId::kInt8:
        integer(PhysicalType::kInt32, 8, true, kInt8, Conversion::kSignExtend, 1);
        break;
      case TypeId::kInt16:
        integer(PhysicalType::kInt32, 16, true, kInt16, Conversion::kSignExtend, 2);
        break;
      case TypeId::kInt32: plain(PhysicalType::kInt32, SortOrder::kSigned, 4); break;
      case TypeId::kInt64: plain(PhysicalType::kInt64, SortOrder::kSigned, 8); break;
      case TypeId::kUInt8:
        integer(PhysicalType::kInt32, 8, false, kUint8, Conversion::kZeroExtend, 1);
        break;
      case TypeId::kUInt16:
        integer(PhysicalType::kInt32, 16, false, kUint16, Conversion::kZeroExtend, 2);
        break;
      case TypeId::kUInt32:
        integer(PhysicalType::kInt32, 32, false, kUint32, Conversion::kNone, 4);
        break;
      case TypeId::kUInt64:
        integer(PhysicalType::kInt64, 64, false, kUint64, Conversion::kNone, 8);
        break;
      case TypeId::kFloat16:
        plain(PhysicalType::kFixedLenByteArray, SortOrder::kFloat16, 2);
        e.type_length = enc.type_length = 2;
        e.logical_type.kind = LogicalType::kFloat16;
        break;
      case TypeId::kFloat32: plain(PhysicalType::kFloat, SortOrder::kFloat, 4); break;
      case TypeId::kFloat64: plain(PhysicalType::kDouble, SortOrder::kFloat, 8); break;
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
      case TypeId::kUtf8View:
        plain(PhysicalType::kByteArray, SortOrder::kBytes, 0);
        e.logical_type.kind = LogicalType::kString;
        e.converted_type = kUtf8;
        break;
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
      case TypeId::kBinaryView: plain(PhysicalType::kByteArray, SortOrder::kBytes, 0); break;
      case TypeId::kFixedSizeBinary:
        if (type.byte_width() <= 0) return Unsupported(type);
        plain(PhysicalType::kFixedLenByteArray, SortOrder::kBytes,
              static_cast<int>(type.byte_width()));
        e.type_length = enc.type_length = static_cast<int32_t>(type.byte_width());
        break;
      case TypeId::kDate32:
        plain(PhysicalType::kInt32, SortOrder::kSigned, 4);
        e.logical_type.kind = LogicalType::kDate;
        e.converted_type = kDate;
        break;
      case TypeId::kDate64:
        plain(PhysicalType::kInt32, SortOrder::kSigned, 8);
        enc.conversion = Conversion::kDate64ToDays;
        e.logical_type.kind = LogicalType::kDate;
        e.converted_type = kDate;
        break;
      case TypeId::kTime32:
        plain(PhysicalType::kInt32, SortOrder::kSigned, 4);
        if (type.time_unit() == TimeUnit::kSecond) enc.conversion = Conversion::kTimes1000;
        e.logical_type.kind = LogicalType::kTime;
        e.logical_type.unit = TimeUnit::kMilli;
        e.logical_type.adjusted_to_utc = false;  // as pyarrow
        e.converted_type = kTimeMillis;
        break;
      case TypeId::kTime64:
        plain(PhysicalType::kInt64, SortOrder::kSigned, 8);
        e.logical_type.kind = LogicalType::kTime;
        e.logical_type.unit = type.time_unit();
        e.logical_type.adjusted_to_utc = false;  // as pyarrow
        if (type.time_unit() == TimeUnit::kMicro) e.converted_type = kTimeMicros;
        break;
      case TypeId::kTimestamp: {
        plain(PhysicalType::kInt64, SortOrder::kSigned, 8);
        TimeUnit unit = type.time_unit();
        if (unit == TimeUnit::kSecond) {
          enc.conversion = Conversion::kTimes1000;
          unit = TimeUnit::kMilli;
        }
        e.logical_type.kind = LogicalType::kTimestamp;
        e.logical_type.unit = unit;
        e.logical_type.adjusted_to_utc = !type.timezone().empty();
        if (e.logical_type.adjusted_to_utc && unit != TimeUnit::kNano) {
          e.converted_type = unit == TimeUnit::kMilli ? kTimestampMillis : kTimestampMicros;
        }
        break;
      }
      case TypeId::kDuration: plain(PhysicalType::kInt64, SortOrder::kSigned, 8); break;
      case TypeId::kDecimal32:
      case TypeId::kDecimal64:
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        const int32_t precision = type.precision();
        const int width = static_cast<int>(type.byte_width());
        if (precision <= 9) {
          plain(PhysicalType::kInt32, SortOrder::kSigned, width);
          if (width != 4) enc.conversion = Conversion::kLowBytes;
        } else if (precision <= 18) {
          plain(PhysicalType::kInt64, SortOrder::kSigned, width);
          if (width != 8) enc.conversion = Conversion::kLowBytes;
        } else {
          plain(PhysicalType::kFixedLenByteArray, SortOrder::kDecimal, width);
          e.type_length = enc.type_length = std::min(DecimalBytes(precision), width);
          enc.conversion = Conversion::kBigEndian;
        }
        e.logical_type.kind = LogicalType::kDecimal;
        e.logical_type.precision = e.precision = precision;
        e.logical_type.scale = e.scale = type.scale();
        e.converted_type = kDecimal;
        break;
      }
      case TypeId::kNull:
        plain(PhysicalType::kInt32, SortOrder::kSigned, 4);
        e.logical_type.kind = LogicalType::kUnknown;
        e.repetition = Repetition::kOptional;
        break;
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kFixedSizeList: {
        e.logical_type.kind = LogicalType::kList;
        e.converted_type = kList;
        e.num_children = 1;
        elements.push_back(std::move(e));
        SchemaElement repeated;
        repeated.name = "list";
        repeated.repetition = Repetition::kRepeated;
        repeated.num_children = 1;
        elements.push_back(std::move(repeated));
        path.push_back("list");
        const Field& item = type.children()[0];
        return Add("element", *item.type,
                   item.nullable ? Repetition::kOptional : Repetition::kRequired, std::move(path));
      }
      case TypeId::kMap: {
        e.logical_type.kind = LogicalType::kMap;
        e.converted_type = kMap;
        e.num_children = 1;
        elements.push_back(std::move(e));
        const Field& entries = type.children()[0];
        SchemaElement repeated;
        repeated.name = "key_value";
        repeated.repetition = Repetition::kRepeated;
        repeated.num_children = 2;
        elements.push_back(std::move(repeated));
        path.push_back("key_value");
        const Field& key = entries.type->children()[0];
        const Field& value = entries.type->children()[1];
        QUIVER_RETURN_NOT_OK(Add("key", *key.type, Repetition::kRequired, path));
        return Add("value", *value.type,
                   value.nullable ? Repetition::kOptional : Repetition::kRequired, path);
      }
      case TypeId::kStruct: {
        if (type.children().empty()) {
          return Status::TypeError("column '", column,
                                   "': Parquet cannot hold a struct without fields");
        }
        e.num_children = static_cast<int32_t>(type.children().size());
        elements.push_back(std::move(e));
        for (const Field& child : type.children()) {
          QUIVER_RETURN_NOT_OK(Add(child.name, *child.type,
                                   child.nullable ? Repetition::kOptional : Repetition::kRequired,
                                   path));
        }
        return Status::OK();
      }
      default: return Unsupported(type);
    }
    return Leaf(std::move(e), enc, std::move(path));
  }
};

Status CheckOptions(const ParquetWriteOptions& o) {
  if (o.row_group_rows <= 0) {
    return Status::Invalid("Parquet row_group_rows must be positive, got ", o.row_group_rows);
  }
  if (o.data_page_bytes <= 0) {
    return Status::Invalid("Parquet data_page_bytes must be positive, got ", o.data_page_bytes);
  }
  if (o.dictionary_page_bytes < 0) {
    return Status::Invalid("Parquet dictionary_page_bytes must not be negative, got ",
                           o.dictionary_page_bytes);
  }
  if (o.data_page_version != 1 && o.data_page_version != 2) {
    return Status::Invalid("Parquet data_page_version must be 1 or 2, got ", o.data_page_version);
  }
  return Status::OK();
}

Result<std::string> ArrowSchemaValue(const Schema& schema) {
  io::BufferSink sink;
  QUIVER_RETURN_NOT_OK(ipc::WriteSchemaMessage(sink, schema).status());
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, sink.Finish());
  return internal::EncodeBase64(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

// Every chunk's column index, then every chunk's offset index (the order
// readers that fetch one kind for many columns read in one range), their
// places recorded in the chunks.
Status WritePageIndexes(const std::vector<std::vector<ChunkPageIndex>>& indexes,
                        io::OutputSink* sink, FileMetaData* meta) {
  auto write = [&](const std::string& bytes, std::optional<int64_t>* offset,
                   int32_t* length) -> Status {
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::Invalid("a Parquet page index of ", bytes.size(),
                             " bytes passes the format's 2 GiB limit");
    }
    *offset = sink->position();
    *length = static_cast<int32_t>(bytes.size());
    return sink->Write(bytes.data(), static_cast<int64_t>(bytes.size()));
  };
  for (size_t g = 0; g < indexes.size(); ++g) {
    for (size_t c = 0; c < indexes[g].size(); ++c) {
      if (!indexes[g][c].has_column_index) continue;
      ColumnChunk& chunk = meta->row_groups[g].columns[c];
      QUIVER_RETURN_NOT_OK(write(EncodeColumnIndex(indexes[g][c].column_index),
                                 &chunk.column_index_offset, &chunk.column_index_length));
    }
  }
  for (size_t g = 0; g < indexes.size(); ++g) {
    for (size_t c = 0; c < indexes[g].size(); ++c) {
      ColumnChunk& chunk = meta->row_groups[g].columns[c];
      QUIVER_RETURN_NOT_OK(write(EncodeOffsetIndex(indexes[g][c].offset_index),
                                 &chunk.offset_index_offset, &chunk.offset_index_length));
    }
  }
  return Status::OK();
}

}  // namespace

struct ParquetWriter::Impl {
  std::shared_ptr<io::OutputSink> sink;
  SchemaPtr schema;
  ParquetWriteOptions options;
  ColumnWriteSettings settings;
  FileMetaData meta;
  std::vector<LeafColumn> leaves;
  std::vector<size_t> first_leaf;  // per column, and one past the last
  // write_page_index: per row group, per column chunk, for the footer.
  std::vector<std::vector<ChunkPageIndex>> page_indexes;
  bool closed = false;
  Status failure;  // a failed write: the file is broken, every later call says so

  // The Parquet schema, before any byte is written.
  Status BuildSchema() {
    meta.version = 2;
    SchemaElement root;
    root.name = "schema";
    root.num_children = static_cast<int32_t>(schema->fields.size());
    meta.schema.push_back(root);
    for (const Field& field : schema->fields) {
      first_leaf.push_back(leaves.size());
      SchemaBuilder builder{meta.schema, leaves, field.name};
      const TypePtr stored = StoredType(field.type);
      QUIVER_RETURN_NOT_OK(builder.Add(
          field.name, *stored, field.nullable ? Repetition::kOptional : Repetition::kRequired, {}));
    }
    first_leaf.push_back(leaves.size());
    return Status::OK();
  }

  Status CheckTableSchema(const Schema& given) const {
    if (given.fields.size() != schema->fields.size()) {
      return Status::TypeError("the table has ", given.fields.size(),
                               " columns, the Parquet writer's schema ", schema->fields.size());
    }
    // Names, types and nullability: a column under another name would land
    // in the wrong place, and nulls in a column the file says has none
    // would be written as values.
    for (size_t i = 0; i < given.fields.size(); ++i) {
      const Field& want = schema->fields[i];
      const Field& got = given.fields[i];
      if (got.name != want.name) {
        return Status::TypeError("column ", i, " is named '", got.name,
                                 "', the Parquet writer's schema names it '", want.name, "'");
      }
      if (!got.type->Equals(*want.type)) {
        return Status::TypeError("column ", i, " (", got.name, ") is ", got.type->ToString(),
                                 ", the Parquet writer's schema says ", want.type->ToString());
      }
      if (got.nullable != want.nullable) {
        return Status::TypeError("column ", i, " (", got.name, ") is ",
                                 got.nullable ? "nullable" : "not nullable",
                                 ", the Parquet writer's schema says it is ",
                                 want.nullable ? "nullable" : "not nullable");
      }
    }
    return Status::OK();
  }

  // Rows [r0, r0 + n) of `table` as one row group.
  Status WriteRowGroup(const Table& table, int64_t r0, int64_t n) {
    RowGroup group;
    group.num_rows = n;
    group.file_offset = sink->position();
    group.ordinal = static_cast<int16_t>(meta.row_groups.size());
    int64_t compressed = 0;
    std::vector<ChunkPageIndex> group_indexes;
    for (int i = 0; i < table.num_columns(); ++i) {
      const Field& field = schema->fields[static_cast<size_t>(i)];
      QUIVER_ASSIGN_OR_RETURN(ChunkedArrayPtr slice, table.column(i)->Slice(r0, n));
      QUIVER_ASSIGN_OR_RETURN(ArrayDataPtr array, slice->Combine());
      QUIVER_ASSIGN_OR_RETURN(std::vector<ArrayDataPtr> dictionaries, LeafDictionaries(array));
      QUIVER_ASSIGN_OR_RETURN(array, StoredArray(array));
      const size_t begin = first_leaf[static_cast<size_t>(i)];
      const int count = CountLeaves(array);
      if (static_cast<size_t>(count) != first_leaf[static_cast<size_t>(i) + 1] - begin ||
          dictionaries.size() != static_cast<size_t>(count)) {
        return Status::Invalid("column '", field.name, "': its array does not match its type");
      }
      for (int k = 0; k < count; ++k) {
        const LeafColumn& leaf = leaves[begin + static_cast<size_t>(k)];
        ColumnChunk chunk;
        ColumnMetaData column;
        std::string what = "column '";
        for (size_t p = 0; p < leaf.path.size(); ++p) what += (p ? "." : "") + leaf.path[p];
        what += "'";
        ChunkPageIndex* page_index =
            options.write_page_index ? &group_indexes.emplace_back() : nullptr;
        QUIVER_RETURN_NOT_OK(WriteColumnChunk(array, field.nullable, k, leaf.encoding, settings,
                                              sink.get(), &column, what,
                                              dictionaries[static_cast<size_t>(k)], page_index));
        column.path_in_schema = leaf.path;
        chunk.file_offset = column.dictionary_page_offset.value_or(column.data_page_offset);
        group.total_byte_size += column.total_uncompressed_size;
        compressed += column.total_compressed_size;
        chunk.meta_data = std::move(column);
        group.columns.push_back(std::move(chunk));
      }
    }
    group.total_compressed_size = compressed;
    meta.num_rows += n;
    meta.row_groups.push_back(std::move(group));
    if (options.write_page_index) page_indexes.push_back(std::move(group_indexes));
    return Status::OK();
  }

  Status WriteFooter() {
    if (options.write_page_index) {
      QUIVER_RETURN_NOT_OK(WritePageIndexes(page_indexes, sink.get(), &meta));
    }
    meta.key_value_metadata = schema->metadata;
    QUIVER_ASSIGN_OR_RETURN(std::string arrow_schema, ArrowSchemaValue(*schema));
    meta.key_value_metadata.emplace_back("ARROW:schema", std::move(arrow_schema));
    meta.created_by = std::string("quiver version ") + Version();
    meta.type_defined_column_orders = static_cast<int32_t>(leaves.size());
    const std::string footer = EncodeFileMetaData(meta);
    QUIVER_RETURN_NOT_OK(sink->Write(footer.data(), static_cast<int64_t>(footer.size())));
    const uint32_t length = static_cast<uint32_t>(footer.size());
    QUIVER_RETURN_NOT_OK(sink->Write(&length, 4));
    QUIVER_RETURN_NOT_OK(sink->Write("PAR1", 4));
    return sink->Flush();
  }

  Status Usable() const {
    if (closed) return Status::Invalid("cannot write to a closed Parquet writer");
    return failure;
  }

  // One row group; a failure after some of its bytes reached the sink is
  // kept, so that a file left broken mid-row-group is never given a
  // footer (one found before any byte, a value the writer cannot take,
  // leaves the file whole and the writer usable).
  Status WriteWhole(const Table& table, int64_t r0, int64_t n) {
    const int64_t start = sink->position();
    Status written = WriteRowGroup(table, r0, n);
    if (!written.ok() && sink->position() != start) failure = written;
    return written;
  }
};

ParquetWriter::ParquetWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(std::shared_ptr<io::OutputSink> sink,
                                                           SchemaPtr schema,
                                                           const ParquetWriteOptions& options) {
  if (!sink) return Status::Invalid("the Parquet writer has no sink");
  if (!schema) return Status::Invalid("the Parquet writer has no schema");
  QUIVER_RETURN_NOT_OK(CheckOptions(options));
  auto impl = std::make_unique<Impl>();
  impl->sink = std::move(sink);
  impl->schema = std::move(schema);
  impl->options = options;
  ColumnWriteSettings& settings = impl->settings;
  QUIVER_ASSIGN_OR_RETURN(settings.codec, WritableCodec(options.compression));
  settings.level = options.compression_level;
  settings.page_bytes = options.data_page_bytes;
  settings.dictionary = options.use_dictionary;
  settings.dictionary_bytes = options.dictionary_page_bytes;
  settings.byte_stream_split = options.byte_stream_split;
  settings.statistics = options.write_statistics;
  settings.page_version = options.data_page_version;
  QUIVER_RETURN_NOT_OK(impl->BuildSchema());
  QUIVER_RETURN_NOT_OK(impl->sink->Write("PAR1", 4));
  return std::unique_ptr<ParquetWriter>(new ParquetWriter(std::move(impl)));
}

Status ParquetWriter::WriteTable(const Table& table) {
  QUIVER_RETURN_NOT_OK(impl_->Usable());
  QUIVER_RETURN_NOT_OK(impl_->CheckTableSchema(*table.schema()));
  const int64_t rows = table.num_rows();
  const int64_t step = impl_->options.row_group_rows;
  for (int64_t r0 = 0; r0 < rows; r0 += step) {
    QUIVER_RETURN_NOT_OK(impl_->WriteWhole(table, r0, std::min(step, rows - r0)));
  }
  return Status::OK();
}

Status ParquetWriter::Write(const RecordBatch& batch) {
  const RecordBatchPtr alias(RecordBatchPtr{}, &batch);  // not owned: used during the call
  const RecordBatchPtr batches[] = {alias};
  QUIVER_ASSIGN_OR_RETURN(TablePtr table, Table::FromRecordBatches(batch.schema(), batches));
  return WriteTable(*table);
}

Status ParquetWriter::Close() {
  if (impl_->closed) return impl_->failure;
  QUIVER_RETURN_NOT_OK(impl_->failure);
  impl_->closed = true;
  impl_->failure = impl_->WriteFooter();  // a second Close says the same
  return impl_->failure;
}

int64_t ParquetWriter::num_rows() const { return impl_->meta.num_rows; }
int ParquetWriter::num_row_groups() const {
  return static_cast<int>(impl_->meta.row_groups.size());
}

Status WriteParquet(const Table& table, io::OutputSink* sink, const ParquetWriteOptions& options) {
  const std::shared_ptr<io::OutputSink> borrowed(std::shared_ptr<io::OutputSink>{}, sink);
  QUIVER_ASSIGN_OR_RETURN(std::unique_ptr<ParquetWriter> writer,
                          ParquetWriter::Open(borrowed, table.schema(), options));
  QUIVER_RETURN_NOT_OK(writer->WriteTable(table));
  return writer->Close();
}

Status WriteParquetFile(const Table& table, const std::string& path,
                        const ParquetWriteOptions& options) {
  // Bad options and types leave no file behind, not even a temporary one.
  QUIVER_RETURN_NOT_OK(CheckOptions(options));
  QUIVER_RETURN_NOT_OK(WritableCodec(options.compression).status());
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<io::OutputSink> sink, io::OpenFileSink(path));
  QUIVER_RETURN_NOT_OK(WriteParquet(table, sink.get(), options));
  return sink->Close();
}

Result<BufferPtr> WriteParquetBuffer(const Table& table, const ParquetWriteOptions& options) {
  io::BufferSink sink;
  QUIVER_RETURN_NOT_OK(WriteParquet(table, &sink, options));
  return sink.Finish();
}

}  // namespace quiver::parquet
