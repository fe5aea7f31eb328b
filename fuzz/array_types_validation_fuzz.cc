// Fuzzes full validation of the layouts that came with every Arrow type:
// map, sparse and dense union, run-end encoded, list view, binary views
// with variadic buffers, dictionaries, intervals and decimal32 / decimal64,
// nested in one another. The input picks the type and gives every length,
// offset, null count and buffer byte. Whatever Validate accepts at kFull
// must be safe to use completely: compared, compacted, sliced, taken,
// filtered, concatenated, exported through the C Data Interface and
// written as IPC and read back equal. Buffers are allocated at their exact
// size, so ASan sees any read past one.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_targets.h"
#include "ipc_fuzz_common.h"
#include "quiver/array.h"
#include "quiver/record_batch.h"
#include "quiver/selection.h"

namespace quiver::fuzz {

namespace {

// A buffer of exactly `bytes` bytes from the input (malloc'ed at that
// size, so ASan sees a read past it), or (one time in eight) of a size the
// input picks near it, or absent.
BufferPtr ExactBuffer(Input& in, int64_t bytes) {
  const uint8_t mode = in.Byte();
  if (mode % 16 == 15) return nullptr;
  if (mode % 8 == 7) bytes = std::max<int64_t>(0, bytes + in.Int(-3, 3));
  void* memory = std::malloc(static_cast<size_t>(bytes > 0 ? bytes : 1));
  if (memory == nullptr) abort();
  in.Fill(static_cast<uint8_t*>(memory), bytes);
  return Buffer::Wrap(memory, bytes, [memory] { std::free(memory); });
}

TypePtr Must(Result<TypePtr> type) {
  if (!type.ok()) abort();
  return *type;
}

// The types the input picks from; the nested ones hold others.
TypePtr PickType(Input& in, int depth) {
  const int pick = static_cast<int>(in.Int(0, depth < 2 ? 15 : 10));
  switch (pick) {
    case 0: return Must(interval(IntervalUnit::kMonthDayNano));
    case 1: return Must(interval(IntervalUnit::kDayTime));
    case 2: return Must(decimal32(9, 2));
    case 3: return Must(decimal64(18, 4));
    case 4: return utf8_view();
    case 5: return binary_view();
    case 6: return Must(dictionary(int8(), utf8()));
    case 7: return Must(run_end_encoded(int16(), utf8()));
    case 8: return Must(run_end_encoded(int32(), int64()));
    case 9: return utf8();
    case 10: return int32();
    case 11: return Must(map_(utf8(), PickType(in, depth + 1)));
    case 12: return Must(sparse_union({{"a", int32()}, {"b", PickType(in, depth + 1)}}, {3, 7}));
    case 13: return Must(dense_union({{"a", int64()}, {"b", PickType(in, depth + 1)}}));
    case 14: return list_view(ListItem(PickType(in, depth + 1)));
    default: return large_list_view(ListItem(PickType(in, depth + 1)));
  }
}

int64_t Width(const DataType& type) {
  switch (type.id()) {
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32: return 4;
    case TypeId::kInt64: return 8;
    default: return type.byte_width();
  }
}

// An array of `type` whose every length, offset and byte the input gives.
ArrayDataPtr Build(Input& in, const TypePtr& type, int64_t length, int depth) {
  auto a = std::make_shared<ArrayData>();
  a->type = type;
  a->length = length;
  a->offset = in.Int(0, 2);
  a->null_count = in.Byte() % 4 == 0 ? in.Int(0, 3) : kUnknownNullCount;
  const int64_t end = a->offset + a->length;
  const int64_t bitmap = (end + 7) / 8;
  const int64_t child_length = in.Int(0, 20);
  switch (type->id()) {
    case TypeId::kMap:
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, (end + 1) * 4)};
      a->children = {Build(in, type->children()[0].type, child_length, depth + 1)};
      break;
    case TypeId::kStruct:
      a->buffers = {ExactBuffer(in, bitmap)};
      for (const Field& field : type->children())
        a->children.push_back(Build(in, field.type, end, depth + 1));
      a->offset = 0;
      break;
    case TypeId::kSparseUnion:
      a->buffers = {ExactBuffer(in, end)};
      for (const Field& field : type->children())
        a->children.push_back(Build(in, field.type, end, depth + 1));
      break;
    case TypeId::kDenseUnion:
      a->buffers = {ExactBuffer(in, end), ExactBuffer(in, end * 4)};
      for (const Field& field : type->children())
        a->children.push_back(Build(in, field.type, in.Int(0, 12), depth + 1));
      break;
    case TypeId::kRunEndEncoded: {
      const int64_t runs = in.Int(0, 8);
      a->children = {Build(in, type->children()[0].type, runs, depth + 1),
                     Build(in, type->children()[1].type, runs, depth + 1)};
      a->null_count = 0;
      break;
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const int64_t width = type->id() == TypeId::kListView ? 4 : 8;
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, end * width),
                    ExactBuffer(in, end * width)};
      a->children = {Build(in, type->children()[0].type, child_length, depth + 1)};
      break;
    }
    case TypeId::kUtf8View:
    case TypeId::kBinaryView: {
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, end * 16)};
      for (int64_t k = in.Int(0, 2); k > 0; --k)
        a->buffers.push_back(ExactBuffer(in, in.Int(0, 48)));
      break;
    }
    case TypeId::kUtf8:
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, (end + 1) * 4),
                    ExactBuffer(in, in.Int(0, 40))};
      break;
    case TypeId::kDictionary:
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, end * Width(*type->index_type()))};
      a->dictionary = Build(in, type->value_type(), in.Int(0, 8), depth + 1);
      break;
    default:  // fixed-width values: integers, intervals, decimals
      a->buffers = {ExactBuffer(in, bitmap), ExactBuffer(in, end * Width(*type))};
      break;
  }
  return a;
}

void Check(bool invariant) {
  if (!invariant) abort();
}

// Everything a program does with a validated array.
void Use(Input& in, const ArrayDataPtr& a) {
  Check(ArrayEquals(*a, *a));
  volatile uint64_t sink = Touch(*a);
  (void)ReferencedBytes(*a);
  if (auto compact = Compact(*a); compact.ok()) {
    Check(Validate(**compact).ok() && ArrayEquals(**compact, *a));
  }
  const int64_t start = in.Int(0, a->length), count = in.Int(0, a->length - start);
  if (auto slice = Slice(a, start, count); slice.ok()) Check(Validate(**slice).ok());
  std::vector<int64_t> indices;
  std::vector<uint8_t> mask;
  for (int64_t i = 0; i < a->length; ++i) {
    if (in.Byte() % 2) indices.push_back(in.Int(0, a->length - 1));
    mask.push_back(in.Byte() % 2);
  }
  if (auto taken = Take(a, indices); taken.ok()) Check(Validate(**taken).ok());
  if (auto kept = Filter(a, mask); kept.ok()) Check(Validate(**kept).ok());
  const ArrayDataPtr twice[] = {a, a};
  if (auto both = Concatenate(twice); both.ok()) Check(Validate(**both).ok());
  ArrowArray exported;
  if (ExportArray(a, &exported).ok()) exported.release(&exported);
  // Written as IPC and read back: the same values.
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field{"x", a->type}};
  auto batch = RecordBatch::Make(schema, a->length, {a});
  if (!batch.ok()) return;
  auto out = std::make_shared<ipc::BufferSink>();
  auto writer = ipc::StreamWriter::Open(out, schema);
  if (!writer.ok()) return;
  Status written = (*writer)->Write(**batch);
  if (!written.ok()) {
    Check(written.code() == StatusCode::kNotImplemented);
    return;
  }
  Check((*writer)->Close().ok());
  auto bytes = out->Finish();
  Check(bytes.ok());
  auto reader = ipc::StreamReader::Open(ipc::BufferSource(*bytes));
  Check(reader.ok());
  auto back = (*reader)->Next();
  Check(back.ok() && *back && ArrayEquals(*(*back)->column(0), *a));
  sink = sink + 1;
}

}  // namespace

int FuzzArrayTypesValidation(const uint8_t* data, size_t size) {
  Input in(data, size);
  const TypePtr type = PickType(in, 0);
  const ArrayDataPtr array = Build(in, type, in.Int(0, 16), 0);
  if (!Validate(*array, ValidationLevel::kFull).ok()) return 0;
  Use(in, array);
  return 0;
}

}  // namespace quiver::fuzz
