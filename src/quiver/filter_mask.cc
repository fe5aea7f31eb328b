// Filter masks from boolean arrays: a null selects nothing, as pyarrow's
// default (null_selection_behavior="drop") has it.
#include <string>
#include <vector>

#include "quiver/internal/bitmap.h"
#include "quiver/internal/checked_math.h"
#include "quiver/selection.h"

namespace quiver {

namespace {

// Whether buffer `b` of `chunk` holds `bits` bits (or bytes) from slot
// `chunk.offset` on; the mask reads them whatever level the chunk was
// validated at.
Status CheckBuffer(const ArrayData& chunk, size_t b, bool bits, const std::string& where,
                   const char* what) {
  QUIVER_ASSIGN_OR_RETURN(const int64_t end,
                          internal::AddChecked(chunk.offset, chunk.length, where));
  const int64_t need = bits ? (end + 7) / 8 : end;
  const int64_t have = chunk.buffers[b] ? chunk.buffers[b]->size() : 0;
  if (have < need) {
    return Status::Invalid(where, ": its ", what, " has ", have, " bytes, ", chunk.length,
                           " slots from offset ", chunk.offset, " need ", need);
  }
  return Status::OK();
}

Status AppendChunk(const ArrayData& chunk, const std::string& where, std::vector<uint8_t>* out) {
  const bool packed = chunk.type->id() == TypeId::kBool;
  if (!packed && !chunk.type->is_bool8()) {
    return Status::TypeError(where, " is ", chunk.type->ToString(),
                             "; a filter mask holds booleans (bool or bool8)");
  }
  if (chunk.offset < 0 || chunk.length < 0) {
    return Status::Invalid(where, ": offset ", chunk.offset, " and length ", chunk.length);
  }
  if (chunk.buffers.size() < 2 || !chunk.buffers[1]) {
    return Status::Invalid(where, " has no values buffer");
  }
  QUIVER_RETURN_NOT_OK(CheckBuffer(chunk, 1, packed, where, "values buffer"));
  const uint8_t* validity = chunk.buffers[0] ? chunk.buffers[0]->data() : nullptr;
  if (validity) QUIVER_RETURN_NOT_OK(CheckBuffer(chunk, 0, true, where, "validity bitmap"));
  const uint8_t* values = chunk.buffers[1]->data();
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(chunk.length));
  uint8_t* dst = out->data() + start;
  for (int64_t i = 0; i < chunk.length; ++i) {
    const int64_t slot = chunk.offset + i;
    const bool set = packed ? internal::GetBit(values, slot) : values[slot] != 0;
    dst[i] = set && (!validity || internal::GetBit(validity, slot));
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<uint8_t>> FilterMask(std::span<const ArrayDataPtr> chunks) {
  std::vector<uint8_t> out;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const std::string where = chunks.size() == 1 ? "the mask" : "mask chunk " + std::to_string(k);
    if (!chunks[k] || !chunks[k]->type) return Status::Invalid(where, " has no array");
    QUIVER_RETURN_NOT_OK(AppendChunk(*chunks[k], where, &out));
  }
  return out;
}

Result<std::vector<uint8_t>> FilterMask(const ArrayDataPtr& mask) {
  return FilterMask(std::span<const ArrayDataPtr>(&mask, 1));
}

}  // namespace quiver
