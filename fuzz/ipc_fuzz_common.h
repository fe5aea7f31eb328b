// Shared by the IPC fuzz targets: copying the input into a quiver buffer,
// and using every batch a reader returns the way a program would, so that
// anything validation let through is read to its last byte.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "quiver/c_data.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/ipc.h"
#include "quiver/table.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::fuzz {

inline BufferPtr InputBuffer(const uint8_t* data, size_t size) {
  auto buffer = Buffer::Allocate(static_cast<int64_t>(size));
  if (!buffer.ok()) abort();
  if (size > 0) std::memcpy((*buffer)->mutable_data(), data, size);
  return *buffer;
}

// Reads every byte of every buffer (ASan catches a size that lies).
inline uint64_t Touch(const ArrayData& data, int depth = 0) {
  uint64_t sum = 0;
  for (const BufferPtr& buffer : data.buffers) {
    if (!buffer) continue;
    for (int64_t i = 0; i < buffer->size(); ++i) sum += buffer->data()[i];
  }
  if (data.dictionary) sum += Touch(*data.dictionary, depth + 1);
  for (const ArrayDataPtr& child : data.children) sum += Touch(*child, depth + 1);
  return sum;
}

// Every buffer index a layout names is one of its buffers (aborts if not).
inline void CheckLayoutNode(const ipc::FieldNodeLayout& node, size_t buffers, int depth = 0) {
  if (depth > kMaxNestingDepth + 1) abort();
  for (const int64_t index : node.buffers) {
    if (index < 0 || static_cast<size_t>(index) >= buffers) abort();
  }
  for (const ipc::FieldNodeLayout& child : node.children)
    CheckLayoutNode(child, buffers, depth + 1);
}

// What a tool reading layouts does (quiver inspect): check the tree, then
// read every buffer alone through `read` (and its size through `size`),
// touching each byte.
template <typename Read, typename Size>
void UseLayout(const ipc::BatchLayout& layout, Read&& read, Size&& size) {
  for (const ipc::FieldNodeLayout& column : layout.columns) {
    CheckLayoutNode(column, layout.buffers.size());
  }
  volatile uint64_t sink = 0;
  for (size_t k = 0; k < layout.buffers.size() && k < 256; ++k) {
    const auto index = static_cast<int64_t>(k);
    auto sizes = size(index);
    auto buffer = read(index);
    if (!buffer.ok()) continue;
    if (sizes.ok() && sizes->decoded != (*buffer)->size()) abort();
    for (int64_t i = 0; i < (*buffer)->size(); ++i) sink = sink + (*buffer)->data()[i];
  }
}

// What a consumer does with a batch: compare it, view tensor columns,
// export it through the C Data Interface, write it back out.
inline void UseBatch(const RecordBatch& batch) {
  if (!batch.Equals(batch)) abort();  // a validated batch equals itself
  volatile uint64_t sink = 0;
  for (const ArrayDataPtr& column : batch.columns()) {
    sink = sink + Touch(*column);
    if (column->type->id() != TypeId::kExtension) continue;
    if (auto fixed = FixedShapeTensorArray::Make(column); fixed.ok()) {
      (void)fixed->ToTensor(NullPolicy::kAllow);
    }
    if (auto ragged = VariableShapeTensorArray::Make(column); ragged.ok()) {
      for (int64_t i = 0; i < ragged->length() && i < 64; ++i)
        (void)ragged->RowTensor(i, NullPolicy::kAllow);
      (void)ragged->ToPadded(0, NullPolicy::kAllow);
    }
  }
  ArrowArray exported;
  if (ExportArray(batch.ToStructArray(), &exported).ok()) exported.release(&exported);
  ipc::BufferSink out;
  auto writer = ipc::StreamWriter::Open(
      std::shared_ptr<ipc::OutputSink>(&out, [](ipc::OutputSink*) {}), batch.schema());
  if (writer.ok()) {
    // What was read and validated can be written back (or is a type the
    // writer declines, which it must say).
    Status st = (*writer)->Write(batch);
    if (!st.ok() && st.code() != StatusCode::kNotImplemented) abort();
    (void)(*writer)->Close();
  }
}

// Batches read at ValidationLevel::kMinimal, as Python's
// read_all(validate="lazy") reads them: gathered into a table (whose
// columns are then checked in full, as the deferred check does), and
// each column that passes read; when all pass, every batch is used as a
// consumer would.
inline void UseLazyBatches(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches) {
  auto table = Table::FromRecordBatches(schema, batches);
  if (!table.ok()) abort();  // the reader's batches all have its schema
  volatile uint64_t sink = 0;
  bool all_valid = true;
  for (const ChunkedArrayPtr& column : (*table)->columns()) {
    if (!column->Validate(ValidationLevel::kFull, 1).ok()) {
      all_valid = false;
      continue;
    }
    for (const ArrayDataPtr& chunk : column->chunks()) sink = sink + Touch(*chunk);
  }
  if (!all_valid) return;
  for (const RecordBatchPtr& batch : batches) UseBatch(*batch);
}

}  // namespace quiver::fuzz
