// Internal: the one guard between standard-library allocations and the
// API, which never throws (DESIGN.md, Conventions).
#pragma once

#include <new>
#include <stdexcept>
#include <string_view>

#include "quiver/status.h"

namespace quiver::internal {

// Runs fn() (returning a Status or a Result), turning std::bad_alloc and
// std::length_error from its standard-library workspaces into OutOfMemory
// naming `what` ("batch 3: out of memory"): a CSR of a huge dimension needs
// an indptr that large, a batch a row list that long. Other exceptions pass
// (threads.h carries those across threads).
template <typename Fn>
auto WithoutThrowing(std::string_view what, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory(what, ": out of memory");
  } catch (const std::length_error&) {
    return Status::OutOfMemory(what, ": workspace too large");
  }
}

}  // namespace quiver::internal
