// DLPack export of tensor columns (the column-level glue over dlpack.h).
#pragma once

#include <cstdint>

#include "quiver/conversion.h"
#include "quiver/dlpack.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/variable_shape_tensor.h"

namespace quiver::dlpack {

// The tensor a column exports: ToTensor(nulls), or for bit-packed Arrow
// bools an unpacked bool8 copy (refused under CopyMode::kNever); `copied`
// says whether a copy was made.
Result<Tensor> ColumnTensor(const FixedShapeTensorArray& array, NullPolicy nulls, CopyMode copy,
                            bool* copied);

// A whole column as one [N, *logical_shape] tensor; null rows are an error
// unless allowed. bool8 values export zero-copy as DLPack bool; bit-packed
// Arrow bools are unpacked into a copy (refused under CopyMode::kNever).
Result<DLManagedTensorVersioned*> Export(const FixedShapeTensorArray& array,
                                         NullPolicy nulls = NullPolicy::kError,
                                         CopyMode copy = CopyMode::kIfNeeded,
                                         bool* copied = nullptr);
// Row i of a variable-shape column (its logical view).
Result<DLManagedTensorVersioned*> ExportRow(const VariableShapeTensorArray& array, int64_t i,
                                            NullPolicy nulls = NullPolicy::kError);

}  // namespace quiver::dlpack
