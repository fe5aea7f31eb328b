#include "quiver/parquet/metadata.h"

#include <string_view>
#include <utility>

#include "quiver/parquet/thrift_compact.h"

namespace quiver::parquet {

const char* PhysicalTypeName(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBoolean: return "BOOLEAN";
    case PhysicalType::kInt32: return "INT32";
    case PhysicalType::kInt64: return "INT64";
    case PhysicalType::kInt96: return "INT96";
    case PhysicalType::kFloat: return "FLOAT";
    case PhysicalType::kDouble: return "DOUBLE";
    case PhysicalType::kByteArray: return "BYTE_ARRAY";
    case PhysicalType::kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "unknown physical type";
}

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kUncompressed: return "UNCOMPRESSED";
    case Codec::kSnappy: return "SNAPPY";
    case Codec::kGzip: return "GZIP";
    case Codec::kLzo: return "LZO";
    case Codec::kBrotli: return "BROTLI";
    case Codec::kLz4: return "LZ4";
    case Codec::kZstd: return "ZSTD";
    case Codec::kLz4Raw: return "LZ4_RAW";
  }
  return "unknown codec";
}

const char* EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain: return "PLAIN";
    case Encoding::kPlainDictionary: return "PLAIN_DICTIONARY";
    case Encoding::kRle: return "RLE";
    case Encoding::kBitPacked: return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked: return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray: return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary: return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit: return "BYTE_STREAM_SPLIT";
  }
  return "unknown encoding";
}

namespace {

// --- typed field values (the wire type checked against the field's) ---------

Status Expect(ThriftReader& r, const ThriftField& f, ThriftType type, const char* name) {
  const bool is_bool = f.type == ThriftType::kTrue || f.type == ThriftType::kFalse;
  if (f.type == type || (type == ThriftType::kTrue && is_bool)) return Status::OK();
  return r.WrongType(name, f, type);
}

Result<int32_t> I32(ThriftReader& r, const ThriftField& f, const char* name) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kI32, name));
  return r.ReadI32();
}

Result<int64_t> I64(ThriftReader& r, const ThriftField& f, const char* name) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kI64, name));
  return r.ReadI64();
}

// A size or count: an i64 (or i32) that may not be negative.
Result<int64_t> Count(ThriftReader& r, const ThriftField& f, const char* name) {
  int64_t value = 0;
  if (f.type == ThriftType::kI32) {
    QUIVER_ASSIGN_OR_RETURN(value, r.ReadI32());
  } else {
    QUIVER_ASSIGN_OR_RETURN(value, I64(r, f, name));
  }
  if (value < 0) return r.Error(std::string(name) + " is negative (" + std::to_string(value) + ")");
  return value;
}

Result<int32_t> Count32(ThriftReader& r, const ThriftField& f, const char* name) {
  QUIVER_ASSIGN_OR_RETURN(int32_t value, I32(r, f, name));
  if (value < 0) return r.Error(std::string(name) + " is negative (" + std::to_string(value) + ")");
  return value;
}

Result<std::string> String(ThriftReader& r, const ThriftField& f, const char* name) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kBinary, name));
  QUIVER_ASSIGN_OR_RETURN(std::string_view bytes, r.ReadBinary());
  return std::string(bytes);
}

Result<bool> Bool(ThriftReader& r, const ThriftField& f, const char* name) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kTrue, name));
  return f.type == ThriftType::kTrue;
}

// An enum value in [0, last].
template <typename Enum>
Result<Enum> EnumValue(ThriftReader& r, const ThriftField& f, const char* name, int32_t last) {
  QUIVER_ASSIGN_OR_RETURN(int32_t value, I32(r, f, name));
  if (value < 0 || value > last) {
    return r.Error(std::string("unknown ") + name + " " + std::to_string(value));
  }
  return static_cast<Enum>(value);
}

// *out = the result's value, or its error.
template <typename T, typename Out>
Status Store(Result<T> result, Out* out) {
  if (!result.ok()) return result.status();
  *out = std::move(*result);
  return Status::OK();
}

// Which required fields a struct has seen: bit i for field id i.
class Required {
 public:
  void Saw(int16_t id) {
    if (id < 64) seen_ |= uint64_t{1} << id;
  }
  // InvalidArgument naming the first of `ids` not seen.
  Status Check(ThriftReader& r, const char* structure,
               std::initializer_list<std::pair<int16_t, const char*>> ids) const {
    for (const auto& [id, name] : ids) {
      if (!(seen_ & (uint64_t{1} << id))) {
        return r.Error(std::string(structure) + " lacks its required field " + name);
      }
    }
    return Status::OK();
  }

 private:
  uint64_t seen_ = 0;
};

// --- structures ----------------------------------------------------------------

Result<KeyValueMetadata> ReadKeyValues(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "key_value_metadata"));
  KeyValueMetadata out;
  QUIVER_RETURN_NOT_OK(ReadList(r, "key_value_metadata", ThriftType::kStruct, [&](int64_t) {
    std::pair<std::string, std::string> kv;
    Required required;
    QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
      required.Saw(g.id);
      if (g.id == 1) return Store(String(r, g, "key"), &kv.first);
      if (g.id == 2) return Store(String(r, g, "value"), &kv.second);
      return r.Skip(g.type);
    }));
    QUIVER_RETURN_NOT_OK(required.Check(r, "KeyValue", {{1, "key"}}));
    out.push_back(std::move(kv));
    return Status::OK();
  }));
  return out;
}

Result<TimeUnit> ReadTimeUnit(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "unit"));
  std::optional<TimeUnit> unit;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    if (g.id >= 1 && g.id <= 3) {
      unit = g.id == 1 ? TimeUnit::kMilli : g.id == 2 ? TimeUnit::kMicro : TimeUnit::kNano;
    }
    return r.Skip(g.type);
  }));
  if (!unit) return r.Error("a time unit names none of MILLIS, MICROS, NANOS");
  return *unit;
}

Result<LogicalType> ReadLogicalType(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "logicalType"));
  LogicalType out;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& member) -> Status {
    if (member.type != ThriftType::kStruct) return r.Skip(member.type);
    // Members this reader does not know (newer ones) read as kNone: the
    // column then maps through its physical type, as the format allows.
    const bool known = (member.id >= 1 && member.id <= 8) || (member.id >= 10 && member.id <= 18);
    out.kind = known ? static_cast<LogicalType::Kind>(member.id) : LogicalType::kNone;
    return ReadStruct(r, [&](const ThriftField& g) -> Status {
      switch (out.kind) {
        case LogicalType::kDecimal:
          if (g.id == 1) return Store(I32(r, g, "scale"), &out.scale);
          if (g.id == 2) return Store(I32(r, g, "precision"), &out.precision);
          break;
        case LogicalType::kTime:
        case LogicalType::kTimestamp:
          if (g.id == 1) return Store(Bool(r, g, "isAdjustedToUTC"), &out.adjusted_to_utc);
          if (g.id == 2) return Store(ReadTimeUnit(r, g), &out.unit);
          break;
        case LogicalType::kInteger:
          if (g.id == 1) {
            QUIVER_RETURN_NOT_OK(Expect(r, g, ThriftType::kByte, "bitWidth"));
            return Store(r.ReadByte(), &out.bit_width);
          }
          if (g.id == 2) return Store(Bool(r, g, "isSigned"), &out.is_signed);
          break;
        default: break;
      }
      return r.Skip(g.type);
    });
  }));
  return out;
}

Result<SchemaElement> ReadSchemaElement(ThriftReader& r) {
  SchemaElement out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    required.Saw(f.id);
    switch (f.id) {
      case 1: return Store(EnumValue<PhysicalType>(r, f, "physical type", 7), &out.type);
      case 2: return Store(I32(r, f, "type_length"), &out.type_length);
      case 3: return Store(EnumValue<Repetition>(r, f, "repetition type", 2), &out.repetition);
      case 4: return Store(String(r, f, "name"), &out.name);
      case 5: return Store(Count32(r, f, "num_children"), &out.num_children);
      case 6: return Store(I32(r, f, "converted_type"), &out.converted_type);
      case 7: return Store(I32(r, f, "scale"), &out.scale);
      case 8: return Store(I32(r, f, "precision"), &out.precision);
      case 9: return Store(I32(r, f, "field_id"), &out.field_id);
      case 10: return Store(ReadLogicalType(r, f), &out.logical_type);
      default: return r.Skip(f.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(r, "SchemaElement", {{4, "name"}}));
  return out;
}

Result<Statistics> ReadStatistics(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "statistics"));
  Statistics out;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    switch (g.id) {
      case 1: return Store(String(r, g, "max"), &out.max);
      case 2: return Store(String(r, g, "min"), &out.min);
      case 3: return Store(Count(r, g, "null_count"), &out.null_count);
      case 4: return Store(Count(r, g, "distinct_count"), &out.distinct_count);
      case 5: return Store(String(r, g, "max_value"), &out.max_value);
      case 6: return Store(String(r, g, "min_value"), &out.min_value);
      case 9: return Store(Count(r, g, "nan_count"), &out.nan_count);
      default: return r.Skip(g.type);
    }
  }));
  return out;
}

Result<ColumnMetaData> ReadColumnMetaData(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "meta_data"));
  ColumnMetaData out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    required.Saw(g.id);
    switch (g.id) {
      case 1: return Store(EnumValue<PhysicalType>(r, g, "physical type", 7), &out.type);
      case 2:
        QUIVER_RETURN_NOT_OK(Expect(r, g, ThriftType::kList, "encodings"));
        return ReadList(r, "encodings", ThriftType::kI32, [&](int64_t) -> Status {
          // Kept as written: a page using an encoding quiver lacks is refused
          // when read, not the whole file.
          QUIVER_ASSIGN_OR_RETURN(int32_t value, r.ReadI32());
          out.encodings.push_back(static_cast<Encoding>(value));
          return Status::OK();
        });
      case 3:
        QUIVER_RETURN_NOT_OK(Expect(r, g, ThriftType::kList, "path_in_schema"));
        return ReadList(r, "path_in_schema", ThriftType::kBinary, [&](int64_t) -> Status {
          QUIVER_ASSIGN_OR_RETURN(std::string_view part, r.ReadBinary());
          out.path_in_schema.emplace_back(part);
          return Status::OK();
        });
      case 4: {
        QUIVER_ASSIGN_OR_RETURN(int32_t codec, I32(r, g, "codec"));
        out.codec = static_cast<Codec>(codec);  // refused when read, if unknown
        return Status::OK();
      }
      case 5: return Store(Count(r, g, "num_values"), &out.num_values);
      case 6: return Store(Count(r, g, "total_uncompressed_size"), &out.total_uncompressed_size);
      case 7: return Store(Count(r, g, "total_compressed_size"), &out.total_compressed_size);
      case 8: return Store(ReadKeyValues(r, g), &out.key_value_metadata);
      case 9: return Store(Count(r, g, "data_page_offset"), &out.data_page_offset);
      case 10: return Store(Count(r, g, "index_page_offset"), &out.index_page_offset);
      case 11: return Store(Count(r, g, "dictionary_page_offset"), &out.dictionary_page_offset);
      case 12: return Store(ReadStatistics(r, g), &out.statistics);
      default: return r.Skip(g.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(r, "ColumnMetaData",
                                      {{1, "type"},
                                       {2, "encodings"},
                                       {3, "path_in_schema"},
                                       {4, "codec"},
                                       {5, "num_values"},
                                       {6, "total_uncompressed_size"},
                                       {7, "total_compressed_size"},
                                       {9, "data_page_offset"}}));
  return out;
}

Result<ColumnChunk> ReadColumnChunk(ThriftReader& r) {
  ColumnChunk out;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    switch (f.id) {
      case 1: return Store(String(r, f, "file_path"), &out.file_path);
      case 2: return Store(I64(r, f, "file_offset"), &out.file_offset);
      case 3: return Store(ReadColumnMetaData(r, f), &out.meta_data);
      case 4: return Store(Count(r, f, "offset_index_offset"), &out.offset_index_offset);
      case 5: return Store(Count32(r, f, "offset_index_length"), &out.offset_index_length);
      case 6: return Store(Count(r, f, "column_index_offset"), &out.column_index_offset);
      case 7: return Store(Count32(r, f, "column_index_length"), &out.column_index_length);
      case 8:
      case 9: out.encrypted = true; return r.Skip(f.type);
      default: return r.Skip(f.type);
    }
  }));
  return out;
}

Result<RowGroup> ReadRowGroup(ThriftReader& r) {
  RowGroup out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    required.Saw(f.id);
    switch (f.id) {
      case 1:
        QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "columns"));
        return ReadList(r, "columns", ThriftType::kStruct, [&](int64_t) -> Status {
          QUIVER_ASSIGN_OR_RETURN(ColumnChunk chunk, ReadColumnChunk(r));
          out.columns.push_back(std::move(chunk));
          return Status::OK();
        });
      case 2: return Store(Count(r, f, "total_byte_size"), &out.total_byte_size);
      case 3: return Store(Count(r, f, "num_rows"), &out.num_rows);
      case 5: return Store(Count(r, f, "file_offset"), &out.file_offset);
      case 6: return Store(Count(r, f, "total_compressed_size"), &out.total_compressed_size);
      case 7:
        QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kI16, "ordinal"));
        return Store(r.ReadI16(), &out.ordinal);
      default: return r.Skip(f.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(
      required.Check(r, "RowGroup", {{1, "columns"}, {2, "total_byte_size"}, {3, "num_rows"}}));
  return out;
}

Result<DataPageHeader> ReadDataPageHeader(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "data_page_header"));
  DataPageHeader out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    required.Saw(g.id);
    switch (g.id) {
      case 1: return Store(Count32(r, g, "num_values"), &out.num_values);
      case 2: return Store(EnumValue<Encoding>(r, g, "encoding", 9), &out.encoding);
      case 3:
        return Store(EnumValue<Encoding>(r, g, "definition level encoding", 9),
                     &out.definition_level_encoding);
      case 4:
        return Store(EnumValue<Encoding>(r, g, "repetition level encoding", 9),
                     &out.repetition_level_encoding);
      case 5: return Store(ReadStatistics(r, g), &out.statistics);
      default: return r.Skip(g.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(r, "DataPageHeader",
                                      {{1, "num_values"},
                                       {2, "encoding"},
                                       {3, "definition_level_encoding"},
                                       {4, "repetition_level_encoding"}}));
  return out;
}

Result<DictionaryPageHeader> ReadDictionaryPageHeader(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "dictionary_page_header"));
  DictionaryPageHeader out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    required.Saw(g.id);
    switch (g.id) {
      case 1: return Store(Count32(r, g, "num_values"), &out.num_values);
      case 2: return Store(EnumValue<Encoding>(r, g, "encoding", 9), &out.encoding);
      case 3: return Store(Bool(r, g, "is_sorted"), &out.is_sorted);
      default: return r.Skip(g.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(
      required.Check(r, "DictionaryPageHeader", {{1, "num_values"}, {2, "encoding"}}));
  return out;
}

Result<DataPageHeaderV2> ReadDataPageHeaderV2(ThriftReader& r, const ThriftField& f) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kStruct, "data_page_header_v2"));
  DataPageHeaderV2 out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& g) -> Status {
    required.Saw(g.id);
    switch (g.id) {
      case 1: return Store(Count32(r, g, "num_values"), &out.num_values);
      case 2: return Store(Count32(r, g, "num_nulls"), &out.num_nulls);
      case 3: return Store(Count32(r, g, "num_rows"), &out.num_rows);
      case 4: return Store(EnumValue<Encoding>(r, g, "encoding", 9), &out.encoding);
      case 5:
        return Store(Count32(r, g, "definition_levels_byte_length"),
                     &out.definition_levels_byte_length);
      case 6:
        return Store(Count32(r, g, "repetition_levels_byte_length"),
                     &out.repetition_levels_byte_length);
      case 7: return Store(Bool(r, g, "is_compressed"), &out.is_compressed);
      case 8: return Store(ReadStatistics(r, g), &out.statistics);
      default: return r.Skip(g.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(r, "DataPageHeaderV2",
                                      {{1, "num_values"},
                                       {2, "num_nulls"},
                                       {3, "num_rows"},
                                       {4, "encoding"},
                                       {5, "definition_levels_byte_length"},
                                       {6, "repetition_levels_byte_length"}}));
  return out;
}

// --- writing ---------------------------------------------------------------------

void WriteKeyValues(ThriftWriter& w, int16_t id, const KeyValueMetadata& pairs) {
  if (pairs.empty()) return;
  w.ListHeader(id, ThriftType::kStruct, static_cast<int64_t>(pairs.size()));
  for (const auto& [key, value] : pairs) {
    w.BeginStruct();
    w.Binary(1, key);
    w.Binary(2, value);
    w.EndStruct();
  }
}

void WriteStatistics(ThriftWriter& w, int16_t id, const Statistics& s) {
  w.FieldHeader(id, ThriftType::kStruct);
  w.BeginStruct();
  if (s.max) w.Binary(1, *s.max);
  if (s.min) w.Binary(2, *s.min);
  if (s.null_count) w.I64(3, *s.null_count);
  if (s.distinct_count) w.I64(4, *s.distinct_count);
  if (s.max_value) w.Binary(5, *s.max_value);
  if (s.min_value) w.Binary(6, *s.min_value);
  if (s.nan_count) w.I64(9, *s.nan_count);
  w.EndStruct();
}

void WriteLogicalType(ThriftWriter& w, const LogicalType& type) {
  w.FieldHeader(10, ThriftType::kStruct);
  w.BeginStruct();
  w.FieldHeader(type.kind, ThriftType::kStruct);
  w.BeginStruct();
  switch (type.kind) {
    case LogicalType::kDecimal:
      w.I32(1, type.scale);
      w.I32(2, type.precision);
      break;
    case LogicalType::kTime:
    case LogicalType::kTimestamp: {
      w.Bool(1, type.adjusted_to_utc);
      w.FieldHeader(2, ThriftType::kStruct);
      w.BeginStruct();
      const int16_t unit = type.unit == TimeUnit::kMilli   ? 1
                           : type.unit == TimeUnit::kMicro ? 2
                                                           : 3;
      w.FieldHeader(unit, ThriftType::kStruct);
      w.BeginStruct();
      w.EndStruct();
      w.EndStruct();
      break;
    }
    case LogicalType::kInteger:
      w.Byte(1, type.bit_width);
      w.Bool(2, type.is_signed);
      break;
    default: break;
  }
  w.EndStruct();
  w.EndStruct();
}

void WriteSchemaElement(ThriftWriter& w, const SchemaElement& e) {
  w.BeginStruct();
  if (e.type) w.I32(1, static_cast<int32_t>(*e.type));
  if (e.type == PhysicalType::kFixedLenByteArray) w.I32(2, e.type_length);
  if (e.repetition) w.I32(3, static_cast<int32_t>(*e.repetition));
  w.Binary(4, e.name);
  if (e.num_children >= 0) w.I32(5, e.num_children);
  if (e.converted_type) w.I32(6, *e.converted_type);
  if (e.logical_type.kind == LogicalType::kDecimal || e.converted_type == 5) {
    w.I32(7, e.scale);
    w.I32(8, e.precision);
  }
  if (e.field_id) w.I32(9, *e.field_id);
  if (e.logical_type.kind != LogicalType::kNone) WriteLogicalType(w, e.logical_type);
  w.EndStruct();
}

void WriteColumnMetaData(ThriftWriter& w, const ColumnMetaData& m) {
  w.FieldHeader(3, ThriftType::kStruct);
  w.BeginStruct();
  w.I32(1, static_cast<int32_t>(m.type));
  w.ListHeader(2, ThriftType::kI32, static_cast<int64_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.I32Element(static_cast<int32_t>(e));
  w.ListHeader(3, ThriftType::kBinary, static_cast<int64_t>(m.path_in_schema.size()));
  for (const std::string& part : m.path_in_schema) w.BinaryElement(part);
  w.I32(4, static_cast<int32_t>(m.codec));
  w.I64(5, m.num_values);
  w.I64(6, m.total_uncompressed_size);
  w.I64(7, m.total_compressed_size);
  WriteKeyValues(w, 8, m.key_value_metadata);
  w.I64(9, m.data_page_offset);
  if (m.index_page_offset) w.I64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.I64(11, *m.dictionary_page_offset);
  if (m.statistics) WriteStatistics(w, 12, *m.statistics);
  w.EndStruct();
}

void WriteColumnChunk(ThriftWriter& w, const ColumnChunk& c) {
  w.BeginStruct();
  if (!c.file_path.empty()) w.Binary(1, c.file_path);
  w.I64(2, c.file_offset);
  if (c.meta_data) WriteColumnMetaData(w, *c.meta_data);
  if (c.offset_index_offset) {
    w.I64(4, *c.offset_index_offset);
    w.I32(5, c.offset_index_length);
  }
  if (c.column_index_offset) {
    w.I64(6, *c.column_index_offset);
    w.I32(7, c.column_index_length);
  }
  w.EndStruct();
}

void WriteRowGroup(ThriftWriter& w, const RowGroup& g) {
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kStruct, static_cast<int64_t>(g.columns.size()));
  for (const ColumnChunk& c : g.columns) WriteColumnChunk(w, c);
  w.I64(2, g.total_byte_size);
  w.I64(3, g.num_rows);
  if (g.file_offset) w.I64(5, *g.file_offset);
  if (g.total_compressed_size) w.I64(6, *g.total_compressed_size);
  if (g.ordinal) {
    w.I16(7, *g.ordinal);
  }
  w.EndStruct();
}

// Decodes one structure that must fill `size` bytes exactly, but for the
// tail(decoded) bytes that may follow it.
template <typename Tail, typename Read>
auto DecodeWhole(const uint8_t* data, int64_t size, const std::string& what, Tail&& tail,
                 Read&& read) -> decltype(read(std::declval<ThriftReader&>())) {
  ThriftReader reader(data, size, what);
  auto out = read(reader);
  if (out.ok() && reader.position() != size && reader.position() != size - tail(*out)) {
    return reader.Error("the structure ends before its " + std::to_string(size) + " bytes do");
  }
  return out;
}

// One structure that must fill `size` bytes exactly.
template <typename Read>
auto DecodeWhole(const uint8_t* data, int64_t size, const std::string& what, Read&& read)
    -> decltype(read(std::declval<ThriftReader&>())) {
  return DecodeWhole(
      data, size, what, [](const auto&) { return int64_t{0}; }, std::forward<Read>(read));
}

// The signature after the plaintext footer of a file whose columns are
// encrypted: a 12-byte nonce and a 16-byte tag. Such a file is refused by
// name (ParquetFile::Open), not as a malformed footer.
constexpr int64_t kFooterSignatureBytes = 28;

}  // namespace

Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, int64_t size,
                                        const std::string& what) {
  auto signature = [](const FileMetaData& m) { return m.encrypted ? kFooterSignatureBytes : 0; };
  return DecodeWhole(data, size, what, signature, [](ThriftReader& r) -> Result<FileMetaData> {
    FileMetaData out;
    Required required;
    QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
      required.Saw(f.id);
      switch (f.id) {
        case 1: return Store(I32(r, f, "version"), &out.version);
        case 2:
          QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "schema"));
          return ReadList(r, "schema", ThriftType::kStruct, [&](int64_t) -> Status {
            QUIVER_ASSIGN_OR_RETURN(SchemaElement element, ReadSchemaElement(r));
            out.schema.push_back(std::move(element));
            return Status::OK();
          });
        case 3: return Store(Count(r, f, "num_rows"), &out.num_rows);
        case 4:
          QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "row_groups"));
          return ReadList(r, "row_groups", ThriftType::kStruct, [&](int64_t) -> Status {
            QUIVER_ASSIGN_OR_RETURN(RowGroup group, ReadRowGroup(r));
            out.row_groups.push_back(std::move(group));
            return Status::OK();
          });
        case 5: return Store(ReadKeyValues(r, f), &out.key_value_metadata);
        case 6: return Store(String(r, f, "created_by"), &out.created_by);
        case 8: out.encrypted = true; return r.Skip(f.type);
        default: return r.Skip(f.type);
      }
    }));
    QUIVER_RETURN_NOT_OK(required.Check(
        r, "FileMetaData", {{1, "version"}, {2, "schema"}, {3, "num_rows"}, {4, "row_groups"}}));
    return out;
  });
}

std::string EncodeFileMetaData(const FileMetaData& m) {
  ThriftWriter w;
  w.BeginStruct();
  w.I32(1, m.version);
  w.ListHeader(2, ThriftType::kStruct, static_cast<int64_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema) WriteSchemaElement(w, e);
  w.I64(3, m.num_rows);
  w.ListHeader(4, ThriftType::kStruct, static_cast<int64_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups) WriteRowGroup(w, g);
  WriteKeyValues(w, 5, m.key_value_metadata);
  if (!m.created_by.empty()) w.Binary(6, m.created_by);
  if (m.type_defined_column_orders > 0) {
    w.ListHeader(7, ThriftType::kStruct, m.type_defined_column_orders);
    for (int32_t i = 0; i < m.type_defined_column_orders; ++i) {
      w.BeginStruct();  // the ColumnOrder union
      w.FieldHeader(1, ThriftType::kStruct);
      w.BeginStruct();  // TypeDefinedOrder: no fields
      w.EndStruct();
      w.EndStruct();
    }
  }
  w.EndStruct();
  return w.Take();
}

Result<PageHeader> DecodePageHeader(const uint8_t* data, int64_t size, const std::string& what,
                                    int64_t* header_size) {
  ThriftReader r(data, size, what);
  PageHeader out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    required.Saw(f.id);
    switch (f.id) {
      case 1: return Store(EnumValue<PageType>(r, f, "page type", 3), &out.type);
      case 2: return Store(Count32(r, f, "uncompressed_page_size"), &out.uncompressed_page_size);
      case 3: return Store(Count32(r, f, "compressed_page_size"), &out.compressed_page_size);
      case 4: return Store(I32(r, f, "crc"), &out.crc);
      case 5: return Store(ReadDataPageHeader(r, f), &out.data_page);
      case 7: return Store(ReadDictionaryPageHeader(r, f), &out.dictionary_page);
      case 8: return Store(ReadDataPageHeaderV2(r, f), &out.data_page_v2);
      default: return r.Skip(f.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(
      r, "PageHeader", {{1, "type"}, {2, "uncompressed_page_size"}, {3, "compressed_page_size"}}));
  const bool has_header = (out.type == PageType::kDataPage && out.data_page) ||
                          (out.type == PageType::kDictionaryPage && out.dictionary_page) ||
                          (out.type == PageType::kDataPageV2 && out.data_page_v2) ||
                          out.type == PageType::kIndexPage;
  if (!has_header) return r.Error("a page header lacks the header of its page type");
  *header_size = r.position();
  return out;
}

std::string EncodePageHeader(const PageHeader& h) {
  ThriftWriter w;
  w.BeginStruct();
  w.I32(1, static_cast<int32_t>(h.type));
  w.I32(2, h.uncompressed_page_size);
  w.I32(3, h.compressed_page_size);
  if (h.crc) w.I32(4, *h.crc);
  if (h.data_page) {
    const DataPageHeader& d = *h.data_page;
    w.FieldHeader(5, ThriftType::kStruct);
    w.BeginStruct();
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    w.I32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.I32(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) WriteStatistics(w, 5, *d.statistics);
    w.EndStruct();
  }
  if (h.dictionary_page) {
    const DictionaryPageHeader& d = *h.dictionary_page;
    w.FieldHeader(7, ThriftType::kStruct);
    w.BeginStruct();
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.Bool(3, true);
    w.EndStruct();
  }
  if (h.data_page_v2) {
    const DataPageHeaderV2& d = *h.data_page_v2;
    w.FieldHeader(8, ThriftType::kStruct);
    w.BeginStruct();
    w.I32(1, d.num_values);
    w.I32(2, d.num_nulls);
    w.I32(3, d.num_rows);
    w.I32(4, static_cast<int32_t>(d.encoding));
    w.I32(5, d.definition_levels_byte_length);
    w.I32(6, d.repetition_levels_byte_length);
    w.Bool(7, d.is_compressed);
    if (d.statistics) WriteStatistics(w, 8, *d.statistics);
    w.EndStruct();
  }
  w.EndStruct();
  return w.Take();
}

const char* BoundaryOrderName(BoundaryOrder order) {
  switch (order) {
    case BoundaryOrder::kUnordered: return "unordered";
    case BoundaryOrder::kAscending: return "ascending";
    case BoundaryOrder::kDescending: return "descending";
  }
  return "unknown boundary order";
}

namespace {

// A list<i64> field of counts (none negative).
Status ReadCounts(ThriftReader& r, const ThriftField& f, const char* name,
                  std::vector<int64_t>* out) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, name));
  out->clear();
  return ReadList(r, name, ThriftType::kI64, [&](int64_t i) -> Status {
    QUIVER_ASSIGN_OR_RETURN(int64_t value, r.ReadI64());
    if (value < 0) {
      return r.Error(std::string(name) + "[" + std::to_string(i) + "] is negative (" +
                     std::to_string(value) + ")");
    }
    out->push_back(value);
    return Status::OK();
  });
}

Status ReadBinaries(ThriftReader& r, const ThriftField& f, const char* name,
                    std::vector<std::string>* out) {
  QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, name));
  out->clear();
  return ReadList(r, name, ThriftType::kBinary, [&](int64_t) -> Status {
    QUIVER_ASSIGN_OR_RETURN(std::string_view value, r.ReadBinary());
    out->emplace_back(value);
    return Status::OK();
  });
}

Result<PageLocation> ReadPageLocation(ThriftReader& r) {
  PageLocation out;
  Required required;
  QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
    required.Saw(f.id);
    switch (f.id) {
      case 1: return Store(Count(r, f, "offset"), &out.offset);
      case 2: return Store(Count32(r, f, "compressed_page_size"), &out.compressed_page_size);
      case 3: return Store(Count(r, f, "first_row_index"), &out.first_row_index);
      default: return r.Skip(f.type);
    }
  }));
  QUIVER_RETURN_NOT_OK(required.Check(
      r, "PageLocation", {{1, "offset"}, {2, "compressed_page_size"}, {3, "first_row_index"}}));
  return out;
}

// An error unless `list` holds one entry per page.
template <typename List>
Status CheckLength(ThriftReader& r, const char* structure, const char* name, const List& list,
                   size_t pages, const char* per) {
  if (list.size() == pages) return Status::OK();
  return r.Error(std::string(structure) + "'s " + name + " holds " + std::to_string(list.size()) +
                 " entries for its " + std::to_string(pages) + " " + per);
}

}  // namespace

Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, int64_t size, const std::string& what) {
  return DecodeWhole(data, size, what, [](ThriftReader& r) -> Result<OffsetIndex> {
    OffsetIndex out;
    Required required;
    QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
      required.Saw(f.id);
      switch (f.id) {
        case 1:
          QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "page_locations"));
          out.page_locations.clear();
          return ReadList(r, "page_locations", ThriftType::kStruct, [&](int64_t i) -> Status {
            QUIVER_ASSIGN_OR_RETURN(PageLocation page, ReadPageLocation(r));
            if (i > 0 && page.first_row_index < out.page_locations.back().first_row_index) {
              return r.Error("OffsetIndex page " + std::to_string(i) + "'s first_row_index " +
                             std::to_string(page.first_row_index) + " is below page " +
                             std::to_string(i - 1) + "'s (" +
                             std::to_string(out.page_locations.back().first_row_index) + ")");
            }
            out.page_locations.push_back(page);
            return Status::OK();
          });
        case 2:
          out.unencoded_byte_array_data_bytes.emplace();
          return ReadCounts(r, f, "unencoded_byte_array_data_bytes",
                            &*out.unencoded_byte_array_data_bytes);
        default: return r.Skip(f.type);
      }
    }));
    QUIVER_RETURN_NOT_OK(required.Check(r, "OffsetIndex", {{1, "page_locations"}}));
    if (out.unencoded_byte_array_data_bytes) {
      QUIVER_RETURN_NOT_OK(CheckLength(r, "OffsetIndex", "unencoded_byte_array_data_bytes",
                                       *out.unencoded_byte_array_data_bytes,
                                       out.page_locations.size(), "page locations"));
    }
    return out;
  });
}

std::string EncodeOffsetIndex(const OffsetIndex& index) {
  ThriftWriter w;
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kStruct, static_cast<int64_t>(index.page_locations.size()));
  for (const PageLocation& page : index.page_locations) {
    w.BeginStruct();
    w.I64(1, page.offset);
    w.I32(2, page.compressed_page_size);
    w.I64(3, page.first_row_index);
    w.EndStruct();
  }
  if (index.unencoded_byte_array_data_bytes) {
    const std::vector<int64_t>& bytes = *index.unencoded_byte_array_data_bytes;
    w.ListHeader(2, ThriftType::kI64, static_cast<int64_t>(bytes.size()));
    for (int64_t b : bytes) w.I64Element(b);
  }
  w.EndStruct();
  return w.Take();
}

Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, int64_t size, const std::string& what) {
  return DecodeWhole(data, size, what, [](ThriftReader& r) -> Result<ColumnIndex> {
    ColumnIndex out;
    Required required;
    QUIVER_RETURN_NOT_OK(ReadStruct(r, [&](const ThriftField& f) -> Status {
      required.Saw(f.id);
      switch (f.id) {
        case 1:
          QUIVER_RETURN_NOT_OK(Expect(r, f, ThriftType::kList, "null_pages"));
          out.null_pages.clear();
          return ReadList(r, "null_pages", ThriftType::kTrue, [&](int64_t) -> Status {
            QUIVER_ASSIGN_OR_RETURN(bool value, r.ReadBoolElement());
            out.null_pages.push_back(value);
            return Status::OK();
          });
        case 2: return ReadBinaries(r, f, "min_values", &out.min_values);
        case 3: return ReadBinaries(r, f, "max_values", &out.max_values);
        case 4:
          return Store(EnumValue<BoundaryOrder>(r, f, "boundary_order", 2), &out.boundary_order);
        case 5:
          out.null_counts.emplace();
          return ReadCounts(r, f, "null_counts", &*out.null_counts);
        default: return r.Skip(f.type);  // the level histograms among others
      }
    }));
    QUIVER_RETURN_NOT_OK(required.Check(
        r, "ColumnIndex",
        {{1, "null_pages"}, {2, "min_values"}, {3, "max_values"}, {4, "boundary_order"}}));
    const size_t pages = out.null_pages.size();
    QUIVER_RETURN_NOT_OK(
        CheckLength(r, "ColumnIndex", "min_values", out.min_values, pages, "null_pages"));
    QUIVER_RETURN_NOT_OK(
        CheckLength(r, "ColumnIndex", "max_values", out.max_values, pages, "null_pages"));
    if (out.null_counts) {
      QUIVER_RETURN_NOT_OK(
          CheckLength(r, "ColumnIndex", "null_counts", *out.null_counts, pages, "null_pages"));
    }
    return out;
  });
}

std::string EncodeColumnIndex(const ColumnIndex& index) {
  ThriftWriter w;
  w.BeginStruct();
  w.ListHeader(1, ThriftType::kTrue, static_cast<int64_t>(index.null_pages.size()));
  for (bool null_page : index.null_pages) w.BoolElement(null_page);
  w.ListHeader(2, ThriftType::kBinary, static_cast<int64_t>(index.min_values.size()));
  for (const std::string& v : index.min_values) w.BinaryElement(v);
  w.ListHeader(3, ThriftType::kBinary, static_cast<int64_t>(index.max_values.size()));
  for (const std::string& v : index.max_values) w.BinaryElement(v);
  w.I32(4, static_cast<int32_t>(index.boundary_order));
  if (index.null_counts) {
    w.ListHeader(5, ThriftType::kI64, static_cast<int64_t>(index.null_counts->size()));
    for (int64_t n : *index.null_counts) w.I64Element(n);
  }
  w.EndStruct();
  return w.Take();
}

}  // namespace quiver::parquet
