// DLPack export and import of tensors: every field, zero-copy round trips,
// strides, device memory and the deleter run once on every path.
#include "quiver/dlpack.h"

#include <numeric>

#include "quiver/fixed_shape_tensor.h"
#include "quiver/variable_shape_tensor.h"
#include "test_util.h"

namespace quiver {

namespace {

using namespace quiver::dlpack;

// A row-major int32 tensor of `shape` holding 0, 1, 2, ...
Tensor Iota(std::vector<int64_t> shape) { return test::IotaOf<int32_t>(int32(), std::move(shape)); }

// A hand-made producer whose deleter counts its calls.
int deleter_calls = 0;
struct HandMade {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
};

template <typename Managed>
Managed* MakeProducer(HandMade* storage) {
  auto* managed = new Managed{};
  managed->dl_tensor.data = storage->data.data();
  managed->dl_tensor.device = {kDeviceCPU, 0};
  managed->dl_tensor.ndim = 2;
  managed->dl_tensor.dtype = {kCodeFloat, 32, 1};
  managed->dl_tensor.shape = storage->shape;
  managed->dl_tensor.strides = storage->strides;
  managed->deleter = [](Managed* self) {
    ++deleter_calls;
    delete self;
  };
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    managed->version = {1, 0};
  }
  return managed;
}

}  // namespace

TEST(DLPack, ExportFillsEveryField) {
  Tensor t = Iota({2, 3});
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * out, Export(t));
  EXPECT_EQ(out->version.major, 1u);
  EXPECT_EQ(out->flags, kFlagReadOnly);
  EXPECT_EQ(out->dl_tensor.data, t.raw_data());
  EXPECT_EQ(out->dl_tensor.device.device_type, kDeviceCPU);
  EXPECT_EQ(out->dl_tensor.ndim, 2);
  EXPECT_EQ(out->dl_tensor.dtype.code, kCodeInt);
  EXPECT_EQ(out->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(out->dl_tensor.strides[0], 3);  // elements, not bytes
  EXPECT_EQ(out->dl_tensor.strides[1], 1);
  EXPECT_EQ(out->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(t.buffer().use_count(), 2);  // t and the export
  out->deleter(out);
  EXPECT_EQ(t.buffer().use_count(), 1);
}

// bfloat16 and the float8 types travel under DLPack's own codes
// (kDLBfloat 4, kDLFloat8_e4m3fn 10, kDLFloat8_e5m2 12), never as integers.
TEST(DLPack, LowPrecisionFloatsHaveTheirOwnCodes) {
  struct Case {
    TypePtr type;
    DLDataType dtype;
  };
  for (const Case& c : {Case{bfloat16(), {4, 16, 1}}, Case{float8_e4m3fn(), {10, 8, 1}},
                        Case{float8_e5m2(), {12, 8, 1}}}) {
    ASSERT_OK_AND_ASSIGN(DLDataType dtype, DataTypeOf(*c.type));
    EXPECT_EQ(dtype.code, c.dtype.code) << c.type->ToString();
    EXPECT_EQ(dtype.bits, c.dtype.bits) << c.type->ToString();
    ASSERT_OK_AND_ASSIGN(TypePtr back, ValueTypeOf(c.dtype));
    EXPECT_TRUE(back->Equals(*c.type)) << back->ToString();
  }
  EXPECT_ERROR(kTypeError, "unsupported DLPack dtype (code 4, 32 bits", ValueTypeOf({4, 32, 1}));
  EXPECT_ERROR(kTypeError, "unsupported DLPack dtype (code 10, 16 bits", ValueTypeOf({10, 16, 1}));
  EXPECT_ERROR(kTypeError, "unsupported DLPack dtype (code 8, 8 bits", ValueTypeOf({8, 8, 1}));
}

TEST(DLPack, LowPrecisionFloatRoundTripIsZeroCopy) {
  std::vector<uint16_t> bits = {0x3f80, 0xc000, 0x4049, 0x8000, 0x0001, 0x7f80};
  ASSERT_OK_AND_ASSIGN(Tensor t, Tensor::Make(bfloat16(), test::BufferOf(bits), {2, 3}));
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * managed, Export(t));
  EXPECT_EQ(managed->dl_tensor.dtype.code, kCodeBfloat);
  ASSERT_OK_AND_ASSIGN(Tensor back, Import(managed));
  EXPECT_TRUE(back.type()->Equals(*bfloat16()));
  EXPECT_EQ(back.raw_data(), t.raw_data());
  EXPECT_TRUE(back.Equals(t));
}

TEST(DLPack, RoundTripIsZeroCopy) {
  Tensor t = Iota({4, 3});
  Tensor transposed = *Tensor::Make(int32(), t.buffer(), {3, 4}, {4, 12});
  for (const Tensor& source : {t, transposed}) {
    ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * out, Export(source));
    ASSERT_OK_AND_ASSIGN(Tensor back, Import(out));
    EXPECT_EQ(back.raw_data(), source.raw_data());
    EXPECT_EQ(back.strides(), source.strides());
    EXPECT_TRUE(back.Equals(source));
    ASSERT_OK_AND_ASSIGN(DLManagedTensor * legacy, ExportLegacy(source));
    ASSERT_OK_AND_ASSIGN(Tensor legacy_back, ImportLegacy(legacy));
    EXPECT_TRUE(legacy_back.Equals(source));
  }
}

TEST(DLPack, ZeroSizeAndZeroDimensional) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 3}, std::vector<int64_t>{}}) {
    Tensor t = Iota(shape);
    ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * out, Export(t));
    ASSERT_OK_AND_ASSIGN(Tensor back, Import(out));
    EXPECT_EQ(back.shape(), shape);
    EXPECT_TRUE(back.Equals(t));
  }
}

TEST(DLPack, OddByteStridesNeedACopy) {
  BufferPtr bytes = *Buffer::Allocate(64);
  Tensor odd = *Tensor::Make(int32(), bytes, {3}, {5});
  EXPECT_ERROR(kInvalid, "not whole elements", Export(odd, CopyMode::kNever));
  bool copied = false;
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * out, Export(odd, CopyMode::kIfNeeded, &copied));
  EXPECT_TRUE(copied);
  EXPECT_EQ(out->flags, kFlagIsCopied);
  EXPECT_NE(out->dl_tensor.data, odd.raw_data());
  out->deleter(out);
}

TEST(DLPack, DeleterRunsOnceOnSuccess) {
  HandMade storage;
  deleter_calls = 0;
  {
    ASSERT_OK_AND_ASSIGN(Tensor t, Import(MakeProducer<DLManagedTensorVersioned>(&storage)));
    EXPECT_EQ(*t.Value<float>(std::vector<int64_t>{1, 2}), 6.0f);
    EXPECT_EQ(deleter_calls, 0);
  }
  EXPECT_EQ(deleter_calls, 1);
  {
    ASSERT_OK_AND_ASSIGN(Tensor t, ImportLegacy(MakeProducer<DLManagedTensor>(&storage)));
    EXPECT_EQ(t.raw_data(), reinterpret_cast<const uint8_t*>(storage.data.data()));
  }
  EXPECT_EQ(deleter_calls, 2);
}

TEST(DLPack, DeleterRunsOnceOnEveryFailure) {
  HandMade storage;
  struct Case {
    const char* fragment;
    void (*spoil)(DLManagedTensorVersioned*);
  };
  const Case cases[] = {
      {"version 2.0 is not supported",
       [](DLManagedTensorVersioned* m) {
         m->version = {2, 0};
       }},
      {"ndim -1", [](DLManagedTensorVersioned* m) { m->dl_tensor.ndim = -1; }},
      {"no shape", [](DLManagedTensorVersioned* m) { m->dl_tensor.shape = nullptr; }},
      {"before the start of memory",
       [](DLManagedTensorVersioned* m) {
         m->dl_tensor.data = reinterpret_cast<void*>(uintptr_t{16});
         m->dl_tensor.strides[1] = -1000;
       }},
      {"unsupported DLPack dtype (code 5",
       [](DLManagedTensorVersioned* m) {
         m->dl_tensor.dtype = {kCodeComplex, 64, 1};
       }},
      {"2 lanes", [](DLManagedTensorVersioned* m) { m->dl_tensor.dtype.lanes = 2; }},
      {"code 6, 1 bits",
       [](DLManagedTensorVersioned* m) {
         m->dl_tensor.dtype = {kCodeBool, 1, 1};
       }},
      {"overflows",
       [](DLManagedTensorVersioned* m) { m->dl_tensor.strides[0] = int64_t{1} << 62; }},
      {"no data", [](DLManagedTensorVersioned* m) { m->dl_tensor.data = nullptr; }},
      {"byte_offset", [](DLManagedTensorVersioned* m) { m->dl_tensor.byte_offset = ~uint64_t{0}; }},
  };
  for (const Case& c : cases) {
    storage = HandMade{};
    deleter_calls = 0;
    auto* managed = MakeProducer<DLManagedTensorVersioned>(&storage);
    c.spoil(managed);
    auto result = Import(managed);
    ASSERT_FALSE(result.ok()) << c.fragment;
    EXPECT_NE(result.status().message().find(c.fragment), std::string::npos)
        << result.status().ToString();
    EXPECT_EQ(deleter_calls, 1) << c.fragment;
  }
}

TEST(DLPack, NullStridesMeanRowMajor) {
  HandMade storage;
  auto* managed = MakeProducer<DLManagedTensor>(&storage);
  managed->dl_tensor.strides = nullptr;
  ASSERT_OK_AND_ASSIGN(Tensor t, ImportLegacy(managed));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4}));
}

TEST(DLPack, NegativeStridesAreZeroCopy) {
  HandMade storage;
  auto* managed = MakeProducer<DLManagedTensorVersioned>(&storage);
  // x[::-1, ::-1]: element [0, 0] is the last value.
  storage.strides[0] = -3;
  storage.strides[1] = -1;
  managed->dl_tensor.data = storage.data.data() + 5;
  ASSERT_OK_AND_ASSIGN(Tensor t, Import(managed));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{-12, -4}));
  EXPECT_EQ(t.raw_data(), reinterpret_cast<const uint8_t*>(storage.data.data() + 5));
  EXPECT_EQ(t.buffer()->data(), reinterpret_cast<const uint8_t*>(storage.data.data()));
  EXPECT_EQ(t.buffer()->size(), 24);
  EXPECT_EQ(*t.Value<float>(std::vector<int64_t>{0, 0}), 6.0f);
  EXPECT_EQ(*t.Value<float>(std::vector<int64_t>{1, 2}), 1.0f);
}

TEST(DLPack, DeviceMemoryIsWrappedNotRead) {
  HandMade storage;
  auto* managed = MakeProducer<DLManagedTensorVersioned>(&storage);
  managed->dl_tensor.device = {2, 1};                                    // CUDA device 1
  managed->dl_tensor.data = reinterpret_cast<void*>(uintptr_t{0x1000});  // not host memory
  ASSERT_OK_AND_ASSIGN(Tensor t, Import(managed));
  EXPECT_EQ(t.buffer()->device(), (Device{2, 1}));
  EXPECT_ERROR(kNotImplemented, "lives on CUDA (device type 2, id 1)", t.ToContiguous());
  EXPECT_ERROR(kNotImplemented, "device type 2", t.Value<float>(std::vector<int64_t>{0, 0}));
  EXPECT_ERROR(kNotImplemented, "device type 2", FixedShapeTensorArray::FromTensor(t));
  std::vector<std::optional<Tensor>> rows = {t};
  EXPECT_ERROR(
      kInvalid, "row 0: tensor data lives on CUDA (device type 2, id 1)",
      VariableShapeTensorArray::FromTensors(*VariableShapeTensorType::Make(float32(), 2), rows));
  ASSERT_OK_AND_ASSIGN(DLManagedTensorVersioned * again, Export(t));
  EXPECT_EQ(again->dl_tensor.device.device_type, 2);
  EXPECT_EQ(again->dl_tensor.device.device_id, 1);
  again->deleter(again);
}

}  // namespace quiver
