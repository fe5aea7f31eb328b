#include "py_ipc_layout.h"

#include <nanobind/stl/string.h>
#include <vector>

#include "py_errors.h"
#include "py_objects.h"

namespace quiver::python {

namespace {

nb::object CompressionName(ipc::Compression compression) {
  switch (compression) {
    case ipc::Compression::kNone: return nb::none();
    case ipc::Compression::kLz4Frame: return nb::str("lz4_frame");
    case ipc::Compression::kZstd: return nb::str("zstd");
  }
  return nb::none();
}

// Iterative, so that the depth of a schema (up to the readers' nesting
// limit) never becomes depth of the C stack.
nb::dict NodeToPython(const ipc::FieldNodeLayout& root) {
  struct Pending {
    const ipc::FieldNodeLayout* node;
    nb::list into;  // where the node's dict goes (empty for the root)
  };
  nb::dict out;
  std::vector<Pending> pending = {{&root, nb::list()}};
  bool first = true;
  while (!pending.empty()) {
    Pending next = std::move(pending.back());
    pending.pop_back();
    const ipc::FieldNodeLayout& node = *next.node;
    nb::dict d;
    d["name"] = node.field.name;
    d["type"] = WrapType(node.field.type);
    d["length"] = node.length;
    d["null_count"] = node.null_count;
    nb::list buffers;
    for (int64_t index : node.buffers) buffers.append(index);
    d["buffers"] = buffers;
    d["dictionary_id"] =
        node.dictionary_id < 0 ? nb::object(nb::none()) : nb::object(nb::int_(node.dictionary_id));
    nb::list children;
    d["children"] = children;
    // Children are appended in order: pushed last to first.
    for (size_t i = node.children.size(); i-- > 0;)
      pending.push_back({&node.children[i], children});
    if (first) {
      out = d;
      first = false;
    } else {
      next.into.append(d);
    }
  }
  return out;
}

}  // namespace

nb::dict BatchLayoutToPython(const ipc::BatchLayout& layout) {
  nb::dict out;
  out["num_rows"] = layout.num_rows;
  out["compression"] = CompressionName(layout.compression);
  out["body_length"] = layout.body_length;
  nb::list buffers;
  for (const ipc::BodyBufferSpan& span : layout.buffers) {
    buffers.append(nb::make_tuple(span.offset, span.length));
  }
  out["buffers"] = buffers;
  nb::list columns;
  for (const ipc::FieldNodeLayout& column : layout.columns) columns.append(NodeToPython(column));
  out["columns"] = columns;
  return out;
}

nb::object BodyBufferToPython(const BufferPtr& buffer) {
  return nb::cast(PyTensor{Unwrap(Tensor::Make(uint8(), buffer, {buffer->size()}))});
}

}  // namespace quiver::python
