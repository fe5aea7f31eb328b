// safetensors: header parsing and checks, tensor views, the writer. The
// rules follow the reference implementation (huggingface/safetensors):
// docs/safetensors.md lists them.
#include "quiver/safetensors.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "quiver/internal/checked_math.h"
#include "quiver/internal/utf8.h"
#include "quiver/internal/without_throwing.h"
#include "quiver/safetensors/header_parser.h"

namespace quiver {

namespace {

struct DtypeInfo {
  const char* name;
  int width;  // bytes
  TypePtr (*type)();
};

// In the reference's enum order, which its writer sorts by (descending).
constexpr std::array<DtypeInfo, 15> kDtypes = {{
    {"BOOL", 1, &bool8},
    {"U8", 1, &uint8},
    {"I8", 1, &int8},
    {"F8_E5M2", 1, &float8_e5m2},
    {"F8_E4M3", 1, &float8_e4m3fn},  // the reference's F8_E4M3 is the "fn" variant
    {"I16", 2, &int16},
    {"U16", 2, &uint16},
    {"F16", 2, &float16},
    {"BF16", 2, &bfloat16},
    {"I32", 4, &int32},
    {"U32", 4, &uint32},
    {"F32", 4, &float32},
    {"F64", 8, &float64},
    {"I64", 8, &int64},
    {"U64", 8, &uint64},
}};

int DtypeIndex(std::string_view name) {
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    if (name == kDtypes[i].name) return static_cast<int>(i);
  }
  return -1;
}

// The dtype a quiver type is written as, or -1 (each type has one dtype).
int DtypeOfType(const DataType& type) {
  for (size_t i = 0; i < kDtypes.size(); ++i) {
    if (type.Equals(*kDtypes[i].type())) return static_cast<int>(i);
  }
  return -1;
}

std::string Quoted(const std::string& file_name) {
  return file_name.empty() ? std::string("the input") : file_name;
}

// __metadata__ into `out`: absent or null, or an object of strings.
Status ReadMetadata(safetensors_internal::RawHeader& header, const std::string& where,
                    std::map<std::string, std::string>* out) {
  using safetensors_internal::FieldState;
  if (header.metadata_state == FieldState::kAbsent) return Status::OK();
  if (header.metadata_state == FieldState::kInvalid) {
    return Status::Invalid(where, ": __metadata__ is not an object");
  }
  for (auto& [key, value] : header.metadata) {
    if (!value)
      return Status::Invalid(where, ": __metadata__ value of '", key, "' is not a string");
    out->emplace_hint(out->end(), key, std::move(*value));
  }
  return Status::OK();
}

// One tensor's entry checked against the format and the data section
// (`data_size` bytes), in the order the checks have always been made.
Result<SafetensorsEntry> CheckEntry(safetensors_internal::RawEntry& raw, const std::string& where,
                                    int64_t data_size) {
  using safetensors_internal::FieldState;
  const std::string at = where + ", tensor '" + raw.name + "'";
  if (!raw.is_object) return Status::Invalid(at, ": entry is not an object");
  if (raw.dtype_state != FieldState::kValid) {
    return Status::Invalid(at, ": missing or non-string \"dtype\"");
  }
  const int index = DtypeIndex(raw.dtype);
  if (index < 0) return Status::Invalid(at, ": unknown dtype '", raw.dtype, "'");
  if (raw.shape.state != FieldState::kValid) {
    return Status::Invalid(at, ": \"shape\" is not a list of non-negative integers");
  }
  if (raw.offsets.state != FieldState::kValid || raw.offsets.values.size() != 2) {
    return Status::Invalid(at, ": \"data_offsets\" is not [begin, end]");
  }
  std::vector<int64_t> dims;
  dims.reserve(raw.shape.values.size());
  for (uint64_t d : raw.shape.values) {
    if (d > static_cast<uint64_t>(INT64_MAX)) {
      return Status::Invalid(at, ": shape entry out of range");
    }
    dims.push_back(static_cast<int64_t>(d));
  }
  const uint64_t begin = raw.offsets.values[0];
  const uint64_t end = raw.offsets.values[1];
  if (begin > end || end > static_cast<uint64_t>(data_size)) {
    return Status::Invalid(at, ": data_offsets [", begin, ", ", end,
                           "] lie outside the data section (", data_size, " bytes)");
  }
  QUIVER_ASSIGN_OR_RETURN(int64_t count, internal::ShapeProduct(dims, at));
  QUIVER_ASSIGN_OR_RETURN(int64_t nbytes,
                          internal::MultiplyChecked(count, kDtypes[index].width, at));
  if (nbytes != static_cast<int64_t>(end - begin)) {
    return Status::Invalid(at, ": shape ", internal::FormatShape(dims), " of ", kDtypes[index].name,
                           " needs ", nbytes, " bytes, data_offsets [", begin, ", ", end, "] hold ",
                           end - begin);
  }
  SafetensorsEntry entry;
  entry.name = std::move(raw.name);
  entry.dtype = kDtypes[index].name;
  entry.shape = Dims(dims);
  entry.begin = static_cast<int64_t>(begin);
  entry.end = static_cast<int64_t>(end);
  return entry;
}

}  // namespace

Result<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<io::InputSource> source, io::OpenFileSource(path));
  QUIVER_ASSIGN_OR_RETURN(BufferPtr bytes, source->ReadAt(0, source->size()));
  return FromBuffer(std::move(bytes), "'" + path + "'");
}

Result<SafetensorsFile> SafetensorsFile::FromBuffer(BufferPtr bytes, const std::string& name) {
  return internal::WithoutThrowing("safetensors header", [&]() -> Result<SafetensorsFile> {
    const std::string where = Quoted(name);
    const int64_t size = bytes->size();
    if (size < 8) {
      return Status::Invalid(where, ": ", size,
                             " bytes is too short for a safetensors file (8-byte header length)");
    }
    uint64_t header_length = 0;
    for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | bytes->data()[i];
    if (header_length > static_cast<uint64_t>(kSafetensorsMaxHeaderBytes)) {
      return Status::Invalid(where, ": header length ", header_length,
                             " bytes is above the 100000000-byte limit");
    }
    if (static_cast<int64_t>(header_length) > size - 8) {
      return Status::Invalid(where, ": header length ", header_length,
                             " bytes runs past the end of the file (", size, " bytes)");
    }
    const uint8_t* text = bytes->data() + 8;
    const auto text_size = static_cast<int64_t>(header_length);
    if (!internal::IsValidUtf8(text, text_size)) {
      return Status::Invalid(where, ": header is not valid UTF-8");
    }
    safetensors_internal::RawHeader header = safetensors_internal::ParseHeader(text, text_size);
    if (header.repeated) {
      return Status::Invalid(where, ": tensor '", *header.repeated,
                             "' appears twice in the header");
    }
    if (header.malformed) return Status::Invalid(where, ": header is not valid JSON");
    if (!header.is_object) return Status::Invalid(where, ": header is not a JSON object");

    SafetensorsFile file;
    file.bytes_ = std::move(bytes);
    file.file_name_ = where;
    file.data_offset_ = 8 + text_size;
    const int64_t data_size = size - file.data_offset_;
    // A document visited its keys sorted: of several broken entries, the
    // one with the smallest name is reported.
    std::optional<std::pair<std::string, Status>> first_error;
    auto keep_first = [&](const std::string& key, Status status) {
      if (!first_error || key < first_error->first) first_error.emplace(key, std::move(status));
    };
    if (Status status = ReadMetadata(header, where, &file.metadata_); !status.ok()) {
      keep_first("__metadata__", std::move(status));
    }
    file.entries_.reserve(header.entries.size());
    for (safetensors_internal::RawEntry& raw : header.entries) {
      Result<SafetensorsEntry> entry = CheckEntry(raw, where, data_size);
      if (!entry.ok()) {
        keep_first(raw.name, entry.status());
      } else if (!first_error) {
        file.entries_.push_back(*std::move(entry));
      }
    }
    if (first_error) return std::move(first_error->second);
    // Equal ranges (empty tensors at one offset, or an overlap) in name
    // order, as when the entries came from a document's sorted keys.
    std::sort(file.entries_.begin(), file.entries_.end(),
              [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
                if (a.begin != b.begin || a.end != b.end) {
                  return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
                }
                return a.name < b.name;
              });
    int64_t next = 0;
    for (const SafetensorsEntry& entry : file.entries_) {
      if (entry.begin != next) {
        return Status::Invalid(where, ", tensor '", entry.name, "': data_offsets [", entry.begin,
                               ", ", entry.end, "] ",
                               entry.begin < next ? "overlap" : "leave a gap",
                               " (the previous tensor ends at ", next, ")");
      }
      next = entry.end;
    }
    if (next != data_size) {
      return Status::Invalid(where, ": the tensors end at byte ", next,
                             " of the data section, which holds ", data_size, " bytes");
    }
    for (size_t i = 0; i < file.entries_.size(); ++i) file.by_name_[file.entries_[i].name] = i;
    return file;
  });
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const SafetensorsEntry& entry : entries_) out.push_back(entry.name);
  return out;
}

const SafetensorsEntry* SafetensorsFile::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

Result<Tensor> SafetensorsFile::GetTensor(const std::string& name) const {
  const SafetensorsEntry* entry = Find(name);
  if (entry == nullptr) return Status::IndexError(file_name_, ": no tensor named '", name, "'");
  const DtypeInfo& info = kDtypes[DtypeIndex(entry->dtype)];
  // A zero-size tensor may sit at the very end: slice an empty view there.
  QUIVER_ASSIGN_OR_RETURN(BufferPtr data, Buffer::Slice(bytes_, data_offset_ + entry->begin,
                                                        entry->end - entry->begin));
  return Tensor::Make(info.type(), std::move(data), entry->shape);
}

Status WriteSafetensors(const std::vector<SafetensorsInput>& tensors,
                        const std::map<std::string, std::string>& metadata, io::OutputSink* sink) {
  return internal::WithoutThrowing("safetensors writer", [&]() -> Status {
    struct Item {
      const SafetensorsInput* input;
      int dtype;
      int64_t nbytes;
    };
    std::vector<Item> items;
    std::set<std::string> names;
    for (const SafetensorsInput& input : tensors) {
      const std::string at = "tensor '" + input.name + "'";
      const auto& name = input.name;
      // (An empty name is allowed, as the reference reads and writes it.)
      if (name == "__metadata__") {
        return Status::Invalid("safetensors tensor name '", name, "' is reserved");
      }
      if (!internal::IsValidUtf8(reinterpret_cast<const uint8_t*>(name.data()),
                                 static_cast<int64_t>(name.size()))) {
        return Status::Invalid("tensor name '", internal::EscapeInvalidUtf8(name),
                               "' is not valid UTF-8");
      }
      if (!names.insert(name).second) return Status::Invalid(at, " is given twice");
      if (input.tensor.type() == nullptr) return Status::Invalid(at, ": no tensor");
      QUIVER_RETURN_NOT_OK(input.tensor.CheckOnHost());
      int dtype = -1;
      if (input.dtype.empty()) {
        dtype = DtypeOfType(*input.tensor.type());
        if (dtype < 0) {
          return Status::Invalid(at, ": ", input.tensor.type()->ToString(),
                                 " has no safetensors dtype");
        }
      } else {
        dtype = DtypeIndex(input.dtype);
        if (dtype < 0) return Status::Invalid(at, ": unknown dtype '", input.dtype, "'");
        if (kDtypes[dtype].width != input.tensor.type()->byte_width()) {
          return Status::Invalid(at, ": dtype ", input.dtype, " is ", kDtypes[dtype].width,
                                 " bytes wide, ", input.tensor.type()->ToString(), " is ",
                                 input.tensor.type()->byte_width());
        }
      }
      QUIVER_ASSIGN_OR_RETURN(
          int64_t nbytes, internal::MultiplyChecked(input.tensor.size(), kDtypes[dtype].width, at));
      items.push_back({&input, dtype, nbytes});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      if (a.dtype != b.dtype) return a.dtype > b.dtype;
      return a.input->name < b.input->name;
    });
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
      nlohmann::ordered_json meta = nlohmann::ordered_json::object();
      for (const auto& [key, value] : metadata) {
        for (const std::string* text : {&key, &value}) {
          if (!internal::IsValidUtf8(reinterpret_cast<const uint8_t*>(text->data()),
                                     static_cast<int64_t>(text->size()))) {
            return Status::Invalid("metadata '", internal::EscapeInvalidUtf8(key),
                                   "' is not valid UTF-8");
          }
        }
        meta[key] = value;
      }
      header["__metadata__"] = std::move(meta);
    }
    int64_t offset = 0;
    for (const Item& item : items) {
      nlohmann::ordered_json entry = nlohmann::ordered_json::object();
      entry["dtype"] = kDtypes[item.dtype].name;
      entry["shape"] = std::vector<int64_t>(item.input->tensor.shape().begin(),
                                            item.input->tensor.shape().end());
      QUIVER_ASSIGN_OR_RETURN(int64_t end, internal::AddChecked(offset, item.nbytes, "offset"));
      entry["data_offsets"] = {offset, end};
      header[item.input->name] = std::move(entry);
      offset = end;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    if (static_cast<int64_t>(text.size()) > kSafetensorsMaxHeaderBytes) {
      return Status::Invalid("safetensors header of ", text.size(),
                             " bytes is above the 100000000-byte limit");
    }
    uint8_t length[8];
    uint64_t n = text.size();
    for (uint8_t& byte : length) {
      byte = static_cast<uint8_t>(n & 0xff);
      n >>= 8;
    }
    sink->Reserve(8 + static_cast<int64_t>(text.size()) + offset);
    QUIVER_RETURN_NOT_OK(sink->Write(length, 8));
    QUIVER_RETURN_NOT_OK(sink->Write(text.data(), static_cast<int64_t>(text.size())));
    for (const Item& item : items) {
      const Tensor& tensor = item.input->tensor;
      if (item.nbytes == 0) continue;
      if (tensor.IsContiguous()) {
        QUIVER_RETURN_NOT_OK(sink->Write(tensor.raw_data(), item.nbytes));
      } else {
        QUIVER_ASSIGN_OR_RETURN(Tensor dense, tensor.ToContiguous());
        QUIVER_RETURN_NOT_OK(sink->Write(dense.raw_data(), item.nbytes));
      }
    }
    return Status::OK();
  });
}

Status WriteSafetensorsFile(const std::vector<SafetensorsInput>& tensors,
                            const std::map<std::string, std::string>& metadata,
                            const std::string& path) {
  QUIVER_ASSIGN_OR_RETURN(std::shared_ptr<io::OutputSink> sink, io::OpenFileSink(path));
  QUIVER_RETURN_NOT_OK(WriteSafetensors(tensors, metadata, sink.get()));
  return sink->Close();
}

}  // namespace quiver
