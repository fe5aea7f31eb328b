#include "quiver/c_data.h"

#include "quiver/fixed_shape_tensor.h"
#include "test_util.h"

namespace quiver {

using test::Primitive;
using test::Utf8;

namespace {

// Exports then imports `data` under `field`, as a consumer would.
ArrayDataPtr RoundTrip(const ArrayDataPtr& data, Field* field_out = nullptr) {
  ArrowSchema schema;
  ArrowArray array;
  EXPECT_TRUE(ExportField(Field{"col", data->type, true, {{"k", "v"}}}, &schema).ok());
  EXPECT_TRUE(ExportArray(data, &array).ok());
  Result<Field> field = ImportField(&schema);
  EXPECT_TRUE(field.ok()) << field.status().ToString();
  EXPECT_EQ(schema.release, nullptr);  // moved out by the import
  if (field_out) *field_out = *field;
  Result<ArrayDataPtr> imported = ImportArray(&array, field->type);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(array.release, nullptr);
  return *imported;
}

ArrayDataPtr ListOf(TypePtr type, std::vector<int32_t> offsets, ArrayDataPtr child,
                    std::vector<bool> valid = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = static_cast<int64_t>(offsets.size()) - 1;
  data->buffers = {test::Bitmap(valid), test::BufferOf(offsets)};
  data->children = {std::move(child)};
  return data;
}

}  // namespace

TEST(CData, PrimitiveRoundTripKeepsValuesNullsAndSharesMemory) {
  ArrayDataPtr a = Primitive<double>(float64(), {1.5, 2.5, 3.5}, {true, false, true});
  Field field;
  ArrayDataPtr b = RoundTrip(a, &field);
  EXPECT_EQ(field.name, "col");
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));
  EXPECT_TRUE(b->type->Equals(*float64()));
  EXPECT_EQ(b->length, 3);
  EXPECT_EQ(b->ComputeNullCount(), 1);
  EXPECT_FALSE(b->IsValid(1));
  EXPECT_EQ(b->buffers[1]->data(), a->buffers[1]->data());
}

TEST(CData, EveryTypeRoundTrips) {
  std::vector<ArrayDataPtr> arrays;
  arrays.push_back(Primitive<int8_t>(int8(), {-1, 2}));
  arrays.push_back(Primitive<uint64_t>(uint64(), {1, 1ULL << 63}));
  arrays.push_back(Primitive<uint16_t>(float16(), {0x3C00}));
  arrays.push_back(Primitive<uint8_t>(boolean(), {0b101}));
  arrays.back() = [&] {
    auto d = std::make_shared<ArrayData>(*arrays.back());
    d->length = 3;
    return d;
  }();
  arrays.push_back(Utf8({"héllo", std::nullopt, ""}));
  auto large = std::make_shared<ArrayData>();
  large->type = large_binary();
  large->length = 2;
  large->buffers = {nullptr, test::BufferOf(std::vector<int64_t>{0, 1, 3}),
                    test::BufferFrom("abc", 3)};
  arrays.push_back(large);
  auto fsb = std::make_shared<ArrayData>();
  fsb->type = *fixed_size_binary(2);
  fsb->length = 2;
  fsb->buffers = {nullptr, test::BufferFrom("abcd", 4)};
  arrays.push_back(fsb);
  arrays.push_back(ListOf(list(ListItem(int32())), {0, 2, 2, 3},
                          Primitive<int32_t>(int32(), {1, 2, 3}), {true, false, true}));
  auto st = std::make_shared<ArrayData>();
  st->type = struct_({Field{"a", int32()}, Field{"b", utf8(), false}});
  st->length = 2;
  st->buffers = {nullptr};
  st->children = {Primitive<int32_t>(int32(), {7, 8}), Utf8({"x", "y"})};
  arrays.push_back(st);
  for (const auto& a : arrays) {
    SCOPED_TRACE(a->type->ToString());
    ArrayDataPtr b = RoundTrip(a);
    EXPECT_TRUE(b->type->Equals(*a->type)) << b->type->ToString();
    EXPECT_EQ(b->length, a->length);
    EXPECT_EQ(b->ComputeNullCount(), a->ComputeNullCount());
    ASSERT_OK(Validate(*b));
  }
}

TEST(CData, SlicedArrayKeepsOffset) {
  ArrayDataPtr a = Utf8({"a", "bb", "ccc", "dddd"});
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr s, Slice(a, 1, 2));
  ArrayDataPtr b = RoundTrip(s);
  EXPECT_EQ(b->offset, 1);
  EXPECT_EQ(b->length, 2);
  ASSERT_OK(Validate(*b));
}

TEST(CData, ExtensionTypeTravelsAsMetadata) {
  ASSERT_OK_AND_ASSIGN(auto type, FixedShapeTensorType::Make(float32(), {2}, {"x"}));
  auto data = std::make_shared<ArrayData>();
  data->type = type.data_type();
  data->length = 2;
  data->buffers = {test::Bitmap({true, false})};
  data->children = {Primitive<float>(float32(), {1, 2, 3, 4})};
  ArrowSchema schema;
  ASSERT_OK(ExportType(*type.data_type(), &schema));
  EXPECT_STREQ(schema.format, "+w:2");
  ASSERT_NE(schema.metadata, nullptr);
  ASSERT_OK_AND_ASSIGN(Field exported, ImportField(&schema));
  EXPECT_EQ(exported.type->id(), TypeId::kExtension);
  KeyValueMetadata md = {{exported.type->extension_name(), exported.type->extension_metadata()}};
  EXPECT_EQ(md[0].first, "arrow.fixed_shape_tensor");
  EXPECT_EQ(md[0].second, R"({"dim_names":["x"],"shape":[2]})");
  Field field;
  ArrayDataPtr back = RoundTrip(data, &field);
  EXPECT_EQ(field.metadata, (KeyValueMetadata{{"k", "v"}}));  // extension keys lifted out
  ASSERT_OK_AND_ASSIGN(auto array, FixedShapeTensorArray::Make(back));
  EXPECT_TRUE(array.type().Equals(type));
  EXPECT_FALSE(array.IsValid(1));
}

TEST(CData, ExportedStructsReleaseTheirReferences) {
  int released = 0;
  uint8_t bytes[8] = {};
  auto data = std::make_shared<ArrayData>();
  data->type = int32();
  data->length = 2;
  data->buffers = {nullptr, Buffer::Wrap(bytes, 8, [&released] { ++released; })};
  ArrowArray array;
  ASSERT_OK(ExportArray(data, &array));
  data.reset();
  EXPECT_EQ(released, 0);  // the export holds the buffer
  array.release(&array);
  EXPECT_EQ(array.release, nullptr);
  EXPECT_EQ(released, 1);
}

TEST(CData, ImportRejectsReleasedStructs) {
  ArrowSchema schema{};
  EXPECT_ERROR(kInvalid, "ArrowSchema is already released", ImportField(&schema));
  ArrowArray array{};
  EXPECT_ERROR(kInvalid, "ArrowArray is already released", ImportArray(&array, int32()));
  ArrowArrayStream stream{};
  EXPECT_ERROR(kInvalid, "already released", ImportArrayStream(&stream));
}

namespace {
int g_foreign_releases = 0;
void CountingRelease(ArrowArray* array) {
  ++g_foreign_releases;
  array->release = nullptr;
}
}  // namespace

TEST(CData, WrongBufferCountIsRejectedAndStillReleased) {
  g_foreign_releases = 0;
  int32_t values[2] = {1, 2};
  const void* buffers[3] = {nullptr, values, values};
  ArrowArray array{};
  array.length = 2;
  array.n_buffers = 3;
  array.buffers = buffers;
  array.release = CountingRelease;
  EXPECT_ERROR(kInvalid, "ArrowArray of type int32 has 3 buffers, expected 2",
               ImportArray(&array, int32()));
  EXPECT_EQ(g_foreign_releases, 1);
  EXPECT_EQ(array.release, nullptr);
}

TEST(CData, WrongChildCountAndMissingOffsets) {
  g_foreign_releases = 0;
  const void* buffers[2] = {nullptr, nullptr};
  ArrowArray array{};
  array.length = 1;
  array.n_buffers = 2;
  array.buffers = buffers;
  array.release = CountingRelease;
  EXPECT_ERROR(kInvalid, "has 0 children, expected 1", ImportArray(&array, list(ListItem(int8()))));
  array.release = CountingRelease;
  const void* utf8_buffers[3] = {nullptr, nullptr, nullptr};
  array.n_buffers = 3;
  array.buffers = utf8_buffers;
  EXPECT_ERROR(kInvalid, "has no offsets buffer", ImportArray(&array, utf8()));
  EXPECT_EQ(g_foreign_releases, 2);
}

TEST(CData, ImportValidatesData) {
  g_foreign_releases = 0;
  int32_t offsets[3] = {0, 5, 2};
  const char* chars = "hello";
  const void* buffers[3] = {nullptr, offsets, chars};
  ArrowArray array{};
  array.length = 2;
  array.n_buffers = 3;
  array.buffers = buffers;
  array.release = CountingRelease;
  EXPECT_ERROR(kInvalid, "offset 2 (2) < offset 1 (5)", ImportArray(&array, utf8()));
  EXPECT_EQ(g_foreign_releases, 1);
}

TEST(CData, FormatErrors) {
  ArrowSchema schema;
  ASSERT_OK(ExportType(*int32(), &schema));
  auto* owned_format = schema.format;
  schema.format = "w:x";
  EXPECT_ERROR(kInvalid, "format 'w:x' has an invalid size", ImportField(&schema));
  (void)owned_format;
  ASSERT_OK(ExportType(*int32(), &schema));
  schema.format = "tiM";
  EXPECT_ERROR(kNotImplemented, "format 'tiM' is not supported", ImportField(&schema));
  ASSERT_OK(ExportType(*int32(), &schema));
  schema.format = "+l";
  EXPECT_ERROR(kInvalid, "format '+l' needs 1 children, got 0", ImportField(&schema));
}

TEST(CData, StreamRoundTrip) {
  std::vector<ArrayDataPtr> batches = {Primitive<int64_t>(int64(), {1, 2}),
                                       Primitive<int64_t>(int64(), {3})};
  ArrowArrayStream stream;
  ASSERT_OK(ExportArrayStream(MakeArrayReader(Field{"n", int64()}, batches), &stream));
  ASSERT_OK_AND_ASSIGN(auto reader, ImportArrayStream(&stream));
  EXPECT_EQ(stream.release, nullptr);
  EXPECT_EQ(reader->field().name, "n");
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr next, reader->Next());
    if (!next) break;
    rows += next->length;
  }
  EXPECT_EQ(rows, 3);
}

namespace {
class FailingReader : public ArrayReader {
 public:
  const Field& field() const override { return field_; }
  Result<ArrayDataPtr> Next() override { return Status::IOError("disk on fire"); }
  Field field_{"x", int8()};
};
}  // namespace

TEST(CData, StreamErrorsCarryTheProducerMessage) {
  ArrowArrayStream stream;
  ASSERT_OK(ExportArrayStream(std::make_shared<FailingReader>(), &stream));
  ASSERT_OK_AND_ASSIGN(auto reader, ImportArrayStream(&stream));
  EXPECT_ERROR(kIOError, "disk on fire", reader->Next());
}

}  // namespace quiver
