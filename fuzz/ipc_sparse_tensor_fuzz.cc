// Fuzzes the SparseTensor message reader: any bytes must give an error or
// a tensor that every kernel can use to its last byte (dense and back by
// the dense scan, every other format, equality, writing back).
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"
#include "quiver/sparse_tensor.h"

namespace quiver::fuzz {

namespace {

// Reads every byte of a tensor's elements (ASan catches a size that lies).
uint64_t TouchTensor(const Tensor& tensor) {
  uint64_t sum = 0;
  if (tensor.size() == 0) return sum;
  auto dense = tensor.ToContiguous();
  if (!dense.ok()) abort();  // a validated tensor copies
  const int64_t bytes = dense->size() * dense->type()->byte_width();
  for (int64_t i = 0; i < bytes; ++i) sum += dense->raw_data()[i];
  return sum;
}

uint64_t TouchSparse(const SparseTensor& tensor) {
  uint64_t sum = TouchTensor(tensor.values());
  if (const auto* coo = tensor.coo_index()) sum += TouchTensor(coo->coords);
  if (const auto* csx = tensor.csx_index())
    sum += TouchTensor(csx->indptr) + TouchTensor(csx->indices);
  if (const auto* csf = tensor.csf_index()) {
    for (const Tensor& array : csf->indptr) sum += TouchTensor(array);
    for (const Tensor& array : csf->indices) sum += TouchTensor(array);
  }
  return sum;
}

}  // namespace

int FuzzIpcSparseTensor(const uint8_t* data, size_t size) {
  auto tensor = ipc::ReadSparseTensor(ipc::BufferSource(InputBuffer(data, size)));
  if (!tensor.ok()) return 0;
  volatile uint64_t sink = TouchSparse(*tensor);
  // Equality is an invariant to check only without NaN (NaN != NaN).
  const bool comparable = !tensor->type()->is_floating();
  if (comparable && !tensor->Equals(*tensor)) abort();
  // What was read at kFull is written back without complaint.
  ipc::BufferSink out;
  if (!ipc::WriteSparseTensor(*tensor, &out).ok()) abort();
  // A few bytes can describe a huge dense tensor (or, through a huge
  // axis, huge CSR/CSC index arrays): only sizes up to 2^17 elements (1 MiB)
  // are expanded. That is the least at which the conversions split their
  // work over two threads (2^16 per thread), and the fuzzer finds the bound
  // quickly: at 2^22 most executions went to filling 32 MiB tensors, 50 to
  // 270 a second; at 2^17 it runs at 8,000 a second. Larger dense scans
  // are the unit tests' (tests/cpp/sparse).
  constexpr int64_t kMaxElements = int64_t{1} << 17;
  if (tensor->size() <= kMaxElements) {
    auto dense = tensor->ToDense();
    if (!dense.ok()) abort();
    sink = sink + TouchTensor(*dense);
    // And back by the dense scan, in the tensor's own format, on two
    // threads (its parts and joins) and, for CSF, in its axis order.
    SparseOptions options;
    options.threads = 2;
    if (const auto* csf = tensor->csf_index()) options.axis_order = csf->axis_order;
    auto again = SparseTensor::FromDense(*dense, tensor->format(), options);
    if (!again.ok()) {
      if (again.status().code() != StatusCode::kOutOfMemory) abort();
    } else {
      sink = sink + TouchSparse(*again);
      if (comparable && !again->Equals(*tensor)) abort();
    }
  }
  const SparseFormat formats[] = {SparseFormat::kCOO, SparseFormat::kCSR, SparseFormat::kCSC,
                                  SparseFormat::kCSF};
  for (SparseFormat format : formats) {
    if (format == tensor->format()) continue;
    const bool matrix = format == SparseFormat::kCSR || format == SparseFormat::kCSC;
    if (matrix && tensor->ndim() != 2) continue;
    int64_t longest_axis = 0;
    for (int64_t extent : tensor->shape())
      longest_axis = extent > longest_axis ? extent : longest_axis;
    if (matrix && longest_axis > kMaxElements) continue;  // indptr has an entry per row
    auto converted = tensor->Convert(format);
    // Conversions may refuse only what they cannot allocate.
    if (!converted.ok()) {
      if (converted.status().code() != StatusCode::kOutOfMemory) abort();
      continue;
    }
    sink = sink + TouchSparse(*converted);
    if (comparable && !converted->Equals(*tensor)) abort();
  }
  return 0;
}

}  // namespace quiver::fuzz
