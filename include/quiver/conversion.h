// How quiver's conversions treat copies and null rows. Every conversion
// between columns, tensors and foreign memory takes these, so a caller
// always decides whether memory may be copied and whether null rows are an
// error.
#pragma once

namespace quiver {

// Whether a conversion may copy: never (error when a copy is needed), only
// when the layout requires it, or always (the result owns fresh memory).
enum class CopyMode { kNever, kIfNeeded, kAlways };

// What a conversion to a tensor does with null rows (and null elements
// inside cells): an error naming the first one, or allow them, exposing
// whatever bytes the null slots hold.
enum class NullPolicy { kError, kAllow };

}  // namespace quiver
