// NumPy's .npy format (NEP 1: "\x93NUMPY", a version, a header length and
// a Python dict literal giving descr, fortran_order and shape, then the
// raw elements), read and written without NumPy.
//
// The reader trusts nothing: the magic, version, header length, the
// literal's syntax, its keys, the dtype (numeric or bool, either byte
// order), every shape entry and their product, and the data length are
// checked, each error naming what is wrong and where ("header: shape entry
// 1 is -3"). Nothing in the header is evaluated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "quiver/buffer.h"
#include "quiver/ipc.h"
#include "quiver/status.h"
#include "quiver/tensor.h"

namespace quiver::tools {

// What a .npy header says.
struct NpyHeader {
  TypePtr type;                // int8..uint64, float16/32/64, or bool8 for '|b1'
  bool big_endian = false;     // '>' in descr (multi-byte types only)
  bool fortran_order = false;  // elements in column-major order
  std::vector<int64_t> shape;
  int major_version = 1;
  int64_t data_offset = 0;  // bytes from the start of the file to the elements
  int64_t data_bytes = 0;   // product(shape) * itemsize
};

// Parses the header at the start of `bytes` (which need not hold the
// elements). Invalid with a message naming the problem; NotImplemented for
// well-formed dtypes quiver has no tensor type for (complex, strings,
// structured, object, datetime).
Result<NpyHeader> ParseNpyHeader(const uint8_t* bytes, int64_t size);

// A whole .npy: the header, then the elements as a native-order, row-major
// tensor. Zero-copy (a view of `bytes`) when the file is already so;
// big-endian data is byte-swapped and Fortran-ordered data transposed into
// a copy. The data must be exactly data_bytes long.
struct NpyArray {
  NpyHeader header;
  Tensor tensor;
  bool copied = false;
};
Result<NpyArray> ReadNpy(const BufferPtr& bytes);

// The .npy header NumPy's np.save writes for `type` and `shape` (C order,
// little-endian, version 1.0 unless the header needs 2.0), so that a file
// written from it and the elements is byte-identical to np.save's.
Result<std::string> NpyHeaderFor(const DataType& type, const std::vector<int64_t>& shape);

// Writes `tensor` (any strides, host memory) as a .npy file at `path`
// (written under a temporary name and renamed: see ipc::OpenFileSink).
Status WriteNpy(const Tensor& tensor, const std::string& path);
// The same bytes into `sink` (flushed, not closed).
Status WriteNpy(const Tensor& tensor, ipc::OutputSink* sink);

}  // namespace quiver::tools
