// Builds a fixed-shape tensor column from a tensor, exports it through the
// C Data Interface, imports it back and checks the values survived.
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include <quiver/quiver.h>

int main() {
  std::vector<float> values(4 * 2 * 3);
  std::iota(values.begin(), values.end(), 0.0f);
  auto buffer = *quiver::Buffer::Allocate(values.size() * sizeof(float));
  std::memcpy(buffer->mutable_data(), values.data(), values.size() * sizeof(float));

  auto tensor = quiver::Tensor::Make(quiver::float32(), buffer, {4, 2, 3});
  if (!tensor.ok()) return std::puts(tensor.status().ToString().c_str()), 1;
  auto column = quiver::FixedShapeTensorArray::FromTensor(*tensor);
  if (!column.ok()) return std::puts(column.status().ToString().c_str()), 1;

  ArrowSchema schema;
  ArrowArray array;
  if (!quiver::ExportType(*column->type().data_type(), &schema).ok() ||
      !quiver::ExportArray(column->data(), &array).ok()) {
    return 1;
  }
  auto type = quiver::ImportType(&schema);
  if (!type.ok()) {
    array.release(&array);
    return std::puts(type.status().ToString().c_str()), 1;
  }
  auto data = quiver::ImportArray(&array, *type);
  if (!data.ok()) return std::puts(data.status().ToString().c_str()), 1;
  auto back = quiver::FixedShapeTensorArray::Make(*data);
  if (!back.ok() || !back->ToTensor()->Equals(*tensor)) return 1;

  std::printf("consumer: %s x %lld rows round-tripped through the C Data Interface\n",
              back->type().ToString().c_str(), static_cast<long long>(back->length()));
  return 0;
}
