// ArrowDeviceArray export and import: CPU round trips, release callbacks
// run once, arrays on other devices refused without a read of their
// buffers (the pointers here are bogus: ASan would catch a read), and
// device tensors exported as fixed_shape_tensor arrays on their device.
#include "quiver/c_device.h"

#include <cstdint>
#include <string>
#include <vector>

#include "c_data_test_util.h"
#include "fixed_shape_test_util.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver {

using test::CountArrayRelease;
using test::g_releases;
using test::Primitive;

namespace {

// Addresses no test may dereference.
const void* const kBogus1 = reinterpret_cast<const void*>(uintptr_t{0x1000});
const void* const kBogus2 = reinterpret_cast<const void*>(uintptr_t{0x2000});

// A foreign ArrowDeviceArray over `buffers` on `device_type`, counting its
// releases in g_releases.
ArrowDeviceArray ForeignDevice(int64_t length, std::vector<const void*>& buffers,
                               int32_t device_type, int64_t device_id = 0) {
  ArrowDeviceArray out{};
  out.array = test::Foreign(length, buffers);
  out.device_type = device_type;
  out.device_id = device_id;
  return out;
}

}  // namespace

TEST(CDevice, CpuArrayRoundTrip) {
  ArrayDataPtr data = Primitive<int32_t>(int32(), {1, 2, 3}, {true, false, true});
  ArrowDeviceArray exported;
  ASSERT_OK(ExportDeviceArray(data, &exported));
  EXPECT_EQ(exported.device_type, ARROW_DEVICE_CPU);
  EXPECT_EQ(exported.device_id, -1);
  EXPECT_EQ(exported.sync_event, nullptr);
  EXPECT_EQ(exported.reserved[0] | exported.reserved[1] | exported.reserved[2], 0);
  EXPECT_EQ(exported.array.length, 3);
  EXPECT_EQ(exported.array.buffers[1], data->buffers[1]->data());  // zero-copy
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr back, ImportDeviceArray(&exported, int32()));
  EXPECT_EQ(exported.array.release, nullptr);  // moved out
  EXPECT_EQ(back->buffers[1]->data(), data->buffers[1]->data());
  EXPECT_EQ(back->ComputeNullCount(), 1);
  EXPECT_FALSE(back->IsValid(1));
}

TEST(CDevice, TensorColumnKeepsItsExtensionTypeAndNulls) {
  FixedShapeTensorArray column = test::FixedShapeRows(3, {2, 2}, {1, 0}, {true, false, true});
  ArrowSchema schema;
  ArrowDeviceArray exported;
  ASSERT_OK(ExportField(Field{"x", column.data()->type, true, {}}, &schema));
  ASSERT_OK(ExportDeviceArray(column.data(), &exported));
  ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr back, ImportDeviceArray(&exported, field.type));
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorArray again, FixedShapeTensorArray::Make(back));
  EXPECT_TRUE(again.type().Equals(column.type()));
  EXPECT_EQ(again.null_count(), 1);
  ASSERT_OK_AND_ASSIGN(Tensor row, again.RowTensor(2));
  EXPECT_EQ(*row.Value<float>(std::vector<int64_t>{1, 0}), 9.0f);  // permuted [1, 0]
}

TEST(CDevice, ForeignCpuArrayIsReleasedOnceWhenItsDataDies) {
  std::vector<int64_t> values = {7, 8};
  std::vector<const void*> buffers = {nullptr, values.data()};
  ArrowDeviceArray foreign = ForeignDevice(2, buffers, ARROW_DEVICE_CPU, -1);
  g_releases = 0;
  {
    ASSERT_OK_AND_ASSIGN(ArrayDataPtr data, ImportDeviceArray(&foreign, int64()));
    EXPECT_EQ(g_releases, 0);
    EXPECT_EQ(foreign.array.release, nullptr);
    EXPECT_EQ(data->buffers[1]->data(), reinterpret_cast<const uint8_t*>(values.data()));
  }
  EXPECT_EQ(g_releases, 1);
}

TEST(CDevice, PinnedHostMemoryWithoutAnEventIsRead) {
  std::vector<int16_t> values = {5};
  std::vector<const void*> buffers = {nullptr, values.data()};
  ArrowDeviceArray foreign = ForeignDevice(1, buffers, ARROW_DEVICE_CUDA_HOST);
  g_releases = 0;
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr data, ImportDeviceArray(&foreign, int16()));
  EXPECT_EQ(data->length, 1);
  data.reset();
  EXPECT_EQ(g_releases, 1);
}

TEST(CDeviceHostile, DeviceArrayIsRefusedUnreadAndReleasedOnce) {
  // utf8 would have its last offset read (buffer 1) were it imported.
  std::vector<const void*> buffers = {nullptr, kBogus1, kBogus2};
  for (int32_t device : {ARROW_DEVICE_CUDA, ARROW_DEVICE_ROCM, ARROW_DEVICE_METAL,
                         ARROW_DEVICE_CUDA_MANAGED, 0, 99}) {
    ArrowDeviceArray foreign = ForeignDevice(3, buffers, device, 1);
    g_releases = 0;
    auto imported = ImportDeviceArray(&foreign, utf8());
    EXPECT_ERROR(kNotImplemented, "quiver reads Arrow arrays in host memory only", imported);
    EXPECT_ERROR(
        kNotImplemented,
        DeviceTypeName(device) + " (device_type " + std::to_string(device) + ", device_id 1)",
        imported);
    EXPECT_EQ(g_releases, 1);
    EXPECT_EQ(foreign.array.release, nullptr);
  }
  EXPECT_EQ(DeviceTypeName(2), "CUDA");
  EXPECT_EQ(DeviceTypeName(99), "device type 99");
}

TEST(CDeviceHostile, PinnedMemoryWithAnEventIsRefused) {
  std::vector<const void*> buffers = {nullptr, kBogus1};
  int event = 0;
  ArrowDeviceArray foreign = ForeignDevice(4, buffers, ARROW_DEVICE_CUDA_HOST);
  foreign.sync_event = &event;
  g_releases = 0;
  EXPECT_ERROR(kNotImplemented, "carries a sync_event", ImportDeviceArray(&foreign, int32()));
  EXPECT_EQ(g_releases, 1);
}

TEST(CDeviceHostile, NullAndReleasedStructsAreRefused) {
  EXPECT_ERROR(kInvalid, "pointer is NULL", ImportDeviceArray(nullptr, int8()));
  ArrowDeviceArray released{};
  EXPECT_ERROR(kInvalid, "already released", ImportDeviceArray(&released, int8()));
  EXPECT_ERROR(kInvalid, "pointer is NULL",
               ExportDeviceArray(Primitive<int8_t>(int8(), {1}), nullptr));
}

TEST(CDeviceHostile, ImportFailuresAfterTheDeviceCheckStillReleaseOnce) {
  std::vector<const void*> buffers = {nullptr};  // int32 needs two buffers
  ArrowDeviceArray foreign = ForeignDevice(1, buffers, ARROW_DEVICE_CPU, -1);
  g_releases = 0;
  EXPECT_ERROR(kInvalid, "has 1 buffers, expected 2", ImportDeviceArray(&foreign, int32()));
  EXPECT_EQ(g_releases, 1);
}

TEST(CDeviceHostile, BuffersOnTwoDevicesAreNotExported) {
  auto data = std::make_shared<ArrayData>();
  data->type = int32();
  data->length = 1;
  data->buffers = {test::Bitmap({false, true}),
                   Buffer::Wrap(
                       kBogus1, 4, [] {}, Device{ARROW_DEVICE_CUDA, 0})};
  ArrowDeviceArray out;
  EXPECT_ERROR(kInvalid, "two devices (CPU 0 and CUDA 0)", ExportDeviceArray(data, &out));
}

// --- tensors ------------------------------------------------------------------

TEST(CDevice, CpuTensorExportsAsAFixedShapeTensorColumn) {
  Tensor tensor = *Tensor::Make(float32(), test::IotaOf<float>(float32(), {2, 3, 4}).buffer(),
                                {2, 3, 4}, {}, {"N", "H", "W"});
  ArrowSchema schema;
  ArrowDeviceArray out;
  ASSERT_OK(ExportDeviceTensor(tensor, &schema, &out));
  EXPECT_EQ(out.device_type, ARROW_DEVICE_CPU);
  EXPECT_EQ(out.device_id, -1);
  ASSERT_OK_AND_ASSIGN(TypePtr type, ImportType(&schema));
  ASSERT_OK_AND_ASSIGN(ArrayDataPtr data, ImportDeviceArray(&out, type));
  ASSERT_OK_AND_ASSIGN(FixedShapeTensorArray column, FixedShapeTensorArray::Make(data));
  EXPECT_EQ(column.type().shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(column.type().dim_names(), (std::vector<std::string>{"H", "W"}));
  ASSERT_OK_AND_ASSIGN(Tensor back, column.ToTensor());
  EXPECT_TRUE(back.Equals(tensor));
  EXPECT_EQ(back.raw_data(), tensor.raw_data());  // zero-copy
}

TEST(CDevice, DeviceTensorExportsOnItsDeviceUnread) {
  int releases = 0;
  {
    ASSERT_OK_AND_ASSIGN(
        Tensor tensor,
        Tensor::Wrap(float32(), 0x10000, Dims{2, 3, 4}, Dims{48, 16, 4},
                     [&releases] { ++releases; }, Device{ARROW_DEVICE_CUDA, 1}, {"N", "H", "W"}));
    ArrowSchema schema;
    ArrowDeviceArray out;
    ASSERT_OK(ExportDeviceTensor(tensor, &schema, &out));
    EXPECT_EQ(out.device_type, ARROW_DEVICE_CUDA);
    EXPECT_EQ(out.device_id, 1);
    EXPECT_EQ(out.sync_event, nullptr);
    EXPECT_EQ(out.array.length, 2);
    ASSERT_EQ(out.array.n_children, 1);
    EXPECT_EQ(out.array.children[0]->length, 24);
    EXPECT_EQ(out.array.children[0]->buffers[1], reinterpret_cast<const void*>(uintptr_t{0x10000}));
    ASSERT_OK_AND_ASSIGN(Field field, ImportField(&schema));
    ASSERT_OK_AND_ASSIGN(FixedShapeTensorType type, FixedShapeTensorType::FromDataType(field.type));
    EXPECT_EQ(type.shape(), (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(type.dim_names(), (std::vector<std::string>{"H", "W"}));
    // Coming back, it is refused: quiver does not hold Arrow arrays on CUDA.
    EXPECT_ERROR(kNotImplemented, "CUDA (device_type 2, device_id 1)",
                 ImportDeviceArray(&out, field.type));
    EXPECT_EQ(releases, 0);  // the tensor still holds the memory
  }
  EXPECT_EQ(releases, 1);
}

TEST(CDevice, DeviceTensorKeepsItsMemoryUntilTheConsumerReleases) {
  int releases = 0;
  ArrowSchema schema;
  ArrowDeviceArray out;
  {
    ASSERT_OK_AND_ASSIGN(Tensor tensor,
                         Tensor::Wrap(
                             int64(), 0x10000, Dims{3}, Dims{8}, [&releases] { ++releases; },
                             Device{ARROW_DEVICE_ROCM, 0}));
    ASSERT_OK(ExportDeviceTensor(tensor, &schema, &out));
  }
  EXPECT_EQ(releases, 0);
  EXPECT_EQ(out.device_type, ARROW_DEVICE_ROCM);
  EXPECT_EQ(out.device_id, 0);
  out.array.release(&out.array);
  schema.release(&schema);
  EXPECT_EQ(releases, 1);
}

TEST(CDeviceHostile, DeviceTensorsThatAreNotRowMajorAreRefused) {
  ASSERT_OK_AND_ASSIGN(Tensor transposed, Tensor::Wrap(
                                              float32(), 0x10000, Dims{3, 2}, Dims{4, 12}, [] {},
                                              Device{ARROW_DEVICE_CUDA, 0}));
  ArrowSchema schema{};
  ArrowDeviceArray out{};
  EXPECT_ERROR(kNotImplemented, "only when row-major; its strides are [4, 12]",
               ExportDeviceTensor(transposed, &schema, &out));
  EXPECT_EQ(schema.release, nullptr);
  EXPECT_EQ(out.array.release, nullptr);
  Tensor scalar = test::IotaOf<int32_t>(int32(), {});
  EXPECT_ERROR(kInvalid, "ndim >= 1", ExportDeviceTensor(scalar, &schema, &out));
  EXPECT_ERROR(kInvalid, "empty Tensor", ExportDeviceTensor(Tensor{}, &schema, &out));
}

}  // namespace quiver
