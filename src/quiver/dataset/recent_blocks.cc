// Recently decoded blocks and block indexes (recent_blocks.h).
#include "quiver/dataset/recent_blocks.h"

#include <functional>

namespace quiver::dataset {

size_t BlockKeyHash::operator()(const BlockKey& key) const {
  size_t h = std::hash<const void*>()(key.source);
  for (int64_t part : {key.batch, key.buffer, key.offset}) {
    h = h * 1000003u ^ std::hash<int64_t>()(part);
  }
  return h;
}

}  // namespace quiver::dataset
