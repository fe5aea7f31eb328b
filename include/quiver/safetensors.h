// safetensors files (the Hugging Face weights format): read memory-mapped
// and zero-copy, written atomically in the reference writer's layout.
//
// A file is an 8-byte little-endian header length N, N bytes of UTF-8
// JSON, then the data section. The JSON maps each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (byte offsets into the
// data section) and may hold "__metadata__", a string -> string map.
//
// Element types: BOOL -> bool8, U8..U64, I8..I64, F16, F32 and F64 -> the
// matching quiver type; BF16 -> bfloat16, F8_E4M3 -> float8_e4m3fn (the
// reference's F8_E4M3 has no infinities: the "fn" variant), F8_E5M2 ->
// float8_e5m2, and back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/dims.h"
#include "quiver/io.h"
#include "quiver/status.h"
#include "quiver/table.h"
#include "quiver/tensor.h"

namespace quiver {

// The reference's cap on the header length (bytes).
inline constexpr int64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// One tensor of a file, as its header describes it.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // "F32", "BF16", ...
  Dims shape;         // elements
  // Bytes [begin, end) of the data section (which starts after the header).
  int64_t begin = 0;
  int64_t end = 0;
};

// An opened file: the header is parsed and checked when it opens, the
// tensors are views of the mapped bytes made when asked for (nothing is
// read or copied until then; the kernel pages the bytes in).
class SafetensorsFile {
 public:
  // Maps the file at `path`. IOError when it cannot be opened; Invalid,
  // naming the file (and the tensor), when it breaks a rule of the format:
  // shorter than 8 bytes, a header length above 100 MB or past the end of
  // the file, a header that is not a UTF-8 JSON object, an unknown dtype, a
  // negative shape, offsets that do not match shape x width, that overlap,
  // leave a gap or do not end where the file does, a name twice.
  static Result<SafetensorsFile> Open(const std::string& path);
  // The same over bytes in memory (zero-copy); `name` is what errors call
  // them (empty: "the input").
  static Result<SafetensorsFile> FromBuffer(BufferPtr bytes, const std::string& name = "");

  // Every tensor, in data order (by offset).
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  // Tensor names in data order.
  std::vector<std::string> names() const;
  // The "__metadata__" map (empty when the file has none).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // The entry named `name`, or nullptr.
  const SafetensorsEntry* Find(const std::string& name) const;
  // A row-major view of the tensor's bytes (zero-copy; it keeps the
  // mapping alive). IndexError for an unknown name.
  Result<Tensor> GetTensor(const std::string& name) const;
  // The data section's offset in the file: 8 + header length (bytes).
  int64_t data_offset() const { return data_offset_; }

 private:
  BufferPtr bytes_;
  std::string file_name_;
  int64_t data_offset_ = 0;
  std::vector<SafetensorsEntry> entries_;
  std::map<std::string, size_t> by_name_;
  std::map<std::string, std::string> metadata_;
};

// A tensor to write. `dtype` empty: the one matching tensor's type (bool8
// -> BOOL, float16 -> F16, bfloat16 -> BF16, ...); otherwise any
// safetensors dtype of the same width (uint16 bits written as "BF16",
// uint8 as "F8_E4M3").
struct SafetensorsInput {
  std::string name;
  Tensor tensor;
  std::string dtype;
};

// The bytes of a safetensors file holding `tensors` (any strides: they are
// written row-major) and `metadata`, in the reference writer's layout:
// tensors ordered by dtype from the widest (U64, I64, F64, F32, ...) to
// BOOL, then by name; the header padded with spaces to a multiple of 8.
// Invalid for a duplicate name, "__metadata__" as a name, a type
// with no safetensors dtype, a dtype of another width, text that is not
// UTF-8; NotImplemented for a tensor in device memory.
Status WriteSafetensors(const std::vector<SafetensorsInput>& tensors,
                        const std::map<std::string, std::string>& metadata, io::OutputSink* sink);
// The same to `path`, atomically: a temporary name renamed over the path
// once every byte is written (OpenFileSink).
Status WriteSafetensorsFile(const std::vector<SafetensorsInput>& tensors,
                            const std::map<std::string, std::string>& metadata,
                            const std::string& path);

// --- A file as a table and back (the `quiver convert` form, Python's
// qv.safetensors.to_table / from_table) ---

// The field metadata key that keeps each column's safetensors dtype, so that
// BF16 and F8_* columns (which hold their bits as uint16 / uint8) keep their
// meaning through an Arrow file.
inline constexpr const char* kSafetensorsDtypeKey = "safetensors.dtype";

// `file` as a one-row table: one arrow.fixed_shape_tensor column per tensor,
// in data order, named after it, its field metadata
// {kSafetensorsDtypeKey: dtype}; the file's __metadata__ as the schema's
// metadata. Zero-copy: every column views the file's bytes and keeps them
// (the mapping) alive.
Result<TablePtr> SafetensorsToTable(const SafetensorsFile& file);

// What a safetensors file is written from.
struct SafetensorsContents {
  std::vector<SafetensorsInput> tensors;
  std::map<std::string, std::string> metadata;
};

// The tensors of a table in the form above: exactly one row (in any number
// of chunks), every column an arrow.fixed_shape_tensor whose row is not
// null; a column's tensor is a view of its row (zero-copy; a permutation
// gives a strided view), named after the column, written with the dtype of
// its kSafetensorsDtypeKey metadata when that is BF16 / F8_* (the bits'
// meaning), else the one of its element type. The schema's metadata becomes
// `metadata` (a key given twice keeps its first value). Invalid naming the
// column for another column type or a null row; Invalid for a row count
// other than one.
Result<SafetensorsContents> SafetensorsFromTable(const Table& table);

}  // namespace quiver
