// DecodeValues: which encodings each physical type takes, and the decoder
// for each (plain_decoder.cc, dictionary_decoder.cc, byte_stream_split.cc,
// delta_decoders.cc). A decoder that fails leaves `out` as it was.
#include "quiver/parquet/value_decoder.h"

#include <string>

#include "quiver/parquet/value_decoders.h"

namespace quiver::parquet {

namespace {

bool Takes(Encoding encoding, PhysicalType type) {
  switch (encoding) {
    case Encoding::kPlain:
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary: return true;
    case Encoding::kRle: return type == PhysicalType::kBoolean;
    case Encoding::kByteStreamSplit:
      return type == PhysicalType::kFloat || type == PhysicalType::kDouble ||
             type == PhysicalType::kInt32 || type == PhysicalType::kInt64 ||
             type == PhysicalType::kFixedLenByteArray;
    case Encoding::kDeltaBinaryPacked:
      return type == PhysicalType::kInt32 || type == PhysicalType::kInt64;
    case Encoding::kDeltaLengthByteArray: return type == PhysicalType::kByteArray;
    case Encoding::kDeltaByteArray:
      return type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray;
    case Encoding::kBitPacked: return false;
  }
  return false;
}

bool Known(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
    case Encoding::kPlainDictionary:
    case Encoding::kRle:
    case Encoding::kBitPacked:
    case Encoding::kDeltaBinaryPacked:
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray:
    case Encoding::kRleDictionary:
    case Encoding::kByteStreamSplit: return true;
  }
  return false;
}

Status Dispatch(Encoding encoding, const uint8_t* data, int64_t size, int64_t count,
                const ColumnValues* dictionary, ColumnValues* out, const std::string& what) {
  switch (encoding) {
    case Encoding::kPlain: return DecodePlain(data, size, count, out, what);
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if (dictionary == nullptr) {
        return Status::Invalid(what, ": a ", EncodingName(encoding),
                               " page in a column chunk without a dictionary page");
      }
      if (dictionary->type != out->type || dictionary->width != out->width) {
        return Status::Invalid(what, ": a dictionary of ", PhysicalTypeName(dictionary->type), " (",
                               dictionary->width, " bytes) for a column of ",
                               PhysicalTypeName(out->type), " (", out->width, " bytes)");
      }
      return DecodeDictionary(data, size, count, *dictionary, out, what);
    case Encoding::kRle: return DecodeRleBoolean(data, size, count, out, what);
    case Encoding::kByteStreamSplit: return DecodeByteStreamSplit(data, size, count, out, what);
    case Encoding::kDeltaBinaryPacked: return DecodeDeltaBinaryPacked(data, size, count, out, what);
    case Encoding::kDeltaLengthByteArray:
      return DecodeDeltaLengthByteArray(data, size, count, out, what);
    case Encoding::kDeltaByteArray: return DecodeDeltaByteArray(data, size, count, out, what);
    case Encoding::kBitPacked: break;
  }
  return Status::Invalid(what, ": ", EncodingName(encoding), " values");
}

}  // namespace

Status DecodeValues(Encoding encoding, const uint8_t* data, int64_t size, int64_t count,
                    const ColumnValues* dictionary, ColumnValues* out, const std::string& what) {
  if (!Known(encoding)) {
    return Status::NotImplemented(what, ": values in encoding ", static_cast<int32_t>(encoding),
                                  ", which quiver does not read");
  }
  if (!Takes(encoding, out->type)) {
    return Status::Invalid(what, ": ", PhysicalTypeName(out->type), " values in ",
                           EncodingName(encoding), ", which that type does not take");
  }
  if (count < 0 || count > (int64_t{1} << 31)) {
    return Status::Invalid(what, ": a page of ", count, " values (0 to 2^31)");
  }
  if (size < 0 || (data == nullptr && size > 0)) {
    return Status::Invalid(what, ": a page of ", size, " bytes");
  }
  if (out->type == PhysicalType::kByteArray && out->offsets.size() == 0) {
    const int32_t zero = 0;
    QUIVER_RETURN_NOT_OK(out->offsets.Append(&zero, sizeof(zero)));
  }
  // A page of nulls only: whatever its values section holds (often
  // nothing), there is nothing to decode.
  if (count == 0) return Status::OK();
  const int64_t fixed = out->fixed.size();
  const int64_t offsets = out->offsets.size();
  const int64_t bytes = out->bytes.size();
  const int64_t values = out->count;
  Status status = Dispatch(encoding, data, size, count, dictionary, out, what);
  if (!status.ok()) {
    out->fixed.Shrink(out->fixed.size() - fixed);
    out->offsets.Shrink(out->offsets.size() - offsets);
    out->bytes.Shrink(out->bytes.size() - bytes);
    out->count = values;
  }
  return status;
}

}  // namespace quiver::parquet
