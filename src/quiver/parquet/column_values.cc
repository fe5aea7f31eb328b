#include "quiver/parquet/value_decoder.h"

namespace quiver::parquet {

Result<ColumnValues> ColumnValues::Make(PhysicalType type, int32_t type_length) {
  ColumnValues out;
  out.type = type;
  switch (type) {
    case PhysicalType::kBoolean: out.width = 1; break;
    case PhysicalType::kInt32:
    case PhysicalType::kFloat: out.width = 4; break;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble: out.width = 8; break;
    case PhysicalType::kInt96: out.width = 12; break;
    case PhysicalType::kFixedLenByteArray:
      if (type_length <= 0) {
        return Status::Invalid("a FIXED_LEN_BYTE_ARRAY of length ", type_length);
      }
      out.width = type_length;
      break;
    case PhysicalType::kByteArray: {
      out.width = 0;
      const int32_t zero = 0;
      QUIVER_RETURN_NOT_OK(out.offsets.Append(&zero, sizeof(zero)));
      break;
    }
  }
  return out;
}

}  // namespace quiver::parquet
