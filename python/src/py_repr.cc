#include "py_repr.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <vector>

#include "py_errors.h"
#include "py_numpy.h"
#include "py_objects.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::python {

namespace {

// Rows a preview shows per column; more rows end in ", ...".
constexpr int64_t kPreviewRows = 3;
// Metadata values longer than this are cut, as pyarrow cuts them.
constexpr size_t kMetadataChars = 64;

// `text` on one line: every line break and the indent after it become one space.
std::string OneLine(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    out += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  return out;
}

// Metadata bytes as text: UTF-8 decoded (other bytes as \xNN), control
// characters escaped, cut after kMetadataChars characters.
std::string Printable(const std::string& bytes) {
  nb::str text = nb::borrow<nb::str>(
      nb::bytes(bytes.data(), bytes.size()).attr("decode")("utf-8", "backslashreplace"));
  const bool cut = nb::len(text) > kMetadataChars;
  if (cut) {
    const auto keep = static_cast<Py_ssize_t>(kMetadataChars);
    text = nb::borrow<nb::str>(
        text.attr("__getitem__")(nb::slice(Py_ssize_t{0}, keep, Py_ssize_t{1})));
  }
  std::string out;
  for (char c : nb::cast<std::string>(text)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
    } else {
      out += c;
    }
  }
  return cut ? out + "..." : out;
}

bool OnHost(const ArrayData& data) {
  for (const BufferPtr& buffer : data.buffers) {
    if (buffer && !buffer->device().is_cpu()) return false;
  }
  for (const ArrayDataPtr& child : data.children) {
    if (child && !OnHost(*child)) return false;
  }
  return !data.dictionary || OnHost(*data.dictionary);
}

std::string TensorText(const Result<Tensor>& row) {
  if (!row.ok()) return "<" + row.status().message() + ">";
  return OneLine(FormatValues(ValuesForRepr(*row)));
}

// The first `count` rows of one chunk as text, one entry per row (the
// chunk was validated when it entered its batch or table).
std::vector<std::string> ChunkRows(const ArrayDataPtr& chunk, int64_t count) {
  std::vector<std::string> out;
  const std::string& name = chunk->type->extension_name();
  if (name == FixedShapeTensorType::kExtensionName) {
    FixedShapeTensorArray column =
        Unwrap(FixedShapeTensorArray::Make(chunk, ValidationLevel::kNone));
    for (int64_t i = 0; i < count; ++i) {
      out.push_back(column.IsValid(i) ? TensorText(column.RowTensor(i)) : "null");
    }
  } else if (name == VariableShapeTensorType::kExtensionName) {
    VariableShapeTensorArray column =
        Unwrap(VariableShapeTensorArray::Make(chunk, ValidationLevel::kNone));
    for (int64_t i = 0; i < count; ++i) {
      out.push_back(column.IsValid(i) ? TensorText(column.RowTensor(i)) : "null");
    }
  } else {
    nb::object values = ArrayToPylist(Unwrap(Slice(chunk, 0, count)));
    for (nb::handle value : values) {
      out.push_back(value.is_none() ? "null" : OneLine(nb::cast<std::string>(nb::repr(value))));
    }
  }
  return out;
}

// "[row, row, row, ...]" for the first rows of a column, whatever its chunks.
std::string ColumnPreview(const std::vector<ArrayDataPtr>& chunks) {
  std::vector<std::string> rows;
  int64_t total = 0;
  for (const ArrayDataPtr& chunk : chunks) {
    if (!OnHost(*chunk)) return "<device memory>";
    total += chunk->length;
    const int64_t wanted = kPreviewRows - static_cast<int64_t>(rows.size());
    if (wanted <= 0) continue;
    for (std::string& row : ChunkRows(chunk, std::min(wanted, chunk->length))) {
      rows.push_back(std::move(row));
    }
  }
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) out += (i ? ", " : "") + rows[i];
  if (total > static_cast<int64_t>(rows.size())) out += rows.empty() ? "..." : ", ...";
  return out + "]";
}

std::string FieldLines(const Schema& schema) {
  std::string out;
  for (const Field& field : schema.fields) out += "\n" + field.ToString();
  if (!schema.metadata.empty()) {
    out += "\n-- schema metadata --";
    for (const auto& [key, value] : schema.metadata) {
      out += "\n" + Printable(key) + ": " + Printable(value);
    }
  }
  return out;
}

}  // namespace

std::string SchemaRepr(const Schema& schema) { return "quiver.Schema" + FieldLines(schema); }

std::string TabularRepr(const char* cls, int64_t rows, const Schema& schema,
                        const std::vector<std::vector<ArrayDataPtr>>& columns) {
  std::string out = std::string("quiver.") + cls + ": " + std::to_string(rows) +
                    (rows == 1 ? " row" : " rows") + FieldLines(schema) + "\n----";
  for (size_t i = 0; i < columns.size() && i < schema.fields.size(); ++i) {
    std::string preview;
    try {
      preview = ColumnPreview(columns[i]);
    } catch (const std::exception& e) {  // a repr shows what it can, it does not raise
      preview = std::string("<") + e.what() + ">";
    }
    out += "\n" + schema.fields[i].name + ": " + preview;
  }
  return out;
}

nb::object ValuesForRepr(const Tensor& tensor) {
  if (!tensor.type()->is_low_precision_float()) return TensorToNumpy(tensor);
  try {
    return TensorToNumpy(tensor);
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_ImportError)) throw;
  }
  // Without ml_dtypes: the storage bits, looked up in a table of every
  // pattern's float value.
  const TypePtr& storage = tensor.type()->storage_type();
  nb::object bits =
      TensorToNumpy(Unwrap(Tensor::Make(storage, tensor.buffer(), tensor.shape(), tensor.strides(),
                                        tensor.dim_names(), tensor.byte_offset())));
  const size_t patterns = size_t{1} << (8 * storage->byte_width());
  std::vector<float> table(patterns);
  for (size_t b = 0; b < patterns; ++b) {
    table[b] = LowPrecisionFloatToFloat(*tensor.type(), static_cast<uint32_t>(b));
  }
  nb::object np = nb::module_::import_("numpy");
  nb::object values = np.attr("array")(nb::cast(table), "float32");
  return values[bits];
}

std::string FormatValues(nb::handle array, const std::string& prefix) {
  nb::object numpy = Numpy();
  nb::dict kwargs;
  kwargs["separator"] = ", ";
  kwargs["threshold"] = 12;
  kwargs["edgeitems"] = 2;
  kwargs["prefix"] = prefix;
  kwargs["max_line_width"] = 88;
  return nb::cast<std::string>(numpy.attr("array2string")(array, **kwargs));
}

}  // namespace quiver::python
