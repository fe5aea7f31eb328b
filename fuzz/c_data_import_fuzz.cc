// Fuzzes the C Data Interface import. From the input it builds a valid
// ArrowSchema tree and valid ArrowArray trees (primitive, binary, list,
// fixed-size, struct and the canonical extension types, sometimes ~70
// levels deep), mutates them (formats, counts, lengths, offsets, null
// counts, buffer bytes, NULL buffers and children, dictionaries, metadata,
// released children, stream callbacks), hands them to ImportField,
// ImportArray or ImportArrayStream, uses whatever is accepted (tensor
// views, rows, padding, take, export and re-import), and aborts unless
// every release callback of every struct it made ran exactly once.
//
// The producer's half of the contract is kept: the structs carry no buffer
// sizes, so every buffer is allocated exactly as large as the type quiver
// imported and the claimed offset + length require (a utf8/binary data
// buffer as large as its last offset says), and ASan sees any read past it.
// The exceptions are the ones a consumer must catch without reading: NULL
// buffers, counts that do not match the type, negative values, and sizes
// that overflow int64.
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_targets.h"
#include "quiver/c_data.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::fuzz {

namespace {

constexpr int64_t kMaxBytes = int64_t{1} << 20;  // per buffer, honest sizes only
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Exactly `size` bytes on the heap (non-NULL even when empty), so ASan
// reports any access past them.
struct Bytes {
  std::unique_ptr<uint8_t[]> data;
  int64_t size = 0;
  static Bytes Make(int64_t n) {
    Bytes b;
    b.data.reset(new uint8_t[static_cast<size_t>(n)]());
    b.size = n;
    return b;
  }
  static Bytes Of(const std::string& s) {  // NUL-terminated copy
    Bytes b = Make(static_cast<int64_t>(s.size()) + 1);
    std::memcpy(b.data.get(), s.data(), s.size());
    return b;
  }
};

// --- the type being generated ------------------------------------------------

enum class Kind : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kFloat32,
  kFloat64,
  kBool,
  kUtf8,
  kLargeUtf8,
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
};
constexpr int kNumPrimitive = 17;  // kInt8 .. kFixedSizeBinary
constexpr int kNumNumeric = 11;    // kInt8 .. kFloat64
constexpr const char* kFormats[] = {"c", "s", "i", "l", "C", "S",  "I",  "L",  "e",   "f", "g",
                                    "b", "u", "U", "z", "Z", "w:", "+l", "+L", "+w:", "+s"};
constexpr int kWidths[] = {1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};

enum class Extension : uint8_t { kNone, kFixedShape, kVariableShape, kBool8 };

struct Spec {
  Kind kind = Kind::kInt32;
  int32_t size = 0;  // fixed_size_binary bytes or fixed_size_list entries
  std::vector<Spec> children;
  std::string name;
  bool nullable = true;
  Extension extension = Extension::kNone;
  std::string extension_metadata;
  // Variable-shape tensors: per axis, the uniform size rows must have.
  std::vector<std::optional<int32_t>> uniform;
};

Spec Primitive(Kind kind) {
  Spec s;
  s.kind = kind;
  return s;
}

std::string JsonInts(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

std::vector<int64_t> Permutation(Input& in, int n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p[i] = i;
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[in.Int(0, i)]);
  return p;
}

// Optional dim_names / permutation keys, sometimes of the wrong length.
std::string TensorKeys(Input& in, int ndim) {
  std::string keys;
  const int n = in.OneIn(16) ? ndim + 1 : ndim;
  if (in.OneIn(2)) {
    keys += ",\"dim_names\":[";
    for (int i = 0; i < n; ++i)
      keys += std::string(i ? "," : "") + "\"d" + std::to_string(i) + "\"";
    keys += "]";
  }
  if (in.OneIn(2)) keys += ",\"permutation\":" + JsonInts(Permutation(in, n));
  return keys;
}

Spec NumericValue(Input& in) {
  if (in.OneIn(8)) {
    Spec s = Primitive(Kind::kInt8);
    s.extension = Extension::kBool8;
    return s;
  }
  return Primitive(static_cast<Kind>(in.Int(0, kNumNumeric - 1)));
}

Spec FixedShapeTensor(Input& in) {
  std::vector<int64_t> shape(static_cast<size_t>(in.Int(0, 3)));
  int64_t product = 1;
  for (auto& d : shape) product *= (d = in.Int(0, 4));
  Spec s;
  s.kind = Kind::kFixedSizeList;
  s.size = static_cast<int32_t>(in.OneIn(16) ? product + 1 : product);  // sometimes a lie
  s.children = {NumericValue(in)};
  s.children[0].name = "item";
  s.extension = Extension::kFixedShape;
  s.extension_metadata =
      "{\"shape\":" + JsonInts(shape) + TensorKeys(in, static_cast<int>(shape.size())) + "}";
  return s;
}

Spec VariableShapeTensor(Input& in) {
  const int ndim = static_cast<int>(in.Int(0, 3));
  Spec data;
  data.kind = Kind::kList;
  data.name = "data";
  data.children = {NumericValue(in)};
  data.children[0].name = "item";
  Spec shape;
  shape.kind = Kind::kFixedSizeList;
  shape.name = "shape";
  shape.size = ndim;
  shape.children = {Primitive(in.OneIn(8) ? Kind::kUInt32 : Kind::kInt32)};  // uint32: draft form
  shape.children[0].name = "item";
  Spec s;
  s.kind = Kind::kStruct;
  s.children = {data, shape};
  if (in.OneIn(16)) std::swap(s.children[0], s.children[1]);  // wrong field order
  s.extension = Extension::kVariableShape;
  std::string uniform;
  for (int i = 0; i < ndim; ++i) {
    if (in.OneIn(3)) {
      s.uniform.push_back(static_cast<int32_t>(in.Int(0, 3)));
      uniform += (i ? "," : "") + std::to_string(*s.uniform.back());
    } else {
      s.uniform.push_back(std::nullopt);
      uniform += i ? ",null" : "null";
    }
  }
  s.extension_metadata = "{" +
                         std::string(in.OneIn(2) ? "\"uniform_shape\":[" + uniform + "]," : "") +
                         "\"v\":0" + TensorKeys(in, ndim) + "}";
  if (in.OneIn(32)) s.extension_metadata = "";
  return s;
}

Spec AnySpec(Input& in, int depth);

Spec PlainSpec(Input& in, int depth) {
  const int kinds = depth < 4 ? 21 : kNumPrimitive;
  Spec s = Primitive(static_cast<Kind>(in.Int(0, kinds - 1)));
  switch (s.kind) {
    case Kind::kFixedSizeBinary: s.size = static_cast<int32_t>(in.Int(0, 9)); break;
    case Kind::kFixedSizeList: s.size = static_cast<int32_t>(in.Int(0, 4)); [[fallthrough]];
    case Kind::kList:
    case Kind::kLargeList:
      s.children = {AnySpec(in, depth + 1)};
      s.children[0].name = "item";
      break;
    case Kind::kStruct:
      for (int64_t i = in.Int(0, 3); i > 0; --i) {
        s.children.push_back(AnySpec(in, depth + 1));
        s.children.back().name = "f" + std::to_string(i);
      }
      break;
    default: break;
  }
  return s;
}

Spec AnySpec(Input& in, int depth) {
  Spec s;
  switch (in.Int(0, 15)) {
    case 0:
    case 1:
    case 2: s = FixedShapeTensor(in); break;
    case 3:
    case 4: s = VariableShapeTensor(in); break;
    case 5:
      s = Primitive(Kind::kInt8);
      s.extension = Extension::kBool8;
      break;
    default: s = PlainSpec(in, depth); break;
  }
  s.nullable = !in.OneIn(4);
  return s;
}

// A chain of nested lists, fixed-size lists and one-field structs around
// an int32, `depth` levels deep: past quiver's limit of 64 sometimes.
Spec DeepSpec(Input& in) {
  Spec s = Primitive(Kind::kInt32);
  for (int64_t depth = in.Int(56, 72); depth > 0; --depth) {
    Spec outer = Primitive(
        static_cast<Kind>(in.Int(static_cast<int>(Kind::kList), static_cast<int>(Kind::kStruct))));
    if (outer.kind == Kind::kFixedSizeList) outer.size = 1;
    s.name = "item";
    outer.children = {std::move(s)};
    s = std::move(outer);
  }
  return s;
}

// --- ArrowSchema --------------------------------------------------------------

struct SchemaNode {
  ArrowSchema schema{};
  Bytes format, name, metadata;
  std::vector<std::pair<size_t, size_t>> metadata_payload;  // [begin, end) of keys and values
  std::vector<ArrowSchema*> child_pointers;                 // the `children` array handed out
  std::vector<SchemaNode*> owned;                           // every child this node releases
  int releases = 0;
};

struct ArrayNode {
  ArrowArray array{};
  std::vector<Bytes> buffers;
  std::vector<const void*> buffer_pointers;  // the `buffers` array handed out
  std::vector<ArrowArray*> child_pointers;
  std::vector<ArrayNode*> owned;
  int releases = 0;
};

struct StreamNode;

// Every struct made for one input; each must be released exactly once.
struct Arena {
  std::deque<SchemaNode> schemas;
  std::deque<ArrayNode> arrays;
  std::deque<StreamNode> streams;
  void CheckReleasedOnce() const;
};

void ReleaseSchema(ArrowSchema* schema) {
  auto* node = static_cast<SchemaNode*>(schema->private_data);
  if (++node->releases != 1) __builtin_trap();  // released twice
  for (SchemaNode* child : node->owned) {
    if (child->schema.release != nullptr) child->schema.release(&child->schema);
  }
  // Freed now, so a consumer that reads a released struct trips ASan.
  node->format = {};
  node->name = {};
  node->metadata = {};
  node->child_pointers = {};
  schema->release = nullptr;
}

void ReleaseArray(ArrowArray* array) {
  auto* node = static_cast<ArrayNode*>(array->private_data);
  if (++node->releases != 1) __builtin_trap();
  for (ArrayNode* child : node->owned) {
    if (child->array.release != nullptr) child->array.release(&child->array);
  }
  node->buffers.clear();
  node->buffer_pointers = {};
  node->child_pointers = {};
  array->release = nullptr;
}

void AppendInt32(std::string& out, int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }

// The C Data binary metadata form, with lengths that are honest unless
// negative (which a consumer must refuse before reading on).
// `payload` gets the byte ranges of keys and values (bytes that may change
// freely; the lengths may not).
std::string EncodeMetadata(const std::vector<std::pair<std::string, std::string>>& pairs,
                           std::vector<std::pair<size_t, size_t>>* payload, int lie = 0) {
  std::string out;
  AppendInt32(out, lie == 1 ? -1 : static_cast<int32_t>(pairs.size()));
  for (const auto& [key, value] : pairs) {
    AppendInt32(out, lie == 2 ? -7 : static_cast<int32_t>(key.size()));
    payload->emplace_back(out.size(), out.size() + key.size());
    out += key;
    AppendInt32(
        out, lie == 3 ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(value.size()));
    payload->emplace_back(out.size(), out.size() + value.size());
    out += value;
  }
  return out;
}

void SetMetadata(SchemaNode* node, const std::vector<std::pair<std::string, std::string>>& pairs,
                 int lie = 0) {
  node->metadata_payload.clear();
  const std::string encoded = EncodeMetadata(pairs, &node->metadata_payload, lie);
  node->metadata = Bytes::Make(static_cast<int64_t>(encoded.size()));
  std::memcpy(node->metadata.data.get(), encoded.data(), encoded.size());
  node->schema.metadata = reinterpret_cast<const char*>(node->metadata.data.get());
}

void SetFormat(SchemaNode* node, const std::string& format) {
  node->format = Bytes::Of(format);
  node->schema.format = reinterpret_cast<const char*>(node->format.data.get());
}

void SetChildren(SchemaNode* node, std::vector<ArrowSchema*> children) {
  node->child_pointers = std::move(children);
  node->schema.n_children = static_cast<int64_t>(node->child_pointers.size());
  node->schema.children = node->child_pointers.empty() ? nullptr : node->child_pointers.data();
}

std::string FormatOf(const Spec& spec) {
  std::string format = kFormats[static_cast<int>(spec.kind)];
  if (spec.kind == Kind::kFixedSizeBinary || spec.kind == Kind::kFixedSizeList) {
    format += std::to_string(spec.size);
  }
  return format;
}

SchemaNode* BuildSchema(Arena& arena, const Spec& spec, std::vector<SchemaNode*>& all) {
  SchemaNode* node = &arena.schemas.emplace_back();
  all.push_back(node);
  node->schema.private_data = node;
  node->schema.release = ReleaseSchema;
  SetFormat(node, FormatOf(spec));
  node->name = Bytes::Of(spec.name);
  node->schema.name = reinterpret_cast<const char*>(node->name.data.get());
  node->schema.flags = spec.nullable ? ARROW_FLAG_NULLABLE : 0;
  std::vector<ArrowSchema*> children;
  for (const Spec& child : spec.children) {
    node->owned.push_back(BuildSchema(arena, child, all));
    children.push_back(&node->owned.back()->schema);
  }
  SetChildren(node, std::move(children));
  static constexpr const char* kNames[] = {"", "arrow.fixed_shape_tensor",
                                           "arrow.variable_shape_tensor", "arrow.bool8"};
  if (spec.extension != Extension::kNone) {
    SetMetadata(node, {{kExtensionNameKey, kNames[static_cast<int>(spec.extension)]},
                       {kExtensionMetadataKey, spec.extension_metadata}});
  }
  return node;
}

SchemaNode* SmallSchema(Arena& arena, std::vector<SchemaNode*>& all) {
  return BuildSchema(arena, Primitive(Kind::kInt8), all);
}

// One schema mutation, stored so the same tree can be built and mutated
// twice (once to learn the type quiver sees, once to hand over).
struct SchemaMutation {
  uint8_t node;
  uint8_t kind;
  std::string bytes;
};

void ApplySchemaMutation(Arena& arena, std::vector<SchemaNode*>& all, const SchemaMutation& m) {
  static constexpr const char* kOddFormats[] = {"w:",
                                                "w:-1",
                                                "w:x",
                                                "w:2147483647",
                                                "w:99999999999",
                                                "+w:",
                                                "+w:-3",
                                                "+w:2147483647",
                                                "tdm",
                                                "+m",
                                                "+ud:1,2",
                                                "n",
                                                "",
                                                "+l",
                                                "+s",
                                                "u",
                                                "w:0",
                                                "+w:0",
                                                "i",
                                                "Z",
                                                "e",
                                                "b",
                                                "tdD",
                                                "tss:UTC",
                                                "tDn",
                                                "ttm",
                                                "d:10,2",
                                                "d:40,5,256",
                                                "d:0,0",
                                                "+r",
                                                "+vl",
                                                "tiM"};
  Input in(reinterpret_cast<const uint8_t*>(m.bytes.data()), m.bytes.size());
  SchemaNode* node = all[m.node % all.size()];
  if (node->releases > 0) return;  // released by the producer already: gone
  switch (m.kind % 11) {
    case 0: SetFormat(node, kOddFormats[in.Int(0, std::size(kOddFormats) - 1)]); break;
    case 1: SetFormat(node, in.Text(8)); break;
    case 2: node->schema.format = nullptr; break;
    case 3:
      node->schema.name = in.OneIn(2) ? nullptr : node->schema.name;
      node->schema.flags = in.Int64();
      break;
    case 4: {  // children: fewer, more (NULL or new), or a negative count
      const int64_t n = in.Int(0, 3);
      std::vector<ArrowSchema*> children = node->child_pointers;
      children.resize(static_cast<size_t>(n), nullptr);
      for (auto& child : children) {
        if (child == nullptr && in.OneIn(2)) {
          node->owned.push_back(SmallSchema(arena, all));
          child = &node->owned.back()->schema;
        }
      }
      SetChildren(node, std::move(children));
      if (in.OneIn(4)) node->schema.n_children = -in.Int(1, 100);
      if (in.OneIn(8) && node->schema.n_children > 0) node->schema.children = nullptr;
      break;
    }
    case 5:
      if (!node->child_pointers.empty())
        node->child_pointers[in.Int(0, node->child_pointers.size() - 1)] = nullptr;
      break;
    case 6:
      if (!node->owned.empty()) {  // a child the producer already released
        SchemaNode* child = node->owned[in.Int(0, node->owned.size() - 1)];
        if (child->schema.release != nullptr) child->schema.release(&child->schema);
      }
      break;
    case 7: {
      node->owned.push_back(SmallSchema(arena, all));
      node->schema.dictionary = &node->owned.back()->schema;
      break;
    }
    case 8: {  // arbitrary pairs, extension keys included, lengths sometimes negative
      std::vector<std::pair<std::string, std::string>> pairs;
      for (int64_t i = in.Int(0, 3); i > 0; --i) {
        std::string key = in.OneIn(2)   ? kExtensionNameKey
                          : in.OneIn(2) ? kExtensionMetadataKey
                                        : in.Text(6);
        std::string value = in.Text(24);
        if (key == kExtensionNameKey && in.OneIn(2)) {
          value = in.OneIn(2)   ? "arrow.fixed_shape_tensor"
                  : in.OneIn(2) ? "arrow.variable_shape_tensor"
                                : "arrow.bool8";
        }
        pairs.emplace_back(std::move(key), std::move(value));
      }
      SetMetadata(node, pairs, static_cast<int>(in.Int(0, 6)));
      break;
    }
    case 9:
      if (node->schema.metadata != nullptr &&
          !node->metadata_payload.empty()) {  // a key or value byte
        const auto [begin, end] =
            node->metadata_payload[in.Int(0, node->metadata_payload.size() - 1)];
        if (end > begin)
          node->metadata.data[in.Int(static_cast<int64_t>(begin), static_cast<int64_t>(end) - 1)] ^=
              in.Byte();
      }
      break;
    case 10: node->schema.metadata = nullptr; break;
  }
}

std::vector<SchemaMutation> ReadSchemaMutations(Input& in) {
  std::vector<SchemaMutation> out;
  for (int64_t n = in.OneIn(2) ? 0 : in.Int(1, 4); n > 0; --n) {
    SchemaMutation m{in.Byte(), in.Byte(), {}};
    for (int i = 0; i < 12; ++i) m.bytes.push_back(static_cast<char>(in.Byte()));
    out.push_back(std::move(m));
  }
  return out;
}

SchemaNode* MakeSchema(Arena& arena, const Spec& spec,
                       const std::vector<SchemaMutation>& mutations) {
  std::vector<SchemaNode*> all;
  SchemaNode* root = BuildSchema(arena, spec, all);
  for (const auto& m : mutations) ApplySchemaMutation(arena, all, m);
  return root;
}

// --- ArrowArray ---------------------------------------------------------------

ArrayNode* NewArray(Arena& arena, int64_t length, int64_t offset) {
  ArrayNode* node = &arena.arrays.emplace_back();
  node->array.private_data = node;
  node->array.release = ReleaseArray;
  node->array.length = length;
  node->array.offset = offset;
  node->array.null_count = -1;
  return node;
}

void AddBuffer(ArrayNode* node, Bytes bytes, bool present = true) {
  node->buffers.push_back(std::move(bytes));
  node->buffer_pointers.push_back(present ? node->buffers.back().data.get() : nullptr);
  node->array.n_buffers = static_cast<int64_t>(node->buffer_pointers.size());
  node->array.buffers = node->buffer_pointers.data();
}

void AddChild(ArrayNode* node, ArrayNode* child) {
  node->owned.push_back(child);
  node->child_pointers.push_back(&child->array);
  node->array.n_children = static_cast<int64_t>(node->child_pointers.size());
  node->array.children = node->child_pointers.data();
}

Bytes RandomBytes(Input& in, int64_t n) {
  Bytes b = Bytes::Make(n);
  in.Fill(b.data.get(), n);
  return b;
}

void WriteOffset(uint8_t* offsets, int64_t i, int64_t value, int64_t width) {
  if (width == 4) {
    const auto v = static_cast<int32_t>(value);
    std::memcpy(offsets + i * 4, &v, 4);
  } else {
    std::memcpy(offsets + i * 8, &value, 8);
  }
}
void WriteOffset(Bytes& offsets, int64_t i, int64_t value, int64_t width) {
  WriteOffset(offsets.data.get(), i, value, width);
}

int64_t ReadOffset(const uint8_t* offsets, int64_t i, int64_t width) {
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, offsets + i * 4, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, offsets + i * 8, 8);
  return v;
}

// Values generated for the current input; past the budget, lists are empty
// (deep chains of lists would otherwise grow exponentially).
int64_t elements_left = 0;

// end + 1 non-decreasing offsets from a small start; returns the last one.
int64_t MonotonicOffsets(Input& in, Bytes& offsets, int64_t end, int64_t width, int64_t step) {
  if (elements_left <= 0) step = 0;
  int64_t at = elements_left > 0 ? in.Int(0, 2) : 0;
  for (int64_t i = 0; i <= end; ++i) {
    WriteOffset(offsets, i, at, width);
    if (i < end) at += in.Int(0, step);
  }
  elements_left -= at;
  return at;
}

ArrayNode* BuildArray(Arena& arena, Input& in, const Spec& spec, int64_t length);

ArrayNode* BuildVariableShapeStorage(Arena& arena, Input& in, const Spec& spec, int64_t length) {
  // Rows with shapes that respect uniform_shape and data lengths that match
  // them, so the accepted path is reached; mutations break it afterwards.
  const int64_t offset = in.Int(0, 2), end = offset + length;
  const auto ndim = static_cast<int64_t>(spec.uniform.size());
  ArrayNode* node = NewArray(arena, length, offset);
  const bool nulls = in.OneIn(2);
  AddBuffer(node, RandomBytes(in, (end + 7) / 8), nulls);
  Bytes offsets = Bytes::Make((end + 1) * 4), shapes = Bytes::Make(end * ndim * 4);
  int64_t total = 0;
  for (int64_t row = 0; row < end; ++row) {
    WriteOffset(offsets, row, total, 4);
    int64_t product = 1;
    for (int64_t k = 0; k < ndim; ++k) {
      const int64_t d = spec.uniform[k] ? *spec.uniform[k] : in.Int(0, 4);
      WriteOffset(shapes, row * ndim + k, d, 4);
      product *= d;
    }
    total += product;
  }
  WriteOffset(offsets, end, total, 4);
  const bool data_first = spec.children[0].kind == Kind::kList;
  const Spec& data_spec = spec.children[data_first ? 0 : 1];
  ArrayNode* data = NewArray(arena, end, 0);
  AddBuffer(data, Bytes::Make(0), false);
  AddBuffer(data, std::move(offsets));
  AddChild(data, BuildArray(arena, in, data_spec.children[0], total));
  ArrayNode* shape = NewArray(arena, end, 0);
  AddBuffer(shape, Bytes::Make(0), false);
  ArrayNode* entries = NewArray(arena, end * ndim, 0);
  entries->array.null_count = 0;
  AddBuffer(entries, Bytes::Make(0), false);
  AddBuffer(entries, std::move(shapes));
  AddChild(shape, entries);
  AddChild(node, data_first ? data : shape);  // uint32 draft shapes: the same bytes
  AddChild(node, data_first ? shape : data);
  return node;
}

ArrayNode* BuildArray(Arena& arena, Input& in, const Spec& spec, int64_t length) {
  if (spec.extension == Extension::kVariableShape)
    return BuildVariableShapeStorage(arena, in, spec, length);
  const int64_t offset = in.OneIn(4) ? in.Int(1, 3) : 0, end = offset + length;
  ArrayNode* node = NewArray(arena, length, offset);
  const bool nulls = spec.nullable && in.OneIn(3);
  Bytes validity = RandomBytes(in, (end + 7) / 8);
  if (nulls && in.OneIn(2)) {  // a correct null count
    int64_t count = 0;
    for (int64_t i = offset; i < end; ++i) count += (validity.data[i / 8] >> (i % 8) & 1) == 0;
    node->array.null_count = count;
  } else if (!nulls) {
    node->array.null_count = 0;
  }
  AddBuffer(node, std::move(validity), nulls);
  const int k = static_cast<int>(spec.kind);
  switch (spec.kind) {
    case Kind::kBool: AddBuffer(node, RandomBytes(in, (end + 7) / 8)); break;
    case Kind::kUtf8:
    case Kind::kLargeUtf8:
    case Kind::kBinary:
    case Kind::kLargeBinary: {
      const int64_t width = (spec.kind == Kind::kUtf8 || spec.kind == Kind::kBinary) ? 4 : 8;
      Bytes offsets = Bytes::Make((end + 1) * width);
      const int64_t last = MonotonicOffsets(in, offsets, end, width, 4);
      Bytes data = RandomBytes(in, last);
      if (spec.kind == Kind::kUtf8 || spec.kind == Kind::kLargeUtf8) {
        for (int64_t i = 0; i < last; ++i)
          data.data[i] =
              in.OneIn(32) ? data.data[i] : static_cast<uint8_t>('a' + data.data[i] % 26);
      }
      AddBuffer(node, std::move(offsets));
      AddBuffer(node, std::move(data));
      break;
    }
    case Kind::kFixedSizeBinary: AddBuffer(node, RandomBytes(in, end * spec.size)); break;
    case Kind::kList:
    case Kind::kLargeList: {
      const int64_t width = spec.kind == Kind::kList ? 4 : 8;
      Bytes offsets = Bytes::Make((end + 1) * width);
      const int64_t last = MonotonicOffsets(in, offsets, end, width, 3);
      AddBuffer(node, std::move(offsets));
      AddChild(node, BuildArray(arena, in, spec.children[0], last + in.Int(0, 1)));
      break;
    }
    case Kind::kFixedSizeList:
      AddChild(node, BuildArray(arena, in, spec.children[0], end * spec.size));
      break;
    case Kind::kStruct:
      for (const Spec& child : spec.children)
        AddChild(node, BuildArray(arena, in, child, end + in.Int(0, 1)));
      break;
    default: AddBuffer(node, RandomBytes(in, end * kWidths[k])); break;
  }
  return node;
}

// Mutates one node of the tree under `root`.
void MutateArray(Arena& arena, Input& in, const std::vector<ArrayNode*>& all) {
  ArrayNode* node = all[in.Int(0, all.size() - 1)];
  if (node->releases > 0) return;  // released by the producer already: gone
  ArrowArray& a = node->array;
  switch (in.Int(0, 12)) {
    case 0: a.length = in.Int(0, 4096); break;
    case 1: a.length = in.OneIn(2) ? -in.Int(1, 1000) : std::numeric_limits<int64_t>::min(); break;
    case 2:
      a.length =
          in.OneIn(2) ? kInt64Max - in.Int(0, 100) : (int64_t{1} << in.Int(40, 62)) + in.Int(0, 7);
      break;
    case 3:
      a.offset = in.OneIn(2)   ? in.Int(0, 64)
                 : in.OneIn(2) ? -in.Int(1, 9)
                               : kInt64Max - in.Int(0, 100);
      break;
    case 4: a.null_count = in.OneIn(2) ? in.Int(-3, 8) : in.Int64(); break;
    case 5: {  // n_buffers: a small count with an array that long, or a wild one
      if (in.OneIn(3)) {
        a.n_buffers = in.OneIn(2) ? -in.Int(1, 9) : kInt64Max - in.Int(0, 9);
        break;
      }
      const auto n = static_cast<size_t>(in.Int(0, 4));
      while (node->buffer_pointers.size() < n) AddBuffer(node, RandomBytes(in, 8), !in.OneIn(2));
      node->buffer_pointers.resize(n);
      a.n_buffers = static_cast<int64_t>(n);
      a.buffers = n == 0 && in.OneIn(2) ? nullptr : node->buffer_pointers.data();
      break;
    }
    case 6:
      if (!node->buffer_pointers.empty())
        node->buffer_pointers[in.Int(0, node->buffer_pointers.size() - 1)] = nullptr;
      break;
    case 7: {  // bytes of a buffer: offsets, shapes, characters, bitmaps
      for (int64_t i = in.Int(1, 4); i > 0 && !node->buffers.empty(); --i) {
        Bytes& b = node->buffers[in.Int(0, node->buffers.size() - 1)];
        if (b.size > 0) b.data[in.Int(0, b.size - 1)] = in.Byte();
      }
      break;
    }
    case 8: {  // n_children, with a children array that long, or a wild count
      if (in.OneIn(3)) {
        a.n_children = in.OneIn(2) ? -in.Int(1, 9) : kInt64Max;
        break;
      }
      const auto n = static_cast<size_t>(in.Int(0, 3));
      node->child_pointers.resize(n, nullptr);
      for (auto& child : node->child_pointers) {
        if (child == nullptr && in.OneIn(2)) {
          node->owned.push_back(BuildArray(arena, in, Primitive(Kind::kInt8), in.Int(0, 8)));
          child = &node->owned.back()->array;
        }
      }
      a.n_children = static_cast<int64_t>(n);
      a.children = n == 0 && in.OneIn(2) ? nullptr : node->child_pointers.data();
      break;
    }
    case 9:
      if (!node->child_pointers.empty())
        node->child_pointers[in.Int(0, node->child_pointers.size() - 1)] = nullptr;
      break;
    case 10:
      if (!node->owned.empty()) {
        ArrayNode* child = node->owned[in.Int(0, node->owned.size() - 1)];
        if (child->array.release != nullptr) child->array.release(&child->array);
      }
      break;
    case 11:
      node->owned.push_back(BuildArray(arena, in, Primitive(Kind::kInt8), 2));
      a.dictionary = &node->owned.back()->array;
      break;
    case 12:
      if (a.n_children > 0 && in.OneIn(2))
        a.children = nullptr;
      else if (a.n_buffers > 0)
        a.buffers = nullptr;
      break;
  }
}

void Collect(ArrayNode* node, std::vector<ArrayNode*>& all) {
  all.push_back(node);
  for (ArrayNode* child : node->owned) Collect(child, all);
}

// --- the producer's contract: buffers as large as the imported type says -----

// Bytes needed, or nullopt when the true count exceeds int64 (quiver must
// refuse such a node before reading any buffer).
std::optional<int64_t> Product(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

enum class Role { kBitmap, kValues, kOffsets, kData, kTypeIds, kInt32s };

// The buffer roles of `type` (its storage) and the bytes per value (of
// kValues and kOffsets; type ids are 1 byte, kInt32s 4 bytes per slot).
std::vector<Role> RolesOf(const DataType& type, int64_t* width) {
  *width = type.byte_width();
  switch (type.id()) {
    case TypeId::kMap: *width = 4; return {Role::kBitmap, Role::kOffsets};
    case TypeId::kListView: *width = 4; return {Role::kBitmap, Role::kValues, Role::kValues};
    case TypeId::kLargeListView: *width = 8; return {Role::kBitmap, Role::kValues, Role::kValues};
    case TypeId::kSparseUnion: return {Role::kTypeIds};
    case TypeId::kDenseUnion: return {Role::kTypeIds, Role::kInt32s};
    case TypeId::kRunEndEncoded: return {};
    case TypeId::kBool: return {Role::kBitmap, Role::kBitmap};
    case TypeId::kUtf8:
    case TypeId::kBinary: *width = 4; return {Role::kBitmap, Role::kOffsets, Role::kData};
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: *width = 8; return {Role::kBitmap, Role::kOffsets, Role::kData};
    case TypeId::kList: *width = 4; return {Role::kBitmap, Role::kOffsets};
    case TypeId::kLargeList: *width = 8; return {Role::kBitmap, Role::kOffsets};
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: return {Role::kBitmap};
    default: return {Role::kBitmap, Role::kValues};
  }
}

// Replaces buffer i (of `old_size` bytes) by a copy of exactly `size`
// bytes, new bytes from the input; returns the new bytes.
uint8_t* Resize(Input& in, ArrayNode* node, size_t i, int64_t old_size, int64_t size) {
  Bytes resized = Bytes::Make(size);
  const int64_t keep = std::min(size, old_size);
  if (keep > 0)
    std::memcpy(resized.data.get(), node->buffer_pointers[i], static_cast<size_t>(keep));
  in.Fill(resized.data.get() + keep, size - keep);
  node->buffer_pointers[i] = resized.data.get();
  node->buffers.push_back(std::move(resized));
  return node->buffers.back().data.get();
}

// The size of a buffer of `node` from its storage (buffers handed out are
// always ones the node stores).
int64_t SizeOf(const ArrayNode* node, const void* pointer) {
  for (const Bytes& b : node->buffers) {
    if (b.data.get() == pointer) return b.size;
  }
  __builtin_trap();
}

// Gives every buffer quiver will read exactly the size the imported type
// and the node's claims require. A node whose claims no producer could
// honour (sizes past kMaxBytes that do not overflow) is made to claim an
// offset + length that overflows, which quiver refuses before reading.
void HonourContract(Input& in, ArrayNode* node, const DataType& type) {
  ArrowArray& a = node->array;
  const DataType& encoded = type.storage();
  // A dictionary array has its indices' buffers and carries the values as
  // its dictionary, which must honour the value type too.
  const bool is_dictionary = encoded.id() == TypeId::kDictionary;
  const DataType& storage = is_dictionary ? *encoded.index_type() : encoded;
  int64_t width = 0;
  const std::vector<Role> roles = RolesOf(storage, &width);
  int64_t end;
  if (a.release == nullptr || a.length < 0 || a.offset < 0 ||
      __builtin_add_overflow(a.offset, a.length, &end) ||
      (a.buffers == nullptr && !roles.empty()) ||
      a.n_buffers != static_cast<int64_t>(roles.size())) {
    return;  // refused before any buffer is read
  }
  if (is_dictionary != (a.dictionary != nullptr)) return;  // refused: dictionary and type disagree
  if (is_dictionary && a.dictionary->private_data != nullptr) {
    HonourContract(in, static_cast<ArrayNode*>(a.dictionary->private_data), *encoded.value_type());
  }
  // Buffer sizes first (an overflow anywhere refuses the node), then data.
  std::vector<std::optional<int64_t>> sizes;
  for (Role role : roles) {
    switch (role) {
      case Role::kBitmap: sizes.push_back(end / 8 + (end % 8 != 0)); break;
      case Role::kValues: sizes.push_back(Product(end, width)); break;
      case Role::kOffsets:
        sizes.push_back(end == kInt64Max ? std::nullopt : Product(end + 1, width));
        break;
      case Role::kData: sizes.push_back(0); break;
      case Role::kTypeIds: sizes.push_back(end); break;
      case Role::kInt32s: sizes.push_back(Product(end, 4)); break;
    }
    if (!sizes.back()) return;
  }
  for (size_t i = 0; i < roles.size(); ++i) {
    if (*sizes[i] > kMaxBytes) {
      a.offset = 1;
      a.length = kInt64Max;
      return;
    }
  }
  uint8_t* offsets = nullptr;
  for (size_t i = 0; i < roles.size(); ++i) {
    if (a.buffers[i] == nullptr) continue;
    const int64_t old_size = SizeOf(node, a.buffers[i]);
    if (roles[i] != Role::kData) {
      uint8_t* resized = Resize(in, node, i, old_size, *sizes[i]);
      if (roles[i] == Role::kOffsets) offsets = resized;
      continue;
    }
    int64_t last = 0;
    if (offsets != nullptr && end > 0) {  // the data buffer ends at the last offset
      last = ReadOffset(offsets, end, width);
      if (last < 0) continue;  // refused: a negative last offset
      if (last > 4096) {
        last = in.Int(0, 64);
        WriteOffset(offsets, end, last, width);
      }
    }
    Resize(in, node, i, old_size, last);
  }
  const int64_t children = static_cast<int64_t>(storage.children().size());
  if (a.n_children != children || (children > 0 && a.children == nullptr)) return;
  for (int64_t i = 0; i < children; ++i) {
    if (a.children[i] == nullptr) continue;
    HonourContract(in, static_cast<ArrayNode*>(a.children[i]->private_data),
                   *storage.children()[i].type);
  }
}

ArrayNode* MakeArray(Arena& arena, Input& in, const Spec& spec, const DataType& type) {
  const int64_t length = in.OneIn(8) ? in.Int(0, 300) : in.Int(0, 12);
  ArrayNode* root = BuildArray(arena, in, spec, length);
  std::vector<ArrayNode*> all;
  Collect(root, all);
  for (int64_t n = in.OneIn(2) ? 0 : in.Int(1, 4); n > 0; --n) MutateArray(arena, in, all);
  HonourContract(in, root, type);
  if (in.OneIn(64)) root->array.release(&root->array);  // an already released struct
  return root;
}

// --- ArrowArrayStream ---------------------------------------------------------

struct StreamNode {
  ArrowArrayStream stream{};
  SchemaNode* schema = nullptr;
  std::vector<ArrayNode*> arrays;
  size_t next = 0;
  int fail_next_at = -1;
  bool fail_schema = false, has_message = true;
  std::string last_error;
  int releases = 0;
};

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* node = static_cast<StreamNode*>(stream->private_data);
  if (node->fail_schema || node->schema->schema.release == nullptr) {
    node->last_error = "no schema here";
    return EIO;
  }
  *out = node->schema->schema;  // moved out
  node->schema->schema.release = nullptr;
  return 0;
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* node = static_cast<StreamNode*>(stream->private_data);
  if (static_cast<int>(node->next) == node->fail_next_at) {
    node->last_error = "batch " + std::to_string(node->next) + " failed";
    return EINVAL;
  }
  if (node->next == node->arrays.size()) {
    *out = ArrowArray{};
    return 0;
  }
  ArrayNode* array = node->arrays[node->next++];
  *out = array->array;
  array->array.release = nullptr;
  return 0;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* node = static_cast<StreamNode*>(stream->private_data);
  return node->has_message ? node->last_error.c_str() : nullptr;
}

void StreamRelease(ArrowArrayStream* stream) {
  auto* node = static_cast<StreamNode*>(stream->private_data);
  if (++node->releases != 1) __builtin_trap();
  if (node->schema->schema.release != nullptr) node->schema->schema.release(&node->schema->schema);
  for (ArrayNode* array : node->arrays) {
    if (array->array.release != nullptr) array->array.release(&array->array);
  }
  stream->release = nullptr;
}

void Arena::CheckReleasedOnce() const {
  for (const auto& node : schemas)
    if (node.releases != 1) __builtin_trap();
  for (const auto& node : arrays)
    if (node.releases != 1) __builtin_trap();
  for (const auto& node : streams)
    if (node.releases != 1) __builtin_trap();
}

// --- using what was accepted --------------------------------------------------

// Reads every element of `tensor` (through a contiguous copy).
void Touch(const Result<Tensor>& tensor) {
  if (!tensor.ok()) return;
  auto copy = tensor->ToContiguous();
  if (!copy.ok()) return;
  const int64_t bytes = copy->size() * copy->type()->byte_width();
  uint64_t sum = 0;
  for (int64_t i = 0; i < bytes; ++i) sum += copy->raw_data()[i];
  volatile uint64_t sink = sum;
  (void)sink;
}

void UseFixedShape(Input& in, const ArrayDataPtr& data, ValidationLevel level) {
  auto array = FixedShapeTensorArray::Make(data, level);
  if (!array.ok()) return;
  Touch(array->ToTensor(NullPolicy::kAllow));
  Touch(array->ToTensor());
  for (int64_t i = 0; i < std::min<int64_t>(array->length(), 4); ++i)
    Touch(array->RowTensor(i, NullPolicy::kAllow));
  auto slice = array->Slice(in.Int(0, 3), in.Int(0, 3));
  if (slice.ok()) Touch(slice->ToTensor(NullPolicy::kAllow));
}

void UseVariableShape(Input& in, const ArrayDataPtr& data, ValidationLevel level) {
  auto array = VariableShapeTensorArray::Make(data, level);
  if (!array.ok()) return;
  // The padded batch is as large as the largest row on every axis: bound it.
  std::vector<int64_t> max_shape;
  for (int64_t i = 0; i < std::min<int64_t>(array->length(), 64); ++i) {
    auto row = array->RowTensor(i, NullPolicy::kAllow);
    Touch(row);
    if (!row.ok()) continue;
    max_shape.resize(row->shape().size(), 0);
    for (size_t k = 0; k < max_shape.size(); ++k)
      max_shape[k] = std::max(max_shape[k], row->shape()[k]);
  }
  int64_t padded = array->length();
  for (int64_t d : max_shape) {
    // Sizes come from the input: saturate rather than overflow.
    if (__builtin_mul_overflow(padded, std::max<int64_t>(d, 1), &padded)) {
      padded = std::numeric_limits<int64_t>::max();
      break;
    }
  }
  if (array->length() <= 64 && padded <= (1 << 16)) {
    auto result = array->ToPadded(0, NullPolicy::kAllow);
    if (result.ok()) Touch(result->values);
  }
  std::vector<int64_t> indices(static_cast<size_t>(in.Int(0, 6)));
  for (auto& i : indices) i = in.Int(-2, array->length() + 1);
  auto taken = array->Take(indices);
  if (taken.ok() && !Validate(*taken->data()).ok()) __builtin_trap();  // quiver's own output
  auto jagged = array->ToJagged(NullPolicy::kAllow);
  if (jagged.ok()) Touch(jagged->values);
  std::vector<uint8_t> mask(static_cast<size_t>(array->length()));
  for (auto& m : mask) m = in.Byte() & 1;
  (void)array->Filter(mask);
  (void)array->Shapes();
  (void)array->ToFixed();
}

void UseArray(Input& in, const ArrayDataPtr& data, ValidationLevel level) {
  if (level == ValidationLevel::kNone) return;  // trusted: nothing may be assumed
  // Full validation must be safe on whatever passed a lower level.
  const bool full = Validate(*data, ValidationLevel::kFull).ok();
  if (level == ValidationLevel::kFull && !full) __builtin_trap();
  const DataType& type = *data->type;
  if (type.id() == TypeId::kExtension &&
      type.extension_name() == FixedShapeTensorType::kExtensionName) {
    UseFixedShape(in, data, level);
  } else if (type.id() == TypeId::kExtension &&
             type.extension_name() == VariableShapeTensorType::kExtensionName) {
    UseVariableShape(in, data, level);
  }
  auto slice = Slice(data, in.Int(0, 2), in.Int(0, 4));
  if (slice.ok()) (void)Validate(**slice, level);
  // Export and import again: what passed kFull must pass it again.
  ArrowArray exported;
  if (!ExportArray(data, &exported).ok()) return;
  auto again = ImportArray(&exported, data->type, ValidationLevel::kFull);
  if (full && !again.ok()) __builtin_trap();
}

void UseField(const Field& field) {
  ArrowSchema exported;
  if (!ExportField(field, &exported).ok()) return;
  auto again = ImportField(&exported);
  if (!again.ok() || !again->Equals(field)) __builtin_trap();  // a lossy round trip
}

ValidationLevel LevelOf(uint8_t byte) {
  switch (byte % 8) {
    case 0: return ValidationLevel::kNone;
    case 1: return ValidationLevel::kMinimal;
    case 2: return ValidationLevel::kDefault;
    default: return ValidationLevel::kFull;
  }
}

void FuzzOneArray(Arena& arena, Input& in, const Spec& spec, const Field& field,
                  ValidationLevel level) {
  ArrayNode* root = MakeArray(arena, in, spec, *field.type);
  auto imported = ImportArray(&root->array, field.type, level);
  if (imported.ok()) UseArray(in, *imported, level);
}

// `field` is what ImportField made of the same schema; `refused` says it
// refused it (rather than never seeing it).
void FuzzStream(Arena& arena, Input& in, const Spec& spec,
                const std::vector<SchemaMutation>& mutations, const std::optional<Field>& field,
                bool refused, ValidationLevel level) {
  StreamNode* node = &arena.streams.emplace_back();
  node->schema = MakeSchema(arena, spec, mutations);
  if (field) {
    for (int64_t n = in.Int(0, 3); n > 0; --n)
      node->arrays.push_back(MakeArray(arena, in, spec, *field->type));
  }
  node->fail_next_at = in.OneIn(4) ? static_cast<int>(in.Int(0, 3)) : -1;
  node->fail_schema = in.OneIn(16);
  node->has_message = !in.OneIn(4);
  ArrowArrayStream& s = node->stream;
  s.private_data = node;
  s.get_schema = in.OneIn(16) ? nullptr : StreamGetSchema;
  s.get_next = in.OneIn(16) ? nullptr : StreamGetNext;
  s.get_last_error = in.OneIn(16) ? nullptr : StreamGetLastError;
  s.release = StreamRelease;
  if (in.OneIn(32)) s.release(&s);
  auto reader = ImportArrayStream(&s, level);
  if (!reader.ok()) return;
  if (refused) __builtin_trap();
  if (field) {
    // The same schema, in canonical storage (what the arrays come in).
    Field canonical = *field;
    auto type = CanonicalType(field->type);
    if (!type.ok()) __builtin_trap();  // ImportField accepted it
    canonical.type = *type;
    if (!(*reader)->field().Equals(canonical)) __builtin_trap();
  }
  for (size_t i = 0; i <= node->arrays.size(); ++i) {
    auto next = (*reader)->Next();
    if (!next.ok() || *next == nullptr) break;
    UseArray(in, *next, level);
  }
}

}  // namespace

int FuzzCDataImport(const uint8_t* data, size_t size) {
  Input in(data, size);
  elements_left = 20000;
  const uint8_t mode = in.Byte();
  const ValidationLevel level = LevelOf(in.Byte());
  const Spec spec = in.OneIn(16) ? DeepSpec(in) : AnySpec(in, 0);
  const std::vector<SchemaMutation> mutations = ReadSchemaMutations(in);
  Arena arena;
  {
    // Schema first: the type quiver sees decides how large the buffers of
    // every array must be.
    SchemaNode* schema = MakeSchema(arena, spec, mutations);
    const bool released = in.OneIn(64);
    if (released) schema->schema.release(&schema->schema);
    std::optional<Field> field;
    auto imported = ImportField(&schema->schema);
    if (imported.ok()) {
      field = std::move(*imported);
      UseField(*field);
    }
    if (mode % 3 == 1) {
      FuzzStream(arena, in, spec, mutations, field, !released && !imported.ok(), level);
    } else if (mode % 3 == 2 && field) {
      FuzzOneArray(arena, in, spec, *field, level);
    } else if (field) {  // a second array of the same type, after the first
      FuzzOneArray(arena, in, spec, *field, level);
      FuzzOneArray(arena, in, spec, *field, level);
    }
  }
  arena.CheckReleasedOnce();
  return 0;
}

}  // namespace quiver::fuzz
