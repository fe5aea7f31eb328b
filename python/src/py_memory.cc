// quiver.release_unused_memory(): the memory quiver keeps of freed buffers.
#include "py_bindings.h"

#include "quiver/buffer.h"

namespace quiver::python {

namespace nb = nanobind;

void BindMemory(nb::module_& m) {
  m.def(
      "release_unused_memory", [] { return Buffer::ReleaseCache(); },
      "Returns to the OS the memory quiver keeps of freed buffers for reuse, and its size in "
      "bytes. Buffers of 256 KiB and more are kept when they die (up to 64 of them and 512 MiB, "
      "plus the last one over 512 MiB), so that the next read or build of a similar size skips "
      "the page faults of fresh memory; the kernel takes the one over 512 MiB back by itself "
      "under memory pressure. Call this after a large one-off read to see the process's RSS "
      "drop at once; the next large allocation maps fresh memory.");
}

}  // namespace quiver::python
