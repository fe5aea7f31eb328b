// The Arrow C++ half of the compatibility program: builds sparse tensors
// with Arrow C++ from plain data and writes them with arrow::ipc, and reads
// messages with arrow::ipc back into plain data. Nothing of quiver here.
#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <arrow/ipc/reader.h>
#include <arrow/ipc/writer.h>
#include <arrow/sparse_tensor.h>
#include <arrow/tensor.h>
#include <arrow/type.h>

#include <cstring>
#include <map>

#include "plain_sparse.h"

namespace compat {

namespace {

using arrow::Buffer;
using arrow::DataType;

std::shared_ptr<DataType> ArrowType(const std::string& name) {
  static const std::map<std::string, std::shared_ptr<DataType>> types = {
      {"int8", arrow::int8()},       {"int16", arrow::int16()},     {"int32", arrow::int32()},
      {"int64", arrow::int64()},     {"uint8", arrow::uint8()},     {"uint16", arrow::uint16()},
      {"uint32", arrow::uint32()},   {"uint64", arrow::uint64()},   {"float16", arrow::float16()},
      {"float32", arrow::float32()}, {"float64", arrow::float64()}, {"bool8", arrow::int8()}};
  auto it = types.find(name);
  return it == types.end() ? nullptr : it->second;
}

std::string TypeName(const DataType& type) {
  switch (type.id()) {
    case arrow::Type::HALF_FLOAT: return "float16";
    case arrow::Type::FLOAT: return "float32";
    case arrow::Type::DOUBLE: return "float64";
    default: return type.ToString();  // int8 .. uint64 share quiver's names
  }
}

// `values` (int64) stored as `type` in a new buffer.
std::shared_ptr<Buffer> IndexBuffer(const std::vector<int64_t>& values, const std::string& type) {
  const int64_t width = WidthOf(type);
  auto buffer =
      std::shared_ptr<Buffer>(*arrow::AllocateBuffer(static_cast<int64_t>(values.size()) * width));
  for (size_t i = 0; i < values.size(); ++i) {
    std::memcpy(buffer->mutable_data() + i * width, &values[i], width);  // little-endian truncation
  }
  return buffer;
}

std::shared_ptr<Buffer> Bytes(const std::vector<uint8_t>& bytes) {
  auto buffer = std::shared_ptr<Buffer>(*arrow::AllocateBuffer(static_cast<int64_t>(bytes.size())));
  if (!bytes.empty()) std::memcpy(buffer->mutable_data(), bytes.data(), bytes.size());
  return buffer;
}

// Entries of a 1-D or 2-D integer tensor, row by row (TensorEntries).
std::vector<int64_t> Entries(const arrow::Tensor& tensor) {
  return TensorEntries(tensor, TypeName(*tensor.type()));
}

arrow::Result<std::shared_ptr<arrow::SparseTensor>> Build(const PlainSparse& in) {
  auto value_type = ArrowType(in.value_type);
  auto data = Bytes(in.values);
  if (in.format == "COO") {
    const int64_t ndim = static_cast<int64_t>(in.shape.size());
    const int64_t width = WidthOf(in.index_type);
    std::vector<int64_t> stored = in.coords, strides = {ndim * width, width};
    // Arrow C++ takes only these strides as contiguous for empty coordinates.
    if (in.nnz * ndim == 0) strides = {width, width};
    if (in.column_major) {
      for (int64_t i = 0; i < in.nnz; ++i) {
        for (int64_t k = 0; k < ndim; ++k) stored[k * in.nnz + i] = in.coords[i * ndim + k];
      }
      strides = {width, in.nnz * width};
    }
    ARROW_ASSIGN_OR_RAISE(
        auto index, arrow::SparseCOOIndex::Make(ArrowType(in.index_type), {in.nnz, ndim}, strides,
                                                IndexBuffer(stored, in.index_type), in.canonical));
    return arrow::SparseCOOTensor::Make(index, value_type, data, in.shape, in.dim_names);
  }
  if (in.format == "CSR" || in.format == "CSC") {
    const std::vector<int64_t> indptr_shape = {static_cast<int64_t>(in.indptr[0].size())};
    const std::vector<int64_t> indices_shape = {static_cast<int64_t>(in.indices[0].size())};
    auto indptr = IndexBuffer(in.indptr[0], in.indptr_type);
    auto indices = IndexBuffer(in.indices[0], in.index_type);
    if (in.format == "CSR") {
      ARROW_ASSIGN_OR_RAISE(auto index, arrow::SparseCSRIndex::Make(
                                            ArrowType(in.indptr_type), ArrowType(in.index_type),
                                            indptr_shape, indices_shape, indptr, indices));
      return arrow::SparseCSRMatrix::Make(index, value_type, data, in.shape, in.dim_names);
    }
    ARROW_ASSIGN_OR_RAISE(
        auto index, arrow::SparseCSCIndex::Make(ArrowType(in.indptr_type), ArrowType(in.index_type),
                                                indptr_shape, indices_shape, indptr, indices));
    return arrow::SparseCSCMatrix::Make(index, value_type, data, in.shape, in.dim_names);
  }
  std::vector<int64_t> sizes;
  std::vector<std::shared_ptr<Buffer>> indptr, indices;
  for (const auto& level : in.indptr) indptr.push_back(IndexBuffer(level, in.indptr_type));
  for (const auto& level : in.indices) {
    sizes.push_back(static_cast<int64_t>(level.size()));
    indices.push_back(IndexBuffer(level, in.index_type));
  }
  ARROW_ASSIGN_OR_RAISE(
      auto index, arrow::SparseCSFIndex::Make(ArrowType(in.indptr_type), ArrowType(in.index_type),
                                              sizes, in.axis_order, indptr, indices));
  return arrow::SparseCSFTensor::Make(index, value_type, data, in.shape, in.dim_names);
}

template <typename Index>
void ReadCsx(const arrow::SparseTensor& tensor, const char* format, PlainSparse* out) {
  const auto& index = static_cast<const Index&>(*tensor.sparse_index());
  out->format = format;
  out->indptr_type = TypeName(*index.indptr()->type());
  out->index_type = TypeName(*index.indices()->type());
  out->indptr = {Entries(*index.indptr())};
  out->indices = {Entries(*index.indices())};
}

void ReadIndex(const arrow::SparseTensor& tensor, PlainSparse* out) {
  switch (tensor.format_id()) {
    case arrow::SparseTensorFormat::COO: {
      const auto& index = static_cast<const arrow::SparseCOOIndex&>(*tensor.sparse_index());
      out->format = "COO";
      out->index_type = TypeName(*index.indices()->type());
      out->coords = Entries(*index.indices());
      out->canonical = index.is_canonical();
      out->column_major = index.indices()->is_column_major() && !index.indices()->is_row_major();
      return;
    }
    case arrow::SparseTensorFormat::CSR: return ReadCsx<arrow::SparseCSRIndex>(tensor, "CSR", out);
    case arrow::SparseTensorFormat::CSC: return ReadCsx<arrow::SparseCSCIndex>(tensor, "CSC", out);
    case arrow::SparseTensorFormat::CSF: {
      const auto& index = static_cast<const arrow::SparseCSFIndex&>(*tensor.sparse_index());
      out->format = "CSF";
      out->indptr_type = TypeName(*index.indptr().front()->type());
      out->index_type = TypeName(*index.indices().front()->type());
      for (const auto& level : index.indptr()) out->indptr.push_back(Entries(*level));
      for (const auto& level : index.indices()) out->indices.push_back(Entries(*level));
      out->axis_order = index.axis_order();
      return;
    }
  }
}

// Every element of a dense tensor, row-major, through its strides.
std::vector<double> DenseValues(const arrow::Tensor& dense) {
  const std::string type = TypeName(*dense.type());
  std::vector<double> out;
  std::vector<int64_t> index(dense.ndim(), 0);
  for (int64_t n = 0; n < dense.size(); ++n) {
    int64_t offset = 0;
    for (int k = 0; k < dense.ndim(); ++k) offset += index[k] * dense.strides()[k];
    out.push_back(ValueAt(type, dense.raw_data() + offset, 0));
    for (int k = dense.ndim(); k-- > 0;) {
      if (++index[k] < dense.shape()[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

std::string ArrowWrite(const PlainSparse& in, std::vector<uint8_t>* out) {
  auto tensor = Build(in);
  if (!tensor.ok()) return "Arrow build: " + tensor.status().ToString();
  auto stream = arrow::io::BufferOutputStream::Create();
  if (!stream.ok()) return stream.status().ToString();
  int32_t metadata_length = 0;
  int64_t body_length = 0;
  auto st = arrow::ipc::WriteSparseTensor(**tensor, stream->get(), &metadata_length, &body_length);
  if (!st.ok()) return "Arrow write: " + st.ToString();
  auto bytes = (*stream)->Finish();
  if (!bytes.ok()) return bytes.status().ToString();
  out->assign((*bytes)->data(), (*bytes)->data() + (*bytes)->size());
  return "";
}

std::string ArrowRead(const std::vector<uint8_t>& bytes, PlainSparse* out) {
  arrow::io::BufferReader reader(Bytes(bytes));
  auto read = arrow::ipc::ReadSparseTensor(&reader);
  if (!read.ok()) return "Arrow read: " + read.status().ToString();
  const arrow::SparseTensor& tensor = **read;
  *out = PlainSparse{};
  ReadIndex(tensor, out);
  out->value_type = TypeName(*tensor.type());
  out->shape = tensor.shape();
  // Arrow C++ reads absent names as empty strings; no name at all is no names.
  for (const std::string& name : tensor.dim_names()) {
    if (!name.empty()) out->dim_names = tensor.dim_names();
  }
  out->nnz = tensor.non_zero_length();
  const int64_t bytes_used = out->nnz * WidthOf(out->value_type);
  out->values.assign(tensor.raw_data(), tensor.raw_data() + bytes_used);
  auto dense = tensor.ToTensor();
  if (!dense.ok()) return "Arrow ToTensor: " + dense.status().ToString();
  out->dense = DenseValues(**dense);
  return "";
}

}  // namespace compat
