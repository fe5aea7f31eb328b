// How the `quiver` tool writes sizes, shapes and values for people.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quiver/array.h"
#include "quiver/tensor.h"

namespace quiver::tools {

// "512 B", "1.5 KiB", "3.0 GiB".
std::string FormatBytes(int64_t bytes);
// "[2, 3]".
std::string FormatInts(std::span<const int64_t> values);
// "[H, W]".
std::string FormatNames(const std::vector<std::string>& names);

// One element of a host tensor at `address`, as NumPy prints it: integers
// in decimal, floats with up to 8 significant digits, bool8 as True/False.
std::string FormatElement(const DataType& type, const uint8_t* address);

// A host tensor as NumPy prints an array: nested brackets, one innermost
// row per line, and at most `edge` leading and trailing entries per axis
// ("...") once the tensor has more than `threshold` elements. Tensors in
// device memory are described, not read.
std::string FormatTensor(const Tensor& tensor, int64_t edge = 3, int64_t threshold = 1000);

// `text` safe to print on a terminal whatever bytes it holds: control
// characters (C0, DEL, and C1 in UTF-8 form), bytes that are not well-formed
// UTF-8 and backslashes are escaped ("\x1b", "\\"), and so is `quote` when
// given ('"' for a quoted string); other UTF-8 text is kept as it is. Names,
// metadata and messages that come from a file go through it.
std::string EscapeText(std::string_view text, char quote = '\0');

// Row `row` of a non-tensor column: numbers, booleans and strings as
// values ("null" for a null row), anything else as "<type>".
std::string FormatCell(const ArrayData& data, int64_t row);

}  // namespace quiver::tools
