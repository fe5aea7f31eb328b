// Fuzzes the arrow.fixed_shape_tensor metadata reader: any bytes must give
// a type or an error, never a crash; a parsed type must re-serialize to
// metadata that parses to an equal type.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.h"
#include "quiver/fixed_shape_tensor.h"

namespace quiver::fuzz {

int FuzzFixedShapeMetadata(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  // First byte picks the storage list size, the rest is the metadata.
  const int32_t list_size = data[0];
  std::string_view metadata(reinterpret_cast<const char*>(data + 1), size - 1);
  auto storage = quiver::fixed_size_list(quiver::ListItem(quiver::float32()), list_size);
  auto type = quiver::FixedShapeTensorType::Deserialize(*storage, metadata);
  if (!type.ok()) return 0;
  auto again = quiver::FixedShapeTensorType::Deserialize(*storage, type->Serialize());
  if (!again.ok() || !again->Equals(*type)) __builtin_trap();
  (void)type->logical_strides();
  return 0;
}

}  // namespace quiver::fuzz
