// Everything public in one include.
#pragma once

#include "quiver/array.h"
#include "quiver/buffer.h"
#include "quiver/c_data.h"
#include "quiver/conversion.h"
#include "quiver/dlpack.h"
#include "quiver/dlpack_columns.h"
#include "quiver/fixed_shape_tensor.h"
#include "quiver/shape_pattern.h"
#include "quiver/sparse_tensor.h"
#include "quiver/status.h"
#include "quiver/tensor.h"
#include "quiver/type.h"
#include "quiver/variable_shape_tensor.h"
