// The quiver half of the compatibility program: the same plain data built
// into quiver::SparseTensor and written with quiver::ipc, and quiver's
// reading of a message turned back into plain data. Nothing of Arrow here.
#include <cstring>
#include <map>

#include "plain_sparse.h"
#include "quiver/ipc.h"
#include "quiver/sparse_tensor.h"

namespace compat {

namespace {

using quiver::Tensor;
using quiver::TypePtr;

TypePtr QuiverType(const std::string& name) {
  static const std::map<std::string, TypePtr> types = {
      {"int8", quiver::int8()},       {"int16", quiver::int16()},
      {"int32", quiver::int32()},     {"int64", quiver::int64()},
      {"uint8", quiver::uint8()},     {"uint16", quiver::uint16()},
      {"uint32", quiver::uint32()},   {"uint64", quiver::uint64()},
      {"float16", quiver::float16()}, {"float32", quiver::float32()},
      {"float64", quiver::float64()}, {"bool8", quiver::bool8()}};
  return types.at(name);
}

std::string TypeName(const quiver::DataType& type) {
  if (type.is_bool8()) return "bool8";
  static const std::map<quiver::TypeId, std::string> names = {
      {quiver::TypeId::kInt8, "int8"},       {quiver::TypeId::kInt16, "int16"},
      {quiver::TypeId::kInt32, "int32"},     {quiver::TypeId::kInt64, "int64"},
      {quiver::TypeId::kUInt8, "uint8"},     {quiver::TypeId::kUInt16, "uint16"},
      {quiver::TypeId::kUInt32, "uint32"},   {quiver::TypeId::kUInt64, "uint64"},
      {quiver::TypeId::kFloat16, "float16"}, {quiver::TypeId::kFloat32, "float32"},
      {quiver::TypeId::kFloat64, "float64"}};
  auto it = names.find(type.id());
  return it == names.end() ? type.ToString() : it->second;
}

quiver::Result<quiver::BufferPtr> Bytes(const void* data, int64_t size) {
  QUIVER_ASSIGN_OR_RETURN(quiver::BufferPtr buffer, quiver::Buffer::Allocate(size));
  if (size > 0) std::memcpy(buffer->mutable_data(), data, static_cast<size_t>(size));
  return buffer;
}

// `values` stored as `type`, shaped `shape` with byte `strides` (row-major when empty).
quiver::Result<Tensor> IndexTensor(const std::vector<int64_t>& values, const std::string& type,
                                   std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  const int64_t width = WidthOf(type);
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(width));
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(&bytes[i * width], &values[i], width);
  QUIVER_ASSIGN_OR_RETURN(auto buffer, Bytes(bytes.data(), static_cast<int64_t>(bytes.size())));
  return Tensor::Make(QuiverType(type), std::move(buffer), std::move(shape), std::move(strides));
}

quiver::Result<quiver::SparseTensor> Build(const PlainSparse& in) {
  QUIVER_ASSIGN_OR_RETURN(auto value_bytes,
                          Bytes(in.values.data(), static_cast<int64_t>(in.values.size())));
  QUIVER_ASSIGN_OR_RETURN(Tensor values,
                          Tensor::Make(QuiverType(in.value_type), value_bytes, {in.nnz}));
  if (in.format == "COO") {
    const int64_t ndim = static_cast<int64_t>(in.shape.size()), width = WidthOf(in.index_type);
    std::vector<int64_t> stored = in.coords, strides;
    if (in.column_major) {
      for (int64_t i = 0; i < in.nnz; ++i) {
        for (int64_t k = 0; k < ndim; ++k) stored[k * in.nnz + i] = in.coords[i * ndim + k];
      }
      strides = {width, in.nnz * width};
    }
    QUIVER_ASSIGN_OR_RETURN(Tensor coords,
                            IndexTensor(stored, in.index_type, {in.nnz, ndim}, strides));
    return quiver::SparseTensor::MakeCOO(in.shape, coords, values, in.canonical, in.dim_names);
  }
  if (in.format == "CSR" || in.format == "CSC") {
    QUIVER_ASSIGN_OR_RETURN(
        Tensor indptr,
        IndexTensor(in.indptr[0], in.indptr_type, {static_cast<int64_t>(in.indptr[0].size())}));
    QUIVER_ASSIGN_OR_RETURN(
        Tensor indices,
        IndexTensor(in.indices[0], in.index_type, {static_cast<int64_t>(in.indices[0].size())}));
    const auto format =
        in.format == "CSR" ? quiver::SparseFormat::kCSR : quiver::SparseFormat::kCSC;
    return quiver::SparseTensor::MakeCSX(format, in.shape, indptr, indices, values, in.dim_names);
  }
  std::vector<Tensor> indptr, indices;
  for (const auto& level : in.indptr) {
    QUIVER_ASSIGN_OR_RETURN(
        Tensor array, IndexTensor(level, in.indptr_type, {static_cast<int64_t>(level.size())}));
    indptr.push_back(array);
  }
  for (const auto& level : in.indices) {
    QUIVER_ASSIGN_OR_RETURN(
        Tensor array, IndexTensor(level, in.index_type, {static_cast<int64_t>(level.size())}));
    indices.push_back(array);
  }
  return quiver::SparseTensor::MakeCSF(in.shape, indptr, indices, in.axis_order, values,
                                       in.dim_names);
}

// Entries of a 1-D or 2-D integer tensor, row by row (TensorEntries).
std::vector<int64_t> Entries(const Tensor& tensor) {
  return TensorEntries(tensor, TypeName(*tensor.type()));
}

void ReadIndex(const quiver::SparseTensor& tensor, PlainSparse* out) {
  out->format = quiver::SparseFormatName(tensor.format());
  if (const auto* coo = tensor.coo_index()) {
    out->index_type = TypeName(*coo->coords.type());
    out->coords = Entries(coo->coords);
    out->canonical = coo->canonical;
    out->column_major = !coo->coords.IsContiguous();
  } else if (const auto* csx = tensor.csx_index()) {
    out->indptr_type = TypeName(*csx->indptr.type());
    out->index_type = TypeName(*csx->indices.type());
    out->indptr = {Entries(csx->indptr)};
    out->indices = {Entries(csx->indices)};
  } else if (const auto* csf = tensor.csf_index()) {
    out->indptr_type = csf->indptr.empty() ? "" : TypeName(*csf->indptr.front().type());
    out->index_type = TypeName(*csf->indices.front().type());
    for (const Tensor& level : csf->indptr) out->indptr.push_back(Entries(level));
    for (const Tensor& level : csf->indices) out->indices.push_back(Entries(level));
    out->axis_order = csf->axis_order;
  }
}

}  // namespace

std::string QuiverWrite(const PlainSparse& in, std::vector<uint8_t>* out) {
  auto tensor = Build(in);
  if (!tensor.ok()) return "quiver build: " + tensor.status().ToString();
  quiver::ipc::BufferSink sink;
  quiver::Status st = quiver::ipc::WriteSparseTensor(*tensor, &sink);
  if (!st.ok()) return "quiver write: " + st.ToString();
  auto bytes = sink.Finish();
  if (!bytes.ok()) return bytes.status().ToString();
  out->assign((*bytes)->data(), (*bytes)->data() + (*bytes)->size());
  return "";
}

std::string QuiverRead(const std::vector<uint8_t>& bytes, PlainSparse* out) {
  auto buffer = Bytes(bytes.data(), static_cast<int64_t>(bytes.size()));
  if (!buffer.ok()) return buffer.status().ToString();
  auto read = quiver::ipc::ReadSparseTensor(quiver::ipc::BufferSource(*buffer));
  if (!read.ok()) return "quiver read: " + read.status().ToString();
  *out = PlainSparse{};
  ReadIndex(*read, out);
  out->value_type = TypeName(*read->type());
  out->shape = read->shape();
  out->dim_names = read->dim_names();
  out->nnz = read->non_zero_length();
  const Tensor& values = read->values();
  out->values.assign(values.raw_data(), values.raw_data() + out->nnz * WidthOf(out->value_type));
  auto dense = read->ToDense();
  if (!dense.ok()) return "quiver ToDense: " + dense.status().ToString();
  for (int64_t i = 0; i < dense->size(); ++i) {
    out->dense.push_back(ValueAt(out->value_type, dense->raw_data(), i));
  }
  return "";
}

}  // namespace compat
