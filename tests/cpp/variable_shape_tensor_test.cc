#include "quiver/variable_shape_tensor.h"

#include <cstring>
#include <limits>
#include <numeric>

#include "variable_shape_test_util.h"

namespace quiver {

namespace {

using test::Bitmap;
using test::BufferOf;
using test::Primitive;
using test::RawStorage;
using test::ValuesOf;

// A row-major float32 tensor of `shape` holding start, start + 1, ...
Tensor Iota(std::vector<int64_t> shape, float start = 0) {
  int64_t size = 1;
  for (int64_t s : shape) size *= s;
  std::vector<float> values(size);
  std::iota(values.begin(), values.end(), start);
  return *Tensor::Make(float32(), BufferOf(values), std::move(shape));
}

VariableShapeTensorType Float32Type(int ndim, std::vector<int64_t> permutation = {},
                                    UniformShape uniform = {}) {
  return *VariableShapeTensorType::Make(float32(), ndim, {}, std::move(permutation),
                                        std::move(uniform));
}

VariableShapeTensorArray ThreeRows(std::vector<int64_t> permutation = {}) {
  std::vector<std::optional<Tensor>> rows = {Iota({2, 3}), Iota({1, 4}, 100), Iota({0, 2})};
  return *VariableShapeTensorArray::FromTensors(Float32Type(2, std::move(permutation)), rows);
}

}  // namespace

TEST(VariableShapeTensorType, SerializeFinalForm) {
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(float32(), 3, {"H", "W", "C"},
                                                                {2, 0, 1}, {std::nullopt, std::nullopt, 3}));
  EXPECT_EQ(type.Serialize(),
            R"({"dim_names":["H","W","C"],"permutation":[2,0,1],"uniform_shape":[null,null,3]})");
  EXPECT_EQ(type.logical_dim_names(), (std::vector<std::string>{"C", "H", "W"}));
  EXPECT_EQ(type.logical_uniform_shape(), (UniformShape{3, std::nullopt, std::nullopt}));
  ASSERT_OK_AND_ASSIGN(auto plain, VariableShapeTensorType::Make(int64(), 2));
  EXPECT_EQ(plain.Serialize(), "{}");
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorType::FromDataType(type.data_type()));
  EXPECT_TRUE(back.Equals(type));
}

TEST(VariableShapeTensorType, EmptyMetadataMeansNoParameters) {
  TypePtr storage = Float32Type(2).data_type()->storage_type();
  for (const char* metadata : {"", "{}"}) {
    ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Deserialize(storage, metadata));
    EXPECT_EQ(type.ndim(), 2);
    EXPECT_TRUE(type.uniform_shape().empty());
    EXPECT_TRUE(type.permutation().empty());
  }
}

TEST(VariableShapeTensorType, ReadsDraftForms) {
  TypePtr storage = Float32Type(3).data_type()->storage_type();
  auto read = [&](const char* metadata) { return VariableShapeTensorType::Deserialize(storage, metadata); };
  UniformShape expected = {400, std::nullopt, 3};
  ASSERT_OK_AND_ASSIGN(auto uniform_dims, read(R"({"uniform_dimensions":[0,2],"uniform_shape":[400,0,3]})"));
  EXPECT_EQ(uniform_dims.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto compact, read(R"({"uniform_dimensions":[0,2],"uniform_shape":[400,3]})"));
  EXPECT_EQ(compact.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto ragged, read(R"({"ragged_dimensions":[1],"uniform_shape":[400,0,3],"ndim":3})"));
  EXPECT_EQ(ragged.uniform_shape(), expected);
  ASSERT_OK_AND_ASSIGN(auto ragged_only, read(R"({"ragged_dimensions":[1]})"));
  EXPECT_TRUE(ragged_only.uniform_shape().empty());
  // Written back in the final form only.
  EXPECT_EQ(uniform_dims.Serialize(), R"({"uniform_shape":[400,null,3]})");

  TypePtr draft_storage = struct_({Field{"data", list(ListItem(float32()))},
                                   Field{"shape", *fixed_size_list(ListItem(uint32()), 3)}});
  ASSERT_OK_AND_ASSIGN(TypePtr draft, extension(VariableShapeTensorType::kExtensionName, "", draft_storage));
  ASSERT_OK_AND_ASSIGN(auto from_draft, VariableShapeTensorType::FromDataType(draft));
  EXPECT_EQ(from_draft.data_type()->storage_type()->children()[1].type->children()[0].type->id(),
            TypeId::kInt32);
}

TEST(VariableShapeTensorType, RejectsBadMetadata) {
  TypePtr storage = Float32Type(2).data_type()->storage_type();
  auto read = [&](const char* metadata) { return VariableShapeTensorType::Deserialize(storage, metadata); };
  EXPECT_ERROR(kInvalid, "not valid JSON", read("{"));
  EXPECT_ERROR(kInvalid, "must be a JSON object", read("[]"));
  EXPECT_ERROR(kInvalid, "uniform_shape has 3 entries for 2", read(R"({"uniform_shape":[1,2,3]})"));
  EXPECT_ERROR(kInvalid, "uniform_shape[0] (-1)", read(R"({"uniform_shape":[-1,null]})"));
  EXPECT_ERROR(kInvalid, "'uniform_shape'[1] must be an int64 integer or null", read(R"({"uniform_shape":[1,"x"]})"));
  EXPECT_ERROR(kInvalid, "permutation [0, 0] is not a permutation of 0..1: entry 1 repeats 0", read(R"({"permutation":[0,0]})"));
  EXPECT_ERROR(kInvalid, "3 dim_names for 2", read(R"({"dim_names":["a","b","c"]})"));
  EXPECT_ERROR(kInvalid, "'ndim' is 3", read(R"({"ndim":3})"));
  EXPECT_ERROR(kInvalid, "'ragged_dimensions' entry 2", read(R"({"ragged_dimensions":[2]})"));
  EXPECT_ERROR(kTypeError, "field 0 is not a list",
               VariableShapeTensorType::Deserialize(struct_({Field{"a", int32()}, Field{"b", int32()}}), ""));
  EXPECT_ERROR(kTypeError, "not a struct", VariableShapeTensorType::Deserialize(int32(), ""));
  EXPECT_ERROR(kTypeError, "numeric, bool or bool8", VariableShapeTensorType::Make(utf8(), 2));
  EXPECT_ERROR(kInvalid, "ndim must be >= 0", VariableShapeTensorType::Make(int8(), -1));
}

TEST(VariableShapeTensorArray, RowViewsAreZeroCopy) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(Tensor row1, array.RowTensor(1));
  EXPECT_EQ(row1.shape(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(row1.buffer(), ValuesOf(array).buffers[1]);
  EXPECT_TRUE(row1.Equals(Iota({1, 4}, 100)));
  ASSERT_OK_AND_ASSIGN(Tensor empty, array.RowTensor(2));
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{0, 2}));
  EXPECT_ERROR(kIndexError, "row 3 is out of range for 3 rows", array.RowTensor(3));
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.Shapes());
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{1, 1}), 4);
}

TEST(VariableShapeTensorArray, PermutationFollowsTheSpec) {
  // Logical rows go in; storage holds them physically, views give them back.
  VariableShapeTensorArray array = ThreeRows({1, 0});
  EXPECT_EQ(internal::VariableShapeStorage(array).PhysicalShape(0)[0], 3);  // logical [2, 3] is physical [3, 2]
  ASSERT_OK_AND_ASSIGN(Tensor row0, array.RowTensor(0));
  EXPECT_EQ(row0.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(row0.strides(), (std::vector<int64_t>{4, 8}));
  EXPECT_TRUE(row0.Equals(Iota({2, 3})));
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.Shapes());
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{0, 0}), 2);
  EXPECT_EQ(*shapes.Value<int32_t>(std::vector<int64_t>{0, 1}), 3);
}

TEST(VariableShapeTensorArray, ValidationNamesTheRow) {
  // Row 1 claims [2, 2] but holds 3 elements.
  EXPECT_ERROR(kInvalid, "row 1: data length 3 != product of shape [2, 2] (4)",
               VariableShapeTensorArray::Make(RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2)));
  EXPECT_ERROR(kInvalid, "row 0: shape [-1, 2] has a negative size",
               VariableShapeTensorArray::Make(RawStorage({0, 0}, {}, {-1, 2}, 2)));
  EXPECT_ERROR(kInvalid, "row 1: shape [2, 1] has size 2 on axis 0 but uniform_shape says 1",
               VariableShapeTensorArray::Make(RawStorage({0, 2, 4}, {0, 1, 2, 3}, {1, 2, 2, 1}, 2, {},
                                                         R"({"uniform_shape":[1,null]})")));
  // A null row is not checked against its shape.
  ASSERT_OK(VariableShapeTensorArray::Make(RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2,
                                                      {true, false}))
                .status());
  // Lower levels skip the row checks, but views still refuse a bad row.
  ASSERT_OK_AND_ASSIGN(auto trusted, VariableShapeTensorArray::Make(
                                         RawStorage({0, 2, 5}, {0, 1, 2, 3, 4}, {1, 2, 2, 2}, 2),
                                         ValidationLevel::kDefault));
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.RowTensor(1));
  EXPECT_ERROR(kInvalid, "row 1: data length 3", trusted.ToPadded());
}

TEST(VariableShapeTensorArray, DraftUint32ShapesBecomeInt32) {
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::Make(RawStorage(
                                       {0, 6}, {0, 1, 2, 3, 4, 5}, {2, 3}, 2, {},
                                       R"({"ragged_dimensions":[0]})", uint32())));
  EXPECT_EQ(array.data()->children[1]->children[0]->type->id(), TypeId::kInt32);
  EXPECT_EQ(array.type().data_type()->extension_metadata(), "{}");
  ASSERT_OK_AND_ASSIGN(Tensor row, array.RowTensor(0));
  EXPECT_TRUE(row.Equals(Iota({2, 3})));
}

TEST(VariableShapeTensorArray, NullRows) {
  std::vector<std::optional<Tensor>> rows = {Iota({2}), std::nullopt, Iota({3}, 5)};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(1), rows));
  EXPECT_EQ(array.null_count(), 1);
  EXPECT_ERROR(kInvalid, "row 1 is null", array.RowTensor(1));
  ASSERT_OK_AND_ASSIGN(auto views, array.RowTensors());
  EXPECT_FALSE(views[1].has_value());
  EXPECT_TRUE(views[2]->Equals(Iota({3}, 5)));
  EXPECT_ERROR(kInvalid, "row 1 is null", array.ToPadded());
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-1, NullPolicy::kAllow));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 0}), -1.0f);
  EXPECT_EQ(*padded.shapes.Value<int32_t>(std::vector<int64_t>{1, 0}), 0);
  // Null rows survive take and concat.
  ASSERT_OK_AND_ASSIGN(auto taken, array.Take(std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(taken.IsValid(0));
  EXPECT_TRUE(taken.RowTensor(1)->Equals(Iota({3}, 5)));
}

TEST(VariableShapeTensorArray, PaddedRoundTrip) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(7));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 2}), 5.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 3}), 7.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 1, 0}), 7.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{2, 0, 0}), 7.0f);
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorArray::FromPadded(array.type(), padded.values, padded.shapes));
  for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(back.RowTensor(i)->Equals(*array.RowTensor(i)));
  EXPECT_ERROR(kInvalid, "not exactly representable as int8",
               (*VariableShapeTensorArray::FromTensors(
                    *VariableShapeTensorType::Make(int8(), 0), std::vector<std::optional<Tensor>>{}))
                   .ToPadded(0.5));
}

TEST(VariableShapeTensorArray, IntegerPadValuesAreExact) {
  std::vector<int64_t> values = {1, 2, 3};
  auto row = *Tensor::Make(int64(), BufferOf(values), {3});
  auto short_row = *Tensor::Make(int64(), BufferOf(values), {1});
  std::vector<std::optional<Tensor>> rows = {row, short_row};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(
                                       *VariableShapeTensorType::Make(int64(), 1), rows));
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(big));
  EXPECT_EQ(*padded.values.Value<int64_t>(std::vector<int64_t>{1, 2}), big);
  ASSERT_OK_AND_ASSIGN(padded, array.ToPadded(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(*padded.values.Value<int64_t>(std::vector<int64_t>{1, 1}), std::numeric_limits<int64_t>::max());
  EXPECT_ERROR(kInvalid, "pad value 9223372036854775808 is not exactly representable as int64",
               array.ToPadded(uint64_t{1} << 63));
  auto floats = ThreeRows();
  EXPECT_ERROR(kInvalid, "pad value 16777217 is not exactly representable as float",
               floats.ToPadded(int64_t{16777217}));
  ASSERT_OK(floats.ToPadded(int64_t{16777216}).status());
}

TEST(VariableShapeTensorArray, PaddedIntoCallerMemory) {
  VariableShapeTensorArray array = ThreeRows();
  std::vector<float> out(3 * 2 * 4, -5.0f);
  const int64_t wrong[3] = {3, 2, 5};
  EXPECT_ERROR(kInvalid, "out has shape [3, 2, 5] but the padded batch has shape [3, 2, 4]",
               array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()), wrong));
  const int64_t shape[3] = {3, 2, 4};
  ASSERT_OK_AND_ASSIGN(Tensor shapes, array.ToPaddedInto(reinterpret_cast<uint8_t*>(out.data()), shape));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(std::memcmp(out.data(), padded.values.raw_data(), out.size() * 4), 0);  // padding written
  EXPECT_TRUE(shapes.Equals(padded.shapes));
}

TEST(VariableShapeTensorArray, PaddedRoundTripWithZeroSizeAxes) {
  std::vector<std::optional<Tensor>> rows = {Iota({0, 2}), Iota({0, 3})};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2, 0, 3}));
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorArray::FromPadded(array.type(), padded.values, padded.shapes));
  EXPECT_TRUE(back.RowTensor(1)->Equals(*array.RowTensor(1)));
}

TEST(VariableShapeTensorArray, LargeBatchesPadOnTwoThreadsWithTheSameResult) {
  // 64 x 7 x 5063 float32 = 9 MiB of output: the rows are split over two threads.
  std::vector<std::optional<Tensor>> rows;
  for (int i = 0; i < 64; ++i) rows.push_back(Iota({1 + i % 7, 5000 + i}, static_cast<float>(i)));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(-1));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{64, 7, 5063}));
  for (int64_t i = 0; i < 64; ++i) {
    std::vector<int64_t> last = {i, i % 7, 4999 + i}, pad = {i, 6, 5062};
    EXPECT_EQ(*padded.values.Value<float>(last), static_cast<float>(i + (i % 7 + 1) * (5000 + i) - 1)) << i;
    EXPECT_EQ(*padded.values.Value<float>(pad), -1.0f) << i;
  }
}

TEST(VariableShapeTensorArray, RowViewsPastTheStreamingSizeCopyExactly) {
  // 70 MiB of uint8 rows at every byte offset, with gaps between them in
  // the source: the copy streams past the caches (StreamCopy) on two
  // threads, and every byte lands in order.
  const int64_t total = int64_t{70} << 20;
  std::vector<uint8_t> source(total + total / 64);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 131 + (i >> 12));
  std::vector<int64_t> dims;  // sizes, then strides (1 byte), per row
  std::vector<VariableShapeTensorArray::RowView> rows;
  std::vector<uint8_t> expected;
  expected.reserve(total);
  size_t at = 0;
  for (int64_t i = 0; static_cast<int64_t>(expected.size()) < total; ++i) {
    const int64_t size = std::min<int64_t>(1 + (i * 977) % 9000, total - expected.size());
    rows.push_back({false, source.data() + at, {}, {}});
    dims.push_back(size);
    expected.insert(expected.end(), source.begin() + at, source.begin() + at + size);
    at += size + static_cast<size_t>(i % 61);
  }
  const int64_t one = 1;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].shape = {&dims[i], 1};
    rows[i].strides = {&one, 1};
  }
  ASSERT_OK_AND_ASSIGN(auto type, VariableShapeTensorType::Make(uint8(), 1));
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromRowViews(type, rows));
  const BufferPtr& values = array.data()->children[0]->children[0]->buffers[1];
  ASSERT_EQ(values->size(), total);
  EXPECT_EQ(std::memcmp(values->data(), expected.data(), expected.size()), 0);
}

TEST(VariableShapeTensorArray, IdentityPermutationEqualsNone) {
  EXPECT_TRUE(Float32Type(2, {0, 1}).Equals(Float32Type(2)));
  EXPECT_FALSE(Float32Type(2, {1, 0}).Equals(Float32Type(2)));
  EXPECT_NE(Float32Type(2, {0, 1}).Serialize().find("permutation"), std::string::npos);  // kept as read
  ASSERT_OK_AND_ASSIGN(auto explicit_identity, ThreeRows({0, 1}).Slice(0, 2));
  std::vector<VariableShapeTensorArray> parts = {ThreeRows(), explicit_identity};
  ASSERT_OK_AND_ASSIGN(auto joined, VariableShapeTensorArray::Concat(parts));
  EXPECT_EQ(joined.length(), 5);
}

TEST(VariableShapeTensorArray, PaddedWithPermutation) {
  VariableShapeTensorArray array = ThreeRows({1, 0});
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(0));
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{0, 1, 2}), 5.0f);
  EXPECT_EQ(*padded.values.Value<float>(std::vector<int64_t>{1, 0, 3}), 103.0f);
}

TEST(VariableShapeTensorArray, JaggedRoundTrip) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto sliced, array.Slice(1, 2));
  ASSERT_OK_AND_ASSIGN(auto jagged, sliced.ToJagged());
  EXPECT_EQ(jagged.values.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(jagged.values.buffer(), ValuesOf(array).buffers[1]);
  EXPECT_EQ(*jagged.offsets.Value<int64_t>(std::vector<int64_t>{2}), 4);
  ASSERT_OK_AND_ASSIGN(auto back, VariableShapeTensorArray::FromJagged(sliced.type(), jagged.values,
                                                                       jagged.shapes, jagged.offsets));
  EXPECT_TRUE(back.RowTensor(0)->Equals(Iota({1, 4}, 100)));
  EXPECT_EQ(ValuesOf(back).buffers[1]->data(), jagged.values.raw_data());  // values zero-copy
  ASSERT_OK_AND_ASSIGN(auto derived, VariableShapeTensorArray::FromJagged(sliced.type(), jagged.values,
                                                                          jagged.shapes));
  EXPECT_EQ(derived.length(), 2);
}

TEST(VariableShapeTensorArray, JaggedErrors) {
  auto type = Float32Type(1);
  Tensor values = Iota({5});
  std::vector<int32_t> shapes = {2, 2};
  Tensor shape_tensor = *Tensor::Make(int32(), BufferOf(shapes), {2, 1});
  EXPECT_ERROR(kInvalid, "values has 5 elements but the shapes account for 4",
               VariableShapeTensorArray::FromJagged(type, values, shape_tensor));
  std::vector<int64_t> offsets = {0, 3, 5};
  Tensor offset_tensor = *Tensor::Make(int64(), BufferOf(offsets), {3});
  EXPECT_ERROR(kInvalid, "row 0: data length 3 != product of shape [2] (2)",
               VariableShapeTensorArray::FromJagged(type, values, shape_tensor, offset_tensor));
  EXPECT_ERROR(kInvalid, "shapes must have shape (N, 1)",
               VariableShapeTensorArray::FromJagged(type, values, values));
  EXPECT_ERROR(kTypeError, "values hold int32",
               VariableShapeTensorArray::FromJagged(type, shape_tensor, shape_tensor));
}

TEST(VariableShapeTensorArray, FromTensorsErrors) {
  auto type = Float32Type(2, {}, {2, std::nullopt});
  std::vector<std::optional<Tensor>> wrong_ndim = {Iota({2, 3}), Iota({4})};
  EXPECT_ERROR(kInvalid, "row 1: tensor has 1 dimensions, the array has 2",
               VariableShapeTensorArray::FromTensors(type, wrong_ndim));
  std::vector<std::optional<Tensor>> not_uniform = {Iota({2, 3}), Iota({3, 3})};
  EXPECT_ERROR(kInvalid, "row 1: shape [3, 3] has size 3 on axis 0 but uniform_shape says 2",
               VariableShapeTensorArray::FromTensors(type, not_uniform));
  std::vector<std::optional<Tensor>> wrong_type = {*Tensor::Make(int32(), BufferOf(std::vector<int32_t>{1, 2}), {1, 2})};
  EXPECT_ERROR(kTypeError, "row 0: tensor holds int32", VariableShapeTensorArray::FromTensors(type, wrong_type));
}

TEST(VariableShapeTensorArray, StridedInputsAreCopiedInOrder) {
  // A transposed view as input: the copy follows logical order.
  Tensor base = Iota({3, 2});
  Tensor transposed = *Tensor::Make(float32(), base.buffer(), {2, 3}, {4, 8});
  std::vector<std::optional<Tensor>> rows = {transposed};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  EXPECT_TRUE(array.RowTensor(0)->Equals(transposed));
  EXPECT_TRUE(array.RowTensor(0)->IsContiguous());
}

TEST(VariableShapeTensorArray, InferAndCheckUniformShape) {
  std::vector<std::optional<Tensor>> rows = {Iota({2, 3}), Iota({4, 3}), std::nullopt};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(2), rows));
  EXPECT_EQ(array.InferUniformShape(), (UniformShape{std::nullopt, 3}));
  ASSERT_OK_AND_ASSIGN(auto recorded, array.WithUniformShape(array.InferUniformShape()));
  EXPECT_EQ(recorded.type().Serialize(), R"({"uniform_shape":[null,3]})");
  EXPECT_ERROR(kInvalid, "row 1: shape [4, 3] has size 4 on axis 0 but uniform_shape says 2",
               array.WithUniformShape({2, 3}));
}

TEST(VariableShapeTensorArray, TakeFilterSlice) {
  VariableShapeTensorArray array = ThreeRows();
  ASSERT_OK_AND_ASSIGN(auto taken, array.Take(std::vector<int64_t>{2, 0, 0, 1}));
  EXPECT_EQ(taken.length(), 4);
  EXPECT_TRUE(taken.RowTensor(1)->Equals(Iota({2, 3})));
  EXPECT_TRUE(taken.RowTensor(2)->Equals(Iota({2, 3})));
  EXPECT_TRUE(taken.RowTensor(3)->Equals(Iota({1, 4}, 100)));
  ASSERT_OK(Validate(*taken.data()));
  EXPECT_ERROR(kIndexError, "index 3 at position 0", array.Take(std::vector<int64_t>{3}));
  EXPECT_ERROR(kIndexError, "index -1", array.Take(std::vector<int64_t>{-1}));

  ASSERT_OK_AND_ASSIGN(auto filtered, array.Filter(std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(filtered.length(), 2);
  EXPECT_TRUE(filtered.RowTensor(0)->Equals(Iota({1, 4}, 100)));
  EXPECT_ERROR(kInvalid, "mask has 2 entries for 3 rows", array.Filter(std::vector<uint8_t>{1, 1}));

  ASSERT_OK_AND_ASSIGN(auto sliced, array.Slice(1, 1));
  ASSERT_OK_AND_ASSIGN(auto from_slice, sliced.Take(std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(from_slice.RowTensor(1)->Equals(Iota({1, 4}, 100)));
}

TEST(VariableShapeTensorArray, ConcatMergesUniformShape) {
  std::vector<std::optional<Tensor>> a_rows = {Iota({2, 3}), Iota({4, 3})};
  std::vector<std::optional<Tensor>> b_rows = {Iota({1, 5})};
  ASSERT_OK_AND_ASSIGN(auto a, VariableShapeTensorArray::FromTensors(Float32Type(2, {}, {std::nullopt, 3}), a_rows));
  ASSERT_OK_AND_ASSIGN(auto b, VariableShapeTensorArray::FromTensors(Float32Type(2, {}, {1, 5}), b_rows));
  std::vector<VariableShapeTensorArray> parts = {a, b};
  ASSERT_OK_AND_ASSIGN(auto joined, VariableShapeTensorArray::Concat(parts));
  EXPECT_EQ(joined.length(), 3);
  EXPECT_EQ(joined.type().uniform_shape(), (UniformShape{std::nullopt, std::nullopt}));
  EXPECT_TRUE(joined.RowTensor(2)->Equals(Iota({1, 5})));
  std::vector<VariableShapeTensorArray> same = {a, a};
  EXPECT_EQ((*VariableShapeTensorArray::Concat(same)).type().uniform_shape(), (UniformShape{std::nullopt, 3}));
  std::vector<VariableShapeTensorArray> mismatched = {a, ThreeRows({1, 0})};
  EXPECT_ERROR(kTypeError, "cannot concat array 1", VariableShapeTensorArray::Concat(mismatched));
  EXPECT_ERROR(kInvalid, "at least one", VariableShapeTensorArray::Concat({}));
}

TEST(VariableShapeTensorArray, FixedConversions) {
  FixedShapeTensorType fixed_type = *FixedShapeTensorType::Make(float32(), {2, 3}, {"H", "W"}, {1, 0});
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  auto data = std::make_shared<ArrayData>();
  data->type = fixed_type.data_type();
  data->length = 2;
  data->buffers = {nullptr};
  data->children = {Primitive<float>(float32(), values)};
  ASSERT_OK_AND_ASSIGN(auto fixed, FixedShapeTensorArray::Make(data));
  ASSERT_OK_AND_ASSIGN(auto variable, VariableShapeTensorArray::FromFixed(fixed));
  EXPECT_EQ(variable.type().uniform_shape(), (UniformShape{2, 3}));
  EXPECT_EQ(variable.type().permutation(), (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(variable.RowTensor(1)->Equals(*fixed.RowTensor(1)));
  EXPECT_EQ(ValuesOf(variable).buffers[1], fixed.data()->children[0]->buffers[1]);

  bool copied = true;
  ASSERT_OK_AND_ASSIGN(auto back, variable.ToFixed(CopyMode::kNever, &copied));
  EXPECT_FALSE(copied);
  EXPECT_TRUE(back.type().Equals(fixed_type));
  EXPECT_TRUE(back.ToTensor()->Equals(*fixed.ToTensor()));

  EXPECT_ERROR(kInvalid, "row 1 has shape [1, 4] but row 0 has [2, 3]", ThreeRows().ToFixed());
  // A null row without data breaks even spacing: copy or refuse.
  std::vector<std::optional<Tensor>> rows = {Iota({2}), std::nullopt, Iota({2}, 2)};
  ASSERT_OK_AND_ASSIGN(auto with_null, VariableShapeTensorArray::FromTensors(Float32Type(1), rows));
  EXPECT_ERROR(kInvalid, "needs a copy", with_null.ToFixed(CopyMode::kNever));
  ASSERT_OK_AND_ASSIGN(auto copied_fixed, with_null.ToFixed(CopyMode::kIfNeeded, &copied));
  EXPECT_TRUE(copied);
  EXPECT_FALSE(copied_fixed.IsValid(1));
  EXPECT_TRUE(copied_fixed.RowTensor(2)->Equals(Iota({2}, 2)));
  ASSERT_OK_AND_ASSIGN(auto none, VariableShapeTensorArray::FromTensors(Float32Type(1), std::vector<std::optional<Tensor>>{}));
  EXPECT_ERROR(kInvalid, "complete uniform_shape", none.ToFixed());
}

TEST(VariableShapeTensorArray, EveryNumericValueType) {
  for (TypePtr type : {int8(), int16(), int32(), int64(), uint8(), uint16(), uint32(), uint64(),
                       float16(), float32(), float64()}) {
    const int64_t width = type->byte_width();
    std::vector<uint8_t> bytes(6 * width);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b % 60);
    Tensor tensor = *Tensor::Make(type, test::BufferFrom(bytes.data(), bytes.size()), {2, 3});
    std::vector<std::optional<Tensor>> rows = {tensor, std::nullopt};
    ASSERT_OK_AND_ASSIGN(auto vtype, VariableShapeTensorType::Make(type, 2));
    ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(vtype, rows));
    EXPECT_TRUE(array.RowTensor(0)->Equals(tensor)) << type->ToString();
    ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded(1, NullPolicy::kAllow));
    EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2, 2, 3}));
  }
}

TEST(VariableShapeTensorArray, ZeroDimensionalRows) {
  std::vector<std::optional<Tensor>> rows = {Iota({}, 4), Iota({}, 5)};
  ASSERT_OK_AND_ASSIGN(auto array, VariableShapeTensorArray::FromTensors(Float32Type(0), rows));
  EXPECT_EQ(*array.RowTensor(1)->Value<float>(std::vector<int64_t>{}), 5.0f);
  ASSERT_OK_AND_ASSIGN(auto padded, array.ToPadded());
  EXPECT_EQ(padded.values.shape(), (std::vector<int64_t>{2}));
  ASSERT_OK_AND_ASSIGN(auto fixed, array.ToFixed());
  EXPECT_EQ(fixed.length(), 2);
}

}  // namespace quiver
